// A call the server says cannot be approved as it is (`approveBlocked`): the detail says why in place
// of Approve, and `a` says so like any key that does not apply.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { i18n } from '../i18n/index.svelte';
import { NotifyWarning } from '../notify-warning.svelte';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import Console from './Console.svelte';
import Detail from './Detail.svelte';

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** A remote call listed without its arguments: decline only. */
function missing(over: Partial<QueueItem> = {}): QueueItem {
  return makeItem({
    id: 'm1',
    engine: 'prod',
    args: null,
    allowed: ['decline'],
    approveBlocked: {
      code: 'missing_arguments',
      message: "the engine did not list this call's arguments, so nobody can see what would run: it can only be declined",
      details: null,
    },
    ...over,
  });
}

/** A local call with integers beyond 2^53: decline, or edit then approve. */
function ambiguous(over: Partial<QueueItem> = {}): QueueItem {
  return makeItem({
    id: 'b1',
    args: { id: 9007199254740992, nested: { n: 1e20 } },
    allowed: ['decline', 'edit'],
    approveBlocked: {
      code: 'ambiguous_arguments',
      message: 'the arguments hold integers an IEEE double cannot represent exactly (/id, /nested/n): …',
      details: { paths: ['/id', '/nested/n\u202E', 42] },
    },
    ...over,
  });
}

function renderDetail(item: QueueItem, backend = new FakeBackend()) {
  backend.add(item);
  const { target } = mountInBody(Detail, { props: { item, ondecided: vi.fn(), onerror: vi.fn() }, context: backendContext(backend) });
  flushSync();
  const tid = (id: string) => target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { target, tid, backend };
}

describe('a call that cannot be approved as it is', () => {
  afterEach(() => i18n.set('system'));

  it('missing_arguments: says nobody can see what it would run, with the server message, in place of Approve; decline stays', async () => {
    const { tid, backend, target } = renderDetail(missing());
    expect(tid('approve')).toBeNull();
    expect(tid('approve-confirm')).toBeNull();
    const box = tid('approve-blocked')!;
    expect(box.dataset.code).toBe('missing_arguments');
    expect(text(tid('approve-blocked-title'))).toBe('Nobody can see what this call would run');
    expect(text(tid('approve-blocked-message'))).toBe(
      "the engine did not list this call's arguments, so nobody can see what would run: it can only be declined",
    );
    expect(text(tid('approve-blocked-next'))).toBe('It can only be declined.');
    expect(tid('approve-blocked-paths')).toBeNull();
    expect(tid('edit-args-open')).toBeNull();
    // No "Always allow" for a call that cannot be approved (it would approve this one at once).
    expect(tid('grant-open')).toBeNull();
    expect(target.textContent).not.toContain('runs delete_record with the arguments above');
    tid('decline')!.click();
    await settle();
    expect(backend.calls.filter((c) => c.method === 'decline').map((c) => c.args[0])).toEqual(['m1']);

    i18n.set('ja');
    flushSync();
    expect(text(tid('approve-blocked-title'))).toBe('この呼び出しが何を実行するのか、誰にも分かりません');
  });

  it('ambiguous_arguments: names the paths as text (hidden characters marked), points to Edit, and Edit opens', async () => {
    const { tid, target } = renderDetail(ambiguous());
    expect(tid('approve')).toBeNull();
    expect(text(tid('approve-blocked-title'))).toBe('These numbers cannot be approved as they are');
    const paths = tid('approve-blocked-paths')!;
    expect([...paths.querySelectorAll('code')].map((c) => c.textContent)).toEqual(['/id', '/nested/n\\u{202E}']);
    expect(text(paths)).toBe('The numbers at /id, /nested/n\\u{202E} are too large to show or bind exactly: what you see may not be what would run.');
    expect(text(tid('approve-blocked-next'))).toBe('To approve exact values, use Edit arguments…; or decline it.');
    expect(target.querySelector('[data-testid="approve-blocked"] b, [data-testid="approve-blocked"] script')).toBeNull();
    tid('edit-args-open')!.click();
    await settle();
    expect(target.querySelector('[data-testid="edit-args"], textarea')).not.toBeNull();
  });

  it('an unknown code still gets a title in words, and a pending call without approveBlocked keeps Approve', () => {
    const other = renderDetail(makeItem({ id: 'o1', approveBlocked: { code: 'something_new', message: 'no', details: null }, allowed: ['decline'] }));
    expect(text(other.tid('approve-blocked-title'))).toBe('This call cannot be approved as it is');
    const plain = renderDetail(makeItem({ id: 'p1' }));
    expect(plain.tid('approve-blocked')).toBeNull();
    expect(plain.tid('approve')).not.toBeNull();
  });

  it('the a key says why, pauses the letter keys, and sends nothing; e opens the editor where allowed', async () => {
    const backend = new FakeBackend();
    backend.add(missing({ pausedAt: '2025-01-01T12:00:00Z' }), ambiguous({ pausedAt: '2025-01-01T11:00:00Z' }));
    const { target } = mountInBody(Console, { props: { notifyWarning: new NotifyWarning() }, context: backendContext(backend) });
    await settle();
    const note = () => text(target.querySelector('[data-testid="triage-note"]'));
    const press = async (key: string) => {
      (document.activeElement ?? document.body).dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
      await settle({ rounds: 3 });
    };
    await press('j');
    expect(target.querySelector('[data-testid="detail"]')!.getAttribute('data-id')).toBe('m1');
    await press('a');
    expect(note()).toBe(
      'a does nothing here: nobody can see what this call would run, so it can only be declined (d). The letter keys are paused until you press Esc, so what you type next does nothing.',
    );
    expect(target.querySelector('[data-testid="approve-confirm"]')).toBeNull();
    await press('Escape');
    await press('j');
    expect(target.querySelector('[data-testid="detail"]')!.getAttribute('data-id')).toBe('b1');
    await press('a');
    expect(note()).toMatch(/^a does nothing here: its numbers cannot be approved as they are; edit them \(e\) where its engine allows it, or decline \(d\)\./);
    await press('Escape');
    await press('e');
    expect(target.querySelector('[data-testid="detail"] textarea')).not.toBeNull();
    expect(backend.calls.filter((c) => ['approve', 'approveEdited', 'decline'].includes(c.method))).toEqual([]);
  });
});
