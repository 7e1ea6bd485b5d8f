//! An A2A task that waits (`TASK_STATE_INPUT_REQUIRED` or `TASK_STATE_AUTH_REQUIRED`) as a queue
//! call, and a decision as the message that continues it (the console's convention, README "A2A
//! agents").
//!
//! What the agent asks is its status message. A DataPart in it naming a tool (`{tool | toolName |
//! name, args | arguments | input}`) makes the call an approval of that tool with those arguments;
//! without one the call is a question (tool `input-required` or `auth-required`) whose arguments are
//! the message's text and data, answered with data. Either way the fingerprint covers what the
//! operator sees, so a request changed in place is a changed call (C3). The task is the run, its
//! context the thread, the request message's id the tool call id: a task that asks again asks with a
//! new message, a new call.
//!
//! The decision goes back as the next message on the task (same task and context ids), a text part
//! for people and a DataPart for the agent: `{decision: "approve"}`, `{decision: "decline", reason}`
//! or `{decision: "answer", answer}`, each with the decision's signed `receipt`.

use crate::domain::{
    AgentId, CallKind, CallSource, Decision, DecisionKind, EngineId, Error, Fingerprint, PauseKind, PauseReason, PausedCall, RunId,
    ToolCallId, Verdict,
};
use serde_json::{json, Map, Value};

/// The waiting states, as the v1.0 JSON binding names them.
pub const INPUT_REQUIRED: &str = "TASK_STATE_INPUT_REQUIRED";
pub const AUTH_REQUIRED: &str = "TASK_STATE_AUTH_REQUIRED";
pub const WAITING: [&str; 2] = [INPUT_REQUIRED, AUTH_REQUIRED];

/// The call a task waits on, `None` if it waits on nothing; `Err` (why) if it waits but cannot be read.
pub fn call(engine: &EngineId, agent: &str, task: &Value) -> Result<Option<PausedCall>, String> {
    let state = task["status"]["state"].as_str().unwrap_or_default();
    let short = match state {
        INPUT_REQUIRED => "input-required",
        AUTH_REQUIRED => "auth-required",
        _ => return Ok(None),
    };
    let id = task["id"].as_str().filter(|i| !i.is_empty()).ok_or("a task without an id")?;
    let context = task["contextId"].as_str().filter(|c| !c.is_empty());
    let message = &task["status"]["message"];
    let request = message["messageId"]
        .as_str()
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
        .or_else(|| task["status"]["timestamp"].as_str().map(|t| format!("{id}@{t}")))
        .ok_or_else(|| format!("task {id}: {short} without a status message or timestamp"))?;
    let parts = message["parts"].as_array().cloned().unwrap_or_default();
    let text: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
    let text = text.join("\n");
    let data: Vec<&Value> = parts.iter().filter_map(|p| p.get("data")).collect();
    let named = data.iter().find_map(|d| {
        let tool = ["tool", "toolName", "name"].iter().find_map(|k| d.get(*k)?.as_str().filter(|t| !t.trim().is_empty()))?;
        let args = ["args", "arguments", "input"].iter().find_map(|k| d.get(*k)).cloned().unwrap_or_else(|| json!({}));
        Some((tool.to_owned(), args))
    });
    let payload = json!({ "convention": "a2a", "state": short, "text": text, "contextId": context });
    let (tool, args, kind, schema) = match named {
        Some((tool, args)) => (tool, args, CallKind::Approval, None),
        None => {
            let mut args = Map::new();
            args.insert("question".into(), json!(text));
            if !data.is_empty() {
                args.insert("data".into(), Value::Array(data.into_iter().cloned().collect()));
            }
            (short.to_owned(), Value::Object(args), CallKind::Suspend, Some(json!({})))
        }
    };
    let fingerprint = Fingerprint::of(&tool, &args).map_err(|e| format!("task {id}: arguments cannot be fingerprinted: {e}"))?;
    Ok(Some(PausedCall {
        engine: engine.clone(),
        source: CallSource::A2a,
        agent_id: AgentId::new(agent),
        agent_name: Some(agent.to_owned()),
        thread_id: context.map(str::to_owned),
        resource_id: None,
        run_id: RunId::new(id),
        tool_call_id: ToolCallId::new(request),
        tool_name: tool,
        args,
        fingerprint,
        kind,
        suspend_payload: Some(payload),
        resume_schema: schema,
        chain: vec![],
        requested_by: None,
        pause_reason: Some(PauseReason::of(PauseKind::Remote)),
    }))
}

/// What a call allows: an approval is approved or declined (no edit: A2A has no way to say which
/// arguments to run instead), a question is answered or declined.
pub fn allowed(call: &PausedCall) -> Vec<DecisionKind> {
    match call.kind {
        CallKind::Approval => vec![DecisionKind::Approve, DecisionKind::Decline],
        CallKind::Suspend => vec![DecisionKind::Resume, DecisionKind::Decline],
    }
}

/// The message that carries `decision` on `call`'s task: a text part for people, a DataPart for
/// the agent, with the decision's receipt. Its id is the decision's own, so a message sent again
/// after a cut-short delivery is the same message.
pub fn message(call: &PausedCall, decision: &Decision) -> Result<Value, Error> {
    let kind = decision.verdict.kind();
    if !allowed(call).contains(&kind) {
        return Err(Error::DecisionNotAllowed { kind, allowed: allowed(call) });
    }
    let (said, mut data) = match &decision.verdict {
        Verdict::Approve => ("Approved by the operator.".to_owned(), json!({ "decision": "approve" })),
        Verdict::Decline { reason: Some(r) } => (format!("Declined by the operator: {r}"), json!({ "decision": "decline", "reason": r })),
        Verdict::Decline { reason: None } => ("Declined by the operator.".to_owned(), json!({ "decision": "decline" })),
        Verdict::Expire { after_secs } => {
            let why = Verdict::expiry_text(*after_secs);
            (why.clone(), json!({ "decision": "decline", "reason": why }))
        }
        Verdict::Resume { data } => {
            let said = data.as_str().map(str::to_owned).unwrap_or_else(|| data.to_string());
            (said, json!({ "decision": "answer", "answer": data }))
        }
        Verdict::ApproveEdited { .. } => return Err(Error::DecisionNotAllowed { kind: DecisionKind::Edit, allowed: allowed(call) }),
    };
    if let Some(receipt) = &decision.receipt {
        data["receipt"] = json!(receipt);
    }
    let mut message = json!({
        "messageId": format!("approval-console-{}", decision.id),
        "taskId": call.run_id,
        "role": "ROLE_USER",
        "parts": [{ "text": said, "mediaType": "text/plain" }, { "data": data, "mediaType": "application/json" }],
    });
    if let Some(context) = &call.thread_id {
        message["contextId"] = json!(context);
    }
    Ok(message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{DecisionId, Delivery, ItemId};

    fn task(state: &str, parts: Value) -> Value {
        json!({ "id": "t-1", "contextId": "c-1", "status": { "state": state, "timestamp": "2026-12-07T20:27:01.304Z",
            "message": { "messageId": "m-1", "role": "ROLE_AGENT", "parts": parts } } })
    }

    fn decision(call: &PausedCall, verdict: Verdict) -> Decision {
        Decision {
            id: DecisionId::generate(),
            item_id: ItemId::generate(),
            verdict,
            fingerprint: call.fingerprint.clone(),
            operator: "o".into(),
            decided_at: crate::store::now(),
            delivery: Delivery::Delivering,
            outcome: None,
            attempts: 0,
            last_error: None,
            next_attempt_at: None,
            receipt: Some("eyJ.receipt".into()),
        }
    }

    #[test]
    fn a_data_part_naming_a_tool_is_an_approval_of_that_tool_with_its_arguments() {
        let t = task(
            INPUT_REQUIRED,
            json!([{ "text": "May I refund?" }, { "data": { "tool": "refund_order", "args": { "order": "o-1", "amount": 120 } } }]),
        );
        let c = call(&EngineId::new("a"), "refund-agent", &t).unwrap().unwrap();
        assert_eq!((c.tool_name.as_str(), c.run_id.as_str(), c.tool_call_id.as_str()), ("refund_order", "t-1", "m-1"));
        assert_eq!((c.kind, c.thread_id.as_deref(), c.source), (CallKind::Approval, Some("c-1"), CallSource::A2a));
        assert_eq!(c.fingerprint, Fingerprint::of("refund_order", &json!({ "order": "o-1", "amount": 120 })).unwrap());
        assert_eq!(c.suspend_payload.as_ref().unwrap()["text"], "May I refund?");
        assert_eq!(allowed(&c), [DecisionKind::Approve, DecisionKind::Decline]);
    }

    #[test]
    fn words_alone_are_a_question_whose_text_is_fingerprinted() {
        let t = task(AUTH_REQUIRED, json!([{ "text": "Which region?" }]));
        let c = call(&EngineId::new("a"), "x", &t).unwrap().unwrap();
        assert_eq!((c.tool_name.as_str(), c.kind), ("auth-required", CallKind::Suspend));
        assert_eq!(c.args, json!({ "question": "Which region?" }));
        let other = call(&EngineId::new("a"), "x", &task(AUTH_REQUIRED, json!([{ "text": "Which city?" }]))).unwrap().unwrap();
        assert_ne!(c.fingerprint, other.fingerprint, "a question changed in place is a changed call");
        assert_eq!(allowed(&c), [DecisionKind::Resume, DecisionKind::Decline]);
    }

    #[test]
    fn a_task_that_waits_on_nothing_is_no_call_and_an_unreadable_one_is_named() {
        assert!(call(&EngineId::new("a"), "x", &task("TASK_STATE_WORKING", json!([]))).unwrap().is_none());
        let e = call(&EngineId::new("a"), "x", &json!({ "status": { "state": INPUT_REQUIRED } })).unwrap_err();
        assert!(e.contains("without an id"), "{e}");
    }

    #[test]
    fn decisions_go_back_as_a_text_and_a_data_part_with_the_receipt_on_the_same_task() {
        let t = task(INPUT_REQUIRED, json!([{ "data": { "tool": "refund_order", "args": {} } }]));
        let c = call(&EngineId::new("a"), "x", &t).unwrap().unwrap();
        let d = decision(&c, Verdict::Decline { reason: Some("too much".into()) });
        let m = message(&c, &d).unwrap();
        assert_eq!((m["taskId"].as_str(), m["contextId"].as_str(), m["role"].as_str()), (Some("t-1"), Some("c-1"), Some("ROLE_USER")));
        assert_eq!(m["messageId"], format!("approval-console-{}", d.id));
        assert_eq!(m["parts"][0]["text"], "Declined by the operator: too much");
        assert_eq!(m["parts"][1]["data"], json!({ "decision": "decline", "reason": "too much", "receipt": "eyJ.receipt" }));
        let a = message(&c, &decision(&c, Verdict::Approve)).unwrap();
        assert_eq!(a["parts"][1]["data"]["decision"], "approve");
        assert!(matches!(message(&c, &decision(&c, Verdict::Resume { data: json!(1) })), Err(Error::DecisionNotAllowed { .. })));

        let q = call(&EngineId::new("a"), "x", &task(INPUT_REQUIRED, json!([{ "text": "Which region?" }]))).unwrap().unwrap();
        let answer = message(&q, &decision(&q, Verdict::Resume { data: json!("eu-west") })).unwrap();
        assert_eq!(answer["parts"][0]["text"], "eu-west");
        assert_eq!(answer["parts"][1]["data"], json!({ "decision": "answer", "answer": "eu-west", "receipt": "eyJ.receipt" }));
    }
}
