//! Pausing: the snapshot and the queue entries of a run's paused calls in one transaction, what the
//! queue shows of a paused call, the suspended-runs listing (S12) and auto-resume (S10).

use super::*;
use crate::domain::audit::PauseOrigin;

impl LocalEngine {
    /// Writes the snapshot and a queue entry for each newly paused call, in one transaction; only then
    /// tells listeners (so a client reacting to the chunk finds the entry).
    pub(super) async fn suspend(&self, agent: &Agent, state: &mut RunState, emit: &Emit) -> Result<Outcome, Error> {
        if state.parent.is_some() {
            // A sub-agent's pause surfaces on the top-level run, which writes the queue entry.
            let body = serde_json::to_string(&*state).expect("run state serializes");
            let run = runs::Suspended {
                engine: &self.inner.id,
                run_id: &state.run_id,
                agent_id: &state.agent_id,
                thread_id: None,
                resource_id: None,
                body: &body,
            };
            runs::suspend(&self.inner.db, run, vec![]).await?;
            return Ok(Outcome::Paused);
        }
        let fresh: Vec<usize> = (0..state.calls.len()).filter(|&i| state.calls[i].paused() && !state.calls[i].queued).collect();
        for &i in &fresh {
            state.calls[i].queued = true;
        }
        if state.options.predicate.is_some() {
            tracing::warn!(
                run_id = %state.run_id,
                "run was started with an approval predicate, which cannot be stored: its snapshot requires approval for every later call (S4)"
            );
        }
        let body = serde_json::to_string(&*state).expect("run state serializes");
        // What the queue shows of each newly paused call (read from sub-agents' snapshots, which the
        // write below does not touch).
        let mut pauses = Vec::new();
        for &i in &fresh {
            pauses.push(self.surface(agent, state, i).await?);
        }
        let origin = |i: usize| PauseOrigin::LocalRun {
            approval_reason: state.calls[i].approval_reason.as_deref(),
            started_by: state.started_by.as_deref(),
        };
        let pauses = fresh.iter().zip(pauses).map(|(&i, paused)| (paused, origin(i))).collect();
        let run = runs::Suspended {
            engine: &self.inner.id,
            run_id: &state.run_id,
            agent_id: &state.agent_id,
            thread_id: state.thread_id.as_deref(),
            resource_id: state.resource_id.as_deref(),
            body: &body,
        };
        let added = runs::suspend(&self.inner.db, run, pauses).await?;
        for item in &added {
            emit.send(pause_chunk(&item.call));
        }
        Ok(Outcome::Paused)
    }

    /// A paused call as the queue shows it. A pause inside sub-agents (S13) is surfaced on the
    /// top-level run, under the top call's id, with the inner tool's name and arguments and the chain.
    pub(super) async fn surface(&self, agent: &Agent, state: &RunState, index: usize) -> Result<PausedCall, Error> {
        let path = self.chain_of(agent, state, index).await?;
        let (leaf_agent, leaf_state, leaf_index) = path.last().expect("not empty");
        let mut paused = self.paused_call(leaf_agent, leaf_state, &leaf_state.calls[*leaf_index])?;
        if path.len() > 1 {
            paused.chain = path
                .iter()
                .map(|(a, s, i)| ChainLink {
                    agent_id: a.id.clone(),
                    tool_call_id: ToolCallId::new(&s.calls[*i].tool_call_id),
                    tool_name: s.calls[*i].tool_name.clone(),
                })
                .collect();
            paused.run_id = state.run_id.clone();
            paused.tool_call_id = ToolCallId::new(&state.calls[index].tool_call_id);
            paused.agent_id = agent.id.clone();
            paused.agent_name = Some(agent.name.clone());
            paused.thread_id = state.thread_id.clone();
            paused.resource_id = state.resource_id.clone();
        }
        Ok(paused)
    }

    pub(super) fn paused_call(&self, agent: &Agent, state: &RunState, call: &StepCall) -> Result<PausedCall, Error> {
        let tool = agent.tool(&call.tool_name);
        let (kind, suspend_payload, resume_schema, pause_reason) = match &call.status {
            CallStatus::Suspended { payload } => (
                CallKind::Suspend,
                Some(payload.clone()),
                tool.and_then(|t| t.resume_schema()),
                Some(PauseReason::of(PauseKind::Suspended)),
            ),
            _ => (CallKind::Approval, None, None, call.pause_reason.clone()),
        };
        Ok(PausedCall {
            engine: self.inner.id.clone(),
            source: crate::domain::CallSource::Local,
            agent_id: agent.id.clone(),
            agent_name: Some(agent.name.clone()),
            thread_id: state.thread_id.clone(),
            resource_id: state.resource_id.clone(),
            run_id: state.run_id.clone(),
            tool_call_id: ToolCallId::new(&call.tool_call_id),
            tool_name: call.tool_name.clone(),
            fingerprint: Fingerprint::of(&call.tool_name, &call.args).map_err(|e| Error::InvalidRequest(e.to_string()))?,
            args: call.args.clone(),
            kind,
            suspend_payload,
            resume_schema,
            chain: vec![],
            pause_reason,
            requested_by: state.started_by.clone(),
        })
    }

    /// Suspended runs of an agent, newest first (S12), from storage.
    pub async fn suspended_runs(
        &self,
        agent_id: &AgentId,
        thread_id: Option<&str>,
        resource_id: Option<&str>,
    ) -> Result<Vec<SuspendedRun>, Error> {
        let agent = self.require_agent(agent_id.as_str())?;
        let stored = runs::of_agent(&self.inner.db, &self.inner.id, agent_id, thread_id, resource_id).await?;
        let mut runs = Vec::new();
        for s in stored {
            let Ok(state) = s.state::<RunState>() else { continue };
            if state.parent.is_some() {
                continue; // a sub-agent's pause is listed once, on its top-level run (S13)
            }
            let mut tool_calls = Vec::new();
            for i in (0..state.calls.len()).filter(|&i| state.calls[i].paused()) {
                let Ok(p) = self.surface(&agent, &state, i).await else { continue };
                let mut v = json!({"toolCallId": p.tool_call_id, "toolName": p.tool_name, "args": p.args});
                match p.kind {
                    CallKind::Suspend => {
                        v["requiresApproval"] = json!(false);
                        v["suspendPayload"] = p.suspend_payload.unwrap_or(Value::Null);
                        if let Some(schema) = p.resume_schema {
                            v["resumeSchema"] = json!(schema.to_string());
                        }
                    }
                    CallKind::Approval => v["requiresApproval"] = json!(true),
                }
                if !p.chain.is_empty() {
                    v["chain"] = json!(p.chain);
                }
                tool_calls.push(v);
            }
            runs.push(SuspendedRun {
                run_id: s.run_id,
                status: if s.running { "running" } else { "suspended" },
                thread_id: s.thread_id,
                resource_id: s.resource_id,
                suspended_at: s.updated_at,
                tool_calls,
                started_by: state.started_by.clone(),
            });
        }
        Ok(runs)
    }

    /// S10: the suspended tool that the user's next message answers — with memory, in the same thread
    /// and resource — and the resume data the model extracts from that message, checked against the
    /// tool's resume schema. Only `suspend()` pauses qualify: an approval is never given by a model.
    /// `Ok(None)`: nothing to resume (start a new run). With `only_of`, only a run started by that
    /// principal ([`crate::domain::Principal::key`]) qualifies.
    pub async fn auto_resume_target(&self, request: &RunRequest, only_of: Option<&str>) -> Result<Option<(queue::Entry, Value)>, Error> {
        let agent = self.require_agent(request.agent_id.as_str())?;
        let (true, Some(thread), Some(resource)) = (agent.memory, &request.thread_id, &request.resource_id) else { return Ok(None) };
        let filter = queue::Filter {
            state: Some(crate::domain::ItemState::Pending),
            engine: Some(self.inner.id.clone().to_string()),
            agent: Some(agent.id.to_string()),
            kind: Some(CallKind::Suspend),
            thread: Some(thread.clone()),
            ..Default::default()
        };
        let page = queue::page(&self.inner.db, &filter, None, 50).await?;
        let mut found = None;
        for e in page.entries.into_iter().filter(|e| e.queued.call.resource_id.as_deref() == Some(resource.as_str())) {
            let ok = match only_of {
                None => true,
                Some(key) => self.load(&e.queued.call.run_id).await.is_ok_and(|(s, _)| s.started_by.as_deref() == Some(key)),
            };
            if ok {
                found = Some(e);
                break;
            }
        }
        let Some(entry) = found else { return Ok(None) };
        let schema = entry.queued.call.resume_schema.clone().unwrap_or_else(|| json!({"type": "object"}));
        let data = agent.model.extract(&request.messages, &schema).await.map_err(|e| Error::InvalidResumeData {
            errors: vec![crate::domain::PathError {
                path: String::new(),
                message: format!("no resume data could be taken from the message: {e}"),
            }],
        })?;
        crate::domain::schema::validate(&schema, &data)?;
        Ok(Some((entry, data)))
    }

    /// The queue entry ids still pending in a run, most recently paused last.
    pub async fn pending_items(&self, run_id: &RunId) -> Result<Vec<ItemId>, Error> {
        runs::pending_items(&self.inner.db, &self.inner.id, run_id).await
    }
}

/// `tool-call-approval` or `tool-call-suspended` (S5, S8).
pub(super) fn pause_chunk(call: &PausedCall) -> Value {
    match call.kind {
        CallKind::Approval => chunk(
            "tool-call-approval",
            &call.run_id,
            json!({
                "toolCallId": call.tool_call_id, "toolName": call.tool_name, "args": call.args,
                "resumeSchema": APPROVAL_RESUME_SCHEMA,
            }),
        ),
        CallKind::Suspend => chunk(
            "tool-call-suspended",
            &call.run_id,
            json!({
                "toolCallId": call.tool_call_id, "toolName": call.tool_name, "args": call.args,
                "suspendPayload": call.suspend_payload,
                "resumeSchema": call.resume_schema.as_ref().map(|s| s.to_string()),
            }),
        ),
    }
}
