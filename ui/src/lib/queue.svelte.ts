/**
 * The queue list as the operator sees it: one page or more of items, kept current by backend
 * events without reloading the page. Server data is held in `$state.raw` (never proxied) because
 * `args` may be megabytes or thousands of levels deep.
 */
import { ApiError, type Backend, type BackendEvent, type QueueFilter, type QueueItem } from './backend/backend';
import { filterBySearch } from './search';

export type QueueHooks = {
  onError: (e: ApiError) => void;
  /** Every item fetched because of an event, whether or not it stays in the list. */
  onItem?: (item: QueueItem) => void;
  /** An item the server says no longer exists. */
  onRemoved?: (id: string) => void;
};

export class QueueModel {
  items = $state.raw<QueueItem[]>([]);
  nextCursor = $state<string | null>(null);
  filter = $state.raw<QueueFilter>({ state: 'pending' });
  loading = $state(false);
  loaded = $state(false);

  /**
   * The search box: filters the loaded items on this side for now (see `search.ts`); a server-side
   * search will send it with the filter instead.
   */
  search = $state('');
  /** The items the list shows: those loaded that match `search`, newest first. */
  shown = $derived(filterBySearch(this.items, this.search));

  /** Pending items among those loaded; `more` when further pages may hold others. */
  pendingCount = $derived(this.items.filter((i) => i.state === 'pending').length);
  hasMore = $derived(this.nextCursor !== null);

  private generation = 0;

  constructor(
    private readonly backend: Backend,
    private readonly hooks: QueueHooks,
    private readonly pageSize = 50,
  ) {}

  setFilter(filter: QueueFilter): Promise<void> {
    this.filter = { ...filter };
    return this.reload();
  }

  /** Loads the first page again; answers to older loads are dropped. */
  async reload(): Promise<void> {
    const gen = ++this.generation;
    this.loading = true;
    try {
      const page = await this.backend.listQueue({ ...this.filter, limit: this.pageSize, cursor: null });
      if (gen !== this.generation) return;
      this.items = page.items;
      this.nextCursor = page.nextCursor ?? null;
      this.loaded = true;
    } catch (e) {
      if (gen === this.generation) this.hooks.onError(ApiError.from(e));
    } finally {
      if (gen === this.generation) this.loading = false;
    }
  }

  async loadMore(): Promise<void> {
    if (!this.nextCursor) return;
    const gen = this.generation;
    this.loading = true;
    try {
      const page = await this.backend.listQueue({ ...this.filter, limit: this.pageSize, cursor: this.nextCursor });
      if (gen !== this.generation) return;
      const seen = new Set(this.items.map((i) => i.id));
      this.items = [...this.items, ...page.items.filter((i) => !seen.has(i.id))];
      this.nextCursor = page.nextCursor ?? null;
    } catch (e) {
      if (gen === this.generation) this.hooks.onError(ApiError.from(e));
    } finally {
      if (gen === this.generation) this.loading = false;
    }
  }

  /** Applies one live event: fetches the item it names and puts it in or out of the list. */
  async apply(ev: BackendEvent): Promise<void> {
    if (ev.kind === 'resync') return this.reload();
    if (ev.kind !== 'queue') return;
    if (ev.type === 'removed') {
      this.remove(ev.id);
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
        this.hooks.onRemoved?.(ev.id);
      } else this.hooks.onError(err);
      return;
    }
    this.upsert(item);
    this.hooks.onItem?.(item);
  }

  /** Puts a fresh copy of an item where it belongs: replaced, inserted newest-first, or removed when it no longer matches. */
  upsert(item: QueueItem): void {
    const i = this.items.findIndex((x) => x.id === item.id);
    if (!this.matches(item)) {
      if (i !== -1) this.remove(item.id);
      return;
    }
    if (i !== -1) {
      const next = this.items.slice();
      next[i] = item;
      this.items = next;
      return;
    }
    // An item older than the last loaded one belongs to a page not loaded yet.
    const last = this.items[this.items.length - 1];
    if (this.nextCursor !== null && last && compareNewestFirst(item, last) > 0) return;
    const next = [...this.items, item];
    next.sort(compareNewestFirst);
    this.items = next;
  }

  remove(id: string): void {
    if (this.items.some((x) => x.id === id)) this.items = this.items.filter((x) => x.id !== id);
  }

  /** Whether an item belongs in the list under the current filter (exact match on each set field). */
  matches(item: QueueItem): boolean {
    const f = this.filter;
    const state = f.state ?? 'pending';
    if (state === 'pending' && item.state !== 'pending') return false;
    if (state === 'decided' && item.state !== 'decided') return false;
    if (f.engine && item.engine !== f.engine) return false;
    if (f.agent && item.agentId !== f.agent) return false;
    if (f.tool && item.toolName !== f.tool) return false;
    if (f.kind && item.kind !== f.kind) return false;
    if (f.thread && item.threadId !== f.thread) return false;
    return true;
  }
}

/** Newest `pausedAt` first; ties keep a stable order by id. */
export function compareNewestFirst(a: QueueItem, b: QueueItem): number {
  const ta = Date.parse(a.pausedAt);
  const tb = Date.parse(b.pausedAt);
  if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return tb - ta;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
