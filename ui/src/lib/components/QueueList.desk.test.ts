// Rows that read (issue 45): the tool's name kept whole up to 24 characters, badges for exceptions
// only (a question, the two-person rule's "1/2 · alice", a withdrawn call, a deadline inside its
// warn window), one risk chip, and the meta line `agent · source · 4m ago` that moves on with the
// clock (the date and time in its title; the fingerprint left to the detail).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeItem } from '../testing/fake-backend';
import { settle } from '../testing/mount';
import { renderQueueList, text } from '../testing/queue-list';

const render = renderQueueList;

const alice = { operator: 'alice (web)', operatorKey: 'token:alice', at: '2025-01-01T10:00:10Z' };

afterEach(() => {
  vi.useRealTimers();
});

describe('rows that read', () => {
  it('wears badges only for exceptions: none for a plain approval, the question, the quorum "1/2 · alice", a withdrawn call', async () => {
    const { row, part } = await render(
      [
        makeItem({ id: 'plain', runId: 'r1' }),
        makeItem({ id: 'ask', kind: 'suspend', toolName: 'ask_operator', args: { question: 'Which?' }, suspendPayload: { question: 'Which?' }, runId: 'r2' }),
        makeItem({ id: 'two', toolName: 'transfer_funds', quorum: 2, approvals: [alice], runId: 'r3' }),
        makeItem({ id: 'none', toolName: 'transfer_funds', quorum: 2, approvals: [], runId: 'r4' }),
        makeItem({ id: 'gone', source: 'http', engine: 'http', state: 'gone', allowed: [], runId: 'r5' }),
      ],
      'all',
    );
    expect(row('plain').querySelectorAll('.line1 .badge')).toHaveLength(0);
    expect(text(row('ask').querySelector('.line1 .badge'))).toBe('suspend');
    const q = part('two', 'row-quorum')!;
    expect(text(q)).toBe('1/2 · alice');
    expect(q.title).toBe('1 of 2 approvals so far: alice (web)');
    expect(text(part('none', 'row-quorum'))).toBe('0/2');
    expect(text(part('gone', 'row-withdrawn'))).toBe('withdrawn');
    // No fingerprint in a row: it is the detail's.
    expect(row('plain').querySelector('code.fp')).toBeNull();
    expect(text(row('plain'))).not.toContain('sha256');
  });

  it('keeps the whole name up to 24 characters however many badges the row wears, and cuts only past that', async () => {
    const long = 'rotate_production_secret_and_notify';
    const { part } = await render([
      makeItem({ id: 'a', toolName: 'transfer_funds', quorum: 2, approvals: [alice], risk: { level: 'critical', reasons: [] }, runId: 'r1' }),
      makeItem({ id: 'b', toolName: long, runId: 'r2' }),
    ]);
    expect(part('a', 'queue-item-tool')!.style.minWidth).toBe('min(14ch, 100%)');
    expect(part('b', 'queue-item-tool')!.style.minWidth).toBe('min(24ch, 100%)');
    expect(text(part('b', 'queue-item-tool'))).toBe(long);
  });

  it('shows a countdown only inside the warn window', async () => {
    const soon = new Date(Date.now() + 120_000).toISOString();
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const { part } = await render([makeItem({ id: 's', expiresAt: soon, runId: 'r1' }), makeItem({ id: 'l', expiresAt: later, runId: 'r2' })]);
    expect(part('s', 'queue-item-countdown')).not.toBeNull();
    expect(part('l', 'queue-item-countdown')).toBeNull();
  });

  it('says agent · source · how long ago, the time moving on with the clock and the date and time in its title', async () => {
    vi.useFakeTimers({ now: Date.parse('2025-01-01T10:00:20Z'), toFake: ['Date', 'setInterval', 'clearInterval'] });
    const { part } = await render([
      makeItem({ id: 'h', source: 'claude-code', engine: 'claude-code', agentId: 'claude-code', agentName: null, requestedBy: { kind: 'token', name: 'ci-hook' }, toolName: 'Bash', args: { command: 'ls' } }),
    ]);
    const meta = part('h', 'queue-item-meta')!;
    expect(text(meta)).toBe('claude-code · Claude Code · now');
    expect(meta.querySelector<HTMLElement>('.agent')!.title).toBe('claude-code, via ci-hook');
    const time = part('h', 'queue-item-time')!;
    expect(time.title).toMatch(/^Paused at Jan 1, /);
    await vi.advanceTimersByTimeAsync(4 * 60_000);
    await settle({ macrotasks: false });
    expect(text(time)).toBe('4m ago');
  });

  it('shows one risk chip for medium and above, with its reasons as text in its title', async () => {
    const { part } = await render([
      makeItem({ id: 'm', risk: { level: 'medium', reasons: [{ level: 'medium', text: '<b>x</b>' }] }, runId: 'r1' }),
      makeItem({ id: 'l', risk: { level: 'low', reasons: [] }, runId: 'r2' }),
    ]);
    const chip = part('m', 'row-risk')!;
    expect([chip.dataset.level, text(chip), chip.title]).toEqual(['medium', 'Medium', 'Risk: Medium\n<b>x</b>']);
    expect(chip.querySelector('b')).toBeNull();
    expect(part('l', 'row-risk')).toBeNull();
  });
});
