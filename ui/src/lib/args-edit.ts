/**
 * Edit-then-approve: the operator's text read as arguments, what it changes against the call as
 * shown, and the server's refusal of it. Pure functions; `EditArgs.svelte` shows them live.
 */

/** The edited text, parsed: the value, or where and why it is not JSON (line and column 1-based). */
export type ParsedArgs =
  | { ok: true; value: unknown }
  | { ok: false; message: string; line: number | null; column: number | null };

/**
 * Parses `text` as JSON; on failure, says where. Browsers word the error differently and do not
 * always give a position (V8: `Unexpected token 'x', "…" is not valid JSON`), so the position is
 * found by `jsonErrorOffset`; the browser's message says what is wrong.
 */
export function parseArgs(text: string): ParsedArgs {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const at = jsonErrorOffset(text);
    if (at === null) return { ok: false, message, line: null, column: null };
    return { ok: false, message, ...lineColumn(text, at) };
  }
}

/**
 * The offset of the first character that makes `text` not JSON (its length when it ends too
 * early), or `null` when it is valid JSON. A state machine with its own stack, so any depth is fine.
 */
export function jsonErrorOffset(text: string): number | null {
  const n = text.length;
  const stack: ('{' | '[')[] = [];
  let i = 0;
  let state: 'value' | 'key' | 'after' = 'value';
  const skipWs = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  /** Moves past a string starting at `i`; false (with `i` on the fault) if it is not one. */
  const string = (): boolean => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const esc = text[i + 1];
        if (esc === 'u') {
          for (let k = 2; k < 6; k++) {
            if (!/[0-9a-fA-F]/.test(text[i + k] ?? '')) {
              i += k;
              return false;
            }
          }
          i += 6;
        } else if (esc !== undefined && '"\\/bfnrt'.includes(esc)) i += 2;
        else {
          i++;
          return false;
        }
      } else i++;
    }
    return false;
  };
  const digits = (): boolean => {
    const start = i;
    while (i < n && text[i] >= '0' && text[i] <= '9') i++;
    return i > start;
  };
  const number = (): boolean => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else if (!digits()) return false;
    if (text[i] === '.') {
      i++;
      if (!digits()) return false;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (!digits()) return false;
    }
    return true;
  };
  for (;;) {
    skipWs();
    if (state === 'value') {
      const c = text[i];
      if (c === '{' || c === '[') {
        stack.push(c);
        i++;
        skipWs();
        if (text[i] === (c === '{' ? '}' : ']')) {
          stack.pop();
          i++;
          state = 'after';
        } else state = c === '{' ? 'key' : 'value';
      } else if (c === '"') {
        if (!string()) return Math.min(i, n);
        state = 'after';
      } else if (c === '-' || (c >= '0' && c <= '9')) {
        if (!number()) return Math.min(i, n);
        state = 'after';
      } else {
        const word = ['true', 'false', 'null'].find((w) => text.startsWith(w, i));
        if (!word) return Math.min(i, n);
        i += word.length;
        state = 'after';
      }
    } else if (state === 'key') {
      if (text[i] !== '"' || !string()) return Math.min(i, n);
      skipWs();
      if (text[i] !== ':') return Math.min(i, n);
      i++;
      state = 'value';
    } else {
      const top = stack[stack.length - 1];
      if (!top) return i < n ? i : null;
      if (text[i] === ',') {
        i++;
        state = top === '{' ? 'key' : 'value';
      } else if (text[i] === (top === '{' ? '}' : ']')) {
        stack.pop();
        i++;
      } else return Math.min(i, n);
    }
  }
}

/** The 1-based line and column of the character at `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lastNl = before.lastIndexOf('\n');
  let line = 1;
  for (let i = before.indexOf('\n'); i !== -1; i = before.indexOf('\n', i + 1)) line++;
  return { line, column: before.length - lastNl };
}

/** One difference: at `pointer` (a JSON Pointer; `''` is the whole value) a value was added, removed or changed. */
export type ArgChange = { op: 'added' | 'removed' | 'changed'; pointer: string };

/**
 * What `after` changes against `before`, in document order: keys and array items added or removed,
 * and values changed (a value of another type counts as one change at its pointer, not as changes
 * inside it). At most `max` are listed; `count` says how many there are. A loop with its own stack:
 * arguments may be 10,000 levels deep.
 */
export function diffArgs(before: unknown, after: unknown, max = 50): { changes: ArgChange[]; count: number } {
  const changes: ArgChange[] = [];
  let count = 0;
  const note = (op: ArgChange['op'], pointer: string) => {
    count++;
    if (changes.length < max) changes.push({ op, pointer });
  };
  // Pairs to compare, the next on top; children are pushed in reverse so they pop in document order.
  // An entry with `only` is a key or item on one side only, noted when it is popped (keeping the order).
  type Task = { a: unknown; b: unknown; pointer: string; only?: 'added' | 'removed' };
  const stack: Task[] = [{ a: before, b: after, pointer: '' }];
  while (stack.length > 0) {
    const { a, b, pointer, only } = stack.pop()!;
    if (only) {
      note(only, pointer);
      continue;
    }
    const ka = shape(a);
    if (ka !== shape(b)) {
      note('changed', pointer);
      continue;
    }
    if (ka === 'array') {
      const x = a as unknown[];
      const y = b as unknown[];
      const tasks: Task[] = [];
      for (let i = 0; i < Math.max(x.length, y.length); i++) {
        const p = pointer + '/' + i;
        if (i >= y.length) tasks.push({ a: x[i], b: undefined, pointer: p, only: 'removed' });
        else if (i >= x.length) tasks.push({ a: undefined, b: y[i], pointer: p, only: 'added' });
        else tasks.push({ a: x[i], b: y[i], pointer: p });
      }
      for (let i = tasks.length - 1; i >= 0; i--) stack.push(tasks[i]);
    } else if (ka === 'object') {
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      const tasks: Task[] = [];
      for (const k of Object.keys(x)) {
        const p = pointer + pointerSegment(k);
        tasks.push(Object.hasOwn(y, k) ? { a: x[k], b: y[k], pointer: p } : { a: x[k], b: undefined, pointer: p, only: 'removed' });
      }
      for (const k of Object.keys(y)) {
        if (!Object.hasOwn(x, k)) tasks.push({ a: undefined, b: y[k], pointer: pointer + pointerSegment(k), only: 'added' });
      }
      for (let i = tasks.length - 1; i >= 0; i--) stack.push(tasks[i]);
    } else if (a !== b) {
      note('changed', pointer);
    }
  }
  return { changes, count };
}

function shape(v: unknown): 'array' | 'object' | 'scalar' {
  if (Array.isArray(v)) return 'array';
  return v !== null && typeof v === 'object' ? 'object' : 'scalar';
}

/** A JSON Pointer (RFC 6901) segment: `~` → `~0`, `/` → `~1`. */
function pointerSegment(k: string): string {
  return '/' + k.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** One reason the server gave for refusing the edited arguments (`invalid_arguments`). */
export type ArgumentError = { path: string; message: string };

/**
 * The `details.errors` of an `invalid_arguments` refusal (untrusted: entries that are not
 * `{path, message}` strings are skipped; a path may be empty, meaning the whole value).
 */
export function argumentErrors(details: unknown): ArgumentError[] {
  if (!details || typeof details !== 'object') return [];
  const errors = (details as { errors?: unknown }).errors;
  if (!Array.isArray(errors)) return [];
  const out: ArgumentError[] = [];
  for (const e of errors) {
    if (!e || typeof e !== 'object') continue;
    const { path, message } = e as { path?: unknown; message?: unknown };
    if (typeof message !== 'string') continue;
    out.push({ path: typeof path === 'string' ? path : '', message });
  }
  return out;
}
