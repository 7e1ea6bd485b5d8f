import { beforeAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { ApiError } from '../backend/backend';
import { backendContext } from '../backend/context';
import { NotifyWarning } from '../notify-warning.svelte';
import { FakeBackend, makeAwaitingDecision, makeEngine, makeItem, makeNotifyStatus } from '../testing/fake-backend';
import { mountInBody, settle } from '../testing/mount';
import Console from './Console.svelte';

// The Team view is loaded when its tab is first shown. Transforming its module (Chart.js with it)
// takes seconds on a loaded machine, longer than vi.waitFor's bound: it is loaded once here, so the
// tests' waits cover only the view's own rendering (the lazy import then resolves from the cache).
beforeAll(async () => {
  await import('./TeamView.svelte');
});

async function render(backend: FakeBackend, props: { refreshMs?: number; notifyCheckMs?: number; notifyWarning?: NotifyWarning } = {}) {
  // A warning of its own per test: the page's one would carry a dismissal from test to test.
  const { target } = mountInBody(Console, { props: { notifyWarning: new NotifyWarning(), ...props }, context: backendContext(backend) });
  await settle();
  const q = (sel: string) => target.querySelector(sel) as HTMLElement | null;
  const all = (sel: string) => [...target.querySelectorAll(sel)] as HTMLElement[];
  return { q, all };
}

// jsdom's canvas has no context (and says so on the console each time it is asked): the Team
// view's charts are not drawn, their tables stand in.
beforeEach(() => {
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('Console', () => {
  it('shows live additions at the top and drops decided calls from the pending list', async () => {
    const backend = new FakeBackend();
    backend.add(makeItem({ id: 'old', pausedAt: '2025-01-01T09:00:00Z' }));
    const { q, all } = await render(backend);
    expect(q('[data-testid="pending-count"]')!.textContent).toBe('1');

    backend.add(makeItem({ id: 'new', pausedAt: '2025-01-01T12:00:00Z' }));
    backend.subscriber!.onEvent({ kind: 'queue', type: 'added', id: 'new' });
    await settle();
    expect(all('[data-testid="queue-item"]').map((e) => e.dataset.id)).toEqual(['new', 'old']);
    expect(q('[data-testid="pending-count"]')!.textContent).toBe('2');

    backend.add(makeItem({ id: 'old', state: 'delivered' }));
    backend.subscriber!.onEvent({ kind: 'queue', type: 'updated', id: 'old' });
    await settle();
    expect(all('[data-testid="queue-item"]').map((e) => e.dataset.id)).toEqual(['new']);
  });

  it('a refusal of one call goes when another call is opened', async () => {
    const backend = new FakeBackend();
    backend.add(makeItem({ id: 'q1', pausedAt: '2025-01-01T12:00:00Z' }));
    backend.add(makeItem({ id: 'q2', pausedAt: '2025-01-01T09:00:00Z' }));
    const { q, all } = await render(backend);
    all('[data-testid="queue-item"]')[0].click();
    flushSync();
    backend.failNext = new ApiError('own_run', 'local:you started this run');
    q('[data-testid="approve"]')!.click();
    await settle();
    q('[data-testid="approve-confirm"]')!.click();
    await settle();
    expect(q('[data-testid="error-banner"][data-code="own_run"]')).not.toBeNull();

    all('[data-testid="queue-item"]').find((e) => e.dataset.id === 'q2')!.click();
    flushSync();
    expect(q('[data-testid="error-banner"][data-code="own_run"]'), 'said of q1, not of the call on screen').toBeNull();
    expect(q('[data-testid="approve"]')).not.toBeNull();
  });

  it('while the server is out of reach, deciding is paused and said so where the buttons are', async () => {
    const backend = new FakeBackend();
    backend.add(makeItem({ id: 'q1' }));
    const { q, all } = await render(backend);
    backend.subscriber!.onStatus!({ state: 'open' });
    all('[data-testid="queue-item"]')[0].click();
    flushSync();
    expect(q('[data-testid="offline-notice"]')).toBeNull();
    expect((q('[data-testid="approve"]') as HTMLButtonElement).disabled).toBe(false);

    backend.subscriber!.onStatus!({ state: 'retrying', inMs: 4000, error: new ApiError('network', 'unreachable') });
    flushSync();
    expect(q('[data-testid="offline-notice"]')!.getAttribute('role')).toBe('alert');
    expect((q('[data-testid="approve"]') as HTMLButtonElement).disabled).toBe(true);
    expect((q('[data-testid="decline"]') as HTMLButtonElement).disabled).toBe(true);
    // The keyboard cannot go around it either.
    (document.activeElement ?? document.body).dispatchEvent(new KeyboardEvent('keydown', { key: 'a', bubbles: true, cancelable: true }));
    flushSync();
    expect(q('[data-testid="approve-confirm"]')).toBeNull();
    const sent = backend.calls.length;

    backend.subscriber!.onStatus!({ state: 'open' });
    await settle();
    expect(q('[data-testid="offline-notice"]')).toBeNull();
    expect((q('[data-testid="approve"]') as HTMLButtonElement).disabled).toBe(false);
    expect(backend.calls.slice(sent).some((c) => c.method.startsWith('approve')), 'nothing was sent while offline').toBe(false);
  });

  it('a pending call open does not stay open under the Decided tab', async () => {
    const backend = new FakeBackend();
    backend.add(makeItem({ id: 'waiting', pausedAt: '2025-01-01T12:00:00Z' }));
    backend.add(makeItem({ id: 'done', state: 'delivered', pausedAt: '2025-01-01T09:00:00Z' }));
    const { q, all } = await render(backend);
    all('[data-testid="queue-item"]').find((e) => e.dataset.id === 'waiting')!.click();
    flushSync();
    expect(q('[data-testid="approve"]')).not.toBeNull();

    all('[data-testid="state-tab"]').find((e) => e.dataset.tab === 'decided')!.click();
    await settle();
    expect(all('[data-testid="queue-item"]').map((e) => e.dataset.id)).toEqual(['done']);
    expect(q('[data-testid="approve"]'), 'the pending call went with its view').toBeNull();
    expect(q('[data-testid="fingerprint-full"]')).toBeNull();
  });

  it('a new call takes the place of a decided call left open in the detail', async () => {
    const backend = new FakeBackend();
    backend.add(makeItem({ id: 'first', args: { id: 'rec-1' } }));
    const { q, all } = await render(backend);
    all('[data-testid="queue-item"]')[0].click();
    flushSync();
    q('[data-testid="approve"]')!.click();
    await settle();
    q('[data-testid="approve-confirm"]')!.click();
    await settle();
    // The last call decided: it stays in the detail with its result.
    expect(q('[data-testid="approve"]')).toBeNull();

    const next = makeItem({ id: 'second', args: { id: 'rec-2' }, pausedAt: '2030-01-01T00:00:00Z' });
    backend.add(next);
    backend.subscriber!.onEvent({ kind: 'queue', type: 'added', id: 'second' });
    await settle();
    expect(q('[data-testid="fingerprint-full"]')!.textContent).toBe(next.fingerprint);
    expect(q('[data-testid="approve"]')).not.toBeNull();
  });

  it('on fingerprint_mismatch shows both fingerprints and reloads the call', async () => {
    const backend = new FakeBackend();
    const shown = makeItem({ id: 'q1' });
    backend.add(shown);
    const { q, all } = await render(backend);
    all('[data-testid="queue-item"]')[0].click();
    flushSync();
    expect(q('[data-testid="fingerprint-full"]')!.textContent).toBe(shown.fingerprint);

    const changed = 'sha256:' + 'cd'.repeat(32);
    backend.add({ ...shown, args: { id: 'rec-2' }, fingerprint: changed });
    backend.failNext = new ApiError('fingerprint_mismatch', 'the call changed', { expected: shown.fingerprint, actual: changed });
    q('[data-testid="approve"]')!.click();
    await settle();
    q('[data-testid="approve-confirm"]')!.click();
    await settle();

    const banner = q('[data-testid="error-banner"][data-code="fingerprint_mismatch"]')!;
    expect(banner).not.toBeNull();
    expect(banner.getAttribute('role')).toBe('alert');
    expect(banner.querySelector('[data-testid="mismatch-expected"]')!.textContent).toBe(shown.fingerprint);
    expect(banner.querySelector('[data-testid="mismatch-actual"]')!.textContent).toBe(changed);
    // The reloaded call is what is on screen now, so the next decision is bound to it.
    expect(q('[data-testid="fingerprint-full"]')!.textContent).toBe(changed);
    expect(q('[data-testid="args-tree"]')!.textContent).toContain('rec-2');

    (banner.querySelector('button[aria-label="Dismiss"]') as HTMLButtonElement).click();
    flushSync();
    expect(q('[data-testid="error-banner"]')).toBeNull();
  });

  it('shows code and message for an unknown error code', async () => {
    const backend = new FakeBackend();
    backend.add(makeItem());
    const { q, all } = await render(backend);
    all('[data-testid="queue-item"]')[0].click();
    flushSync();
    backend.failNext = new ApiError('teapot', 'short and stout');
    q('[data-testid="approve"]')!.click();
    await settle();
    q('[data-testid="approve-confirm"]')!.click();
    await settle();
    const banner = q('[data-testid="error-banner"][data-code="teapot"]')!;
    expect(banner.textContent).toContain('teapot');
    expect(banner.textContent).toContain('short and stout');
  });

  it('reaches the Engines view from the tabs, by click and by arrow keys', async () => {
    const backend = new FakeBackend();
    backend.addEngines(makeEngine({ name: 'r1', health: { state: 'unreachable', lastError: 'connection refused', lastErrorAt: null, lastOkAt: null } }));
    const { q } = await render(backend);
    expect(q('[data-testid="engines-view"]')).toBeNull();

    q('[data-testid="engines-tab"]')!.click();
    await settle();
    expect(q('[data-testid="engines-tab"]')!.getAttribute('aria-selected')).toBe('true');
    expect(q('#panel-engines')!.getAttribute('role')).toBe('tabpanel');
    expect(q('[data-testid="engine"][data-name="r1"] [data-testid="engine-health"]')!.textContent).toBe('unreachable');

    // Keyboard: Right from Engines goes to Settings, then wraps to Queue; Left goes back to Engines through Settings.
    const tabs = q('[role="tablist"]')!;
    tabs.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    await settle();
    expect(document.activeElement).toBe(q('[data-testid="settings-tab"]'));
    expect(q('#panel-settings [data-testid="settings-view"]')).not.toBeNull();
    tabs.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    await settle();
    expect(document.activeElement).toBe(q('[data-testid="queue-tab"]'));
    expect(q('[data-testid="engines-view"]')).toBeNull();
    tabs.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
    await settle();
    expect(document.activeElement).toBe(q('[data-testid="settings-tab"]'));
    tabs.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
    await settle();
    expect(document.activeElement).toBe(q('[data-testid="engines-tab"]'));
    expect(q('[data-testid="engines-view"]')).not.toBeNull();
    tabs.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
    await settle();
    expect(document.activeElement).toBe(q('[data-testid="grants-tab"]'));
    expect(q('#panel-grants [data-testid="grants-view"]')).not.toBeNull();
    tabs.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
    await settle();
    expect(document.activeElement).toBe(q('[data-testid="team-tab"]'));
    // The Team view is loaded when first shown.
    await vi.waitFor(() => expect(q('#panel-team [data-testid="team-view"]')).not.toBeNull());
    tabs.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
    await settle();
    expect(document.activeElement).toBe(q('[data-testid="audit-tab"]'));
  });

  it('puts every view inside the one <main> landmark', async () => {
    const { q } = await render(new FakeBackend());
    for (const tab of ['queue', 'audit', 'team', 'grants', 'engines', 'settings']) {
      q(`[data-testid="${tab}-tab"]`)!.click();
      await settle();
      expect(document.querySelectorAll('main').length).toBe(1);
      expect(q(`#panel-${tab}`)!.closest('main')).not.toBeNull();
    }
    expect(document.querySelector('aside, main main')).toBeNull();
  });

  it('fetches a selected call awaiting delivery again, since retries send no event', async () => {
    const backend = new FakeBackend();
    const item = makeItem({ id: 'q1' });
    backend.add(item);
    const { q, all } = await render(backend, { refreshMs: 20 });
    all('[data-testid="queue-item"]')[0].click();
    flushSync();
    backend.add({ ...item, state: 'decided', allowed: [], decision: makeAwaitingDecision({ attempts: 1, lastError: 'first failure' }) });
    backend.subscriber!.onEvent({ kind: 'queue', type: 'updated', id: 'q1' });
    await settle();
    expect(q('[data-testid="delivery-last-error"]')!.textContent).toBe('first failure');

    backend.add({ ...item, state: 'decided', allowed: [], decision: makeAwaitingDecision({ attempts: 2, lastError: 'second failure' }) });
    await vi.waitFor(() => {
      flushSync();
      expect(q('[data-testid="delivery-attempts"]')!.textContent).toBe('2');
      expect(q('[data-testid="delivery-last-error"]')!.textContent).toBe('second failure');
    });
  });

  describe('notifications warning', () => {
    const broken = makeNotifyStatus({ available: false, lastError: 'org.freedesktop.Notifications was not provided.', lastErrorAt: '2025-01-01T10:00:00Z', missed: 2 });

    it.each([
      ['off in this process, even after failing', makeNotifyStatus({ running: false, available: false, lastError: 'no bus' })],
      ['on and working', makeNotifyStatus({ available: true, shown: 3 })],
      ['on, nothing tried yet', makeNotifyStatus({ available: null })],
    ])('is not shown when %s', async (_what, status) => {
      const backend = new FakeBackend();
      backend.notifyStatus = status;
      const { q } = await render(backend);
      expect(backend.calls.some((c) => c.method === 'notificationStatus')).toBe(true);
      expect(q('[data-testid="notify-warning"]')).toBeNull();
    });

    it('is shown on load when running and unavailable, with the error as text', async () => {
      const backend = new FakeBackend();
      backend.notifyStatus = { ...broken, lastError: '<img src=x onerror=alert(1)>' };
      const { q } = await render(backend);
      const banner = q('[data-testid="notify-warning"]')!;
      expect(banner).not.toBeNull();
      expect(banner.textContent!.replace(/\s+/g, ' ').trim()).toBe(
        'Desktop notifications are not available: <img src=x onerror=alert(1)>. New calls still appear here. ×',
      );
      expect(banner.querySelector('img')).toBeNull();
    });

    it('is checked again every interval, goes away when they work again', async () => {
      const backend = new FakeBackend();
      backend.notifyStatus = makeNotifyStatus({ available: true });
      const { q } = await render(backend, { notifyCheckMs: 20 });
      expect(q('[data-testid="notify-warning"]')).toBeNull();
      backend.notifyStatus = broken;
      await vi.waitFor(() => {
        flushSync();
        expect(q('[data-testid="notify-warning-error"]')!.textContent).toBe('org.freedesktop.Notifications was not provided');
      });
      backend.notifyStatus = makeNotifyStatus({ available: true, shown: 1 });
      await vi.waitFor(() => {
        flushSync();
        expect(q('[data-testid="notify-warning"]')).toBeNull();
      });
    });

    it('once dismissed stays away, even across a new console, until the error text changes', async () => {
      const backend = new FakeBackend();
      backend.notifyStatus = broken;
      const warning = new NotifyWarning();
      const first = mountInBody(Console, { props: { notifyWarning: warning, notifyCheckMs: 20 }, context: backendContext(backend) });
      await settle();
      const q = (sel: string) => document.body.querySelector(sel) as HTMLElement | null;
      const dismiss = q('[data-testid="notify-warning-dismiss"]')!;
      expect(dismiss.getAttribute('aria-label')).toBe('Dismiss the notifications warning');
      dismiss.click();
      flushSync();
      expect(q('[data-testid="notify-warning"]')).toBeNull();
      // Focus is not lost with the button.
      expect(document.activeElement).toBe(q('[data-testid="queue-tab"]'));

      // Checks go on with the same error: still hidden, also in a console mounted again (a new token).
      const checks = () => backend.calls.filter((c) => c.method === 'notificationStatus').length;
      const before = checks();
      await vi.waitFor(() => expect(checks()).toBeGreaterThan(before + 1));
      flushSync();
      expect(q('[data-testid="notify-warning"]')).toBeNull();
      first.unmount();
      mountInBody(Console, { props: { notifyWarning: warning, notifyCheckMs: 20 }, context: backendContext(backend) });
      await settle();
      expect(q('[data-testid="notify-warning"]')).toBeNull();

      backend.notifyStatus = { ...broken, lastError: 'dbus: connection closed' };
      await vi.waitFor(() => {
        flushSync();
        expect(q('[data-testid="notify-warning-error"]')!.textContent).toBe('dbus: connection closed');
      });
    });

    it('a failed check keeps the last status', async () => {
      const backend = new FakeBackend();
      backend.notifyStatus = broken;
      const { q } = await render(backend, { notifyCheckMs: 20 });
      expect(q('[data-testid="notify-warning"]')).not.toBeNull();
      backend.failStatus = new ApiError('network', 'down');
      const before = backend.calls.length;
      await vi.waitFor(() => expect(backend.calls.length).toBeGreaterThan(before + 1));
      flushSync();
      expect(q('[data-testid="notify-warning"]')).not.toBeNull();
      expect(q('[data-testid="error-banner"]')).toBeNull();
    });
  });

  describe('a request from the desktop app to show a call (open event)', () => {
    it('selects the call, fetched fresh, from any tab, and shows the reason as text', async () => {
      const backend = new FakeBackend();
      backend.add(makeItem({ id: 'a', pausedAt: '2025-01-01T09:00:00Z' }), makeItem({ id: 'b', pausedAt: '2025-01-01T10:00:00Z' }));
      const { q, all } = await render(backend);
      q('[data-testid="audit-tab"]')!.click();
      flushSync();

      const changed = 'sha256:' + 'ef'.repeat(32);
      backend.add(makeItem({ id: 'a', pausedAt: '2025-01-01T09:00:00Z', args: { id: 'rec-9' }, fingerprint: changed }));
      const reason = 'Approve was refused: the call changed since the notification. <b>Review it</b>.';
      backend.subscriber!.onEvent({ kind: 'open', item: 'a', reason });
      await settle();

      expect(q('[data-testid="queue-tab"]')!.getAttribute('aria-selected')).toBe('true');
      expect(q('#panel-queue')!.hidden).toBe(false);
      expect(q('[data-testid="detail"]')!.dataset.id).toBe('a');
      expect(all('[data-testid="queue-item"][aria-selected="true"]').map((e) => e.dataset.id)).toEqual(['a']);
      expect(q('[data-testid="fingerprint-full"]')!.textContent).toBe(changed);
      expect(q('[data-testid="args-tree"]')!.textContent).toContain('rec-9');
      const notice = q('[data-testid="open-notice"]')!;
      expect(notice.getAttribute('role')).toBe('status');
      expect(q('[data-testid="open-notice-reason"]')!.textContent).toBe(reason);
      expect(notice.querySelector('b')).toBeNull();

      q('[data-testid="open-notice-dismiss"]')!.click();
      flushSync();
      expect(q('[data-testid="open-notice"]')).toBeNull();
      expect(q('[data-testid="fingerprint-full"]')!.textContent).toBe(changed);
    });

    it('shows a call the list does not hold, and no notice without a reason', async () => {
      const backend = new FakeBackend();
      backend.add(makeItem({ id: 'p' }));
      const { q, all } = await render(backend);
      // Decided: not in the pending list.
      backend.add(makeItem({ id: 'd', state: 'decided', allowed: [] }));
      backend.subscriber!.onEvent({ kind: 'open', item: 'd', reason: null });
      await settle();
      expect(all('[data-testid="queue-item"]').map((e) => e.dataset.id)).toEqual(['p']);
      expect(q('[data-testid="detail"]')!.dataset.id).toBe('d');
      expect(q('[data-testid="detail-state"]')!.textContent).toBe('decided');
      expect(q('[data-testid="open-notice"]')).toBeNull();
    });

    it('says so when the call no longer exists, keeping the reason', async () => {
      const backend = new FakeBackend();
      const { q } = await render(backend);
      backend.subscriber!.onEvent({ kind: 'open', item: 'gone', reason: 'Approve was refused.' });
      await settle();
      expect(q('[data-testid="error-banner"][data-code="not_found"]')).not.toBeNull();
      expect(q('[data-testid="open-notice-reason"]')!.textContent).toBe('Approve was refused.');
      expect(q('[data-testid="detail"]')).toBeNull();
    });

    it('drops the notice when the operator selects another call', async () => {
      const backend = new FakeBackend();
      backend.add(makeItem({ id: 'a', pausedAt: '2025-01-01T09:00:00Z' }), makeItem({ id: 'b', pausedAt: '2025-01-01T10:00:00Z' }));
      const { q, all } = await render(backend);
      backend.subscriber!.onEvent({ kind: 'open', item: 'a', reason: 'Approve was refused.' });
      await settle();
      expect(q('[data-testid="open-notice"]')).not.toBeNull();
      all('[data-testid="queue-item"]').find((e) => e.dataset.id === 'b')!.click();
      flushSync();
      expect(q('[data-testid="open-notice"]')).toBeNull();
    });
  });
});
