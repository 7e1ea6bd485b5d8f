//! From what a Mastra server lists (`GET /api/agents`, `…/suspended-runs`) to the queue's paused calls.
//!
//! Mastra's quirks handled here (observed on @mastra/core 1.71):
//! - a `suspend()` entry has no `args` and no `resumeSchema`: the schema comes from the agent listing;
//!   the arguments stay unknown (`null`);
//! - a supervisor's nested approval is listed twice: under the supervisor (its run and call ids, the
//!   inner tool's name and arguments, or, after `/generate`, as `agent-<key>` with the inner call in
//!   `suspendPayload`) and under the sub-agent (a child run, resource `<resource>-<key>`, thread
//!   `<thread>-<uuid>`). It is queued once, on the supervisor's run, with the chain.

use super::schema::to_json_schema;
use crate::domain::{AgentId, CallKind, ChainLink, EngineId, Fingerprint, PausedCall, RunId, ToolCallId};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// What the console keeps of one agent of the agent listing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentInfo {
    pub id: String,
    pub name: Option<String>,
    /// Tool key (the `toolName` of calls) → what the server said about it.
    pub tools: HashMap<String, ToolInfo>,
    /// Sub-agents by key (seen as tool `agent-<key>`) → their agent id.
    pub sub_agents: HashMap<String, String>,
}

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolInfo {
    pub require_approval: bool,
    pub input_schema: Option<Value>,
    pub resume_schema: Option<Value>,
    pub suspend_schema: Option<Value>,
}

/// Parses `GET /api/agents`.
pub fn agents(listing: &Value) -> Vec<AgentInfo> {
    let Some(map) = listing.as_object() else { return vec![] };
    let mut out: Vec<AgentInfo> = map
        .iter()
        .map(|(key, a)| {
            let tools = a
                .get("tools")
                .and_then(Value::as_object)
                .map(|tools| {
                    tools
                        .iter()
                        .map(|(name, t)| {
                            let info = ToolInfo {
                                require_approval: t.get("requireApproval").and_then(Value::as_bool).unwrap_or(false),
                                input_schema: t.get("inputSchema").and_then(to_json_schema),
                                resume_schema: t.get("resumeSchema").and_then(to_json_schema),
                                suspend_schema: t.get("suspendSchema").and_then(to_json_schema),
                            };
                            (name.clone(), info)
                        })
                        .collect()
                })
                .unwrap_or_default();
            let sub_agents = a
                .get("agents")
                .and_then(Value::as_object)
                .map(|subs| subs.iter().map(|(k, s)| (k.clone(), s.get("id").and_then(Value::as_str).unwrap_or(k).to_owned())).collect())
                .unwrap_or_default();
            AgentInfo {
                id: a.get("id").and_then(Value::as_str).unwrap_or(key).to_owned(),
                name: a.get("name").and_then(Value::as_str).map(str::to_owned),
                tools,
                sub_agents,
            }
        })
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// One suspended run as listed.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedRun {
    pub agent_id: String,
    pub run_id: String,
    pub thread_id: Option<String>,
    pub resource_id: Option<String>,
    pub calls: Vec<ListedCall>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ListedCall {
    pub tool_call_id: String,
    pub tool_name: String,
    pub args: Option<Value>,
    pub requires_approval: bool,
    pub suspend_payload: Option<Value>,
}

/// Parses one agent's `runs`; entries without a run id, call id or tool name are skipped (and counted).
pub fn runs(agent_id: &str, runs: &[Value]) -> (Vec<ListedRun>, usize) {
    let mut skipped = 0;
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    let parsed = runs
        .iter()
        .filter_map(|r| {
            let Some(run_id) = text(r, "runId") else {
                skipped += 1;
                return None;
            };
            let calls = r
                .get("toolCalls")
                .and_then(Value::as_array)
                .map(|calls| {
                    calls
                        .iter()
                        .filter_map(|c| match (text(c, "toolCallId"), text(c, "toolName")) {
                            (Some(tool_call_id), Some(tool_name)) => Some(ListedCall {
                                tool_call_id,
                                tool_name,
                                args: c.get("args").cloned(),
                                requires_approval: c.get("requiresApproval").and_then(Value::as_bool).unwrap_or(false),
                                suspend_payload: c.get("suspendPayload").cloned().filter(|p| !p.is_null()),
                            }),
                            _ => {
                                skipped += 1;
                                None
                            }
                        })
                        .collect()
                })
                .unwrap_or_default();
            Some(ListedRun {
                agent_id: agent_id.to_owned(),
                run_id,
                thread_id: text(r, "threadId"),
                resource_id: text(r, "resourceId"),
                calls,
            })
        })
        .collect();
    (parsed, skipped)
}

/// The paused calls to queue, and the runs that look like a sub-agent's child run but matched no
/// supervisor run yet (the supervisor's snapshot is written a moment after the child's).
pub struct Surfaced {
    pub calls: Vec<PausedCall>,
    pub unmatched_children: Vec<PausedCall>,
    /// Calls that could not be fingerprinted (e.g. arguments nested too deeply), with why.
    pub rejected: Vec<(String, String)>,
}

/// One listed call as a queue call (`nested`: what it stands for inside a sub-agent).
fn paused(
    engine: &EngineId,
    agent: Option<&AgentInfo>,
    run: &ListedRun,
    call: &ListedCall,
    nested: Option<Nested>,
) -> Result<PausedCall, String> {
    let (tool_name, args, kind, suspend_payload, resume_schema, chain) = match nested {
        Some(n) => (n.tool_name, n.args, n.kind, n.suspend_payload, n.resume_schema, n.chain),
        None if call.requires_approval => {
            (call.tool_name.clone(), call.args.clone().unwrap_or(Value::Null), CallKind::Approval, None, None, vec![])
        }
        None => {
            let schema = agent.and_then(|a| a.tools.get(&call.tool_name)).and_then(|t| t.resume_schema.clone());
            (
                call.tool_name.clone(),
                call.args.clone().unwrap_or(Value::Null),
                CallKind::Suspend,
                call.suspend_payload.clone(),
                schema,
                vec![],
            )
        }
    };
    let fingerprint = Fingerprint::of(&tool_name, &args).map_err(|e| e.to_string())?;
    Ok(PausedCall {
        engine: engine.clone(),
        source: crate::domain::CallSource::Mastra,
        agent_id: AgentId::new(&run.agent_id),
        agent_name: agent.and_then(|a| a.name.clone()),
        thread_id: run.thread_id.clone(),
        resource_id: run.resource_id.clone(),
        run_id: RunId::new(&run.run_id),
        tool_call_id: ToolCallId::new(&call.tool_call_id),
        tool_name,
        args,
        fingerprint,
        kind,
        suspend_payload,
        resume_schema,
        chain,
        requested_by: None,
        pause_reason: Some(crate::domain::PauseReason::of(remote_pause(kind))),
    })
}

/// Why a remote call paused, as far as the console can tell: a suspended tool asks; an approval is
/// the engine's own (Mastra does not list the policy that asked for it).
pub fn remote_pause(kind: CallKind) -> crate::domain::PauseKind {
    match kind {
        CallKind::Approval => crate::domain::PauseKind::Remote,
        CallKind::Suspend => crate::domain::PauseKind::Suspended,
    }
}

/// Turns every agent's listed runs into queue calls: one per waiting call, nested approvals once.
pub fn surface(engine: &EngineId, agents: &[AgentInfo], listed: &[ListedRun]) -> Surfaced {
    let by_id: HashMap<&str, &AgentInfo> = agents.iter().map(|a| (a.id.as_str(), a)).collect();
    // Sub-agent id → (supervisor id, key).
    let mut parents_of: HashMap<&str, Vec<(&str, &str)>> = HashMap::new();
    for a in agents {
        for (key, sub) in &a.sub_agents {
            parents_of.entry(sub.as_str()).or_default().push((a.id.as_str(), key.as_str()));
        }
    }

    // Children claimed by a supervisor's entry: (child agent, run id) → its call, for the chain.
    let mut claimed: HashSet<(String, String)> = HashSet::new();
    let mut out = Surfaced { calls: vec![], unmatched_children: vec![], rejected: vec![] };
    let mut pending_children: Vec<&ListedRun> = Vec::new();
    let mut tops: Vec<&ListedRun> = Vec::new();
    for run in listed {
        if parents_of.contains_key(run.agent_id.as_str()) && looks_like_child(run, &parents_of[run.agent_id.as_str()]) {
            pending_children.push(run);
        } else {
            tops.push(run);
        }
    }

    for run in tops {
        let agent = by_id.get(run.agent_id.as_str()).copied();
        for call in &run.calls {
            let nested = nested_call(agent, run, call, &pending_children, &claimed);
            let built = match nested {
                Some(n) => {
                    if let Some(child) = &n.child {
                        claimed.insert(child.clone());
                    }
                    paused(engine, agent, run, call, Some(n))
                }
                None => paused(engine, agent, run, call, None),
            };
            match built {
                Ok(p) => out.calls.push(p),
                Err(e) => out.rejected.push((format!("{}/{}", run.run_id, call.tool_call_id), e)),
            }
        }
    }
    for child in pending_children {
        if claimed.contains(&(child.agent_id.clone(), child.run_id.clone())) {
            continue;
        }
        let agent = by_id.get(child.agent_id.as_str()).copied();
        for call in &child.calls {
            match paused(engine, agent, child, call, None) {
                Ok(p) => out.unmatched_children.push(p),
                Err(e) => out.rejected.push((format!("{}/{}", child.run_id, call.tool_call_id), e)),
            }
        }
    }
    out
}

/// A run of a sub-agent whose resource ends with `-<key>` of one of its supervisors (Mastra names the
/// child's resource so), or which has neither thread nor resource (a supervisor run without memory).
fn looks_like_child(run: &ListedRun, parents: &[(&str, &str)]) -> bool {
    match &run.resource_id {
        Some(resource) => parents.iter().any(|(_, key)| resource.ends_with(&format!("-{key}"))),
        None => run.thread_id.is_none(),
    }
}

struct Nested {
    tool_name: String,
    args: Value,
    kind: CallKind,
    suspend_payload: Option<Value>,
    resume_schema: Option<Value>,
    chain: Vec<ChainLink>,
    child: Option<(String, String)>,
}

/// If `call` of a supervisor's run stands for a call waiting inside a sub-agent: the inner call.
fn nested_call(
    agent: Option<&AgentInfo>,
    run: &ListedRun,
    call: &ListedCall,
    children: &[&ListedRun],
    claimed: &HashSet<(String, String)>,
) -> Option<Nested> {
    let agent = agent?;
    if agent.sub_agents.is_empty() {
        return None;
    }
    // After /generate: `agent-<key>` with the inner call in suspendPayload.
    if let (Some(key), Some(payload)) = (call.tool_name.strip_prefix("agent-"), &call.suspend_payload) {
        let sub_id = agent.sub_agents.get(key)?;
        let inner_id = payload.get("toolCallId").and_then(Value::as_str)?;
        let inner_name = payload.get("toolName").and_then(Value::as_str)?;
        let child = children.iter().find(|c| &c.agent_id == sub_id && c.calls.iter().any(|cc| cc.tool_call_id == inner_id));
        let resume_schema = payload.get("resumeSchema").and_then(to_json_schema);
        let is_approval =
            payload.get("suspendPayload").is_none() && resume_schema.as_ref().is_some_and(|s| s["properties"].get("approved").is_some());
        let (kind, suspend_payload, resume_schema) = if is_approval {
            (CallKind::Approval, None, None)
        } else {
            (CallKind::Suspend, payload.get("suspendPayload").cloned(), resume_schema)
        };
        return Some(Nested {
            tool_name: inner_name.to_owned(),
            args: payload.get("args").cloned().unwrap_or(Value::Null),
            kind,
            suspend_payload,
            resume_schema,
            chain: vec![
                ChainLink {
                    agent_id: AgentId::new(&agent.id),
                    tool_call_id: ToolCallId::new(&call.tool_call_id),
                    tool_name: call.tool_name.clone(),
                },
                ChainLink { agent_id: AgentId::new(sub_id), tool_call_id: ToolCallId::new(inner_id), tool_name: inner_name.to_owned() },
            ],
            child: child.map(|c| (c.agent_id.clone(), c.run_id.clone())),
        });
    }
    // After /stream: the inner tool's name and args under the supervisor's ids. The supervisor has no
    // such tool of its own; find the child run that waits on the same call.
    if agent.tools.contains_key(&call.tool_name) {
        return None;
    }
    for (key, sub_id) in &agent.sub_agents {
        let found = children.iter().find(|c| {
            &c.agent_id == sub_id
                && !claimed.contains(&(c.agent_id.clone(), c.run_id.clone()))
                && related(run, c, key)
                && c.calls.iter().any(|cc| cc.tool_name == call.tool_name && cc.args == call.args)
        });
        if let Some(child) = found {
            let inner = child.calls.iter().find(|cc| cc.tool_name == call.tool_name && cc.args == call.args).expect("found above");
            let (kind, suspend_payload, resume_schema) = if call.requires_approval {
                (CallKind::Approval, None, None)
            } else {
                (CallKind::Suspend, call.suspend_payload.clone(), None)
            };
            return Some(Nested {
                tool_name: call.tool_name.clone(),
                args: call.args.clone().unwrap_or(Value::Null),
                kind,
                suspend_payload,
                resume_schema,
                chain: vec![
                    ChainLink {
                        agent_id: AgentId::new(&agent.id),
                        tool_call_id: ToolCallId::new(&call.tool_call_id),
                        tool_name: format!("agent-{key}"),
                    },
                    ChainLink {
                        agent_id: AgentId::new(sub_id),
                        tool_call_id: ToolCallId::new(&inner.tool_call_id),
                        tool_name: inner.tool_name.clone(),
                    },
                ],
                child: Some((child.agent_id.clone(), child.run_id.clone())),
            });
        }
    }
    None
}

/// Whether `child` can be the sub-agent run (key `key`) of `parent`: Mastra derives the child's
/// resource (`<resource>-<key>`) and thread (`<thread>-<uuid>`) from the parent's.
fn related(parent: &ListedRun, child: &ListedRun, key: &str) -> bool {
    let resource_ok = match (&parent.resource_id, &child.resource_id) {
        (Some(p), Some(c)) => c == &format!("{p}-{key}"),
        (None, None) => true,
        (None, Some(c)) => c.ends_with(&format!("-{key}")),
        (Some(_), None) => false,
    };
    let thread_ok = match (&parent.thread_id, &child.thread_id) {
        (Some(p), Some(c)) => c.starts_with(&format!("{p}-")),
        (None, _) => true,
        (Some(_), None) => false,
    };
    resource_ok && thread_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listing() -> Vec<AgentInfo> {
        agents(&json!({
            "ops": {"id": "ops", "name": "ops", "agents": {}, "tools": {
                "deleteRecord": {"id": "deleteRecord", "requireApproval": true, "inputSchema": "{\"json\":{\"type\":\"object\"}}"},
                "askOperator": {"id": "askOperator", "requireApproval": false,
                    "resumeSchema": {"def": {"type": "object", "shape": {"answer": {"def": {"type": "string"}}}}, "type": "object"}}
            }},
            "boss": {"id": "boss", "name": "boss", "agents": {"ops": {"id": "ops", "name": "ops"}}, "tools": {}}
        }))
    }

    fn listed(agent: &str, runs_json: Value) -> Vec<ListedRun> {
        runs(agent, runs_json.as_array().unwrap()).0
    }

    #[test]
    fn approvals_and_suspends_become_calls_with_the_agent_listings_schema() {
        let mut all = listed(
            "ops",
            json!([
                {"runId": "r1", "threadId": "t", "resourceId": "u", "toolCalls": [{"toolCallId": "c1", "toolName": "deleteRecord", "args": {"id": "a"}, "requiresApproval": true}]},
                {"runId": "r2", "threadId": "t2", "resourceId": "u2", "toolCalls": [{"toolCallId": "c2", "toolName": "askOperator", "requiresApproval": false, "suspendPayload": {"question": "why?"}}]}
            ]),
        );
        all.sort_by(|a, b| a.run_id.cmp(&b.run_id));
        let s = surface(&EngineId::new("m"), &listing(), &all);
        assert_eq!(s.calls.len(), 2);
        assert_eq!(s.calls[0].kind, CallKind::Approval);
        assert_eq!(s.calls[0].fingerprint, Fingerprint::of("deleteRecord", &json!({"id": "a"})).unwrap());
        assert_eq!(s.calls[1].kind, CallKind::Suspend);
        assert_eq!(s.calls[1].args, Value::Null, "Mastra does not list a suspended call's arguments");
        assert_eq!(s.calls[1].suspend_payload, Some(json!({"question": "why?"})));
        assert_eq!(s.calls[1].resume_schema.as_ref().unwrap()["required"], json!(["answer"]));
    }

    #[test]
    fn a_nested_approval_after_stream_is_queued_once_with_its_chain() {
        let mut all = listed(
            "boss",
            json!([{"runId": "P", "threadId": "t-S", "resourceId": "u-1",
            "toolCalls": [{"toolCallId": "pc", "toolName": "deleteRecord", "args": {"id": "rec-9"}, "requiresApproval": true}]}]),
        );
        all.extend(listed(
            "ops",
            json!([{"runId": "C", "threadId": "t-S-51c8a82d", "resourceId": "u-1-ops",
            "toolCalls": [{"toolCallId": "cc", "toolName": "deleteRecord", "args": {"id": "rec-9"}, "requiresApproval": true}]}]),
        ));
        let s = surface(&EngineId::new("m"), &listing(), &all);
        assert_eq!(s.calls.len(), 1, "{:?}", s.calls);
        let c = &s.calls[0];
        assert_eq!(
            (c.agent_id.as_str(), c.run_id.as_str(), c.tool_call_id.as_str(), c.tool_name.as_str()),
            ("boss", "P", "pc", "deleteRecord")
        );
        assert_eq!(
            c.chain.iter().map(|l| (l.agent_id.as_str(), l.tool_call_id.as_str(), l.tool_name.as_str())).collect::<Vec<_>>(),
            vec![("boss", "pc", "agent-ops"), ("ops", "cc", "deleteRecord")]
        );
        assert!(s.unmatched_children.is_empty());
    }

    #[test]
    fn a_nested_approval_after_generate_is_unwrapped() {
        let schema = r#"{"type":"object","properties":{"approved":{"type":"boolean"},"reason":{"type":"string"}},"required":["approved"]}"#;
        let mut all = listed(
            "boss",
            json!([{"runId": "P", "threadId": "t-G", "resourceId": "u-2", "toolCalls": [{"toolCallId": "pc", "toolName": "agent-ops",
            "requiresApproval": false, "suspendPayload": {"toolCallId": "cc", "toolName": "deleteRecord", "args": {"id": "rec-7"}, "resumeSchema": schema}}]}]),
        );
        all.extend(listed(
            "ops",
            json!([{"runId": "C", "threadId": "t-G-1338", "resourceId": "u-2-ops",
            "toolCalls": [{"toolCallId": "cc", "toolName": "deleteRecord", "args": {"id": "rec-7"}, "requiresApproval": true}]}]),
        ));
        let s = surface(&EngineId::new("m"), &listing(), &all);
        assert_eq!(s.calls.len(), 1);
        let c = &s.calls[0];
        assert_eq!((c.tool_name.as_str(), c.kind, &c.args), ("deleteRecord", CallKind::Approval, &json!({"id": "rec-7"})));
        assert_eq!(c.chain[0].tool_name, "agent-ops");
        assert_eq!(c.chain[1].tool_call_id.as_str(), "cc");
    }

    #[test]
    fn a_child_without_its_parent_yet_is_reported_not_queued() {
        let all = listed(
            "ops",
            json!([{"runId": "C", "threadId": "t-S-51c8", "resourceId": "u-1-ops",
            "toolCalls": [{"toolCallId": "cc", "toolName": "deleteRecord", "args": {"id": "x"}, "requiresApproval": true}]}]),
        );
        let s = surface(&EngineId::new("m"), &listing(), &all);
        assert!(s.calls.is_empty());
        assert_eq!(s.unmatched_children.len(), 1);
        assert_eq!(s.unmatched_children[0].run_id.as_str(), "C");
    }

    #[test]
    fn malformed_entries_are_skipped_and_counted() {
        let (r, skipped) = runs("ops", &[json!({"toolCalls": []}), json!({"runId": "r", "toolCalls": [{"toolName": "x"}, 7]})]);
        assert_eq!(r.len(), 1);
        assert_eq!(skipped, 3);
    }
}
