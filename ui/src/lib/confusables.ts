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
import { HIDDEN_CHARS, escapeHidden, walkJson } from './json-text';

export type MarkKind = 'hidden' | 'lookalike';

/** A piece of a string as shown: plain text, a hidden character's escape, or a look-alike as itself. */
export type MarkedPart = { kind: 'plain' | MarkKind; text: string; title?: string };

type LookAlike = { name: string; looksLike: string };

// Letters of other scripts that look like Latin ones. These are only flagged in context (see
// `scriptLookalike`): in Russian or Greek text they are ordinary letters.
const SCRIPT_LETTERS: Record<number, [string, string]> = {
  // Cyrillic
  0x0430: ['CYRILLIC SMALL LETTER A', 'a'],
  0x0435: ['CYRILLIC SMALL LETTER IE', 'e'],
  0x043e: ['CYRILLIC SMALL LETTER O', 'o'],
  0x0440: ['CYRILLIC SMALL LETTER ER', 'p'],
  0x0441: ['CYRILLIC SMALL LETTER ES', 'c'],
  0x0443: ['CYRILLIC SMALL LETTER U', 'y'],
  0x0445: ['CYRILLIC SMALL LETTER HA', 'x'],
  0x0455: ['CYRILLIC SMALL LETTER DZE', 's'],
  0x0456: ['CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I', 'i'],
  0x0458: ['CYRILLIC SMALL LETTER JE', 'j'],
  0x0475: ['CYRILLIC SMALL LETTER IZHITSA', 'v'],
  0x04bb: ['CYRILLIC SMALL LETTER SHHA', 'h'],
  0x04cf: ['CYRILLIC SMALL LETTER PALOCHKA', 'l'],
  0x0501: ['CYRILLIC SMALL LETTER KOMI DE', 'd'],
  0x051b: ['CYRILLIC SMALL LETTER QA', 'q'],
  0x051d: ['CYRILLIC SMALL LETTER WE', 'w'],
  0x0405: ['CYRILLIC CAPITAL LETTER DZE', 'S'],
  0x0406: ['CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I', 'I'],
  0x0408: ['CYRILLIC CAPITAL LETTER JE', 'J'],
  0x0410: ['CYRILLIC CAPITAL LETTER A', 'A'],
  0x0412: ['CYRILLIC CAPITAL LETTER VE', 'B'],
  0x0415: ['CYRILLIC CAPITAL LETTER IE', 'E'],
  0x041a: ['CYRILLIC CAPITAL LETTER KA', 'K'],
  0x041c: ['CYRILLIC CAPITAL LETTER EM', 'M'],
  0x041d: ['CYRILLIC CAPITAL LETTER EN', 'H'],
  0x041e: ['CYRILLIC CAPITAL LETTER O', 'O'],
  0x0420: ['CYRILLIC CAPITAL LETTER ER', 'P'],
  0x0421: ['CYRILLIC CAPITAL LETTER ES', 'C'],
  0x0422: ['CYRILLIC CAPITAL LETTER TE', 'T'],
  0x0423: ['CYRILLIC CAPITAL LETTER U', 'Y'],
  0x0425: ['CYRILLIC CAPITAL LETTER HA', 'X'],
  0x04ae: ['CYRILLIC CAPITAL LETTER STRAIGHT U', 'Y'],
  0x04c0: ['CYRILLIC LETTER PALOCHKA', 'I'],
  0x051a: ['CYRILLIC CAPITAL LETTER QA', 'Q'],
  0x051c: ['CYRILLIC CAPITAL LETTER WE', 'W'],
  // Greek
  0x03b1: ['GREEK SMALL LETTER ALPHA', 'a'],
  0x03b3: ['GREEK SMALL LETTER GAMMA', 'y'],
  0x03b9: ['GREEK SMALL LETTER IOTA', 'i'],
  0x03ba: ['GREEK SMALL LETTER KAPPA', 'k'],
  0x03bd: ['GREEK SMALL LETTER NU', 'v'],
  0x03bf: ['GREEK SMALL LETTER OMICRON', 'o'],
  0x03c1: ['GREEK SMALL LETTER RHO', 'p'],
  0x03c5: ['GREEK SMALL LETTER UPSILON', 'u'],
  0x03c7: ['GREEK SMALL LETTER CHI', 'x'],
  0x0391: ['GREEK CAPITAL LETTER ALPHA', 'A'],
  0x0392: ['GREEK CAPITAL LETTER BETA', 'B'],
  0x0395: ['GREEK CAPITAL LETTER EPSILON', 'E'],
  0x0396: ['GREEK CAPITAL LETTER ZETA', 'Z'],
  0x0397: ['GREEK CAPITAL LETTER ETA', 'H'],
  0x0399: ['GREEK CAPITAL LETTER IOTA', 'I'],
  0x039a: ['GREEK CAPITAL LETTER KAPPA', 'K'],
  0x039c: ['GREEK CAPITAL LETTER MU', 'M'],
  0x039d: ['GREEK CAPITAL LETTER NU', 'N'],
  0x039f: ['GREEK CAPITAL LETTER OMICRON', 'O'],
  0x03a1: ['GREEK CAPITAL LETTER RHO', 'P'],
  0x03a4: ['GREEK CAPITAL LETTER TAU', 'T'],
  0x03a5: ['GREEK CAPITAL LETTER UPSILON', 'Y'],
  0x03a7: ['GREEK CAPITAL LETTER CHI', 'X'],
  // Armenian
  0x0570: ['ARMENIAN SMALL LETTER HO', 'h'],
  0x0578: ['ARMENIAN SMALL LETTER VO', 'n'],
  0x057d: ['ARMENIAN SMALL LETTER SEH', 'u'],
  0x0585: ['ARMENIAN SMALL LETTER OH', 'o'],
};

// Look-alikes flagged wherever they appear (except as noted in `scan`): no language needs them in
// place of the ASCII character. The en dash and the no-break spaces are left out on purpose: ordinary
// typography uses them in prose, and a flag raised on every email body would teach operators to
// ignore it.
const ALWAYS: Record<number, [string, string]> = {
  0x0251: ['LATIN SMALL LETTER ALPHA', 'a'],
  0x0261: ['LATIN SMALL LETTER SCRIPT G', 'g'],
  0x0269: ['LATIN SMALL LETTER IOTA', 'i'],
  0x01c0: ['LATIN LETTER DENTAL CLICK', 'l'],
  0x01c3: ['LATIN LETTER RETROFLEX CLICK', '!'],
  0x212a: ['KELVIN SIGN', 'K'],
  0x210e: ['PLANCK CONSTANT', 'h'],
  0x2113: ['SCRIPT SMALL L', 'l'],
  0x2044: ['FRACTION SLASH', '/'],
  0x2215: ['DIVISION SLASH', '/'],
  0x2571: ['BOX DRAWINGS LIGHT DIAGONAL UPPER RIGHT TO LOWER LEFT', '/'],
  0x29f8: ['BIG SOLIDUS', '/'],
  0x2216: ['SET MINUS', '\\'],
  0x29f5: ['REVERSE SOLIDUS OPERATOR', '\\'],
  0x02d7: ['MODIFIER LETTER MINUS SIGN', '-'],
  0x2010: ['HYPHEN', '-'],
  0x2011: ['NON-BREAKING HYPHEN', '-'],
  0x2012: ['FIGURE DASH', '-'],
  0x2043: ['HYPHEN BULLET', '-'],
  0x2212: ['MINUS SIGN', '-'],
  0xfe63: ['SMALL HYPHEN-MINUS', '-'],
  0x037e: ['GREEK QUESTION MARK', ';'],
  0x0589: ['ARMENIAN FULL STOP', ':'],
  0x2236: ['RATIO', ':'],
  0xa789: ['MODIFIER LETTER COLON', ':'],
  0x2024: ['ONE DOT LEADER', '.'],
  0x2000: ['EN QUAD', ' '],
  0x2001: ['EM QUAD', ' '],
  0x2002: ['EN SPACE', ' '],
  0x2003: ['EM SPACE', ' '],
  0x2004: ['THREE-PER-EM SPACE', ' '],
  0x2005: ['FOUR-PER-EM SPACE', ' '],
  0x2006: ['SIX-PER-EM SPACE', ' '],
  0x2007: ['FIGURE SPACE', ' '],
  0x2008: ['PUNCTUATION SPACE', ' '],
  0x2009: ['THIN SPACE', ' '],
  0x200a: ['HAIR SPACE', ' '],
  0x205f: ['MEDIUM MATHEMATICAL SPACE', ' '],
  0x3000: ['IDEOGRAPHIC SPACE', ' '],
};

const ROMAN = ['ONE', 'TWO', 'THREE', 'FOUR', 'FIVE', 'SIX', 'SEVEN', 'EIGHT', 'NINE', 'TEN', 'ELEVEN', 'TWELVE', 'FIFTY', 'ONE HUNDRED', 'FIVE HUNDRED', 'ONE THOUSAND'];
const DIGITS = ['ZERO', 'ONE', 'TWO', 'THREE', 'FOUR', 'FIVE', 'SIX', 'SEVEN', 'EIGHT', 'NINE'];
const ASCII_PUNCT: Record<string, string> = {
  '!': 'EXCLAMATION MARK', '"': 'QUOTATION MARK', '#': 'NUMBER SIGN', $: 'DOLLAR SIGN', '%': 'PERCENT SIGN',
  '&': 'AMPERSAND', "'": 'APOSTROPHE', '(': 'LEFT PARENTHESIS', ')': 'RIGHT PARENTHESIS', '*': 'ASTERISK',
  '+': 'PLUS SIGN', ',': 'COMMA', '-': 'HYPHEN-MINUS', '.': 'FULL STOP', '/': 'SOLIDUS', ':': 'COLON',
  ';': 'SEMICOLON', '<': 'LESS-THAN SIGN', '=': 'EQUALS SIGN', '>': 'GREATER-THAN SIGN', '?': 'QUESTION MARK',
  '@': 'COMMERCIAL AT', '[': 'LEFT SQUARE BRACKET', '\\': 'REVERSE SOLIDUS', ']': 'RIGHT SQUARE BRACKET',
  '^': 'CIRCUMFLEX ACCENT', _: 'LOW LINE', '`': 'GRAVE ACCENT', '{': 'LEFT CURLY BRACKET', '|': 'VERTICAL LINE',
  '}': 'RIGHT CURLY BRACKET', '~': 'TILDE',
};
// The 13 letter styles of U+1D400–1D6A3, 52 letters each (A–Z, a–z).
const MATH_LETTER_STYLES = ['BOLD', 'ITALIC', 'BOLD ITALIC', 'SCRIPT', 'BOLD SCRIPT', 'FRAKTUR', 'DOUBLE-STRUCK', 'BOLD FRAKTUR', 'SANS-SERIF', 'SANS-SERIF BOLD', 'SANS-SERIF ITALIC', 'SANS-SERIF BOLD ITALIC', 'MONOSPACE'];
// The 5 digit styles of U+1D7CE–1D7FF, 10 digits each.
const MATH_DIGIT_STYLES = ['BOLD', 'DOUBLE-STRUCK', 'SANS-SERIF', 'SANS-SERIF BOLD', 'MONOSPACE'];

function asciiName(c: string): string {
  if (c >= 'A' && c <= 'Z') return `LATIN CAPITAL LETTER ${c}`;
  if (c >= 'a' && c <= 'z') return `LATIN SMALL LETTER ${c.toUpperCase()}`;
  if (c >= '0' && c <= '9') return `DIGIT ${DIGITS[+c]}`;
  return ASCII_PUNCT[c] ?? c;
}

// Ranges whose members are compatibility forms of ASCII: NFKC gives the character they imitate.
function compatLookalike(cp: number): LookAlike | null {
  if (cp >= 0xff01 && cp <= 0xff5e) {
    const c = String.fromCharCode(cp - 0xfee0);
    return { name: `FULLWIDTH ${asciiName(c)}`, looksLike: c };
  }
  const inMath = cp >= 0x1d400 && cp <= 0x1d7ff;
  const inRoman = cp >= 0x2160 && cp <= 0x217f;
  if (!inMath && !inRoman) return null;
  const looksLike = String.fromCodePoint(cp).normalize('NFKC');
  if (!/^[!-~]+$/.test(looksLike)) return null; // e.g. mathematical Greek: not an ASCII look-alike
  let name: string;
  if (inRoman) name = `${cp >= 0x2170 ? 'SMALL ' : ''}ROMAN NUMERAL ${ROMAN[(cp - 0x2160) % 16]}`;
  else if (cp <= 0x1d6a3) {
    const r = (cp - 0x1d400) % 52;
    name = `MATHEMATICAL ${MATH_LETTER_STYLES[Math.floor((cp - 0x1d400) / 52)]} ${r < 26 ? 'CAPITAL' : 'SMALL'} ${String.fromCharCode(65 + (r % 26))}`;
  } else if (cp >= 0x1d7ce) {
    name = `MATHEMATICAL ${MATH_DIGIT_STYLES[Math.floor((cp - 0x1d7ce) / 10)]} DIGIT ${DIGITS[(cp - 0x1d7ce) % 10]}`;
  } else name = 'MATHEMATICAL ALPHANUMERIC SYMBOL';
  return { name, looksLike };
}

const HIDDEN_NAMES: Record<number, string> = {
  0x00ad: 'SOFT HYPHEN',
  0x034f: 'COMBINING GRAPHEME JOINER',
  0x061c: 'ARABIC LETTER MARK',
  0x115f: 'HANGUL CHOSEONG FILLER',
  0x1160: 'HANGUL JUNGSEONG FILLER',
  0x17b4: 'KHMER VOWEL INHERENT AQ',
  0x17b5: 'KHMER VOWEL INHERENT AA',
  0x180e: 'MONGOLIAN VOWEL SEPARATOR',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2061: 'FUNCTION APPLICATION',
  0x2062: 'INVISIBLE TIMES',
  0x2063: 'INVISIBLE SEPARATOR',
  0x2064: 'INVISIBLE PLUS',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0x3164: 'HANGUL FILLER',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
};

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
// Runs of characters that may be marked: one native regex pass finds them, the rest is per character.
const CANDIDATE_RUNS = new RegExp(
  `(?:${HIDDEN_CHARS.source}|[${codes(SCRIPT_LETTERS)}${codes(ALWAYS)}\\u{ff01}-\\u{ff5e}\\u{2160}-\\u{217f}\\u{1d400}-\\u{1d7ff}])+`,
  'gu',
);
const HIDDEN_ONE = new RegExp(`^${HIDDEN_CHARS.source}$`, 'u');
const WORD_CHAR = /^[\p{L}\p{M}\p{N}\p{Cf}]$/u;
const WORD_RUN = /[\p{L}\p{M}\p{N}\p{Cf}]*/uy;
const LATIN = /\p{Script=Latin}/u;
// A letter of another script than Latin that is not in the look-alike table (Russian `б`, Greek `λ`).
const OTHER_LETTER = new RegExp(`(?![${codes(SCRIPT_LETTERS)}])(?!\\p{Script=Latin})\\p{L}`, 'u');
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

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
    c = lookalike({ name, looksLike }, cp === 0x3000 ? 'not-in-cjk' : 'always');
  } else if (SCRIPT_LETTERS[cp]) {
    const [name, looksLike] = SCRIPT_LETTERS[cp];
    c = lookalike({ name, looksLike }, 'in-latin-context');
  } else {
    const compat = compatLookalike(cp);
    const punct = cp >= 0xff01 && cp <= 0xff5e && !/^[A-Za-z0-9]$/.test(compat?.looksLike ?? '');
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
