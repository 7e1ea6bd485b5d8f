//! Claude Code's channel relay (`approval-console channel claude-code`): an MCP server over stdio
//! that Claude Code starts as a channel. It declares the `claude/channel/permission` capability, so
//! when Claude Code opens a permission dialog it also sends the prompt here
//! (`notifications/claude/channel/permission_request`); the relay queues it in the console and
//! answers with the operator's decision (`notifications/claude/channel/permission`). The local
//! dialog stays up and the first answer wins: no hook timeout, and a phone can answer for a
//! session at the desk.
//!
//! The relay carries only `request_id`, `tool_name`, `description` and `input_preview` (the
//! arguments as JSON, cut at 200 characters). The call is queued with exactly those as its
//! arguments, so the operator's answer is bound (by its fingerprint and receipt) to what the
//! operator saw, and marked preview-only: the console rates it high risk for that reason
//! (`domain::safety::Care`), so no grant, notification button or engine-client route approves it,
//! and the window asks its confirm step. Undecided within its time limit, it is withdrawn and the
//! relay says nothing: the local dialog decides. While the console restarts, the prompt is asked about
//! again ([`ConsoleClient::ask_patiently`]). Claude Code never says when the dialog answered
//! first: the session's transcript does ([`evidence`]), and the call is withdrawn then.
//!
//! Where the PermissionRequest (or PreToolUse) hook asks about the same tool call, the console joins
//! the two (`app::calls` `join`): the relayed call leaves the queue for the hook's, which has the
//! whole input, and the relay answers with that call's decision ([`ConsoleClient::follow`]). The
//! relay's calls carry the Claude Code session they came from as their thread ([`session_from_env`]).

pub mod evidence;

use crate::app::calls::{NewCall, Outcome};
use crate::connector::ConsoleClient;
use crate::domain::CallSource;
use rmcp::model::{CustomNotification, Implementation, ServerCapabilities, ServerConfig, ServerNotification};
use rmcp::service::NotificationContext;
use rmcp::{RoleServer, ServerHandler};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// What Claude Code sends a permission-relaying channel when its dialog opens.
pub const PERMISSION_REQUEST: &str = "notifications/claude/channel/permission_request";
/// What a channel sends back: `{request_id, behavior: "allow" | "deny"}`.
pub const PERMISSION: &str = "notifications/claude/channel/permission";
/// The capabilities a channel declares: a channel at all, and one that relays permission prompts.
pub const CAPABILITIES: [&str; 2] = ["claude/channel", "claude/channel/permission"];

/// A relayed permission prompt, as Claude Code sends it.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct Prompt {
    pub request_id: String,
    pub tool_name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub input_preview: String,
}

impl Prompt {
    /// A prompt from a notification's parameters, or why it is not one. Claude Code's request ids
    /// are five lowercase letters (`a`–`z` without `l`); anything else is refused, never queued.
    pub fn parse(params: Option<&Value>) -> Result<Self, String> {
        let prompt: Prompt =
            serde_json::from_value(params.cloned().unwrap_or(Value::Null)).map_err(|e| format!("not a permission prompt: {e}"))?;
        let id_ok = prompt.request_id.len() == 5 && prompt.request_id.bytes().all(|b| b.is_ascii_lowercase() && b != b'l');
        if !id_ok {
            return Err(format!("request_id {:?} is not five lowercase letters", prompt.request_id));
        }
        if prompt.tool_name.trim().is_empty() || prompt.tool_name.len() > 200 {
            return Err("tool_name is empty or longer than 200 characters".into());
        }
        // The preview is cut at 200 characters by Claude Code; a longer one is not what it sends.
        if prompt.input_preview.chars().count() > 400 || prompt.description.chars().count() > 4_000 {
            return Err("input_preview or description is longer than Claude Code sends".into());
        }
        Ok(prompt)
    }

    /// The call queued for it: exactly what the operator will see, marked preview-only, in Claude
    /// Code's `session` (where known: what the console joins it with the hook's call by).
    pub fn call(&self, agent: &str, session: Option<&str>) -> NewCall {
        NewCall {
            tool: self.tool_name.clone(),
            args: json!({ "description": self.description, "input_preview": self.input_preview }),
            agent: agent.to_owned(),
            thread: session.map(str::to_owned),
            resume_schema: None,
            payload: None,
            source: Some(CallSource::ClaudeCode),
            context: Some(json!({ "preview": true, "relay": crate::app::calls::RELAY, "requestId": self.request_id })),
        }
    }
}

/// What the relay answers for an outcome (`edited`: the approval came with edited arguments):
/// `allow` for an approval whose receipt held, `deny` for a decline — and for an approval of edited
/// arguments, which the relay cannot carry (Claude Code would run its own input, not the edit); nothing
/// otherwise (undecided, withdrawn, an error: the local dialog decides).
pub fn behavior(outcome: &Result<(Outcome, bool), String>) -> Option<&'static str> {
    match outcome {
        Ok((Outcome::Approved, false)) => Some("allow"),
        Ok((Outcome::Approved, true)) | Ok((Outcome::Declined, _)) => Some("deny"),
        _ => None,
    }
}

/// [`behavior`] for the outcome of the hook's call a prompt was joined into: the same, except that
/// an edit is the hook's to carry (Claude Code takes the edited input from it) — a `deny` here
/// could beat it to the dialog, so nothing is sent.
pub fn joined_behavior(outcome: &Result<(Outcome, bool), String>) -> Option<&'static str> {
    match outcome {
        Ok((Outcome::Approved, true)) => None,
        other => behavior(other),
    }
}

/// The Claude Code session this channel was started in: `CLAUDE_CODE_SESSION_ID`, which Claude
/// Code sets for the MCP servers it starts (2.1.328) — unless `CLAUDE_CODE_LAUNCHED_BY_SESSION_IDS`
/// (which a server's own configuration cannot override) names another: then none, and nothing joins.
pub fn session_from_env() -> Option<String> {
    let var = |k: &str| std::env::var(k).ok();
    session_of(var("CLAUDE_CODE_SESSION_ID"), var("CLAUDE_CODE_LAUNCHED_BY_SESSION_IDS"))
}

/// [`session_from_env`] of those two variables' values.
fn session_of(session: Option<String>, launched_by: Option<String>) -> Option<String> {
    let given = |v: Option<String>| v.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    let session = given(session)?;
    match given(launched_by) {
        Some(launched) if launched != session => None,
        _ => (session.chars().count() <= 200 && !session.chars().any(char::is_control)).then_some(session),
    }
}

/// The channel: the console to ask and how long a prompt may wait there.
pub struct Relay {
    console: Result<Arc<ConsoleClient>, String>,
    agent: String,
    timeout: Duration,
    /// This process's own prefix of the calls' idempotency keys (request ids repeat across sessions).
    session: String,
    /// The Claude Code session it serves, where known ([`session_from_env`]).
    claude_session: Option<String>,
}

impl Relay {
    pub fn new(console: Result<ConsoleClient, String>, agent: String, timeout: Duration) -> Self {
        Self { console: console.map(Arc::new), agent, timeout, session: format!("{:016x}", rand::random::<u64>()), claude_session: None }
    }

    /// The relay for Claude Code's session `session`: its prompts can join the hook's calls there.
    pub fn in_session(mut self, session: Option<String>) -> Self {
        self.claude_session = session;
        self
    }
}

impl ServerHandler for Relay {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::default();
        capabilities.experimental = Some(CAPABILITIES.iter().map(|c| (c.to_string(), serde_json::Map::new())).collect());
        let mut info = ServerConfig::new(capabilities);
        info.server_info = Implementation::new("approval-console-channel", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(
            "Relays Claude Code's permission prompts to Approval Console; an operator's answer there comes back as this channel's permission verdict. It sends no chat messages.".into(),
        );
        info
    }

    async fn on_custom_notification(&self, notification: CustomNotification, context: NotificationContext<RoleServer>) {
        if notification.method != PERMISSION_REQUEST {
            tracing::debug!(method = %notification.method, "ignored");
            return;
        }
        let prompt = match Prompt::parse(notification.params.as_ref()) {
            Ok(prompt) => prompt,
            Err(why) => {
                tracing::warn!("permission prompt refused: {why}");
                return;
            }
        };
        let console = match &self.console {
            Ok(console) => console.clone(),
            Err(why) => {
                tracing::warn!(request = %prompt.request_id, "not relayed, the local dialog decides: {why}");
                return;
            }
        };
        let (call, key, timeout) = (
            prompt.call(&self.agent, self.claude_session.as_deref()),
            format!("claude-channel-{}-{}", self.session, prompt.request_id),
            self.timeout,
        );
        let peer = context.peer.clone();
        let session = self.claude_session.clone();
        tokio::spawn(async move {
            let started = std::time::Instant::now();
            // The session's transcript showing the tool call ran or was refused: the dialog was
            // answered elsewhere, the call leaves the queue (no session known: only the time limit).
            let settled = || {
                let (tool, preview) = (prompt.tool_name.clone(), prompt.input_preview.clone());
                let session = session.clone();
                async move {
                    match session {
                        Some(session) => evidence::settled(session, tool, preview).await,
                        None => std::future::pending().await,
                    }
                }
            };
            let asked = console.ask_patiently_unless(&call, &key, timeout, settled()).await;
            let outcome = match asked {
                Ok(status) if status.outcome == Outcome::Withdrawn && status.joined_into.is_some() => {
                    // Joined into the hook's call for the same tool call: its decision is the answer,
                    // checked against the whole input the operator saw and this prompt's preview.
                    let into = status.joined_into.unwrap_or_default();
                    tracing::info!(request = %prompt.request_id, call = %into, "joined the hook's call");
                    let left = timeout.saturating_sub(started.elapsed());
                    let shown = |args: &Value| crate::domain::preview::shows(&prompt.input_preview, args);
                    let followed = console.follow(&into, &prompt.tool_name, left, shown, settled()).await;
                    joined_behavior(&followed.map(|s| (s.outcome, s.edited)))
                }
                other => behavior(&other.map(|s| (s.outcome, s.edited))),
            };
            let Some(behavior) = outcome else {
                tracing::info!(request = %prompt.request_id, "no answer relayed, the local dialog decides");
                return;
            };
            let verdict = CustomNotification::new(PERMISSION, Some(json!({ "request_id": prompt.request_id, "behavior": behavior })));
            if let Err(e) = peer.send_notification(ServerNotification::CustomNotification(verdict)).await {
                tracing::warn!(request = %prompt.request_id, "the answer could not be sent: {e}");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_prompt_as_claude_code_sends_it_is_queued() {
        let ok = json!({ "request_id": "abcde", "tool_name": "Bash", "description": "Run tests", "input_preview": "{\"command\":\"npm test\"}" });
        let prompt = Prompt::parse(Some(&ok)).unwrap();
        assert_eq!(
            prompt.call("claude-code", None).args,
            json!({ "description": "Run tests", "input_preview": "{\"command\":\"npm test\"}" })
        );
        assert_eq!(prompt.call("claude-code", None).context.unwrap()["preview"], true);
        for bad in [
            json!({ "request_id": "abcdl", "tool_name": "Bash" }),
            json!({ "request_id": "ABCDE", "tool_name": "Bash" }),
            json!({ "request_id": "abcdef", "tool_name": "Bash" }),
            json!({ "request_id": "abcde", "tool_name": "" }),
            json!({ "request_id": "abcde", "tool_name": "Bash", "input_preview": "x".repeat(401) }),
            json!({ "tool_name": "Bash" }),
        ] {
            assert!(Prompt::parse(Some(&bad)).is_err(), "{bad}");
        }
        assert!(Prompt::parse(None).is_err());
    }

    #[test]
    fn only_an_approval_allows_and_only_a_decline_denies() {
        assert_eq!(behavior(&Ok((Outcome::Approved, false))), Some("allow"));
        assert_eq!(behavior(&Ok((Outcome::Declined, false))), Some("deny"));
        assert_eq!(
            behavior(&Ok((Outcome::Approved, true))),
            Some("deny"),
            "an edit cannot be relayed: what would run is not what was approved"
        );
        assert_eq!(joined_behavior(&Ok((Outcome::Approved, true))), None, "joined: the hook carries the edit, a deny could beat it");
        assert_eq!(joined_behavior(&Ok((Outcome::Approved, false))), Some("allow"));
        assert_eq!(joined_behavior(&Ok((Outcome::Declined, false))), Some("deny"));
        let quiet = [(Outcome::Pending, false), (Outcome::Withdrawn, false), (Outcome::Answered, false)];
        for quiet in quiet.into_iter().map(Ok).chain([Err("unreachable".to_owned())]) {
            assert_eq!(behavior(&quiet), None, "{quiet:?}: the local dialog decides");
        }
    }

    #[test]
    fn the_session_is_claude_codes_unless_the_variable_it_cannot_be_configured_over_says_otherwise() {
        let some = |s: &str| Some(s.to_owned());
        assert_eq!(session_of(some("s-1"), None), some("s-1"));
        assert_eq!(session_of(some("s-1"), some("s-1")), some("s-1"));
        assert_eq!(session_of(some("s-1"), some("s-2")), None, "a server's configuration set another session id");
        assert_eq!(session_of(some(" "), None), None);
        assert_eq!(session_of(None, some("s-1")), None);
    }
}
