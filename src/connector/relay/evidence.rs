//! What the session's transcript tells of a relayed prompt: Claude Code never tells its channel that
//! the local dialog (or a hook) answered first (claude-code #54597), but it writes every tool call
//! and its result to the session's transcript (`<config>/projects/<project>/<session>.jsonl`, the
//! config directory being `CLAUDE_CONFIG_DIR` or `~/.claude`). Once the tool call a prompt was about
//! has a `tool_result` there — it ran, or it was refused — the prompt is settled and the relay
//! withdraws its call.
//!
//! Which tool call: a `tool_use` of the prompt's tool whose input the preview shows
//! ([`crate::domain::preview::shows`]) and that had no result when the prompt came. The prompt is
//! settled only when such a call gets its result while it is the only one still open: of two open
//! calls that look alike, a result for one proves nothing about the other's dialog (the time limit
//! still withdraws it).

use crate::domain::preview;
use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How often the transcript is read again.
const EVERY: Duration = Duration::from_millis(200);

/// The transcript of Claude Code's session `session`, if one is found: `<session>.jsonl` in a
/// project folder of `CLAUDE_CONFIG_DIR`, else of `~/.claude`. A session id that is not a plain
/// file name (letters, digits, `-`, `_`) has none.
pub fn transcript_of(session: &str) -> Option<PathBuf> {
    if session.is_empty() || !session.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return None;
    }
    let config = std::env::var_os("CLAUDE_CONFIG_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".claude")))?;
    let name = format!("{session}.jsonl");
    std::fs::read_dir(config.join("projects")).ok()?.flatten().map(|project| project.path().join(&name)).find(|p| p.is_file())
}

/// The open tool calls of a transcript that a prompt may be about, read line by line.
#[derive(Debug, Default)]
pub struct Watch {
    tool: String,
    preview: String,
    /// The ids of the tool calls that fit, in the order they came, with no result yet.
    open: Vec<String>,
    /// Whether the transcript as it was when the prompt came has been read.
    caught_up: bool,
}

impl Watch {
    pub fn new(tool: &str, preview: &str) -> Self {
        Self { tool: tool.to_owned(), preview: preview.to_owned(), ..Default::default() }
    }

    /// Reads one line of the transcript; true once it settles the prompt.
    pub fn line(&mut self, line: &str) -> bool {
        let Ok(entry) = serde_json::from_str::<Value>(line) else { return false };
        let Some(blocks) = entry.pointer("/message/content").and_then(Value::as_array) else { return false };
        let mut settled = false;
        for block in blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use")
                    if block.get("name").and_then(Value::as_str) == Some(self.tool.as_str())
                        && block.get("input").is_some_and(|input| preview::shows(&self.preview, input)) =>
                {
                    if let Some(id) = block.get("id").and_then(Value::as_str) {
                        self.open.push(id.to_owned());
                    }
                }
                Some("tool_result") => {
                    let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else { continue };
                    if let Some(at) = self.open.iter().position(|open| open == id) {
                        settled |= self.caught_up && self.open.len() == 1;
                        self.open.remove(at);
                    }
                }
                _ => {}
            }
        }
        settled
    }

    /// The transcript as it was when the prompt came has been read: results from now on count.
    pub fn caught_up(&mut self) {
        self.caught_up = true;
    }
}

/// Completes once the transcript of `session` shows that the tool call a prompt (`tool`, `preview`)
/// was about ran or was refused; never, if there is no transcript or it never does.
pub async fn settled(session: String, tool: String, preview: String) {
    let mut watch = Watch::new(&tool, &preview);
    let mut path = None;
    let mut offset = 0u64;
    let mut partial = String::new();
    loop {
        if path.is_none() {
            path = transcript_of(&session);
        }
        if let Some(p) = &path {
            if let Some(more) = read_from(p, &mut offset) {
                partial.push_str(&more);
                while let Some(end) = partial.find('\n') {
                    let line: String = partial.drain(..=end).collect();
                    if watch.line(line.trim()) {
                        return;
                    }
                }
            }
        }
        watch.caught_up();
        tokio::time::sleep(EVERY).await;
    }
}

/// What `path` holds past `offset` (then moved past it), if it can be read.
fn read_from(path: &Path, offset: &mut u64) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    if len < *offset {
        // Cut short (rewritten): only what is written from now on is read.
        *offset = len;
    }
    file.seek(SeekFrom::Start(*offset)).ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    *offset += bytes.len() as u64;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool_use(id: &str, command: &str) -> String {
        json!({ "type": "assistant", "message": { "role": "assistant", "content": [
            { "type": "tool_use", "id": id, "name": "Bash", "input": { "command": command } }] } })
        .to_string()
    }

    fn result(id: &str) -> String {
        json!({ "type": "user", "message": { "role": "user", "content": [
            { "type": "tool_result", "tool_use_id": id, "content": "The user doesn't want to proceed", "is_error": true }] } })
        .to_string()
    }

    #[test]
    fn only_a_result_that_came_after_the_prompt_for_the_one_open_call_it_shows_settles_it() {
        let preview = r#"{ "command": "ls" }"#;
        let mut watch = Watch::new("Bash", preview);
        // Before the prompt: an earlier identical call, already answered; another command.
        for line in [tool_use("t1", "ls"), result("t1"), tool_use("t2", "pwd"), tool_use("t3", "ls")] {
            assert!(!watch.line(&line));
        }
        watch.caught_up();
        assert!(!watch.line(&result("t2")), "another command's result");
        assert!(watch.line(&result("t3")), "the call the prompt was about ran or was refused");

        let mut two = Watch::new("Bash", preview);
        for line in [tool_use("a", "ls"), tool_use("b", "ls")] {
            two.line(&line);
        }
        two.caught_up();
        assert!(!two.line(&result("a")), "two open calls look alike: which prompt was answered is not known");
        assert!(!two.line("not json"));
    }
}
