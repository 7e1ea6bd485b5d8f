//! A decision delivered to a paused local call: the fingerprint check just before the tool runs
//! (S7), the mark that the tool may begin, the tool, its outcome committed with the snapshot, and
//! the run going on in the delivery's task after the delivery has answered (issue 46).

use super::*;

/// What a delivery leaves the run to do once its outcome is committed (issue 46): go on from the
/// step it answered — the model's next turn — as a task of the run, after the delivery has answered.
pub(super) struct GoOn {
    pub(super) agent: Arc<Agent>,
    pub(super) state: RunState,
}

impl LocalEngine {
    /// Delivers `decision` to its waiting call under the run's lock: S7, the tool, and the outcome
    /// committed in a transaction of its own right after the tool returns — with the step as it
    /// stands and, when that answered the step's last waiting call, the run marked `running` — before
    /// anything the run does next. A stop during the model's next turn therefore finds the result in
    /// the snapshot and the run `running`, and [`LocalEngine::recover`] goes on from it. A stop
    /// before the snapshot says the tool may begin ([`StepCall::began`]) leaves the call untouched:
    /// the decision is delivered again at the next start. Only a stop after that and before the
    /// result's commit — inside the tool — leaves the call `interrupted`, for the operator to
    /// resolve. Answers the outcome and, if the run goes on, what it goes on with.
    pub(super) async fn deliver_locked(&self, decision: &Decision, item: &QueuedCall, emit: &Emit) -> Result<(Value, Option<GoOn>), Error> {
        let run_id = &item.call.run_id;
        let (mut state, agent, index) = self.waiting_call(item).await?;
        if matches!(state.calls[index].status, CallStatus::Delegated { .. }) {
            return self.deliver_nested(decision, item, &agent, state, index, emit).await;
        }
        let call = state.calls[index].clone();
        let proposed = ProposedCall { tool_call_id: call.tool_call_id.clone(), tool_name: call.tool_name.clone(), args: call.args.clone() };
        let runs_tool = matches!(decision.verdict, Verdict::Approve | Verdict::ApproveEdited { .. } | Verdict::Resume { .. });
        if runs_tool && agent.tool(&call.tool_name).is_some() {
            // The tool may begin from here on: said in the snapshot first ([`StepCall::began`]).
            state.calls[index].began = true;
            runs::save(&self.inner.db, run_id, &serde_json::to_string(&state).expect("run state serializes")).await?;
        }
        let (status, outcome) = self.apply(decision, &agent, &state, &call).await?;
        let repaused = matches!(status, CallStatus::Suspended { .. } | CallStatus::Delegated { .. });
        state.calls[index].status = status.clone();
        state.calls[index].queued = false;
        state.calls[index].began = false;
        if let Verdict::ApproveEdited { args, .. } = &decision.verdict {
            // The run's history shows the call as it ran; the queue entry and the audit keep both.
            state.calls[index].args = args.clone();
        }
        let all_done = !state.calls.iter().any(StepCall::paused);
        // The call paused again, as the queue shows it (read from sub-agents' snapshots, which the
        // write below does not touch).
        let repause = match repaused {
            true => Some(self.surface(&agent, &state, index).await?),
            false => None,
        };
        if repause.is_some() {
            state.calls[index].queued = true;
        }
        let body = serde_json::to_string(&state).expect("run state serializes");
        let new_item = runs::record_delivery_and_step(&self.inner.db, decision, item, &outcome, repause, &body, all_done).await?;
        match (&status, new_item) {
            (CallStatus::Done { result }, _) => emit.send(tool_result_chunk(run_id, &proposed, result)),
            (_, Some(paused)) => emit.send(pause_chunk(&paused)),
            _ => {}
        }
        if all_done {
            return Ok((outcome, Some(GoOn { agent, state })));
        }
        self.still_waiting(&agent, &state, emit).await;
        Ok((outcome, None))
    }

    /// The run goes on after a delivery ([`GoOn`]). The decision is delivered and recorded; what the
    /// run does next (a model error, say) is the run's business, reported on the stream, not a failed
    /// delivery.
    pub(super) async fn go_on(&self, next: GoOn, emit: &Emit) {
        let GoOn { agent, mut state } = next;
        if let Err(e) = self.drive(&agent, &mut state, emit).await {
            tracing::warn!(run_id = %state.run_id, "run failed after a delivered decision: {e}");
        }
    }

    /// A run answered in part (S14): say which of its calls still wait, as a Mastra stream would.
    async fn still_waiting(&self, agent: &Agent, state: &RunState, emit: &Emit) {
        for i in (0..state.calls.len()).filter(|&i| state.calls[i].paused()) {
            if let Ok(p) = self.surface(agent, state, i).await {
                emit.send(pause_chunk(&p));
            }
        }
    }

    /// Runs `work` under the run's lock in a task of its own, answering what it answers as soon as it
    /// has; the run then goes on in that task ([`LocalEngine::go_on`]), still under the lock, with the
    /// caller's `emit` (a Mastra-shaped stream stays open until the run pauses or ends). A caller that
    /// goes away does not cut the run short.
    async fn locked_then_go_on<F, T>(&self, run_id: &RunId, emit: Emit, work: F) -> Result<T, Error>
    where
        F: for<'a> FnOnce(&'a LocalEngine, &'a Emit) -> futures::future::BoxFuture<'a, Result<(T, Option<GoOn>), Error>> + Send + 'static,
        T: Send + 'static,
    {
        let (this, run_id) = (self.clone(), run_id.clone());
        let (answer, answered) = tokio::sync::oneshot::channel();
        let going = self.inner.going.clone();
        going.spawn(async move {
            let _guard = this.lock_run(&run_id).await;
            match work(&this, &emit).await {
                Ok((value, next)) => {
                    let _ = answer.send(Ok(value));
                    if let Some(next) = next {
                        this.go_on(next, &emit).await;
                    }
                }
                Err(e) => {
                    let _ = answer.send(Err(e));
                }
            }
        });
        answered.await.map_err(|_| Error::Engine("delivery task failed".into()))?
    }

    /// The run of a queued call, loaded, with its agent and the call's place among the step's
    /// calls — S6: the named call, waiting, never another one. A run another task is advancing is
    /// refused.
    pub(super) async fn waiting_call(&self, item: &QueuedCall) -> Result<(RunState, Arc<Agent>, usize), Error> {
        let run_id = &item.call.run_id;
        let (state, running) = self.load(run_id).await?;
        if running {
            return Err(Error::Engine(format!("run {run_id} is being advanced elsewhere; try again")));
        }
        let agent = self.require_agent(state.agent_id.as_str())?;
        let index = state
            .calls
            .iter()
            .position(|c| c.tool_call_id == item.call.tool_call_id.as_str() && c.paused())
            .ok_or_else(|| Error::not_found(format!("tool call {} pending in run {run_id}", item.call.tool_call_id)))?;
        Ok((state, agent, index))
    }

    /// Writes into the snapshot that the waiting call `item` is about to run its tool
    /// ([`StepCall::began`]), as a delivery does: for tests that simulate a stop inside a tool.
    pub(crate) async fn mark_began(&self, item: &QueuedCall) -> Result<(), Error> {
        let _guard = self.lock_run(&item.call.run_id).await;
        let (mut state, _, index) = self.waiting_call(item).await?;
        state.calls[index].began = true;
        runs::save(&self.inner.db, &item.call.run_id, &serde_json::to_string(&state).expect("run state serializes")).await
    }

    /// Why `decision`'s receipt does not let `tool` run with `args` now, if it does not.
    async fn receipt_refused(&self, decision: &Decision, tool: &str, args: &Value) -> Option<String> {
        use crate::domain::receipt;
        let Some(text) = decision.receipt.as_deref() else {
            return Some("the decision has no receipt".into());
        };
        let kid = match receipt::key_id_of(text) {
            Ok(kid) => kid,
            Err(e) => return Some(e.to_string()),
        };
        let keys = match self.inner.keys.for_kid(&self.inner.db, &kid).await {
            Ok(keys) => keys,
            Err(e) => return Some(format!("the key set cannot be read: {e}")),
        };
        let expect = receipt::Expect { tool, args, run_id: None, tool_call_id: None };
        receipt::verify(text, &keys, chrono::Utc::now().timestamp(), &expect).err().map(|e| e.to_string())
    }

    /// A verdict applied to one waiting call of `state`: what the call becomes, and the outcome to record.
    pub(super) async fn apply(
        &self,
        decision: &Decision,
        agent: &Agent,
        state: &RunState,
        call: &StepCall,
    ) -> Result<(CallStatus, Value), Error> {
        // Issue 29: a decision that runs a tool runs it only on its signed receipt, checked as any
        // place where a tool runs checks one (docs/receipts.md): key, signature, expiry, tool and
        // the arguments about to run. Used once: its delivery was claimed once (the outbox).
        // S7's own check (below) speaks first when the arguments changed.
        let (runs, args, approved) = match &decision.verdict {
            Verdict::Approve => (true, &call.args, Some(&decision.fingerprint)),
            Verdict::ApproveEdited { args, fingerprint } => (true, args, Some(fingerprint)),
            Verdict::Resume { .. } => (true, &call.args, None),
            _ => (false, &call.args, None),
        };
        let s7_holds = approved.is_none_or(|fp| Fingerprint::of(&call.tool_name, args).is_ok_and(|now| &now == fp));
        if runs && s7_holds && agent.tool(&call.tool_name).is_some() {
            if let Some(why) = self.receipt_refused(decision, &call.tool_name, args).await {
                let text = format!("Tool call blocked: the decision's signed receipt was refused ({why}).");
                return Ok((CallStatus::Done { result: json!(text) }, json!({"status": "blocked", "result": text})));
            }
        }
        Ok(match (&decision.verdict, agent.tool(&call.tool_name)) {
            (Verdict::Decline { reason }, _) => {
                let text = format!("Tool call declined by the operator. Reason: {}", reason.as_deref().unwrap_or("none given"));
                (CallStatus::Done { result: json!(text) }, json!({"status": "declined", "result": text}))
            }
            (Verdict::Expire { after_secs }, _) => {
                let text = Verdict::expiry_text(*after_secs);
                (CallStatus::Done { result: json!(text) }, json!({"status": "expired", "result": text}))
            }
            (_, None) => {
                let text = format!("Tool not found: {}", call.tool_name);
                (CallStatus::Done { result: json!(text) }, json!({"status": "tool-error", "result": text}))
            }
            (Verdict::Approve, Some(tool)) => {
                // S7: the before-tool-call hook, always on: the args about to run must be the ones approved.
                let now = Fingerprint::of(&call.tool_name, &call.args).map_err(|e| Error::InvalidRequest(e.to_string()))?;
                if now != decision.fingerprint {
                    let text = format!("Tool call blocked: approval did not match {} arguments.", call.tool_name);
                    (CallStatus::Done { result: json!(text) }, json!({"status": "blocked", "result": text}))
                } else {
                    executed(self.execute(tool, state, &call.tool_call_id, &call.args, None).await)
                }
            }
            (Verdict::ApproveEdited { args, fingerprint }, Some(tool)) => {
                // S7 for edited arguments: what runs must be what the operator approved, edited.
                let now = Fingerprint::of(&call.tool_name, args).map_err(|e| Error::InvalidRequest(e.to_string()))?;
                if &now != fingerprint {
                    let text = format!("Tool call blocked: approval did not match {} arguments.", call.tool_name);
                    (CallStatus::Done { result: json!(text) }, json!({"status": "blocked", "result": text}))
                } else {
                    let (status, mut outcome) = executed(self.execute(tool, state, &call.tool_call_id, args, None).await);
                    outcome["editedArgs"] = args.clone();
                    (status, outcome)
                }
            }
            (Verdict::Resume { data }, Some(tool)) => {
                if let Some(schema) = tool.resume_schema() {
                    crate::domain::schema::validate(&schema, data)?;
                }
                executed(self.execute(tool, state, &call.tool_call_id, &call.args, Some(data)).await)
            }
        })
    }
}

#[async_trait]
impl Engine for LocalEngine {
    fn id(&self) -> EngineId {
        self.inner.id.clone()
    }

    fn allowed(&self, call: &PausedCall) -> Vec<DecisionKind> {
        match call.kind {
            CallKind::Approval => vec![DecisionKind::Approve, DecisionKind::Decline, DecisionKind::Edit],
            CallKind::Suspend => vec![DecisionKind::Resume, DecisionKind::Decline],
        }
    }

    fn check_edit(&self, call: &PausedCall, args: &Value) -> Result<(), Error> {
        if call.kind != CallKind::Approval {
            return Err(Error::DecisionNotAllowed { kind: DecisionKind::Edit, allowed: self.allowed(call) });
        }
        let agent = self.require_agent(call.agent_id.as_str())?;
        let tool = agent.tool(&call.tool_name).ok_or_else(|| Error::not_found(format!("tool {}", call.tool_name)))?;
        // The edited arguments must be ones the tool accepts (its input schema; the same checks as
        // resume data, answered as `invalid_arguments`).
        crate::domain::schema::validate(&tool.input_schema(), args).map_err(|e| match e {
            Error::InvalidResumeData { errors } => Error::InvalidArguments { errors },
            other => other,
        })
    }

    async fn reread(&self, call: &PausedCall) -> Result<Option<PausedCall>, Error> {
        // No snapshot: S11's clear `snapshot_not_found`, not a silent "gone".
        let (state, _) = self.load(&call.run_id).await?;
        let Some(agent) = self.agent(state.agent_id.as_str()) else { return Ok(None) };
        match state.calls.iter().position(|c| c.tool_call_id == call.tool_call_id.as_str() && c.paused()) {
            Some(i) => self.surface(&agent, &state, i).await.map(Some),
            None => Ok(None),
        }
    }

    async fn started_by(&self, call: &PausedCall) -> Result<Option<String>, Error> {
        // A sub-agent's run records its top run's starter too; the queue names the top run.
        Ok(self.load(&call.run_id).await?.0.started_by)
    }

    async fn reason(&self, call: &PausedCall) -> Result<Option<Vec<crate::domain::reason::ReasonMessage>>, Error> {
        Ok(Some(super::peer::reason_from(&self.load(&call.run_id).await?.0, call)))
    }

    fn settles(&self) -> bool {
        true
    }

    async fn began(&self, item: &QueuedCall) -> Result<bool, Error> {
        let (state, _) = self.load(&item.call.run_id).await?;
        let call = state.calls.iter().find(|c| c.tool_call_id == item.call.tool_call_id.as_str() && c.paused());
        Ok(match call {
            // Not begun: still waiting, and its delivery never said its tool was about to run.
            Some(c) if !matches!(c.status, CallStatus::Delegated { .. }) => c.began,
            // Inside sub-agents (the mark is not kept there), or no longer waiting: it may have.
            _ => true,
        })
    }

    fn idempotent(&self, call: &PausedCall) -> bool {
        self.agent(call.agent_id.as_str()).and_then(|a| a.tool(&call.tool_name).map(|t| t.idempotent())).unwrap_or(false)
    }

    async fn settle(&self, item: &QueuedCall, result: Value, resolution: &crate::store::resolutions::Stored) -> Result<(), Error> {
        let (run_id, item, resolution) = (item.call.run_id.clone(), item.clone(), resolution.clone());
        self.locked_then_go_on(&run_id, Emit::default(), move |this, _| {
            Box::pin(async move { this.settle_locked(&item, result, &resolution).await.map(|next| ((), next)) })
        })
        .await
    }

    /// The decision checked by the console against the call as [`Engine::reread`] finds it in the
    /// run's snapshot (the default prepare), delivered under the run's lock, where S7 compares the
    /// arguments about to run with the decision once more (defence in depth: `apply`). Answers once
    /// the outcome is committed; the run goes on after that, in the delivery's task.
    async fn send(&self, checked: Checked, sink: Option<ChunkSink>) -> Result<Value, Error> {
        let own = checked.own();
        let (decision, item) = (own.decision.clone(), own.item.clone());
        let run_id = item.call.run_id.clone();
        self.locked_then_go_on(&run_id, Emit(sink), move |this, emit| {
            Box::pin(async move { this.deliver_locked(&decision, &item, emit).await })
        })
        .await
    }
}
