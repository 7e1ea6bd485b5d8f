//! What led to a call (issue 27): the conversation's last messages before it, as its source has them
//! — the local engine's run, a remote engine's thread, the tail of a coding agent's transcript that
//! its hook read. Untrusted text (written by the agent's user, its model or a tool), capped, shown
//! only as text; it never changes what is decided.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most messages kept: the last ones before the call.
pub const MAX_MESSAGES: usize = 6;
/// The most characters of one message kept (its end, where the reason for the call usually is).
pub const MAX_TEXT: usize = 2_000;
/// The most bytes of a transcript's end a hook reads.
pub const TRANSCRIPT_TAIL: u64 = 256 * 1024;

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    User,
    Assistant,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReasonMessage {
    pub role: Speaker,
    pub text: String,
    /// Its start was cut to [`MAX_TEXT`] characters.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

/// Where the messages come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReasonSource {
    /// The engine that holds the run (the local engine, a Mastra or LangGraph server).
    Engine,
    /// The coding agent's hook, from its transcript's end, sent with the call.
    Hook,
    /// Nobody: the source keeps no conversation, or it could not be read (`unavailable` says why).
    None,
}

/// What led to a call: its conversation's last messages, oldest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallReason {
    pub source: ReasonSource,
    pub messages: Vec<ReasonMessage>,
    /// Earlier messages were left out.
    pub earlier: bool,
    /// Why there are none, when the source could not be asked.
    #[schema(required = true)]
    pub unavailable: Option<String>,
}

impl CallReason {
    /// The last [`MAX_MESSAGES`] of `messages` (empty ones dropped), each cut to [`MAX_TEXT`].
    pub fn of(source: ReasonSource, messages: Vec<ReasonMessage>) -> Self {
        let mut kept: Vec<ReasonMessage> = messages.into_iter().filter(|m| !m.text.trim().is_empty()).map(cut).collect();
        let earlier = kept.len() > MAX_MESSAGES;
        kept.drain(..kept.len().saturating_sub(MAX_MESSAGES));
        Self { source, messages: kept, earlier, unavailable: None }
    }

    pub fn unavailable(why: impl Into<String>) -> Self {
        Self { source: ReasonSource::None, messages: vec![], earlier: false, unavailable: Some(why.into()) }
    }
}

/// The message's last [`MAX_TEXT`] characters.
fn cut(mut m: ReasonMessage) -> ReasonMessage {
    let n = m.text.chars().count();
    if n > MAX_TEXT {
        m.text = m.text.chars().skip(n - MAX_TEXT).collect();
        m.cut = true;
    }
    m
}

/// The text of a message's content: a string, or the text blocks of a list (`text`, `input_text`,
/// `output_text`); tool calls, tool results and images are not text.
pub fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| matches!(b.get("type").and_then(Value::as_str), Some("text" | "input_text" | "output_text") | None))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The user's and the assistant's text messages in a coding agent's JSONL transcript (Claude
/// Code's `{"type":"user","message":{"role","content"}}` lines; Codex's `{"type":"response_item",
/// "payload":{"type":"message","role","content"}}`; Gemini CLI's `{"type":"user"|"gemini","content"}`),
/// oldest first. Lines that are not JSON (the first line of a tail read from the middle) and other
/// entries are skipped.
pub fn from_transcript(jsonl: &str) -> Vec<ReasonMessage> {
    let mut out = Vec::new();
    for line in jsonl.lines() {
        let Ok(entry) = serde_json::from_str::<Value>(line) else { continue };
        let message = entry.get("message").or_else(|| entry.get("payload")).unwrap_or(&entry);
        // Gemini CLI's lines are their own message, the speaker in `type`.
        let own = entry.get("message").is_none() && entry.get("payload").is_none() && entry.get("role").is_none();
        let gemini = match entry.get("type").and_then(Value::as_str).filter(|_| own) {
            Some("user") => Some(Speaker::User),
            Some("gemini") => Some(Speaker::Assistant),
            _ => None,
        };
        if gemini.is_none() && message.get("type").and_then(Value::as_str).is_some_and(|t| t != "message") && message.get("role").is_none()
        {
            continue;
        }
        let role = match (gemini, message.get("role").and_then(Value::as_str)) {
            (Some(speaker), _) => speaker,
            (None, Some("user")) => Speaker::User,
            (None, Some("assistant")) => Speaker::Assistant,
            _ => continue,
        };
        let text = message.get("content").map(text_of).unwrap_or_default();
        // Codex, Claude Code and Gemini CLI wrap their own notes to the model in tags; those are no one's words.
        if text.trim().is_empty() || ["<environment_context>", "<session_context>"].iter().any(|t| text.trim_start().starts_with(t)) {
            continue;
        }
        out.push(ReasonMessage { role, text, cut: false });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_claude_code_codex_or_gemini_transcript_gives_the_users_and_the_assistants_words() {
        let claude = [
            json!({ "type": "user", "message": { "role": "user", "content": "clean up the build folder" } }),
            json!({ "type": "assistant", "message": { "role": "assistant", "content": [
                { "type": "text", "text": "I will remove build/." }, { "type": "tool_use", "name": "Bash", "input": {} } ] } }),
            json!({ "type": "user", "message": { "role": "user", "content": [{ "type": "tool_result", "content": "ok" }] } }),
            json!({ "type": "summary", "summary": "x" }),
        ];
        let text = format!("{{\"partial line\n{}", claude.iter().map(Value::to_string).collect::<Vec<_>>().join("\n"));
        assert_eq!(
            from_transcript(&text),
            vec![
                ReasonMessage { role: Speaker::User, text: "clean up the build folder".into(), cut: false },
                ReasonMessage { role: Speaker::Assistant, text: "I will remove build/.".into(), cut: false },
            ]
        );
        let codex = [
            json!({ "type": "response_item", "payload": { "type": "message", "role": "user", "content": [{ "type": "input_text", "text": "<environment_context>cwd</environment_context>" }] } }),
            json!({ "type": "response_item", "payload": { "type": "message", "role": "user", "content": [{ "type": "input_text", "text": "bump the version" }] } }),
            json!({ "type": "response_item", "payload": { "type": "function_call", "name": "shell" } }),
        ];
        let text = codex.iter().map(Value::to_string).collect::<Vec<_>>().join("\n");
        assert_eq!(from_transcript(&text), vec![ReasonMessage { role: Speaker::User, text: "bump the version".into(), cut: false }]);
        let gemini = [
            json!({ "sessionId": "s", "kind": "main" }),
            json!({ "$set": { "messages": [{ "type": "user", "content": [{ "text": "<session_context>\nThis is the Gemini CLI.</session_context>" }] }] } }),
            json!({ "id": "u1", "type": "user", "content": [{ "text": "clean up" }] }),
            json!({ "id": "g1", "type": "gemini", "content": "I will remove build/.", "thoughts": [] }),
            json!({ "id": "g2", "type": "gemini", "content": "", "toolCalls": [{ "name": "run_shell_command" }] }),
        ];
        let text = gemini.iter().map(Value::to_string).collect::<Vec<_>>().join("\n");
        assert_eq!(
            from_transcript(&text),
            vec![
                ReasonMessage { role: Speaker::User, text: "clean up".into(), cut: false },
                ReasonMessage { role: Speaker::Assistant, text: "I will remove build/.".into(), cut: false },
            ]
        );
    }

    #[test]
    fn only_the_last_messages_are_kept_each_cut_to_its_end() {
        let many: Vec<ReasonMessage> = (0..9).map(|i| ReasonMessage { role: Speaker::User, text: format!("m{i}"), cut: false }).collect();
        let r = CallReason::of(ReasonSource::Hook, many);
        assert_eq!(r.messages.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(), ["m3", "m4", "m5", "m6", "m7", "m8"]);
        assert!(r.earlier);
        let long = ReasonMessage { role: Speaker::Assistant, text: format!("{}end", "x".repeat(MAX_TEXT)), cut: false };
        let r = CallReason::of(ReasonSource::Engine, vec![long]);
        assert!(r.messages[0].cut && r.messages[0].text.ends_with("end") && r.messages[0].text.chars().count() == MAX_TEXT);
    }
}
