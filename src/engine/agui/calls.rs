//! An AG-UI run's interrupts as the console's calls, and the console's decisions as the run's
//! `resume[]` (shapes of `@ag-ui/core` 1.0: `Interrupt`, `ResumeEntry`).
//!
//! A call per open interrupt: the tool call it names (`toolCallId`, seen in the run's
//! `TOOL_CALL_START`/`TOOL_CALL_ARGS` events) is the call, its name and its arguments; an interrupt
//! that names none is the call `reason` with its message and metadata as arguments. An interrupt
//! with a `responseSchema` asks for data (a suspend the operator answers with data that fits it);
//! any other is an approval. A run's calls are keyed by its thread (`runId` of the queue: a thread
//! waits on its last run's interrupts) and each interrupt's id.

use crate::domain::{
    AgentId, CallKind, CallSource, DecisionKind, EngineId, Error, Fingerprint, PauseKind, PauseReason, PausedCall, RunId, ToolCallId,
    Verdict,
};
use crate::store::agui::StoredRun;
use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

/// Whether an interrupt's `expiresAt` has passed. A value that is no date leaves it unexpired, as
/// the protocol says a consumer reads it.
pub fn expired(interrupt: &Value, now: DateTime<Utc>) -> bool {
    interrupt["expiresAt"].as_str().and_then(|t| DateTime::parse_from_rfc3339(t).ok()).is_some_and(|at| at <= now)
}

/// Whether any open interrupt of `run` expired: the agent takes no resume of it any more.
pub fn run_expired(run: &StoredRun, now: DateTime<Utc>) -> bool {
    run.interrupts.iter().any(|i| expired(&i["interrupt"], now))
}

/// What a stored interrupt is, as the stored run keeps it: the interrupt as sent, the tool call it
/// names (`toolName`, `args`) if the run showed one, and who started the run (`requestedBy`).
pub fn entry(interrupt: &Value, tool: Option<(&str, Value)>, requested_by: Option<&str>) -> Value {
    let mut e = json!({ "interrupt": interrupt });
    if let Some((name, args)) = tool {
        e["toolName"] = json!(name);
        e["args"] = args;
    }
    if let Some(by) = requested_by {
        e["requestedBy"] = json!(by);
    }
    e
}

/// The calls of a stored run, one per interrupt, and the interrupts that cannot be queued (no id,
/// or arguments with no fingerprint).
pub fn calls(engine: &EngineId, run: &StoredRun) -> (Vec<PausedCall>, Vec<String>) {
    let (mut calls, mut rejected) = (Vec::new(), Vec::new());
    let count = run.interrupts.len();
    for (position, e) in run.interrupts.iter().enumerate() {
        match call(engine, run, e, position, count) {
            Ok(c) => calls.push(c),
            Err(why) => rejected.push(format!("thread {}: {why}", run.thread_id)),
        }
    }
    (calls, rejected)
}

fn call(engine: &EngineId, run: &StoredRun, e: &Value, position: usize, count: usize) -> Result<PausedCall, String> {
    let interrupt = &e["interrupt"];
    let id = interrupt["id"].as_str().filter(|s| !s.is_empty()).ok_or("an interrupt without an id")?;
    let reason = interrupt["reason"].as_str().unwrap_or("interrupt");
    let (tool_name, args) = match (e["toolName"].as_str(), e.get("args")) {
        (Some(name), Some(args)) => (name.to_owned(), args.clone()),
        _ => {
            let mut args = Map::new();
            for key in ["message", "metadata"] {
                if let Some(v) = interrupt.get(key) {
                    args.insert(key.into(), v.clone());
                }
            }
            (reason.to_owned(), Value::Object(args))
        }
    };
    let fingerprint = Fingerprint::of(&tool_name, &args).map_err(|e| format!("interrupt {id}: {e}"))?;
    let schema = interrupt.get("responseSchema").filter(|s| s.is_object()).cloned();
    let kind = if schema.is_some() { CallKind::Suspend } else { CallKind::Approval };
    Ok(PausedCall {
        engine: engine.clone(),
        source: CallSource::AgUi,
        agent_id: AgentId::new(engine.as_str()),
        agent_name: None,
        thread_id: Some(run.thread_id.clone()),
        resource_id: None,
        run_id: RunId::new(&run.thread_id),
        tool_call_id: ToolCallId::new(id),
        tool_name,
        args,
        fingerprint,
        kind,
        suspend_payload: Some(json!({
            "agUi": { "runId": run.run_id, "interrupt": interrupt },
            "position": position, "count": count,
        })),
        resume_schema: schema,
        chain: vec![],
        pause_reason: Some(PauseReason::of(PauseKind::Remote)),
        requested_by: e["requestedBy"].as_str().map(str::to_owned),
    })
}

/// The AG-UI run a call's interrupt ended (not its thread).
pub fn run_of(call: &PausedCall) -> Option<&str> {
    call.suspend_payload.as_ref()?["agUi"]["runId"].as_str()
}

/// Position of a call's interrupt in its run.
pub fn position(call: &PausedCall) -> u64 {
    call.suspend_payload.as_ref().and_then(|p| p["position"].as_u64()).unwrap_or(0)
}

/// An approval is approved or declined; an interrupt that asks for data is answered with data or
/// declined. Never edited: the agent resumes its own call.
pub fn allowed(call: &PausedCall) -> Vec<DecisionKind> {
    match call.kind {
        CallKind::Approval => vec![DecisionKind::Approve, DecisionKind::Decline],
        CallKind::Suspend => vec![DecisionKind::Resume, DecisionKind::Decline],
    }
}

/// The `ResumeEntry` that answers `call`'s interrupt with `verdict`: an approval `resolved` with
/// `{approved: true}`; a decline `resolved` with `{approved: false, reason?}` (an interrupt that asked
/// for data: `cancelled`); data `resolved` with the data; an expiry `cancelled`.
pub fn resume_entry(call: &PausedCall, verdict: &Verdict) -> Result<Value, Error> {
    let id = call.tool_call_id.as_str();
    let kind = match verdict {
        Verdict::Expire { .. } => DecisionKind::Decline,
        v => v.kind(),
    };
    if !allowed(call).contains(&kind) {
        return Err(Error::DecisionNotAllowed { kind, allowed: allowed(call) });
    }
    Ok(match verdict {
        Verdict::Approve => json!({ "interruptId": id, "status": "resolved", "payload": { "approved": true } }),
        Verdict::Decline { reason } if call.kind == CallKind::Approval => {
            let mut payload = json!({ "approved": false });
            if let Some(r) = reason {
                payload["reason"] = json!(r);
            }
            json!({ "interruptId": id, "status": "resolved", "payload": payload })
        }
        Verdict::Resume { data } => json!({ "interruptId": id, "status": "resolved", "payload": data }),
        _ => json!({ "interruptId": id, "status": "cancelled" }),
    })
}
