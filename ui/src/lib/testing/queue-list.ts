// A QueueList mounted over a fake backend holding `items`, for the row tests: the row of an id and
// a part of it by its test id. Used by QueueList.desk.test.ts and QueueList.rows.test.ts.
import type { QueueItem } from '../backend/backend';
import { backendContext } from '../backend/context';
import QueueList from '../components/QueueList.svelte';
import { QueueModel } from '../queue.svelte';
import { FakeBackend } from './fake-backend';
import { mountInBody, settle } from './mount';

/** An element's text, whitespace folded. */
export const text = (el: Element | null | undefined) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

export async function renderQueueList(items: QueueItem[], tab: 'pending' | 'all' = 'pending') {
  const backend = new FakeBackend();
  backend.add(...items);
  const queue = new QueueModel(backend, { onError: () => {} });
  queue.filter = { tab };
  await queue.reload();
  const { target } = mountInBody(QueueList, { props: { queue, selectedId: null, onselect: () => {} }, context: backendContext(backend) });
  await settle();
  const row = (id: string) => target.querySelector<HTMLElement>(`[data-testid="queue-item"][data-id="${id}"]`)!;
  const part = (id: string, testid: string) => row(id).querySelector<HTMLElement>(`[data-testid="${testid}"]`);
  return { target, row, part };
}
