//! A LangGraph server's interrupted threads as queue calls, and decisions as the resume values its
//! graphs read — the two common conventions and a plain `interrupt(value)`, as the official server
//! lists them (`GET /threads/{id}`, `POST /threads/search {status: "interrupted"}`; shapes pinned by
//! tests/langgraph-server/smoke.test.mjs):
//!
//! - Agent Inbox's `HumanInterrupt`: the value is a list of `{action_request: {action, args},
//!   config: {allow_accept, allow_edit, allow_respond, allow_ignore}, description}`, answered by a
//!   list of one `HumanResponse` per request (`{type: accept | edit | response | ignore, args}`).
//! - LangChain's `humanInTheLoopMiddleware`: `{actionRequests: [{name, args, description}],
//!   reviewConfigs: [{actionName, allowedDecisions}]}` (snake_case in Python), answered by
//!   `{decisions: [...]}`, one decision per request, all at once.
//! - Anything else: a call that waits for data (`resume` with any JSON).
//!
//! Each action request is one call: its tool and arguments fingerprinted (S7), the thread as run and
//! thread, the graph as agent, the interrupt's id (and the request's position, where one interrupt
//! holds several) as the tool call id. What a call allows and how it is answered travel with it in
//! its `suspend_payload` (`convention`…), so both follow from the stored call alone.

use crate::domain::{
    AgentId, CallKind, DecisionKind, EngineId, Error, Fingerprint, PauseKind, PauseReason, PausedCall, RunId, ToolCallId, Verdict,
};
use serde_json::{json, Map, Value};

/// The conventions, as named in a call's `suspend_payload.convention`.
pub const AGENT_INBOX: &str = "agent-inbox";
pub const HITL: &str = "hitl-middleware";
pub const PLAIN: &str = "interrupt";

/// The calls of one thread as the server lists it, and the interrupts that could not be read (why).
pub fn calls(engine: &EngineId, thread: &Value) -> (Vec<PausedCall>, Vec<String>) {
    let mut out = vec![];
    let mut rejected = vec![];
    let Some(thread_id) = thread["thread_id"].as_str().filter(|t| !t.is_empty()) else {
        return (out, vec!["a thread without thread_id".into()]);
    };
    let graph = thread["metadata"]["graph_id"].as_str().or_else(|| thread["metadata"]["assistant_id"].as_str()).unwrap_or("graph");
    let Some(tasks) = thread["interrupts"].as_object() else { return (out, rejected) };
    // Tasks in a stable order: the server's map order is not one.
    let mut tasks: Vec<(&String, &Value)> = tasks.iter().collect();
    tasks.sort_by(|a, b| a.0.cmp(b.0));
    for (_task, interrupts) in tasks {
        for i in interrupts.as_array().into_iter().flatten() {
            let Some(id) = i["id"].as_str().filter(|id| !id.is_empty()) else {
                rejected.push(format!("thread {thread_id}: an interrupt without an id"));
                continue;
            };
            let base = Base { engine, thread_id, graph, interrupt: id };
            match read(&base, &i["value"]) {
                Ok(calls) => out.extend(calls),
                Err(why) => rejected.push(format!("thread {thread_id}, interrupt {id}: {why}")),
            }
        }
    }
    (out, rejected)
}

struct Base<'a> {
    engine: &'a EngineId,
    thread_id: &'a str,
    graph: &'a str,
    interrupt: &'a str,
}

impl Base<'_> {
    fn call(
        &self,
        position: Option<usize>,
        tool: &str,
        args: Value,
        kind: CallKind,
        payload: Value,
        schema: Option<Value>,
    ) -> Result<PausedCall, String> {
        let fingerprint = Fingerprint::of(tool, &args).map_err(|e| format!("arguments cannot be fingerprinted: {e}"))?;
        let tool_call_id = match position {
            Some(p) => format!("{}/{p}", self.interrupt),
            None => self.interrupt.to_owned(),
        };
        Ok(PausedCall {
            engine: self.engine.clone(),
            source: crate::domain::CallSource::Langgraph,
            agent_id: AgentId::new(self.graph),
            agent_name: None,
            thread_id: Some(self.thread_id.to_owned()),
            resource_id: None,
            run_id: RunId::new(self.thread_id),
            tool_call_id: ToolCallId::new(tool_call_id),
            tool_name: tool.to_owned(),
            args,
            fingerprint,
            kind,
            suspend_payload: Some(payload),
            resume_schema: schema,
            chain: vec![],
            requested_by: None,
            pause_reason: Some(PauseReason::of(PauseKind::Remote)),
        })
    }
}

fn read(base: &Base, value: &Value) -> Result<Vec<PausedCall>, String> {
    // Agent Inbox: a list of HumanInterrupts (one object alone is read the same way).
    let inbox: Option<Vec<&Value>> = match value {
        Value::Array(items) if !items.is_empty() && items.iter().all(|i| i.get("action_request").is_some()) => Some(items.iter().collect()),
        Value::Object(o) if o.contains_key("action_request") => Some(vec![value]),
        _ => None,
    };
    if let Some(items) = inbox {
        let many = items.len() > 1;
        return items
            .iter()
            .enumerate()
            .map(|(k, item)| {
                let request = &item["action_request"];
                let action = request["action"].as_str().filter(|a| !a.is_empty()).ok_or("an action_request without action")?;
                let config = &item["config"];
                let flag = |name: &str| config[name].as_bool().unwrap_or(false);
                let payload = json!({
                    "convention": AGENT_INBOX,
                    "description": item.get("description").cloned().unwrap_or(Value::Null),
                    "config": { "allow_accept": flag("allow_accept"), "allow_edit": flag("allow_edit"),
                        "allow_respond": flag("allow_respond"), "allow_ignore": flag("allow_ignore") },
                    "position": k, "count": items.len(), "list": matches!(value, Value::Array(_)),
                });
                base.call(many.then_some(k), action, request.get("args").cloned().unwrap_or(json!({})), CallKind::Approval, payload, None)
            })
            .collect();
    }
    // humanInTheLoopMiddleware, camelCase (JS) or snake_case (Python).
    let requests = value.get("actionRequests").or_else(|| value.get("action_requests"));
    if let Some(requests) = requests {
        let requests = requests.as_array().filter(|r| !r.is_empty()).ok_or("actionRequests is not a list of requests")?;
        let configs =
            value.get("reviewConfigs").or_else(|| value.get("review_configs")).and_then(Value::as_array).cloned().unwrap_or_default();
        let snake = value.get("action_requests").is_some();
        return requests
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let name = r["name"].as_str().filter(|n| !n.is_empty()).ok_or("an action request without name")?;
                let allowed: Vec<Value> = configs
                    .iter()
                    .find(|c| c.get("actionName").or_else(|| c.get("action_name")).and_then(Value::as_str) == Some(name))
                    .and_then(|c| c.get("allowedDecisions").or_else(|| c.get("allowed_decisions")))
                    .and_then(Value::as_array)
                    .cloned()
                    // No review config for it: the middleware's default allows all three.
                    .unwrap_or_else(|| vec![json!("approve"), json!("edit"), json!("reject")]);
                let payload = json!({
                    "convention": HITL, "description": r.get("description").cloned().unwrap_or(Value::Null),
                    "allowedDecisions": allowed, "position": k, "count": requests.len(), "snakeCase": snake,
                });
                base.call(
                    (requests.len() > 1).then_some(k),
                    name,
                    r.get("args").cloned().unwrap_or(json!({})),
                    CallKind::Approval,
                    payload,
                    None,
                )
            })
            .collect();
    }
    // A plain interrupt(value): the value is what it asks; any JSON answers it.
    let payload = json!({ "convention": PLAIN, "question": value.as_str().map(str::to_owned), "value": value });
    Ok(vec![base.call(None, "interrupt", Value::Null, CallKind::Suspend, payload, Some(json!({})))?])
}

/// The decisions a call allows, from its stored convention.
pub fn allowed(call: &PausedCall) -> Vec<DecisionKind> {
    let p = call.suspend_payload.as_ref().unwrap_or(&Value::Null);
    match p["convention"].as_str() {
        Some(AGENT_INBOX) => {
            let flag = |n: &str| p["config"][n].as_bool().unwrap_or(false);
            let mut kinds = vec![];
            if flag("allow_accept") {
                kinds.push(DecisionKind::Approve);
            }
            if flag("allow_respond") || flag("allow_ignore") {
                kinds.push(DecisionKind::Decline);
            }
            if flag("allow_edit") && call.args.is_object() {
                kinds.push(DecisionKind::Edit);
            }
            kinds
        }
        Some(HITL) => {
            let allowed: Vec<&str> = p["allowedDecisions"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            let mut kinds = vec![];
            if allowed.contains(&"approve") {
                kinds.push(DecisionKind::Approve);
            }
            if allowed.contains(&"reject") {
                kinds.push(DecisionKind::Decline);
            }
            if allowed.contains(&"edit") && call.args.is_object() {
                kinds.push(DecisionKind::Edit);
            }
            kinds
        }
        Some(PLAIN) => vec![DecisionKind::Resume],
        _ => vec![],
    }
}

/// One call's answer in its convention: for Agent Inbox the whole resume value of its interrupt
/// (with one request; see [`inbox_resume`] for several), for the middleware this request's entry of
/// `decisions` (see [`hitl_resume`]), for a plain interrupt the data itself.
pub fn answer(call: &PausedCall, verdict: &Verdict) -> Result<Value, Error> {
    let p = call.suspend_payload.as_ref().unwrap_or(&Value::Null);
    let refused = |kind: DecisionKind| Error::DecisionNotAllowed { kind, allowed: allowed(call) };
    let kind = verdict_kind(verdict);
    if !allowed(call).contains(&kind) {
        return Err(refused(kind));
    }
    match p["convention"].as_str() {
        Some(AGENT_INBOX) => Ok(match verdict {
            Verdict::Approve => json!({ "type": "accept", "args": null }),
            Verdict::ApproveEdited { args, .. } => json!({ "type": "edit", "args": { "action": call.tool_name, "args": args } }),
            // A reason is the response; a decline without one ignores the request where it may be
            // ignored (so the operator chooses between the two by writing a reason or not).
            Verdict::Decline { reason: Some(r) } if p["config"]["allow_respond"].as_bool() == Some(true) => {
                json!({ "type": "response", "args": r })
            }
            Verdict::Decline { reason: None }
                if p["config"]["allow_respond"].as_bool() == Some(true) && p["config"]["allow_ignore"].as_bool() != Some(true) =>
            {
                json!({ "type": "response", "args": "Declined by the operator." })
            }
            Verdict::Expire { after_secs } if p["config"]["allow_respond"].as_bool() == Some(true) => {
                json!({ "type": "response", "args": Verdict::expiry_text(*after_secs) })
            }
            Verdict::Decline { .. } | Verdict::Expire { .. } => json!({ "type": "ignore", "args": null }),
            Verdict::Resume { .. } => return Err(refused(DecisionKind::Resume)),
        }),
        Some(HITL) => Ok(match verdict {
            Verdict::Approve => json!({ "type": "approve" }),
            Verdict::ApproveEdited { args, .. } => json!({ "type": "edit", "editedAction": { "name": call.tool_name, "args": args } }),
            Verdict::Decline { reason } => match reason {
                Some(r) => json!({ "type": "reject", "message": r }),
                None => json!({ "type": "reject" }),
            },
            Verdict::Expire { after_secs } => json!({ "type": "reject", "message": Verdict::expiry_text(*after_secs) }),
            Verdict::Resume { .. } => return Err(refused(DecisionKind::Resume)),
        }),
        Some(PLAIN) => match verdict {
            Verdict::Resume { data } => Ok(data.clone()),
            other => Err(refused(verdict_kind(other))),
        },
        _ => Err(Error::Engine("the call does not say which interrupt convention it follows".into())),
    }
}

/// An Agent Inbox interrupt's resume value from the answers of its requests, in order (the graph
/// reads a list of one HumanResponse per request; a single object for an interrupt that was one).
pub fn inbox_resume(answers: Vec<Value>, list: bool) -> Value {
    if list || answers.len() != 1 {
        Value::Array(answers)
    } else {
        answers.into_iter().next().expect("one answer")
    }
}

/// A middleware interrupt's resume value from the decisions of all its requests, in order.
pub fn hitl_resume(decisions: Vec<Value>) -> Value {
    let mut m = Map::new();
    m.insert("decisions".into(), Value::Array(decisions));
    Value::Object(m)
}

/// The resume run for a thread: answers by interrupt id (`{"<id>": value}`), which the server
/// takes for one interrupt or several (each id is 32 hex digits). `reject`: a run already going on
/// the thread is never interrupted or rolled back for it; the server refuses this one (busy).
pub fn resume_command(graph: &str, answers: &[(String, Value)]) -> Value {
    let map: Map<String, Value> = answers.iter().cloned().collect();
    json!({ "assistant_id": graph, "command": { "resume": map }, "multitask_strategy": "reject" })
}

/// The interrupt a call answers (its tool call id without the request's position).
pub fn interrupt_of(call: &PausedCall) -> &str {
    let id = call.tool_call_id.as_str();
    id.split_once('/').map_or(id, |(i, _)| i)
}

fn verdict_kind(v: &Verdict) -> DecisionKind {
    match v {
        Verdict::Approve => DecisionKind::Approve,
        Verdict::ApproveEdited { .. } => DecisionKind::Edit,
        Verdict::Decline { .. } | Verdict::Expire { .. } => DecisionKind::Decline,
        Verdict::Resume { .. } => DecisionKind::Resume,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> EngineId {
        EngineId::new("lg")
    }

    /// A thread as `GET /threads/{id}` lists it (the shapes tests/langgraph-server/smoke.test.mjs pins).
    fn thread(interrupts: Value) -> Value {
        json!({ "thread_id": "01a23422-c625-7068-95f8-43f08040b9f3", "status": "interrupted",
            "metadata": { "graph_id": "inbox", "assistant_id": "a90bb9b8" }, "interrupts": interrupts })
    }

    #[test]
    fn an_agent_inbox_interrupt_is_one_approval_with_what_its_config_allows() {
        let t = thread(json!({ "task-1": [{ "id": "74a2417e9b6ccd33239b956b119ede3e", "value": [{
            "action_request": { "action": "send_email", "args": { "to": "bob@example.com" } },
            "config": { "allow_accept": true, "allow_edit": true, "allow_respond": true, "allow_ignore": true },
            "description": "Send the email?" }] }] }));
        let (calls, rejected) = calls(&engine(), &t);
        assert!(rejected.is_empty(), "{rejected:?}");
        let [c] = &calls[..] else { panic!("{calls:?}") };
        assert_eq!(
            (c.tool_name.as_str(), c.agent_id.as_str(), c.run_id.as_str()),
            ("send_email", "inbox", "01a23422-c625-7068-95f8-43f08040b9f3")
        );
        assert_eq!(c.tool_call_id.as_str(), "74a2417e9b6ccd33239b956b119ede3e");
        assert_eq!(
            c.fingerprint,
            Fingerprint::of("send_email", &json!({ "to": "bob@example.com" })).unwrap(),
            "S7 over the action and its args"
        );
        assert_eq!(allowed(c), [DecisionKind::Approve, DecisionKind::Decline, DecisionKind::Edit]);
        assert_eq!(answer(c, &Verdict::Approve).unwrap(), json!({ "type": "accept", "args": null }));
        assert_eq!(
            answer(c, &Verdict::Decline { reason: Some("not today".into()) }).unwrap(),
            json!({ "type": "response", "args": "not today" })
        );
        let edited = json!({ "to": "carol@example.com" });
        let fp = Fingerprint::of("send_email", &edited).unwrap();
        assert_eq!(
            answer(c, &Verdict::ApproveEdited { args: edited.clone(), fingerprint: fp }).unwrap(),
            json!({ "type": "edit", "args": { "action": "send_email", "args": edited } })
        );
        assert_eq!(inbox_resume(vec![json!({ "type": "accept", "args": null })], true), json!([{ "type": "accept", "args": null }]));
        assert_eq!(answer(c, &Verdict::Decline { reason: None }).unwrap(), json!({ "type": "ignore", "args": null }), "no reason: ignored");
    }

    #[test]
    fn an_inbox_call_allows_only_what_its_config_says() {
        let t = thread(json!({ "t": [{ "id": "10489e00b73498ccb37c6ff2bdbbb361", "value": [{
            "action_request": { "action": "refund_order", "args": { "order": "ord-1" } },
            "config": { "allow_accept": true, "allow_edit": false, "allow_respond": false, "allow_ignore": true } }] }] }));
        let (calls, _) = calls(&engine(), &t);
        assert_eq!(allowed(&calls[0]), [DecisionKind::Approve, DecisionKind::Decline]);
        assert_eq!(
            answer(&calls[0], &Verdict::Decline { reason: Some("no".into()) }).unwrap(),
            json!({ "type": "ignore", "args": null }),
            "no respond: ignore"
        );
        assert!(matches!(answer(&calls[0], &Verdict::Resume { data: json!(1) }), Err(Error::DecisionNotAllowed { .. })));
    }

    #[test]
    fn a_middleware_interrupt_is_one_call_per_action_request_answered_together() {
        let t = thread(json!({ "5eab": [{ "id": "a6b92aba0712af537e069ca42f1dc2e1", "value": {
            "actionRequests": [
                { "name": "delete_file", "args": { "path": "/srv/data/old.csv" }, "description": "Delete a file" },
                { "name": "write_file", "args": { "path": "/srv/data/new.csv", "content": "a,b" }, "description": "Write a file" }],
            "reviewConfigs": [
                { "actionName": "delete_file", "allowedDecisions": ["approve", "reject"] },
                { "actionName": "write_file", "allowedDecisions": ["approve", "edit", "reject"] }] } }] }));
        let (calls, _) = calls(&engine(), &t);
        assert_eq!(
            calls.iter().map(|c| c.tool_call_id.as_str()).collect::<Vec<_>>(),
            ["a6b92aba0712af537e069ca42f1dc2e1/0", "a6b92aba0712af537e069ca42f1dc2e1/1"]
        );
        assert_eq!(interrupt_of(&calls[1]), "a6b92aba0712af537e069ca42f1dc2e1");
        assert_eq!(allowed(&calls[0]), [DecisionKind::Approve, DecisionKind::Decline]);
        assert_eq!(allowed(&calls[1]), [DecisionKind::Approve, DecisionKind::Decline, DecisionKind::Edit]);
        let d0 = answer(&calls[0], &Verdict::Decline { reason: Some("keep it".into()) }).unwrap();
        let d1 = answer(&calls[1], &Verdict::Approve).unwrap();
        assert_eq!(hitl_resume(vec![d0, d1]), json!({ "decisions": [{ "type": "reject", "message": "keep it" }, { "type": "approve" }] }));
    }

    #[test]
    fn a_plain_interrupt_waits_for_data_and_several_interrupts_are_answered_by_id() {
        let t = thread(json!({
            "b": [{ "id": "3bd78108f0d780ce62fd7c7dbe82fb13", "value": "Which region?" }],
            "a": [{ "id": "03f41c62d63d1fadda60aa3212e4419a", "value": { "unexpected": true } }],
            "c": [] }));
        let (calls, rejected) = calls(&engine(), &t);
        assert!(rejected.is_empty());
        assert_eq!(calls.len(), 2, "an answered task keeps its key with an empty list");
        assert_eq!(calls[1].suspend_payload.as_ref().unwrap()["question"], "Which region?");
        assert!(calls.iter().all(|c| c.kind == CallKind::Suspend && allowed(c) == [DecisionKind::Resume]));
        assert_eq!(answer(&calls[1], &Verdict::Resume { data: json!("eu-west") }).unwrap(), json!("eu-west"));
        assert!(answer(&calls[1], &Verdict::Approve).is_err());
        let cmd = resume_command("pair", &[("3bd78108f0d780ce62fd7c7dbe82fb13".into(), json!("eu-west"))]);
        assert_eq!(
            cmd,
            json!({ "assistant_id": "pair", "command": { "resume": { "3bd78108f0d780ce62fd7c7dbe82fb13": "eu-west" } }, "multitask_strategy": "reject" })
        );
    }

    #[test]
    fn unreadable_interrupts_are_named_and_skipped() {
        let t = thread(json!({ "x": [{ "value": [] }, { "id": "ab", "value": [{ "action_request": { "args": {} } }] }] }));
        let (none, rejected) = calls(&engine(), &t);
        assert!(none.is_empty());
        assert_eq!(rejected.len(), 2, "{rejected:?}");
        assert!(rejected[1].contains("without action"), "{rejected:?}");
        let (_, rejected) = calls(&engine(), &json!({ "interrupts": {} }));
        assert_eq!(rejected, ["a thread without thread_id"]);
    }
}
