// The two-person rule in the detail: where a call of a tool with a quorum stands ("1 of 2
// approvals: alice (web)"), an approval that does not complete it leaves the call waiting, and one
// who approved it already gets no usable Approve, with the reason.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { i18n } from '../i18n/index.svelte';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import Detail from './Detail.svelte';

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
const byAlice = { operator: 'alice (web)', operatorKey: 'token:alice', at: '2025-01-01T10:00:10Z' };
const byMe = { operator: 'me (web)', operatorKey: 'local:me', at: '2025-01-01T10:00:20Z' };

function renderDetail(item: QueueItem, backend = new FakeBackend()) {
  backend.add(item);
  const ondecided = vi.fn();
  const onupdated = vi.fn();
  const { target } = mountInBody(Detail, { props: { item, ondecided, onerror: vi.fn(), onupdated, highRisk: false }, context: backendContext(backend) });
  flushSync();
  const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { target, tid, backend, ondecided, onupdated };
}

describe('a call of a tool that needs several approvals', () => {
  afterEach(() => i18n.set('system'));

  it('says where it stands, and an approval short of the quorum leaves it waiting', async () => {
    const item = makeItem({ quorum: 3, approvals: [byAlice] });
    const { tid, backend, ondecided, onupdated } = renderDetail(item);
    expect(text(tid('quorum-standing'))).toBe('1 of 3 approvals: alice (web)');
    const approve = tid('approve') as HTMLButtonElement;
    expect(approve.disabled).toBe(false);
    expect(tid('approved-by-you')).toBeNull();
    expect(tid('grant'), 'no "always allow" for it').toBeNull();
    approve.click();
    flushSync();
    tid('approve-confirm')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'approve')).toEqual([{ method: 'approve', args: [item.id, item.fingerprint] }]);
    expect(ondecided).not.toHaveBeenCalled();
    const after = onupdated.mock.calls[0][0] as QueueItem;
    expect([after.state, after.approvals.map((a) => a.operator)]).toEqual(['pending', ['alice (web)', 'me (web)']]);
  });

  it('offers no usable Approve to one who approved it already, and says why', async () => {
    const { tid } = renderDetail(makeItem({ quorum: 2, approvals: [byMe] }));
    expect(text(tid('quorum-standing'))).toBe('1 of 2 approvals: me (web)');
    const approve = tid('approve') as HTMLButtonElement;
    expect(approve.disabled).toBe(true);
    const reason = tid('approved-by-you')!;
    expect(approve.getAttribute('aria-describedby')).toBe(reason.id);
    expect(text(reason)).toContain('another operator gives the next approval');
  });

  it('offers no Approve to the one who asked for the call, says why before any confirm step, and keeps Decline', async () => {
    const { tid } = renderDetail(makeItem({ quorum: 2, approvals: [], requestedBy: { kind: 'local', name: 'me' } }));
    const approve = tid('approve') as HTMLButtonElement;
    expect(approve.disabled).toBe(true);
    const why = tid('own-request')!;
    expect(approve.getAttribute('aria-describedby')).toBe(why.id);
    expect(text(why)).toContain('You asked for this call');
    expect(text(why)).toContain('2 approvals by other operators');
    approve.click();
    flushSync();
    expect(tid('approve-confirm'), 'no confirm step to fail after').toBeNull();
    expect((tid('decline') as HTMLButtonElement).disabled).toBe(false);
  });

  it('offers Approve as usual when someone else asked for the call', async () => {
    const { tid } = renderDetail(makeItem({ quorum: 2, approvals: [], requestedBy: { kind: 'token', name: 'bot' } }));
    expect((tid('approve') as HTMLButtonElement).disabled).toBe(false);
    expect(tid('own-request')).toBeNull();
  });

  it('says so in Japanese too, and a call nobody approved yet needs the quorum', async () => {
    i18n.set('ja');
    const { tid } = renderDetail(makeItem({ quorum: 2, approvals: [] }));
    expect(text(tid('quorum-standing'))).toBe('異なるオペレーター 2 人の承認が必要です');
    expect((tid('approve') as HTMLButtonElement).disabled).toBe(false);
  });

  it('shows nothing of it for a tool that needs one approval', () => {
    const { tid } = renderDetail(makeItem());
    expect(tid('quorum-standing')).toBeNull();
  });
});
