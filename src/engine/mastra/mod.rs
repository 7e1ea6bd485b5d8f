//! A remote Mastra server as an engine: its suspended runs are synced into the queue by polling, and
//! decisions are sent back over its HTTP API (`approve-tool-call`, `decline-tool-call`,
//! `resume-stream`), re-reading the call first (C3).

pub mod client;
mod deliver;
pub mod listing;
pub mod schema;
mod sync;

use deliver::remote_to_error;
use sync::{paused_audit, unchanged};

use crate::domain::{
    CallKind, Decision, DecisionKind, EngineId, Error, Fingerprint, ItemState, PausedCall, QueuedCall, RunId, ToolCallId, Verdict,
};
use crate::engine::chunk::Folded;
use crate::engine::local::model::ApiKey;
use crate::engine::{ChunkSink, Engine};
use crate::secrets;
use crate::store::engines::{self as store, EngineRow, Health, HealthReport};
use crate::store::feed::Events;
use crate::store::outbox;
use crate::store::{audit, queue, Db};
use async_trait::async_trait;
use client::{Client, RemoteError};
use listing::{AgentInfo, ToolInfo};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// Every this many polls the listing is complete (runs that ended elsewhere leave the queue); the
/// polls between ask only for runs created in the last [`RECENT`].
pub const FULL_EVERY: u32 = 10;
/// The window of an incremental poll (Mastra filters `fromDate` on the run's creation time).
const RECENT: chrono::Duration = chrono::Duration::minutes(10);
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

/// Cheap to clone.
#[derive(Clone)]
pub struct MastraEngine {
    inner: Arc<Inner>,
}

struct Inner {
    id: EngineId,
    db: Db,
    events: Events,
    client: Client,
    token_ref: Option<String>,
    /// The token read from the keyring (or given for this session only), kept after the first read.
    token: tokio::sync::Mutex<Option<ApiKey>>,
    health: Mutex<HealthReport>,
    /// The last agent listing (from the engine, or from `remote_tools` until it answers).
    agents: Mutex<Vec<AgentInfo>>,
    /// Sub-agent runs seen without their supervisor's run at the last poll (queued if seen again).
    orphans: Mutex<HashSet<(String, String)>>,
    poll: Duration,
    wake: Notify,
    full_requested: AtomicBool,
    /// Whether this console syncs and delivers the engine: always on SQLite (one console); in team
    /// mode while it holds the engine's lease (see [`crate::store::lease`]).
    lease_held: AtomicBool,
}

impl MastraEngine {
    /// An engine for a configured row. Talks to nobody yet.
    pub fn new(db: Db, events: Events, row: &EngineRow) -> Result<Self, Error> {
        let client = Client::new(&row.base_url).map_err(Error::InvalidRequest)?;
        let db_is_sqlite = db.dialect() == crate::store::Dialect::Sqlite;
        Ok(Self {
            inner: Arc::new(Inner {
                id: EngineId::new(&row.name),
                db,
                events,
                client,
                token_ref: row.token_ref.clone(),
                token: tokio::sync::Mutex::new(None),
                health: Mutex::new(row.health.clone()),
                agents: Mutex::new(vec![]),
                orphans: Mutex::new(HashSet::new()),
                poll: Duration::from_millis(u64::from(row.poll_ms)),
                wake: Notify::new(),
                full_requested: AtomicBool::new(true),
                lease_held: AtomicBool::new(db_is_sqlite),
            }),
        })
    }

    /// Whether this console syncs and delivers this engine now (team mode: it holds the lease).
    pub fn lease_held(&self) -> bool {
        self.inner.lease_held.load(Ordering::SeqCst)
    }

    /// Uses `token` for this process only (when the keyring cannot hold it). Call on a new engine.
    pub fn set_session_token_now(&self, token: ApiKey) {
        match self.inner.token.try_lock() {
            Ok(mut slot) => *slot = Some(token),
            Err(_) => tracing::warn!(engine = %self.inner.id, "the session token could not be set: the engine is busy"),
        }
    }

    pub fn health(&self) -> HealthReport {
        self.inner.health.lock().expect("health lock").clone()
    }

    pub fn base_url(&self) -> &str {
        self.inner.client.base().as_str()
    }

    /// The agents as last listed.
    pub fn agents(&self) -> Vec<AgentInfo> {
        self.inner.agents.lock().expect("agents lock").clone()
    }

    /// Asks the sync loop for a complete sync now.
    pub fn request_sync(&self) {
        self.inner.full_requested.store(true, Ordering::SeqCst);
        self.inner.wake.notify_one();
    }

    async fn token(&self) -> Result<Option<ApiKey>, RemoteError> {
        let Some(name) = &self.inner.token_ref else { return Ok(None) };
        let mut cached = self.inner.token.lock().await;
        if let Some(t) = &*cached {
            return Ok(Some(t.clone()));
        }
        if name == store::SESSION_TOKEN {
            return Err(RemoteError::Auth(
                "this engine's token was kept for one session only (the keyring could not hold it): enter it again".into(),
            ));
        }
        match secrets::get(name).await {
            Ok(t) => {
                *cached = Some(t.clone());
                Ok(Some(t))
            }
            // Without its token the engine would answer 401: say why instead.
            Err(e) => Err(RemoteError::Auth(format!("cannot read the engine's token: {e}"))),
        }
    }

    /// The token; failing to read it is recorded as the engine's health (it cannot be asked without it).
    async fn token_or_health(&self) -> Result<Option<ApiKey>, Error> {
        match self.token().await {
            Ok(token) => Ok(token),
            Err(e) => Err(remote_to_error(self.observe::<()>(Err(e)).await.expect_err("an error stays an error"))),
        }
    }

    /// Records how a request went; health is written to the database only when it changes.
    async fn observe<T>(&self, result: Result<T, RemoteError>) -> Result<T, RemoteError> {
        let now = crate::store::now();
        let changed = {
            let mut h = self.inner.health.lock().expect("health lock");
            let before = h.state;
            match &result {
                Ok(_) | Err(RemoteError::RunNotSuspended(_) | RemoteError::CallNotSuspended(_) | RemoteError::Refused(_)) => {
                    h.state = Health::Reachable;
                    h.last_ok_at = Some(now);
                }
                Err(e) => {
                    h.state = match e {
                        RemoteError::Auth(_) => Health::AuthFailed,
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
                Health::Reachable => tracing::info!(engine = %self.inner.id, "engine reachable"),
                s => tracing::warn!(engine = %self.inner.id, state = ?s, "engine: {}", h.last_error.as_deref().unwrap_or("")),
            }
            let stored = async {
                let mut tx = self.inner.db.begin_write().await?;
                store::set_health(&mut tx, self.inner.id.as_str(), &h).await?;
                tx.commit().await
            };
            if let Err(e) = stored.await {
                tracing::warn!(engine = %self.inner.id, "could not store the engine's health: {e}");
            }
        }
        result
    }

    /// The agents, from the engine (remembering their tools) or, if it does not answer, from memory.
    async fn list_agents(&self, token: Option<&ApiKey>) -> Result<Vec<AgentInfo>, RemoteError> {
        let listing = self.observe(self.inner.client.agents(token).await).await?;
        let agents = listing::agents(&listing);
        let known = self.agents();
        if agents != known {
            let stored = async {
                let mut tx = self.inner.db.begin_write().await?;
                for a in &agents {
                    for (name, tool) in &a.tools {
                        let body = serde_json::to_value(tool).expect("tool info serializes");
                        store::put_tool(&mut tx, self.inner.id.as_str(), &a.id, name, &body).await?;
                    }
                }
                tx.commit().await
            };
            if let Err(e) = stored.await {
                tracing::warn!(engine = %self.inner.id, "could not remember the engine's tools: {e}");
            }
            *self.inner.agents.lock().expect("agents lock") = agents.clone();
        }
        Ok(agents)
    }

    /// What the console remembered of the agents' tools (used when the engine does not answer).
    async fn remembered_agents(&self) -> Result<Vec<AgentInfo>, Error> {
        let mut conn = self.inner.db.pool().acquire().await?;
        let mut by_agent: HashMap<String, AgentInfo> = HashMap::new();
        for (agent, tool, body) in store::tools(&mut conn, self.inner.id.as_str()).await? {
            let info: ToolInfo = serde_json::from_value(body).unwrap_or_default();
            by_agent.entry(agent.clone()).or_insert_with(|| AgentInfo { id: agent, ..Default::default() }).tools.insert(tool, info);
        }
        Ok(by_agent.into_values().collect())
    }
}

impl std::fmt::Debug for MastraEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MastraEngine").field("id", &self.inner.id).field("base", &self.base_url()).finish_non_exhaustive()
    }
}

/// Checks an engine name: 1–64 of `A–Z a–z 0–9 . _ -`, not `local` and not a source of submitted
/// calls (`http`, `claude-code`, `codex`, `mcp`).
pub fn check_name(name: &str) -> Result<(), Error> {
    if name.is_empty() || name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')) {
        return Err(Error::InvalidRequest(format!("engine name {name:?}: use 1–64 letters, digits, '.', '_' or '-'")));
    }
    if name == EngineId::local().as_str() {
        return Err(Error::InvalidRequest("\"local\" is the local engine's name; pick another".into()));
    }
    if crate::engine::submitted::Source::parse(name).is_some() {
        return Err(Error::InvalidRequest(format!("{name:?} is where calls that agents submit themselves are queued; pick another name")));
    }
    Ok(())
}

/// The agent listing of an engine as the API shows it.
pub fn agents_view(agents: &[AgentInfo]) -> Value {
    Value::Array(
        agents
            .iter()
            .map(|a| {
                let mut tools: Vec<_> = a.tools.iter().collect();
                tools.sort_by(|x, y| x.0.cmp(y.0));
                json!({
                    "id": a.id, "name": a.name, "subAgents": a.sub_agents,
                    "tools": tools.into_iter().map(|(name, t)| json!({
                        "name": name, "requireApproval": t.require_approval, "inputSchema": t.input_schema, "resumeSchema": t.resume_schema,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}
