//! Coding agents' hooks (`approval-console hook claude-code|codex|gemini`): the hook event a coding
//! agent writes on the hook's stdin becomes a submitted call ([`crate::app::calls::NewCall`]), and
//! the call's outcome becomes the decision JSON that agent reads from the hook's stdout. Claude Code
//! and Codex use the same event names and shapes for `PreToolUse` and `PermissionRequest`; they
//! differ in what an answer may carry (Claude Code takes edited input, Codex refuses it and fails
//! closed). Gemini CLI's `BeforeTool` takes the same fields in, and reads a top-level `decision`
//! (`allow` / `deny`) and `reason` back: a Gemini hook reads nothing else, whatever the input was.
//!
//! Fail closed: whatever goes wrong — unreadable input, an event this hook does not answer, the
//! console unreachable, no decision in time — the answer is a deny with the reason, never an allow.

mod file;
pub mod gemini_policy;
pub mod install;

pub use file::{file_on_disk, MAX_FILE, MAX_FILE_JSON};

use crate::app::calls::{CallStatus, NewCall, Outcome};
use crate::domain::CallSource;
use serde_json::{json, Value};

/// Which coding agent runs the hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    ClaudeCode,
    Codex,
    Gemini,
}

impl Agent {
    pub fn source(self) -> CallSource {
        match self {
            Agent::ClaudeCode => CallSource::ClaudeCode,
            Agent::Codex => CallSource::Codex,
            Agent::Gemini => CallSource::Gemini,
        }
    }

    /// The event this agent's hook is installed on, whose answer shape a deny takes when the input
    /// named no event the agent sends.
    pub fn event(self) -> Event {
        match self {
            Agent::ClaudeCode | Agent::Codex => Event::PreToolUse,
            Agent::Gemini => Event::BeforeTool,
        }
    }

    /// Whether this agent sends `event` (an answer shaped for another agent's event would be read
    /// by this one as no answer at all: Gemini CLI takes a `PreToolUse` deny for an allow).
    pub fn sends(self, event: Event) -> bool {
        (event == Event::BeforeTool) == (self == Agent::Gemini)
    }

    pub fn name(self) -> &'static str {
        self.source().as_str()
    }
}

/// The hook events answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Before a tool runs: `permissionDecision` allow / deny.
    PreToolUse,
    /// Where the agent would ask its user: `decision.behavior` allow / deny.
    PermissionRequest,
    /// Gemini CLI, before a tool runs: a top-level `decision` allow / deny and its `reason`.
    BeforeTool,
}

impl Event {
    pub fn name(self) -> &'static str {
        match self {
            Event::PreToolUse => "PreToolUse",
            Event::PermissionRequest => "PermissionRequest",
            Event::BeforeTool => "BeforeTool",
        }
    }
}

/// A hook event as read from stdin.
#[derive(Clone, Debug, PartialEq)]
pub struct HookEvent {
    pub event: Event,
    pub tool_name: String,
    pub tool_input: Value,
    pub session_id: Option<String>,
    pub tool_use_id: Option<String>,
    pub cwd: Option<String>,
    pub permission_mode: Option<String>,
    /// The agent's conversation so far (a JSONL file), where it says.
    pub transcript_path: Option<String>,
    /// Claude Code's `PermissionRequest`: the permission updates its dialog's "always allow" would
    /// make, from which the answer to a grant's approval takes its session rule.
    pub permission_suggestions: Option<Value>,
}

/// Why an input cannot be asked about; the hook denies with it. `event` is the event it names, if
/// it names one this hook answers (the deny is shaped for it).
#[derive(Clone, Debug, PartialEq)]
pub struct BadInput {
    pub event: Option<Event>,
    pub reason: String,
}

/// Reads the event JSON a coding agent wrote on stdin.
pub fn parse(input: &str) -> Result<HookEvent, BadInput> {
    let value: Value =
        serde_json::from_str(input).map_err(|e| BadInput { event: None, reason: format!("the hook input is not JSON: {e}") })?;
    let Some(obj) = value.as_object() else {
        return Err(BadInput { event: None, reason: "the hook input is not a JSON object".into() });
    };
    let text = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_owned);
    let event = match text("hook_event_name").as_deref() {
        Some("PreToolUse") => Event::PreToolUse,
        Some("PermissionRequest") => Event::PermissionRequest,
        Some("BeforeTool") => Event::BeforeTool,
        Some(other) => {
            return Err(BadInput {
                event: None,
                reason: format!(
                    "this hook answers PreToolUse, PermissionRequest and BeforeTool, not {other:?}: check the hook's event in the settings"
                ),
            })
        }
        None => return Err(BadInput { event: None, reason: "the hook input has no hook_event_name".into() }),
    };
    let bad = |reason: String| BadInput { event: Some(event), reason };
    let tool_name = text("tool_name").filter(|t| !t.is_empty()).ok_or_else(|| bad("the hook input has no tool_name".into()))?;
    let tool_input = obj.get("tool_input").cloned().ok_or_else(|| bad("the hook input has no tool_input".into()))?;
    Ok(HookEvent {
        event,
        tool_name,
        tool_input,
        session_id: text("session_id").filter(|s| !s.is_empty()),
        tool_use_id: text("tool_use_id").filter(|s| !s.is_empty()),
        cwd: text("cwd"),
        permission_mode: text("permission_mode"),
        transcript_path: text("transcript_path").filter(|p| !p.is_empty()),
        permission_suggestions: obj.get("permission_suggestions").filter(|v| v.as_array().is_some_and(|a| !a.is_empty())).cloned(),
    })
}

impl HookEvent {
    /// The call to queue: the tool and its input as the agent would run them, the session as the
    /// thread, and the working directory and event around it.
    pub fn call(&self, agent: Agent) -> NewCall {
        let mut context = serde_json::Map::new();
        context.insert("event".into(), json!(self.event.name()));
        for (k, v) in [("cwd", &self.cwd), ("permissionMode", &self.permission_mode), ("toolUseId", &self.tool_use_id)] {
            if let Some(v) = v {
                context.insert(k.into(), json!(v));
            }
        }
        if let Some(suggested) = &self.permission_suggestions {
            context.insert("permissionSuggestions".into(), suggested.clone());
        }
        NewCall {
            tool: self.tool_name.clone(),
            args: self.tool_input.clone(),
            agent: agent.name().to_owned(),
            thread: self.session_id.clone(),
            resume_schema: None,
            payload: None,
            source: Some(agent.source()),
            context: Some(Value::Object(context)),
        }
    }

    /// The idempotency key of this call: the agent's own tool-use id where it sends one (a hook run
    /// again for the same call finds it queued), else `None` (each run queues anew).
    pub fn idempotency_key(&self, agent: Agent) -> Option<String> {
        let id = self.tool_use_id.as_ref()?;
        Some(format!("{}:{}:{}:{id}", agent.name(), self.event.name(), self.session_id.as_deref().unwrap_or("-")))
    }
}

/// The last messages of the agent's transcript (a JSONL file), for the console to show what led to
/// the call: read from its last [`crate::domain::reason::TRANSCRIPT_TAIL`] bytes, the user's and the
/// assistant's words only, capped ([`crate::domain::reason::CallReason::of`]). `None` when it cannot
/// be read or holds none: the call is asked about all the same.
pub fn transcript_tail(path: &str) -> Option<Value> {
    use crate::domain::reason::{from_transcript, CallReason, ReasonSource, TRANSCRIPT_TAIL};
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(TRANSCRIPT_TAIL))).ok()?;
    let mut bytes = Vec::new();
    file.take(TRANSCRIPT_TAIL).read_to_end(&mut bytes).ok()?;
    let messages = from_transcript(&String::from_utf8_lossy(&bytes));
    let kept = CallReason::of(ReasonSource::Hook, messages).messages;
    (!kept.is_empty()).then(|| serde_json::to_value(kept).expect("messages serialize"))
}

/// The answer for a decided call: allow (with the edited input where the agent takes it) or deny.
pub fn answer(agent: Agent, event: Event, status: &CallStatus) -> Value {
    match status.outcome {
        Outcome::Approved => {
            let edited = status.edited.then(|| status.args.clone()).flatten();
            if edited.is_some() && !crate::engine::kinds::takes_edits(agent.source()) {
                // Codex fails closed on updatedInput, Gemini CLI would merge it into the model's
                // arguments: the console offers no edit for their calls.
                return deny(agent, Some(event), "the operator edited the input, which this agent cannot run as edited: ask again");
            }
            allow(event, edited, "approved in Approval Console")
        }
        Outcome::Declined => {
            let why = match (&status.reason, status.expired) {
                (Some(r), true) => format!("nobody decided in time in Approval Console ({r})"),
                (Some(r), false) => format!("declined in Approval Console: {r}"),
                (None, _) => "declined in Approval Console".to_owned(),
            };
            deny(agent, Some(event), &why)
        }
        Outcome::Answered => deny(agent, Some(event), "Approval Console answered with data, which a hook cannot pass on"),
        Outcome::Withdrawn => deny(agent, Some(event), "the call left the Approval Console queue undecided"),
        Outcome::Pending => deny(agent, Some(event), "no decision in Approval Console"),
    }
}

/// `answer` for `call` as asked, with the agent's own rule when the approval came with "always allow"
/// ([`crate::connector::always_allowed_in`]: a grant approved it, as its checked receipt says, in the
/// scope the receipt claims): `updatedPermissions` in a `PermissionRequest`'s allow, as
/// [`crate::domain::session_rule`] makes it from the call — the rule the console's audit of the
/// grant's use records. Any other answer is left as it is (Gemini CLI's rule is a file:
/// [`gemini_policy`]).
pub fn with_session_rule(mut answer: Value, call: &NewCall, status: &CallStatus) -> Value {
    let Some(decision) = answer.pointer_mut("/hookSpecificOutput/decision").and_then(Value::as_object_mut) else { return answer };
    if decision.get("behavior").and_then(Value::as_str) != Some("allow") {
        return answer;
    }
    let (Some(scope), Some(source)) = (crate::connector::always_allowed_in(status), call.source) else { return answer };
    if let Some(rule) = crate::domain::session_rule::of(source, &call.args, call.context.as_ref(), scope) {
        decision.insert("updatedPermissions".into(), rule.rule);
    }
    answer
}

fn allow(event: Event, updated_input: Option<Value>, reason: &str) -> Value {
    match event {
        Event::PreToolUse => {
            let mut out = json!({ "hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": reason });
            if let Some(input) = updated_input {
                out["updatedInput"] = input;
            }
            json!({ "hookSpecificOutput": out })
        }
        Event::PermissionRequest => {
            let mut decision = json!({ "behavior": "allow" });
            if let Some(input) = updated_input {
                decision["updatedInput"] = input;
            }
            json!({ "hookSpecificOutput": { "hookEventName": "PermissionRequest", "decision": decision } })
        }
        // Never edited input (Gemini CLI's calls take no edit: `engine::kinds`).
        Event::BeforeTool => json!({ "decision": "allow", "reason": reason }),
    }
}

/// A deny with `reason` (the agent shows it to its model), shaped for `event`; an input that named
/// no event this agent sends gets a deny shaped for the event its hook is installed on.
pub fn deny(agent: Agent, event: Option<Event>, reason: &str) -> Value {
    match event.filter(|e| agent.sends(*e)).unwrap_or(agent.event()) {
        Event::PreToolUse => json!({ "hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason } }),
        Event::PermissionRequest => json!({ "hookSpecificOutput": {
            "hookEventName": "PermissionRequest", "decision": { "behavior": "deny", "message": reason } } }),
        Event::BeforeTool => json!({ "decision": "deny", "reason": reason }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transcripts_end_gives_its_last_words_and_an_unreadable_one_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut lines = vec![json!({ "type": "user", "message": { "role": "user", "content": "x".repeat(300_000) } }).to_string()];
        lines.push(json!({ "type": "user", "message": { "role": "user", "content": "remove the old build" } }).to_string());
        std::fs::write(&path, lines.join("\n")).unwrap();
        let tail = transcript_tail(path.to_str().unwrap()).unwrap();
        // The huge first line is cut off by the tail (not JSON there): only the last message is read.
        assert_eq!(tail, json!([{ "role": "user", "text": "remove the old build" }]));
        assert_eq!(transcript_tail(dir.path().join("none").to_str().unwrap()), None);
    }

    fn status(outcome: Outcome) -> CallStatus {
        CallStatus { id: "q_1".into(), outcome, ..Default::default() }
    }

    #[test]
    fn a_claude_code_pre_tool_use_event_becomes_a_call_with_its_session_as_thread() {
        let e = parse(
            r#"{"session_id":"s-1","transcript_path":"/t","cwd":"/repo","permission_mode":"default","hook_event_name":"PreToolUse",
            "tool_name":"Bash","tool_input":{"command":"rm -rf build","description":"clean"},"tool_use_id":"toolu_1"}"#,
        )
        .unwrap();
        let call = e.call(Agent::ClaudeCode);
        assert_eq!((call.tool.as_str(), call.thread.as_deref(), call.agent.as_str()), ("Bash", Some("s-1"), "claude-code"));
        assert_eq!(call.args, json!({"command": "rm -rf build", "description": "clean"}));
        assert_eq!(call.context, Some(json!({"event": "PreToolUse", "cwd": "/repo", "permissionMode": "default", "toolUseId": "toolu_1"})));
        assert_eq!(e.idempotency_key(Agent::ClaudeCode).as_deref(), Some("claude-code:PreToolUse:s-1:toolu_1"));
    }

    #[test]
    fn a_gemini_before_tool_event_is_answered_with_a_top_level_decision_and_every_deny_it_gets_is_one_it_reads() {
        let e = parse(
            r#"{"session_id":"g-1","transcript_path":"/t.jsonl","cwd":"/repo","hook_event_name":"BeforeTool",
            "timestamp":"2026-12-07T14:30:57.701Z","tool_name":"run_shell_command","tool_input":{"command":"rm -rf build"}}"#,
        )
        .unwrap();
        let call = e.call(Agent::Gemini);
        assert_eq!((call.tool.as_str(), call.thread.as_deref(), call.agent.as_str()), ("run_shell_command", Some("g-1"), "gemini"));
        assert_eq!(call.source, Some(CallSource::Gemini));
        assert_eq!(e.idempotency_key(Agent::Gemini), None, "Gemini sends no id of the call: each run queues anew");
        let mut approved = status(Outcome::Approved);
        assert_eq!(
            answer(Agent::Gemini, Event::BeforeTool, &approved),
            json!({ "decision": "allow", "reason": "approved in Approval Console" })
        );
        approved.edited = true;
        approved.args = Some(json!({ "command": "ls" }));
        assert_eq!(answer(Agent::Gemini, Event::BeforeTool, &approved)["decision"], "deny", "an edit Gemini would merge: fail closed");
        let mut declined = status(Outcome::Declined);
        declined.reason = Some("not in prod".into());
        assert_eq!(
            answer(Agent::Gemini, Event::BeforeTool, &declined),
            json!({ "decision": "deny", "reason": "declined in Approval Console: not in prod" })
        );
        // Gemini reads only a top-level decision: a deny for input it could not have sent, or that
        // named no event, is shaped as Gemini reads it, never as Claude Code's (which Gemini allows).
        for event in [None, Some(Event::PreToolUse), Some(Event::PermissionRequest)] {
            assert_eq!(deny(Agent::Gemini, event, "no")["decision"], "deny", "{event:?}");
        }
        assert!(!Agent::Gemini.sends(Event::PreToolUse) && Agent::Gemini.sends(Event::BeforeTool));
        assert!(!Agent::Codex.sends(Event::BeforeTool) && Agent::ClaudeCode.sends(Event::PermissionRequest));
        assert_eq!(deny(Agent::Codex, Some(Event::BeforeTool), "no")["hookSpecificOutput"]["permissionDecision"], "deny");
    }

    #[test]
    fn an_approval_by_a_grant_writes_the_agents_session_rule_into_a_permission_request_allow_only() {
        use crate::connector::tests::approved_by;
        let suggested = json!([{ "type": "addRules", "behavior": "allow", "destination": "localSettings",
            "rules": [{ "toolName": "Bash", "ruleContent": "npm:*" }] }]);
        let input = json!({ "session_id": "s-1", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
            "tool_input": { "command": "npm test" }, "permission_suggestions": suggested });
        let e = parse(&input.to_string()).unwrap();
        let claude = e.call(Agent::ClaudeCode);
        assert_eq!(claude.context.as_ref().unwrap()["permissionSuggestions"], suggested, "kept with the call: shown and audited");
        let grant = crate::domain::receipt::grant_approver(&crate::domain::GrantId::new("g-1"));
        let (by_grant, by_alice) = (approved_by(vec![grant]), approved_by(vec!["local:alice".into()]));
        let out =
            |agent: Agent, call: &NewCall, event: Event, status: &CallStatus| with_session_rule(answer(agent, event, status), call, status);
        let allowed = out(Agent::ClaudeCode, &claude, Event::PermissionRequest, &by_grant);
        assert_eq!(
            allowed["hookSpecificOutput"]["decision"],
            json!({ "behavior": "allow", "updatedPermissions": [{ "type": "addRules", "behavior": "allow", "destination": "session",
                "rules": [{ "toolName": "Bash", "ruleContent": "npm test" }] }] })
        );
        let once = out(Agent::ClaudeCode, &claude, Event::PermissionRequest, &by_alice);
        assert_eq!(once["hookSpecificOutput"]["decision"], json!({ "behavior": "allow" }), "an operator's approval is once");
        let codex = e.call(Agent::Codex);
        assert_eq!(
            out(Agent::Codex, &codex, Event::PermissionRequest, &by_grant)["hookSpecificOutput"]["decision"]["updatedPermissions"],
            json!([{ "type": "addRules", "behavior": "allow", "destination": "session", "rules": [{ "type": "prefixRule", "command": ["npm", "test"] }] }])
        );
        // PreToolUse takes no rule; a decline never carries one.
        let mut pre = e.clone();
        pre.event = Event::PreToolUse;
        let pre_call = pre.call(Agent::ClaudeCode);
        assert_eq!(
            out(Agent::ClaudeCode, &pre_call, Event::PreToolUse, &by_grant),
            answer(Agent::ClaudeCode, Event::PreToolUse, &by_grant)
        );
        let mut declined = by_grant.clone();
        declined.outcome = Outcome::Declined;
        assert!(out(Agent::ClaudeCode, &claude, Event::PermissionRequest, &declined)["hookSpecificOutput"]["decision"]
            .get("updatedPermissions")
            .is_none());
    }

    #[test]
    fn a_grant_in_project_or_user_scope_sends_the_destination_its_signed_receipt_claims() {
        use crate::connector::tests::approved_by_grant_in;
        use crate::domain::session_rule::RuleScope;
        let input = json!({ "session_id": "s-1", "hook_event_name": "PermissionRequest", "tool_name": "Bash", "cwd": "/repo",
            "tool_input": { "command": "cargo test" } });
        let e = parse(&input.to_string()).unwrap();
        let sent = |agent: Agent, scope| {
            let status = approved_by_grant_in("g-1", scope);
            with_session_rule(answer(agent, Event::PermissionRequest, &status), &e.call(agent), &status)["hookSpecificOutput"]["decision"]
                ["updatedPermissions"][0]["destination"]
                .clone()
        };
        for (scope, destination) in
            [(RuleScope::Session, "session"), (RuleScope::Project, "projectSettings"), (RuleScope::User, "userSettings")]
        {
            assert_eq!(sent(Agent::Codex, scope), destination, "Codex, {scope:?}");
            assert_eq!(sent(Agent::ClaudeCode, scope), destination, "Claude Code, {scope:?}");
        }
    }

    #[test]
    fn bad_input_names_why_and_the_event_when_it_can() {
        assert_eq!(parse("not json").unwrap_err().event, None);
        assert!(parse(r#"{"hook_event_name":"Stop"}"#).unwrap_err().reason.contains("\"Stop\""));
        let e = parse(r#"{"hook_event_name":"PermissionRequest","tool_input":{}}"#).unwrap_err();
        assert_eq!((e.event, e.reason.as_str()), (Some(Event::PermissionRequest), "the hook input has no tool_name"));
    }

    #[test]
    fn answers_are_shaped_as_each_event_expects_and_only_claude_code_gets_edited_input() {
        let mut approved = status(Outcome::Approved);
        approved.args = Some(json!({"command": "ls"}));
        assert_eq!(
            answer(Agent::Codex, Event::PreToolUse, &approved)["hookSpecificOutput"]["permissionDecision"],
            "allow",
            "an approval without an edit carries no updatedInput"
        );
        assert!(answer(Agent::Codex, Event::PreToolUse, &approved)["hookSpecificOutput"].get("updatedInput").is_none());
        approved.edited = true;
        let claude = answer(Agent::ClaudeCode, Event::PermissionRequest, &approved);
        assert_eq!(claude["hookSpecificOutput"]["decision"], json!({"behavior": "allow", "updatedInput": {"command": "ls"}}));
        let codex = answer(Agent::Codex, Event::PermissionRequest, &approved);
        assert_eq!(codex["hookSpecificOutput"]["decision"]["behavior"], "deny", "Codex cannot run an edit: fail closed");
        let mut declined = status(Outcome::Declined);
        declined.reason = Some("not in prod".into());
        let out = answer(Agent::ClaudeCode, Event::PreToolUse, &declined);
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(out["hookSpecificOutput"]["permissionDecisionReason"], "declined in Approval Console: not in prod");
        for o in [Outcome::Pending, Outcome::Withdrawn, Outcome::Answered] {
            assert_eq!(
                answer(Agent::ClaudeCode, Event::PreToolUse, &status(o))["hookSpecificOutput"]["permissionDecision"],
                "deny",
                "{o:?}"
            );
        }
    }
}
