//! The local engine: runs agents in-process, pauses before sensitive tool calls (S1–S3, decided by
//! [`policy`]), suspends tools (S8), keeps a snapshot of each suspended run (S11) and resumes from it,
//! also after a restart (S12). A snapshot and its queue entries are written in one transaction.

pub mod agent;
pub mod demo;
pub mod mcp;
pub mod model;
pub mod policy;

use crate::domain::{
    AgentId, CallKind, ChainLink, Decision, DecisionKind, EngineId, Error, Fingerprint, ItemId, PauseKind, PauseReason, PausedCall,
    QueuedCall, RunId, ToolCallId, Verdict,
};
use crate::engine::chunk::{chunk, APPROVAL_RESUME_SCHEMA};
use crate::engine::{ChunkSink, Engine};
use crate::store::feed::Events;
use crate::store::outbox;
use crate::store::{audit, memory, queue, snapshots, Db};
use agent::{Agent, Message, ProposedCall, Tool, ToolOutput};
use async_trait::async_trait;
use policy::{PersistedPolicy, Predicate, RequireToolApproval};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long one tool execution may take before it is a tool error.
const TOOL_TIMEOUT: Duration = Duration::from_secs(120);
/// Default of `maxSteps`.
pub const DEFAULT_MAX_STEPS: u32 = 5;

/// Options of one run, persisted in its snapshot — only data, never a function (S4).
///
/// Built with [`RunOptions::new`] from a [`RequireToolApproval`]. A predicate is kept in memory and
/// decides the calls of the run while this process drives it from its start; the serialized form
/// holds `requireToolApproval: true` ("approval required for every call") in its place, plus
/// `predicateNotPersisted: true` saying why. A run driven from its snapshot — after a decision is
/// delivered, or after a restart — therefore pauses every later call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunOptions {
    /// The request policy as stored: `false`, `true` or rules (S2, S3); `true` in place of a predicate.
    require_tool_approval: PersistedPolicy,
    pub max_steps: u32,
    /// The run was started with a predicate and `require_tool_approval` is its fallback (S4).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    predicate_not_persisted: bool,
    /// The predicate, for this process only; never serialized.
    #[serde(skip)]
    predicate: Option<Predicate>,
}

impl RunOptions {
    pub fn new(require_tool_approval: RequireToolApproval, max_steps: u32) -> Self {
        let persisted = require_tool_approval.persisted();
        let predicate = match require_tool_approval {
            RequireToolApproval::Predicate(p) => Some(p),
            _ => None,
        };
        Self { require_tool_approval: persisted, max_steps, predicate_not_persisted: predicate.is_some(), predicate }
    }

    /// The policy deciding this run's calls now: the in-memory predicate if there is one, else the
    /// persisted policy.
    pub fn policy(&self) -> RequireToolApproval {
        match &self.predicate {
            Some(p) => RequireToolApproval::Predicate(p.clone()),
            None => self.require_tool_approval.clone().into(),
        }
    }

    /// What the snapshot keeps.
    pub fn persisted_policy(&self) -> &PersistedPolicy {
        &self.require_tool_approval
    }

    /// Whether the run was started with a predicate that storage replaced by `Always` (S4).
    pub fn predicate_not_persisted(&self) -> bool {
        self.predicate_not_persisted
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        Self::new(RequireToolApproval::Never, DEFAULT_MAX_STEPS)
    }
}

/// Where one call of the current step stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "camelCase")]
enum CallStatus {
    Done {
        result: Value,
    },
    AwaitingApproval,
    Suspended {
        payload: Value,
    },
    /// S13: a sub-agent call whose child run (`<this run>/<call id>`) is paused somewhere below.
    Delegated {
        child: RunId,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StepCall {
    tool_call_id: String,
    tool_name: String,
    args: Value,
    #[serde(flatten)]
    status: CallStatus,
    /// Whether its current pause has a queue entry.
    queued: bool,
    /// Why it needs approval (S1–S3), for the audit trail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    approval_reason: Option<String>,
    /// The same, for the operator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pause_reason: Option<PauseReason>,
}

impl StepCall {
    fn paused(&self) -> bool {
        !matches!(self.status, CallStatus::Done { .. })
    }
}

/// The snapshot body (S11): what a suspended run needs to resume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunState {
    run_id: RunId,
    agent_id: AgentId,
    thread_id: Option<String>,
    resource_id: Option<String>,
    options: RunOptions,
    messages: Vec<Message>,
    /// How many of `messages` (after the system message) came from the thread's memory: the rest is
    /// this run's, added to the thread when it finishes.
    #[serde(default)]
    history: usize,
    step: u32,
    /// The calls of the step in progress.
    calls: Vec<StepCall>,
    /// S13: set on a sub-agent's run; only the top-level run has queue entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    parent: Option<ParentLink>,
    /// The principal that started the run ([`crate::domain::Principal::key`]): an agent credential
    /// lists only its own suspended runs, and auto-resumes only them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    started_by: Option<String>,
}

/// Where a sub-agent's run hangs in its supervisor's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ParentLink {
    run_id: RunId,
    tool_call_id: String,
    /// The top-level run, whose id every pause of the chain is surfaced under.
    top: RunId,
}

/// How far a run got.
enum Outcome {
    Finished(String),
    Paused,
}

/// Deepest supervisor chain (a cycle of sub-agents stops here).
const MAX_DEPTH: usize = 8;

/// How many earlier messages of a thread a run starts with.
const MEMORY_MESSAGES: u32 = 40;

/// A request to start a run.
#[derive(Clone, Debug)]
pub struct RunRequest {
    pub agent_id: AgentId,
    pub messages: Vec<Message>,
    pub thread_id: Option<String>,
    pub resource_id: Option<String>,
    pub options: RunOptions,
    /// A run id chosen by the client; refused (`run_exists`) while a run of that id exists.
    pub run_id: Option<RunId>,
    /// The principal starting it ([`crate::domain::Principal::key`]); `None` for in-process callers.
    pub started_by: Option<String>,
}

/// A suspended run as `suspended-runs` lists it (S12).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuspendedRun {
    pub run_id: RunId,
    pub status: &'static str,
    pub thread_id: Option<String>,
    pub resource_id: Option<String>,
    pub suspended_at: String,
    pub tool_calls: Vec<Value>,
    /// Who started it (not part of Mastra's shape).
    #[serde(skip)]
    pub started_by: Option<String>,
}

/// Sends chunks to whoever listens; a listener that went away does not stop the run.
#[derive(Clone, Default)]
struct Emit(Option<ChunkSink>);

impl Emit {
    fn send(&self, c: Value) {
        if let Some(tx) = &self.0 {
            let _ = tx.send(c);
        }
    }
}

/// The in-process engine. Cheap to clone.
#[derive(Clone)]
pub struct LocalEngine {
    inner: Arc<Inner>,
}

struct Inner {
    db: Db,
    events: Events,
    agents: BTreeMap<String, Arc<Agent>>,
    /// One async lock per run: decisions on one run are applied one at a time.
    run_locks: Mutex<HashMap<RunId, Arc<tokio::sync::Mutex<()>>>>,
    /// Runs being started and driven by [`LocalEngine::start`] in this process (before their first
    /// snapshot, a run exists only here).
    starting: Mutex<std::collections::HashSet<RunId>>,
}

/// Takes a run id out of [`Inner::starting`] when its start is over.
struct Starting {
    engine: LocalEngine,
    run_id: RunId,
}

impl Drop for Starting {
    fn drop(&mut self) {
        self.engine.inner.starting.lock().expect("starting runs poisoned").remove(&self.run_id);
    }
}

/// The longest run id a client may choose.
const MAX_RUN_ID: usize = 200;

impl LocalEngine {
    pub fn new(db: Db, events: Events, agents: Vec<Agent>) -> Self {
        let agents = agents.into_iter().map(|a| (a.id.as_str().to_owned(), Arc::new(a))).collect();
        Self { inner: Arc::new(Inner { db, events, agents, run_locks: Mutex::default(), starting: Mutex::default() }) }
    }

    pub fn agents(&self) -> impl Iterator<Item = &Arc<Agent>> {
        self.inner.agents.values()
    }

    pub fn agent(&self, id: &str) -> Option<Arc<Agent>> {
        self.inner.agents.get(id).cloned()
    }

    fn require_agent(&self, id: &str) -> Result<Arc<Agent>, Error> {
        self.agent(id).ok_or_else(|| Error::not_found(format!("agent {id:?}")))
    }

    async fn lock_run(&self, run_id: &RunId) -> tokio::sync::OwnedMutexGuard<()> {
        let lock = {
            let mut locks = self.inner.run_locks.lock().expect("run lock table poisoned");
            locks.retain(|_, l| Arc::strong_count(l) > 1);
            locks.entry(run_id.clone()).or_default().clone()
        };
        lock.lock_owned().await
    }

    /// Starts a run and drives it until it finishes or pauses. The work runs in its own task, so a
    /// caller that goes away (a closed HTTP connection) does not cut a run in half.
    ///
    /// A run id chosen by the client must not name a run that exists and has not finished (one with a
    /// snapshot, or one being started here): that is `run_exists`, and nothing changes. It must not
    /// contain `/` either (sub-agents' runs are `<run>/<call>`).
    pub async fn start(&self, request: RunRequest, sink: Option<ChunkSink>) -> Result<RunId, Error> {
        let agent = self.require_agent(request.agent_id.as_str())?;
        let run_id = request.run_id.unwrap_or_else(RunId::generate);
        check_run_id(&run_id)?;
        if !self.inner.starting.lock().expect("starting runs poisoned").insert(run_id.clone()) {
            return Err(Error::RunExists { run_id: run_id.to_string() });
        }
        let starting = Starting { engine: self.clone(), run_id: run_id.clone() };
        self.check_new_run_id(&run_id).await?;
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
        };
        let this = self.clone();
        tokio::spawn(async move {
            let _starting = starting;
            let _guard = this.lock_run(&state.run_id).await;
            let emit = Emit(sink);
            emit.send(chunk("start", &state.run_id, json!({})));
            this.drive(&agent, &mut state, &emit).await.map(|_| ())
        })
        .await
        .map_err(|e| Error::Engine(format!("run task failed: {e}")))??;
        Ok(run_id)
    }

    /// Refuses a run id a new run cannot take: malformed (`invalid_request`), or naming a run that
    /// exists and has not finished (`run_exists`). [`LocalEngine::start`] checks again, atomically.
    pub async fn check_new_run_id(&self, run_id: &RunId) -> Result<(), Error> {
        check_run_id(run_id)?;
        let taken = {
            let mut conn = self.inner.db.pool().acquire().await?;
            snapshots::get(&mut conn, run_id).await?.is_some()
        };
        // `start` has put the id in `starting` itself before asking: only a snapshot counts then.
        if taken {
            return Err(Error::RunExists { run_id: run_id.to_string() });
        }
        Ok(())
    }

    /// With memory, a thread and a resource: the thread's earlier messages (the thread is created, and
    /// must belong to that resource).
    async fn remembered(&self, agent: &Agent, thread: Option<&str>, resource: Option<&str>) -> Result<Vec<Message>, Error> {
        let (true, Some(thread), Some(resource)) = (agent.memory, thread, resource) else { return Ok(vec![]) };
        let mut tx = self.inner.db.begin_write().await?;
        memory::ensure_thread(&mut tx, thread, resource, &agent.id).await?;
        let earlier = memory::recent(&mut tx, thread, MEMORY_MESSAGES).await?;
        tx.commit().await?;
        Ok(earlier
            .into_iter()
            .filter_map(|m| serde_json::from_value::<Message>(m).ok())
            .filter(|m| !matches!(m, Message::System { .. }))
            .collect())
    }

    /// Model steps and tool calls until the run finishes or a call pauses.
    async fn drive(&self, agent: &Agent, state: &mut RunState, emit: &Emit) -> Result<Outcome, Error> {
        let run_id = state.run_id.clone();
        let policy = state.options.policy();
        // The request context a predicate sees (S3).
        let context = json!({"runId": run_id, "agentId": state.agent_id, "threadId": state.thread_id, "resourceId": state.resource_id});
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
            for proposed in turn.tool_calls {
                emit.send(chunk(
                    "tool-call",
                    &run_id,
                    json!({
                        "toolCallId": proposed.tool_call_id, "toolName": proposed.tool_name, "args": proposed.args,
                    }),
                ));
                let mut approval_reason = None;
                let mut pause_reason = None;
                let status = match agent.tool(&proposed.tool_name) {
                    None => CallStatus::Done { result: json!(format!("Tool not found: {}", proposed.tool_name)) },
                    Some(tool) => {
                        let agent_rule = agent.approval_rules.as_ref().and_then(|r| r.first_match(&proposed.tool_name, &proposed.args));
                        let need = match agent_rule {
                            Some(i) if !tool.require_approval() => policy::Decision::required(
                                format!("agent {} approval rule {i} matched", agent.id),
                                PauseReason {
                                    rule: Some(i as u32 + 1),
                                    agent: Some(agent.id.to_string()),
                                    ..PauseReason::of(PauseKind::AgentRule)
                                },
                            ),
                            _ => {
                                policy::needs_approval(tool.require_approval(), &policy, &proposed.tool_name, &proposed.args, &context)
                                    .await
                            }
                        };
                        tracing::debug!(run_id = %run_id, tool = %proposed.tool_name, required = need.required, "approval: {}", need.reason);
                        if need.required {
                            approval_reason = Some(need.reason);
                            pause_reason = need.cause;
                            CallStatus::AwaitingApproval
                        } else {
                            self.execute(tool, state, &proposed.tool_call_id, &proposed.args, None).await
                        }
                    }
                };
                if let CallStatus::Done { result } = &status {
                    emit.send(tool_result_chunk(&run_id, &proposed, result));
                }
                let ProposedCall { tool_call_id, tool_name, args } = proposed;
                state.calls.push(StepCall { tool_call_id, tool_name, args, status, queued: false, approval_reason, pause_reason });
            }
        }
    }

    fn emit_text(emit: &Emit, run_id: &RunId, text: &str) {
        if text.is_empty() {
            return;
        }
        let id = format!("{run_id}-text");
        emit.send(chunk("text-start", run_id, json!({"id": id})));
        emit.send(chunk("text-delta", run_id, json!({"id": id, "text": text})));
        emit.send(chunk("text-end", run_id, json!({"id": id})));
    }

    async fn finish(&self, state: &RunState, emit: &Emit, text: &str, reason: &str) -> Result<Outcome, Error> {
        let run_id = &state.run_id;
        if state.parent.is_some() {
            // A sub-agent's answer is its supervisor's tool result; its snapshot goes.
            self.end_run(run_id).await?;
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

    /// The run is over: its snapshot goes (S11); entries still pending are retired.
    async fn end_run(&self, run_id: &RunId) -> Result<(), Error> {
        self.end_run_remembering(run_id, None).await
    }

    /// The run failed (its model could not answer): it ends, and the cause goes into the audit log.
    async fn fail_run(&self, state: &RunState, cause: &Error) -> Result<(), Error> {
        self.end_run(&state.run_id).await?;
        let mut tx = self.inner.db.begin_write().await?;
        audit::append(&mut tx, audit::Record {
            actor: "engine:local",
            action: "run.failed",
            queue_item_id: None,
            tool_name: None,
            fingerprint: None,
            details: json!({"runId": state.run_id, "agentId": state.agent_id, "step": state.step, "code": cause.code(), "error": cause.to_string()}),
        })
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// [`Self::end_run`], adding the run's own messages to its thread in the same transaction.
    async fn end_run_remembering(&self, run_id: &RunId, remember: Option<(&str, Vec<Message>)>) -> Result<(), Error> {
        let mut tx = self.inner.db.begin_write().await?;
        if let Some((thread, messages)) = remember {
            let bodies: Vec<Value> = messages.iter().map(|m| serde_json::to_value(m).expect("message serializes")).collect();
            memory::append(&mut tx, thread, run_id, &bodies).await?;
        }
        snapshots::delete_tree(&mut tx, run_id).await?;
        let gone = queue::retire_run(&mut tx, &EngineId::local(), run_id).await?;
        // A grant for "this run" ends with the run: a later run reusing the id is another run.
        crate::store::grants::end_for_run(&mut tx, &EngineId::local(), run_id, crate::store::now()).await?;
        tx.commit().await?;
        if !gone.is_empty() {
            self.inner.events.changed();
        }
        Ok(())
    }

    /// Writes the snapshot and a queue entry for each newly paused call, in one transaction; only then
    /// tells listeners (so a client reacting to the chunk finds the entry).
    async fn suspend(&self, agent: &Agent, state: &mut RunState, emit: &Emit) -> Result<Outcome, Error> {
        if state.parent.is_some() {
            // A sub-agent's pause surfaces on the top-level run, which writes the queue entry.
            let body = serde_json::to_value(&*state).expect("run state serializes");
            let mut tx = self.inner.db.begin_write().await?;
            snapshots::save_suspended(&mut tx, &state.run_id, &state.agent_id, None, None, &body).await?;
            tx.commit().await?;
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
        let body = serde_json::to_value(&*state).expect("run state serializes");
        let mut tx = self.inner.db.begin_write().await?;
        snapshots::save_suspended(&mut tx, &state.run_id, &state.agent_id, state.thread_id.as_deref(), state.resource_id.as_deref(), &body)
            .await?;
        let mut surfaced = Vec::new();
        for &i in &fresh {
            surfaced.push(self.surface(agent, state, i).await?);
        }
        let mut added = Vec::new();
        for (&i, paused) in fresh.iter().zip(surfaced) {
            let item = queue::insert_pending(&mut tx, &paused).await?;
            audit::append(&mut tx, audit::Record {
                actor: "engine:local",
                action: "call.paused",
                queue_item_id: Some(item.id.as_str()),
                tool_name: Some(&paused.tool_name),
                fingerprint: Some(paused.fingerprint.as_str()),
                details: json!({
                    "runId": paused.run_id, "toolCallId": paused.tool_call_id, "agentId": paused.agent_id, "kind": paused.kind, "args": paused.args,
                    "approvalReason": state.calls[i].approval_reason, "startedBy": state.started_by,
                }),
            })
            .await?;
            added.push((item.id, paused));
        }
        tx.commit().await?;
        self.inner.events.changed();
        for (_, paused) in &added {
            emit.send(pause_chunk(paused));
        }
        Ok(Outcome::Paused)
    }

    /// Runs a tool, or (S13) a sub-agent in a child run of `parent`.
    async fn execute(&self, tool: &Arc<dyn Tool>, parent: &RunState, call_id: &str, args: &Value, resume: Option<&Value>) -> CallStatus {
        match tool.sub_agent() {
            Some(key) => self.delegate(parent, call_id, key, args).await,
            None => run_tool(tool, args, resume).await,
        }
    }

    /// S13: drives sub-agent `key` on the call's prompt in a child run; its answer is the call's result,
    /// or the call waits on the child's pause.
    async fn delegate(&self, parent: &RunState, call_id: &str, key: &AgentId, args: &Value) -> CallStatus {
        let Some(child_agent) = self.agent(key.as_str()) else {
            return CallStatus::Done { result: json!(format!("Sub-agent {key} not found")) };
        };
        if parent.run_id.as_str().matches('/').count() >= MAX_DEPTH {
            return CallStatus::Done { result: json!(format!("Sub-agent {key} not run: the supervisor chain is deeper than {MAX_DEPTH}")) };
        }
        let prompt = args["prompt"].as_str().map(str::to_owned).unwrap_or_else(|| args.to_string());
        let child_id = RunId::new(format!("{}/{call_id}", parent.run_id));
        let top = parent.parent.as_ref().map(|p| p.top.clone()).unwrap_or_else(|| parent.run_id.clone());
        let mut child = RunState {
            run_id: child_id.clone(),
            agent_id: child_agent.id.clone(),
            thread_id: None,
            resource_id: None,
            options: parent.options.clone(),
            messages: vec![Message::System { content: child_agent.instructions.clone() }, Message::User { content: prompt }],
            history: 0,
            step: 0,
            calls: vec![],
            parent: Some(ParentLink { run_id: parent.run_id.clone(), tool_call_id: call_id.to_owned(), top }),
            started_by: parent.started_by.clone(),
        };
        match Box::pin(self.drive(&child_agent, &mut child, &Emit::default())).await {
            Ok(Outcome::Finished(text)) => CallStatus::Done { result: json!(text) },
            Ok(Outcome::Paused) => CallStatus::Delegated { child: child_id },
            Err(e) => CallStatus::Done { result: json!(format!("Sub-agent {key} failed: {e}")) },
        }
    }

    /// The chain from a paused call down to the call that really waits (itself, unless delegated):
    /// each level's agent, run state and call index, top first.
    async fn chain_of(&self, agent: &Agent, state: &RunState, index: usize) -> Result<Vec<(Arc<Agent>, RunState, usize)>, Error> {
        let mut path = vec![(self.require_agent(agent.id.as_str())?, state.clone(), index)];
        while let CallStatus::Delegated { child } = &path.last().expect("not empty").1.calls[path.last().expect("not empty").2].status {
            let (child_state, _) = self.load(child).await?;
            let child_agent = self.require_agent(child_state.agent_id.as_str())?;
            let i = child_state
                .calls
                .iter()
                .position(StepCall::paused)
                .ok_or_else(|| Error::Storage(format!("run {child} is delegated to but waits on nothing")))?;
            path.push((child_agent, child_state, i));
        }
        Ok(path)
    }

    /// A paused call as the queue shows it. A pause inside sub-agents (S13) is surfaced on the
    /// top-level run, under the top call's id, with the inner tool's name and arguments and the chain.
    async fn surface(&self, agent: &Agent, state: &RunState, index: usize) -> Result<PausedCall, Error> {
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

    fn paused_call(&self, agent: &Agent, state: &RunState, call: &StepCall) -> Result<PausedCall, Error> {
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
            engine: EngineId::local(),
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
        })
    }

    async fn load(&self, run_id: &RunId) -> Result<(RunState, bool), Error> {
        let mut conn = self.inner.db.pool().acquire().await?;
        let stored = snapshots::get(&mut conn, run_id).await?.ok_or_else(|| Error::SnapshotNotFound { run_id: run_id.to_string() })?;
        let state: RunState =
            serde_json::from_value(stored.body).map_err(|e| Error::Storage(format!("snapshot of run {run_id} is unreadable: {e}")))?;
        Ok((state, stored.running))
    }

    /// Suspended runs of an agent, newest first (S12), from storage.
    pub async fn suspended_runs(
        &self,
        agent_id: &AgentId,
        thread_id: Option<&str>,
        resource_id: Option<&str>,
    ) -> Result<Vec<SuspendedRun>, Error> {
        let agent = self.require_agent(agent_id.as_str())?;
        let mut conn = self.inner.db.pool().acquire().await?;
        let stored = snapshots::list(&mut conn, agent_id, thread_id, resource_id).await?;
        drop(conn);
        let mut runs = Vec::new();
        for s in stored {
            let Ok(state) = serde_json::from_value::<RunState>(s.body) else { continue };
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

    /// At start-up: runs left `running` by a process that stopped are put back to `suspended`; those
    /// whose calls are all answered continue (their approved tools already ran and are not re-run).
    pub async fn recover(&self) -> Result<usize, Error> {
        let running = {
            let mut conn = self.inner.db.pool().acquire().await?;
            snapshots::running(&mut conn).await?
        };
        let count = running.len();
        for s in running {
            let (mut state, _) = self.load(&s.run_id).await?;
            if state.parent.is_some() {
                continue; // advanced through its top-level run
            }
            let agent = self.require_agent(state.agent_id.as_str())?;
            tracing::warn!(run_id = %s.run_id, "run was interrupted while advancing; continuing from its snapshot");
            let this = self.clone();
            let _guard = this.lock_run(&state.run_id).await;
            if let Err(e) = this.drive(&agent, &mut state, &Emit::default()).await {
                tracing::error!(run_id = %s.run_id, "recovered run failed: {e}");
            }
        }
        Ok(count)
    }

    async fn deliver_locked(&self, decision: &Decision, item: &QueuedCall, emit: &Emit) -> Result<Value, Error> {
        let run_id = &item.call.run_id;
        let (mut state, running) = self.load(run_id).await?;
        if running {
            return Err(Error::Engine(format!("run {run_id} is being advanced elsewhere; try again")));
        }
        let agent = self.require_agent(state.agent_id.as_str())?;
        // S6: the named call, never another one.
        let index = state
            .calls
            .iter()
            .position(|c| c.tool_call_id == item.call.tool_call_id.as_str() && c.paused())
            .ok_or_else(|| Error::not_found(format!("tool call {} pending in run {run_id}", item.call.tool_call_id)))?;
        if matches!(state.calls[index].status, CallStatus::Delegated { .. }) {
            return self.deliver_nested(decision, item, &agent, state, index, emit).await;
        }
        let call = state.calls[index].clone();
        let proposed = ProposedCall { tool_call_id: call.tool_call_id.clone(), tool_name: call.tool_name.clone(), args: call.args.clone() };
        let (status, outcome) = self.apply(decision, &agent, &state, &call).await?;
        let repaused = matches!(status, CallStatus::Suspended { .. } | CallStatus::Delegated { .. });
        state.calls[index].status = status.clone();
        state.calls[index].queued = false;
        if let Verdict::ApproveEdited { args, .. } = &decision.verdict {
            // The run's history shows the call as it ran; the queue entry and the audit keep both.
            state.calls[index].args = args.clone();
        }
        let all_done = !state.calls.iter().any(StepCall::paused);

        let mut tx = self.inner.db.begin_write().await?;
        outbox::record(&mut tx, decision, item, &outcome, None).await?;
        let mut new_item = None;
        if repaused {
            let paused = self.surface(&agent, &state, index).await?;
            state.calls[index].queued = true;
            queue::insert_pending(&mut tx, &paused).await?;
            new_item = Some(paused);
        }
        let body = serde_json::to_value(&state).expect("run state serializes");
        snapshots::update_body(&mut tx, run_id, &body).await?;
        if all_done {
            snapshots::claim_running(&mut tx, run_id).await?;
        }
        tx.commit().await?;
        self.inner.events.changed();
        match (&status, new_item) {
            (CallStatus::Done { result }, _) => emit.send(tool_result_chunk(run_id, &proposed, result)),
            (_, Some(paused)) => emit.send(pause_chunk(&paused)),
            _ => {}
        }
        self.continue_after_delivery(&agent, &mut state, all_done, emit).await;
        Ok(outcome)
    }

    /// After a delivery: a run whose step is fully answered goes on; else say which calls still wait.
    async fn continue_after_delivery(&self, agent: &Agent, state: &mut RunState, all_done: bool, emit: &Emit) {
        if all_done {
            // The decision is delivered and recorded; what the run does next (a model error, say) is
            // the run's business, reported on the stream, not a failed delivery.
            if let Err(e) = self.drive(agent, state, emit).await {
                tracing::warn!(run_id = %state.run_id, "run failed after a delivered decision: {e}");
            }
        } else {
            // Still waiting for other calls of this step (S14): say which, as a Mastra stream would.
            for i in (0..state.calls.len()).filter(|&i| state.calls[i].paused()) {
                if let Ok(p) = self.surface(agent, state, i).await {
                    emit.send(pause_chunk(&p));
                }
            }
        }
    }

    /// A verdict applied to one waiting call of `state`: what the call becomes, and the outcome to record.
    async fn apply(&self, decision: &Decision, agent: &Agent, state: &RunState, call: &StepCall) -> Result<(CallStatus, Value), Error> {
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

    /// S13: a decision on a pause inside sub-agents travels down the chain to the waiting call, then
    /// each finished child's answer travels up as its supervisor's tool result, up to the top run.
    async fn deliver_nested(
        &self,
        decision: &Decision,
        item: &QueuedCall,
        agent: &Arc<Agent>,
        state: RunState,
        index: usize,
        emit: &Emit,
    ) -> Result<Value, Error> {
        let mut path = self.chain_of(agent, &state, index).await?;
        let last = path.len() - 1;
        let (status, outcome) = {
            let (leaf_agent, leaf_state, leaf_index) = &path[last];
            self.apply(decision, leaf_agent, leaf_state, &leaf_state.calls[*leaf_index]).await?
        };
        {
            let (_, leaf_state, leaf_index) = &mut path[last];
            leaf_state.calls[*leaf_index].status = status;
            if let Verdict::ApproveEdited { args, .. } = &decision.verdict {
                leaf_state.calls[*leaf_index].args = args.clone();
            }
        }
        let mut tx = self.inner.db.begin_write().await?;
        outbox::record(&mut tx, decision, item, &outcome, None).await?;
        let leaf_body = serde_json::to_value(&path[last].1).expect("run state serializes");
        snapshots::update_body(&mut tx, &path[last].1.run_id, &leaf_body).await?;
        tx.commit().await?;
        self.inner.events.changed();

        // Up the chain, as far as runs can go on.
        let mut level = last;
        loop {
            if path[level].1.calls.iter().any(StepCall::paused) {
                if level != last {
                    let body = serde_json::to_value(&path[level].1).expect("run state serializes");
                    let mut tx = self.inner.db.begin_write().await?;
                    snapshots::update_body(&mut tx, &path[level].1.run_id, &body).await?;
                    tx.commit().await?;
                }
                break;
            }
            if level == 0 {
                let (top_agent, top_state, _) = &mut path[0];
                // The top call's answer is stored with the claim: its children's snapshots are gone.
                let body = serde_json::to_value(&*top_state).expect("run state serializes");
                let mut tx = self.inner.db.begin_write().await?;
                snapshots::update_body(&mut tx, &top_state.run_id, &body).await?;
                snapshots::claim_running(&mut tx, &top_state.run_id).await?;
                tx.commit().await?;
                let agent = top_agent.clone();
                self.continue_after_delivery(&agent, top_state, true, emit).await;
                return Ok(outcome);
            }
            let (child_agent, child_state, _) = &mut path[level];
            let child_agent = child_agent.clone();
            match Box::pin(self.drive(&child_agent, child_state, &Emit::default())).await {
                Ok(Outcome::Finished(text)) => {
                    let (_, parent_state, parent_index) = &mut path[level - 1];
                    parent_state.calls[*parent_index].status = CallStatus::Done { result: json!(text) };
                    if level - 1 == 0 {
                        let c = &parent_state.calls[*parent_index];
                        let proposed =
                            ProposedCall { tool_call_id: c.tool_call_id.clone(), tool_name: c.tool_name.clone(), args: c.args.clone() };
                        emit.send(tool_result_chunk(&parent_state.run_id, &proposed, &json!(text)));
                    }
                    level -= 1;
                }
                Ok(Outcome::Paused) => break,
                Err(e) => {
                    let (_, parent_state, parent_index) = &mut path[level - 1];
                    parent_state.calls[*parent_index].status = CallStatus::Done { result: json!(format!("Sub-agent failed: {e}")) };
                    level -= 1;
                }
            }
        }
        // The chain still waits somewhere below the top: surface what waits now.
        let (top_agent, top_state, top_index) = &mut path[0];
        top_state.calls[*top_index].queued = false;
        let agent = top_agent.clone();
        self.suspend(&agent, top_state, emit).await?;
        Ok(outcome)
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
            engine: Some(EngineId::local().to_string()),
            agent: Some(agent.id.to_string()),
            kind: Some(CallKind::Suspend),
            thread: Some(thread.clone()),
            ..Default::default()
        };
        let page = {
            let mut conn = self.inner.db.pool().acquire().await?;
            queue::list(&mut conn, &filter, None, 50).await?
        };
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
        let mut conn = self.inner.db.pool().acquire().await?;
        Ok(queue::pending_of_run(&mut conn, &EngineId::local(), run_id).await?.into_iter().map(|e| e.queued.id).collect())
    }
}

/// 1–[`MAX_RUN_ID`] characters, no `/` (sub-agents' runs are `<run>/<call>`), no control characters.
fn check_run_id(run_id: &RunId) -> Result<(), Error> {
    let id = run_id.as_str();
    if id.is_empty() || id.len() > MAX_RUN_ID || id.contains('/') || id.chars().any(char::is_control) {
        return Err(Error::InvalidRequest(format!("runId must be 1–{MAX_RUN_ID} characters without '/' or control characters")));
    }
    Ok(())
}

fn executed(status: CallStatus) -> (CallStatus, Value) {
    let outcome = match &status {
        CallStatus::Done { result } => json!({"status": "executed", "result": result}),
        CallStatus::Suspended { payload } => json!({"status": "suspended", "suspendPayload": payload}),
        CallStatus::Delegated { child } => json!({"status": "delegated", "childRunId": child}),
        CallStatus::AwaitingApproval => unreachable!("a tool execution never asks for approval"),
    };
    (status, outcome)
}

/// Runs a tool in its own task with a time limit: a panic or a hang becomes a tool error handed to the
/// model, never a stuck or crashed run.
async fn run_tool(tool: &Arc<dyn Tool>, args: &Value, resume: Option<&Value>) -> CallStatus {
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

fn tool_result_chunk(run_id: &RunId, call: &ProposedCall, result: &Value) -> Value {
    chunk(
        "tool-result",
        run_id,
        json!({
            "toolCallId": call.tool_call_id, "toolName": call.tool_name, "args": call.args, "result": result,
        }),
    )
}

/// `tool-call-approval` or `tool-call-suspended` (S5, S8).
fn pause_chunk(call: &PausedCall) -> Value {
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

#[async_trait]
impl Engine for LocalEngine {
    fn id(&self) -> EngineId {
        EngineId::local()
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

    async fn deliver(&self, decision: &Decision, item: &QueuedCall, sink: Option<ChunkSink>) -> Result<Value, Error> {
        let this = self.clone();
        let (decision, item) = (decision.clone(), item.clone());
        tokio::spawn(async move {
            let _guard = this.lock_run(&item.call.run_id).await;
            this.deliver_locked(&decision, &item, &Emit(sink)).await
        })
        .await
        .map_err(|e| Error::Engine(format!("delivery task failed: {e}")))?
    }
}
