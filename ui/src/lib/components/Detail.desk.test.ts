// The detail as a desk to decide from (issue 45): three lines at the top (what, where, why — the
// agent's words said to be unchecked, never HTML), Claim as the header's action and the channels in
// one folded line, the decision bar holding Approve and the console's last word, numbered preset
// reasons, the header flashed when it opens after a decision, a file edit's change shown once, and
// the next call shown after one's own approval short of a quorum.
import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { FakeBackend, makeItem, makeReachMessage } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import Detail from './Detail.svelte';

const text = (el: Element | null | undefined) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

function render(item: QueueItem, props: Record<string, unknown> = {}, backend = new FakeBackend()) {
  backend.add(item);
  const handlers = { ondecided: vi.fn(), onerror: vi.fn(), onupdated: vi.fn(), onmoveon: vi.fn() };
  const { target } = mountInBody(Detail, { props: { item, highRisk: false, ...handlers, ...props }, context: backendContext(backend) });
  flushSync();
  const tid = (id: string) => target.querySelector<HTMLElement>(`[data-testid="${id}"]`);
  return { target, tid, backend, ...handlers };
}

const key = (el: Element, k: string) => {
  const e = new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true });
  el.dispatchEvent(e);
  return e;
};

describe('the detail as a desk', () => {
  it('wears the one risk chip in its header, medium included, on the scale the rows and the risk box use', () => {
    for (const level of ['low', 'medium', 'high', 'critical'] as const) {
      const { tid, target } = render(makeItem({ id: `c-${level}`, risk: { level, reasons: [{ level, text: 'why' }] } }));
      const chip = tid('detail-header-risk')!;
      expect([chip.dataset.level, chip.classList.contains(level)]).toEqual([level, true]);
      expect(tid('detail-header')!.contains(chip)).toBe(true);
      target.remove();
    }
    const { tid } = render(makeItem({ id: 'c-none', risk: undefined }));
    expect(tid('detail-header-risk')).toBeNull();
  });

  it('leads with what, where and why, the agent’s words as text and said to be unchecked', () => {
    const { tid } = render(
      makeItem({
        source: 'claude-code',
        engine: 'claude-code',
        toolName: 'Bash',
        args: { command: 'kubectl --context prod delete deploy api', description: 'Remove the <b>old</b>\u202E one' },
        context: { cwd: '/home/dev/infra', event: 'PreToolUse' },
        pauseReason: { kind: 'submitted' },
      }),
    );
    expect(text(tid('summary-what'))).toBe('What $ kubectl --context prod delete deploy api');
    expect(text(tid('summary-where'))).toBe('Where in /home/dev/infra');
    const why = tid('summary-why')!;
    expect(text(why)).toBe("Why Remove the <b>old</b>\\u{202E} one — the agent's words, unchecked");
    expect(why.querySelector('b')).toBeNull();
    expect(why.querySelector('[data-mark="hidden"]')).not.toBeNull();
    // The console's own reason says only that the agent asked: not repeated beside its words.
    expect(tid('pause-reason')).toBeNull();
    // Before the arguments in full.
    expect(tid('detail-summary')!.compareDocumentPosition(tid('args-tree')!) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it("says why the console paused a call when its agent gave no words, and a host and a database from its arguments", () => {
    const { tid } = render(makeItem({ toolName: 'run_sql', args: { database: 'orders', host: 'db-3', query: 'delete' }, pauseReason: { kind: 'tool' } }));
    expect(text(tid('summary-where'))).toBe('Where host db-3 · database orders');
    expect(text(tid('pause-reason'))).toBe('Why it paused: The tool always requires approval');
    expect(tid('summary-why')).toBeNull();
  });

  it('puts Claim in the header and the channels in one line that unfolds', async () => {
    const backend = new FakeBackend();
    backend.reachMessages.set('q1', [
      makeReachMessage({ id: 'm1', channel: 'alice-hook', person: 'alice', state: 'sent', sentAt: '2025-01-01T10:00:02Z' }),
      makeReachMessage({ id: 'm2', channel: 'ops-mail', person: 'bob', state: 'failed', attempts: 5, sentAt: null, lastError: 'no' }),
    ]);
    const { tid } = render(makeItem({ id: 'q1' }), {}, backend);
    await settle();
    expect(tid('claim')!.closest('header')).toBe(tid('detail-header'));
    const line = tid('reach-line') as HTMLDetailsElement;
    expect(line.open).toBe(false);
    expect(text(tid('reach-summary'))).toBe('Sent to channels: 1 sent, 1 failed');
    expect(line.contains(tid('reach-messages'))).toBe(true);
  });

  it("holds Approve, Decline and the console's last word in the decision bar, and nothing of it for a decided call", () => {
    const { tid } = render(makeItem(), { note: 'Approved delete_record. Showing the next call.' });
    const bar = tid('decision-bar')!;
    for (const id of ['approve', 'decline', 'decline-reason', 'triage-note']) expect(bar.contains(tid(id)), id).toBe(true);
    expect(text(tid('triage-note'))).toBe('Approved delete_record. Showing the next call.');
    // Last, after the ids: sticky at the bottom of the pane, the detail scrolls under it.
    expect(tid('fingerprint-full')!.compareDocumentPosition(bar) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(bar.nextElementSibling).toBeNull();
    const decided = render(makeItem({ id: 'd1', state: 'delivered', allowed: [] }));
    expect(decided.tid('decision-bar')!.classList.contains('idle')).toBe(true);
    expect(decided.tid('approve')).toBeNull();
  });

  it('picks a preset reason by its number in an empty reason, and types digits into one already begun', () => {
    const { tid, target } = render(makeItem());
    const reason = tid('decline-reason') as HTMLInputElement;
    reason.focus();
    expect(key(reason, '2').defaultPrevented).toBe(true);
    flushSync();
    expect(reason.value).toBe('Wrong target');
    expect(key(reason, '1').defaultPrevented).toBe(false);
    // No preset of that number, or a key with a modifier: the key is the field's.
    reason.value = '';
    reason.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    expect(key(reason, '9').defaultPrevented).toBe(false);
    const alt = new KeyboardEvent('keydown', { key: '1', altKey: true, bubbles: true, cancelable: true });
    reason.dispatchEvent(alt);
    expect(alt.defaultPrevented).toBe(false);
    expect(target.querySelectorAll('[data-testid="decline-preset"]')).toHaveLength(3);
  });

  it('flashes its header when it opens with the word on the last decision, not when simply opened', () => {
    expect(render(makeItem({ id: 'a' }), { note: 'Approved x. Showing the next call.' }).tid('detail')!.dataset.arrived).toBe('true');
    expect(render(makeItem({ id: 'b' })).tid('detail')!.dataset.arrived).toBeUndefined();
  });

  it("shows a file edit's change once: its diff, the change in words on top, its arguments folded", () => {
    const changes = {
      summary: 'edits 1 line in src/pay.py',
      moreFiles: false,
      files: [{ path: 'src/pay.py', action: 'edit' as const, diff: '@@ -1 +1 @@\n-limit = 100\n+limit = 10_000\n', added: 1, removed: 1, againstDisk: true, cut: false }],
    };
    const { tid, target } = render(
      makeItem({ source: 'claude-code', engine: 'claude-code', toolName: 'Edit', args: { file_path: '/r/src/pay.py', old_string: 'limit = 100\n', new_string: 'limit = 10_000\n' }, changes }),
    );
    expect(tid('summary-what')!.dataset.kind).toBe('changes');
    expect(tid('detail-tool-line')).toBeNull();
    expect((tid('args-folded') as HTMLDetailsElement).open).toBe(false);
    // "10_000" once in what is open to read: the diff.
    const shown = [...target.querySelectorAll('[data-testid="changes-diff"], [data-testid="summary-what"]')].map((e) => e.textContent ?? '').join(' ');
    expect(shown.match(/10_000/g)).toHaveLength(1);
  });

  it('moves on to the next call after its own approval short of the quorum, and not after a plain approval', async () => {
    const alice = { operator: 'alice (web)', operatorKey: 'token:alice', at: '2025-01-01T10:00:10Z' };
    const two = render(makeItem({ id: 'two', quorum: 3, approvals: [alice] }));
    two.tid('approve')!.click();
    flushSync();
    two.tid('approve-confirm')!.click();
    await settle();
    expect(two.onmoveon).toHaveBeenCalledTimes(1);
    expect((two.onmoveon.mock.calls[0][0] as QueueItem).state).toBe('pending');
    expect(two.onupdated).toHaveBeenCalledTimes(1);
    const plain = render(makeItem({ id: 'one' }));
    plain.tid('approve')!.click();
    flushSync();
    plain.tid('approve-confirm')!.click();
    await settle();
    expect(plain.ondecided).toHaveBeenCalledTimes(1);
    expect(plain.onmoveon).not.toHaveBeenCalled();
  });
});
