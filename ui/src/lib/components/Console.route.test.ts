// The console's place is the page's address (route.ts): read at start (a reload), written as the
// operator moves, followed on Back, Forward and a link; on a phone the list and a call are screens
// of their own, and Back from a call is the list.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { Principal, QueueFilter } from '../backend/backend';
import { backendContext } from '../backend/context';
import { NotifyWarning } from '../notify-warning.svelte';
import { Router } from '../route.svelte';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import Console from './Console.svelte';

beforeAll(async () => {
  await import('./TeamView.svelte');
});
beforeEach(() => {
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Puts `hash` in the address, as a page loaded (or reloaded) at it. */
function loadAt(hash: string) {
  history.replaceState(null, '', location.pathname + hash);
}

async function render(backend: FakeBackend, { phone = false, principal }: { phone?: boolean; principal?: Principal } = {}) {
  const router = new Router(window.location, window.history, () => phone);
  const { target, unmount } = mountInBody(Console, {
    props: { notifyWarning: new NotifyWarning(), router },
    context: principal ? backendContext(backend, principal) : backendContext(backend),
  });
  await settle();
  const q = (sel: string) => target.querySelector(sel) as HTMLElement | null;
  const all = (sel: string) => [...target.querySelectorAll(sel)] as HTMLElement[];
  return { q, all, router, unmount };
}

const lists = (b: FakeBackend) => b.calls.filter((c) => c.method === 'listQueue').map((c) => c.args[0] as QueueFilter);
const params = () => new URLSearchParams(location.hash.slice(1));
/** Waits for Back or Forward (the browser traverses in a task of its own), then for the console to follow. */
async function traversed(step: () => void, until: () => boolean) {
  step();
  await vi.waitFor(() => expect(until()).toBe(true));
  await settle();
}

function queue() {
  const backend = new FakeBackend();
  backend.add(makeItem({ id: 'a', toolName: 'delete_record', pausedAt: '2025-01-01T12:00:00Z' }));
  backend.add(makeItem({ id: 'b', toolName: 'delete_record', pausedAt: '2025-01-01T11:00:00Z' }));
  backend.add(makeItem({ id: 'd', state: 'delivered', pausedAt: '2025-01-01T10:00:00Z' }));
  return backend;
}

describe('Console: the address', () => {
  it('opens at the view, stage tab, filters, order and search the address names, as after a reload', async () => {
    loadAt('#tab=decided&q=delete&source=local&sort=oldest&tool=delete_record');
    const backend = queue();
    const { q, unmount } = await render(backend);
    expect(lists(backend)[0]).toMatchObject({ tab: 'decided', q: 'delete', source: 'local', sort: 'oldest', tool: 'delete_record' });
    expect((q('[data-testid="queue-search"]') as HTMLInputElement).value).toBe('delete');
    expect(q('[data-testid="state-tab"][aria-selected="true"]')!.dataset.tab).toBe('decided');
    expect((q('[data-testid="filter-source"]') as HTMLSelectElement).value).toBe('local');
    expect((q('[data-testid="filter-tool"]') as HTMLInputElement).value).toBe('delete_record');
    expect((q('[data-testid="filter-sort"]') as HTMLSelectElement).value).toBe('oldest');
    expect(q('[data-testid="queue-item"][data-id="d"]')).not.toBeNull();
    unmount();

    loadAt('#view=grants');
    const again = await render(queue());
    expect(again.q('#tab-grants')!.getAttribute('aria-selected')).toBe('true');
    expect(again.q('#panel-grants')).not.toBeNull();
  });

  it('writes each move into the address: a view, a stage tab, a filter, the search once sent, the call open', async () => {
    const backend = queue();
    const { q } = await render(backend);
    expect(location.hash).toBe('');
    q('#tab-audit')!.click();
    flushSync();
    expect(location.hash).toBe('#view=audit');
    q('#tab-queue')!.click();
    flushSync();
    expect(location.hash).toBe('');
    q('[data-testid="state-tab"][data-tab="decided"]')!.click();
    await settle();
    expect(params().get('tab')).toBe('decided');
    const source = q('[data-testid="filter-source"]') as HTMLSelectElement;
    source.value = 'local';
    source.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(params().get('source')).toBe('local');
    const search = q('[data-testid="queue-search"]') as HTMLInputElement;
    search.value = 'rec';
    search.dispatchEvent(new Event('input', { bubbles: true }));
    search.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    await settle();
    expect(params().get('q')).toBe('rec');
    q('[data-testid="queue-item"][data-id="d"]')!.click();
    await settle();
    expect(location.hash).toBe('#tab=decided&q=rec&source=local&call=d');
  });

  it('follows Back and Forward between views and stage tabs', async () => {
    const backend = queue();
    const { q } = await render(backend);
    q('#tab-engines')!.click();
    flushSync();
    q('#tab-queue')!.click();
    flushSync();
    q('[data-testid="state-tab"][data-tab="all"]')!.click();
    await settle();
    expect(location.hash).toBe('#tab=all');
    await traversed(() => history.back(), () => location.hash === '');
    expect(q('[data-testid="state-tab"][aria-selected="true"]')!.dataset.tab).toBe('pending');
    expect(lists(backend).at(-1)).toMatchObject({ tab: 'pending' });
    await traversed(() => history.back(), () => location.hash === '#view=engines');
    expect(q('#tab-engines')!.getAttribute('aria-selected')).toBe('true');
    await traversed(() => history.forward(), () => location.hash === '');
    expect(q('#tab-queue')!.getAttribute('aria-selected')).toBe('true');
  });

  it("opens a link's call fresh, one the list does not hold too, at start and when a link is opened in the page", async () => {
    loadAt('#call=d');
    const backend = queue();
    const { q } = await render(backend);
    expect(backend.calls.some((c) => c.method === 'getItem' && c.args[0] === 'd')).toBe(true);
    expect(q('[data-testid="detail"]')!.dataset.id).toBe('d');
    expect(location.hash).toBe('#call=d');
    await traversed(() => (location.hash = '#call=b'), () => q('[data-testid="detail"]')?.dataset.id === 'b');
    expect(location.hash).toBe('#call=b');
  });

  it("does not open a link's call after Back left it while it was on its way", async () => {
    const backend = queue();
    const { q } = await render(backend);
    let release = () => {};
    const fetch = backend.getItem.bind(backend);
    backend.getItem = (id: string) => new Promise((ok) => (release = () => ok(fetch(id))));
    await traversed(() => (location.hash = '#call=d'), () => location.hash === '#call=d');
    await traversed(() => history.back(), () => location.hash === '');
    release();
    await settle();
    expect(q('[data-testid="detail"]')).toBeNull();
    expect(location.hash).toBe('');
    // The entry left behind goes, so the next test counts the history from its end.
    history.pushState(null, '', location.pathname);
  });

  it("keeps a view's own parameters from a link while that view is shown, and drops them with it", async () => {
    loadAt('#view=settings&section=channels');
    const { q } = await render(queue());
    expect(q('#tab-settings')!.getAttribute('aria-selected')).toBe('true');
    expect(location.hash).toBe('#view=settings&section=channels');
    q('#tab-audit')!.click();
    flushSync();
    expect(location.hash).toBe('#view=audit');
  });

  it("shows the queue for a view this credential is not offered, and the address says so", async () => {
    loadAt('#view=engines');
    const backend = queue();
    const { q } = await render(backend, { principal: { name: 'phone', role: 'operator', kind: 'device' } });
    expect(q('#tab-engines')).toBeNull();
    expect(q('#tab-queue')!.getAttribute('aria-selected')).toBe('true');
    expect(location.hash).toBe('');
    expect(backend.calls.some((c) => c.method === 'listEngines')).toBe(false);
  });
});

describe('Console: a phone', () => {
  it('shows the list, then a tapped call as a screen of its own without the views; Back (the control or the browser) returns to the list with the call still selected', async () => {
    const backend = queue();
    const { q, router } = await render(backend, { phone: true });
    const shell = () => q('.shell')!;
    expect(shell().classList.contains('call-screen')).toBe(false);
    const before = history.length;
    q('[data-testid="queue-item"][data-id="a"]')!.click();
    await settle();
    expect(shell().classList.contains('call-screen')).toBe(true);
    expect(q('[data-testid="views"]')!.classList.contains('nav-hidden')).toBe(true);
    expect(history.length).toBe(before + 1);
    expect(router.route.call).toBe('a');

    await traversed(() => q('[data-testid="back-to-list"]')!.click(), () => location.hash === '');
    expect(shell().classList.contains('call-screen')).toBe(false);
    expect(q('[data-testid="views"]')!.classList.contains('nav-hidden')).toBe(false);
    expect(q('[data-testid="queue-item"][data-id="a"]')!.getAttribute('aria-selected')).toBe('true');

    // Forward opens it again; the browser's Back closes it too.
    await traversed(() => history.forward(), () => location.hash === '#call=a');
    expect(shell().classList.contains('call-screen')).toBe(true);
    await traversed(() => history.back(), () => location.hash === '');
    expect(shell().classList.contains('call-screen')).toBe(false);
  });

  it('a new call that arrives while the list is shown is selected there, not opened over it', async () => {
    const backend = new FakeBackend();
    backend.add(makeItem({ id: 'a', pausedAt: '2025-01-01T12:00:00Z' }));
    const { q } = await render(backend, { phone: true });
    q('[data-testid="queue-item"][data-id="a"]')!.click();
    await settle();
    q('[data-testid="approve"]')!.click();
    await settle();
    q('[data-testid="approve-confirm"]')!.click();
    await settle();
    // Nothing else waits: the decided call stays on its screen; back to the list.
    expect(q('[data-testid="detail"]')!.dataset.id).toBe('a');
    await traversed(() => q('[data-testid="back-to-list"]')!.click(), () => !q('.shell')!.classList.contains('call-screen'));
    backend.add(makeItem({ id: 'c', pausedAt: '2025-01-01T13:00:00Z' }));
    backend.subscriber!.onEvent({ kind: 'queue', type: 'added', id: 'c' });
    await settle();
    expect(q('[data-testid="queue-item"][data-id="c"]')!.getAttribute('aria-selected')).toBe('true');
    expect(q('.shell')!.classList.contains('call-screen')).toBe(false);
    expect(location.hash).toBe('');
  });

  it("after a decision the next call takes the call's screen, and a link's call closes to the list in place", async () => {
    loadAt('#call=a');
    const backend = queue();
    const { q } = await render(backend, { phone: true });
    expect(q('.shell')!.classList.contains('call-screen')).toBe(true);
    const entries = history.length;
    q('[data-testid="approve"]')!.click();
    await settle();
    q('[data-testid="approve-confirm"]')!.click();
    await settle();
    expect(q('[data-testid="detail"]')!.dataset.id).toBe('b');
    expect(q('.shell')!.classList.contains('call-screen')).toBe(true);
    expect(location.hash).toBe('#call=b');
    q('[data-testid="back-to-list"]')!.click();
    await settle();
    expect(q('.shell')!.classList.contains('call-screen')).toBe(false);
    expect(location.hash).toBe('');
    expect(history.length).toBe(entries);
  });
});
