//! Safety settings over HTTP: the high-risk tools, and the quorums of the two-person rule.

use super::error::{ApiResult, ErrorBody};
use super::{ApiState, Caller};
use crate::domain::safety::{QuorumRule, QuorumSettings, SafetySettings};
use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};

pub fn routes() -> Router<ApiState> {
    Router::new()
        .route("/api/settings/safety", get(get_settings).put(put_settings))
        .route("/api/settings/quorum", get(get_quorum).put(put_quorum))
}

#[utoipa::path(get, path = "/api/settings/safety", operation_id = "get_safety_settings", responses((status = 200, body = SafetySettings), (status = 401, body = ErrorBody)))]
async fn get_settings(State(state): State<ApiState>, caller: Caller) -> ApiResult<Json<SafetySettings>> {
    Ok(Json(state.app.safety_settings(&caller.web()).await?))
}

#[utoipa::path(put, path = "/api/settings/safety", operation_id = "put_safety_settings", request_body = SafetySettings, responses(
    (status = 200, description = "Stored; applies at once (confirm steps, notifications, grants, the Mastra-shaped routes)", body = SafetySettings),
    (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn put_settings(
    State(state): State<ApiState>,
    caller: Caller,
    body: Result<Json<SafetySettings>, JsonRejection>,
) -> ApiResult<Json<SafetySettings>> {
    let Json(settings) = body?;
    Ok(Json(state.app.save_safety_settings(settings, &caller.web()).await?))
}

#[utoipa::path(get, path = "/api/settings/quorum", operation_id = "get_quorum_settings", responses((status = 200, body = QuorumSettings), (status = 401, body = ErrorBody)))]
async fn get_quorum(State(state): State<ApiState>, caller: Caller) -> ApiResult<Json<QuorumSettings>> {
    Ok(Json(state.app.quorum_settings(&caller.web()).await?))
}

#[utoipa::path(put, path = "/api/settings/quorum", operation_id = "put_quorum_settings", request_body = QuorumSettings, responses(
    (status = 200, description = "Stored; applies at once, to waiting calls too (their approvals so far count), and to grants (a grant of a tool with a quorum is not used)", body = QuorumSettings),
    (status = 400, description = "invalid_request: a rule without a tool, a tool named twice, approvals outside 2–10", body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn put_quorum(
    State(state): State<ApiState>,
    caller: Caller,
    body: Result<Json<QuorumSettings>, JsonRejection>,
) -> ApiResult<Json<QuorumSettings>> {
    let Json(settings) = body?;
    Ok(Json(state.app.save_quorum_settings(settings, &caller.web()).await?))
}

#[derive(utoipa::OpenApi)]
#[openapi(paths(get_settings, put_settings, get_quorum, put_quorum), components(schemas(SafetySettings, QuorumSettings, QuorumRule)))]
pub struct SafetyDoc;
