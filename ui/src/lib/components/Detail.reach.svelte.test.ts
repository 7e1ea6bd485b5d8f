// A call's reach in its detail (issue 28): "Claim (I'm on it)" while it waits, the claim shown to
// everyone, its channels' messages (channel, person, state, when sent or why not; the channels'
// texts as text only), read when the call is shown, on each fresh copy of it and every 15 s.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError, type QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { decision, FakeBackend, makeItem, makeReachMessage } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import { formatClock } from '../time';
import Detail from './Detail.svelte';

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

function render(backend: FakeBackend, item: QueueItem = makeItem({ id: 'q1' }), principal = { name: 'alice', role: 'operator' as const, kind: 'token' as const }) {
  backend.add(item);
  backend.principal = principal;
  const props = $state({ item, ondecided: vi.fn(), onerror: vi.fn() });
  const mounted = mountInBody(Detail, { props, context: backendContext(backend, principal) });
  flushSync();
  const tid = (id: string) => mounted.target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  const all = (id: string) => [...mounted.target.querySelectorAll(`[data-testid="${id}"]`)] as HTMLElement[];
  return { ...mounted, props, tid, all };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("a call's reach", () => {
  it('claims a waiting call: asks the server, then shows the claim to everyone instead of the button', async () => {
    const backend = new FakeBackend();
    backend.reachMessages.set('q1', [makeReachMessage({ id: 'm1', queueItemId: 'q1', state: 'pending', sentAt: null })]);
    const { tid } = render(backend);
    await settle();
    expect(text(tid('claim'))).toBe("Claim (I'm on it)");
    expect(tid('claim-state')).toBeNull();
    tid('claim')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'claimCall')).toEqual([{ method: 'claimCall', args: ['q1'] }]);
    expect(text(tid('claim-state'))).toBe(`Claimed by alice at ${formatClock('2025-01-01T10:32:00Z')}`);
    expect(tid('claim-state')!.querySelector('time')!.getAttribute('datetime')).toBe('2025-01-01T10:32:00Z');
    // Claimed by this operator: nothing more to claim; its waiting message will not be sent.
    expect(tid('claim')).toBeNull();
    expect(tid('reach-message')!.dataset.state).toBe('skipped');
  });

  it("shows another operator's claim, as text, and still offers to take it over", async () => {
    const backend = new FakeBackend();
    backend.claims.set('q1', { person: '<b>bob</b>\u202E', principal: 'token:bob', claimedAt: '2025-01-01T10:32:00Z' });
    const { tid } = render(backend);
    await settle();
    expect(text(tid('claim-state'))).toBe(`Claimed by <b>bob</b>\\u{202E} at ${formatClock('2025-01-01T10:32:00Z')}`);
    expect(tid('claim-state')!.querySelector('b')).toBeNull();
    expect(tid('claim')).not.toBeNull();
  });

  it("lists the channels' messages: channel, person, state, and when it went or why not, as text", async () => {
    const backend = new FakeBackend();
    backend.reachMessages.set('q1', [
      makeReachMessage({ id: 'm1', channel: 'alice-hook', person: 'alice', state: 'sent', sentAt: '2025-01-01T10:00:02Z' }),
      makeReachMessage({ id: 'm2', channel: 'ops-mail', person: 'bob', step: 1, state: 'failed', attempts: 5, sentAt: null, lastError: '<img src=x onerror="window.__pwned=1"> 550 mailbox unavailable' }),
      makeReachMessage({ id: 'm3', channel: 'team-slack', person: 'ops', state: 'skipped', sentAt: null, lastError: 'claimed by alice' }),
      makeReachMessage({ id: 'm4', channel: 'carol-matrix', person: 'carol', state: 'pending', attempts: 0, sentAt: null, dueAt: '2025-01-01T10:15:00Z' }),
    ]);
    const { tid, all } = render(backend);
    await settle();
    const table = tid('reach-messages')!;
    expect(text(table.querySelector('caption'))).toBe('Sent to channels');
    const rows = all('reach-message').map((r) => [...r.children].map((c) => text(c)));
    expect(rows).toEqual([
      ['alice-hook', 'alice', 'sent', formatClock('2025-01-01T10:00:02Z')],
      ['ops-mail', 'bob', 'failed', '<img src=x onerror="window.__pwned=1"> 550 mailbox unavailable (5 attempts)'],
      ['team-slack', 'ops', 'not sent', 'claimed by alice'],
      ['carol-matrix', 'carol', 'waiting', `due ${formatClock('2025-01-01T10:15:00Z')}`],
    ]);
    expect(table.querySelector('img')).toBeNull();
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it('offers no claim for a decided call, and shows nothing when there is nothing to say', async () => {
    const backend = new FakeBackend();
    const base = makeItem({ id: 'q1' });
    const item = { ...base, state: 'decided' as const, tab: 'awaiting_delivery' as const, allowed: [], decision: decision('approve', base.fingerprint, null, null) };
    const { tid } = render(backend, item);
    await settle();
    expect(tid('claim')).toBeNull();
    expect(tid('call-reach')).toBeNull();
  });

  it('says why the claim was refused', async () => {
    const backend = new FakeBackend();
    const { tid } = render(backend);
    await settle();
    backend.failClaim = new ApiError('already_decided', 'the call was decided meanwhile', { state: 'decided' }, 409);
    tid('claim')!.click();
    await settle();
    expect(tid('claim-error')!.dataset.code).toBe('already_decided');
    expect(text(tid('claim-error-message'))).toBe('the call was decided meanwhile');
    expect(tid('claim-state')).toBeNull();
  });

  it('reads it again on each fresh copy of the call and every 15 s while shown, and for another call only that one', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const backend = new FakeBackend();
    const { props, tid, unmount } = render(backend);
    await settle({ macrotasks: false });
    expect(backend.reachAsked).toEqual(['q1']);
    // Another operator claims it: the next read shows it.
    backend.claims.set('q1', { person: 'bob', principal: 'token:bob', claimedAt: '2025-01-01T10:40:00Z' });
    await vi.advanceTimersByTimeAsync(15_000);
    await settle({ macrotasks: false });
    expect(backend.reachAsked).toEqual(['q1', 'q1']);
    expect(tid('claim-state')!.dataset.person).toBe('bob');
    // An event for the call brings a fresh copy of it.
    props.item = { ...props.item };
    await settle({ macrotasks: false });
    expect(backend.reachAsked).toEqual(['q1', 'q1', 'q1']);
    // Another call: nothing of the last one's shown.
    const other = makeItem({ id: 'q2' });
    backend.add(other);
    props.item = other;
    flushSync();
    expect(tid('claim-state')).toBeNull();
    await settle({ macrotasks: false });
    expect(backend.reachAsked).toEqual(['q1', 'q1', 'q1', 'q2']);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(backend.reachAsked).toEqual(['q1', 'q1', 'q1', 'q2', 'q2']);
    unmount();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(backend.reachAsked).toHaveLength(5);
  });
});
