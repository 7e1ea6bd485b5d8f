//! Safety settings over HTTP: the high-risk tools.

use super::error::{ApiResult, ErrorBody};
use super::{ApiState, Caller};
use crate::domain::safety::SafetySettings;
use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};

pub fn routes() -> Router<ApiState> {
    Router::new().route("/api/settings/safety", get(get_settings).put(put_settings))
}

#[utoipa::path(get, path = "/api/settings/safety", operation_id = "get_safety_settings", responses((status = 200, body = SafetySettings), (status = 401, body = ErrorBody)))]
async fn get_settings(State(state): State<ApiState>) -> ApiResult<Json<SafetySettings>> {
    Ok(Json(state.app.safety_settings().await?))
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

#[derive(utoipa::OpenApi)]
#[openapi(paths(get_settings, put_settings), components(schemas(SafetySettings)))]
pub struct SafetyDoc;
