//! Untrusted text (tool names, arguments, engine messages) made safe to show outside the web UI:
//! on a terminal and in desktop notifications.

/// Escapes characters that could deceive: controls (terminal escape sequences), bidi overrides,
/// zero-width and other invisible format characters become `\u{XXXX}`. Newlines stay.
pub fn visible(text: &str) -> String {
    text.chars()
        .map(|c| {
            let hidden = c.is_control()
                || matches!(c, '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
                    | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}');
            if hidden && c != '\n' { format!("\\u{{{:04X}}}", c as u32) } else { c.to_string() }
        })
        .collect()
}

/// [`visible`], then escaped for notification bodies, which servers may read as markup (`<b>`, `<a>`).
pub fn notification_text(text: &str) -> String {
    visible(text).replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
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
        assert_eq!(notification_text("<b>x</b> & \u{200B}"), "&lt;b&gt;x&lt;/b&gt; &amp; \\u{200B}");
        assert_eq!(shorten("abcdef", 4), "abc…");
        assert_eq!(shorten("abc", 4), "abc");
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
