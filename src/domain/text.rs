//! Untrusted text (tool names, arguments, engine messages) made safe to show outside the web UI:
//! on a terminal and in desktop notifications.

use super::lookalike::{self, MarkKind};
use serde_json::Value;

/// Escapes characters that could deceive: the window's hidden characters ([`lookalike::is_hidden`]:
/// controls, bidi overrides, zero-width and other invisible format characters, tag characters) and
/// any other control but the newline (a tab) become `\u{XXXX}`. Newlines stay.
pub fn visible(text: &str) -> String {
    text.chars().map(|c| if escaped(c) { format!("\\u{{{:04X}}}", c as u32) } else { c.to_string() }).collect()
}

fn escaped(c: char) -> bool {
    lookalike::is_hidden(c) || (c.is_control() && c != '\n')
}

/// [`visible`], then escaped for notification bodies, which servers may read as markup (`<b>`, `<a>`).
pub fn notification_text(text: &str) -> String {
    markup_escaped(&visible(text))
}

/// `&`, `<`, `>` as entities (notification servers may read bodies as markup).
pub fn markup_escaped(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Untrusted text as a notification shows it, with every character the window marks marked:
/// hidden ones as `\u{XXXX}` (like [`visible`]), look-alikes as themselves followed by their code
/// point, `pа[U+0430]ypal`, so nothing reads as plain ASCII that is not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Marked {
    pub text: String,
    /// How many hidden and look-alike characters were marked.
    pub hidden: usize,
    pub lookalikes: usize,
    /// Where each mark is in `text` (in characters, end excluded): a cut never splits one.
    marks: Vec<(usize, usize)>,
    chars: usize,
}

impl Marked {
    /// `text` marked (context for look-alikes: all of it, as the window takes each string).
    pub fn text(text: &str) -> Self {
        let mut out = Self::default();
        out.push_marked(text, false);
        out
    }

    /// `value` as compact JSON, each string and key marked with the context of that string alone
    /// (as the window marks them).
    pub fn json(value: &Value) -> Self {
        let mut out = Self::default();
        out.push_json(value);
        out
    }

    /// How many characters `text` has.
    pub fn len(&self) -> usize {
        self.chars
    }

    pub fn is_empty(&self) -> bool {
        self.chars == 0
    }

    /// At most `max` characters, with `…` when cut; a mark is kept whole or left out.
    pub fn shortened(&self, max: usize) -> String {
        if self.chars <= max {
            return self.text.clone();
        }
        let mut keep = max.saturating_sub(1);
        if let Some(&(start, _)) = self.marks.iter().find(|&&(start, end)| start < keep && keep < end) {
            keep = start;
        }
        let mut out: String = self.text.chars().take(keep).collect();
        out.push('…');
        out
    }

    fn push_plain(&mut self, text: &str) {
        self.text.push_str(text);
        self.chars += text.chars().count();
    }

    fn push_mark(&mut self, text: &str) {
        let start = self.chars;
        self.push_plain(text);
        self.marks.push((start, self.chars));
    }

    /// `s` marked; inside a JSON string when `json` (quotes, backslashes, newlines, tabs escaped).
    fn push_marked(&mut self, s: &str, json: bool) {
        let marks = lookalike::marks(s);
        let mut marks = marks.iter().peekable();
        for (i, c) in s.chars().enumerate() {
            let json_escape = match c {
                '"' => Some("\\\""),
                '\\' => Some("\\\\"),
                '\n' => Some("\\n"),
                '\t' => Some("\\t"),
                _ => None,
            }
            .filter(|_| json);
            match marks.next_if(|m| m.index == i).map(|m| m.kind) {
                Some(MarkKind::Lookalike) => {
                    self.lookalikes += 1;
                    self.push_mark(&format!("{c}[U+{:04X}]", c as u32));
                }
                Some(MarkKind::Hidden) => self.push_hidden(c),
                None => match json_escape {
                    Some(escape) => self.push_plain(escape),
                    None if escaped(c) => self.push_hidden(c),
                    None => {
                        self.text.push(c);
                        self.chars += 1;
                    }
                },
            }
        }
    }

    fn push_hidden(&mut self, c: char) {
        self.hidden += 1;
        self.push_mark(&format!("\\u{{{:04X}}}", c as u32));
    }

    fn push_json(&mut self, value: &Value) {
        match value {
            Value::String(s) => {
                self.push_plain("\"");
                self.push_marked(s, true);
                self.push_plain("\"");
            }
            Value::Array(items) => {
                self.push_plain("[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.push_plain(",");
                    }
                    self.push_json(item);
                }
                self.push_plain("]");
            }
            Value::Object(map) => {
                self.push_plain("{");
                for (i, (key, item)) in map.iter().enumerate() {
                    if i > 0 {
                        self.push_plain(",");
                    }
                    self.push_plain("\"");
                    self.push_marked(key, true);
                    self.push_plain("\":");
                    self.push_json(item);
                }
                self.push_plain("}");
            }
            other => self.push_plain(&other.to_string()),
        }
    }
}

/// What stands in for a secret taken out of a text.
pub const REDACTED: &str = "[redacted]";

/// `text` with secrets taken out, before it is stored or shown (an engine's error body may echo the
/// request): every occurrence of each of `secrets` (of 4 characters or more), the credential after
/// `Bearer ` and after an `Authorization` header name (`Basic …` included), and this console's own
/// tokens (`ac_` + 64 hex digits).
pub fn redact(text: &str, secrets: &[&str]) -> String {
    let mut out = text.to_owned();
    for s in secrets.iter().filter(|s| s.chars().count() >= 4) {
        out = out.replace(s, REDACTED);
    }
    static PATTERNS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"(?i)(bearer\s+|authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic)\s+)?)[^\s"',;}]+|\bac_[0-9a-f]{64}\b"#)
            .expect("a valid pattern")
    });
    PATTERNS
        .replace_all(&out, |c: &regex::Captures| match c.get(1) {
            Some(prefix) => format!("{}{REDACTED}", prefix.as_str()),
            None => REDACTED.to_owned(),
        })
        .into_owned()
}

/// At most `max` characters, with `…` when cut.
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_and_markup_are_shown_not_obeyed() {
        assert_eq!(visible("rm\u{202E} -rf\u{7}"), "rm\\u{202E} -rf\\u{0007}");
        // The window's hidden characters (tag characters, fillers) and any control but the newline.
        assert_eq!(visible("ok\u{E0041}\u{3164}\t\n"), "ok\\u{E0041}\\u{3164}\\u{0009}\n");
        assert_eq!(notification_text("<b>x</b> & \u{200B}"), "&lt;b&gt;x&lt;/b&gt; &amp; \\u{200B}");
        assert_eq!(shorten("abcdef", 4), "abc…");
        assert_eq!(shorten("abc", 4), "abc");
    }

    #[test]
    fn marked_text_shows_hidden_and_look_alike_characters_as_the_window_marks_them() {
        let m = Marked::text("p\u{0430}ypal\u{200B}\u{E0041}\t");
        assert_eq!(m.text, "pа[U+0430]ypal\\u{200B}\\u{E0041}\\u{0009}");
        assert_eq!((m.lookalikes, m.hidden), (1, 3));
        // Russian prose has no look-alike; the tab of a JSON string is JSON's `\t`.
        let m = Marked::json(&serde_json::json!({ "t\u{0430}g": ["Привет", "a\tb\"\\", 1.5, null, { "𝐫m": false }] }));
        assert_eq!(m.text, r#"{"tа[U+0430]g":["Привет","a\tb\"\\",1.5,null,{"𝐫[U+1D42B]m":false}]}"#);
        assert_eq!(m.len(), m.text.chars().count());
        assert_eq!(Marked::json(&serde_json::json!("rm\u{202E}")).text, r#""rm\u{202E}""#);
    }

    #[test]
    fn a_cut_never_splits_a_mark() {
        let m = Marked::text("abc\u{0430}ypal");
        assert_eq!(m.text, "abcа[U+0430]ypal");
        assert_eq!(m.shortened(100), m.text);
        for max in 5..=12 {
            assert_eq!(m.shortened(max), "abc…", "max {max}");
        }
        assert_eq!(m.shortened(13), "abcа[U+0430]…");
        let m = Marked::text("ab\u{202E}cd");
        assert_eq!(m.shortened(6), "ab…");
        assert_eq!(m.shortened(10), "ab…");
        assert_eq!(m.shortened(11), "ab\\u{202E}…");
    }

    #[test]
    fn secrets_are_taken_out_of_error_texts() {
        let echoed = r#"401: {"error":"bad token s3cret-value","headers":{"authorization":"Bearer s3cret-value"}} Authorization: Basic dXNlcjpwdw=="#;
        let out = redact(echoed, &["s3cret-value"]);
        assert!(!out.contains("s3cret-value") && !out.contains("dXNlcjpwdw"), "{out}");
        assert!(out.contains("Bearer [redacted]") && out.contains("bad token [redacted]"), "{out}");
        let own = format!("token ac_{} leaked", "0a".repeat(32));
        assert_eq!(redact(&own, &[]), "token [redacted] leaked");
        assert_eq!(redact("nothing secret here", &["abc"]), "nothing secret here", "short values are not taken out of every word");
        assert_eq!(redact("authorization=xyz123", &[]), "authorization=[redacted]");
    }
}
