//! Remote engines as every shell shows them: with live health and queue counts; tokens accepted
//! (to the OS keyring) and never shown back (C7).

use super::App;
use crate::console::remotes::EngineSettings;
use crate::domain::CallSource;
use crate::domain::Error;
use crate::domain::{grade, Cx};
use crate::engine::kinds;
use crate::engine::local::model::ApiKey;
use crate::engine::remote::base::SyncReport;
pub use crate::engine::remote::EngineTestResult;
use crate::store::engines::{EngineRow, HealthReport};
use crate::store::queue;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A remote engine as the API shows it. The token itself is never shown: only whether there is one.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EngineView {
    pub name: String,
    /// Which API the server speaks: a remote kind (`mastra`, `langgraph` or `ag-ui`).
    pub kind: CallSource,
    pub base_url: String,
    pub has_token: bool,
    /// The token was given for this session only (the keyring could not hold it): it is asked for
    /// again after a restart.
    pub session_token: bool,
    pub poll_ms: u32,
    pub health: HealthReport,
    /// Calls of this engine waiting for a decision.
    pub pending: i64,
    /// Decisions taken but not yet delivered to it (the outbox).
    pub awaiting_delivery: i64,
    /// Whether this console syncs the engine and delivers to it: always on a console of its own; in
    /// team mode only on the console holding the engine's lease (one at a time).
    pub synced_here: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

fn to_view(row: EngineRow, app: &App, counts: &std::collections::HashMap<String, (i64, i64)>) -> EngineView {
    let live = app.remotes.get(&row.name);
    let synced_here = live.as_ref().is_some_and(|e| e.lease_held());
    // The console that syncs the engine knows its health first; the others read what it stored
    // (their own engine object asks the engine nothing while another console holds the lease).
    let health = live.filter(|_| synced_here).map(|e| e.health()).unwrap_or(row.health);
    let (pending, awaiting_delivery) = counts.get(&row.name).copied().unwrap_or((0, 0));
    EngineView {
        kind: row.kind,
        has_token: row.token_ref.is_some(),
        session_token: row.token_ref.as_deref() == Some(crate::store::engines::SESSION_TOKEN),
        poll_ms: row.poll_ms,
        health,
        pending,
        awaiting_delivery,
        synced_here,
        created_at: row.created_at,
        updated_at: row.updated_at,
        base_url: row.base_url,
        name: row.name,
    }
}

/// A new remote engine.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewEngine {
    /// 1–64 letters, digits, `.`, `_`, `-`; also the engine's id in the queue.
    pub name: String,
    /// Which API the server speaks: a remote kind, `mastra` (the default) or `langgraph`.
    #[serde(default = "kinds::default_remote", deserialize_with = "kinds::deserialize_remote")]
    pub kind: CallSource,
    /// The server's base URL, e.g. `http://127.0.0.1:4111` (Mastra) or `http://127.0.0.1:2024`
    /// (LangGraph).
    pub base_url: String,
    /// Token; stored in the OS keyring, never shown again. Sent as a bearer token (and to a LangGraph
    /// server also as `x-api-key`).
    pub token: Option<String>,
    /// Poll interval, 100 ms – 1 h (default 1000).
    pub poll_ms: Option<u32>,
    /// Keep the token in memory for this session only instead of the OS keyring (when the keyring is
    /// missing or locked); it must be given again after a restart.
    #[serde(default)]
    pub session_only: bool,
}

/// Changes to a remote engine; absent fields stay as they are.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EngineChanges {
    pub base_url: Option<String>,
    /// A new bearer token (to the OS keyring).
    pub token: Option<String>,
    /// Forget the stored token.
    #[serde(default)]
    pub clear_token: bool,
    /// With a new `baseUrl` and no `token`: send the stored token to the new host too. Without it
    /// (or a new token, or `clearToken`), a changed URL is refused with `token_required`: a token
    /// must never follow a URL to another host by accident.
    #[serde(default)]
    pub keep_token: bool,
    pub poll_ms: Option<u32>,
    /// With `token`: keep it for this session only (see [`NewEngine::session_only`]).
    #[serde(default)]
    pub session_only: bool,
}

fn token(text: Option<String>) -> Option<ApiKey> {
    text.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).map(ApiKey::new)
}

/// A server to try before adding it (`POST /api/engines/test`): nothing is stored.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EngineTest {
    /// A remote kind: `mastra` (the default) or `langgraph`.
    #[serde(default = "kinds::default_remote", deserialize_with = "kinds::deserialize_remote")]
    pub kind: CallSource,
    pub base_url: String,
    /// Bearer token to try; used for these requests only, never stored or logged.
    pub token: Option<String>,
}

/// What a sync now did, and the engine after it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SyncAnswer {
    pub report: SyncReport,
    pub engine: EngineView,
}

impl App {
    async fn engine_view(&self, row: EngineRow) -> Result<EngineView, Error> {
        let counts = queue::engine_counts(&self.db).await?;
        Ok(to_view(row, self, &counts))
    }

    /// Every remote engine with its live health and counts.
    pub async fn engines(&self, _by: &Cx<grade::Operator>) -> Result<Vec<EngineView>, Error> {
        let rows = self.remotes.list().await?;
        let counts = queue::engine_counts(&self.db).await?;
        Ok(rows.into_iter().map(|(row, _)| to_view(row, self, &counts)).collect())
    }

    /// Admins only, like every change to engines.
    pub async fn add_engine(&self, e: NewEngine, by: &Cx<grade::Admin>) -> Result<EngineView, Error> {
        let row = self
            .remotes
            .add(
                e.kind,
                EngineSettings {
                    name: e.name,
                    base_url: e.base_url,
                    token: token(e.token),
                    clear_token: false,
                    keep_token: false,
                    session_only: e.session_only,
                    poll_ms: e.poll_ms,
                },
                &by.audit_name(),
            )
            .await?;
        self.engine_view(row).await
    }

    pub async fn edit_engine(&self, name: &str, c: EngineChanges, by: &Cx<grade::Admin>) -> Result<EngineView, Error> {
        let row = self
            .remotes
            .edit(
                EngineSettings {
                    name: name.to_owned(),
                    base_url: c.base_url.unwrap_or_default(),
                    token: token(c.token),
                    clear_token: c.clear_token,
                    keep_token: c.keep_token,
                    session_only: c.session_only,
                    poll_ms: c.poll_ms,
                },
                &by.audit_name(),
            )
            .await?;
        self.engine_view(row).await
    }

    /// A complete sync now, and the engine after it.
    pub async fn sync_engine(&self, name: &str, _by: &Cx<grade::Operator>) -> Result<SyncAnswer, Error> {
        let report = self.remotes.sync_now(name).await?;
        let row = self
            .remotes
            .list()
            .await?
            .into_iter()
            .map(|(r, _)| r)
            .find(|r| r.name == name)
            .ok_or_else(|| Error::not_found(format!("engine {name:?}")))?;
        Ok(SyncAnswer { report, engine: self.engine_view(row).await? })
    }

    /// Tries a server as the sync would, storing nothing (each kind's probe: see
    /// [`kinds::RemoteKind::probe`]). `invalid_request` only for a base URL that is not one, or a kind
    /// that is not a remote one.
    pub async fn test_engine(&self, t: EngineTest, _by: &Cx<grade::Admin>) -> Result<EngineTestResult, Error> {
        let token = token(t.token);
        (kinds::remote(t.kind)?.probe)(&t.base_url, token.as_ref()).await
    }

    /// Removes an engine and its token (admins only); its entries stay as history.
    pub async fn remove_engine(&self, name: &str, by: &Cx<grade::Admin>) -> Result<(), Error> {
        self.remotes.remove(name, &by.audit_name()).await
    }

    /// The engine's agents as last listed.
    pub fn engine_agents(&self, name: &str, _by: &Cx<grade::Operator>) -> Result<Value, Error> {
        let engine = self.remotes.get(name).ok_or_else(|| Error::not_found(format!("engine {name:?}")))?;
        Ok(engine.agents_view())
    }
}
