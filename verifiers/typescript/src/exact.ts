// Exact fingerprints: the numbers a call's fingerprint binds to their value alone (docs/receipts.md).
//
// RFC 8785 writes every number as the IEEE double it denotes, so 2^60 + 1 has the fingerprint of
// 2^60, and the text 0.10000000000000001 that of 0.1: a receipt for one would hold for the other.
// The console refuses such numbers, and so does this verifier, with `ambiguous_arguments`:
//
// - a JavaScript number is a double already: every finite one is exact (2 ** 60 too; JSON.parse has
//   already rounded whatever text it came from, so nothing more can be judged on it);
// - a bigint is exact iff a double holds it (2n ** 60n is, 2n ** 60n + 1n is not);
// - read from JSON text (`parseExact`), a literal whose value is an integer (`1.5e3`) is exact iff a
//   double holds that integer; any other iff it is written as its double's shortest form, the one
//   `String(number)` gives (`0.1`, not `0.10000000000000001`); one out of the doubles' range
//   (`1e400`) never. Such a literal reads as an `InexactNumber`. The text of each number comes from
//   JSON.parse itself (its reviver's `context.source`, Node 22.18 and later).

/** A number of JSON text that no fingerprint binds, kept as written. */
export class InexactNumber {
  readonly literal: string;
  constructor(literal: string) {
    this.literal = literal;
  }
}

/** A JSON number's exact value: sign, digits without leading or trailing zeros, power of ten. */
interface Decimal {
  negative: boolean;
  digits: string;
  exponent: bigint;
}

function decimalOf(text: string): Decimal | undefined {
  const m = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return undefined;
  const [, sign, int, frac = "", exp = "0"] = m as unknown as [string, string, string, string | undefined, string | undefined];
  const all = (int + frac).replace(/^0+/, "");
  const digits = all.replace(/0+$/, "");
  if (digits === "") return { negative: false, digits: "", exponent: 0n };
  const exponent = BigInt(exp) - BigInt(frac.length) + BigInt(all.length - digits.length);
  return { negative: sign === "-", digits, exponent };
}

const same = (a: Decimal, b: Decimal): boolean => a.negative === b.negative && a.digits === b.digits && a.exponent === b.exponent;

/** Whether the JSON number `text` is one its fingerprint binds to its value (the rule above). */
export function exactLiteral(text: string): boolean {
  const written = decimalOf(text);
  if (!written) return false;
  const number = Number(text);
  if (!Number.isFinite(number)) return false;
  const integer = written.digits === "" || written.exponent >= 0n;
  // BigInt(number): an integer double's exact digits; String(number): a double's shortest form.
  const canonical = decimalOf(integer ? BigInt(number).toString() : String(number));
  return canonical !== undefined && same(canonical, written);
}

/**
 * JSON text as JSON.parse reads it, except each number no fingerprint binds, which reads as an
 * `InexactNumber`: `verifyReceipt` refuses such arguments (`ambiguous_arguments`). Throws a
 * SyntaxError on text that is not JSON, and an Error on a runtime whose JSON.parse gives no
 * number's text.
 */
export function parseExact(text: string): unknown {
  return JSON.parse(text, (_key: string, value: unknown, context?: { source?: string }) => {
    if (typeof value !== "number") return value;
    if (context?.source === undefined) throw new Error("this runtime's JSON.parse does not give a number's text: Node 22.18 or later is needed");
    return exactLiteral(context.source) ? value : new InexactNumber(context.source);
  });
}

const escape = (name: string): string => name.replace(/~/g, "~0").replace(/\//g, "~1");

/** JSON Pointers to the numbers in `value` that no fingerprint binds: `InexactNumber`s, and bigints a double does not hold. */
export function inexactPaths(value: unknown, at = ""): string[] {
  if (value instanceof InexactNumber) return [at];
  if (typeof value === "bigint") {
    const number = Number(value);
    return Number.isFinite(number) && BigInt(number) === value ? [] : [at];
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => inexactPaths(item, `${at}/${i}`));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([name, item]) => inexactPaths(item, `${at}/${escape(name)}`));
  }
  return [];
}
