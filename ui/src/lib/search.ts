/**
 * The queue's search box. The server searches (`q`: every word must occur, case-insensitively, in
 * the call's tool name, agent id or name, or the compact JSON text of its arguments); this module
 * mirrors that on calls already here, for two things only: showing at once which loaded calls
 * match while the server's answer is on its way, and deciding whether a call that arrives live
 * belongs in a searched list. The server's answer is what the list then shows.
 *
 * It is an approximation: the server folds case with Unicode rules for words of 3+ characters and
 * ASCII only for shorter ones (this folds all of them), and its JSON text keeps the engine's key
 * order (a browser lists integer-like keys first).
 */
import type { QueueItem } from './backend/backend';

/** How much of one call's argument text is searched here: arguments may be megabytes. */
export const SEARCH_TEXT_LIMIT = 256 * 1024;

/** The words of a search, as the server splits them. */
export function searchWords(query: string): string[] {
  return query.split(/\s+/).filter((w) => w !== '');
}

/** Compact JSON of `value`, cut at `limit` characters; `''` for what JSON cannot hold (cycles, too deep). */
export function jsonText(value: unknown, limit = SEARCH_TEXT_LIMIT): string {
  try {
    return (JSON.stringify(value) ?? '').slice(0, limit);
  } catch {
    return '';
  }
}

const cache = new WeakMap<QueueItem, string>();

/** The lowercased text a query is matched against, one field per line like the server's index; items are never changed in place, so it is kept per object. */
function haystack(item: QueueItem): string {
  let text = cache.get(item);
  if (text === undefined) {
    text = [item.toolName, item.agentId, item.agentName ?? '', jsonText(item.args)].join('\n').toLowerCase();
    cache.set(item, text);
  }
  return text;
}

/** Whether `item` matches every word of `query`; an empty query matches everything. */
export function matchesSearch(item: QueueItem, query: string): boolean {
  const words = searchWords(query.toLowerCase());
  if (words.length === 0) return true;
  const text = haystack(item);
  return words.every((w) => text.includes(w));
}

export function filterBySearch(items: readonly QueueItem[], query: string): QueueItem[] {
  return query.trim() === '' ? [...items] : items.filter((i) => matchesSearch(i, query));
}
