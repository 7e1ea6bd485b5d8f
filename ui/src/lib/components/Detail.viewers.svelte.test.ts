// Presence in the detail (issue 16): a call open for a second says so to the server, then every
// `heartbeatSecs`, and shows who else has it open; a call passed through faster records nothing; a
// refreshed copy of the same call does not restart it; another call, a hidden window or a closed
// detail says it left.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { backendContext } from '../backend/context';
import { i18n } from '../i18n/index.svelte';
import { FakeBackend, makeItem } from '../testing/fake-backend';
import { mountInBody } from '../testing/mount';
import Detail from './Detail.svelte';

const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
const seen = (viewer: string) => ({ viewer, since: '2025-01-01T10:00:00Z', seenAt: '2025-01-01T10:00:05Z' });

function setVisibility(state: 'visible' | 'hidden') {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
  document.dispatchEvent(new Event('visibilitychange'));
}

function render(backend: FakeBackend, item = makeItem({ id: 'q1' })) {
  backend.add(item);
  const props = $state({ item, ondecided: vi.fn(), onerror: vi.fn() });
  const mounted = mountInBody(Detail, { props, context: backendContext(backend) });
  flushSync();
  const tid = (id: string) => mounted.target.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
  return { ...mounted, props, tid };
}

/** Past the first beat's delay, and what it started. */
async function opened() {
  await vi.advanceTimersByTimeAsync(1_000);
  flushSync();
}

describe('who else has the call open', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
    setVisibility('visible');
    i18n.set('system');
  });

  it('names the others the server reports, and says nothing when nobody else is there', async () => {
    const backend = new FakeBackend();
    backend.viewers.set('q1', [seen('alice (web)'), seen('bob (desktop)')]);
    const { tid } = render(backend);
    await opened();
    expect(backend.presence).toEqual([{ method: 'viewing', id: 'q1' }]);
    expect(text(tid('detail-viewers'))).toContain('Also open now: alice (web), bob (desktop)');
    expect(tid('detail-viewers')!.dataset.count).toBe('2');

    const alone = new FakeBackend();
    const other = render(alone, makeItem({ id: 'q9' }));
    await opened();
    expect(alone.presence).toEqual([{ method: 'viewing', id: 'q9' }]);
    expect(other.tid('detail-viewers')).toBeNull();
  });

  it('says it again every heartbeat, and picks up who came and went', async () => {
    const backend = new FakeBackend();
    backend.heartbeatSecs = 4;
    const { tid } = render(backend);
    await opened();
    expect(tid('detail-viewers')).toBeNull();
    backend.viewers.set('q1', [seen('carol (web)')]);
    await vi.advanceTimersByTimeAsync(3_900);
    expect(backend.presence.length, 'not before heartbeatSecs').toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    flushSync();
    expect(backend.presence.length).toBe(2);
    expect(text(tid('detail-viewers'))).toContain('carol (web)');
    backend.viewers.delete('q1');
    await vi.advanceTimersByTimeAsync(4_000);
    flushSync();
    expect(tid('detail-viewers')).toBeNull();
  });

  it('keeps one heartbeat for a refreshed copy of the call, and leaves the old call for a new one', async () => {
    const backend = new FakeBackend();
    const { props } = render(backend);
    await opened();
    props.item = { ...props.item, state: 'pending' };
    await opened();
    expect(backend.presence, 'the same call: no new visit').toEqual([{ method: 'viewing', id: 'q1' }]);
    const next = makeItem({ id: 'q2' });
    backend.add(next);
    props.item = next;
    await opened();
    expect(backend.presence).toEqual([
      { method: 'viewing', id: 'q1' },
      { method: 'stopViewing', id: 'q1' },
      { method: 'viewing', id: 'q2' },
    ]);
  });

  it('leaves while the window is hidden and comes back when it is shown, and leaves when closed', async () => {
    const backend = new FakeBackend();
    const { unmount } = render(backend);
    await opened();
    setVisibility('hidden');
    await opened();
    setVisibility('visible');
    await opened();
    unmount();
    expect(backend.presence.map((p) => p.method)).toEqual(['viewing', 'stopViewing', 'viewing', 'stopViewing']);
  });

  it('keeps showing the call when a heartbeat fails, and shows nobody until one works', async () => {
    const backend = new FakeBackend();
    backend.viewers.set('q1', [seen('alice (web)')]);
    let fail = false;
    const viewing = backend.viewing.bind(backend);
    backend.viewing = (id) => (fail ? Promise.reject(new Error('offline')) : viewing(id));
    const { tid } = render(backend);
    await opened();
    expect(tid('detail-viewers')).not.toBeNull();
    fail = true;
    await vi.advanceTimersByTimeAsync(10_000);
    flushSync();
    expect(tid('detail-viewers')).toBeNull();
    expect(tid('detail')).not.toBeNull();
    fail = false;
    await vi.advanceTimersByTimeAsync(10_000);
    flushSync();
    expect(text(tid('detail-viewers'))).toContain('alice (web)');
  });

  it('records nothing for a call passed through in under a second', async () => {
    const backend = new FakeBackend();
    const { props, unmount } = render(backend);
    await vi.advanceTimersByTimeAsync(500);
    const next = makeItem({ id: 'q2' });
    backend.add(next);
    props.item = next;
    await vi.advanceTimersByTimeAsync(500);
    unmount();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(backend.presence, 'no heartbeat, so no goodbye either').toEqual([]);
  });

  it('says it in Japanese too', async () => {
    i18n.set('ja');
    const backend = new FakeBackend();
    backend.viewers.set('q1', [seen('alice (web)')]);
    const { tid } = render(backend);
    await opened();
    expect(text(tid('detail-viewers'))).toContain('他に開いている人: alice (web)');
  });
});
