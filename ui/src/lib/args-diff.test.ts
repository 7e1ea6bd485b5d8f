// Edit-then-approve's diff: the arguments as shown against as edited, pretty-printed with sorted
// keys, as unified-diff lines with 3 lines of context.
import { describe, expect, it } from 'vitest';
import { argsDiff, diffText, MAX_EDIT } from './args-diff';

/** The lines as a unified diff would print them. */
const printed = (d: ReturnType<typeof argsDiff>) => d.lines.map((l) => l.text);
const kinds = (d: ReturnType<typeof argsDiff>) => d.lines.map((l) => l.kind);

describe('diffText', () => {
  it('pretty-prints with 2 spaces and the keys of every object sorted', () => {
    expect(diffText({ b: 1, a: { d: [true, null], c: 'x' } })).toBe(
      '{\n  "a": {\n    "c": "x",\n    "d": [\n      true,\n      null\n    ]\n  },\n  "b": 1\n}\n',
    );
  });
});

describe('argsDiff', () => {
  it('gives no lines for identical arguments', () => {
    expect(argsDiff({ id: 'rec-1', n: [1, 2] }, { id: 'rec-1', n: [1, 2] })).toEqual({ lines: [], added: 0, removed: 0, tooLarge: false });
  });

  it('ignores the order of keys, at any depth', () => {
    const d = argsDiff({ a: 1, b: { x: 1, y: 2 }, c: 3 }, { c: 3, b: { y: 2, x: 1 }, a: 1 });
    expect(d.lines).toEqual([]);
    expect([d.added, d.removed]).toEqual([0, 0]);
  });

  it('shows a changed value as a removed and an added line, with 3 lines of context either side', () => {
    const before = { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9 };
    const d = argsDiff(before, { ...before, e: 50 });
    expect(printed(d)).toEqual(['@@ -3,7 +3,7 @@', '   "b": 2,', '   "c": 3,', '   "d": 4,', '-  "e": 5,', '+  "e": 50,', '   "f": 6,', '   "g": 7,', '   "h": 8,']);
    expect(kinds(d)).toEqual(['hunk', 'context', 'context', 'context', 'removed', 'added', 'context', 'context', 'context']);
    expect([d.added, d.removed]).toEqual([1, 1]);
    expect(d.tooLarge).toBe(false);
  });

  it('diffs nested objects and arrays, keys sorted inside them too', () => {
    const d = argsDiff({ opts: { force: false, dry: true }, id: 'rec-1' }, { id: 'rec-9', opts: { dry: true, force: true, tags: ['a'] } });
    expect(printed(d)).toEqual([
      '@@ -1,7 +1,10 @@',
      ' {',
      '-  "id": "rec-1",',
      '+  "id": "rec-9",',
      '   "opts": {',
      '     "dry": true,',
      '-    "force": false',
      '+    "force": true,',
      '+    "tags": [',
      '+      "a"',
      '+    ]',
      '   }',
      ' }',
    ]);
    expect([d.added, d.removed]).toEqual([5, 2]);
  });

  it('splits changes far apart into separate hunks', () => {
    const before = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${String(i).padStart(2, '0')}`, i]));
    const d = argsDiff(before, { ...before, k01: -1, k18: -18 }); // lines 3 and 20 of 22
    expect(d.lines.filter((l) => l.kind === 'hunk').map((l) => l.text)).toEqual(['@@ -1,6 +1,6 @@', '@@ -17,6 +17,6 @@']);
    expect([d.added, d.removed]).toEqual([2, 2]);
  });

  it('diffs a whole value that is not an object', () => {
    expect(printed(argsDiff('a', 'b'))).toEqual(['@@ -1,1 +1,1 @@', '-"a"', '+"b"']);
  });

  it('keeps the characters of the values as they are (marking them is for the view)', () => {
    const d = argsDiff({ cmd: 'ls' }, { cmd: 'ls\u202E<b>x</b>' });
    expect(d.lines.find((l) => l.kind === 'added')!.text).toBe('+  "cmd": "ls\u202E<b>x</b>"');
  });

  it('gives up, saying so, past the number of changed lines it diffs', () => {
    const n = MAX_EDIT; // every line changed: 2 × MAX_EDIT edits
    const before = Array.from({ length: n }, (_, i) => `a${i}`);
    const after = Array.from({ length: n }, (_, i) => `b${i}`);
    expect(argsDiff(before, after)).toEqual({ lines: [], added: 0, removed: 0, tooLarge: true });
  });
});
