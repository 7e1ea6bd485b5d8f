//! "Always allow" grants over HTTP.

use super::error::{ApiResult, ErrorBody};
use super::{ApiState, Caller};
use crate::console::grants::{Condition, ConditionOp, CreatedGrant, Grant, GrantPreview, GrantScope, NewGrant};
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};

pub fn routes() -> Router<ApiState> {
    Router::new()
        .route("/api/grants", get(list).post(create))
        .route("/api/grants/preview", post(preview))
        .route("/api/grants/{id}/revoke", post(revoke))
}

#[utoipa::path(get, path = "/api/grants", operation_id = "list_grants", responses((status = 200, description = "Every grant, newest first (revoked and expired ones too)", body = Vec<Grant>), (status = 401, body = ErrorBody)))]
async fn list(State(state): State<ApiState>, caller: Caller) -> ApiResult<Json<Vec<Grant>>> {
    Ok(Json(state.app.grants(&caller.web()).await?))
}

#[utoipa::path(post, path = "/api/grants", operation_id = "create_grant", request_body = NewGrant, responses(
    (status = 201, description = "Made; it applies at once, also to the calls already waiting unless `applyToWaiting` is false: `approvesWaiting` says how many", body = CreatedGrant),
    (status = 400, description = "invalid_request: lifetime, conditions, a suspend call", body = ErrorBody), (status = 401, body = ErrorBody),
    (status = 404, body = ErrorBody), (status = 409, description = "high_risk_tool or fingerprint_mismatch", body = ErrorBody)))]
async fn create(
    State(state): State<ApiState>,
    caller: Caller,
    body: Result<Json<NewGrant>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<CreatedGrant>)> {
    let Json(new) = body?;
    Ok((StatusCode::CREATED, Json(state.app.create_grant(&new, &caller.web()).await?)))
}

#[utoipa::path(post, path = "/api/grants/preview", operation_id = "preview_grant", request_body = NewGrant, responses(
    (status = 200, description = "What the grant would do if it were made now: how many waiting calls it would approve at once; nothing is stored", body = GrantPreview),
    (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
    (status = 409, description = "high_risk_tool or fingerprint_mismatch", body = ErrorBody)))]
async fn preview(
    State(state): State<ApiState>,
    caller: Caller,
    body: Result<Json<NewGrant>, JsonRejection>,
) -> ApiResult<Json<GrantPreview>> {
    let Json(new) = body?;
    Ok(Json(state.app.preview_grant(&new, &caller.web()).await?))
}

#[utoipa::path(post, path = "/api/grants/{id}/revoke", operation_id = "revoke_grant", params(("id" = String, Path)), responses(
    (status = 200, body = Grant), (status = 400, description = "already revoked", body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn revoke(State(state): State<ApiState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<Grant>> {
    Ok(Json(state.app.revoke_grant(&id, &caller.web()).await?))
}

#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list, create, preview, revoke),
    components(schemas(Grant, NewGrant, CreatedGrant, GrantPreview, GrantScope, Condition, ConditionOp))
)]
pub struct GrantsDoc;
