//! Remote engines over HTTP: list with health, add, edit, remove, sync now, their agents.
//! Tokens are accepted (and go to the OS keyring) but never answered back (C7).

use super::error::{ApiError, ApiResult, ErrorBody};
use super::ApiState;
use crate::domain::Error;
use crate::engine::local::model::ApiKey;
use crate::engine::mastra::{self, SyncReport};
use crate::engine::remotes::EngineSettings;
use crate::store::engines::{EngineRow, HealthReport};
use crate::store::queue;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub fn routes() -> Router<ApiState> {
    Router::new()
        .route("/api/engines", get(list).post(add))
        .route("/api/engines/{name}", axum::routing::patch(edit).delete(remove))
        .route("/api/engines/{name}/sync", post(sync))
        .route("/api/engines/{name}/agents", get(agents))
}

/// A remote engine as the API shows it. The token itself is never shown: only whether there is one.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EngineView {
    pub name: String,
    /// Always `mastra` for now.
    pub kind: &'static str,
    pub base_url: String,
    pub has_token: bool,
    pub poll_ms: u32,
    pub health: HealthReport,
    /// Calls of this engine waiting for a decision.
    pub pending: i64,
    /// Decisions taken but not yet delivered to it (the outbox).
    pub awaiting_delivery: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

async fn view(state: &ApiState, row: EngineRow) -> ApiResult<EngineView> {
    let mut conn = state.app.db.pool().acquire().await.map_err(Error::from)?;
    let counts = queue::counts_by_engine(&mut conn).await?;
    Ok(to_view(row, state, &counts))
}

fn to_view(row: EngineRow, state: &ApiState, counts: &std::collections::HashMap<String, (i64, i64)>) -> EngineView {
    let health = state.app.remotes.get(&row.name).map(|e| e.health()).unwrap_or(row.health);
    let (pending, awaiting_delivery) = counts.get(&row.name).copied().unwrap_or((0, 0));
    EngineView {
        kind: "mastra",
        has_token: row.token_ref.is_some(),
        poll_ms: row.poll_ms,
        health,
        pending,
        awaiting_delivery,
        created_at: row.created_at,
        updated_at: row.updated_at,
        base_url: row.base_url,
        name: row.name,
    }
}

#[utoipa::path(get, path = "/api/engines", responses((status = 200, description = "Remote engines by name, with live health", body = [EngineView]), (status = 401, body = ErrorBody)))]
async fn list(State(state): State<ApiState>) -> ApiResult<Json<Vec<EngineView>>> {
    let rows = state.app.remotes.list().await?;
    let mut conn = state.app.db.pool().acquire().await.map_err(Error::from)?;
    let counts = queue::counts_by_engine(&mut conn).await?;
    Ok(Json(rows.into_iter().map(|(row, _)| to_view(row, &state, &counts)).collect()))
}

/// A new remote engine.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewEngine {
    /// 1–64 letters, digits, `.`, `_`, `-`; also the engine's id in the queue.
    name: String,
    /// The server's base URL, e.g. `http://127.0.0.1:4111`.
    base_url: String,
    /// Bearer token; stored in the OS keyring, never shown again.
    token: Option<String>,
    /// Poll interval, 100 ms – 1 h (default 1000).
    poll_ms: Option<u32>,
}

/// Changes to a remote engine; absent fields stay as they are.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EngineChanges {
    base_url: Option<String>,
    /// A new bearer token (to the OS keyring).
    token: Option<String>,
    /// Forget the stored token.
    #[serde(default)]
    clear_token: bool,
    poll_ms: Option<u32>,
}

fn token(text: Option<String>) -> Option<ApiKey> {
    text.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).map(ApiKey::new)
}

#[utoipa::path(post, path = "/api/engines", request_body = NewEngine, responses(
    (status = 201, description = "Added; syncing starts at once", body = EngineView), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
    (status = 503, description = "keyring_unavailable / keyring_locked: the token could not be stored, nothing was added", body = ErrorBody)))]
async fn add(State(state): State<ApiState>, body: Result<Json<NewEngine>, JsonRejection>) -> ApiResult<(StatusCode, Json<EngineView>)> {
    let Json(body) = body?;
    let row = state
        .app
        .remotes
        .add(EngineSettings { name: body.name, base_url: body.base_url, token: token(body.token), clear_token: false, poll_ms: body.poll_ms })
        .await?;
    Ok((StatusCode::CREATED, Json(view(&state, row).await?)))
}

#[utoipa::path(patch, path = "/api/engines/{name}", params(("name" = String, Path)), request_body = EngineChanges, responses(
    (status = 200, body = EngineView), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 503, body = ErrorBody)))]
async fn edit(State(state): State<ApiState>, Path(name): Path<String>, body: Result<Json<EngineChanges>, JsonRejection>) -> ApiResult<Json<EngineView>> {
    let Json(body) = body?;
    let row = state
        .app
        .remotes
        .edit(EngineSettings { name, base_url: body.base_url.unwrap_or_default(), token: token(body.token), clear_token: body.clear_token, poll_ms: body.poll_ms })
        .await?;
    Ok(Json(view(&state, row).await?))
}

#[utoipa::path(delete, path = "/api/engines/{name}", params(("name" = String, Path)), responses(
    (status = 204, description = "Removed, with its keyring entry; its queue entries stay as history"), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn remove(State(state): State<ApiState>, Path(name): Path<String>) -> ApiResult<StatusCode> {
    state.app.remotes.remove(&name).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// What a sync now did, and the engine after it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SyncAnswer {
    report: SyncReport,
    engine: EngineView,
}

#[utoipa::path(post, path = "/api/engines/{name}/sync", params(("name" = String, Path)), responses(
    (status = 200, body = SyncAnswer), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody),
    (status = 502, description = "engine_error: the engine answered something unexpected", body = ErrorBody),
    (status = 503, description = "engine_unreachable (also when its token is refused)", body = ErrorBody)))]
async fn sync(State(state): State<ApiState>, Path(name): Path<String>) -> ApiResult<Json<SyncAnswer>> {
    let report = state.app.remotes.sync_now(&name).await?;
    let row = state.app.remotes.list().await?.into_iter().map(|(r, _)| r).find(|r| r.name == name).ok_or_else(|| ApiError::from(Error::not_found(format!("engine {name:?}"))))?;
    Ok(Json(SyncAnswer { report, engine: view(&state, row).await? }))
}

#[utoipa::path(get, path = "/api/engines/{name}/agents", params(("name" = String, Path)), responses(
    (status = 200, description = "The engine's agents as last listed: tools with approval flags and schemas (JSON Schema), sub-agents", body = Value),
    (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn agents(State(state): State<ApiState>, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    let engine = state.app.remotes.get(&name).ok_or_else(|| ApiError::from(Error::not_found(format!("engine {name:?}"))))?;
    Ok(Json(mastra::agents_view(&engine.agents())))
}

#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list, add, edit, remove, sync, agents),
    components(schemas(EngineView, NewEngine, EngineChanges, SyncAnswer, SyncReport, HealthReport, crate::store::engines::Health))
)]
pub struct EnginesDoc;
