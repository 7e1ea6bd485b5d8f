import { describe, expect, it } from 'vitest';
import { argumentErrors, diffArgs, jsonErrorOffset, lineColumn, parseArgs } from './args-edit';

describe('parseArgs', () => {
  it('parses valid JSON', () => {
    expect(parseArgs('{"id": "rec-9", "n": [1, 2.5, null]}')).toEqual({ ok: true, value: { id: 'rec-9', n: [1, 2.5, null] } });
  });

  it('places an error at its line and column', () => {
    const r = parseArgs('{\n  "id": x\n}');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect([r.line, r.column]).toEqual([2, 9]);
    expect(r.message).not.toBe('');
  });

  it('places a text that ends too early at its end', () => {
    expect(parseArgs('{"a": [1, 2')).toMatchObject({ ok: false, line: 1, column: 12 });
    expect(parseArgs('')).toMatchObject({ ok: false, line: 1, column: 1 });
  });

  it('places a trailing comma on the closing brace', () => {
    expect(parseArgs('{"a": 1,}')).toMatchObject({ ok: false, line: 1, column: 9 });
  });
});

describe('jsonErrorOffset', () => {
  it('agrees with JSON.parse on what is JSON', () => {
    const texts = [
      '{}', '[]', ' 1 ', '-0.5e+3', '"a\\u00e9\\n"', 'true', 'null', '{"a":{"b":[1,{"c":false}]}}',
      '{', '[1,]', '01', '1.', '-', '"a', '"\\x"', '"\\u12g4"', 'tru', '{"a" 1}', '{a:1}', '[1 2]', '{} {}', '"\u0001"', 'nul', '1e', '[', ']',
    ];
    for (const t of texts) {
      let valid = true;
      try {
        JSON.parse(t);
      } catch {
        valid = false;
      }
      expect(jsonErrorOffset(t) === null, t).toBe(valid);
    }
  });

  it('handles 10,000 levels without recursion', () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    expect(jsonErrorOffset(deep)).toBeNull();
    expect(jsonErrorOffset('['.repeat(10_000) + ']'.repeat(9_999) + '}')).toBe(19_999);
  });

  it('lineColumn counts lines and columns from 1', () => {
    expect(lineColumn('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
});

describe('diffArgs', () => {
  it('finds nothing between equal values', () => {
    expect(diffArgs({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] })).toEqual({ changes: [], count: 0 });
  });

  it('lists changed, added and removed keys and items as JSON Pointers in document order', () => {
    const before = { id: 'rec-1', opts: { force: false, keep: 1 }, tags: ['a', 'b', 'c'], gone: 1 };
    const after = { id: 'rec-9', opts: { force: true, 'a/b': 2 }, tags: ['a', 'B'], extra: null };
    expect(diffArgs(before, after).changes).toEqual([
      { op: 'changed', pointer: '/id' },
      { op: 'changed', pointer: '/opts/force' },
      { op: 'removed', pointer: '/opts/keep' },
      { op: 'added', pointer: '/opts/a~1b' },
      { op: 'changed', pointer: '/tags/1' },
      { op: 'removed', pointer: '/tags/2' },
      { op: 'removed', pointer: '/gone' },
      { op: 'added', pointer: '/extra' },
    ]);
  });

  it('counts a value of another type as one change at its pointer', () => {
    expect(diffArgs({ a: [1, 2] }, { a: { 0: 1 } }).changes).toEqual([{ op: 'changed', pointer: '/a' }]);
    expect(diffArgs({ a: 1 }, [1]).changes).toEqual([{ op: 'changed', pointer: '' }]);
    expect(diffArgs({ a: null }, { a: {} }).changes).toEqual([{ op: 'changed', pointer: '/a' }]);
  });

  it('lists at most max changes and counts them all', () => {
    const before = Array.from({ length: 100 }, (_, i) => i);
    const after = before.map((i) => i + 1);
    const d = diffArgs(before, after, 5);
    expect(d.count).toBe(100);
    expect(d.changes.map((c) => c.pointer)).toEqual(['/0', '/1', '/2', '/3', '/4']);
  });

  it('compares 10,000 levels without recursion', () => {
    let a: unknown = 1;
    let b: unknown = 2;
    for (let i = 0; i < 10_000; i++) {
      a = { x: a };
      b = { x: b };
    }
    expect(diffArgs(a, b).changes[0].pointer).toBe('/x'.repeat(10_000));
  });
});

describe('argumentErrors', () => {
  it('reads {path, message} entries and skips malformed ones', () => {
    const details = { errors: [{ path: '/id', message: 'must be a string' }, { message: 'whole value' }, { path: '/x' }, 'junk', null] };
    expect(argumentErrors(details)).toEqual([
      { path: '/id', message: 'must be a string' },
      { path: '', message: 'whole value' },
    ]);
    expect(argumentErrors(null)).toEqual([]);
    expect(argumentErrors({ errors: 'no' })).toEqual([]);
  });
});
