/**
 * Helpers for showing untrusted JSON values as text. Nothing here produces HTML: the results are
 * put into the page with Svelte text interpolation only.
 */
import table from './lookalikes.json';

/** Strings longer than this are folded until the operator expands them. */
export const FOLD_STRING_AT = 200;
/** Children of an object or array shown at once; more on request. */
export const CHILD_PAGE = 100;
/** The raw JSON view is cut past this many characters. */
export const RAW_LIMIT = 200 * 1024;

/** `U+0430` (as `lookalikes.json` writes code points) → 0x430. */
export const codePoint = (label: string) => parseInt(label.slice(2), 16);

/** `U+2160..U+217F` → [0x2160, 0x217f]; `U+00AD` → [0xad, 0xad]. */
export function codeRange(range: string): [number, number] {
  const [from, to = from] = range.split('..');
  return [codePoint(from), codePoint(to)];
}

/**
 * One character that is invisible or reorders text (control chars, bidi overrides, zero-width, tag
 * characters and the supplementary variation selectors that can smuggle text past a reader): an
 * operator must see them, since they can make `rm -rf /` look like something else. Shown as
 * `escapeHidden` escapes (see `confusables.ts`). The characters are `hidden` in `lookalikes.json`,
 * the table the Rust core reads too.
 */
export const HIDDEN_CHARS = new RegExp(
  `[${table.hidden
    .map(codeRange)
    .map(([from, to]) => (from === to ? `\\u{${from.toString(16)}}` : `\\u{${from.toString(16)}}-\\u{${to.toString(16)}}`))
    .join('')}]`,
  'u',
);

/** How a hidden character is shown: `\u{202E}`. */
export function escapeHidden(cp: number): string {
  return `\\u{${cp.toString(16).toUpperCase().padStart(4, '0')}}`;
}

export type ValueKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null' | 'other';

export function kindOf(v: unknown): ValueKind {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'object':
      return 'object';
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'other';
  }
}

/**
 * `JSON.stringify(value, null, 2)`, cut after `limit` characters. Written as a loop with its own
 * stack because the built-in recursion overflows at a few thousand levels, and arguments may be
 * 10,000 deep; it also stops early instead of building a huge string only to cut it. `sortKeys`
 * writes each object's keys sorted (by UTF-16 code units, as canonical JSON does) instead of in
 * their own order.
 */
export function rawJson(value: unknown, limit = RAW_LIMIT, { sortKeys = false }: { sortKeys?: boolean } = {}): { text: string; truncated: boolean } {
  type Frame = { obj: unknown[] | Record<string, unknown>; keys: string[] | null; i: number; depth: number };
  const stack: Frame[] = [];
  const out: string[] = [];
  let size = 0;
  const emit = (piece: string): boolean => {
    out.push(piece);
    size += piece.length;
    return size < limit;
  };
  const indent = (depth: number) => '\n' + '  '.repeat(depth);

  let pending: unknown = value;
  let pendingDepth = 0;
  let havePending = true;
  for (;;) {
    if (havePending) {
      havePending = false;
      const v = pending;
      let piece: string;
      if (Array.isArray(v)) {
        if (v.length === 0) piece = '[]';
        else {
          stack.push({ obj: v, keys: null, i: 0, depth: pendingDepth });
          piece = '[';
        }
      } else if (v !== null && typeof v === 'object') {
        const obj = v as Record<string, unknown>;
        const keys = Object.keys(obj).filter((k) => isJsonValue(obj[k]));
        if (sortKeys) keys.sort();
        if (keys.length === 0) piece = '{}';
        else {
          stack.push({ obj, keys, i: 0, depth: pendingDepth });
          piece = '{';
        }
      } else {
        piece = isJsonValue(v) ? (JSON.stringify(v) ?? 'null') : 'null';
      }
      if (!emit(piece)) break;
      continue;
    }
    const top = stack[stack.length - 1];
    if (!top) break;
    const n = top.keys ? top.keys.length : (top.obj as unknown[]).length;
    if (top.i < n) {
      const sep = (top.i > 0 ? ',' : '') + indent(top.depth + 1);
      if (top.keys) {
        const k = top.keys[top.i];
        if (!emit(sep + JSON.stringify(k) + ': ')) break;
        pending = (top.obj as Record<string, unknown>)[k];
      } else {
        if (!emit(sep)) break;
        pending = (top.obj as unknown[])[top.i];
      }
      pendingDepth = top.depth + 1;
      top.i++;
      havePending = true;
    } else {
      stack.pop();
      if (!emit(indent(top.depth) + (top.keys ? '}' : ']'))) break;
    }
  }
  const text = out.join('');
  const done = stack.length === 0 && !havePending;
  if (text.length > limit || !done) return { text: text.slice(0, limit), truncated: true };
  return { text, truncated: false };
}

function isJsonValue(v: unknown): boolean {
  return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
}

export function formatSize(chars: number): string {
  if (chars < 1024) return `${chars} characters`;
  if (chars < 1024 * 1024) return `${(chars / 1024).toFixed(1)} KB`;
  return `${(chars / 1024 / 1024).toFixed(1)} MB`;
}

/** A JSON Pointer (RFC 6901) segment: `~` → `~0`, `/` → `~1`. */
function pointerSegment(k: string | number): string {
  return '/' + String(k).replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * Visits every value inside `value` (itself first), depth-first in document order, as a loop with its
 * own stack (no recursion: 10,000 levels are fine). `pointer()` builds the visited value's JSON
 * Pointer on demand (it costs the depth). Returning `false` from `visit` stops the walk.
 */
export function walkJson(value: unknown, visit: (v: unknown, pointer: () => string) => boolean | void): void {
  type Frame = { obj: unknown[] | Record<string, unknown>; keys: string[] | null; i: number };
  const stack: Frame[] = [];
  const pointer = () => stack.map((f) => pointerSegment(f.keys ? f.keys[f.i - 1] : f.i - 1)).join('');
  const enter = (v: unknown): boolean => {
    if (visit(v, pointer) === false) return false;
    if (Array.isArray(v)) {
      if (v.length > 0) stack.push({ obj: v, keys: null, i: 0 });
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      if (keys.length > 0) stack.push({ obj: v as Record<string, unknown>, keys, i: 0 });
    }
    return true;
  };
  if (!enter(value)) return;
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const n = top.keys ? top.keys.length : (top.obj as unknown[]).length;
    if (top.i >= n) {
      stack.pop();
      continue;
    }
    const child = top.keys ? (top.obj as Record<string, unknown>)[top.keys[top.i]] : (top.obj as unknown[])[top.i];
    top.i++;
    if (!enter(child)) return;
  }
}
