//! Notification status and settings over HTTP.

use super::error::{ApiResult, ErrorBody};
use super::{ApiState, Caller};
use crate::notify::settings::{NotificationSettings, QuietHours};
use crate::notify::NotifyStatus;
use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};

pub fn routes() -> Router<ApiState> {
    Router::new().route("/api/notifications/status", get(status)).route("/api/settings/notifications", get(get_settings).put(put_settings))
}

#[utoipa::path(get, path = "/api/notifications/status", responses(
    (status = 200, description = "Whether this process shows desktop notifications and whether they work", body = NotifyStatus), (status = 401, body = ErrorBody)))]
async fn status(State(state): State<ApiState>, caller: Caller) -> ApiResult<Json<NotifyStatus>> {
    Ok(Json(state.app.notification_status(&caller.web())?))
}

#[utoipa::path(get, path = "/api/settings/notifications", responses((status = 200, body = NotificationSettings), (status = 401, body = ErrorBody)))]
async fn get_settings(State(state): State<ApiState>, caller: Caller) -> ApiResult<Json<NotificationSettings>> {
    Ok(Json(state.app.notification_settings(&caller.web()).await?))
}

#[utoipa::path(put, path = "/api/settings/notifications", request_body = NotificationSettings, responses(
    (status = 200, description = "Stored; applies to the next new call", body = NotificationSettings), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn put_settings(
    State(state): State<ApiState>,
    caller: Caller,
    body: Result<Json<NotificationSettings>, JsonRejection>,
) -> ApiResult<Json<NotificationSettings>> {
    let Json(settings) = body?;
    Ok(Json(state.app.save_notification_settings(settings, &caller.web()).await?))
}

#[derive(utoipa::OpenApi)]
#[openapi(paths(status, get_settings, put_settings), components(schemas(NotifyStatus, NotificationSettings, QuietHours)))]
pub struct NotificationsDoc;
