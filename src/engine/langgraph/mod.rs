//! A LangGraph server as a remote engine (issue 17): its interrupted threads are synced into the
//! queue by polling (`POST /threads/search {status: "interrupted"}`), each action request one call
//! ([`listing`]); a decision is sent back as a resume run (`POST /threads/{id}/runs/wait` with
//! `command.resume` by interrupt id), the thread re-read first (C3).
//!
//! One interrupt may hold several requests (a `humanInTheLoopMiddleware` interrupt with two tool
//! calls, an Agent Inbox list): the graph reads one answer for all of them, so the decisions of all
//! are sent together once the last is taken. Until then a decided request is held: its decision
//! stays claimed (`delivering`) and its entry `decided`; the delivery of the last one records every
//! request's outcome in one transaction. Several interrupts on one thread are answered one by one.

pub mod client;
pub mod listing;

use crate::domain::{CallSource, Decision, DecisionKind, EngineId, Error, PausedCall, QueuedCall, Verdict};
use crate::engine::local::model::ApiKey;
use crate::engine::remote::base::{unchanged, Core, SyncReport};
use crate::engine::{ChunkSink, Engine};
use crate::store::engines::EngineRow;
use crate::store::feed::Events;
use crate::store::{decisions, outbox, queue, Db};
use async_trait::async_trait;
use client::Client;
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, Mutex};

/// Cheap to clone.
#[derive(Clone)]
pub struct LangGraphEngine {
    inner: Arc<Inner>,
}

struct Inner {
    core: Core,
    client: Client,
    /// The graphs (assistants) with interrupted threads at the last sync.
    graphs: Mutex<Vec<String>>,
}

impl LangGraphEngine {
    /// An engine for a configured row. Talks to nobody yet.
    pub fn new(db: Db, events: Events, row: &EngineRow) -> Result<Self, Error> {
        let client = Client::new(&row.base_url).map_err(Error::InvalidRequest)?;
        Ok(Self { inner: Arc::new(Inner { core: Core::new(db, events, row), client, graphs: Mutex::new(vec![]) }) })
    }

    pub fn core(&self) -> &Core {
        &self.inner.core
    }

    pub fn base_url(&self) -> &str {
        self.inner.client.base().as_str()
    }

    /// The graphs that had interrupted threads at the last sync.
    pub fn graphs(&self) -> Vec<String> {
        self.inner.graphs.lock().expect("graphs lock").clone()
    }

    /// Lists every interrupted thread and brings the queue in line. The listing is always complete
    /// (the API has no cheaper incremental form): calls no longer listed leave the queue, except
    /// those of threads busy right now (a run going on them; they may stop at the same interrupt).
    #[tracing::instrument(name = "sync", skip_all, fields(engine = %self.inner.core.id))]
    pub async fn sync(&self, _full: bool) -> Result<SyncReport, Error> {
        let core = &self.inner.core;
        let token = core.token_or_health().await?;
        let listing = core.observe(self.inner.client.threads("interrupted", token.as_ref()).await).await.map_err(|e| core.to_error(e))?;
        let mut calls = Vec::new();
        let mut skipped = 0;
        let mut graphs = BTreeSet::new();
        for thread in &listing.threads {
            let (found, rejected) = listing::calls(&core.id, thread);
            for why in &rejected {
                tracing::warn!(engine = %core.id, "not queued: {why}");
            }
            skipped += rejected.len();
            graphs.extend(found.iter().map(|c| c.agent_id.to_string()));
            calls.extend(found);
        }
        // Busy threads matter only for pending calls whose thread is not listed now (most polls have
        // none): only then is the server asked which threads are busy.
        let unlisted = listing.complete && {
            let listed: HashSet<&str> = calls.iter().map(|c| c.run_id.as_str()).collect();
            let mut conn = core.db.pool().acquire().await?;
            queue::pending_of_engine(&mut conn, &core.id).await?.iter().any(|e| !listed.contains(e.queued.call.run_id.as_str()))
        };
        let busy: HashSet<String> = if unlisted {
            let busy = core.observe(self.inner.client.threads("busy", token.as_ref()).await).await.map_err(|e| core.to_error(e))?;
            busy.threads.iter().filter_map(|t| t["thread_id"].as_str().map(str::to_owned)).collect()
        } else {
            HashSet::new()
        };
        let mut report = core.apply_keeping(&calls, listing.complete, &busy).await?;
        report.agents = graphs.len();
        report.skipped = skipped;
        *self.inner.graphs.lock().expect("graphs lock") = graphs.into_iter().collect();
        Ok(report)
    }

    /// Syncs until `stop` flips (see [`Core::run`]).
    pub fn spawn_sync(&self, stop: tokio::sync::watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move { this.inner.core.run(|full| this.sync(full), stop).await })
    }

    /// The calls of `thread` as the server lists them now; empty if it has no such thread.
    async fn listed(&self, thread: &str, token: Option<&ApiKey>) -> Result<Vec<PausedCall>, Error> {
        let core = &self.inner.core;
        let found = core.observe(self.inner.client.thread(thread, token).await).await.map_err(|e| core.to_error(e))?;
        Ok(found.map(|t| listing::calls(&core.id, &t).0).unwrap_or_default())
    }

    /// `call` as `listed` shows it now: the stored call itself if unchanged (C3), `None` if it no
    /// longer waits.
    fn current(call: &PausedCall, listed: &[PausedCall]) -> Option<PausedCall> {
        let now = listed.iter().find(|c| c.tool_call_id == call.tool_call_id)?;
        Some(if unchanged(call, now) { call.clone() } else { now.clone() })
    }

    /// The other requests of `call`'s interrupt with their decisions, in order; `None` while one
    /// of them is not decided yet (or its decision waits in the outbox: its own delivery, when it
    /// comes, sends them all).
    async fn siblings(&self, call: &PausedCall, listed: &[PausedCall]) -> Result<Option<Vec<(PausedCall, Decision, QueuedCall)>>, Error> {
        let interrupt = listing::interrupt_of(call);
        let others: Vec<&PausedCall> = listed
            .iter()
            .filter(|c| c.run_id == call.run_id && listing::interrupt_of(c) == interrupt && c.tool_call_id != call.tool_call_id)
            .collect();
        let core = &self.inner.core;
        let mut conn = core.db.pool().acquire().await?;
        let mut held = decisions::delivering_of_run(&mut conn, core.id.as_str(), call.run_id.as_str()).await?;
        let mut out = Vec::new();
        for other in others {
            let Some(k) = held.iter().position(|(_, tool_call_id)| tool_call_id == other.tool_call_id.as_str()) else { return Ok(None) };
            let (d, _) = held.swap_remove(k);
            let Some(entry) = queue::get(&mut conn, &d.item_id).await? else { return Ok(None) };
            out.push((other.clone(), d, entry.queued));
        }
        Ok(Some(out))
    }
}

impl std::fmt::Debug for LangGraphEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LangGraphEngine").field("id", &self.inner.core.id).field("base", &self.base_url()).finish_non_exhaustive()
    }
}

/// Position of a request in its interrupt (0 for an interrupt of one).
fn position(call: &PausedCall) -> u64 {
    call.suspend_payload.as_ref().and_then(|p| p["position"].as_u64()).unwrap_or(0)
}

#[async_trait]
impl Engine for LangGraphEngine {
    fn id(&self) -> EngineId {
        self.inner.core.id.clone()
    }

    fn source(&self) -> CallSource {
        CallSource::Langgraph
    }

    fn delivers_here(&self) -> bool {
        self.inner.core.lease_held()
    }

    fn allowed(&self, call: &PausedCall) -> Vec<DecisionKind> {
        listing::allowed(call)
    }

    /// Edited arguments must be an object (the action's arguments); the server says nothing of the
    /// tool's schema, so the graph itself checks them.
    fn check_edit(&self, call: &PausedCall, args: &Value) -> Result<(), Error> {
        if !listing::allowed(call).contains(&DecisionKind::Edit) {
            return Err(Error::DecisionNotAllowed { kind: DecisionKind::Edit, allowed: listing::allowed(call) });
        }
        if !args.is_object() {
            return Err(Error::InvalidRequest("edited arguments must be a JSON object".into()));
        }
        Ok(())
    }

    async fn reread(&self, call: &PausedCall) -> Result<Option<PausedCall>, Error> {
        let token = self.inner.core.token_or_health().await?;
        Ok(Self::current(call, &self.listed(call.run_id.as_str(), token.as_ref()).await?))
    }

    /// The resume is keyed by interrupt id, and the thread is re-read before every send: an
    /// interrupt already answered is no longer listed, so a delivery cut short may be sent again.
    fn refuses_repeats(&self) -> bool {
        true
    }

    async fn deliver(&self, decision: &Decision, item: &QueuedCall, _sink: Option<ChunkSink>) -> Result<Value, Error> {
        let core = &self.inner.core;
        let call = &item.call;
        let token = core.token_or_health().await?;
        // C3, again just before sending: the decision may have waited in the outbox.
        let listed = self.listed(call.run_id.as_str(), token.as_ref()).await?;
        match Self::current(call, &listed) {
            None => return Err(Error::not_found(format!("call {} (no longer waiting at engine {})", call.tool_call_id, call.engine))),
            Some(now) if now.fingerprint != decision.fingerprint => {
                return Err(Error::FingerprintMismatch { shown: decision.fingerprint.clone(), current: now.fingerprint })
            }
            Some(_) => {}
        }
        let p = call.suspend_payload.clone().unwrap_or(Value::Null);
        let count = p["count"].as_u64().unwrap_or(1);
        let mut parts = vec![(call.clone(), decision.clone(), item.clone())];
        if count > 1 {
            match self.siblings(call, &listed).await? {
                Some(others) => parts.extend(others),
                None => {
                    // Held: claimed, waiting for the other requests' decisions (module docs).
                    tracing::info!(engine = %core.id, item = %item.id, "decision held until the other requests of its interrupt are decided");
                    return Ok(
                        json!({ "status": "held", "why": format!("the graph takes the answers to all {count} requests of this interrupt at once; sent when the others are decided") }),
                    );
                }
            }
            parts.sort_by_key(|(c, _, _)| position(c));
        }
        let mut answers = Vec::with_capacity(parts.len());
        for (c, d, _) in &parts {
            answers.push(listing::answer(c, &d.verdict)?);
        }
        let value = match p["convention"].as_str() {
            Some(listing::HITL) => listing::hitl_resume(answers),
            Some(listing::AGENT_INBOX) => listing::inbox_resume(answers, p["list"].as_bool().unwrap_or(true)),
            _ => answers.into_iter().next().unwrap_or(Value::Null),
        };
        let interrupt = listing::interrupt_of(call).to_owned();
        let body = listing::resume_command(call.agent_id.as_str(), &[(interrupt.clone(), value.clone())]);
        let state = core
            .observe(self.inner.client.resume(call.run_id.as_str(), &body, token.as_ref()).await)
            .await
            .map_err(|e| core.to_error(e))?;
        let next: Vec<Value> = state.get("__interrupt__").and_then(Value::as_array).cloned().unwrap_or_default();
        // humanInTheLoopMiddleware runs none of a step's calls when one of them is rejected: it asks
        // the model again. The approvals sent with a rejection say so.
        let rejected = p["convention"] == listing::HITL
            && parts.len() > 1
            && parts.iter().any(|(_, d, _)| matches!(d.verdict, Verdict::Decline { .. } | Verdict::Expire { .. }));
        let mut tx = core.db.begin_write().await?;
        for (c, d, q) in &parts {
            let own = c.suspend_payload.as_ref().unwrap_or(&Value::Null);
            let mut outcome = json!({
                "status": "delivered", "route": "runs/wait", "interrupt": interrupt, "resume": value,
                "requests": parts.len(), "nextInterrupts": next.len(),
            });
            if let Some(e) = state.get("__error__").filter(|e| !e.is_null()) {
                outcome["error"] = e.clone();
            }
            if rejected && !matches!(d.verdict, Verdict::Decline { .. } | Verdict::Expire { .. }) {
                outcome["note"] =
                    json!("another call of this step was rejected: the middleware runs none of them and asks the model again");
            }
            if own["convention"] == listing::AGENT_INBOX && own["config"]["allow_respond"] != true {
                if let Verdict::Decline { reason: Some(_) } = &d.verdict {
                    outcome["note"] = json!(
                        "this interrupt takes no response: it was answered `ignore`, and the reason stays in the console's audit log only"
                    );
                }
            }
            outbox::record(&mut tx, d, q, &outcome, None).await?;
        }
        tx.commit().await?;
        core.events.changed();
        // The thread may stop at its next interrupt: queue it without waiting for the next poll.
        core.request_sync();
        Ok(
            json!({ "status": "delivered", "route": "runs/wait", "interrupt": interrupt, "requests": parts.len(), "nextInterrupts": next.len() }),
        )
    }
}
