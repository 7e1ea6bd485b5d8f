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
}
