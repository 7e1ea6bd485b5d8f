/**
 * The console's place and its address, both ways: what the console shows as a `Route` (`placeOf`),
 * and a `Route` made what the console shows (`follow`: a link, Back, Forward). The view must be one
 * this credential is offered (`ConsoleModel.tabs`), else the queue is shown; a call is asked for by
 * id and shown fresh, as a channel's link always was.
 */
import type { ConsoleModel } from './console.svelte';
import type { QueueModel } from './queue.svelte';
import { HOME, queueFilterOf, routeOfFilter, sameList, type Route } from './route';

/** What the console shows now, as a route; the view's own parameters are `was`'s while the view stays `was`'s. */
export function placeOf(model: ConsoleModel, queue: QueueModel, was: Route = HOME): Route {
  const view = model.tab;
  let call: string | null = null;
  if (view === 'queue') call = model.opening ?? (model.detailOpen && model.selected ? model.selected.id : null);
  return { ...HOME, ...routeOfFilter(queue.filter), view, call, params: view !== 'queue' && view === was.view ? was.params : {} };
}

/** Makes the console show `r`: its view (if offered), the list's tab, filters and search, and its call. */
export function follow(r: Route, model: ConsoleModel, queue: QueueModel): void {
  model.tab = model.tabs.includes(r.view) ? r.view : 'queue';
  if (!sameList(r, { ...HOME, ...routeOfFilter(queue.filter) })) void queue.goTo(queueFilterOf(r));
  if (model.tab !== 'queue') return;
  if (r.call === null) model.closeDetail();
  else if (r.call === model.selected?.id) model.detailOpen = true;
  else if (r.call !== model.opening) model.open(r.call);
}
