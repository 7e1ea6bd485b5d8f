//! The part of a remote engine that does not depend on its API: its token (read from the keyring
//! once), its health (written when it changes), bringing the queue in line with what it lists, the
//! lease that makes one console at a time sync and deliver it (team mode), and the poll loop with its
//! backoff. Each kind (Mastra, LangGraph) lists calls and delivers decisions its own way on top.

use super::http::RemoteError;
use crate::domain::{CallKind, EngineId, Error, ItemState, PausedCall};
use crate::engine::local::model::ApiKey;
use crate::secrets;
use crate::store::engines::{self as store, EngineRow, Health, HealthReport};
use crate::store::feed::Events;
use crate::store::{outbox, queue, Db, Topology};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::Notify;

/// Every this many polls the listing is complete (calls that ended elsewhere leave the queue); the
/// polls between may ask only for what is recent, where the engine's API can say so.
pub const FULL_EVERY: u32 = 10;
/// Longest wait between polls while the engine is unreachable.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Team mode: how often a console that does not hold an engine's lease tries to take it (at most:
/// a shorter poll interval tries as often as it polls). Another console's death is taken over
/// within about this long.
pub const LEASE_RETRY: Duration = Duration::from_secs(1);

/// What one sync did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SyncReport {
    /// Whether the listing was complete (else only recent runs were asked for).
    pub full: bool,
    /// Agents (Mastra) or graphs with waiting threads (LangGraph) seen.
    pub agents: usize,
    /// Calls the engine lists as waiting (after merging nested approvals).
    pub listed: usize,
    pub added: usize,
    /// Calls whose arguments changed since they were queued (old entry `gone`, new one pending).
    pub changed: usize,
    /// Pending entries whose run no longer waits at the engine.
    pub gone: usize,
    /// Listed entries that could not be queued (malformed, or arguments too deeply nested).
    pub skipped: usize,
}

/// The shared state of one remote engine.
pub struct Core {
    pub id: EngineId,
    pub kind: crate::domain::CallSource,
    pub db: Db,
    pub events: Events,
    token_ref: Option<String>,
    /// The engine's URL as tokens are bound to it ([`store::url_key`]): the URL of every request
    /// this engine sends (its client is built from the same row).
    url: String,
    /// The token read from the keyring (or given for this session only), kept after the first read;
    /// only ever one given for [`Core::url`].
    token: tokio::sync::Mutex<Option<ApiKey>>,
    /// A session token was given, but for another URL: it is not used.
    session_elsewhere: AtomicBool,
    health: Mutex<HealthReport>,
    pub poll: Duration,
    wake: Notify,
    full_requested: AtomicBool,
    /// Whether this console syncs and delivers the engine: always on SQLite (one console); in team
    /// mode while it holds the engine's lease (see [`crate::store::lease`]).
    lease_held: AtomicBool,
}

impl Core {
    pub fn new(db: Db, events: Events, row: &EngineRow) -> Self {
        let single_console = db.topology() == Topology::Solo;
        Self {
            id: EngineId::new(&row.name),
            kind: row.kind,
            db,
            events,
            token_ref: row.token_ref.clone(),
            url: store::url_key(&row.base_url),
            token: tokio::sync::Mutex::new(None),
            session_elsewhere: AtomicBool::new(false),
            health: Mutex::new(row.health.clone()),
            poll: Duration::from_millis(u64::from(row.poll_ms)),
            wake: Notify::new(),
            full_requested: AtomicBool::new(true),
            lease_held: AtomicBool::new(single_console),
        }
    }

    /// Whether this console syncs and delivers this engine now (team mode: it holds the lease).
    pub fn lease_held(&self) -> bool {
        self.lease_held.load(Ordering::SeqCst)
    }

    /// Uses `token` for this process only (when the keyring cannot hold it), if it was given for
    /// this engine's URL (`given_for`); one given for another URL is never sent (`token_required`).
    /// Call on a new engine.
    pub fn set_session_token_now(&self, token: ApiKey, given_for: &str) {
        if store::url_key(given_for) != self.url {
            tracing::warn!(engine = %self.id, "the token of this session was given for another URL: not sent to {}", self.url);
            self.session_elsewhere.store(true, Ordering::SeqCst);
            return;
        }
        match self.token.try_lock() {
            Ok(mut slot) => *slot = Some(token),
            Err(_) => tracing::warn!(engine = %self.id, "the session token could not be set: the engine is busy"),
        }
    }

    pub fn health(&self) -> HealthReport {
        self.health.lock().expect("health lock").clone()
    }

    /// Asks the sync loop for a complete sync now.
    pub fn request_sync(&self) {
        self.full_requested.store(true, Ordering::SeqCst);
        self.wake.notify_one();
    }

    async fn token(&self) -> Result<Option<ApiKey>, RemoteError> {
        let Some(name) = &self.token_ref else { return Ok(None) };
        let mut cached = self.token.lock().await;
        if let Some(t) = &*cached {
            return Ok(Some(t.clone()));
        }
        let required = || {
            RemoteError::TokenRequired(format!(
                "this console holds no token given for {}: the engine's URL changed (here or on another console), so an admin gives its token again for the new URL",
                self.url
            ))
        };
        if name == store::SESSION_TOKEN {
            if self.session_elsewhere.load(Ordering::SeqCst) {
                return Err(required());
            }
            return Err(RemoteError::Auth(
                "this engine's token was kept for one session only (the keyring could not hold it): enter it again".into(),
            ));
        }
        // The entry is named after the URL the requests go to, whatever the (shared) row names: a
        // token is only ever read for the URL it was given for.
        let bound = store::token_ref(self.id.as_str(), &self.url);
        let entry = if *name == bound {
            bound
        } else if *name == store::legacy_token_ref(self.id.as_str()) && self.db.topology() == Topology::Solo {
            // Stored before tokens were bound to URLs, on a console of its own: only its own edits
            // changed the URL, each of which needed the token again or kept it on purpose.
            name.clone()
        } else {
            return Err(required());
        };
        match secrets::get(&entry).await {
            Ok(t) => {
                *cached = Some(t.clone());
                Ok(Some(t))
            }
            Err(secrets::SecretError::NotFound { .. }) => Err(required()),
            // Without its token the engine would answer 401: say why instead.
            Err(e) => Err(RemoteError::Auth(format!("cannot read the engine's token: {e}"))),
        }
    }

    /// The token; failing to read it is recorded as the engine's health (it cannot be asked without it).
    pub async fn token_or_health(&self) -> Result<Option<ApiKey>, Error> {
        match self.token().await {
            Ok(token) => Ok(token),
            Err(e) => Err(self.to_error(self.observe::<()>(Err(e)).await.expect_err("an error stays an error"))),
        }
    }

    /// A remote failure as the console's error: unreachable and auth failures are worth retrying.
    pub fn to_error(&self, e: RemoteError) -> Error {
        match e {
            RemoteError::Unreachable(m) | RemoteError::Busy(m) => Error::Unreachable(m),
            RemoteError::Auth(m) => Error::Unreachable(format!("authentication failed: {m}")),
            RemoteError::TokenRequired(m) => Error::Unreachable(format!("token required: {m}")),
            RemoteError::Incompatible(m) => {
                Error::Engine(format!("the engine's answer is not one a supported {} server gives: {m}", self.kind.as_str()))
            }
            RemoteError::RunNotSuspended(m) => Error::not_found(format!("suspended run at the engine ({m})")),
            RemoteError::CallNotSuspended(m) => {
                tracing::info!(engine = %self.id, "engine: {m}");
                Error::AlreadyDecided { state: ItemState::Gone }
            }
            RemoteError::Refused(m) => Error::Engine(m),
        }
    }

    /// Records how a request went; health is written to the database only when it changes.
    pub async fn observe<T>(&self, result: Result<T, RemoteError>) -> Result<T, RemoteError> {
        let now = crate::store::now();
        let changed = {
            let mut h = self.health.lock().expect("health lock");
            let before = h.state;
            match &result {
                Ok(_)
                | Err(
                    RemoteError::RunNotSuspended(_) | RemoteError::CallNotSuspended(_) | RemoteError::Refused(_) | RemoteError::Busy(_),
                ) => {
                    h.state = Health::Reachable;
                    h.last_ok_at = Some(now);
                }
                Err(e) => {
                    h.state = match e {
                        RemoteError::Auth(_) => Health::AuthFailed,
                        RemoteError::TokenRequired(_) => Health::TokenRequired,
                        RemoteError::Incompatible(_) => Health::Incompatible,
                        _ => Health::Unreachable,
                    };
                    let message = e.to_string();
                    if h.last_error.as_deref() != Some(&message) {
                        h.last_error = Some(message);
                        h.last_error_at = Some(now);
                    } else if before != h.state {
                        h.last_error_at = Some(now);
                    }
                }
            }
            (before != h.state).then(|| h.clone())
        };
        if let Some(h) = changed {
            match &h.state {
                Health::Reachable => tracing::info!(engine = %self.id, "engine reachable"),
                s => tracing::warn!(engine = %self.id, state = ?s, "engine: {}", h.last_error.as_deref().unwrap_or("")),
            }
            if let Err(e) = store::store_health(&self.db, self.id.as_str(), &h).await {
                tracing::warn!(engine = %self.id, "could not store the engine's health: {e}");
            }
        }
        result
    }

    /// Brings the queue in line with `calls` (what the engine lists now): new calls added, changed
    /// ones replaced (the old entry `gone`, audited with both fingerprints), and (when `full`) calls
    /// no longer waiting marked `gone`.
    pub async fn apply(&self, calls: &[PausedCall], full: bool) -> Result<SyncReport, Error> {
        self.apply_keeping(calls, full, &HashSet::new()).await
    }

    /// [`Core::apply`], keeping the pending calls of the runs in `busy` though they are not listed
    /// (a LangGraph thread lists no interrupts while a run goes on it, and may stop at them again).
    pub async fn apply_keeping(&self, calls: &[PausedCall], full: bool, busy: &HashSet<String>) -> Result<SyncReport, Error> {
        let id = &self.id;
        let mut report = SyncReport { full, listed: calls.len(), ..Default::default() };
        // Plan on a read connection; most polls change nothing and need no write transaction.
        let queue::SyncPlan { pending, new_calls } = queue::plan_sync(&self.db, id, calls).await?;
        let listed: HashMap<(&str, &str), &PausedCall> = calls.iter().map(|c| ((c.run_id.as_str(), c.tool_call_id.as_str()), c)).collect();
        let changed: Vec<(&queue::Entry, &PausedCall)> = pending
            .iter()
            .filter_map(|e| listed.get(&(e.queued.call.run_id.as_str(), e.queued.call.tool_call_id.as_str())).map(|c| (e, *c)))
            .filter(|(e, c)| !unchanged(&e.queued.call, c))
            .collect();
        let gone: Vec<&queue::Entry> = if full {
            pending
                .iter()
                .filter(|e| !listed.contains_key(&(e.queued.call.run_id.as_str(), e.queued.call.tool_call_id.as_str())))
                .filter(|e| !busy.contains(e.queued.call.run_id.as_str()))
                .collect()
        } else {
            vec![]
        };
        // What changed, written in one transaction (none opened when nothing did).
        let synced = queue::apply_sync(&self.db, id, &queue::SyncChanges { gone, changed, new_calls }).await?;
        report.gone = synced.gone;
        report.changed = synced.changed;
        report.added = synced.added;
        Ok(report)
    }

    /// Keeps or takes the engine's lease; whether this console holds it now. A lease taken anew
    /// starts with a complete sync (the last holder may have died half-way).
    /// A lease the slot already held (this console's last connection of the engine) is kept.
    async fn hold_lease(&self, lease: &mut Option<crate::store::lease::Lease>) -> bool {
        if let Some(held) = lease.as_mut() {
            if !held.alive().await {
                tracing::warn!(engine = %self.id, "lost the engine's lease (its database connection ended)");
                *lease = None;
            }
        }
        let taken = lease.is_none();
        if taken {
            *lease = match crate::store::lease::Lease::try_take(&self.db, &format!("engine:{}", self.id)).await {
                Ok(taken) => taken,
                Err(e) => {
                    tracing::warn!(engine = %self.id, "could not take the engine's lease: {e}");
                    None
                }
            };
        }
        let held = lease.is_some();
        let before = self.lease_held.swap(held, Ordering::SeqCst);
        if held && !before {
            self.full_requested.store(true, Ordering::SeqCst);
            if !taken {
                tracing::debug!(engine = %self.id, "connected anew with the lease it held");
            } else if self.db.topology() == Topology::Team {
                tracing::info!(engine = %self.id, "this console now syncs and delivers the engine (lease taken)");
                if let Err(e) = self.resend_cut_deliveries().await {
                    tracing::warn!(engine = %self.id, "could not take over the deliveries the last holder left: {e}");
                }
            }
        }
        held
    }

    /// Team mode, on taking the lease: deliveries the last holder claimed and never finished (it
    /// died) go back to the outbox to be sent again — the engine refuses a second resume and the call
    /// is re-read before every send, as after a restart (C5).
    async fn resend_cut_deliveries(&self) -> Result<(), Error> {
        let cut = outbox::cut_of_engine(&self.db, self.id.as_str()).await?;
        for (d, tool) in cut {
            let why = "the console delivering this decision stopped; the console that took the engine over sends it again";
            if outbox::resend_cut(&self.db, &d, &tool, why).await? {
                tracing::warn!(engine = %self.id, item = %d.item_id, "{why}");
            }
        }
        Ok(())
    }

    /// Polls with `sync` (its argument: whether the listing is to be complete) until `stop` flips:
    /// every `poll_ms`, a complete listing every [`FULL_EVERY`] polls or when asked; doubling the
    /// wait (up to [`MAX_BACKOFF`]) while the engine fails. Team mode: only while this console holds
    /// the engine's lease, kept in `lease` (which outlives this loop when the engine is connected
    /// anew: the owner of the slot lets it go).
    pub async fn run<F, Fut>(&self, sync: F, mut stop: tokio::sync::watch::Receiver<bool>, lease: crate::store::lease::LeaseSlot)
    where
        F: Fn(bool) -> Fut,
        Fut: Future<Output = Result<SyncReport, Error>>,
    {
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
            let synced = sync(full).await;
            drop(held);
            match synced {
                Ok(report) => {
                    failures = 0;
                    if report.added + report.changed + report.gone > 0 {
                        tracing::info!(engine = %self.id, added = report.added, changed = report.changed, gone = report.gone, "synced");
                    }
                    polls = polls.wrapping_add(1);
                }
                Err(e) => {
                    failures = failures.saturating_add(1);
                    // The next poll after a failure is a complete one.
                    polls = 0;
                    tracing::debug!(engine = %self.id, "sync failed: {e}");
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
        self.lease_held.store(self.db.topology() == Topology::Solo, Ordering::SeqCst);
    }
}

/// Whether a listed call is the stored one, unchanged. Mastra lists no arguments for a suspended
/// call, while its stream does: a call stored with the arguments from a stream is unchanged if the
/// tool and the suspend payload are. A suspended call's payload is compared too (the fingerprint
/// covers only the tool and the arguments).
pub fn unchanged(stored: &PausedCall, listed: &PausedCall) -> bool {
    let payload_same = listed.kind != CallKind::Suspend || stored.suspend_payload == listed.suspend_payload;
    if stored.fingerprint == listed.fingerprint {
        return payload_same;
    }
    listed.kind == CallKind::Suspend && listed.args.is_null() && stored.tool_name == listed.tool_name && payload_same
}
