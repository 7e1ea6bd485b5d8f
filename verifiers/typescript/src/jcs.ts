// RFC 8785 JSON Canonicalization Scheme (JCS).
//
// - Object members are sorted by their names compared as arrays of UTF-16 code units (which is
//   what JavaScript's default string ordering does).
// - Numbers are serialized as ECMAScript's Number.prototype.toString does (RFC 8785 §3.2.2.3 is
//   defined as exactly that), so JSON.stringify of a finite number is already canonical; -0 → "0".
// - Strings are escaped as JSON.stringify does (RFC 8785 §3.2.2.2: \b \t \n \f \r \" \\ as short
//   escapes, other control characters as \u00xx in lower case, everything else as is).
//
// Input that is not I-JSON is refused with a TypeError: non-finite numbers, strings with lone
// surrogates, bigint, functions, symbols, `undefined` (except as an object member's value, which is
// left out, as JSON.stringify does) and objects that are not plain objects or arrays.

/** The RFC 8785 canonical JSON text of `value`. Throws a TypeError on values JSON cannot carry. */
export function canonicalize(value: unknown): string {
  const out: string[] = [];
  write(value, out, new Set<object>());
  return out.join("");
}

function write(value: unknown, out: string[], seen: Set<object>): void {
  if (value === null) {
    out.push("null");
    return;
  }
  switch (typeof value) {
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`JCS: ${value} is not a JSON number`);
      out.push(JSON.stringify(value));
      return;
    case "string":
      out.push(quote(value));
      return;
    case "object":
      break;
    default:
      throw new TypeError(`JCS: a ${typeof value} is not JSON`);
  }
  const obj = value as object;
  if (seen.has(obj)) throw new TypeError("JCS: circular structure");
  seen.add(obj);
  if (Array.isArray(obj)) {
    out.push("[");
    obj.forEach((item: unknown, i: number) => {
      if (i > 0) out.push(",");
      if (item === undefined) throw new TypeError("JCS: undefined in an array");
      write(item, out, seen);
    });
    out.push("]");
  } else {
    const proto: unknown = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError("JCS: only plain objects and arrays are JSON");
    }
    const record = obj as Record<string, unknown>;
    const names = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort(compareCodeUnits);
    out.push("{");
    names.forEach((name, i) => {
      if (i > 0) out.push(",");
      out.push(quote(name), ":");
      write(record[name], out, seen);
    });
    out.push("}");
  }
  seen.delete(obj);
}

function quote(s: string): string {
  if (!isWellFormed(s)) throw new TypeError("JCS: string with a lone surrogate");
  return JSON.stringify(s);
}

/** Ordering by UTF-16 code units, spelled out rather than left to a locale-free default. */
export function compareCodeUnits(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

function isWellFormed(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return false;
    }
  }
  return true;
}
