//! The local engine: runs agents in-process, pauses before sensitive tool calls (S1–S3, decided by
//! [`policy`]), suspends tools (S8), keeps a snapshot of each suspended run (S11) and resumes from it,
//! also after a restart (S12). A snapshot and its queue entries are written in one transaction.
//!
//! Along the two flows: `run` (start, model steps, plain tools, the end of a run, recover), `suspend`
//! (snapshot and queue entries, what a paused call shows, suspended-runs, auto-resume), `deliver` (a
//! decision to a paused call, the `Engine` impl), `supervisor` (sub-agents, S13). This file holds
//! the run's state as it is stored, the engine's handle and what those share.

pub mod agent;
mod deliver;
pub mod demo;
pub mod peer;
mod run;
mod settle;
mod supervisor;
mod suspend;

use run::{executed, tool_result_chunk};
use suspend::pause_chunk;
pub mod mcp;
pub mod model;
pub mod policy;

use crate::domain::{
    AgentId, CallKind, ChainLink, Decision, DecisionKind, EngineId, Error, Fingerprint, ItemId, PauseKind, PauseReason, PausedCall,
    QueuedCall, RunId, ToolCallId, Verdict,
};
use crate::engine::chunk::{chunk, APPROVAL_RESUME_SCHEMA};
use crate::engine::send::Checked;
use crate::engine::{ChunkSink, Engine};
use crate::store::runs;
use crate::store::{queue, Db};
use agent::{Agent, Message, ProposedCall, Tool, ToolOutput};
use async_trait::async_trait;
use policy::{PersistedPolicy, Predicate, RequireToolApproval};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;
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
    /// A plain tool (no approval) about to run, written to the snapshot first (issue 15): found so at
    /// start-up, the process died while it ran, and it is not run again.
    Started,
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
    /// Issue 46: a decision's delivery is about to run its tool, written to the snapshot first. A
    /// stop before that finds it unset, and the decision is delivered again at the next start (its
    /// tool never began); a stop after it leaves the call `interrupted`, never run twice.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    began: bool,
}

impl StepCall {
    /// Waiting for the operator (an approval, an answer) or for a sub-agent that does.
    fn paused(&self) -> bool {
        matches!(self.status, CallStatus::AwaitingApproval | CallStatus::Suspended { .. } | CallStatus::Delegated { .. })
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
    /// Read from a snapshot: the run is stored, so what it is about to do is written first (a fresh
    /// run that dies before it ever paused has nothing to continue from).
    #[serde(skip)]
    stored: bool,
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
    /// Where the run's id comes from.
    pub run_id: StartId,
    /// The principal starting it ([`crate::domain::Principal::key`]); `None` for in-process callers.
    pub started_by: Option<String>,
}

/// The id of a run to start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum StartId {
    /// Made by the engine: unique by construction.
    #[default]
    New,
    /// Made by the caller with [`RunId::generate`] (to answer with it before the run ends): unique by
    /// construction too, so nothing is claimed for it.
    Generated(RunId),
    /// Chosen by the client: claimed in the database first (another console sharing it may start the
    /// same id), refused (`run_exists`) while a run of that id exists.
    Chosen(RunId),
}

impl StartId {
    /// A client's id if it gave one, otherwise a generated one.
    pub fn of(chosen: Option<RunId>) -> Self {
        chosen.map_or_else(|| Self::Generated(RunId::generate()), Self::Chosen)
    }

    /// The id, unless the engine is to make it.
    pub fn id(&self) -> Option<&RunId> {
        match self {
            Self::New => None,
            Self::Generated(id) | Self::Chosen(id) => Some(id),
        }
    }
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
    /// `local` on a console of its own; `local@<instance>` on a console sharing its database.
    id: EngineId,
    db: Db,
    agents: BTreeMap<String, Arc<Agent>>,
    /// One async lock per run: decisions on one run are applied one at a time.
    run_locks: crate::engine::locks::KeyedLocks<RunId>,
    /// Runs being started and driven by [`LocalEngine::start`] in this process (before their first
    /// snapshot, a run exists only here).
    starting: Mutex<std::collections::HashSet<RunId>>,
    /// The receipts' key set, to check each decision's receipt before its tool runs (issue 29).
    keys: crate::store::receipts::KeyCache,
    /// Runs going on after a delivery or a restart, in tasks of their own ([`LocalEngine::settled`]).
    going: tokio_util::task::TaskTracker,
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
    /// The local engine `id` (see [`crate::app::local_engine_id`]) over `db`, running `agents`.
    pub fn new(id: EngineId, db: Db, agents: Vec<Agent>) -> Self {
        let agents = agents.into_iter().map(|a| (a.id.as_str().to_owned(), Arc::new(a))).collect();
        Self {
            inner: Arc::new(Inner {
                id,
                db,
                agents,
                run_locks: Default::default(),
                starting: Mutex::default(),
                keys: Default::default(),
                going: {
                    // Closed from the start (spawning on it goes on): `settled` waits until no run
                    // is left going, and concurrent waiters never race to close and reopen it.
                    let going = tokio_util::task::TaskTracker::new();
                    going.close();
                    going
                },
            }),
        }
    }

    /// Waits, at most `within`, for the runs going on in this process after a delivery or a
    /// restart to pause or end; whether they all did. A run cut short by a stop is `running` in its
    /// snapshot and goes on from there at the next start ([`LocalEngine::recover`]).
    pub async fn settled(&self, within: Duration) -> bool {
        tokio::time::timeout(within, self.inner.going.wait()).await.is_ok()
    }

    /// This engine's id (the `engine` of its queue entries and runs).
    pub fn engine_id(&self) -> &EngineId {
        &self.inner.id
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
        self.inner.run_locks.lock(run_id).await
    }

    async fn load(&self, run_id: &RunId) -> Result<(RunState, bool), Error> {
        let stored = runs::load(&self.inner.db, run_id).await?;
        let mut state: RunState = stored.state()?;
        state.stored = true;
        Ok((state, stored.running))
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
