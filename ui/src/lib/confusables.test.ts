import { describe, expect, it } from 'vitest';
import { countMarks, flagsIn, markedParts } from './confusables';

const marks = (s: string) => markedParts(s).filter((p) => p.kind !== 'plain');

describe('markedParts', () => {
  it('marks Cyrillic letters inside an otherwise Latin word, naming them', () => {
    expect(marks('\u0440\u0430ypal.com')).toEqual([
      { kind: 'lookalike', text: '\u0440', title: "U+0440 CYRILLIC SMALL LETTER ER looks like 'p'" },
      { kind: 'lookalike', text: '\u0430', title: "U+0430 CYRILLIC SMALL LETTER A looks like 'a'" },
    ]);
    // Greek omicron in a Latin word, and Cyrillic capitals.
    expect(marks('g\u03bfogle')[0].title).toBe("U+03BF GREEK SMALL LETTER OMICRON looks like 'o'");
    expect(marks('\u0421\u041eNFIG').map((p) => p.text)).toEqual(['\u0421', '\u041e']);
  });

  it('leaves ordinary Russian, Greek and mixed-language text alone', () => {
    expect(marks('Привет, мир! Оплата через PayPal, 100 ₽')).toEqual([]);
    expect(marks('Καλημέρα κόσμε')).toEqual([]);
    expect(marks('naïve café – 2019–2020')).toEqual([]);
  });

  it('marks a word made only of look-alike letters when nothing else in the string is in that script', () => {
    // "рау" is Cyrillic р, а, у: it reads as "pay".
    expect(marks('please \u0440\u0430\u0443 now').length).toBe(3);
    expect(marks('\u0440\u0430\u0443').length).toBe(3);
  });

  it('marks fullwidth, mathematical and other ASCII look-alikes anywhere', () => {
    expect(marks('\uff52\uff4d -rf /').map((p) => p.title)).toEqual([
      "U+FF52 FULLWIDTH LATIN SMALL LETTER R looks like 'r'",
      "U+FF4D FULLWIDTH LATIN SMALL LETTER M looks like 'm'",
    ]);
    expect(marks('\u{1d42b}m -rf /')).toEqual([
      { kind: 'lookalike', text: '\u{1d42b}', title: "U+1D42B MATHEMATICAL BOLD SMALL R looks like 'r'" },
    ]);
    expect(marks('\u{1d7ce}')[0].title).toBe("U+1D7CE MATHEMATICAL BOLD DIGIT ZERO looks like '0'");
    expect(marks('\u{1d7f6}')[0].title).toBe("U+1D7F6 MATHEMATICAL MONOSPACE DIGIT ZERO looks like '0'");
    expect(marks('\u{1d68a}')[0].title).toBe("U+1D68A MATHEMATICAL MONOSPACE SMALL A looks like 'a'");
    expect(marks('rm -rf \u2215etc').map((p) => p.title)).toEqual(["U+2215 DIVISION SLASH looks like '/'"]);
    expect(marks('rm \u2212rf').map((p) => p.title)).toEqual(["U+2212 MINUS SIGN looks like '-'"]);
    expect(marks('rm\u2009-rf').map((p) => p.title)).toEqual(['U+2009 THIN SPACE looks like a space']);
    expect(marks('\uff08x\uff09')[0].title).toBe("U+FF08 FULLWIDTH LEFT PARENTHESIS looks like '('");
    expect(marks('\u2170')[0].title).toBe("U+2170 SMALL ROMAN NUMERAL ONE looks like 'i'");
  });

  it('accepts fullwidth punctuation and the ideographic space in Chinese or Japanese text, not fullwidth letters', () => {
    expect(marks('你好，世界！\u3000再见')).toEqual([]);
    expect(marks('你好，\uff52\uff4d').length).toBe(2);
    expect(marks('hello\uff0c world').length).toBe(1);
  });

  it('shows hidden characters as escapes named in their title', () => {
    expect(markedParts('rm\u202e -rf\u0007\u{e0041}')).toEqual([
      { kind: 'plain', text: 'rm' },
      { kind: 'hidden', text: '\\u{202E}', title: 'U+202E RIGHT-TO-LEFT OVERRIDE (invisible)' },
      { kind: 'plain', text: ' -rf' },
      { kind: 'hidden', text: '\\u{0007}', title: 'U+0007 control character (invisible)' },
      { kind: 'hidden', text: '\\u{E0041}', title: 'U+E0041 TAG character (invisible)' },
    ]);
    // Tag characters can smuggle invisible instructions to a model.
    expect(markedParts('ok\u{e0069}').map((p) => p.text)).toEqual(['ok', '\\u{E0069}']);
    // A zero-width space does not split a word into harmless halves.
    expect(marks('p\u200b\u0430ypal').map((p) => p.kind)).toEqual(['hidden', 'lookalike']);
  });

  it('marks a slice with the context of the whole string', () => {
    const s = 'xxxx\u0430ypal' + '\u0430'.repeat(10);
    // The word is mixed-script even though the slice holds only Cyrillic а.
    expect(markedParts(s, 4, 5)).toEqual([{ kind: 'lookalike', text: '\u0430', title: "U+0430 CYRILLIC SMALL LETTER A looks like 'a'" }]);
    expect(markedParts('plain text', 2, 6)).toEqual([{ kind: 'plain', text: 'ain ' }]);
    expect(countMarks(s, 9)).toEqual({ hidden: 0, lookalike: 10 });
  });

  it('keeps ordinary text, newlines and tabs as they are', () => {
    expect(markedParts('a\nb\tc <img>')).toEqual([{ kind: 'plain', text: 'a\nb\tc <img>' }]);
    expect(markedParts('')).toEqual([{ kind: 'plain', text: '' }]);
  });
});

describe('flagsIn', () => {
  it('counts hidden and look-alike characters in strings and keys, with where each first occurs', () => {
    const flags = flagsIn({ 'us\u202eer': { cmd: '\uff52\uff4d -rf /', again: '\uff52' }, list: ['ok', 'p\u0430y\u200b'] });
    expect(flags.hidden).toBe(2);
    expect(flags.lookalike).toBe(4);
    expect(flags.findings).toEqual([
      { kind: 'hidden', title: 'U+202E RIGHT-TO-LEFT OVERRIDE (invisible)', count: 1, pointer: '/us\u202eer', inKey: true },
      { kind: 'lookalike', title: "U+FF52 FULLWIDTH LATIN SMALL LETTER R looks like 'r'", count: 2, pointer: '/us\u202eer/cmd', inKey: false },
      { kind: 'lookalike', title: "U+FF4D FULLWIDTH LATIN SMALL LETTER M looks like 'm'", count: 1, pointer: '/us\u202eer/cmd', inKey: false },
      { kind: 'lookalike', title: "U+0430 CYRILLIC SMALL LETTER A looks like 'a'", count: 1, pointer: '/list/1', inKey: false },
      { kind: 'hidden', title: 'U+200B ZERO WIDTH SPACE (invisible)', count: 1, pointer: '/list/1', inKey: false },
    ]);
    expect(flags.moreFindings).toBe(false);
    expect(flagsIn({ a: 1, b: [true, null, 'plain'] })).toEqual({ hidden: 0, lookalike: 0, findings: [], moreFindings: false });
  });

  it('keeps a bounded list of distinct characters', () => {
    const flags = flagsIn(Array.from({ length: 30 }, (_, i) => String.fromCharCode(0xff21 + i % 26)), 5);
    expect(flags.lookalike).toBe(30);
    expect(flags.findings.length).toBe(5);
    expect(flags.moreFindings).toBe(true);
  });

  it('scans a 1 MB string quickly, whatever it holds', () => {
    const mb = 1 << 20;
    const cases: [string, number, number][] = [
      ['a'.repeat(mb), 0, 0],
      ['a'.repeat(mb) + '\u0430' + '\u202e', 1, 1], // one huge mixed-script word
      ['\u0430'.repeat(mb), mb, 0], // only look-alike letters
      ['p\u0430ypal\u200b '.repeat(mb / 8), mb / 8, mb / 8],
      ['\u202e'.repeat(mb), 0, mb],
    ];
    for (const [s, lookalike, hidden] of cases) {
      const started = performance.now();
      const flags = flagsIn({ s });
      expect([flags.lookalike, flags.hidden]).toEqual([lookalike, hidden]);
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });

  it('walks 10,000 levels of nesting without overflowing, and points at the deepest finding', () => {
    const n = 10_000;
    let v: unknown = { 'le\u200baf': 'x' };
    for (let i = 0; i < n; i++) v = { a: v };
    const flags = flagsIn(v);
    expect(flags.hidden).toBe(1);
    expect(flags.findings[0].pointer).toBe('/a'.repeat(n) + '/le\u200baf');
    expect(flags.findings[0].inKey).toBe(true);
  });
});
