import { flushSync } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, type QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import { i18n } from '../i18n/index.svelte';
import { decision, FakeBackend, makeItem } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import SinceLast from './SinceLast.svelte';

function render(item: QueueItem, backend: FakeBackend) {
  const { target } = mountInBody(SinceLast, { props: { item }, context: backendContext(backend) });
  return { target, q: (sel: string) => target.querySelector(sel), all: (sel: string) => [...target.querySelectorAll(sel)] };
}

const fp = 'sha256:' + 'ab'.repeat(32);

function threadOf(over: Partial<QueueItem>[]): { backend: FakeBackend; items: QueueItem[] } {
  const backend = new FakeBackend();
  const items = over.map((o, i) => makeItem({ id: `q${i + 1}`, threadId: 'th-1', ...o }));
  backend.add(...items);
  return { backend, items };
}

describe('SinceLast (what changed since the last decision in the thread)', () => {
  afterEach(() => {
    i18n.set('system');
    localStorage.clear();
  });

  it('shows the previous decision and each change with its value before and now, hidden characters marked', async () => {
    const { backend, items } = threadOf([
      { args: { id: 'rec-1', cascade: false }, state: 'delivered', decision: decision('decline', fp, 'not that one', null) },
      { args: { id: 'rec-2\u202e', cascade: false, force: true } },
    ]);
    const { q, all } = render(items[1], backend);
    await settle();
    expect(q('[data-testid="since-last"]')?.getAttribute('data-previous')).toBe('q1');
    expect(q('[data-testid="since-last-decision"]')?.textContent).toContain('Declined by web');
    expect(q('[data-testid="since-last-decision"]')?.textContent).toContain('not that one');
    const changes = all('[data-testid="since-last-change"]');
    expect(changes.map((c) => [c.getAttribute('data-op'), c.getAttribute('data-pointer')])).toEqual([
      ['changed', '/id'],
      ['added', '/force'],
    ]);
    expect(changes[0].querySelector('.before')?.textContent).toBe('"rec-1"');
    // U+202E (right-to-left override) is shown as a marked escape, not applied.
    expect(changes[0].querySelector('.after')?.textContent).toBe('"rec-2\\u{202E}"');
    expect(changes[0].querySelector('.after [data-mark="hidden"]')).not.toBeNull();
    expect(changes[0].querySelector('.after')?.innerHTML).not.toContain('\u202e');
    expect(backend.calls.filter((c) => c.method === 'previousCall').map((c) => c.args)).toEqual([['q2']]);
  });

  it('says the arguments are the same, and compares an edited approval with the arguments it ran with', async () => {
    const same = threadOf([{ args: { id: 'rec-1' }, state: 'delivered', decision: decision('approve', fp, null, null) }, { args: { id: 'rec-1' } }]);
    const a = render(same.items[1], same.backend);
    await settle();
    expect(a.q('[data-testid="since-last-same"]')).not.toBeNull();
    expect(a.q('[data-testid="since-last-decision"]')?.getAttribute('data-kind')).toBe('approve');

    const edited = threadOf([{ args: { id: 'rec-1' }, state: 'delivered', decision: decision('edit', fp, null, { id: 'rec-9' }) }, { args: { id: 'rec-9' } }]);
    const b = render(edited.items[1], edited.backend);
    await settle();
    expect(b.q('[data-testid="since-last"]')?.getAttribute('data-count')).toBe('0');
    expect(b.q('[data-testid="since-last-decision"]')?.textContent).toContain('edited arguments');
  });

  it('shows nothing without a thread or an earlier decision, and says so when loading fails', async () => {
    const none = threadOf([{ args: { id: 'rec-1' } }, { args: { id: 'rec-2' } }]);
    const a = render(none.items[1], none.backend);
    await settle();
    expect(a.q('[data-testid="since-last"]')).toBeNull();

    const backend = new FakeBackend();
    const lone = makeItem({ id: 'q9', threadId: null });
    backend.add(lone);
    const b = render(lone, backend);
    await settle();
    expect(backend.calls.some((c) => c.method === 'previousCall')).toBe(false);
    expect(b.target.textContent?.trim()).toBe('');

    const failing = threadOf([{ args: {} }]);
    failing.backend.previousCall = () => Promise.reject(new ApiError('storage_busy', 'busy'));
    const c = render(failing.items[0], failing.backend);
    await settle();
    expect(c.q('[data-testid="since-last-failed"]')?.textContent).toContain('storage_busy');
  });

  it('speaks Japanese when asked, at once', async () => {
    const { backend, items } = threadOf([{ args: { id: 'rec-1' }, state: 'delivered', decision: decision('approve', fp, null, null) }, { args: { id: 'rec-2' } }]);
    const { q } = render(items[1], backend);
    await settle();
    expect(q('h4')?.textContent).toBe('Since the last decision in this thread');
    i18n.set('ja');
    flushSync();
    expect(q('h4')?.textContent).toBe('このスレッドでの前回の判断からの変化');
    expect(q('[data-testid="since-last-decision"]')?.textContent).toContain('web が承認');
    expect(q('[data-op="changed"] .change-op')?.textContent).toBe('変更');
  });
});
