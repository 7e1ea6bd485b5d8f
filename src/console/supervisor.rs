//! The supervisor of remote engines: what the console does for every remote kind alike, so that a
//! kind is an adapter ([`Adapter`]: list, re-read, prepare, send, probe) and nothing more. Here:
//! the poll loop (a complete listing every [`FULL_EVERY`] polls or when asked, backoff while the
//! server fails), the engine-holder lease of team mode (one console at a time syncs and delivers an
//! engine), the take-over of deliveries a lost holder left half-sent, bringing the queue in line with
//! what the adapter lists, and the adapter held as the console holds every [`Engine`].

use crate::domain::{Decision, DecisionKind, EngineId, Error, PausedCall, QueuedCall};
use crate::engine::kinds;
use crate::engine::local::model::ApiKey;
use crate::engine::remote::base::{unchanged, Link, SyncReport};
use crate::engine::remote::{Adapter, Listed};
use crate::engine::send::{Checked, Prepared};
use crate::engine::{ChunkSink, Engine};
use crate::store::engines::{EngineRow, HealthReport};
use crate::store::feed::Events;
use crate::store::lease::{Lease, LeaseSlot};
use crate::store::{outbox, queue, Db, Topology};
use async_trait::async_trait;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{watch, Notify};

/// Every this many polls the listing is complete (calls that ended elsewhere leave the queue); the
/// polls between may ask only for what is recent, where the engine's API can say so.
pub const FULL_EVERY: u32 = 10;
/// Longest wait between polls while the engine is unreachable.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// Team mode: how often a console that does not hold an engine's lease tries to take it (at most:
/// a shorter poll interval tries as often as it polls). Another console's death is taken over
/// within about this long.
pub const LEASE_RETRY: Duration = Duration::from_secs(1);

/// One remote engine as the console runs it: its adapter, and what the supervisor keeps of it.
struct Supervised {
    link: Arc<Link>,
    adapter: Arc<dyn Adapter>,
    poll: Duration,
    wake: Notify,
    full_requested: AtomicBool,
    /// Whether this console syncs and delivers the engine: always on SQLite (one console); in team
    /// mode while it holds the engine's lease (see [`crate::store::lease`]).
    lease_held: AtomicBool,
}

/// A remote engine of any kind, supervised. Cheap to clone.
#[derive(Clone)]
pub struct RemoteEngine(Arc<Supervised>);

impl RemoteEngine {
    /// The engine for a configured row, its adapter of the row's kind. Talks to nobody yet.
    pub fn new(db: Db, events: Events, row: &EngineRow) -> Result<Self, Error> {
        let kind = kinds::remote(row.kind)?;
        let single_console = db.topology() == Topology::Solo;
        let link = Arc::new(Link::new(db, events, row));
        let adapter = (kind.connect)(link.clone(), row)?;
        Ok(Self(Arc::new(Supervised {
            link,
            adapter,
            poll: Duration::from_millis(u64::from(row.poll_ms)),
            wake: Notify::new(),
            full_requested: AtomicBool::new(true),
            lease_held: AtomicBool::new(single_console),
        })))
    }

    /// The engine as the console holds every engine.
    pub fn as_engine(&self) -> Arc<dyn Engine> {
        self.0.clone()
    }

    /// Whether this console syncs and delivers this engine now (team mode: it holds the lease).
    pub fn lease_held(&self) -> bool {
        self.0.lease_held.load(Ordering::SeqCst)
    }

    pub fn health(&self) -> HealthReport {
        self.0.link.health()
    }

    /// See [`Link::set_session_token_now`].
    pub fn set_session_token_now(&self, token: ApiKey, given_for: &str) {
        self.0.link.set_session_token_now(token, given_for)
    }

    pub fn base_url(&self) -> &str {
        self.0.adapter.base_url()
    }

    /// What the engine and the console share (its id, kind, queue and token): for a kind whose
    /// runs the console relays itself (AG-UI, `App::agui_open`).
    pub fn link(&self) -> Arc<Link> {
        self.0.link.clone()
    }

    /// Asks its poll loop for a complete sync now (an AG-UI run just stored its interrupts).
    pub fn sync_soon(&self) {
        self.0.request_sync();
    }

    /// The agents as the API shows them, as last listed.
    pub fn agents_view(&self) -> Value {
        self.0.adapter.agents_view()
    }

    /// A sync now (`full`: a complete listing): what the adapter lists, and the queue brought in line.
    pub async fn sync(&self, full: bool) -> Result<SyncReport, Error> {
        self.0.sync(full).await
    }

    /// The poll loop, until `stop`; syncs and delivers only while `lease` is held (see [`Supervised::run`]).
    pub fn spawn(&self, stop: watch::Receiver<bool>, lease: LeaseSlot) -> tokio::task::JoinHandle<()> {
        let this = self.0.clone();
        tokio::spawn(async move { this.run(stop, lease).await })
    }
}

impl Supervised {
    /// Asks the poll loop for a complete sync now.
    fn request_sync(&self) {
        self.full_requested.store(true, Ordering::SeqCst);
        self.wake.notify_one();
    }

    async fn sync(&self, full: bool) -> Result<SyncReport, Error> {
        let listed = self.adapter.list(full).await?;
        apply(&self.link, &listed).await
    }

    /// Keeps or takes the engine's lease; whether this console holds it now. A lease taken anew
    /// starts with a complete sync (the last holder may have died half-way).
    /// A lease the slot already held (this console's last connection of the engine) is kept.
    async fn hold_lease(&self, lease: &mut Option<Lease>) -> bool {
        let id = &self.link.id;
        if let Some(held) = lease.as_mut() {
            if !held.alive().await {
                tracing::warn!(engine = %id, "lost the engine's lease (its database connection ended)");
                *lease = None;
            }
        }
        let taken = lease.is_none();
        if taken {
            *lease = match Lease::try_take(&self.link.db, &format!("engine:{id}")).await {
                Ok(taken) => taken,
                Err(e) => {
                    tracing::warn!(engine = %id, "could not take the engine's lease: {e}");
                    None
                }
            };
        }
        let held = lease.is_some();
        if held && taken && self.link.db.topology() == Topology::Team && !self.lease_held.load(Ordering::SeqCst) {
            // Before this console says it delivers the engine: until then none of the engine's
            // deliveries is its own (they are handed over), so every one left `delivering` is the
            // last holder's — afterwards, one this console just claimed would be taken for cut too.
            tracing::info!(engine = %id, "this console now syncs and delivers the engine (lease taken)");
            if let Err(e) = self.resend_cut_deliveries().await {
                tracing::warn!(engine = %id, "could not take over the deliveries the last holder left: {e}");
            }
        }
        let before = self.lease_held.swap(held, Ordering::SeqCst);
        if held && !before {
            self.full_requested.store(true, Ordering::SeqCst);
            if !taken {
                tracing::debug!(engine = %id, "connected anew with the lease it held");
            }
        }
        held
    }

    /// Team mode, on taking the lease: deliveries the last holder claimed and never finished (it
    /// died) go back to the outbox to be sent again — every remote kind refuses a second resume
    /// ([`Engine::refuses_repeats`]) and the call is re-read before every send, as after a restart (C5).
    async fn resend_cut_deliveries(&self) -> Result<(), Error> {
        let cut = outbox::cut_of_engine(&self.link.db, self.link.id.as_str()).await?;
        for (d, tool) in cut {
            let why = "the console delivering this decision stopped; the console that took the engine over sends it again";
            if outbox::resend_cut(&self.link.db, &d, &tool, why).await? {
                tracing::warn!(engine = %self.link.id, item = %d.item_id, "{why}");
            }
        }
        Ok(())
    }

    /// Polls until `stop` flips: every `poll_ms`, a complete listing every [`FULL_EVERY`] polls or
    /// when asked; doubling the wait (up to [`MAX_BACKOFF`]) while the engine fails. Team mode: only
    /// while this console holds the engine's lease, kept in `lease` (which outlives this loop when
    /// the engine is connected anew: the owner of the slot lets it go).
    async fn run(&self, mut stop: watch::Receiver<bool>, lease: LeaseSlot) {
        let id = &self.link.id;
        let mut polls: u32 = 0;
        let mut failures: u32 = 0;
        loop {
            let mut held = lease.lock().await;
            if !self.hold_lease(&mut held).await {
                drop(held);
                tokio::select! {
                    _ = tokio::time::sleep(self.poll.min(LEASE_RETRY)) => {}
                    _ = stop.changed() => return,
                }
                if *stop.borrow() {
                    return;
                }
                continue;
            }
            let full = self.full_requested.swap(false, Ordering::SeqCst) || polls.is_multiple_of(FULL_EVERY);
            let synced = self.sync(full).await;
            drop(held);
            match synced {
                Ok(report) => {
                    failures = 0;
                    if report.added + report.changed + report.gone > 0 {
                        tracing::info!(engine = %id, added = report.added, changed = report.changed, gone = report.gone, "synced");
                    }
                    polls = polls.wrapping_add(1);
                }
                Err(e) => {
                    failures = failures.saturating_add(1);
                    // The next poll after a failure is a complete one.
                    polls = 0;
                    tracing::debug!(engine = %id, "sync failed: {e}");
                }
            }
            let wait =
                if failures == 0 { self.poll } else { self.poll.saturating_mul(1 << failures.min(8)).min(MAX_BACKOFF.max(self.poll)) };
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = self.wake.notified() => {}
                _ = stop.changed() => break,
            }
            if *stop.borrow() {
                break;
            }
        }
        // Disconnected or stopping: the lease stays in its slot, for this engine connected anew or
        // let go by the slot's owner.
        self.lease_held.store(self.link.db.topology() == Topology::Solo, Ordering::SeqCst);
    }
}

/// Brings the queue in line with what an adapter listed: new calls added, changed ones replaced (the
/// old entry `gone`, audited with both fingerprints), and (when the listing is complete) calls no
/// longer waiting marked `gone` — but those of runs the server is busy with.
async fn apply(link: &Link, listed: &Listed) -> Result<SyncReport, Error> {
    let (id, calls) = (&link.id, &listed.calls);
    let mut report =
        SyncReport { full: listed.complete, listed: calls.len(), agents: listed.agents, skipped: listed.skipped, ..Default::default() };
    // Plan on a read connection; most polls change nothing and need no write transaction.
    let queue::SyncPlan { pending, new_calls } = queue::plan_sync(&link.db, id, calls).await?;
    fn key(c: &PausedCall) -> (&str, &str) {
        (c.run_id.as_str(), c.tool_call_id.as_str())
    }
    let by_key: HashMap<(&str, &str), &PausedCall> = calls.iter().map(|c| (key(c), c)).collect();
    let changed: Vec<(&queue::Entry, &PausedCall)> = pending
        .iter()
        .filter_map(|e| by_key.get(&key(&e.queued.call)).map(|c| (e, *c)))
        .filter(|(e, c)| !unchanged(&e.queued.call, c))
        .collect();
    let gone: Vec<&queue::Entry> = if listed.complete {
        pending
            .iter()
            .filter(|e| !by_key.contains_key(&key(&e.queued.call)))
            .filter(|e| !listed.busy.contains(e.queued.call.run_id.as_str()))
            .collect()
    } else {
        vec![]
    };
    // What changed, written in one transaction (none opened when nothing did).
    let synced = queue::apply_sync(&link.db, id, &queue::SyncChanges { gone, changed, new_calls }).await?;
    report.gone = synced.gone;
    report.changed = synced.changed;
    report.added = synced.added;
    Ok(report)
}

/// Every remote kind as an engine, written once: the adapter does the engine's work; the supervisor
/// says whether this console delivers it (the lease) and follows every send with a sync.
#[async_trait]
impl Engine for Supervised {
    fn id(&self) -> EngineId {
        self.link.id.clone()
    }

    fn allowed(&self, call: &PausedCall) -> Vec<DecisionKind> {
        self.adapter.allowed(call)
    }

    async fn reread(&self, call: &PausedCall) -> Result<Option<PausedCall>, Error> {
        self.adapter.reread(call).await
    }

    async fn prepare(&self, decision: &Decision, item: &QueuedCall) -> Result<Prepared, Error> {
        self.adapter.prepare(decision, item).await
    }

    /// The adapter sends and records the outcome; the run goes on at the server, and what it stops
    /// at next is queued by a sync asked for now rather than at the next poll.
    async fn send(&self, checked: Checked, sink: Option<ChunkSink>) -> Result<Value, Error> {
        let outcome = self.adapter.send(checked, sink).await?;
        self.request_sync();
        Ok(outcome)
    }

    async fn reason(&self, call: &PausedCall) -> Result<Option<Vec<crate::domain::reason::ReasonMessage>>, Error> {
        self.adapter.reason(call).await
    }

    fn check_edit(&self, call: &PausedCall, args: &Value) -> Result<(), Error> {
        self.adapter.check_edit(call, args)
    }

    fn delivers_here(&self) -> bool {
        self.lease_held.load(Ordering::SeqCst)
    }

    /// Every remote kind refuses to act twice on one call (Mastra answers "not suspended"; a
    /// LangGraph interrupt once answered is no longer listed), so a delivery cut short may be sent
    /// again. A kind that could not promise it is not a remote kind.
    fn refuses_repeats(&self) -> bool {
        true
    }
}
