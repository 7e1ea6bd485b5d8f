//! A run from its start: model steps, plain tools, the end of a run (finished, failed), and
//! continuing runs a stopped process left half-advanced (recover).

use super::*;

impl LocalEngine {
    /// Starts a run and drives it until it finishes or pauses. The work runs in its own task, so a
    /// caller that goes away (a closed HTTP connection) does not cut a run in half.
    ///
    /// A run id chosen by the client must not name a run that exists and has not finished (one with a
    /// snapshot, or one being started here): that is `run_exists`, and nothing changes. It must not
    /// contain `/` either (sub-agents' runs are `<run>/<call>`).
    pub async fn start(&self, request: RunRequest, sink: Option<ChunkSink>) -> Result<RunId, Error> {
        let agent = self.require_agent(request.agent_id.as_str())?;
        let chosen = matches!(request.run_id, StartId::Chosen(_));
        let run_id = request.run_id.id().cloned().unwrap_or_else(RunId::generate);
        check_run_id(&run_id)?;
        if !self.inner.starting.lock().expect("starting runs poisoned").insert(run_id.clone()) {
            return Err(Error::RunExists { run_id: run_id.to_string() });
        }
        let starting = Starting { engine: self.clone(), run_id: run_id.clone() };
        let this = self.clone();
        tokio::spawn(async move {
            let _starting = starting;
            // A chosen id is claimed in the database first: another console sharing it may be
            // starting the same id (a generated one is unique by construction).
            if chosen {
                this.claim_run_id(&run_id).await?;
            }
            let started = this.start_claimed(agent, &run_id, request, sink).await;
            if chosen {
                if let Err(e) = runs::release_claim(&this.inner.db, &this.inner.id, &run_id).await {
                    tracing::warn!(run_id = %run_id, "could not release the run id's claim (it is dropped at the next start): {e}");
                }
            }
            started.map(|_| run_id)
        })
        .await
        .map_err(|e| Error::Engine(format!("run task failed: {e}")))?
    }

    /// Claims a run id a client chose, first writer wins across every console sharing the database:
    /// `run_exists` if another start holds it or a run of that id has a snapshot (it has not finished).
    async fn claim_run_id(&self, run_id: &RunId) -> Result<(), Error> {
        if !runs::claim(&self.inner.db, &self.inner.id, run_id).await? {
            return Err(Error::RunExists { run_id: run_id.to_string() });
        }
        Ok(())
    }

    /// The run's first steps once its id is its own; drives it until it finishes or pauses.
    async fn start_claimed(&self, agent: Arc<Agent>, run_id: &RunId, request: RunRequest, sink: Option<ChunkSink>) -> Result<(), Error> {
        let mut messages = vec![Message::System { content: agent.instructions.clone() }];
        let history = self.remembered(&agent, request.thread_id.as_deref(), request.resource_id.as_deref()).await?;
        let history_len = history.len();
        messages.extend(history);
        messages.extend(request.messages);
        let mut state = RunState {
            run_id: run_id.clone(),
            agent_id: agent.id.clone(),
            thread_id: request.thread_id,
            resource_id: request.resource_id,
            options: request.options,
            messages,
            history: history_len,
            step: 0,
            calls: vec![],
            parent: None,
            started_by: request.started_by,
            stored: false,
        };
        let _guard = self.lock_run(&state.run_id).await;
        let emit = Emit(sink);
        emit.send(chunk("start", &state.run_id, json!({})));
        self.drive(&agent, &mut state, &emit).await.map(|_| ())
    }

    /// Refuses a run id a new run cannot take: malformed (`invalid_request`), or naming a run that
    /// exists and has not finished, or one being started on any console (`run_exists`).
    /// [`LocalEngine::start`] checks again, atomically.
    pub async fn check_new_run_id(&self, run_id: &StartId) -> Result<(), Error> {
        let StartId::Chosen(run_id) = run_id else { return Ok(()) };
        check_run_id(run_id)?;
        if runs::taken(&self.inner.db, run_id).await? {
            return Err(Error::RunExists { run_id: run_id.to_string() });
        }
        Ok(())
    }

    /// With memory, a thread and a resource: the thread's earlier messages (the thread is created, and
    /// must belong to that resource).
    pub(super) async fn remembered(&self, agent: &Agent, thread: Option<&str>, resource: Option<&str>) -> Result<Vec<Message>, Error> {
        let (true, Some(thread), Some(resource)) = (agent.memory, thread, resource) else { return Ok(vec![]) };
        let earlier = runs::recall(&self.inner.db, thread, resource, &agent.id, MEMORY_MESSAGES).await?;
        Ok(earlier
            .into_iter()
            .filter_map(|m| serde_json::from_value::<Message>(m).ok())
            .filter(|m| !matches!(m, Message::System { .. }))
            .collect())
    }

    /// Model steps and tool calls until the run finishes or a call pauses.
    pub(super) async fn drive(&self, agent: &Agent, state: &mut RunState, emit: &Emit) -> Result<Outcome, Error> {
        let run_id = state.run_id.clone();
        let policy = state.options.policy();
        // The request context a predicate sees (S3).
        let context = json!({"runId": run_id, "agentId": state.agent_id, "threadId": state.thread_id, "resourceId": state.resource_id});
        self.cut_short(state).await?;
        loop {
            if !state.calls.is_empty() {
                if state.calls.iter().any(StepCall::paused) {
                    return self.suspend(agent, state, emit).await;
                }
                for call in state.calls.drain(..) {
                    let CallStatus::Done { result } = call.status else { unreachable!() };
                    state.messages.push(Message::Tool { tool_call_id: call.tool_call_id, tool_name: call.tool_name, content: result });
                }
                emit.send(chunk("step-finish", &run_id, json!({"stepResult": {"reason": "tool-calls", "isContinued": true}})));
            }
            if state.step >= state.options.max_steps {
                let text = format!("(stopped after {} steps: maxSteps reached)", state.step);
                return self.finish(state, emit, &text, "length").await;
            }
            state.step += 1;
            emit.send(chunk("step-start", &run_id, json!({"messageId": format!("{run_id}-{}", state.step)})));
            let turn = match agent.model.step(&state.messages, &agent.tool_specs()).await {
                Ok(turn) => turn,
                Err(e) => {
                    emit.send(chunk("error", &run_id, json!({"error": {"message": e.to_string(), "code": e.code()}})));
                    self.fail_run(state, &e).await?;
                    return Err(e);
                }
            };
            if turn.tool_calls.is_empty() {
                return self.finish(state, emit, &turn.text, "stop").await;
            }
            Self::emit_text(emit, &run_id, &turn.text);
            state.messages.push(Message::Assistant { content: turn.text, tool_calls: turn.tool_calls.clone() });
            // First what each call needs: an approval (S1–S4), or nothing (a plain tool, run now).
            for proposed in turn.tool_calls {
                let (status, approval_reason, pause_reason) = match agent.tool(&proposed.tool_name) {
                    None => (CallStatus::Done { result: json!(format!("Tool not found: {}", proposed.tool_name)) }, None, None),
                    Some(tool) => {
                        let need = self.needs_approval(agent, tool, &policy, &proposed, &context).await;
                        tracing::debug!(run_id = %run_id, tool = %proposed.tool_name, required = need.required, "approval: {}", need.reason);
                        match need.required {
                            true => (CallStatus::AwaitingApproval, Some(need.reason), need.cause),
                            false => (CallStatus::Started, None, None),
                        }
                    }
                };
                let ProposedCall { tool_call_id, tool_name, args } = proposed;
                state.calls.push(StepCall {
                    tool_call_id,
                    tool_name,
                    args,
                    status,
                    queued: false,
                    approval_reason,
                    pause_reason,
                    began: false,
                });
            }
            // A stored run writes the plain calls it is about to run first (issue 15): if the process
            // dies while they run, the next start finds them `started` and does not run them again.
            if state.stored && state.calls.iter().any(|c| c.status == CallStatus::Started) {
                self.write_step(state).await?;
            }
            for i in 0..state.calls.len() {
                let c = &state.calls[i];
                emit.send(chunk("tool-call", &run_id, json!({"toolCallId": c.tool_call_id, "toolName": c.tool_name, "args": c.args})));
                if c.status == CallStatus::Started {
                    let tool = agent.tool(&c.tool_name).expect("a started call's tool exists").clone();
                    let (call_id, args) = (c.tool_call_id.clone(), c.args.clone());
                    state.calls[i].status = self.execute(&tool, state, &call_id, &args, None).await;
                }
                if let CallStatus::Done { result } = &state.calls[i].status {
                    let c = &state.calls[i];
                    let proposed =
                        ProposedCall { tool_call_id: c.tool_call_id.clone(), tool_name: c.tool_name.clone(), args: c.args.clone() };
                    emit.send(tool_result_chunk(&run_id, &proposed, result));
                }
            }
        }
    }

    /// S1–S4 for one proposed call: the agent's own rules first (a tool not flagged), then the
    /// tool's flag, the request's policy and predicate.
    async fn needs_approval(
        &self,
        agent: &Agent,
        tool: &Arc<dyn Tool>,
        policy: &RequireToolApproval,
        proposed: &ProposedCall,
        context: &Value,
    ) -> policy::Decision {
        let agent_rule = agent.approval_rules.as_ref().and_then(|r| r.first_match(&proposed.tool_name, &proposed.args));
        match agent_rule {
            Some(i) if !tool.require_approval() => policy::Decision::required(
                format!("agent {} approval rule {i} matched", agent.id),
                PauseReason { rule: Some(i as u32 + 1), agent: Some(agent.id.to_string()), ..PauseReason::of(PauseKind::AgentRule) },
            ),
            _ => policy::needs_approval(tool.require_approval(), policy, &proposed.tool_name, &proposed.args, context).await,
        }
    }

    /// The step as it stands, written to the run's snapshot (the run has one: `stored`); the run is
    /// marked running.
    async fn write_step(&self, state: &RunState) -> Result<(), Error> {
        let body = serde_json::to_string(state).expect("run state serializes");
        runs::save_step(&self.inner.db, &state.run_id, &body).await
    }

    /// At the start of a recovered run: plain calls found `started` ran (or not) in a process that
    /// died; they are not run again, the model is told so, and the audit log says which.
    pub(super) async fn cut_short(&self, state: &mut RunState) -> Result<(), Error> {
        let cut: Vec<usize> = (0..state.calls.len()).filter(|&i| state.calls[i].status == CallStatus::Started).collect();
        if cut.is_empty() {
            return Ok(());
        }
        for &i in &cut {
            let c = &mut state.calls[i];
            let text = format!(
                "Tool {} was cut short: the console stopped while it ran, so it may or may not have run. It was not run again.",
                c.tool_name
            );
            c.status = CallStatus::Done { result: json!(text) };
        }
        let body = serde_json::to_string(&*state).expect("run state serializes");
        let calls: Vec<(&str, &str)> =
            cut.iter().map(|&i| (state.calls[i].tool_call_id.as_str(), state.calls[i].tool_name.as_str())).collect();
        runs::record_cut_short(&self.inner.db, &state.run_id, &state.agent_id, state.step, &calls, &body).await?;
        tracing::warn!(run_id = %state.run_id, calls = cut.len(), "plain tool calls cut short by a stop were not run again");
        Ok(())
    }

    pub(super) fn emit_text(emit: &Emit, run_id: &RunId, text: &str) {
        if text.is_empty() {
            return;
        }
        let id = format!("{run_id}-text");
        emit.send(chunk("text-start", run_id, json!({"id": id})));
        emit.send(chunk("text-delta", run_id, json!({"id": id, "text": text})));
        emit.send(chunk("text-end", run_id, json!({"id": id})));
    }

    pub(super) async fn finish(&self, state: &mut RunState, emit: &Emit, text: &str, reason: &str) -> Result<Outcome, Error> {
        let run_id = &state.run_id.clone();
        if state.parent.is_some() {
            // A sub-agent's answer is its supervisor's tool result; its snapshot goes.
            self.end_run_remembering(run_id, None).await?;
            return Ok(Outcome::Finished(text.to_owned()));
        }
        Self::emit_text(emit, run_id, text);
        let mut own: Vec<Message> = state.messages.iter().skip(1 + state.history).cloned().collect();
        if !text.is_empty() {
            own.push(Message::Assistant { content: text.to_owned(), tool_calls: vec![] });
        }
        let agent = self.agent(state.agent_id.as_str());
        let remember = match (agent.map(|a| a.memory), &state.thread_id, &state.resource_id) {
            (Some(true), Some(thread), Some(_)) => Some((thread.as_str(), own)),
            _ => None,
        };
        self.end_run_remembering(run_id, remember).await?;
        emit.send(chunk("step-finish", run_id, json!({"stepResult": {"reason": reason, "isContinued": false}})));
        emit.send(chunk(
            "finish",
            run_id,
            json!({
                "stepResult": {"reason": reason},
                "output": {"text": text, "usage": {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0}},
                "metadata": {},
            }),
        ));
        Ok(Outcome::Finished(text.to_owned()))
    }

    /// The run failed (its model could not answer): it ends, and the cause goes into the audit log.
    pub(super) async fn fail_run(&self, state: &mut RunState, cause: &Error) -> Result<(), Error> {
        self.end_run_remembering(&state.run_id, None).await?;
        let details = crate::domain::audit::RunFailed {
            run_id: &state.run_id,
            agent_id: &state.agent_id,
            step: state.step,
            code: cause.code(),
            error: cause.to_string(),
        };
        runs::record_failed(&self.inner.db, &details).await
    }

    /// The run is over: its snapshot goes (S11), entries still pending are retired, with the run's
    /// own messages added to its thread, all in one transaction.
    async fn end_run_remembering(&self, run_id: &RunId, remember: Option<(&str, Vec<Message>)>) -> Result<(), Error> {
        let remember = remember.map(|(thread, messages)| {
            let bodies: Vec<Value> = messages.iter().map(|m| serde_json::to_value(m).expect("message serializes")).collect();
            (thread, bodies)
        });
        let remember = remember.as_ref().map(|(thread, bodies)| (*thread, bodies.as_slice()));
        runs::end(&self.inner.db, &self.inner.id, run_id, remember).await
    }

    /// Runs a tool, or (S13) a sub-agent in a child run of `parent`.
    pub(super) async fn execute(
        &self,
        tool: &Arc<dyn Tool>,
        parent: &RunState,
        call_id: &str,
        args: &Value,
        resume: Option<&Value>,
    ) -> CallStatus {
        match tool.sub_agent() {
            Some(key) => self.delegate(parent, call_id, key, args).await,
            None => run_tool(tool, args, resume).await,
        }
    }

    /// At start-up: runs a stopped process left `running` — their step's calls all answered, the
    /// answers committed (a delivered decision's outcome, a plain call written `started`) — go on
    /// from their snapshots, each in a task of its own under its run's lock (taken here, before this
    /// returns): the console serves meanwhile, and a model's turn delays no other run. Approved tools
    /// that ran are not run again; plain calls found `started` are cut short ([`LocalEngine::drive`]).
    pub async fn recover(&self) -> Result<usize, Error> {
        // Starts a stopped process left half-way hold their run ids no longer.
        runs::release_claims(&self.inner.db, &self.inner.id).await?;
        let running = runs::running(&self.inner.db, &self.inner.id).await?;
        let count = running.len();
        for s in running {
            let (mut state, _) = self.load(&s.run_id).await?;
            if state.parent.is_some() {
                continue; // advanced through its top-level run
            }
            let agent = self.require_agent(state.agent_id.as_str())?;
            tracing::warn!(run_id = %s.run_id, "run was interrupted while advancing; continuing from its snapshot");
            let (this, guard) = (self.clone(), self.lock_run(&state.run_id).await);
            self.inner.going.spawn(async move {
                let _guard = guard;
                if let Err(e) = this.drive(&agent, &mut state, &Emit::default()).await {
                    tracing::error!(run_id = %state.run_id, "recovered run failed: {e}");
                }
            });
        }
        Ok(count)
    }
}

pub(super) fn executed(status: CallStatus) -> (CallStatus, Value) {
    let outcome = match &status {
        CallStatus::Done { result } => json!({"status": "executed", "result": result}),
        CallStatus::Suspended { payload } => json!({"status": "suspended", "suspendPayload": payload}),
        CallStatus::Delegated { child } => json!({"status": "delegated", "childRunId": child}),
        CallStatus::AwaitingApproval | CallStatus::Started => unreachable!("a tool execution never asks for approval or stays started"),
    };
    (status, outcome)
}

/// Runs a tool in its own task with a time limit: a panic or a hang becomes a tool error handed to the
/// model, never a stuck or crashed run.
pub(super) async fn run_tool(tool: &Arc<dyn Tool>, args: &Value, resume: Option<&Value>) -> CallStatus {
    let suspend_schema = tool.suspend_schema();
    let (tool, args, resume) = (tool.clone(), args.clone(), resume.cloned());
    let name = tool.name().to_owned();
    let task = tokio::spawn(async move { tool.execute(&args, resume.as_ref()).await });
    match tokio::time::timeout(TOOL_TIMEOUT, task).await {
        Ok(Ok(Ok(ToolOutput::Done(result)))) => CallStatus::Done { result },
        // S8: the payload shown to the operator must be what the tool declared.
        Ok(Ok(Ok(ToolOutput::Suspend(payload)))) => match suspend_schema.map(|s| crate::domain::schema::validate(&s, &payload)) {
            Some(Err(e)) => CallStatus::Done {
                result: json!(format!(
                    "Tool {name} suspended with a payload that does not match its suspend schema: {}",
                    e.details().map(|d| d.to_string()).unwrap_or_default()
                )),
            },
            _ => CallStatus::Suspended { payload },
        },
        Ok(Ok(Err(message))) => CallStatus::Done { result: json!(format!("Tool {name} failed: {message}")) },
        Ok(Err(join)) => CallStatus::Done { result: json!(format!("Tool {name} crashed: {join}")) },
        Err(_) => CallStatus::Done { result: json!(format!("Tool {name} timed out after {}s", TOOL_TIMEOUT.as_secs())) },
    }
}

pub(super) fn tool_result_chunk(run_id: &RunId, call: &ProposedCall, result: &Value) -> Value {
    chunk(
        "tool-result",
        run_id,
        json!({
            "toolCallId": call.tool_call_id, "toolName": call.tool_name, "args": call.args, "result": result,
        }),
    )
}
