/**
 * What changed since the last decision on the same tool in the same thread (issue 6, item 3): the
 * operator approved or declined `delete_record {id: "rec-1"}` five minutes ago; now the agent asks
 * for `{id: "rec-2", cascade: true}`. The changes come from `diffArgs` (JSON Pointers, document
 * order), each with its value before and after, as short canonical JSON.
 */

import { diffArgs, type ArgChange } from './args-edit';
import { canonicalJsonCut } from './canonical';

/** How many characters of a value before or after are shown. */
export const VALUE_PREVIEW = 160;

export type ValuePreview = { text: string; truncated: boolean };

/** One change with the values on either side (`null` on the side where the key or item is absent). */
export type ShownChange = ArgChange & { before: ValuePreview | null; after: ValuePreview | null };

/**
 * The value at a JSON Pointer (RFC 6901), or `undefined` when the path does not exist. Array
 * indexes are the decimal digits only; `~1` is `/` and `~0` is `~` (in that order).
 */
export function valueAt(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let cur: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key)) return undefined;
      cur = cur[Number(key)];
    } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, key)) {
      cur = (cur as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return cur;
}

function preview(value: unknown): ValuePreview {
  try {
    return canonicalJsonCut(value, VALUE_PREVIEW);
  } catch {
    return { text: String(value), truncated: false };
  }
}

/** The changes from `previous` to `current`, at most `max` listed (`count` says how many there are). */
export function changesSince(previous: unknown, current: unknown, max = 20): { changes: ShownChange[]; count: number } {
  const { changes, count } = diffArgs(previous, current, max);
  return {
    count,
    changes: changes.map((c) => ({
      ...c,
      before: c.op === 'added' ? null : preview(valueAt(previous, c.pointer)),
      after: c.op === 'removed' ? null : preview(valueAt(current, c.pointer)),
    })),
  };
}
