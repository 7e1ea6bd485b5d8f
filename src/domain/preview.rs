//! Whether a relayed preview shows a given tool input: Claude Code's channel relay carries only an
//! `input_preview` of the arguments, and the console joins such a prompt with the hook's call for
//! the same tool call (which has the whole input) only when the preview is exactly what Claude Code
//! would have built from that input. Two ways of building it are known, and either counts:
//! - the documented one (code.claude.com channels reference): the arguments as JSON, cut at
//!   [`DOCUMENTED_CUT`] characters (an ellipsis after the cut or not);
//! - the one of Claude Code 2.1.328 (its `truncateForPreview`, read from the pinned package): an
//!   object as `{ "key": value, "key": value }`, each key's and each value's JSON with runs of
//!   whitespace made one space, and any of them longer than [`ELIDE_OVER`] code points cut to its
//!   first [`KEEP_HEAD`] and last [`KEEP_TAIL`] with `⋯ N code points elided ⋯` between.
//!
//! Anything else — a value Claude Code masked as a secret, a character it replaced, fields it left
//! out past its budget — matches nothing, so the two calls stay apart: never a join on a guess.

use serde_json::Value;

/// The documented preview: the arguments' JSON cut at this many characters.
pub const DOCUMENTED_CUT: usize = 200;
/// Claude Code 2.1.328: a key or value longer than this many code points is shortened.
pub const ELIDE_OVER: usize = 3_500;
/// Code points kept from the start of a shortened key or value.
pub const KEEP_HEAD: usize = 2_000;
/// Code points kept from its end.
pub const KEEP_TAIL: usize = 1_500;

/// Whether `preview` is what Claude Code shows for a tool call with arguments `args`.
pub fn shows(preview: &str, args: &Value) -> bool {
    if preview.is_empty() {
        return false;
    }
    let json = args.to_string();
    if preview == json || documented_cut(&json).is_some_and(|cut| preview == cut || preview.strip_suffix('…') == Some(cut.as_str())) {
        return true;
    }
    fields(args).is_some_and(|fields| preview == fields)
}

/// The first [`DOCUMENTED_CUT`] characters of `json`, when it is longer.
fn documented_cut(json: &str) -> Option<String> {
    (json.chars().count() > DOCUMENTED_CUT).then(|| json.chars().take(DOCUMENTED_CUT).collect())
}

/// Claude Code 2.1.328's preview of an object's fields; `None` for anything else.
fn fields(args: &Value) -> Option<String> {
    let object = args.as_object()?;
    let shown: Vec<String> = object
        .iter()
        .map(|(k, v)| format!("{}: {}", shortened(&Value::String(k.clone()).to_string()), shortened(&v.to_string())))
        .collect();
    Some(format!("{{ {} }}", shown.join(", ")))
}

/// A key's or value's JSON as Claude Code shows it: runs of whitespace made one space, then a long
/// one cut in its middle.
fn shortened(json: &str) -> String {
    let mut squeezed = String::with_capacity(json.len());
    let mut run = 0;
    for c in json.chars() {
        if c.is_whitespace() {
            run += 1;
            if run == 2 {
                // A run of two or more becomes one space (the first may have been any whitespace).
                squeezed.pop();
                squeezed.push(' ');
            }
            if run >= 2 {
                continue;
            }
        } else {
            run = 0;
        }
        squeezed.push(c);
    }
    let points: Vec<char> = squeezed.chars().collect();
    if points.len() <= ELIDE_OVER {
        return squeezed;
    }
    let elided = points.len() - KEEP_HEAD - KEEP_TAIL;
    let unit = if elided == 1 { "code point" } else { "code points" };
    let head: String = points[..KEEP_HEAD].iter().collect();
    let tail: String = points[points.len() - KEEP_TAIL..].iter().collect();
    format!("{head}\n\u{22EF} {elided} {unit} elided \u{22EF}\n{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_field_preview_of_claude_code_2_1_328_and_the_documented_json_cut_both_show_their_input() {
        let args = json!({ "command": "npm test", "description": "Run  the\ttests" });
        assert!(shows(r#"{ "command": "npm test", "description": "Run the\ttests" }"#, &args), "a run of spaces is one space");
        assert!(shows(r#"{"command":"npm test","description":"Run  the\ttests"}"#, &args), "the whole JSON");
        let long = json!({ "command": format!("echo {}", "x".repeat(300)) });
        let cut: String = long.to_string().chars().take(200).collect();
        assert!(shows(&cut, &long) && shows(&format!("{cut}…"), &long), "the documented cut at 200");
        let body = "y".repeat(5_000);
        let write = json!({ "file_path": "/tmp/a", "content": body });
        let value = Value::String(body).to_string();
        let preview = format!(
            "{{ \"file_path\": \"/tmp/a\", \"content\": {}\n\u{22EF} 1502 code points elided \u{22EF}\n{} }}",
            &value[..2_000],
            &value[value.len() - 1_500..]
        );
        assert!(shows(&preview, &write), "a long value cut in its middle");
    }

    #[test]
    fn a_preview_of_other_arguments_or_cut_anywhere_else_shows_nothing() {
        let args = json!({ "command": "npm test" });
        for other in [
            "",
            r#"{ "command": "npm test && rm -rf ~" }"#,
            r#"{ "command": "npm" }"#,
            r#"{"command":"npm"#,
            r#"{ "command": "[REDACTED]" }"#,
            r#"{ "description": "x", "command": "npm test" }"#,
        ] {
            assert!(!shows(other, &args), "{other:?}");
        }
        // A cut shorter than the documented 200 characters is no preview of a longer input.
        let long = json!({ "command": format!("echo {}", "x".repeat(300)) });
        let short: String = long.to_string().chars().take(150).collect();
        assert!(!shows(&short, &long));
        assert!(!shows("\"ls\"", &json!("ls -la")));
    }
}
