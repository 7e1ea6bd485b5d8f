//! Time limits for undecided calls, and snoozes, over HTTP.

use super::error::{ApiResult, ErrorBody};
use super::{ApiState, Caller};
use crate::app::queue::QueueItem;
use crate::console::expiry::{ExpiryRule, ExpirySettings};
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;

pub fn routes() -> Router<ApiState> {
    Router::new().route("/api/settings/expiry", get(get_settings).put(put_settings)).route("/api/queue/{id}/snooze", post(snooze))
}

#[utoipa::path(get, path = "/api/settings/expiry", operation_id = "get_expiry_settings", responses((status = 200, body = ExpirySettings), (status = 401, body = ErrorBody)))]
async fn get_settings(State(state): State<ApiState>, caller: Caller) -> ApiResult<Json<ExpirySettings>> {
    Ok(Json(state.app.expiry_settings(&caller.web()).await?))
}

#[utoipa::path(put, path = "/api/settings/expiry", operation_id = "put_expiry_settings", request_body = ExpirySettings, responses(
    (status = 200, description = "Stored; the expiry worker applies it within seconds, also to calls already waiting", body = ExpirySettings),
    (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn put_settings(
    State(state): State<ApiState>,
    caller: Caller,
    body: Result<Json<ExpirySettings>, JsonRejection>,
) -> ApiResult<Json<ExpirySettings>> {
    let Json(settings) = body?;
    Ok(Json(state.app.save_expiry_settings(&settings, &caller.web()).await?))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SnoozeBody {
    /// The new deadline, in seconds from now (60 s – 30 days); never earlier than the current one.
    pub secs: u64,
}

#[utoipa::path(post, path = "/api/queue/{id}/snooze", operation_id = "snooze", params(("id" = String, Path)), request_body = SnoozeBody, responses(
    (status = 200, description = "The call with its new deadline (`expiresAt`)", body = QueueItem),
    (status = 400, description = "invalid_request: no time limit applies to this call, or secs out of range", body = ErrorBody),
    (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "already_decided", body = ErrorBody)))]
async fn snooze(
    State(state): State<ApiState>,
    caller: Caller,
    Path(id): Path<String>,
    body: Result<Json<SnoozeBody>, JsonRejection>,
) -> ApiResult<Json<QueueItem>> {
    let Json(body) = body?;
    Ok(Json(state.app.snooze(&id, body.secs, &caller.web()).await?))
}

#[derive(utoipa::OpenApi)]
#[openapi(paths(get_settings, put_settings, snooze), components(schemas(ExpirySettings, ExpiryRule, SnoozeBody)))]
pub struct ExpiryDoc;
