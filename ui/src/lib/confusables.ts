/**
 * Characters an operator could misread in untrusted text: hidden ones (see `HIDDEN_CHARS`) and
 * look-alikes of ASCII (Cyrillic `а` in `pаypal`, fullwidth `ｒｍ`, mathematical `𝐫𝐦`, a division
 * slash for `/`). Each one found is a *mark*; components show marks highlighted with a title naming
 * the character, and `flagsIn` counts them over a whole value so a folded tree still warns.
 *
 * The look-alike table is a small hand-picked set of the most common Latin look-alikes, not Unicode's
 * full confusables.txt (thousands of entries, mostly rare scripts); it aims at the tricks seen in
 * practice, and says nothing about a string it does not flag.
 */
import { i18n, type Language } from './i18n/index.svelte';
import { HIDDEN_CHARS, codePoint, codeRange, escapeHidden, walkJson } from './json-text';
import table from './lookalikes.json';

export type MarkKind = 'hidden' | 'lookalike';

/** A piece of a string as shown: plain text, a hidden character's escape, or a look-alike as itself. */
export type MarkedPart = { kind: 'plain' | MarkKind; text: string; title?: string };

type LookAlike = { name: string; looksLike: string };

const byCodePoint = <T>(t: Record<string, T>): Record<number, T> => Object.fromEntries(Object.entries(t).map(([k, v]) => [codePoint(k), v]));

// The tables (what each holds and how it is used: lookalikes.json, read by the Rust core too).
// Script letters are only flagged in context (see `scan`): in Russian or Greek text they are
// ordinary letters. `ALWAYS` ones are flagged wherever they appear, but those of `NOT_IN_CJK`.
const SCRIPT_LETTERS = byCodePoint(table.scriptLetters as Record<string, string[]>);
const ALWAYS = byCodePoint(table.always as Record<string, string[]>);
const NOT_IN_CJK = new Set(table.notInCjk.map(codePoint));
const HIDDEN_NAMES = byCodePoint(table.hiddenNames as Record<string, string>);
const [FULLWIDTH_FIRST, FULLWIDTH_LAST] = codeRange(table.fullwidthAscii);
const NFKC_TO_ASCII = table.nfkcToAscii.map(codeRange);
const { roman: ROMAN, digits: DIGITS, asciiPunctuation: ASCII_PUNCT, mathLetterStyles: MATH_LETTER_STYLES, mathDigitStyles: MATH_DIGIT_STYLES } = table.names as {
  roman: string[];
  digits: string[];
  asciiPunctuation: Record<string, string>;
  mathLetterStyles: string[];
  mathDigitStyles: string[];
};

function asciiName(c: string): string {
  if (c >= 'A' && c <= 'Z') return `LATIN CAPITAL LETTER ${c}`;
  if (c >= 'a' && c <= 'z') return `LATIN SMALL LETTER ${c.toUpperCase()}`;
  if (c >= '0' && c <= '9') return `DIGIT ${DIGITS[+c]}`;
  return ASCII_PUNCT[c] ?? c;
}

const inRange = (cp: number, [from, to]: [number, number]) => cp >= from && cp <= to;

// Compatibility forms of ASCII: the fullwidth ones, and those NFKC maps to the character they imitate.
function compatLookalike(cp: number): LookAlike | null {
  if (cp >= FULLWIDTH_FIRST && cp <= FULLWIDTH_LAST) {
    const c = String.fromCharCode(cp - FULLWIDTH_FIRST + 0x21);
    return { name: `FULLWIDTH ${asciiName(c)}`, looksLike: c };
  }
  if (!NFKC_TO_ASCII.some((r) => inRange(cp, r))) return null;
  const looksLike = String.fromCodePoint(cp).normalize('NFKC');
  if (!/^[!-~]+$/.test(looksLike)) return null; // e.g. mathematical Greek: not an ASCII look-alike
  return { name: compatName(cp), looksLike };
}

/** The Unicode name of a Roman numeral or a mathematical alphanumeric symbol. */
function compatName(cp: number): string {
  if (cp >= 0x2160 && cp <= 0x217f) return `${cp >= 0x2170 ? 'SMALL ' : ''}ROMAN NUMERAL ${ROMAN[(cp - 0x2160) % 16]}`;
  if (cp >= 0x1d400 && cp <= 0x1d6a3) {
    const r = (cp - 0x1d400) % 52;
    return `MATHEMATICAL ${MATH_LETTER_STYLES[Math.floor((cp - 0x1d400) / 52)]} ${r < 26 ? 'CAPITAL' : 'SMALL'} ${String.fromCharCode(65 + (r % 26))}`;
  }
  if (cp >= 0x1d7ce && cp <= 0x1d7ff) return `MATHEMATICAL ${MATH_DIGIT_STYLES[Math.floor((cp - 0x1d7ce) / 10)]} DIGIT ${DIGITS[(cp - 0x1d7ce) % 10]}`;
  return 'MATHEMATICAL ALPHANUMERIC SYMBOL';
}

/** `U+0430`. */
function codePointLabel(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A hidden character's Unicode name, or the kind of character it is when it has none here. */
function hiddenName(cp: number): string | 'controlCharacter' | 'tagCharacter' | 'formatCharacter' {
  if (cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f)) return 'controlCharacter';
  if (cp >= 0xe0000 && cp <= 0xe007f) return 'tagCharacter';
  if (cp >= 0xe0100) return `VARIATION SELECTOR-${cp - 0xe0100 + 17}`;
  return HIDDEN_NAMES[cp] ?? 'formatCharacter';
}

/**
 * The title shown for a mark, in the console's language (made once per language):
 * `U+202E RIGHT-TO-LEFT OVERRIDE (invisible)`, `U+0430 CYRILLIC SMALL LETTER A looks like 'a'`.
 */
function titleOf(c: Class): string {
  const language = i18n.language;
  const made = c.titles[language];
  if (made !== undefined) return made;
  const m = i18n.m.args;
  const code = codePointLabel(c.cp);
  let title: string;
  if (c.kind === 'hidden') {
    const name = c.name === 'controlCharacter' || c.name === 'tagCharacter' || c.name === 'formatCharacter' ? m[c.name] : c.name;
    title = m.hiddenTitle(code, name);
  } else title = c.looksLike === ' ' ? m.lookalikeSpaceTitle(code, c.name) : m.lookalikeTitle(code, c.name, c.looksLike);
  c.titles[language] = title;
  return title;
}

const codes = (t: Record<number, unknown>) =>
  Object.keys(t)
    .map((k) => `\\u{${Number(k).toString(16)}}`)
    .join('');
const rangeCodes = (r: [number, number]) => r.map((cp) => `\\u{${cp.toString(16)}}`).join('-');
// Runs of characters that may be marked: one native regex pass finds them, the rest is per character.
const CANDIDATE_RUNS = new RegExp(
  `(?:${HIDDEN_CHARS.source}|[${codes(SCRIPT_LETTERS)}${codes(ALWAYS)}${[[FULLWIDTH_FIRST, FULLWIDTH_LAST] as [number, number], ...NFKC_TO_ASCII].map(rangeCodes).join('')}])+`,
  'gu',
);
const HIDDEN_ONE = new RegExp(`^${HIDDEN_CHARS.source}$`, 'u');
const WORD_CHAR = /^[\p{L}\p{M}\p{N}\p{Cf}]$/u;
const WORD_RUN = /[\p{L}\p{M}\p{N}\p{Cf}]*/uy;
const LATIN = /\p{Script=Latin}/u;
// A letter of another script than Latin that is not in the look-alike table (Russian `б`, Greek `λ`).
const OTHER_LETTER = new RegExp(`(?![${codes(SCRIPT_LETTERS)}])(?!\\p{Script=Latin})\\p{L}`, 'u');
const CJK = new RegExp(`[${table.cjkScripts.map((script) => `\\p{Script=${script}}`).join('')}]`, 'u');

/** What a candidate character is: how to mark it, and when; its title made on demand (`titleOf`). */
type Class = {
  kind: MarkKind;
  cp: number;
  /** The Unicode name (for a hidden character without one here, which kind it is). */
  name: string;
  /** What a look-alike imitates. */
  looksLike: string;
  rule: 'always' | 'not-in-cjk' | 'in-latin-context';
  titles: Partial<Record<Language, string>>;
};
const classes = new Map<number, Class | null>();

function classify(cp: number): Class | null {
  let c = classes.get(cp);
  if (c !== undefined) return c;
  c = null;
  const lookalike = (l: LookAlike, rule: Class['rule']): Class => ({ kind: 'lookalike', cp, name: l.name, looksLike: l.looksLike, rule, titles: {} });
  if (HIDDEN_ONE.test(String.fromCodePoint(cp))) c = { kind: 'hidden', cp, name: hiddenName(cp), looksLike: '', rule: 'always', titles: {} };
  else if (ALWAYS[cp]) {
    const [name, looksLike] = ALWAYS[cp];
    c = lookalike({ name, looksLike }, NOT_IN_CJK.has(cp) ? 'not-in-cjk' : 'always');
  } else if (SCRIPT_LETTERS[cp]) {
    const [name, looksLike] = SCRIPT_LETTERS[cp];
    c = lookalike({ name, looksLike }, 'in-latin-context');
  } else {
    const compat = compatLookalike(cp);
    const punct = cp >= FULLWIDTH_FIRST && cp <= FULLWIDTH_LAST && !/^[A-Za-z0-9]$/.test(compat?.looksLike ?? '');
    if (compat) c = lookalike(compat, punct ? 'not-in-cjk' : 'always');
  }
  classes.set(cp, c);
  return c;
}

/**
 * Finds the marks of `s` that start in `[from, to)`, in order, with context from the whole string:
 * - a script letter (Cyrillic `а`) is marked when its word also has Latin letters (`pаypal`), or when
 *   every letter of the string outside Latin is such a look-alike (`рау` alone reads as `pay`);
 * - fullwidth punctuation and the ideographic space are marked unless the string has Chinese,
 *   Japanese or Korean text, where they are the normal ones; fullwidth letters and digits always are.
 * Linear in the length of `s` (each word is looked at once), whatever it holds.
 */
function scan(s: string, from: number, to: number, onMark: (index: number, length: number, c: Class) => void) {
  let latinOnlyContext: boolean | undefined;
  let hasCjk: boolean | undefined;
  let hasLatin: boolean | undefined;
  let wordEnd = -1;
  let wordHasLatin = false;

  const re = new RegExp(CANDIDATE_RUNS);
  re.lastIndex = from;
  for (let m = re.exec(s); m !== null && m.index < to; m = re.exec(s)) {
    const runEnd = Math.min(m.index + m[0].length, to);
    for (let i = m.index; i < runEnd; ) {
      const cp = s.codePointAt(i)!;
      const len = cp > 0xffff ? 2 : 1;
      const c = classify(cp);
      let marked = c !== null;
      if (c?.rule === 'not-in-cjk') marked = !(hasCjk ??= CJK.test(s));
      else if (c?.rule === 'in-latin-context') {
        if (!(hasLatin ??= LATIN.test(s))) wordHasLatin = false;
        else if (i >= wordEnd) {
          const [start, end] = wordAround(s, i);
          wordEnd = end;
          wordHasLatin = LATIN.test(s.slice(start, end));
        }
        marked = wordHasLatin || (latinOnlyContext ??= !OTHER_LETTER.test(s));
      }
      if (marked) onMark(i, len, c!);
      i += len;
    }
  }
}

// The run of letters, marks, digits and format characters around `i` (a zero-width space does not
// split `pа\u200Bypal` into two harmless words).
function wordAround(s: string, i: number): [number, number] {
  let start = i;
  while (start > 0) {
    let j = start - 1;
    if (j > 0 && isLowSurrogate(s.charCodeAt(j)) && isHighSurrogate(s.charCodeAt(j - 1))) j--;
    if (!WORD_CHAR.test(String.fromCodePoint(s.codePointAt(j)!))) break;
    start = j;
  }
  const after = new RegExp(WORD_RUN);
  after.lastIndex = i;
  const end = i + (after.exec(s)?.[0].length ?? 0);
  return [start, end];
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * `s[from, to)` split into plain runs, hidden characters as `\u{…}` escapes and look-alikes as
 * themselves, each mark with a title naming the character. Context for look-alikes is all of `s`.
 */
export function markedParts(s: string, from = 0, to = s.length): MarkedPart[] {
  const parts: MarkedPart[] = [];
  let last = from;
  scan(s, from, to, (i, len, c) => {
    if (i > last) parts.push({ kind: 'plain', text: s.slice(last, i) });
    parts.push({ kind: c.kind, text: c.kind === 'hidden' ? escapeHidden(s.codePointAt(i)!) : s.slice(i, i + len), title: titleOf(c) });
    last = i + len;
  });
  if (last < to || parts.length === 0) parts.push({ kind: 'plain', text: s.slice(last, to) });
  return parts;
}

/** How many hidden and look-alike characters `s[from, to)` has (context: all of `s`). */
export function countMarks(s: string, from = 0, to = s.length): { hidden: number; lookalike: number } {
  const n = { hidden: 0, lookalike: 0 };
  scan(s, from, to, (_i, _len, c) => n[c.kind]++);
  return n;
}

/** One kind of character found in a value, with where it first occurs. */
export type Finding = { kind: MarkKind; title: string; count: number; pointer: string; inKey: boolean };

/** What `flagsIn` found in a whole value. */
export type Flags = { hidden: number; lookalike: number; findings: Finding[]; moreFindings: boolean };

/**
 * Counts hidden and look-alike characters in every string and object key of `value`, without
 * recursion and in time linear in its size (10,000 levels or a 1 MB string are fine). Keeps the
 * first `maxFindings` distinct characters with the JSON Pointer of their first occurrence.
 */
export function flagsIn(value: unknown, maxFindings = 8): Flags {
  const flags: Flags = { hidden: 0, lookalike: 0, findings: [], moreFindings: false };
  const byClass = new Map<Class, Finding>();
  const look = (s: string, pointer: () => string, inKey: boolean) => {
    scan(s, 0, s.length, (_i, _len, c) => {
      flags[c.kind]++;
      const f = byClass.get(c);
      if (f) f.count++;
      else if (byClass.size < maxFindings) {
        const found: Finding = { kind: c.kind, title: titleOf(c), count: 1, pointer: pointer(), inKey };
        byClass.set(c, found);
        flags.findings.push(found);
      } else flags.moreFindings = true;
    });
  };
  walkJson(value, (v, pointer) => {
    if (typeof v === 'string') look(v, pointer, false);
    else if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const k of Object.keys(v)) look(k, () => `${pointer()}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`, true);
    }
  });
  return flags;
}
