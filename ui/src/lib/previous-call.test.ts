import { describe, expect, it } from 'vitest';
import { changesSince, valueAt, VALUE_PREVIEW } from './previous-call';

describe('previous call', () => {
  it('finds values by JSON Pointer, escapes included, and nothing on a missing path', () => {
    const doc = { a: { 'b/c': [10, { '~x': true }] }, '': 'empty key' };
    expect(valueAt(doc, '')).toBe(doc);
    expect(valueAt(doc, '/a/b~1c/0')).toBe(10);
    expect(valueAt(doc, '/a/b~1c/1/~0x')).toBe(true);
    expect(valueAt(doc, '/')).toBe('empty key');
    expect(valueAt(doc, '/a/b~1c/01')).toBeUndefined();
    expect(valueAt(doc, '/a/missing/x')).toBeUndefined();
    expect(valueAt(doc, '/a/b~1c/9')).toBeUndefined();
    expect(valueAt({ toString: 1 }, '/constructor')).toBeUndefined();
  });

  it('lists what changed with the values before and after, as canonical JSON cut short', () => {
    const before = { id: 'rec-1', opts: { cascade: false, tags: ['a'] }, note: 'x' };
    const after = { id: 'rec-2', opts: { cascade: true, tags: ['a', 'b'] }, big: 'y'.repeat(1000) };
    const { changes, count } = changesSince(before, after);
    expect(count).toBe(5);
    expect(changes.map((c) => [c.op, c.pointer, c.before?.text ?? null, c.after?.text.slice(0, 12) ?? null])).toEqual([
      ['changed', '/id', '"rec-1"', '"rec-2"'],
      ['changed', '/opts/cascade', 'false', 'true'],
      ['added', '/opts/tags/1', null, '"b"'],
      ['removed', '/note', '"x"', null],
      ['added', '/big', null, '"yyyyyyyyyyy'],
    ]);
    const big = changes[4].after!;
    expect(big.truncated).toBe(true);
    expect(big.text.length).toBeLessThanOrEqual(VALUE_PREVIEW + 1);
  });

  it('finds no change between equal arguments, whatever their key order', () => {
    expect(changesSince({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }).count).toBe(0);
  });

  it('counts past the listed maximum', () => {
    const before = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));
    const after = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i + 1]));
    const { changes, count } = changesSince(before, after, 20);
    expect([changes.length, count]).toEqual([20, 30]);
  });
});
