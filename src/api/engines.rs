//! Remote engines over HTTP: list with health, add, edit, remove, sync now, their agents.
//! Tokens are accepted (and go to the OS keyring) but never answered back (C7).

use super::error::{ApiResult, ErrorBody};
use super::{ApiState, Caller};
use crate::app::engines::{EngineChanges, EngineTest, EngineTestResult, EngineView, NewEngine, SyncAnswer};
use crate::engine::mastra::SyncReport;
use crate::store::engines::HealthReport;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::Value;

pub fn routes() -> Router<ApiState> {
    Router::new()
        .route("/api/engines", get(list).post(add))
        .route("/api/engines/{name}", axum::routing::patch(edit).delete(remove))
        // A static segment wins over `{name}` for every method, so an engine named "test" is edited
        // and removed through this route too.
        .route("/api/engines/test", post(test).patch(edit_named_test).delete(remove_named_test))
        .route("/api/engines/{name}/sync", post(sync))
        .route("/api/engines/{name}/agents", get(agents))
}

#[utoipa::path(get, path = "/api/engines", responses((status = 200, description = "Remote engines by name, with live health", body = [EngineView]), (status = 401, body = ErrorBody)))]
async fn list(State(state): State<ApiState>, caller: Caller) -> ApiResult<Json<Vec<EngineView>>> {
    Ok(Json(state.app.engines(&caller.web()).await?))
}

#[utoipa::path(post, path = "/api/engines", request_body = NewEngine, responses(
    (status = 201, description = "Added; syncing starts at once", body = EngineView), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
    (status = 503, description = "keyring_unavailable / keyring_locked: the token could not be stored, nothing was added", body = ErrorBody)))]
async fn add(
    State(state): State<ApiState>,
    caller: Caller,
    body: Result<Json<NewEngine>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<EngineView>)> {
    let Json(body) = body?;
    Ok((StatusCode::CREATED, Json(state.app.add_engine(body, &caller.web()).await?)))
}

#[utoipa::path(patch, path = "/api/engines/{name}", params(("name" = String, Path)), request_body = EngineChanges, responses(
    (status = 200, body = EngineView), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 503, body = ErrorBody)))]
async fn edit(
    State(state): State<ApiState>,
    caller: Caller,
    Path(name): Path<String>,
    body: Result<Json<EngineChanges>, JsonRejection>,
) -> ApiResult<Json<EngineView>> {
    let Json(body) = body?;
    Ok(Json(state.app.edit_engine(&name, body, &caller.web()).await?))
}

#[utoipa::path(delete, path = "/api/engines/{name}", params(("name" = String, Path)), responses(
    (status = 204, description = "Removed, with its keyring entry; its queue entries stay as history"), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn remove(State(state): State<ApiState>, caller: Caller, Path(name): Path<String>) -> ApiResult<StatusCode> {
    state.app.remove_engine(&name, &caller.web()).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(post, path = "/api/engines/test", request_body = EngineTest, responses(
    (status = 200, description = "How the server answered (reachable, auth_failed, unreachable or incompatible); nothing is stored", body = EngineTestResult),
    (status = 400, description = "invalid_request: not an http(s) base URL", body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn test(
    State(state): State<ApiState>,
    caller: Caller,
    body: Result<Json<EngineTest>, JsonRejection>,
) -> ApiResult<Json<EngineTestResult>> {
    let Json(body) = body?;
    Ok(Json(state.app.test_engine(body, &caller.web()).await?))
}

async fn edit_named_test(
    state: State<ApiState>,
    caller: Caller,
    body: Result<Json<EngineChanges>, JsonRejection>,
) -> ApiResult<Json<EngineView>> {
    edit(state, caller, Path("test".into()), body).await
}

async fn remove_named_test(state: State<ApiState>, caller: Caller) -> ApiResult<StatusCode> {
    remove(state, caller, Path("test".into())).await
}

#[utoipa::path(post, path = "/api/engines/{name}/sync", params(("name" = String, Path)), responses(
    (status = 200, body = SyncAnswer), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody),
    (status = 502, description = "engine_error: the engine answered something unexpected", body = ErrorBody),
    (status = 503, description = "engine_unreachable (also when its token is refused)", body = ErrorBody)))]
async fn sync(State(state): State<ApiState>, caller: Caller, Path(name): Path<String>) -> ApiResult<Json<SyncAnswer>> {
    Ok(Json(state.app.sync_engine(&name, &caller.web()).await?))
}

#[utoipa::path(get, path = "/api/engines/{name}/agents", params(("name" = String, Path)), responses(
    (status = 200, description = "The engine's agents as last listed: tools with approval flags and schemas (JSON Schema), sub-agents", body = Value),
    (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn agents(State(state): State<ApiState>, caller: Caller, Path(name): Path<String>) -> ApiResult<Json<Value>> {
    Ok(Json(state.app.engine_agents(&name, &caller.web())?))
}

#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list, add, edit, remove, test, sync, agents),
    components(schemas(
        EngineView,
        NewEngine,
        EngineChanges,
        EngineTest,
        EngineTestResult,
        SyncAnswer,
        SyncReport,
        HealthReport,
        crate::store::engines::Health
    ))
)]
pub struct EnginesDoc;
