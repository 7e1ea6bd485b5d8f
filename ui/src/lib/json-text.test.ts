import { describe, expect, it } from 'vitest';
import { rawJson, walkJson } from './json-text';

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

describe('walkJson', () => {
  it('visits every value in document order with its JSON Pointer', () => {
    const seen: [unknown, string][] = [];
    walkJson({ a: [1, { 'b/c': 'x' }], 'd~': null }, (v, pointer) => {
      if (v === null || typeof v !== 'object') seen.push([v, pointer()]);
    });
    expect(seen).toEqual([
      [1, '/a/0'],
      ['x', '/a/1/b~1c'],
      [null, '/d~0'],
    ]);
  });

  it('walks 10,000 levels without recursion and stops when told', () => {
    let visits = 0;
    walkJson(deep(10_000), () => void visits++);
    expect(visits).toBe(10_001);
    let stoppedAt = 0;
    walkJson(deep(10_000), () => ++stoppedAt < 5);
    expect(stoppedAt).toBe(5);
  });
});
