import { describe, expect, it } from 'vitest';
import type { NotificationSettings } from './backend/backend';
import { fromForm, isHighRisk, notifyState, parseList, toForm } from './notify-settings';
import { makeNotifyStatus } from './testing/fake-backend';

const base: NotificationSettings = { enabled: true, quietHours: null, engines: null, agents: null, highRiskTools: [] };

describe('notification settings form', () => {
  it('parses lists: commas and new lines separate, blanks and repeats go, nothing left is null', () => {
    expect(parseList('')).toBeNull();
    expect(parseList('  , ,\n ')).toBeNull();
    expect(parseList(' local, prod ,local\nstaging,')).toEqual(['local', 'prod', 'staging']);
  });

  it('empty filters are sent as null (all), filled ones as lists', () => {
    const form = toForm(base);
    expect(form).toMatchObject({ engines: '', agents: '', highRiskTools: '', quiet: false });
    expect(fromForm(form, base)).toEqual(base);

    const edited = { ...form, engines: 'local, prod', agents: 'ops', highRiskTools: 'delete_record\nsend_email' };
    expect(fromForm(edited, base)).toEqual({ ...base, engines: ['local', 'prod'], agents: ['ops'], highRiskTools: ['delete_record', 'send_email'] });

    const loaded = { ...base, engines: ['local'], agents: ['ops', 'billing'], highRiskTools: ['rm'] };
    const cleared = { ...toForm(loaded), engines: '  ', agents: '', highRiskTools: '' };
    expect(fromForm(cleared, loaded)).toEqual({ ...base, engines: null, agents: null, highRiskTools: [] });
  });

  it('an untouched list is sent as loaded, even one the text cannot show', () => {
    const loaded = { ...base, engines: [], agents: ['a,b'] };
    const form = toForm(loaded);
    expect(form.engines).toBe('');
    expect(fromForm({ ...form, enabled: false }, loaded)).toEqual({ ...loaded, enabled: false });
  });

  it('quiet hours: off is null, on sends both times as typed', () => {
    const form = toForm(base);
    expect([form.quietStart, form.quietEnd]).toEqual(['22:00', '07:00']);
    expect(fromForm({ ...form, quiet: true, quietStart: '23:15', quietEnd: '06:30' }, base).quietHours).toEqual({ start: '23:15', end: '06:30' });
    const loaded = { ...base, quietHours: { start: '12:00', end: '13:00' } };
    expect(toForm(loaded)).toMatchObject({ quiet: true, quietStart: '12:00', quietEnd: '13:00' });
    expect(fromForm({ ...toForm(loaded), quiet: false }, loaded).quietHours).toBeNull();
  });

  it('names the status', () => {
    expect(notifyState(makeNotifyStatus({ running: false, available: false }))).toBe('off');
    expect(notifyState(makeNotifyStatus({ available: false }))).toBe('unavailable');
    expect(notifyState(makeNotifyStatus({ available: true }))).toBe('working');
    expect(notifyState(makeNotifyStatus({ available: null }))).toBe('untried');
  });

  it('high-risk tools are exact names, as the server compares them', () => {
    expect(isHighRisk(['delete_record', 'send_email'], 'delete_record')).toBe(true);
    expect(isHighRisk(['delete_record'], 'Delete_record')).toBe(false);
    expect(isHighRisk(['delete_record'], 'delete')).toBe(false);
    expect(isHighRisk(null, 'delete_record')).toBe(false);
  });
});
