/**
 * Which call to show when the operator moves through the queue, or has just decided one: the
 * functions take the calls as listed (newest first) and answer an id, never changing anything.
 */
import type { QueueItem } from './backend/backend';

export type Move = 'next' | 'prev' | 'first' | 'last';

/**
 * The call a move selects in `list`; `null` when the list is empty. From no selection (or one the
 * list does not show), `next` and `first` select the first call, `prev` and `last` the last. The
 * ends do not wrap: `next` on the last call stays there.
 */
export function moveSelection(list: readonly QueueItem[], currentId: string | null, move: Move): string | null {
  if (list.length === 0) return null;
  const i = currentId === null ? -1 : list.findIndex((x) => x.id === currentId);
  let j: number;
  if (move === 'first') j = 0;
  else if (move === 'last') j = list.length - 1;
  else if (i === -1) j = move === 'next' ? 0 : list.length - 1;
  else j = move === 'next' ? Math.min(i + 1, list.length - 1) : Math.max(i - 1, 0);
  return list[j].id;
}

/** Whether a call still waits for the operator's decision. */
export function awaitsDecision(item: QueueItem): boolean {
  return item.state === 'pending' && item.decision == null;
}

/**
 * After `decidedId` was decided: the first call below it in `list` that still awaits a decision,
 * else the nearest one above it; `null` when none is left. `list` is the list as it was shown
 * with the decided call in it (the call may have left the list since: its event can arrive before
 * the decision's answer); whether a call still waits is read from `current`, the list as it is now
 * (a call no longer in it does not wait here). With the decided call not in `list`, from the top;
 * with none left there, the first waiting call of `current` (one that arrived meanwhile).
 */
export function nextAfterDecision(list: readonly QueueItem[], decidedId: string, current: readonly QueueItem[] = list): string | null {
  const now = list === current ? null : new Map(current.map((x) => [x.id, x]));
  const waiting = (x: QueueItem) => {
    if (x.id === decidedId) return false;
    const fresh = now ? now.get(x.id) : x;
    return fresh !== undefined && awaitsDecision(fresh);
  };
  const i = list.findIndex((x) => x.id === decidedId);
  const below = list.slice(i + 1).find(waiting);
  if (below) return below.id;
  const above = list.slice(0, Math.max(i, 0)).reverse().find(waiting);
  if (above) return above.id;
  return current.find((x) => x.id !== decidedId && awaitsDecision(x))?.id ?? null;
}
