//! A decision sent to the server: the call re-read first (C3, `reread`, which the console compares
//! with the decision before it lets anything be sent), the route for the verdict, the
//! stream read to its end, the answer recorded with the next pause the stream ended on.

use super::*;

impl MastraEngine {
    /// The call as the engine lists it now (C3); `None` if it no longer waits there.
    pub(super) async fn find(&self, call: &PausedCall, token: Option<&ApiKey>) -> Result<Option<PausedCall>, RemoteError> {
        let runs = self.observe(self.inner.client.suspended_runs(call.agent_id.as_str(), token, None).await).await?;
        let (runs, _) = listing::runs(call.agent_id.as_str(), &runs);
        let runs: Vec<_> = runs.into_iter().filter(|r| r.run_id == call.run_id.as_str()).collect();
        let mut agents = self.agents();
        if agents.is_empty() {
            agents = self.remembered_agents().await.unwrap_or_default();
        }
        let surfaced = listing::surface(&self.inner.link.id, &agents, &runs);
        let now = surfaced.calls.into_iter().chain(surfaced.unmatched_children).find(|c| c.tool_call_id == call.tool_call_id);
        Ok(now.map(|now| if unchanged(call, &now) { call.clone() } else { now }))
    }
}

/// The pause a delivery stream ended on (the next approval of the same step), as a queue call.
pub(super) fn next_pause(item: &QueuedCall, chunks: &[Value], agents: &[AgentInfo]) -> Option<PausedCall> {
    let last = chunks.iter().rev().find(|c| matches!(c["type"].as_str(), Some("tool-call-approval" | "tool-call-suspended")))?;
    let p = &last["payload"];
    let tool_call_id = p["toolCallId"].as_str()?;
    let tool_name = p["toolName"].as_str()?;
    let args = p.get("args").cloned().unwrap_or(Value::Null);
    let approval = last["type"] == "tool-call-approval";
    let resume_schema = if approval {
        None
    } else {
        p.get("resumeSchema").and_then(schema::to_json_schema).or_else(|| {
            agents
                .iter()
                .find(|a| a.id == item.call.agent_id.as_str())
                .and_then(|a| a.tools.get(tool_name))
                .and_then(|t| t.resume_schema.clone())
        })
    };
    let run_id = last["runId"].as_str().unwrap_or(item.call.run_id.as_str());
    Some(PausedCall {
        engine: item.call.engine.clone(),
        source: item.call.source,
        agent_id: item.call.agent_id.clone(),
        agent_name: item.call.agent_name.clone(),
        thread_id: item.call.thread_id.clone(),
        resource_id: item.call.resource_id.clone(),
        run_id: RunId::new(run_id),
        tool_call_id: ToolCallId::new(tool_call_id),
        tool_name: tool_name.to_owned(),
        fingerprint: Fingerprint::of(tool_name, &args).ok()?,
        args,
        kind: if approval { CallKind::Approval } else { CallKind::Suspend },
        suspend_payload: (!approval).then(|| p.get("suspendPayload").cloned()).flatten(),
        resume_schema,
        chain: vec![],
        requested_by: None,
        pause_reason: Some(crate::domain::PauseReason::of(listing::remote_pause(if approval {
            CallKind::Approval
        } else {
            CallKind::Suspend
        }))),
    })
}

/// Mastra refuses to resume a call twice ("not suspended"), so a delivery cut by a crash can be sent
/// again (what the supervisor promises of every remote kind).
#[async_trait]
impl Adapter for MastraEngine {
    fn base_url(&self) -> &str {
        self.inner.client.base().as_str()
    }

    async fn list(&self, full: bool) -> Result<Listed, Error> {
        self.listing(full).await
    }

    /// A Mastra server's agents with their tools.
    fn agents_view(&self) -> Value {
        agents_view(&self.agents())
    }

    fn allowed(&self, call: &PausedCall) -> Vec<DecisionKind> {
        match call.kind {
            CallKind::Approval => vec![DecisionKind::Approve, DecisionKind::Decline],
            CallKind::Suspend => vec![DecisionKind::Resume],
        }
    }

    async fn reread(&self, call: &PausedCall) -> Result<Option<PausedCall>, Error> {
        let token = self.inner.link.token_or_health().await?;
        self.find(call, token.as_ref()).await.map_err(|e| self.inner.link.to_error(e))
    }

    /// Sends the one decision checked (its call re-read by [`Adapter::prepare`]'s default, C3).
    async fn send(&self, checked: Checked, sink: Option<ChunkSink>) -> Result<Value, Error> {
        let own = checked.own();
        let (decision, item, call) = (&own.decision, &own.item, &own.item.call);
        let token = self.inner.link.token_or_health().await?;
        let ids = json!({ "runId": call.run_id, "toolCallId": call.tool_call_id });
        let (route, body) = match (&decision.verdict, call.kind) {
            (Verdict::Approve, _) => ("approve-tool-call", ids),
            (Verdict::Decline { reason }, _) => {
                let mut body = ids;
                if let Some(r) = reason {
                    body["reason"] = json!(r);
                }
                ("decline-tool-call", body)
            }
            (Verdict::Resume { data }, _) => {
                let mut body = ids;
                body["resumeData"] = data.clone();
                ("resume-stream", body)
            }
            // Never decided for a Mastra call (it allows no edit; `check_edit` refuses).
            (Verdict::ApproveEdited { .. }, _) => {
                return Err(Error::DecisionNotAllowed { kind: DecisionKind::Edit, allowed: self.allowed(call) })
            }
            // Mastra knows no expiry: a decline whose reason says what happened.
            (Verdict::Expire { after_secs }, _) => {
                let mut body = ids;
                body["reason"] = json!(Verdict::expiry_text(*after_secs));
                ("decline-tool-call", body)
            }
        };
        let chunks = self
            .observe(self.inner.client.post_stream(call.agent_id.as_str(), route, &body, token.as_ref(), sink.as_ref()).await)
            .await
            .map_err(|e| self.inner.link.to_error(e))?;
        let mut folded = Folded::default();
        chunks.iter().for_each(|c| folded.push(c));
        let next = next_pause(item, &chunks, &self.agents());
        let mut outcome = json!({
            "status": "delivered",
            "route": route,
            "finishReason": folded.finish_reason,
            "text": folded.text,
            "toolResults": folded.tool_results,
            "chunks": chunks.len(),
        });
        if let Some(e) = &folded.error {
            outcome["error"] = json!(e);
        }
        if let Some(n) = &next {
            outcome["nextPause"] = json!({ "toolCallId": n.tool_call_id, "toolName": n.tool_name });
        }
        // Guard against an engine resuming another call than the one named (mastra #19633): the
        // results it streams back must include the named call's.
        let results: Vec<&str> =
            chunks.iter().filter(|c| c["type"] == "tool-result").filter_map(|c| c["payload"]["toolCallId"].as_str()).collect();
        if !results.is_empty() && !results.contains(&call.tool_call_id.as_str()) {
            let warning = format!("the engine answered with results for {results:?}, not for the call decided ({})", call.tool_call_id);
            tracing::warn!(engine = %self.inner.link.id, item = %item.id, "{warning}");
            outcome["warning"] = json!(warning);
        }
        // The run finished: a grant for "this run" ends with it, so a later run that reuses the id at
        // the engine is not covered. A pause the stream ended on is queued: the stream is the
        // engine's own word that the call waits now (also the call just resumed, suspending again).
        let run_ended = next.is_none() && folded.finish_reason.as_deref().is_some_and(|r| r != "suspended");
        outbox::record_with_next(&self.inner.link.db, decision, item, &outcome, run_ended, next.as_ref()).await?;
        Ok(outcome)
    }
}
