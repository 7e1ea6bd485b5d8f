import { describe, expect, it } from 'vitest';
import { countdown, formatDuration, fromExpiryForm, snoozeSecs, toExpiryForm, toUnits } from './expiry';

const NOW = Date.parse('2025-01-01T10:00:00Z');

describe('expiry in words', () => {
  it('writes durations with at most two units', () => {
    expect(formatDuration(3600)).toBe('1 h');
    expect(formatDuration(900)).toBe('15 min');
    expect(formatDuration(86_400)).toBe('1 day');
    expect(formatDuration(2 * 86_400 + 3 * 3600 + 60)).toBe('2 days 3 h');
    expect(formatDuration(1)).toBe('1 s');
    expect(formatDuration(90)).toBe('1 min 30 s');
  });

  it('counts down to a deadline, in the warning style inside the warn window', () => {
    expect(countdown('2025-01-01T10:04:00Z', NOW, 300)).toEqual({ text: 'expires in 4 min', remainingSecs: 240, warn: true, over: false });
    expect(countdown('2025-01-01T10:20:00Z', NOW, 300)).toMatchObject({ text: 'expires in 20 min', warn: false });
    expect(countdown('2025-01-01T12:30:00Z', NOW, 300)?.text).toBe('expires in 2 h 30 min');
    expect(countdown('2025-01-03T10:00:00Z', NOW, 300)?.text).toBe('expires in 2 days');
    expect(countdown('2025-01-01T10:00:30Z', NOW, 0)).toMatchObject({ text: 'expires in 30 s', warn: false });
    expect(countdown('2025-01-01T09:59:00Z', NOW, 300)).toMatchObject({ text: 'expiring now', over: true });
    expect(countdown('not a time', NOW, 300)).toBeNull();
  });

  it('snoozes the deadline later by the step, within the server range', () => {
    expect(snoozeSecs('2025-01-01T10:04:00Z', 900, NOW)).toBe(240 + 900);
    expect(snoozeSecs('2025-01-01T09:00:00Z', 900, NOW)).toBe(900);
    expect(snoozeSecs(null, 3600, NOW)).toBe(3600);
    expect(snoozeSecs('2025-01-30T10:00:00Z', 86_400, NOW)).toBe(30 * 86_400);
  });

  it('edits rules as amounts in units and sends seconds', () => {
    expect(toUnits(5400)).toEqual({ amount: '90', unit: 'minutes' });
    expect(toUnits(7200)).toEqual({ amount: '2', unit: 'hours' });
    expect(toUnits(1)).toEqual({ amount: '1', unit: 'seconds' });
    const form = toExpiryForm({ rules: [{ tool: 'delete_record', afterSecs: 3600 }, { tool: '*', afterSecs: 86_400 }], warnBeforeSecs: 300 });
    expect(form).toEqual({
      rules: [
        { tool: 'delete_record', amount: '1', unit: 'hours' },
        { tool: '*', amount: '1', unit: 'days' },
      ],
      warnAmount: '5',
      warnUnit: 'minutes',
    });
    form.rules[0].amount = '1.5';
    form.rules.push({ tool: ' rm ', amount: '', unit: 'minutes' });
    expect(fromExpiryForm(form)).toEqual({
      rules: [
        { tool: 'delete_record', afterSecs: 5400 },
        { tool: '*', afterSecs: 86_400 },
        { tool: 'rm', afterSecs: 0 },
      ],
      warnBeforeSecs: 300,
    });
  });
});
