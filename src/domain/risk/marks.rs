//! Hidden and look-alike characters in a call's arguments (issue 45): a bidi override in a file
//! name, a zero-width space in a command, a Cyrillic `а` in a payee make what the operator reads
//! differ from what runs, so such a call is at least high, with a reason naming where
//! (a JSON Pointer) and which character (`U+0430 CYRILLIC SMALL LETTER A looks like 'a'`).
//!
//! The characters are the window's marks ([`crate::domain::lookalike::marks`]: one table and one
//! set of context rules for the server and the window, both checked against one corpus), so a
//! call whose arguments the window flags is the call the console rates high, and no other.

use super::{Level, Risk};
use crate::domain::lookalike::{self, MarkKind};
use crate::domain::text;
use serde_json::Value;

/// How many distinct characters get a reason of their own; the rest are counted in one more.
const NAMED: usize = 4;
/// How many characters of a pointer a reason quotes (a key may be long).
const POINTER_CHARS: usize = 80;

/// One step of a JSON Pointer.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// A place in the arguments: its last step and its parent's place (an index into the walk's arena),
/// so a pointer is written out only for a character reported, never for every value walked.
struct Place<'a> {
    parent: Option<usize>,
    step: Step<'a>,
}

struct Found {
    ch: char,
    kind: MarkKind,
    /// Where it is first, as a pointer, and whether in a key there.
    pointer: String,
    in_key: bool,
    count: usize,
}

/// Adds a reason, at least high, for each distinct hidden or look-alike character in `args`' strings
/// and object keys (the first [`NAMED`], in document order; one more reason counts the others).
/// Linear in the size of `args`, without recursion.
pub(super) fn judge(args: &Value, risk: &mut Risk) {
    let mut places: Vec<Place<'_>> = Vec::new();
    let mut found: Vec<Found> = Vec::new();
    let mut others = 0usize;
    // (value, its place; `None`: the arguments themselves)
    let mut stack: Vec<(&Value, Option<usize>)> = vec![(args, None)];
    while let Some((value, at)) = stack.pop() {
        match value {
            Value::String(s) => look(s, at, false, &places, &mut found, &mut others),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate().rev() {
                    places.push(Place { parent: at, step: Step::Index(i) });
                    stack.push((item, Some(places.len() - 1)));
                }
            }
            Value::Object(map) => {
                // Keys first, in order; then the values, the first on top of the stack.
                let first = places.len();
                for key in map.keys() {
                    places.push(Place { parent: at, step: Step::Key(key) });
                    look(key, Some(places.len() - 1), true, &places, &mut found, &mut others);
                }
                for (i, item) in map.values().enumerate().rev() {
                    stack.push((item, Some(first + i)));
                }
            }
            _ => {}
        }
    }
    for f in &found {
        let what = if f.kind == MarkKind::Hidden { "hidden" } else { "look-alike" };
        let place = if f.in_key { "in the key" } else { "at" };
        let times = if f.count > 1 { format!(" (×{})", f.count) } else { String::new() };
        let title = lookalike::title(f.ch, f.kind);
        risk.add(Level::High, format!("{what} character {place} {}: {title}{times}", f.pointer));
    }
    if others > 0 {
        risk.add(Level::High, format!("{others} more hidden or look-alike characters in the arguments"));
    }
}

fn look(s: &str, at: Option<usize>, in_key: bool, places: &[Place<'_>], found: &mut Vec<Found>, others: &mut usize) {
    for mark in lookalike::marks(s) {
        if let Some(f) = found.iter_mut().find(|f| f.ch == mark.ch) {
            f.count += 1;
        } else if found.len() < NAMED {
            found.push(Found { ch: mark.ch, kind: mark.kind, pointer: shown(&pointer(places, at)), in_key, count: 1 });
        } else {
            *others += 1;
        }
    }
}

/// The RFC 6901 pointer of a place (`""`: the arguments themselves).
fn pointer(places: &[Place<'_>], mut at: Option<usize>) -> String {
    let mut steps = Vec::new();
    while let Some(i) = at {
        steps.push(&places[i].step);
        at = places[i].parent;
    }
    let mut out = String::new();
    for step in steps.iter().rev() {
        out.push('/');
        match step {
            Step::Key(k) => out.push_str(&k.replace('~', "~0").replace('/', "~1")),
            Step::Index(i) => out.push_str(&i.to_string()),
        }
    }
    out
}

/// A pointer as a reason quotes it: the agent's text, so its hidden characters escaped
/// (`\u{202E}`: a reason never reorders itself), at most [`POINTER_CHARS`] characters.
fn shown(pointer: &str) -> String {
    if pointer.is_empty() {
        return "(top level)".into();
    }
    let marked = text::Marked::text(pointer);
    marked.shortened(POINTER_CHARS)
}

#[cfg(test)]
mod tests {
    use super::super::{assess, Scene};
    use super::*;
    use serde_json::json;

    fn rated(args: Value) -> Risk {
        assess("update_payee", &args, Scene::default())
    }

    fn texts(risk: &Risk) -> Vec<&str> {
        risk.reasons.iter().map(|r| r.text.as_str()).collect()
    }

    #[test]
    fn a_lookalike_payee_and_a_bidi_override_in_a_file_name_rate_the_call_high_naming_each() {
        let risk = rated(json!({ "payee": "Acme P\u{0430}yments", "attachment": { "files": ["invoice\u{202E}fdp.exe"] } }));
        assert_eq!(risk.level, Level::High, "{risk:?}");
        assert_eq!(
            texts(&risk),
            [
                "look-alike character at /payee: U+0430 CYRILLIC SMALL LETTER A looks like 'a'",
                "hidden character at /attachment/files/0: U+202E RIGHT-TO-LEFT OVERRIDE (invisible)",
            ]
        );
        assert!(risk.needs_operator(), "an operator decides it, in the console, never a grant");
    }

    #[test]
    fn a_character_in_a_key_is_found_and_its_pointer_is_shown_escaped() {
        let risk = rated(json!({ "rows": [{ "na\u{200B}me/x": "ok" }] }));
        assert_eq!(texts(&risk), ["hidden character in the key /rows/0/na\\u{200B}me~1x: U+200B ZERO WIDTH SPACE (invisible)"]);
        assert!(!risk.reasons[0].text.contains('\u{200B}'), "a reason never carries the hidden character itself");
    }

    #[test]
    fn each_character_is_named_once_with_how_often_and_the_rest_are_counted() {
        let risk = rated(json!({
            "a": "p\u{0430}y p\u{0430}y",
            "b": "\u{200B}", "c": "\u{200C}", "d": "\u{200D}", "e": "\u{2060}", "f": "\u{FEFF}\u{FEFF}"
        }));
        assert_eq!(
            texts(&risk),
            [
                "look-alike character at /a: U+0430 CYRILLIC SMALL LETTER A looks like 'a' (×2)",
                "hidden character at /b: U+200B ZERO WIDTH SPACE (invisible)",
                "hidden character at /c: U+200C ZERO WIDTH NON-JOINER (invisible)",
                "hidden character at /d: U+200D ZERO WIDTH JOINER (invisible)",
                "3 more hidden or look-alike characters in the arguments",
            ]
        );
    }

    #[test]
    fn a_long_pointer_is_cut_and_a_bare_string_is_the_top_level() {
        let key = "k".repeat(500);
        let risk = rated(json!({ key: "\u{202E}" }));
        let text = &risk.reasons[0].text;
        assert!(text.starts_with(&format!("hidden character at /{}…: U+202E", "k".repeat(78))), "{text}");
        assert_eq!(texts(&rated(json!("\u{2067}"))), ["hidden character at (top level): U+2067 RIGHT-TO-LEFT ISOLATE (invisible)"]);
    }

    #[test]
    fn text_in_other_scripts_and_plain_arguments_stay_low() {
        for args in [
            json!({ "note": "Привет, мир", "city": "Αθήνα", "jp": "東京　タワー（本社）", "emoji": "ok 👍 café — naïve" }),
            json!({ "payee": "Acme Payments", "amount": 120, "tabs": "a\tb\nc" }),
        ] {
            let risk = rated(args.clone());
            assert_eq!(risk.level, Level::Low, "{args}: {risk:?}");
        }
    }

    #[test]
    fn arguments_nested_as_deep_as_json_allows_are_walked_without_recursion() {
        let mut v = json!("\u{E0041}");
        for _ in 0..120 {
            v = json!([v]);
        }
        let risk = rated(v);
        assert_eq!(risk.level, Level::High);
        assert!(risk.reasons[0].text.starts_with("hidden character at /0/0/0/"), "{risk:?}");
        assert!(risk.reasons[0].text.ends_with("U+E0041 TAG character (invisible)"), "{risk:?}");
    }

    #[derive(serde::Deserialize)]
    struct Corpus {
        cases: Vec<Case>,
    }

    #[derive(serde::Deserialize)]
    struct Case {
        note: String,
        text: String,
        marks: Vec<Value>,
    }

    /// The corpus the window's `confusables.ts` is checked against (`lookalike-corpus.test.ts`): a
    /// call whose argument the window flags is rated at least high, naming each character; a call
    /// whose argument it leaves alone is not raised.
    #[test]
    fn the_rating_agrees_with_the_window_on_the_shared_corpus() {
        let corpus: Corpus = serde_json::from_str(include_str!("../../../ui/src/lib/lookalike-corpus.json")).unwrap();
        assert!(corpus.cases.iter().filter(|c| c.marks.is_empty()).count() > 5, "the corpus has clean cases too");
        let mut failures = Vec::new();
        for case in &corpus.cases {
            let risk = rated(json!({ "text": case.text }));
            let mut chars: Vec<char> = Vec::new();
            for m in &case.marks {
                let at = m["index"].as_u64().unwrap() as usize;
                let ch = case.text.chars().nth(at).unwrap();
                if !chars.contains(&ch) {
                    chars.push(ch);
                }
            }
            let named = risk.reasons.iter().filter(|r| r.text.contains(" character at /text: U+")).count();
            let ok = if case.marks.is_empty() {
                risk.level == Level::Low && risk.reasons.is_empty()
            } else {
                risk.level >= Level::High && named == chars.len().min(NAMED)
            };
            if !ok {
                failures.push(format!("{}: {:?} ({} marks) → {risk:?}", case.note, case.text, case.marks.len()));
            }
        }
        assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), corpus.cases.len(), failures.join("\n"));
    }
}
