/**
 * RFC 8785 JSON Canonicalization Scheme (JCS), the form the server hashes for a call's fingerprint
 * (rule S7; the server uses `serde_json_canonicalizer`):
 * - object keys sorted by their UTF-16 code units (what `Array.prototype.sort` does by default),
 * - numbers in ECMAScript Number-to-String form (`1.0` → `1`, `1e21` → `1e+21`, `-0` → `0`),
 * - strings escaped as `JSON.stringify` escapes them (RFC 8785 §3.2.2.2 is that algorithm),
 * - no whitespace.
 *
 * Written as a loop with its own stack, like `rawJson`: arguments may be 10,000 levels deep, and the
 * built-in recursion (and `JSON.stringify`) overflows at a few thousand.
 */

import { i18n } from './i18n/index.svelte';

/** The value is not I-JSON: a non-finite number, a cycle, or something JSON cannot hold. */
export class CanonicalizeError extends Error {
  override name = 'CanonicalizeError';
}

/** The canonical JSON text of `value`. Throws `CanonicalizeError` for values JSON cannot hold. */
export function canonicalJson(value: unknown): string {
  return canonicalJsonCut(value, Infinity).text;
}

/**
 * The canonical JSON text of `value`, stopping once it is `limit` characters long (for display:
 * no point building megabytes only to cut them). `truncated` says whether it was cut.
 */
export function canonicalJsonCut(value: unknown, limit: number): { text: string; truncated: boolean } {
  type Frame = { obj: unknown[] | Record<string, unknown>; keys: string[] | null; i: number };
  const stack: Frame[] = [];
  // Containers on the current path: a cycle would otherwise loop until memory runs out.
  const path = new Set<object>();
  const out: string[] = [];
  let size = 0;
  const emit = (piece: string): boolean => {
    out.push(piece);
    size += piece.length;
    return size < limit;
  };

  let pending: unknown = value;
  let havePending = true;
  for (;;) {
    if (havePending) {
      havePending = false;
      const v = pending;
      let piece: string;
      if (v !== null && typeof v === 'object') {
        if (path.has(v)) throw new CanonicalizeError(i18n.m.args.cycle);
        if (Array.isArray(v)) {
          if (v.length === 0) piece = '[]';
          else {
            stack.push({ obj: v, keys: null, i: 0 });
            path.add(v);
            piece = '[';
          }
        } else {
          const obj = v as Record<string, unknown>;
          const keys = Object.keys(obj).sort();
          if (keys.length === 0) piece = '{}';
          else {
            stack.push({ obj, keys, i: 0 });
            path.add(obj);
            piece = '{';
          }
        }
      } else {
        piece = scalar(v);
      }
      if (!emit(piece)) break;
      continue;
    }
    const top = stack[stack.length - 1];
    if (!top) break;
    const n = top.keys ? top.keys.length : (top.obj as unknown[]).length;
    if (top.i < n) {
      const sep = top.i > 0 ? ',' : '';
      if (top.keys) {
        const k = top.keys[top.i];
        if (!emit(sep + JSON.stringify(k) + ':')) break;
        pending = (top.obj as Record<string, unknown>)[k];
      } else {
        if (sep && !emit(sep)) break;
        pending = (top.obj as unknown[])[top.i];
      }
      top.i++;
      havePending = true;
    } else {
      stack.pop();
      path.delete(top.obj);
      if (!emit(top.keys ? '}' : ']')) break;
    }
  }
  const text = out.join('');
  const done = stack.length === 0 && !havePending;
  if (text.length > limit || !done) return { text: text.slice(0, limit), truncated: true };
  return { text, truncated: false };
}

function scalar(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      if (!Number.isFinite(v)) throw new CanonicalizeError(i18n.m.args.notJsonNumber(String(v)));
      // Number-to-String is exactly RFC 8785's number form; String(-0) is already "0".
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      if (v === null) return 'null';
      throw new CanonicalizeError(i18n.m.args.notJsonValue(typeof v));
  }
}
