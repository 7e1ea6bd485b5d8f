import { describe, expect, it } from 'vitest';
import { CanonicalizeError, canonicalJson, canonicalJsonCut } from './canonical';

/** The double whose IEEE 754 bits are `hex` (how RFC 8785 Appendix B lists its examples). */
function double(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt('0x' + hex));
  return view.getFloat64(0);
}

function deepObject(n: number): unknown {
  let v: unknown = {};
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
}

describe('canonicalJson (RFC 8785)', () => {
  it('serializes numbers as RFC 8785 Appendix B says', () => {
    const vectors: [string, string][] = [
      ['0000000000000000', '0'],
      ['8000000000000000', '0'], // -0
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ];
    for (const [bits, text] of vectors) expect([bits, canonicalJson(double(bits))]).toEqual([bits, text]);
    expect(canonicalJson([1e21, 1e-7, -0, 0.000001, 1.0, 4.5, 2e-3])).toBe('[1e+21,1e-7,0,0.000001,1,4.5,0.002]');
  });

  it('refuses NaN, infinities and values JSON cannot hold', () => {
    for (const bad of [NaN, Infinity, -Infinity, undefined, () => 1, Symbol('s'), 1n, { a: undefined }, [undefined]]) {
      expect(() => canonicalJson(bad)).toThrow(CanonicalizeError);
    }
  });

  it('matches the RFC 8785 §3.2.2 example: whitespace gone, numbers and strings normalized', () => {
    const input = JSON.parse(String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`);
    expect(canonicalJson(input)).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it('sorts keys by UTF-16 code units, as in RFC 8785 §3.2.3 (the surrogates of an emoji sort before U+FB33)', () => {
    const input = JSON.parse(String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }`);
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","\u{1f600}":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('does not depend on key order or number spelling, but on values', () => {
    const a = JSON.parse('{"id":"rec-1","n":1.0,"o":{"b":1,"a":2}}');
    const b = JSON.parse('{"o":{"a":2,"b":1},"n":1,"id":"rec-1"}');
    expect(canonicalJson(a)).toBe('{"id":"rec-1","n":1,"o":{"a":2,"b":1}}');
    expect(canonicalJson(b)).toBe(canonicalJson(a));
    expect(canonicalJson({ ...a, x: null })).not.toBe(canonicalJson(a));
  });

  it('escapes strings as JSON.stringify does and keeps other characters as they are', () => {
    expect(canonicalJson('\u0000\b\t\n\f\r\u001f"\\/\u007f\u202e\u{1f600}')).toBe('"\\u0000\\b\\t\\n\\f\\r\\u001f\\"\\\\/\u007f\u202e\u{1f600}"');
  });

  it('handles 10,000 levels of nesting, where JSON.stringify overflows', () => {
    const n = 10_000;
    expect(canonicalJson(deepObject(n))).toBe('{"a":'.repeat(n) + '{}' + '}'.repeat(n));
    let arr: unknown = [];
    for (let i = 0; i < n; i++) arr = [arr, i];
    const text = canonicalJson(arr);
    expect(text.startsWith('[[[')).toBe(true);
    expect(text.endsWith(',9999]')).toBe(true);
  });

  it('refuses a cycle instead of looping', () => {
    const a: Record<string, unknown> = { b: [1] };
    (a.b as unknown[]).push(a);
    expect(() => canonicalJson(a)).toThrow(CanonicalizeError);
    // The same object twice, not nested in itself, is fine.
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it('cuts at a limit and says so, with a prefix of the full text', () => {
    const big = { list: Array.from({ length: 10_000 }, (_, i) => ({ i, s: `item-${i}` })) };
    const full = canonicalJson(big);
    const cut = canonicalJsonCut(big, 1000);
    expect(cut.truncated).toBe(true);
    expect(cut.text.length).toBe(1000);
    expect(full.startsWith(cut.text)).toBe(true);
    expect(canonicalJsonCut({ a: 1 }, 7)).toEqual({ text: '{"a":1}', truncated: false });
    expect(canonicalJsonCut('x', 3)).toEqual({ text: '"x"', truncated: false });
    expect(canonicalJsonCut(deepObject(10_000), 50)).toEqual({ text: '{"a":'.repeat(10), truncated: true });
  });
});
