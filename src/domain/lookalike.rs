//! Which characters of untrusted text an operator could misread: hidden ones (controls, bidi
//! overrides, zero-width, tag characters, …) and look-alikes of ASCII (Cyrillic `а` in `pаypal`,
//! fullwidth `ｒｍ`, mathematical `𝐫𝐦`, a division slash for `/`). Each one found is a [`Mark`].
//!
//! The same marks as the window's (`ui/src/lib/confusables.ts`, `scan`): one table for both,
//! `ui/src/lib/lookalikes.json` (read here with `include_str!`, parsed once), and the same context
//! rules, ported; both are checked against one corpus, `ui/src/lib/lookalike-corpus.json`. (Where
//! the two disagree, it is on letters newer than this crate's Unicode tables (the `regex` crate's
//! 16.0; a browser may know 17.0): a letter unknown here does not count as another script's.)

use regex::Regex;
use serde::Deserialize;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;
use unicode_normalization::UnicodeNormalization;

/// What a marked character is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MarkKind {
    /// Invisible, or reorders text: shown as `\u{XXXX}`.
    Hidden,
    /// Looks like an ASCII character it is not.
    Lookalike,
}

/// One marked character of a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    /// Where it is, in Unicode code points (the unit of the shared corpus).
    pub index: usize,
    pub ch: char,
    pub kind: MarkKind,
}

/// The table as `lookalikes.json` writes it (its notes are for people; the characters, their rules
/// and their names are read here).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TableFile {
    hidden: Vec<String>,
    hidden_names: HashMap<String, String>,
    /// `[name, what it looks like]`.
    script_letters: HashMap<String, (String, String)>,
    always: HashMap<String, (String, String)>,
    not_in_cjk: Vec<String>,
    cjk_scripts: Vec<String>,
    fullwidth_ascii: String,
    nfkc_to_ascii: Vec<String>,
    names: Names,
}

/// Words for the names of the compatibility characters (see `namesAbout` in the table).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Names {
    roman: Vec<String>,
    digits: Vec<String>,
    ascii_punctuation: HashMap<char, String>,
    math_letter_styles: Vec<String>,
    math_digit_styles: Vec<String>,
}

struct Table {
    hidden: Vec<(char, char)>,
    hidden_names: HashMap<char, String>,
    /// The look-alikes of the table, by character: their name and what they look like.
    named: HashMap<char, (String, String)>,
    names: Names,
    script_letters: HashSet<char>,
    always: HashSet<char>,
    not_in_cjk: HashSet<char>,
    fullwidth: (char, char),
    nfkc_to_ascii: Vec<(char, char)>,
    latin: Regex,
    /// A letter of another script than Latin that is not a script look-alike (Russian `б`).
    other_letter: Regex,
    cjk: Regex,
    word_char: Regex,
}

/// `U+0430`.
fn code_point(label: &str) -> char {
    label
        .strip_prefix("U+")
        .and_then(|hex| u32::from_str_radix(hex, 16).ok())
        .and_then(char::from_u32)
        .unwrap_or_else(|| panic!("lookalikes.json: {label:?} is not a code point"))
}

/// `U+2160..U+217F` (both ends included) or one `U+00AD`.
fn code_range(range: &str) -> (char, char) {
    match range.split_once("..") {
        Some((from, to)) => (code_point(from), code_point(to)),
        None => (code_point(range), code_point(range)),
    }
}

/// A regex class of these characters, for `[…]`.
fn class_of(chars: &HashSet<char>) -> String {
    let mut codes: Vec<u32> = chars.iter().map(|&c| c as u32).collect();
    codes.sort_unstable();
    codes.iter().map(|c| format!("\\x{{{c:x}}}")).collect()
}

static TABLE: LazyLock<Table> = LazyLock::new(|| {
    let file: TableFile = serde_json::from_str(include_str!("../../ui/src/lib/lookalikes.json")).expect("lookalikes.json is the table");
    let script_letters: HashSet<char> = file.script_letters.keys().map(|k| code_point(k)).collect();
    let regex = |pattern: &str| Regex::new(pattern).expect("a valid pattern");
    let named = file.script_letters.iter().chain(&file.always).map(|(k, v)| (code_point(k), v.clone())).collect();
    Table {
        hidden: file.hidden.iter().map(|r| code_range(r)).collect(),
        hidden_names: file.hidden_names.iter().map(|(k, v)| (code_point(k), v.clone())).collect(),
        named,
        names: file.names,
        always: file.always.keys().map(|k| code_point(k)).collect(),
        not_in_cjk: file.not_in_cjk.iter().map(|k| code_point(k)).collect(),
        fullwidth: code_range(&file.fullwidth_ascii),
        nfkc_to_ascii: file.nfkc_to_ascii.iter().map(|r| code_range(r)).collect(),
        latin: regex(r"\p{Script=Latin}"),
        other_letter: regex(&format!(r"[\p{{L}}--\p{{Script=Latin}}--[{}]]", class_of(&script_letters))),
        cjk: regex(&format!("[{}]", file.cjk_scripts.iter().map(|s| format!(r"\p{{Script={s}}}")).collect::<String>())),
        word_char: regex(r"^[\p{L}\p{M}\p{N}\p{Cf}]$"),
        script_letters,
    }
});

/// When a candidate character is marked.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rule {
    Always,
    /// Unless the string has Chinese, Japanese or Korean text (fullwidth punctuation, the
    /// ideographic space: the normal ones there).
    NotInCjk,
    /// When its word also has Latin letters, or when every letter of the string outside Latin is
    /// a script look-alike (Cyrillic `рау` alone reads as `pay`).
    InLatinContext,
}

fn within(c: char, (from, to): (char, char)) -> bool {
    from <= c && c <= to
}

/// Whether `c` is a hidden character (the window's `HIDDEN_CHARS`).
pub fn is_hidden(c: char) -> bool {
    TABLE.hidden.iter().any(|&r| within(c, r))
}

fn classify(c: char) -> Option<(MarkKind, Rule)> {
    let t = &*TABLE;
    if is_hidden(c) {
        return Some((MarkKind::Hidden, Rule::Always));
    }
    if t.always.contains(&c) {
        return Some((MarkKind::Lookalike, if t.not_in_cjk.contains(&c) { Rule::NotInCjk } else { Rule::Always }));
    }
    if t.script_letters.contains(&c) {
        return Some((MarkKind::Lookalike, Rule::InLatinContext));
    }
    if within(c, t.fullwidth) {
        // U+FF01 is '!', each next one the next ASCII character.
        let ascii = (c as u32 - t.fullwidth.0 as u32 + 0x21) as u8;
        return Some((MarkKind::Lookalike, if ascii.is_ascii_alphanumeric() { Rule::Always } else { Rule::NotInCjk }));
    }
    if t.nfkc_to_ascii.iter().any(|&r| within(c, r)) {
        let mut looks_like = std::iter::once(c).nfkc().peekable();
        let ascii = looks_like.peek().is_some() && looks_like.all(|l| ('!'..='~').contains(&l));
        return ascii.then_some((MarkKind::Lookalike, Rule::Always));
    }
    None
}

fn is_word_char(c: char) -> bool {
    TABLE.word_char.is_match(c.encode_utf8(&mut [0; 4]))
}

/// The byte range of the run of letters, marks, digits and format characters around byte `at`
/// (a zero-width space does not split `pа\u{200B}ypal` into two harmless words).
fn word_around(s: &str, at: usize) -> (usize, usize) {
    let start = s[..at].char_indices().rev().take_while(|&(_, c)| is_word_char(c)).last().map_or(at, |(i, _)| i);
    let end = s[at..].char_indices().find(|&(_, c)| !is_word_char(c)).map_or(s.len(), |(i, _)| at + i);
    (start, end)
}

/// What a marked character is, in the words of the window's mark titles (`confusables.ts`,
/// `titleOf`, English): `U+202E RIGHT-TO-LEFT OVERRIDE (invisible)`, `U+0430 CYRILLIC SMALL
/// LETTER A looks like 'a'`. Names come from the shared table; a hidden character it does not name
/// is called by its kind (`control character`, `TAG character`, `invisible format character`).
pub fn title(c: char, kind: MarkKind) -> String {
    let code = format!("U+{:04X}", c as u32);
    if kind == MarkKind::Hidden {
        return format!("{code} {} (invisible)", hidden_name(c));
    }
    let (name, like) = lookalike_name(c);
    if like == " " {
        format!("{code} {name} looks like a space")
    } else {
        format!("{code} {name} looks like '{like}'")
    }
}

fn hidden_name(c: char) -> String {
    let cp = c as u32;
    if cp <= 0x1F || (0x7F..=0x9F).contains(&cp) {
        "control character".into()
    } else if (0xE0000..=0xE007F).contains(&cp) {
        "TAG character".into()
    } else if cp >= 0xE0100 {
        format!("VARIATION SELECTOR-{}", cp - 0xE0100 + 17)
    } else {
        TABLE.hidden_names.get(&c).cloned().unwrap_or_else(|| "invisible format character".into())
    }
}

/// A look-alike's name and what it looks like.
fn lookalike_name(c: char) -> (String, String) {
    let t = &*TABLE;
    if let Some(named) = t.named.get(&c) {
        return named.clone();
    }
    if within(c, t.fullwidth) {
        let ascii = char::from((c as u32 - t.fullwidth.0 as u32 + 0x21) as u8);
        return (format!("FULLWIDTH {}", ascii_name(ascii)), ascii.to_string());
    }
    (compat_name(c), std::iter::once(c).nfkc().collect())
}

fn ascii_name(c: char) -> String {
    let n = &TABLE.names;
    match c {
        'A'..='Z' => format!("LATIN CAPITAL LETTER {c}"),
        'a'..='z' => format!("LATIN SMALL LETTER {}", c.to_ascii_uppercase()),
        '0'..='9' => format!("DIGIT {}", n.digits[c as usize - '0' as usize]),
        _ => n.ascii_punctuation.get(&c).cloned().unwrap_or_else(|| c.to_string()),
    }
}

/// The Unicode name of a Roman numeral or a mathematical alphanumeric symbol.
fn compat_name(c: char) -> String {
    let n = &TABLE.names;
    let cp = c as u32;
    let letter = |i: u32| char::from(b'A' + i as u8);
    match cp {
        0x2160..=0x217F => format!("{}ROMAN NUMERAL {}", if cp >= 0x2170 { "SMALL " } else { "" }, n.roman[(cp as usize - 0x2160) % 16]),
        0x1D400..=0x1D6A3 => {
            let r = (cp - 0x1D400) % 52;
            let style = &n.math_letter_styles[(cp as usize - 0x1D400) / 52];
            format!("MATHEMATICAL {style} {} {}", if r < 26 { "CAPITAL" } else { "SMALL" }, letter(r % 26))
        }
        0x1D7CE..=0x1D7FF => {
            let i = cp as usize - 0x1D7CE;
            format!("MATHEMATICAL {} DIGIT {}", n.math_digit_styles[i / 10], n.digits[i % 10])
        }
        _ => "MATHEMATICAL ALPHANUMERIC SYMBOL".into(),
    }
}

/// The marks of `s`, in order, with context from the whole string:
/// - a script letter (Cyrillic `а`) is marked when its word also has Latin letters (`pаypal`), or
///   when every letter of the string outside Latin is such a look-alike (`рау` alone reads as `pay`);
/// - fullwidth punctuation and the ideographic space are marked unless the string has Chinese,
///   Japanese or Korean text, where they are the normal ones; fullwidth letters and digits always are;
/// - hidden characters and the other look-alikes always are.
///
/// Linear in the length of `s` (each word is looked at once).
pub fn marks(s: &str) -> Vec<Mark> {
    let t = &*TABLE;
    let mut out = Vec::new();
    let (mut has_cjk, mut has_latin, mut latin_only_context) = (None, None, None);
    let mut word_end: Option<usize> = None;
    let mut word_has_latin = false;
    for (index, (at, ch)) in s.char_indices().enumerate() {
        if ch.is_ascii() && !ch.is_ascii_control() {
            continue;
        }
        let Some((kind, rule)) = classify(ch) else { continue };
        let marked = match rule {
            Rule::Always => true,
            Rule::NotInCjk => !*has_cjk.get_or_insert_with(|| t.cjk.is_match(s)),
            Rule::InLatinContext => {
                if !*has_latin.get_or_insert_with(|| t.latin.is_match(s)) {
                    word_has_latin = false;
                } else if word_end.is_none_or(|end| at >= end) {
                    let (start, end) = word_around(s, at);
                    word_end = Some(end);
                    word_has_latin = t.latin.is_match(&s[start..end]);
                }
                word_has_latin || *latin_only_context.get_or_insert_with(|| !t.other_letter.is_match(s))
            }
        };
        if marked {
            out.push(Mark { index, ch, kind });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Corpus {
        cases: Vec<Case>,
    }

    #[derive(Deserialize)]
    struct Case {
        note: String,
        text: String,
        marks: Vec<CorpusMark>,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct CorpusMark {
        index: usize,
        kind: MarkKind,
    }

    /// The corpus the window's implementation is checked against too (`lookalike-corpus.test.ts`).
    #[test]
    fn marks_the_same_characters_as_the_window() {
        let corpus: Corpus = serde_json::from_str(include_str!("../../ui/src/lib/lookalike-corpus.json")).unwrap();
        assert!(corpus.cases.len() > 40);
        let mut failures = Vec::new();
        for case in &corpus.cases {
            let got: Vec<CorpusMark> = marks(&case.text).into_iter().map(|m| CorpusMark { index: m.index, kind: m.kind }).collect();
            if got != case.marks {
                failures.push(format!("{}: {:?}\n  expected {:?}\n  got      {:?}", case.note, case.text, case.marks, got));
            }
        }
        assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), corpus.cases.len(), failures.join("\n"));
    }

    #[test]
    fn a_mark_says_which_character_it_is() {
        assert_eq!(
            marks("p\u{0430}y\u{200B}"),
            vec![Mark { index: 1, ch: '\u{0430}', kind: MarkKind::Lookalike }, Mark { index: 3, ch: '\u{200B}', kind: MarkKind::Hidden },]
        );
        assert!(is_hidden('\u{E0041}') && is_hidden('\u{7}') && !is_hidden('\t') && !is_hidden('\n') && !is_hidden('a'));
    }

    #[test]
    fn a_marked_character_is_named_as_the_window_names_it() {
        let titled = |s: &str| marks(s).into_iter().map(|m| title(m.ch, m.kind)).collect::<Vec<_>>();
        assert_eq!(
            titled("p\u{0430}y\u{202E}\u{7}\u{E0041}\u{E0100}\u{FF52}\u{1D42B}\u{2163}\u{3000}x"),
            [
                "U+0430 CYRILLIC SMALL LETTER A looks like 'a'",
                "U+202E RIGHT-TO-LEFT OVERRIDE (invisible)",
                "U+0007 control character (invisible)",
                "U+E0041 TAG character (invisible)",
                "U+E0100 VARIATION SELECTOR-17 (invisible)",
                "U+FF52 FULLWIDTH LATIN SMALL LETTER R looks like 'r'",
                "U+1D42B MATHEMATICAL BOLD SMALL R looks like 'r'",
                "U+2163 ROMAN NUMERAL FOUR looks like 'IV'",
                "U+3000 IDEOGRAPHIC SPACE looks like a space",
            ]
        );
    }

    #[test]
    fn marks_a_large_string_in_linear_time() {
        let big = "p\u{0430}ypal\u{200B} ".repeat(1 << 15);
        let started = std::time::Instant::now();
        let found = marks(&big);
        assert_eq!(found.len(), 2 << 15);
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    }
}
