import { describe, expect, it, vi } from 'vitest';
import { QueueModel } from './queue.svelte';
import { FakeBackend, makeItem } from './testing/fake-backend';

function setup() {
  const backend = new FakeBackend();
  const errors: string[] = [];
  const queue = new QueueModel(backend, { onError: (e) => errors.push(e.code) });
  return { backend, queue, errors };
}

describe('QueueModel live updates', () => {
  it('puts a newly added call at the top of the list', async () => {
    const { backend, queue } = setup();
    backend.add(makeItem({ id: 'old', pausedAt: '2025-01-01T10:00:00Z' }));
    await queue.reload();
    backend.add(makeItem({ id: 'new', pausedAt: '2025-01-01T11:00:00Z' }));
    await queue.apply({ kind: 'queue', type: 'added', id: 'new' });
    expect(queue.items.map((i) => i.id)).toEqual(['new', 'old']);
    expect(queue.pendingCount).toBe(2);
  });

  it('drops a decided call from the pending list but keeps it under "all"', async () => {
    const { backend, queue } = setup();
    backend.add(makeItem({ id: 'a' }), makeItem({ id: 'b', pausedAt: '2025-01-01T09:00:00Z' }));
    await queue.reload();
    backend.add(makeItem({ id: 'a', state: 'decided' }));
    await queue.apply({ kind: 'queue', type: 'updated', id: 'a' });
    expect(queue.items.map((i) => i.id)).toEqual(['b']);
    expect(queue.pendingCount).toBe(1);

    await queue.setFilter({ tab: 'all' });
    expect(queue.items.map((i) => i.id)).toEqual(['a', 'b']);
    expect(queue.pendingCount).toBe(1);
  });

  it('does not add a call that does not match the filter', async () => {
    const { backend, queue } = setup();
    await queue.setFilter({ tab: 'pending', kind: 'suspend' });
    backend.add(makeItem({ id: 'x', kind: 'approval' }));
    await queue.apply({ kind: 'queue', type: 'added', id: 'x' });
    expect(queue.items).toEqual([]);
  });

  it('adds a live call only when it is of the source filtered for', async () => {
    const { backend, queue } = setup();
    await queue.setFilter({ tab: 'pending', source: 'claude-code' });
    backend.add(makeItem({ id: 'local' }));
    await queue.apply({ kind: 'queue', type: 'added', id: 'local' });
    expect(queue.items).toEqual([]);
    backend.add(makeItem({ id: 'hook', engine: 'claude-code', source: 'claude-code', toolName: 'Bash', args: { command: 'ls' } }));
    await queue.apply({ kind: 'queue', type: 'added', id: 'hook' });
    expect(queue.items.map((i) => i.id)).toEqual(['hook']);
  });

  it('reloads on resync and removes calls that vanished', async () => {
    const { backend, queue } = setup();
    backend.add(makeItem({ id: 'a' }));
    await queue.reload();
    backend.items.clear();
    await queue.apply({ kind: 'resync' });
    expect(queue.items).toEqual([]);
    backend.add(makeItem({ id: 'b' }));
    await queue.reload();
    backend.items.clear();
    await queue.apply({ kind: 'queue', type: 'updated', id: 'b' }); // getItem → not_found
    expect(queue.items).toEqual([]);
  });

  it('asks for the tab counts one request at a time: a burst of events costs two', async () => {
    const { backend, queue } = setup();
    backend.add(makeItem({ id: 'a' }));
    await queue.reload();
    await new Promise((r) => setTimeout(r, 0));
    const counted = () => backend.calls.filter((c) => c.method === 'queueCounts').length;
    expect(counted()).toBe(1);
    expect(queue.counts).toMatchObject({ pending: 1, all: 1, pendingTotal: 1 });
    for (let i = 0; i < 20; i++) queue.refreshCounts();
    backend.add(makeItem({ id: 'b' }));
    await new Promise((r) => setTimeout(r, 0));
    expect(counted()).toBe(3);
    expect(queue.counts).toMatchObject({ pending: 2, pendingTotal: 2 });
  });
});

describe('QueueModel: a page read before a live change', () => {
  /** listQueue reads the list at once (as the server does) but answers only when the test releases it. */
  function held(backend: FakeBackend) {
    const release: (() => void)[] = [];
    const list = backend.listQueue.bind(backend);
    backend.listQueue = async (filter) => {
      const page = await list(filter);
      await new Promise<void>((r) => release.push(r));
      return page;
    };
    return release;
  }

  it('keeps a call that arrived by its event while the page was on its way', async () => {
    const { backend, queue } = setup();
    backend.add(makeItem({ id: 'old', pausedAt: '2025-01-01T10:00:00Z' }));
    await queue.reload();
    const release = held(backend);
    const reloading = queue.reload();
    await new Promise((r) => setTimeout(r, 0));
    backend.add(makeItem({ id: 'new', pausedAt: '2025-01-01T11:00:00Z' }));
    await queue.apply({ kind: 'queue', type: 'added', id: 'new' });
    expect(queue.items.map((i) => i.id)).toEqual(['new', 'old']);
    release[0]();
    await reloading;
    expect(queue.items.map((i) => i.id)).toEqual(['new', 'old']);
  });

  it('does not bring back a call that left, nor undo a change, while the page was on its way', async () => {
    const { backend, queue } = setup();
    backend.add(makeItem({ id: 'a', pausedAt: '2025-01-01T11:00:00Z' }), makeItem({ id: 'b', pausedAt: '2025-01-01T10:00:00Z' }));
    await queue.setFilter({ tab: 'all' });
    const release = held(backend);
    const reloading = queue.reload();
    await new Promise((r) => setTimeout(r, 0));
    backend.add(makeItem({ id: 'a', pausedAt: '2025-01-01T11:00:00Z', state: 'decided' }));
    await queue.apply({ kind: 'queue', type: 'updated', id: 'a' });
    await queue.apply({ kind: 'queue', type: 'removed', id: 'b' });
    release[0]();
    await reloading;
    expect(queue.items.map((i) => [i.id, i.state])).toEqual([['a', 'decided']]);
  });

  it('does not bring back a call that left while the next page was on its way', async () => {
    const backend = new FakeBackend();
    const queue = new QueueModel(backend, { onError: () => {} }, { pageSize: 1 });
    backend.add(makeItem({ id: 'b', pausedAt: '2025-01-01T10:00:00Z' }), makeItem({ id: 'a', pausedAt: '2025-01-01T09:00:00Z' }));
    await queue.reload();
    expect(queue.items.map((i) => i.id)).toEqual(['b']);
    const release = held(backend);
    const more = queue.loadMore();
    await new Promise((r) => setTimeout(r, 0));
    await queue.apply({ kind: 'queue', type: 'removed', id: 'a' });
    release[0]();
    await more;
    expect(queue.items.map((i) => i.id)).toEqual(['b']);
  });
});

describe('QueueModel catching up after the event stream opened', () => {
  /** listQueue answers only when the test releases it, in order. */
  function gated(backend: FakeBackend) {
    const release: (() => void)[] = [];
    const list = backend.listQueue.bind(backend);
    backend.listQueue = async (filter) => {
      await new Promise<void>((r) => release.push(r));
      return list(filter);
    };
    return release;
  }

  it('shows the first page as soon as it comes, then loads it again', async () => {
    const { backend, queue } = setup();
    backend.add(makeItem({ id: 'a' }));
    const release = gated(backend);
    const first = queue.reload();
    const caught = queue.catchUp();
    await Promise.resolve();
    expect(release).toHaveLength(1);
    release[0]();
    await first;
    expect(queue.items.map((i) => i.id)).toEqual(['a']);
    // A call paused before the stream opened: the reload that follows brings it.
    backend.add(makeItem({ id: 'b', pausedAt: '2025-01-01T11:00:00Z' }));
    await new Promise((r) => setTimeout(r, 0));
    expect(release).toHaveLength(2);
    release[1]();
    await caught;
    expect(queue.items.map((i) => i.id)).toEqual(['b', 'a']);
  });

  it('does not reload over a view asked for meanwhile', async () => {
    const { backend, queue } = setup();
    const release = gated(backend);
    void queue.reload();
    const caught = queue.catchUp();
    await Promise.resolve();
    const other = queue.setFilter({ tab: 'all' });
    release[0]();
    await new Promise((r) => setTimeout(r, 0));
    release[1]();
    await other;
    await caught;
    await new Promise((r) => setTimeout(r, 0));
    expect(release).toHaveLength(2);
    expect(queue.filter.tab).toBe('all');
  });
});

describe('QueueModel and a link', () => {
  it("starts at a link's tab, filters and search, the box holding that search as sent", async () => {
    const backend = new FakeBackend();
    const queue = new QueueModel(backend, { onError: () => {} }, { filter: { tab: 'decided', tool: 'run_sql', q: 'sessions' } });
    expect(queue.search).toBe('sessions');
    expect(queue.searchPending).toBe(false);
    await queue.reload();
    expect(backend.calls.find((c) => c.method === 'listQueue')!.args[0]).toMatchObject({ tab: 'decided', tool: 'run_sql', q: 'sessions' });
  });

  it('goes where Back or a link says at once: a search still being typed is dropped, not sent after it', async () => {
    vi.useFakeTimers();
    try {
      const backend = new FakeBackend();
      const queue = new QueueModel(backend, { onError: () => {} }, { searchDelayMs: 250 });
      queue.setSearch('typing');
      await queue.goTo({ tab: 'all', q: 'linked' });
      expect(queue.search).toBe('linked');
      expect(queue.filter).toMatchObject({ tab: 'all', q: 'linked' });
      await vi.advanceTimersByTimeAsync(1000);
      const asked = backend.calls.filter((c) => c.method === 'listQueue').map((c) => (c.args[0] as { q?: string }).q);
      expect(asked).toEqual(['linked']);
    } finally {
      vi.useRealTimers();
    }
  });
});
