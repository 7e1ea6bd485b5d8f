import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { backendContext } from '../backend/context';
import type { QueueTab } from '../backend/backend';
import { QueueModel } from '../queue.svelte';
import { FakeBackend, makeAwaitingDecision, makeItem } from '../testing/fake-backend';
import { mountInBody, type } from '../testing/mount';
import QueueList from './QueueList.svelte';

async function render(backend: FakeBackend, tab: QueueTab | 'all') {
  const queue = new QueueModel(backend, { onError: (e) => { throw e; } });
  await queue.setFilter({ tab });
  const { target } = mountInBody(QueueList, { props: { queue, selectedId: null, onselect: () => {} }, context: backendContext(backend) });
  flushSync();
  const row = (id: string) => target.querySelector(`[data-testid="queue-item"][data-id="${id}"]`) as HTMLElement | null;
  return { row, queue };
}

describe('QueueList', () => {
  it('marks decided calls waiting in the outbox as awaiting delivery, with attempts, next attempt and last error', async () => {
    const backend = new FakeBackend();
    backend.add(
      makeItem({
        id: 'out',
        engine: 'prod-mastra',
        source: 'mastra',
        state: 'decided',
        allowed: [],
        decision: makeAwaitingDecision({ attempts: 2, lastError: 'connection refused', nextAttemptAt: '2025-01-01T10:05:00Z' }),
      }),
      makeItem({ id: 'done', state: 'delivered', allowed: [], decision: makeAwaitingDecision({ delivery: 'delivered', lastError: null, nextAttemptAt: null }) }),
      makeItem({ id: 'wait', engine: 'local' }),
    );
    const { row } = await render(backend, 'all');

    const out = row('out')!;
    expect(out.dataset.awaitingDelivery).toBe('true');
    expect(out.querySelector('[data-testid="awaiting-delivery"]')!.textContent).toBe('awaiting delivery');
    const summary = out.querySelector('[data-testid="delivery-summary"]')!;
    expect(summary.textContent).toContain('2 attempts');
    expect(summary.textContent).toContain('connection refused');
    expect(summary.querySelector('time')!.getAttribute('datetime')).toBe('2025-01-01T10:05:00Z');
    // Its engine is named in the source's title (the row's meta line: agent · source · 4m ago).
    expect(out.querySelector<HTMLElement>('[data-testid="row-source"]')!.title).toContain('(prod-mastra)');

    expect(row('done')!.querySelector('[data-testid="awaiting-delivery"]')).toBeNull();
    expect(row('done')!.dataset.awaitingDelivery).toBeUndefined();
    expect(row('done')!.textContent).toContain('delivered');
    expect(row('wait')!.querySelector('[data-testid="awaiting-delivery"]')).toBeNull();
    expect(row('wait')!.querySelector('[data-testid="row-source"]')).toBeNull();
  });

  it('the "awaiting delivery" tab lists only the outbox', async () => {
    const backend = new FakeBackend();
    backend.add(
      makeItem({ id: 'out', state: 'decided', allowed: [], decision: makeAwaitingDecision() }),
      makeItem({ id: 'wait' }),
    );
    const { row, queue } = await render(backend, 'awaiting_delivery');
    expect(row('out')).not.toBeNull();
    expect(row('wait')).toBeNull();
    expect(queue.matches(makeItem({ id: 'x', state: 'pending' }))).toBe(false);
    expect(backend.calls.find((c) => c.method === 'listQueue')).toEqual({ method: 'listQueue', args: [expect.objectContaining({ tab: 'awaiting_delivery' })] });
  });

  it('is a listbox: the selected call is the one option Tab reaches, Space selects, the search filters', async () => {
    const backend = new FakeBackend();
    backend.add(
      makeItem({ id: 'a', toolName: 'send_email', pausedAt: '2025-01-01T12:00:00Z' }),
      makeItem({ id: 'b', toolName: 'delete_record', pausedAt: '2025-01-01T11:00:00Z' }),
    );
    const queue = new QueueModel(backend, { onError: (e) => { throw e; } });
    await queue.reload();
    const selected: string[] = [];
    const { target } = mountInBody(QueueList, { props: { queue, selectedId: 'b', onselect: (id: string) => selected.push(id) }, context: backendContext(backend) });
    flushSync();
    const list = target.querySelector('[role="listbox"]')!;
    expect(list.getAttribute('aria-label')).toBe('Calls, newest first');
    const options = [...list.querySelectorAll<HTMLElement>('[role="option"]')];
    expect(options.map((o) => [o.dataset.id, o.getAttribute('aria-selected'), o.tabIndex])).toEqual([
      ['a', 'false', -1],
      ['b', 'true', 0],
    ]);
    // Options hold no controls of their own.
    expect(list.querySelector('button, a, input')).toBeNull();

    options[0].dispatchEvent(new KeyboardEvent('keydown', { key: ' ', bubbles: true, cancelable: true }));
    options[0].click();
    expect(selected).toEqual(['a', 'a']);

    const search = target.querySelector('[data-testid="queue-search"]') as HTMLInputElement;
    expect(target.querySelector(`label[for="${search.id}"]`)!.textContent).toBe('Search');
    type(search, 'send');
    flushSync();
    // The selected call is filtered out: the first one listed takes Tab.
    expect([...list.querySelectorAll<HTMLElement>('[role="option"]')].map((o) => [o.dataset.id, o.tabIndex])).toEqual([['a', 0]]);
    expect(queue.pendingCount).toBe(2);
  });
});
