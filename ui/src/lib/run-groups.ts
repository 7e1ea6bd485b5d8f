/**
 * The queue list's layout: calls of one run shown together under a run header, and where each row
 * sits, so the list can render only the rows in view (it may hold 100,000 calls). Pure functions.
 */
import type { QueueItem } from './backend/backend';

/** A run across engines: engine and run id. */
export function runKey(item: Pick<QueueItem, 'engine' | 'runId'>): string {
  return `${item.engine}\u0000${item.runId}`;
}

/** Calls of one run among those listed, in list order. */
export type RunGroup = { key: string; engine: string; runId: string; items: QueueItem[] };

export type Grouped = {
  /** The calls in the order they are shown: each run's calls together, where its first call was. */
  order: QueueItem[];
  /** Runs with two or more calls listed (those get a header), by key. */
  runs: Map<string, RunGroup>;
};

/**
 * Gathers the calls of each run: a run is placed where its first call (in `items`' order) is, its
 * other calls follow it. Calls alone in their run stay as they are. O(n).
 */
export function groupByRun(items: readonly QueueItem[]): Grouped {
  const byRun = new Map<string, QueueItem[]>();
  for (const item of items) {
    const key = runKey(item);
    const list = byRun.get(key);
    if (list) list.push(item);
    else byRun.set(key, [item]);
  }
  const runs = new Map<string, RunGroup>();
  if (byRun.size === items.length) return { order: [...items], runs };
  const order: QueueItem[] = [];
  for (const [key, list] of byRun) {
    order.push(...list);
    if (list.length > 1) runs.set(key, { key, engine: list[0].engine, runId: list[0].runId, items: list });
  }
  return { order, runs };
}

/** A row of the list: a run's header, or a call. `top` and `height` in pixels. */
export type Row =
  | { kind: 'run'; run: RunGroup; top: number; height: number }
  | { kind: 'item'; item: QueueItem; index: number; run: RunGroup | null; top: number; height: number };

export type Layout = { rows: Row[]; height: number; indexOf: Map<string, number> };

/**
 * Where each row goes: a header before the first call of each run in `grouped.runs`, then the
 * calls, each `itemHeight(item)` tall. `indexOf` maps a call's id to its row.
 */
export function layoutRows(grouped: Grouped, headerHeight: number, itemHeight: (item: QueueItem) => number): Layout {
  const rows: Row[] = [];
  const indexOf = new Map<string, number>();
  let top = 0;
  let seen: RunGroup | null = null;
  grouped.order.forEach((item, index) => {
    const run = grouped.runs.get(runKey(item)) ?? null;
    if (run && run !== seen) {
      rows.push({ kind: 'run', run, top, height: headerHeight });
      top += headerHeight;
    }
    seen = run;
    const height = itemHeight(item);
    indexOf.set(item.id, rows.length);
    rows.push({ kind: 'item', item, index, run, top, height });
    top += height;
  });
  return { rows, height: top, indexOf };
}

/** The first row whose bottom is below `y` (binary search over `rows`, sorted by `top`). */
function firstBelow(rows: readonly Row[], y: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid].top + rows[mid].height <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The rows `[start, end)` to render for a viewport at `scrollTop`, `viewport` pixels high, with
 * `overscan` rows more on each side.
 */
export function visibleRange(rows: readonly Row[], scrollTop: number, viewport: number, overscan = 8): { start: number; end: number } {
  if (rows.length === 0) return { start: 0, end: 0 };
  const first = firstBelow(rows, Math.max(0, scrollTop));
  const last = firstBelow(rows, scrollTop + Math.max(viewport, 1));
  return { start: Math.max(0, first - overscan), end: Math.min(rows.length, last + 1 + overscan) };
}

/** A run id short enough for a header (`abcdef…uvwxyz`); the whole id is in its title. */
export function shortRunId(id: string): string {
  return id.length > 14 ? `${id.slice(0, 6)}…${id.slice(-6)}` : id;
}
