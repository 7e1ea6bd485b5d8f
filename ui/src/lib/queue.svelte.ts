/**
 * The queue list as the operator sees it: one tab of the queue (pending, awaiting delivery, …),
 * filtered and searched on the server, loaded page by page as the list scrolls, kept current by
 * backend events without reloading the page, with the count of every tab. Server data is held in
 * `$state.raw` (never proxied) because `args` may be megabytes or thousands of levels deep, and the
 * list may hold 100,000 calls.
 */
import { ApiError, type Backend, type BackendEvent, type QueueCounts, type QueueFilter, type QueueItem } from './backend/backend';
import { groupByRun } from './run-groups';
import { filterBySearch, matchesSearch } from './search';

export type QueueHooks = {
  onError: (e: ApiError) => void;
  /** Every item fetched because of an event, whether or not it stays in the list. */
  onItem?: (item: QueueItem) => void;
  /** An item the server says no longer exists. */
  onRemoved?: (id: string) => void;
};

export type QueueOptions = {
  /** Calls per page (the server allows up to 500). */
  pageSize?: number;
  /** How long typing must pause before the search goes to the server. */
  searchDelayMs?: number;
  /** What the first load is for (a link's tab, filters and search); the pending tab otherwise. */
  filter?: QueueFilter;
};

export class QueueModel {
  items = $state.raw<QueueItem[]>([]);
  nextCursor = $state<string | null>(null);
  /** What the loaded items were fetched for; `q` is the search last sent. */
  filter = $state.raw<QueueFilter>({ tab: 'pending' });
  loading = $state(false);
  loaded = $state(false);
  /** The last `loadMore` failed: the list stops asking by itself until the operator asks again. */
  moreFailed = $state(false);
  /** Calls per tab under the current filters and search (`null` until the server said). */
  counts = $state.raw<QueueCounts | null>(null);

  /** The search box: sent to the server as `filter.q` once typing pauses (`setSearch`). */
  search = $state('');
  /** Whether the box holds a search the loaded calls were not fetched for (its answer is on the way). */
  searchPending = $derived(this.search.trim() !== (this.filter.q ?? ''));
  /**
   * The calls the list shows, in its order: each run's calls together. While a new search is on its
   * way, the loaded calls that match it (`search.ts`), so typing shows something at once.
   */
  grouped = $derived(groupByRun(this.searchPending ? filterBySearch(this.items, this.search) : this.items));
  shown = $derived(this.grouped.order);

  /** Pending calls among those loaded; `hasMore` when further pages may hold others. */
  pendingCount = $derived(this.items.filter((i) => i.state === 'pending').length);
  /** Pending calls in the whole queue, under no filter (the server's count; the loaded ones until it answered). */
  pendingTotal = $derived(this.counts?.pendingTotal ?? this.pendingCount);
  hasMore = $derived(this.nextCursor !== null);

  private generation = 0;
  private readonly pageSize: number;
  private readonly searchDelayMs: number;
  private searchTimer: ReturnType<typeof setTimeout> | null = null;
  private countsInFlight = false;
  private countsAgain = false;

  constructor(
    private readonly backend: Backend,
    private readonly hooks: QueueHooks,
    options: QueueOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 200;
    this.searchDelayMs = options.searchDelayMs ?? 250;
    if (options.filter) {
      this.filter = options.filter;
      this.search = options.filter.q ?? '';
    }
  }

  /** Shows another tab, filters or order; the search stays the box's. */
  setFilter(filter: QueueFilter): Promise<void> {
    const q = this.search.trim();
    this.filter = { ...filter, q: q === '' ? undefined : q };
    return this.reload();
  }

  /** Shows what a link names: its tab, filters, order and search (the box then holds that search, sent). */
  goTo(filter: QueueFilter): Promise<void> {
    if (this.searchTimer !== null) clearTimeout(this.searchTimer);
    this.searchTimer = null;
    this.search = filter.q ?? '';
    this.filter = filter;
    return this.reload();
  }

  /** The search box changed: filter what is loaded at once, ask the server once typing pauses (at once with `now`). */
  setSearch(text: string, now = false): void {
    this.search = text;
    if (this.searchTimer !== null) clearTimeout(this.searchTimer);
    this.searchTimer = null;
    if (now || this.searchDelayMs <= 0) void this.sendSearch();
    else this.searchTimer = setTimeout(() => void this.sendSearch(), this.searchDelayMs);
  }

  private sendSearch(): Promise<void> {
    this.searchTimer = null;
    if (!this.searchPending) return Promise.resolve();
    return this.setFilter(this.filter);
  }

  /** Stops the search timer (the list is going away). */
  dispose(): void {
    if (this.searchTimer !== null) clearTimeout(this.searchTimer);
    this.searchTimer = null;
  }

  /**
   * The event stream (re)opened, so events may have been missed: loads the first page again. A
   * first page already on its way for the same view is shown when it comes, not dropped (at start
   * the list and the stream open together: the first rows need not wait for the stream), and the
   * reload follows it.
   */
  async catchUp(): Promise<void> {
    const underWay = this.reloading;
    if (underWay) {
      const gen = this.generation;
      await underWay;
      // Another view was asked for meanwhile: its own load is the newer one.
      if (gen !== this.generation) return;
    }
    return this.reload();
  }

  /** The reload under way, if any. */
  private reloading: Promise<void> | null = null;

  /**
   * What `upsert` and `remove` did while a page was on its way (the call, or `null` for gone), by
   * id. The page may have been read on the server before those changes (a call that paused after
   * the list was read arrives by its event first): they are applied again on top of it, so that
   * the page does not drop a call that arrived meanwhile, nor bring back one that left.
   */
  private changedMeanwhile: Map<string, QueueItem | null> | null = null;

  /** Starts recording changes for a page about to be asked for. */
  private recordChanges(): Map<string, QueueItem | null> {
    const changes = new Map<string, QueueItem | null>();
    this.changedMeanwhile = changes;
    return changes;
  }

  /** Applies again what changed while `changes` was recording (its page just came), and stops recording. */
  private replayChanges(changes: Map<string, QueueItem | null>): void {
    if (this.changedMeanwhile === changes) this.changedMeanwhile = null;
    for (const [id, item] of changes) {
      if (item) this.place(item);
      else this.drop(id);
    }
  }

  /** Loads the first page again, and the counts; answers to older loads are dropped. */
  reload(): Promise<void> {
    const load = this.load();
    this.reloading = load;
    void load.finally(() => {
      if (this.reloading === load) this.reloading = null;
    });
    return load;
  }

  private async load(): Promise<void> {
    const gen = ++this.generation;
    this.loading = true;
    this.refreshCounts();
    const changes = this.recordChanges();
    try {
      const page = await this.backend.listQueue({ ...this.filter, limit: this.pageSize, cursor: null });
      if (gen !== this.generation) return;
      this.items = page.items;
      this.nextCursor = page.nextCursor ?? null;
      this.replayChanges(changes);
      this.loaded = true;
      this.moreFailed = false;
    } catch (e) {
      if (gen === this.generation) this.hooks.onError(ApiError.from(e));
    } finally {
      if (this.changedMeanwhile === changes) this.changedMeanwhile = null;
      if (gen === this.generation) this.loading = false;
    }
  }

  /** Loads the next page (once at a time: the list asks again as it scrolls). */
  async loadMore(): Promise<void> {
    if (!this.nextCursor || this.loading) return;
    const gen = this.generation;
    this.loading = true;
    const changes = this.recordChanges();
    try {
      const page = await this.backend.listQueue({ ...this.filter, limit: this.pageSize, cursor: this.nextCursor });
      if (gen !== this.generation) return;
      const seen = new Set(this.items.map((i) => i.id));
      this.items = [...this.items, ...page.items.filter((i) => !seen.has(i.id))];
      this.nextCursor = page.nextCursor ?? null;
      this.replayChanges(changes);
      this.moreFailed = false;
    } catch (e) {
      if (gen !== this.generation) return;
      this.moreFailed = true;
      this.hooks.onError(ApiError.from(e));
    } finally {
      if (this.changedMeanwhile === changes) this.changedMeanwhile = null;
      if (gen === this.generation) this.loading = false;
    }
  }

  /**
   * Asks for the tab counts under the current filters. One request at a time: asked again while
   * one is out, it asks once more when that one is back, so a burst of events costs two requests.
   * A failure keeps the last counts (the list's own errors say what is wrong).
   */
  refreshCounts(): void {
    if (this.countsInFlight) {
      this.countsAgain = true;
      return;
    }
    this.countsInFlight = true;
    const filter = this.filter;
    void this.backend
      .queueCounts(filter)
      .then(
        (counts) => {
          if (filter === this.filter) this.counts = counts;
          else this.countsAgain = true;
        },
        () => {},
      )
      .finally(() => {
        this.countsInFlight = false;
        if (this.countsAgain) {
          this.countsAgain = false;
          this.refreshCounts();
        }
      });
  }

  /** Applies one live event: fetches the item it names and puts it in or out of the list. */
  async apply(ev: BackendEvent): Promise<void> {
    if (ev.kind === 'resync') return this.reload();
    if (ev.kind !== 'queue') return;
    if (ev.type === 'removed') {
      this.remove(ev.id);
      this.refreshCounts();
      this.hooks.onRemoved?.(ev.id);
      return;
    }
    let item: QueueItem;
    try {
      item = await this.backend.getItem(ev.id);
    } catch (e) {
      const err = ApiError.from(e);
      if (err.code === 'not_found') {
        this.remove(ev.id);
        this.refreshCounts();
        this.hooks.onRemoved?.(ev.id);
      } else this.hooks.onError(err);
      return;
    }
    this.upsert(item);
    this.hooks.onItem?.(item);
  }

  /**
   * Puts a fresh copy of an item where it belongs: replaced, inserted in order, or removed when it
   * no longer matches; the counts are asked for again, since it may have moved between tabs.
   */
  upsert(item: QueueItem): void {
    this.refreshCounts();
    this.changedMeanwhile?.set(item.id, item);
    this.place(item);
  }

  /** `upsert` without asking for the counts or recording the change. */
  private place(item: QueueItem): void {
    const i = this.items.findIndex((x) => x.id === item.id);
    if (!this.matches(item)) {
      if (i !== -1) this.drop(item.id);
      return;
    }
    if (i !== -1) {
      const next = this.items.slice();
      next[i] = item;
      this.items = next;
      return;
    }
    const compare = this.filter.sort === 'oldest' ? compareOldestFirst : compareNewestFirst;
    // An item beyond the last loaded one belongs to a page not loaded yet.
    const last = this.items[this.items.length - 1];
    if (this.nextCursor !== null && last && compare(item, last) > 0) return;
    const next = [...this.items, item];
    next.sort(compare);
    this.items = next;
  }

  remove(id: string): void {
    this.changedMeanwhile?.set(id, null);
    this.drop(id);
  }

  private drop(id: string): void {
    if (this.items.some((x) => x.id === id)) this.items = this.items.filter((x) => x.id !== id);
  }

  /** Whether an item belongs in the list under the current tab, filters and search. */
  matches(item: QueueItem): boolean {
    const f = this.filter;
    const tab = f.tab ?? 'pending';
    if (tab !== 'all' && item.tab !== tab) return false;
    if (f.engine && item.engine !== f.engine) return false;
    if (f.source && item.source !== f.source) return false;
    if (f.agent && item.agentId !== f.agent) return false;
    if (f.tool && item.toolName !== f.tool) return false;
    if (f.kind && item.kind !== f.kind) return false;
    if (f.thread && item.threadId !== f.thread) return false;
    if (f.run && item.runId !== f.run) return false;
    return !f.q || matchesSearch(item, f.q);
  }
}

/** Newest `pausedAt` first; ties keep a stable order by id. */
export function compareNewestFirst(a: QueueItem, b: QueueItem): number {
  const ta = Date.parse(a.pausedAt);
  const tb = Date.parse(b.pausedAt);
  if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return tb - ta;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export function compareOldestFirst(a: QueueItem, b: QueueItem): number {
  return compareNewestFirst(b, a);
}
