import { describe, expect, it } from 'vitest';
import { rawJson, visibleParts } from './json-text';

function deep(n: number): unknown {
  let root: Record<string, unknown> = {};
  const top = root;
  for (let i = 0; i < n; i++) {
    const next = {};
    root.a = next;
    root = next;
  }
  return top;
}

describe('rawJson', () => {
  it('matches JSON.stringify(value, null, 2) for ordinary values', () => {
    const values = [null, 1, 'x', true, [], {}, [1, [2, [3]], {}], { a: { b: [1, 'two', null, false], c: {} }, 'k"ey': 'v\n' }];
    for (const v of values) expect(rawJson(v)).toEqual({ text: JSON.stringify(v, null, 2), truncated: false });
  });

  it('survives 10,000 levels of nesting, where JSON.stringify overflows', () => {
    const v = deep(10_000);
    const r = rawJson(v);
    expect(r.truncated).toBe(true);
    expect(r.text.startsWith('{\n  "a": {\n    "a": {')).toBe(true);
  });

  it('cuts past the limit and says so', () => {
    const big = Array.from({ length: 50_000 }, (_, i) => `item-${i}`);
    const r = rawJson(big, 1000);
    expect(r.truncated).toBe(true);
    expect(r.text.length).toBe(1000);
    expect(JSON.stringify(big, null, 2).startsWith(r.text)).toBe(true);
  });
});

describe('visibleParts', () => {
  it('shows bidi overrides and control characters as escapes', () => {
    const parts = visibleParts('rm\u202e -rf\u0007');
    expect(parts).toEqual([
      { text: 'rm', escaped: false },
      { text: '\\u{202E}', escaped: true },
      { text: ' -rf', escaped: false },
      { text: '\\u{0007}', escaped: true },
    ]);
  });

  it('keeps ordinary text, newlines and tabs as they are', () => {
    expect(visibleParts('a\nb\tc <img>')).toEqual([{ text: 'a\nb\tc <img>', escaped: false }]);
  });
});
