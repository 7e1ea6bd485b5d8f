//! One `session/request_permission` (ACP v1 schema, `@agentclientprotocol/sdk` 2.4.0): the call it
//! queues, and the agent's option that answers it.
//!
//! The request's `toolCall` is a `ToolCallUpdate`: only `toolCallId` is required, the rest may
//! have come before in `session/update` notifications (`tool_call`, `tool_call_update`), which the
//! relay keeps ([`merged`]). The call shown to the operator is the merge of both: its tool is the
//! tool call's `name` (else its `kind`, else `other`), its arguments the title, kind, raw input,
//! content (diffs, text) and locations — what the operator approves is fingerprinted. The options
//! the agent offers go with the call's context, as its choices.

use crate::app::calls::{CallStatus, NewCall, Outcome};
use crate::domain::CallSource;
use serde_json::{json, Map, Value};

/// The fields of a tool call shown to the operator as its arguments.
const SHOWN: [&str; 5] = ["title", "kind", "rawInput", "content", "locations"];

/// What the operator's decision asks of the agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Approved, this once: the agent's `allow_once`.
    Once,
    /// Approved by an "always allow" grant: the agent's `allow_always` (else `allow_once`).
    Always,
    /// Declined, expired, withdrawn, or no decision reachable: the agent's `reject_once` (else
    /// `reject_always`).
    Reject,
}

/// The choice a call's status asks for. An approval is "always" when its signed receipt (checked
/// by [`crate::connector::ConsoleClient::ask`] before it gets here) names a grant as its approver.
pub fn choice_of(status: &CallStatus) -> Choice {
    if status.outcome != Outcome::Approved {
        return Choice::Reject;
    }
    if crate::connector::always_allowed(status) {
        Choice::Always
    } else {
        Choice::Once
    }
}

/// The `RequestPermissionResponse` for `choice` among the agent's `options` (`PermissionOption`s):
/// the first option of the kind the choice asks for, in order of preference; none of them offered,
/// the `cancelled` outcome — never an option broader than the decision (an approval once never
/// answers `allow_always`) and never an allow for a reject.
pub fn response(options: &Value, choice: Choice) -> Value {
    let kinds: &[&str] = match choice {
        Choice::Once => &["allow_once"],
        Choice::Always => &["allow_always", "allow_once"],
        Choice::Reject => &["reject_once", "reject_always"],
    };
    let offered = options.as_array().map(Vec::as_slice).unwrap_or_default();
    let picked = kinds.iter().find_map(|kind| offered.iter().find(|o| o["kind"] == *kind).and_then(|o| o["optionId"].as_str()));
    match picked {
        Some(id) => json!({ "outcome": { "outcome": "selected", "optionId": id } }),
        None => cancelled(),
    }
}

/// The `cancelled` outcome (the prompt turn was cancelled, or no option fits).
pub fn cancelled() -> Value {
    json!({ "outcome": { "outcome": "cancelled" } })
}

/// A tool call as last known, with `update`'s non-null fields over `known`'s (ACP: an update
/// replaces the fields it carries).
pub fn merged(known: Option<&Value>, update: &Value) -> Value {
    let mut out = known.and_then(Value::as_object).cloned().unwrap_or_default();
    if let Some(fields) = update.as_object() {
        for (k, v) in fields {
            if !v.is_null() {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(out)
}

/// Who and where, around a request: shown with the call, never fingerprinted.
pub struct Around<'a> {
    /// The call's agent in the queue (1–200 characters).
    pub agent: &'a str,
    /// The agent's command line, as the operator should recognise it.
    pub command: &'a str,
    /// The session's working directory, if the relay saw `session/new`.
    pub cwd: Option<&'a str>,
}

/// The call a `session/request_permission`'s `params` asks about, its tool call merged over what
/// the session's updates said of it (`known`). An `Err` (a sentence) for params without a session
/// or a tool call id: the relay answers those with a reject.
pub fn call_of(params: &Value, known: Option<&Value>, around: &Around) -> Result<NewCall, String> {
    let session = params["sessionId"].as_str().filter(|s| !s.is_empty()).ok_or("the permission request names no sessionId")?;
    let tool_call = merged(known, &params["toolCall"]);
    let tool_call_id = tool_call["toolCallId"].as_str().ok_or("the permission request's toolCall has no toolCallId")?;
    let tool = [&tool_call["name"], &tool_call["kind"]]
        .into_iter()
        .find_map(|v| v.as_str().map(str::trim).filter(|s| !s.is_empty()))
        .unwrap_or("other");
    let args: Map<String, Value> =
        SHOWN.iter().filter_map(|k| tool_call.get(*k).filter(|v| !v.is_null()).map(|v| ((*k).to_owned(), v.clone()))).collect();
    let options: Vec<Value> = params["options"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| json!({ "optionId": o["optionId"], "name": o["name"], "kind": o["kind"] }))
        .collect();
    let mut context = json!({
        "event": "session/request_permission",
        "agentCommand": around.command,
        "sessionId": session,
        "toolCallId": tool_call_id,
        "options": options,
    });
    if let Some(cwd) = around.cwd {
        context["cwd"] = json!(cwd);
    }
    Ok(NewCall {
        tool: tool.chars().take(200).collect(),
        args: Value::Object(args),
        agent: around.agent.to_owned(),
        thread: Some(session.to_owned()).filter(|s| s.chars().count() <= 200),
        resume_schema: None,
        payload: None,
        source: Some(CallSource::Acp),
        context: Some(context),
    })
}
