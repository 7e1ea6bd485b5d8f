//! Presence over HTTP: an open detail's heartbeat, and its goodbye.

use super::error::{ApiResult, ErrorBody};
use super::{ApiState, Caller};
use crate::app::presence::{Presence, Viewer};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use utoipa::OpenApi;

pub fn routes() -> Router<ApiState> {
    Router::new().route("/api/queue/{id}/viewers", post(viewing).delete(stop_viewing))
}

/// The caller has the call open (say so every `heartbeatSecs` while it stays open): who else has.
#[utoipa::path(post, path = "/api/queue/{id}/viewers", operation_id = "viewing", params(("id" = String, Path)), responses(
    (status = 200, description = "Recorded; the others who have the call open, on any console of the team", body = Presence),
    (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn viewing(State(state): State<ApiState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<Presence>> {
    Ok(Json(state.app.viewing(&id, &caller.web()).await?))
}

/// The caller closed the call: the others stop seeing them at once.
#[utoipa::path(delete, path = "/api/queue/{id}/viewers", operation_id = "stop_viewing", params(("id" = String, Path)), responses(
    (status = 204, description = "No longer listed (also when the caller was not)"),
    (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn stop_viewing(State(state): State<ApiState>, caller: Caller, Path(id): Path<String>) -> ApiResult<StatusCode> {
    state.app.stop_viewing(&id, &caller.web()).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(OpenApi)]
#[openapi(paths(viewing, stop_viewing), components(schemas(Presence, Viewer)))]
pub struct PresenceDoc;
