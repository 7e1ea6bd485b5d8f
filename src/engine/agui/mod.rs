//! AG-UI agent endpoints as a remote engine (issue 48). AG-UI has no route that lists what is
//! paused: a client POSTs a `RunAgentInput` and reads the run's events. So the console is the client
//! of the runs it watches: a frontend (CopilotKit's `HttpAgent`, any AG-UI client) points at the
//! console's endpoint for the engine, `POST /api/agui/{engine}` (an agent credential), which relays
//! the run to the agent and its events back ([`relay`]). A run that ends with `RUN_FINISHED`
//! `outcome: "interrupt"` is stored before that event is passed on (`store::agui`, one row per
//! thread: a thread waits on its last run's interrupts); the engine lists the stored interrupts as
//! calls ([`calls`]), one per interrupt, and polls nothing else.
//!
//! The agent takes one resume for all the open interrupts of a run (`resume[]` answering every one),
//! so the decisions are held until the last is taken, as LangGraph's requests of one interrupt are:
//! a decided call stays claimed (`delivering`) and its entry `decided`, and the delivery of the last
//! one re-reads every one of them (C3, [`crate::engine::send`]) and sends them together in one
//! resume run. A frontend cannot resume a run the console holds: a relayed input carrying `resume`
//! is refused. The resume is taken (`resuming`) in a committed write before it is sent, so it is
//! sent at most once; a stop while it is sent leaves it unsent-or-sent, never sent again.
//!
//! Expiry: an interrupt whose `expiresAt` passed can no longer be answered (the agent answers a
//! stale resume with `RUN_ERROR`). Once one interrupt of a run expired before the resume was sent,
//! the run is no longer listed: its pending calls leave the queue (`gone`), a decision held for one
//! of them fails (`expired`), and nothing is sent.

pub mod calls;
pub mod relay;

use crate::domain::{CallSource, Decision, DecisionKind, Error, PausedCall, QueuedCall};
use crate::engine::remote::base::{unchanged, Link};
use crate::engine::remote::http::parse_base_url;
use crate::engine::remote::{Adapter, EngineTestResult, Listed, RemoteKind};
use crate::engine::send::{Checked, Part, Prepared};
use crate::engine::ChunkSink;
use crate::store::agui as store;
use crate::store::engines::{EngineRow, Health};
use crate::store::{now, outbox};
use async_trait::async_trait;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// The AG-UI kind, as the registry lists it.
pub static KIND: RemoteKind = RemoteKind {
    source: CallSource::AgUi,
    label: "AG-UI agent",
    lists: "threads waiting on interrupts",
    connect: |link, row| Ok(Arc::new(AgUiEngine::new(link, row)?)),
    probe: |url, _token| Box::pin(probe(url)),
};

/// An AG-UI agent endpoint's adapter.
pub struct AgUiEngine {
    link: Arc<Link>,
    url: String,
    /// Threads waiting at the last listing.
    threads: Mutex<usize>,
}

impl AgUiEngine {
    /// The adapter for a configured row (its base URL is the agent's endpoint). Talks to nobody.
    pub fn new(link: Arc<Link>, row: &EngineRow) -> Result<Self, Error> {
        let url = parse_base_url(&row.base_url).map_err(Error::InvalidRequest)?.to_string();
        Ok(Self { link, url, threads: Mutex::new(0) })
    }

    /// Relays a run of a frontend to the agent: refused if it is not this kind's link, or if the
    /// input answers interrupts (only the console resumes the runs it holds).
    pub async fn open(link: Arc<Link>, url: &str, input: Value, requested_by: Option<String>) -> Result<relay::Opened, Error> {
        if link.kind != KIND.source {
            return Err(Error::InvalidRequest(format!("engine {} is not an AG-UI engine", link.id)));
        }
        if input.get("resume").is_some_and(|r| !r.is_null() && r.as_array().is_none_or(|a| !a.is_empty())) {
            return Err(Error::InvalidRequest(
                "this run answers interrupts (resume): the console holds this engine's interrupts and resumes them once they are decided in the console".into(),
            ));
        }
        relay::open(link, url, input, requested_by).await
    }

    /// The stored run of `call`'s thread if it still waits on the run `call` came from, unexpired.
    async fn waiting_run(&self, call: &PausedCall) -> Result<Option<store::StoredRun>, Error> {
        let Some(run) = store::get(&self.link.db, self.link.id.as_str(), call.run_id.as_str()).await? else { return Ok(None) };
        let current = run.state == "waiting" && !calls::run_expired(&run, now());
        Ok(current.then_some(run))
    }

    /// `call` as its thread's stored run shows it now: the stored call itself if unchanged (C3),
    /// `None` if it no longer waits.
    fn current(call: &PausedCall, listed: &[PausedCall]) -> Option<PausedCall> {
        let now = listed.iter().find(|c| c.tool_call_id == call.tool_call_id)?;
        Some(if unchanged(call, now) { call.clone() } else { now.clone() })
    }

    /// A run one of whose interrupts expired: the decisions held for it fail (`expired`), and it
    /// waits on nothing any more.
    async fn expire(&self, run: &store::StoredRun) -> Result<(), Error> {
        let link = &self.link;
        for (d, q) in outbox::held_of_run(&link.db, link.id.as_str(), &run.thread_id, |_, _| true).await? {
            let why = "an interrupt of this run expired before every one was decided: the agent takes no resume of it";
            let outcome = json!({ "status": "failed", "code": "expired", "error": why });
            outbox::record_outcome(&link.db, &d, &q, &outcome, Some(why)).await?;
        }
        store::end_thread(&link.db, link.id.as_str(), &run.thread_id).await
    }
}

/// An AG-UI endpoint has no route to ask without starting a run: the URL is checked, nothing sent.
pub async fn probe(base_url: &str) -> Result<EngineTestResult, Error> {
    parse_base_url(base_url).map_err(Error::InvalidRequest)?;
    Ok(EngineTestResult {
        result: Health::Unknown,
        message: "an AG-UI endpoint is reached when a run is relayed to it (POST /api/agui/{engine}); nothing was sent".into(),
        agents: None,
        interrupted: None,
    })
}

#[async_trait]
impl Adapter for AgUiEngine {
    fn base_url(&self) -> &str {
        &self.url
    }

    fn allowed(&self, call: &PausedCall) -> Vec<DecisionKind> {
        calls::allowed(call)
    }

    /// The stored runs that wait (complete: a run no longer stored as waiting no longer waits).
    async fn list(&self, _full: bool) -> Result<Listed, Error> {
        let link = &self.link;
        let mut listed = Listed { complete: true, ..Default::default() };
        for run in store::waiting(&link.db, link.id.as_str()).await? {
            if calls::run_expired(&run, now()) {
                self.expire(&run).await?;
                continue;
            }
            let (found, rejected) = calls::calls(&link.id, &run);
            for why in &rejected {
                tracing::warn!(engine = %link.id, "not queued: {why}");
            }
            listed.skipped += rejected.len();
            listed.agents += 1;
            listed.calls.extend(found);
        }
        *self.threads.lock().expect("threads lock") = listed.agents;
        Ok(listed)
    }

    async fn reread(&self, call: &PausedCall) -> Result<Option<PausedCall>, Error> {
        let Some(run) = self.waiting_run(call).await? else { return Ok(None) };
        Ok(Self::current(call, &calls::calls(&self.link.id, &run).0))
    }

    /// The decision's own interrupt and every decision held for the other interrupts of its run,
    /// each re-read from the stored run (C3). Waits while an interrupt of the run has no decision.
    async fn prepare(&self, decision: &Decision, item: &QueuedCall) -> Result<Prepared, Error> {
        let call = &item.call;
        let link = &self.link;
        let Some(run) = self.waiting_run(call).await? else { return Ok(Prepared::single(decision, item, None)) };
        let listed = calls::calls(&link.id, &run).0;
        let mut prepared = Prepared::single(decision, item, Self::current(call, &listed));
        for (d, q) in outbox::held_of_run(&link.db, link.id.as_str(), call.run_id.as_str(), |d, _| d.id != decision.id).await? {
            let current = Self::current(&q.call, &listed);
            prepared.parts.push(Part { decision: d, item: q, current });
        }
        let undecided = listed.iter().filter(|c| !prepared.parts.iter().any(|p| p.item.call.tool_call_id == c.tool_call_id)).count();
        if undecided > 0 {
            prepared.wait = Some(format!(
                "the agent takes the answers to all {} interrupts of this run at once; sent when the other {undecided} are decided",
                listed.len()
            ));
        }
        Ok(prepared)
    }

    /// One resume run answering every interrupt of the run, taken before it is sent (at most once),
    /// its events read to the end (a run that stops again is stored and listed); every outcome
    /// recorded in one transaction.
    async fn send(&self, checked: Checked, _sink: Option<ChunkSink>) -> Result<Value, Error> {
        let link = &self.link;
        let call = &checked.own().call;
        let Some(run) = self.waiting_run(call).await? else {
            return Err(Error::AlreadyDecided { state: crate::domain::ItemState::Gone });
        };
        let mut parts: Vec<_> = checked.parts().iter().collect();
        parts.sort_by_key(|s| calls::position(&s.call));
        let mut resume = Vec::with_capacity(parts.len());
        for s in &parts {
            resume.push(calls::resume_entry(&s.call, &s.decision.verdict)?);
        }
        if resume.len() != run.interrupts.len() {
            return Err(Error::Engine(format!("{} of the run's {} interrupts are answered: not sent", resume.len(), run.interrupts.len())));
        }
        let resume_run = format!("resume_{}", uuid::Uuid::now_v7().simple());
        if !store::take_for_resume(&link.db, link.id.as_str(), &run.thread_id, &run.run_id, &resume_run).await? {
            return Err(Error::AlreadyDecided { state: crate::domain::ItemState::Gone });
        }
        let mut input = run.input.clone();
        input["runId"] = json!(resume_run);
        input["resume"] = Value::Array(resume.clone());
        let opened = match relay::open(link.clone(), &self.url, input, None).await {
            Ok(o) => o,
            Err(e) => {
                // Not taken by the agent (no connection, or refused before any event): the outcome
                // says so; the resume is not sent again by itself.
                let outcome = json!({ "status": "failed", "code": e.code(), "error": e.to_string(), "run": resume_run, "resume": resume });
                let failed: Vec<_> = parts.iter().map(|s| (&s.decision, &s.item, outcome.clone())).collect();
                outbox::record_together(&link.db, &failed).await?;
                return Err(e);
            }
        };
        store::resumed(&link.db, link.id.as_str(), &run.thread_id, &resume_run).await?;
        let end = opened.relay(|_| {}).await;
        let finished = match &end {
            Ok(end) => end.last.clone().unwrap_or(Value::Null),
            Err(e) => json!({ "error": e.to_string() }),
        };
        let outcome = json!({
            "status": "delivered", "route": "ag-ui", "run": resume_run, "resume": resume,
            "interrupts": parts.len(), "finished": finished,
        });
        let delivered: Vec<_> = parts.iter().map(|s| (&s.decision, &s.item, outcome.clone())).collect();
        outbox::record_together(&link.db, &delivered).await?;
        Ok(outcome)
    }

    /// The threads waiting on interrupts at the last listing, as one agent (the endpoint).
    fn agents_view(&self) -> Value {
        let threads = *self.threads.lock().expect("threads lock");
        json!([{ "id": self.link.id.as_str(), "name": null, "subAgents": [], "tools": [], "waitingThreads": threads }])
    }
}
