/**
 * The queue's search box, for now over the calls already loaded: tool name, agent and the text of
 * the arguments (keys and values), case-insensitive. A server-side search will replace the
 * filtering; the box and `QueueModel.search` stay.
 */
import type { QueueItem } from './backend/backend';

/** How much of one call's arguments is searched: arguments may be megabytes. */
export const SEARCH_TEXT_LIMIT = 64 * 1024;

/**
 * The keys and primitive values of `value` joined by spaces, at most `limit` characters. Walks
 * with its own stack: arguments may be nested thousands of levels deep.
 */
export function searchText(value: unknown, limit = SEARCH_TEXT_LIMIT): string {
  const parts: string[] = [];
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size < limit) {
    const v = stack.pop();
    if (v === null || v === undefined) continue;
    if (typeof v === 'object') {
      // Pushed in reverse so the text reads in document order; a key is pushed as the string it is.
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
      } else {
        const entries = Object.entries(v as Record<string, unknown>);
        for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i][1], entries[i][0]);
      }
      continue;
    }
    const text = String(v);
    parts.push(text);
    size += text.length + 1;
  }
  return parts.join(' ').slice(0, limit);
}

const cache = new WeakMap<QueueItem, string>();

/** The lowercased text a query is matched against; items are never changed in place, so it is kept per object. */
function haystack(item: QueueItem): string {
  let text = cache.get(item);
  if (text === undefined) {
    text = [item.toolName, item.agentId, item.agentName ?? '', searchText(item.args)].join('\n').toLowerCase();
    cache.set(item, text);
  }
  return text;
}

/** Whether `item` matches every word of `query`; an empty query matches everything. */
export function matchesSearch(item: QueueItem, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return true;
  const text = haystack(item);
  return words.every((w) => text.includes(w));
}

export function filterBySearch(items: readonly QueueItem[], query: string): QueueItem[] {
  return query.trim() === '' ? [...items] : items.filter((i) => matchesSearch(i, query));
}
