/**
 * The marks of `confusables.ts` against `lookalike-corpus.json`, the fixture the Rust port
 * (`src/domain/lookalike.rs`) is checked against too: both languages mark the same characters.
 *
 * The expected marks were made by this implementation and reviewed by eye. After adding a case
 * (a note and a text, `marks: []`), write them again and review the diff:
 *
 *     WRITE_LOOKALIKE_CORPUS=1 npx vitest run src/lib/lookalike-corpus.test.ts
 */
import { writeFileSync } from 'node:fs';
import { env } from 'node:process';
import { describe, expect, it } from 'vitest';
import { markedParts, type MarkKind } from './confusables';
import corpus from './lookalike-corpus.json';

type Mark = { index: number; kind: MarkKind };

/** The marks of `s`, each at its index in code points (the fixture's unit, and Rust's). */
function marksOf(s: string): Mark[] {
  const marks: Mark[] = [];
  let utf16 = 0;
  let codePoints = 0;
  for (const part of markedParts(s)) {
    // A hidden character's part is its escape: the character itself is one code point.
    const original = part.kind === 'hidden' ? String.fromCodePoint(s.codePointAt(utf16)!) : part.text;
    if (part.kind !== 'plain') marks.push({ index: codePoints, kind: part.kind });
    utf16 += original.length;
    codePoints += [...original].length;
  }
  return marks;
}

/** JSON with every character outside printable ASCII escaped, so hidden ones can be read in the file. */
function asciiJson(v: unknown): string {
  return JSON.stringify(v).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

describe('lookalike-corpus.json', () => {
  if (env.WRITE_LOOKALIKE_CORPUS === '1') {
    it('is written from this implementation', () => {
      const cases = corpus.cases.map((c) => `    ${asciiJson({ note: c.note, text: c.text, marks: marksOf(c.text) })}`);
      const text = `{\n  "about": ${asciiJson(corpus.about)},\n  "cases": [\n${cases.join(',\n')}\n  ]\n}\n`;
      // Relative to ui/, where vitest runs.
      writeFileSync('src/lib/lookalike-corpus.json', text);
    });
    return;
  }

  it.each(corpus.cases.map((c) => [c.note, c] as const))('%s', (_note, c) => {
    expect(marksOf(c.text)).toEqual(c.marks);
  });

  it('covers each kind of mark, and a case without any', () => {
    const kinds = new Set(corpus.cases.flatMap((c) => c.marks.map((m) => m.kind)));
    expect([...kinds].sort()).toEqual(['hidden', 'lookalike']);
    expect(corpus.cases.some((c) => c.text === '')).toBe(true);
    expect(corpus.cases.filter((c) => c.marks.length === 0).length).toBeGreaterThan(5);
  });
});
