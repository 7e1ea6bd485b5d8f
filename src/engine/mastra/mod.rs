//! A remote Mastra server as an engine: its suspended runs are synced into the queue by polling, and
//! decisions are sent back over its HTTP API (`approve-tool-call`, `decline-tool-call`,
//! `resume-stream`), re-reading the call first (C3).

pub mod client;
pub mod listing;
pub mod schema;

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
}

impl MastraEngine {
    /// An engine for a configured row. Talks to nobody yet.
    pub fn new(db: Db, events: Events, row: &EngineRow) -> Result<Self, Error> {
        let client = Client::new(&row.base_url).map_err(Error::InvalidRequest)?;
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
            }),
        })
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
            if let Ok(mut conn) = self.inner.db.pool().acquire().await {
                if let Err(e) = store::set_health(&mut conn, self.inner.id.as_str(), &h).await {
                    tracing::warn!(engine = %self.inner.id, "could not store the engine's health: {e}");
                }
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
            if let Ok(mut conn) = self.inner.db.pool().acquire().await {
                for a in &agents {
                    for (name, tool) in &a.tools {
                        let body = serde_json::to_value(tool).expect("tool info serializes");
                        if let Err(e) = store::put_tool(&mut conn, self.inner.id.as_str(), &a.id, name, &body).await {
                            tracing::warn!(engine = %self.inner.id, "could not remember tool {name}: {e}");
                        }
                    }
                }
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

    /// Lists what waits at the engine and brings the queue in line: new calls added, changed ones
    /// replaced, and (when `full`) calls no longer waiting marked `gone`.
    #[tracing::instrument(name = "sync", skip_all, fields(engine = %self.inner.id, full))]
    pub async fn sync(&self, full: bool) -> Result<SyncReport, Error> {
        let token = self.token_or_health().await?;
        let agents = self.list_agents(token.as_ref()).await.map_err(remote_to_error)?;
        let from = (!full).then(|| crate::store::now() - RECENT);
        let mut listed = Vec::new();
        let mut skipped = 0;
        for a in &agents {
            let runs = self.observe(self.inner.client.suspended_runs(&a.id, token.as_ref(), from).await).await.map_err(remote_to_error)?;
            let (runs, bad) = listing::runs(&a.id, &runs);
            skipped += bad;
            listed.extend(runs);
        }
        let surfaced = listing::surface(&self.inner.id, &agents, &listed);
        skipped += surfaced.rejected.len();
        for (call, why) in &surfaced.rejected {
            tracing::warn!(engine = %self.inner.id, call, "not queued: {why}");
        }
        let mut calls = surfaced.calls;
        {
            // A sub-agent's run without a supervisor run: queued once it is seen twice in a row.
            let mut orphans = self.inner.orphans.lock().expect("orphans lock");
            let now: HashSet<(String, String)> =
                surfaced.unmatched_children.iter().map(|c| (c.run_id.to_string(), c.tool_call_id.to_string())).collect();
            for c in surfaced.unmatched_children {
                if orphans.contains(&(c.run_id.to_string(), c.tool_call_id.to_string())) {
                    calls.push(c);
                }
            }
            *orphans = now;
        }
        let mut report = self.apply(&calls, full).await?;
        report.agents = agents.len();
        report.skipped = skipped;
        Ok(report)
    }

    /// Brings the queue in line with `calls` (what the engine lists now).
    async fn apply(&self, calls: &[PausedCall], full: bool) -> Result<SyncReport, Error> {
        let id = &self.inner.id;
        let mut report = SyncReport { full, listed: calls.len(), ..Default::default() };
        // Plan on a read connection; most polls change nothing and need no write transaction.
        let (pending, new_calls) = {
            let mut conn = self.inner.db.pool().acquire().await?;
            let pending = queue::pending_of_engine(&mut conn, id).await?;
            let pending_keys: HashSet<(&str, &str)> =
                pending.iter().map(|e| (e.queued.call.run_id.as_str(), e.queued.call.tool_call_id.as_str())).collect();
            let mut new_calls = Vec::new();
            for c in calls {
                if !pending_keys.contains(&(c.run_id.as_str(), c.tool_call_id.as_str()))
                    && queue::live_state(&mut conn, id, &c.run_id, &c.tool_call_id).await?.is_none()
                {
                    new_calls.push(c);
                }
            }
            (pending, new_calls)
        };
        let listed: HashMap<(&str, &str), &PausedCall> = calls.iter().map(|c| ((c.run_id.as_str(), c.tool_call_id.as_str()), c)).collect();
        let changed: Vec<(&queue::Entry, &PausedCall)> = pending
            .iter()
            .filter_map(|e| listed.get(&(e.queued.call.run_id.as_str(), e.queued.call.tool_call_id.as_str())).map(|c| (e, *c)))
            .filter(|(e, c)| !unchanged(&e.queued.call, c))
            .collect();
        let gone: Vec<&queue::Entry> = if full {
            pending.iter().filter(|e| !listed.contains_key(&(e.queued.call.run_id.as_str(), e.queued.call.tool_call_id.as_str()))).collect()
        } else {
            vec![]
        };
        if new_calls.is_empty() && changed.is_empty() && gone.is_empty() {
            return Ok(report);
        }

        let actor = format!("engine:{id}");
        let mut tx = self.inner.db.begin_write().await?;
        for e in &gone {
            if queue::transition(&mut tx, &e.queued.id, ItemState::Pending, ItemState::Gone).await? {
                audit::append(&mut tx, audit::Record {
                    actor: &actor,
                    action: "call.gone",
                    queue_item_id: Some(e.queued.id.as_str()),
                    tool_name: Some(&e.queued.call.tool_name),
                    fingerprint: Some(e.queued.call.fingerprint.as_str()),
                    details: json!({ "runId": e.queued.call.run_id, "toolCallId": e.queued.call.tool_call_id, "why": "the engine no longer lists this call as waiting (finished, resumed or declined elsewhere)" }),
                })
                .await?;
                // The run went on without the console, which can no longer tell whether a later call
                // under this run id belongs to the same run: its run grants end (fail safe: the
                // operator is asked again).
                crate::store::grants::end_for_run(&mut tx, id, &e.queued.call.run_id, crate::store::now()).await?;
                report.gone += 1;
            }
        }
        for (e, now) in &changed {
            if !queue::transition(&mut tx, &e.queued.id, ItemState::Pending, ItemState::Gone).await? {
                continue;
            }
            let item = queue::insert_pending(&mut tx, now).await?;
            audit::append(
                &mut tx,
                audit::Record {
                    actor: &actor,
                    action: "call.changed",
                    queue_item_id: Some(e.queued.id.as_str()),
                    tool_name: Some(&now.tool_name),
                    fingerprint: Some(now.fingerprint.as_str()),
                    details: json!({
                        "runId": now.run_id, "toolCallId": now.tool_call_id, "replacedBy": item.id,
                        "before": { "fingerprint": e.queued.call.fingerprint, "args": e.queued.call.args },
                        "after": { "fingerprint": now.fingerprint, "args": now.args },
                    }),
                },
            )
            .await?;
            paused_audit(&mut tx, &actor, &item.id, now).await?;
            report.changed += 1;
        }
        for c in &new_calls {
            if queue::find_pending(&mut tx, id, &c.run_id, &c.tool_call_id).await?.is_some()
                || queue::live_state(&mut tx, id, &c.run_id, &c.tool_call_id).await?.is_some()
            {
                continue;
            }
            let item = queue::insert_pending(&mut tx, c).await?;
            paused_audit(&mut tx, &actor, &item.id, c).await?;
            report.added += 1;
        }
        tx.commit().await?;
        self.inner.events.changed();
        Ok(report)
    }

    /// Polls until `stop` flips: every `poll_ms`, a complete listing every [`FULL_EVERY`] polls or
    /// when asked; doubling the wait (up to [`MAX_BACKOFF`]) while the engine fails.
    pub fn spawn_sync(&self, mut stop: tokio::sync::watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            let mut polls: u32 = 0;
            let mut failures: u32 = 0;
            loop {
                let full = this.inner.full_requested.swap(false, Ordering::SeqCst) || polls.is_multiple_of(FULL_EVERY);
                match this.sync(full).await {
                    Ok(report) => {
                        failures = 0;
                        if report.added + report.changed + report.gone > 0 {
                            tracing::info!(engine = %this.inner.id, added = report.added, changed = report.changed, gone = report.gone, "synced");
                        }
                        polls = polls.wrapping_add(1);
                    }
                    Err(e) => {
                        failures = failures.saturating_add(1);
                        // The next poll after a failure is a complete one.
                        polls = 0;
                        tracing::debug!(engine = %this.inner.id, "sync failed: {e}");
                    }
                }
                let wait = if failures == 0 {
                    this.inner.poll
                } else {
                    this.inner.poll.saturating_mul(1 << failures.min(8)).min(MAX_BACKOFF.max(this.inner.poll))
                };
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = this.inner.wake.notified() => {}
                    _ = stop.changed() => return,
                }
                if *stop.borrow() {
                    return;
                }
            }
        })
    }

    /// The call as the engine lists it now (C3); `None` if it no longer waits there.
    async fn find(&self, call: &PausedCall, token: Option<&ApiKey>) -> Result<Option<PausedCall>, RemoteError> {
        let runs = self.observe(self.inner.client.suspended_runs(call.agent_id.as_str(), token, None).await).await?;
        let (runs, _) = listing::runs(call.agent_id.as_str(), &runs);
        let runs: Vec<_> = runs.into_iter().filter(|r| r.run_id == call.run_id.as_str()).collect();
        let mut agents = self.agents();
        if agents.is_empty() {
            agents = self.remembered_agents().await.unwrap_or_default();
        }
        let surfaced = listing::surface(&self.inner.id, &agents, &runs);
        let now = surfaced.calls.into_iter().chain(surfaced.unmatched_children).find(|c| c.tool_call_id == call.tool_call_id);
        Ok(now.map(|now| if unchanged(call, &now) { call.clone() } else { now }))
    }
}

/// Whether a listed call is the stored one, unchanged. Mastra lists no arguments for a suspended
/// call, while its stream does: a call stored with the arguments from a stream is unchanged if the
/// tool and the suspend payload are. A suspended call's payload is compared too (the fingerprint
/// covers only the tool and the arguments).
fn unchanged(stored: &PausedCall, listed: &PausedCall) -> bool {
    let payload_same = listed.kind != CallKind::Suspend || stored.suspend_payload == listed.suspend_payload;
    if stored.fingerprint == listed.fingerprint {
        return payload_same;
    }
    listed.kind == CallKind::Suspend && listed.args.is_null() && stored.tool_name == listed.tool_name && payload_same
}

/// The audit entry of a call entering the queue.
async fn paused_audit(conn: &mut sqlx::SqliteConnection, actor: &str, item: &crate::domain::ItemId, c: &PausedCall) -> Result<(), Error> {
    audit::append(conn, audit::Record {
        actor,
        action: "call.paused",
        queue_item_id: Some(item.as_str()),
        tool_name: Some(&c.tool_name),
        fingerprint: Some(c.fingerprint.as_str()),
        details: json!({ "runId": c.run_id, "toolCallId": c.tool_call_id, "agentId": c.agent_id, "kind": c.kind, "args": c.args, "chain": c.chain }),
    })
    .await
    .map(drop)
}

/// A remote failure as the console's error: unreachable and auth failures are worth retrying.
fn remote_to_error(e: RemoteError) -> Error {
    match e {
        RemoteError::Unreachable(m) => Error::Unreachable(m),
        RemoteError::Auth(m) => Error::Unreachable(format!("authentication failed: {m}")),
        RemoteError::Incompatible(m) => Error::Engine(format!("the engine's answer is not one a supported Mastra server gives: {m}")),
        RemoteError::RunNotSuspended(m) => Error::not_found(format!("suspended run at the engine ({m})")),
        RemoteError::CallNotSuspended(m) => {
            tracing::info!("engine: {m}");
            Error::AlreadyDecided { state: ItemState::Gone }
        }
        RemoteError::Refused(m) => Error::Engine(m),
    }
}

/// The pause a delivery stream ended on (the next approval of the same step), as a queue call.
fn next_pause(item: &QueuedCall, chunks: &[Value], agents: &[AgentInfo]) -> Option<PausedCall> {
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
        pause_reason: Some(crate::domain::PauseReason::of(listing::remote_pause(if approval {
            CallKind::Approval
        } else {
            CallKind::Suspend
        }))),
    })
}

#[async_trait]
impl Engine for MastraEngine {
    fn id(&self) -> EngineId {
        self.inner.id.clone()
    }

    fn allowed(&self, call: &PausedCall) -> Vec<DecisionKind> {
        match call.kind {
            CallKind::Approval => vec![DecisionKind::Approve, DecisionKind::Decline],
            CallKind::Suspend => vec![DecisionKind::Resume],
        }
    }

    async fn reread(&self, call: &PausedCall) -> Result<Option<PausedCall>, Error> {
        let token = self.token_or_health().await?;
        self.find(call, token.as_ref()).await.map_err(remote_to_error)
    }

    /// Mastra refuses to resume a call twice ("not suspended"), so a delivery cut by a crash can be sent again.
    fn refuses_repeats(&self) -> bool {
        true
    }

    async fn deliver(&self, decision: &Decision, item: &QueuedCall, sink: Option<ChunkSink>) -> Result<Value, Error> {
        let call = &item.call;
        let token = self.token_or_health().await?;
        // C3, again just before sending: the decision may have waited in the outbox.
        match self.find(call, token.as_ref()).await.map_err(remote_to_error)? {
            None => return Err(Error::not_found(format!("call {} (no longer waiting at engine {})", call.tool_call_id, call.engine))),
            Some(now) if now.fingerprint != decision.fingerprint => {
                return Err(Error::FingerprintMismatch { shown: decision.fingerprint.clone(), current: now.fingerprint })
            }
            Some(_) => {}
        }
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
            .map_err(remote_to_error)?;
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
            tracing::warn!(engine = %self.inner.id, item = %item.id, "{warning}");
            outcome["warning"] = json!(warning);
        }
        let mut tx = self.inner.db.begin_write().await?;
        outbox::record(&mut tx, decision, item, &outcome, None).await?;
        if next.is_none() && folded.finish_reason.as_deref().is_some_and(|r| r != "suspended") {
            // The run finished: a grant for "this run" ends with it, so a later run that reuses the
            // id at the engine is not covered.
            crate::store::grants::end_for_run(&mut tx, &call.engine, &call.run_id, crate::store::now()).await?;
        }
        if let Some(n) = next {
            // The stream is the engine's own word that this call waits now: also when it is the call
            // just resumed, suspending again.
            let same_call = n.run_id == call.run_id && n.tool_call_id == call.tool_call_id;
            let blocked = queue::find_pending(&mut tx, &n.engine, &n.run_id, &n.tool_call_id).await?.is_some()
                || (!same_call && queue::live_state(&mut tx, &n.engine, &n.run_id, &n.tool_call_id).await?.is_some());
            if !blocked {
                let added = queue::insert_pending(&mut tx, &n).await?;
                paused_audit(&mut tx, &format!("engine:{}", self.inner.id), &added.id, &n).await?;
            }
        }
        tx.commit().await?;
        self.inner.events.changed();
        self.request_sync();
        Ok(outcome)
    }
}

impl std::fmt::Debug for MastraEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MastraEngine").field("id", &self.inner.id).field("base", &self.base_url()).finish_non_exhaustive()
    }
}

/// Checks an engine name: 1–64 of `A–Z a–z 0–9 . _ -`, and not `local`.
pub fn check_name(name: &str) -> Result<(), Error> {
    if name.is_empty() || name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')) {
        return Err(Error::InvalidRequest(format!("engine name {name:?}: use 1–64 letters, digits, '.', '_' or '-'")));
    }
    if name == EngineId::local().as_str() {
        return Err(Error::InvalidRequest("\"local\" is the local engine's name; pick another".into()));
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
