//! Codex's own reviewer ("auto-review", "guardian": `approvals_reviewer = "auto_review"`) answers
//! the approvals a thread routes to it instead of asking the client. When it denies an action, Codex
//! tells the client (`item/autoApprovalReview/completed`, `review.status: denied`) and the action
//! does not run; a client may then let a person override that one denial
//! (`thread/approveGuardianDeniedAction`). Codex runs nothing then: it records in the thread that
//! the user approved that exact action, and the agent's retry goes through the reviewer again,
//! which now knows it. The override is a reviewer swap for one action, never a permission grant.
//!
//! The bridge passes the notification on unchanged and queues the denied action as a call of
//! source `codex` — the command, or the file change as a diff, as the approval requests are
//! ([`super::Tracker::approval`]) — with the reviewer's rationale as its reason and
//! `guardianDenied: true` in its context, which rates it high
//! ([`crate::domain::safety::Care`]): no grant, and so no "always allow", overrides Codex's
//! reviewer. Only an operator's unedited approval whose receipt holds — what
//! [`super::decision`] answers `accept` for — sends the override, once per review, as a request
//! of the bridge's own whose answer is never passed to the client. A decline, an edit, a withdrawal,
//! an expiry, an unreachable console or a grant's approval send nothing: the denial stands.

use super::Tracker;
use crate::app::calls::{CallStatus, NewCall};
use crate::domain::CallSource;
use serde_json::{json, Map, Value};

/// Codex's word that its reviewer finished a review.
pub const REVIEW_COMPLETED: &str = "item/autoApprovalReview/completed";
/// The override of one denial, asked by the bridge.
pub const APPROVE_DENIED: &str = "thread/approveGuardianDeniedAction";

/// A denied action to ask the console about, and the override to send if an operator approves it.
#[derive(Clone, Debug)]
pub struct Denial {
    pub call: NewCall,
    /// The Idempotency-Key: the same review asked about again is the same call.
    pub key: String,
    /// The reviewer's id of the review.
    pub review: String,
    /// `thread/approveGuardianDeniedAction`'s params: the thread, and the review as Codex's core
    /// `GuardianAssessmentEvent` (snake_case, where the notification is camelCase).
    pub params: Value,
}

impl Tracker {
    /// The denial `msg` reports, the first time it does: `Some(Ok)` to ask the console about,
    /// `Some(Err(why))` for one nobody can be shown (an action of a kind the queue does not show,
    /// a file change whose changes were never announced): its denial stands. `None` for any other
    /// message, an approval or a review already seen.
    pub fn denial(&mut self, msg: &Value) -> Option<Result<Denial, String>> {
        let params = &msg["params"];
        if msg["method"] != REVIEW_COMPLETED || params["review"]["status"] != "denied" {
            return None;
        }
        let text = |v: &Value| v.as_str().filter(|s| !s.is_empty()).map(str::to_owned);
        let (Some(thread), Some(turn), Some(review)) = (text(&params["threadId"]), text(&params["turnId"]), text(&params["reviewId"]))
        else {
            return Some(Err(format!("{REVIEW_COMPLETED} without threadId, turnId and reviewId")));
        };
        if !self.reviews.insert(review.clone()) {
            return None;
        }
        let action = &params["action"];
        let item = text(&params["targetItemId"]);
        let (tool, args) = match action["type"].as_str() {
            Some("command") => {
                let Some(command) = text(&action["command"]) else { return Some(Err(format!("denied review {review} names no command"))) };
                ("Bash", json!({ "command": command }))
            }
            Some("applyPatch") => {
                let Some(patch) = item.as_ref().and_then(|i| self.changes.get(i)).and_then(super::patch_of) else {
                    return Some(Err(format!("denied file change of review {review} was never announced with its changes")));
                };
                ("apply_patch", json!({ "input": patch }))
            }
            other => {
                return Some(Err(format!("denied review {review} of a {} action: not shown in the queue", other.unwrap_or("unnamed"))))
            }
        };
        let review_of = &params["review"];
        let mut context = Map::new();
        context.insert("event".into(), json!(REVIEW_COMPLETED));
        context.insert("guardianDenied".into(), json!(true));
        context.insert("reviewId".into(), json!(review));
        context.insert("turnId".into(), json!(turn));
        if let Some(item) = &item {
            context.insert("itemId".into(), json!(item));
        }
        if let Some(cwd) = text(&action["cwd"]).or_else(|| self.cwds.get(&thread).cloned()) {
            context.insert("cwd".into(), json!(cwd));
        }
        for (from, to) in [("rationale", "reason"), ("riskLevel", "riskLevel"), ("userAuthorization", "userAuthorization")] {
            if let Some(v) = review_of.get(from).filter(|v| !v.is_null()) {
                context.insert(to.into(), v.clone());
            }
        }
        Some(Ok(Denial {
            call: NewCall {
                tool: tool.into(),
                args,
                agent: super::AGENT.into(),
                thread: Some(thread.clone()),
                resume_schema: None,
                payload: None,
                source: Some(CallSource::Codex),
                context: Some(Value::Object(context)),
            },
            key: format!("codex-app:guardian:{thread}:{review}"),
            params: json!({ "threadId": thread, "event": core_event(params) }),
            review,
        }))
    }
}

/// The review of a `item/autoApprovalReview/completed` notification as Codex's core
/// `GuardianAssessmentEvent`, which `thread/approveGuardianDeniedAction` takes: the same fields in
/// snake_case, the action's tag and source too (`applyPatch` → `apply_patch`, `unifiedExec` →
/// `unified_exec`: Codex 0.169.0 refuses the notification's own spelling).
pub fn core_event(params: &Value) -> Value {
    let review = &params["review"];
    json!({
        "id": params["reviewId"],
        "target_item_id": params["targetItemId"],
        "turn_id": params["turnId"],
        "started_at_ms": params["startedAtMs"],
        "completed_at_ms": params["completedAtMs"],
        "status": review["status"],
        "risk_level": review["riskLevel"],
        "user_authorization": review["userAuthorization"],
        "rationale": review["rationale"],
        "decision_source": params["decisionSource"],
        "action": snake_case_action(&params["action"]),
    })
}

/// An action's keys in snake_case, and its `type` and `source` values.
fn snake_case_action(action: &Value) -> Value {
    let Value::Object(fields) = action else { return action.clone() };
    let fields = fields.iter().map(|(k, v)| {
        let v = match (k.as_str(), v) {
            ("type" | "source", Value::String(s)) => Value::String(snake_case(s)),
            _ => v.clone(),
        };
        (snake_case(k), v)
    });
    Value::Object(fields.collect())
}

fn snake_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The bridge's request ids start with this, then a number no client can guess: Codex answers
/// them to the bridge, which keeps the answers.
pub fn own_id_prefix() -> String {
    format!("approval-console:{}:", uuid::Uuid::now_v7())
}

/// Whether `msg` is Codex's answer to one of the bridge's own requests (ids under `prefix`).
pub fn is_own_answer(msg: &Value, prefix: &str) -> bool {
    msg.get("method").is_none() && msg["id"].as_str().is_some_and(|id| id.starts_with(prefix))
}

/// The override to send Codex for `denial`, as request `id`, when the console answered an
/// operator's approval of the action as the reviewer saw it — exactly what an approval request is
/// answered `accept` for ([`super::decision`]): unedited, its receipt checked. `acceptForSession`
/// (a grant approved it) overrides nothing, nor does anything else.
pub fn override_request(asked: &Result<CallStatus, String>, denial: &Denial, id: &str) -> Option<Value> {
    (super::decision(asked) == "accept").then(|| json!({ "id": id, "method": APPROVE_DENIED, "params": denial.params }))
}
