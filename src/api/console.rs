//! The console API's hand-written routes — health, live events (SSE), the streamed audit export, metrics —
//! and its OpenAPI document (the declared operations' routes are in `api::operations`).

use super::error::{ApiResult, ErrorBody};
use super::{ApiQuery, ApiState, By};
use crate::app::audit::ExportFormat;
use crate::app::query::{SortOrder, StateFilter, TabFilter};
use crate::console::{Change, QueueEvent};
use crate::domain::audit::AuditAction;
use crate::domain::grade;

use crate::domain::PrincipalKind;
use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::get;
use axum::{Json, Router};
use futures::Stream;
use serde::{Deserialize, Serialize};
use std::convert::Infallible;
use std::time::Duration;
use utoipa::OpenApi;

pub fn routes() -> Router<ApiState> {
    Router::new()
        .route("/api/health", get(health))
        .route("/.well-known/jwks.json", get(receipt_keys))
        .route("/api/openapi.json", get(openapi))
        .route("/api/events", get(events))
        .route("/api/audit/export", get(export_audit))
        .route("/api/metrics", get(metrics))
}

/// Prometheus text format: queue depth by engine and state, decisions by verdict and delivery,
/// engine health, and the store's writes and commits.
#[utoipa::path(get, path = "/api/metrics",
    responses((status = 200, description = "Prometheus text exposition format 0.0.4", content_type = "text/plain; version=0.0.4", body = String), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn metrics(State(state): State<ApiState>, By(by): By<grade::Viewer>) -> ApiResult<axum::response::Response> {
    let text = state.app.metrics(&by).await?;
    Ok(axum::response::Response::builder()
        .header(axum::http::header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")
        .header(axum::http::header::CACHE_CONTROL, "no-store")
        .body(axum::body::Body::from(text))
        .expect("static headers are valid"))
}

/// `{status: "ok", version}`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Health {
    pub status: &'static str,
    pub version: &'static str,
}

/// The public keys that sign decision receipts (docs/receipts.md): a JSON Web Key Set, every
/// console's keys (a team's included), a retired key marked `retiredAt`.
#[utoipa::path(get, path = "/.well-known/jwks.json", security(()), responses((status = 200, description = "The receipts' public keys", body = crate::domain::receipt::Jwks)))]
async fn receipt_keys(State(state): State<ApiState>) -> ApiResult<Json<crate::domain::receipt::Jwks>> {
    Ok(Json(state.app.receipt_keys().await?))
}

#[utoipa::path(get, path = "/api/health", security(()), responses((status = 200, description = "The server is up", body = Health)))]
async fn health() -> Json<Health> {
    Json(Health { status: "ok", version: env!("CARGO_PKG_VERSION") })
}

/// How often an open event stream of a stored credential checks that it was not revoked.
const STILL_VALID_EVERY: Duration = Duration::from_secs(1);

/// Server-Sent Events: `queue` events `{type: added|updated, id}`; `resync` when this listener fell
/// behind and should reload. Ends when the server stops, and — for a stored credential — within
/// [`STILL_VALID_EVERY`] of its revocation (the session token cannot be revoked).
#[utoipa::path(get, path = "/api/events", responses(
    (status = 200, description = "Server-Sent Events. `event: ready` (data `{}`) once connected; `event: queue` with a QueueEvent as data; `event: resync` (data `{}`) when this listener fell behind and must reload.", content_type = "text/event-stream", body = QueueEvent),
    (status = 401, body = ErrorBody)))]
async fn events(
    State(state): State<ApiState>,
    By(by): By<grade::Watch>,
    headers: axum::http::HeaderMap,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let mut rx = state.app.subscribe(&by);
    let stop = super::stopped(state.shutdown.clone());
    // The token the guard accepted, to ask again whether it still holds (a stored credential only).
    let secret = match by.principal.kind {
        PrincipalKind::Token => Some(super::guard::bearer(&headers).to_owned()),
        PrincipalKind::Device => Some(super::remote::cookie(&headers).to_owned()),
        PrincipalKind::Local => None,
    }
    .filter(|s| !s.is_empty());
    let device = by.principal.kind == PrincipalKind::Device;
    let app = state.app.clone();
    let stream = async_stream::stream! {
        tokio::pin!(stop);
        let mut check = tokio::time::interval(STILL_VALID_EVERY);
        check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        yield Ok(Event::default().event("ready").data("{}"));
        loop {
            tokio::select! {
                received = rx.recv() => match received {
                    Ok(event) => yield Ok(Event::default().event("queue").json_data(&event).expect("event serializes")),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => yield Ok(Event::default().event("resync").data("{}")),
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                },
                _ = check.tick(), if secret.is_some() => {
                    let secret = secret.as_deref().unwrap_or_default();
                    let valid = if device { app.device_session(secret).await.map(|p| p.is_some()) } else { app.token_still_valid(secret).await };
                    match valid {
                        Ok(true) => {}
                        Ok(false) => break,
                        // The database did not answer: ask again at the next tick rather than cut a
                        // stream whose credential may well be fine.
                        Err(e) => tracing::debug!("cannot check an event stream's credential: {e}"),
                    }
                }
                _ = &mut stop => break,
            }
        }
    };
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// `?format=jsonl|csv`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExportQuery {
    /// `jsonl` (the entries as `GET /api/audit` answers them, one per line) or `csv`.
    #[param(required = true)]
    format: Option<String>,
}

#[utoipa::path(get, path = "/api/audit/export", params(ExportQuery), responses(
    (status = 200, description = "The whole audit log, oldest first, as it stood when the export started; streamed, as an attachment. JSON Lines: one AuditEntry per line. CSV (RFC 4180, CRLF): a header, then seq, at, actor, action, queueItemId, toolName, fingerprint, details (JSON), prevHash, hash; cells starting with = + - @ tab or CR are prefixed with ' so a spreadsheet shows them as text (check hashes on the JSON Lines export).",
        content((String = "application/x-ndjson"), (String = "text/csv"))),
    (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn export_audit(
    State(state): State<ApiState>,
    By(by): By<grade::Operator>,
    ApiQuery(q): ApiQuery<ExportQuery>,
) -> ApiResult<axum::response::Response> {
    use axum::http::header;
    use futures::StreamExt;
    let format = ExportFormat::parse(q.format.as_deref().unwrap_or_default())?;
    let stream = state.app.export_audit(format, &by)?.map(|chunk| chunk.map(axum::body::Bytes::from).map_err(std::io::Error::other));
    let disposition = format!("attachment; filename=\"{}\"", format.file_name());
    Ok(axum::response::Response::builder()
        .header(header::CONTENT_TYPE, format.content_type())
        .header(header::CONTENT_DISPOSITION, disposition)
        .header(header::CACHE_CONTROL, "no-store")
        .body(axum::body::Body::from_stream(stream))
        .expect("static headers are valid"))
}

/// Declares the bearer token scheme and requires it everywhere (health opts out).
struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme("bearer", SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()));
        doc.security = Some(vec![SecurityRequirement::new("bearer", Vec::<String>::new())]);
    }
}

#[derive(OpenApi)]
#[openapi(
    modifiers(&BearerAuth),
    info(title = "Approval Console API", description = "Console API. Every route but /api/health needs `Authorization: Bearer <token>`, and the role its credential has: `agent` or `viewer` (beside each other: neither may use the routes of the other) < `operator` < `admin` (403 `forbidden` otherwise; see GET /api/session). Errors are `{code, message, details?}`."),
    paths(health, receipt_keys, openapi, events, export_audit, metrics),
    // The schemas of the routes written here; the declared operations bring theirs (`api::operations`).
    components(schemas(Health, ErrorBody, AuditAction, StateFilter, TabFilter, SortOrder, ExportFormat, QueueEvent, Change))
)]
pub struct ApiDoc;

/// The OpenAPI document of the console API, derived from the Rust types.
pub fn openapi_document() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.merge(<super::calls::CallsDoc as OpenApi>::openapi());
    super::operations::document(&mut doc);
    doc
}

#[utoipa::path(get, path = "/api/openapi.json", responses((status = 200, description = "This document", content_type = "application/json"), (status = 401, body = ErrorBody)))]
async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(openapi_document())
}
