import { describe, expect, it } from 'vitest';
import { approvedBy, approverNames, fromQuorumForm, hasQuorum, principalKey, toQuorumForm } from './quorum';
import { makeItem } from './testing/fixtures';

const approval = (operator: string, operatorKey: string) => ({ operator, operatorKey, at: '2026-12-01T10:00:00Z' });

describe('quorum', () => {
  it("knows a principal's own approvals by its key, never by a name alone", () => {
    const item = makeItem({ quorum: 2, approvals: [approval('alice (web)', 'token:alice')] });
    expect(hasQuorum(item)).toBe(true);
    expect(hasQuorum(makeItem())).toBe(false);
    expect(approverNames(item)).toEqual(['alice (web)']);
    expect(approvedBy(item, { name: 'alice', role: 'operator', kind: 'token' })).toBe(true);
    expect(approvedBy(item, { name: 'alice', role: 'admin', kind: 'local' })).toBe(false);
    expect(approvedBy(item, { name: 'bob', role: 'operator', kind: 'token' })).toBe(false);
    // The desktop window before it knows its user's name: nothing is its own.
    expect(principalKey({ name: '', role: 'admin', kind: 'local' })).toBeNull();
    expect(approvedBy(item, null)).toBe(false);
  });

  it('keeps the critical calls\' quorum: as typed, 1 or empty for none', () => {
    const form = toQuorumForm({ rules: [], critical: 3 });
    expect(form.critical).toBe(3);
    expect(fromQuorumForm(form)).toEqual({ rules: [], critical: 3 });
    expect(fromQuorumForm({ rules: [], critical: '' })).toEqual({ rules: [] });
    expect(fromQuorumForm({ rules: [], critical: 1 })).toEqual({ rules: [] });
    expect(fromQuorumForm({ rules: [], critical: 'x' })).toEqual({ rules: [], critical: 0 });
  });

  it('turns the editor into settings: names trimmed, unnamed rules dropped, numbers as typed', () => {
    const form = toQuorumForm({ rules: [{ tool: 'delete_record', approvals: 2 }] });
    expect(form).toEqual({ rules: [{ tool: 'delete_record', approvals: 2 }], critical: null });
    form.rules.push({ tool: ' wire_money ', approvals: '3' }, { tool: '  ', approvals: 2 }, { tool: 'x', approvals: 'two' });
    expect(fromQuorumForm(form)).toEqual({
      rules: [
        { tool: 'delete_record', approvals: 2 },
        { tool: 'wire_money', approvals: 3 },
        { tool: 'x', approvals: 0 },
      ],
    });
  });
});
