//! The console API: the queue, decisions, live events, the audit log, health, and its OpenAPI document.

use super::error::{ApiError, ApiResult, ErrorBody};
use super::ApiState;
use crate::console::{Change, QueueEvent};
use crate::domain::{
    CallKind, ChainLink, DecisionKind, DecisionRequest, Delivery, Fingerprint, ItemId, ItemState, Verdict,
};
use crate::store::{audit, queue};
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use futures::Stream;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::convert::Infallible;
use std::time::Duration;
use utoipa::OpenApi;

pub fn routes() -> Router<ApiState> {
    Router::new()
        .route("/api/health", get(health))
        .route("/api/openapi.json", get(openapi))
        .route("/api/queue", get(list_queue))
        .route("/api/queue/{id}", get(get_item))
        .route("/api/queue/{id}/approve", post(approve))
        .route("/api/queue/{id}/decline", post(decline))
        .route("/api/queue/{id}/resume", post(resume))
        .route("/api/events", get(events))
        .route("/api/audit", get(list_audit))
        .route("/api/audit/verify", get(verify_audit))
}

/// A queue entry as the API shows it (C2).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueItem {
    pub id: String,
    pub engine: String,
    pub agent_id: String,
    #[schema(required = true)]
    pub agent_name: Option<String>,
    #[schema(required = true)]
    pub thread_id: Option<String>,
    #[schema(required = true)]
    pub resource_id: Option<String>,
    pub run_id: String,
    pub tool_call_id: String,
    pub tool_name: String,
    /// The arguments exactly as stored; untrusted data.
    pub args: Value,
    pub fingerprint: Fingerprint,
    pub kind: CallKind,
    #[schema(required = true)]
    pub suspend_payload: Option<Value>,
    /// JSON Schema of the resume data (kind `suspend`).
    #[schema(required = true)]
    pub resume_schema: Option<Value>,
    /// Supervisor path, outermost first (S13); empty for a direct call.
    pub chain: Vec<ChainLink>,
    pub state: ItemState,
    pub paused_at: DateTime<Utc>,
    /// The decisions this call allows.
    pub allowed: Vec<DecisionKind>,
    #[schema(required = true)]
    pub decision: Option<DecisionView>,
}

/// The decision taken on an entry, with its delivery.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionView {
    pub kind: DecisionKind,
    #[schema(required = true)]
    pub reason: Option<String>,
    #[schema(required = true)]
    pub data: Option<Value>,
    pub fingerprint: Fingerprint,
    pub operator: String,
    pub decided_at: DateTime<Utc>,
    pub delivery: Delivery,
    /// What the engine answered (the tool's result, a decline, a block, an error).
    #[schema(required = true)]
    pub outcome: Option<Value>,
    /// Delivery attempts so far.
    pub attempts: u32,
    /// Why the last delivery attempt failed (the engine was unreachable, …).
    #[schema(required = true)]
    pub last_error: Option<String>,
    /// When a deferred delivery is tried next.
    #[schema(required = true)]
    pub next_attempt_at: Option<DateTime<Utc>>,
}

impl QueueItem {
    fn from_entry(e: queue::Entry, state: &ApiState) -> Self {
        let q = e.queued;
        let allowed = if q.state == ItemState::Pending { state.app.console.allowed(&q.call) } else { vec![] };
        let decision = e.decision.map(|d| {
            let (kind, reason, data) = match d.verdict {
                Verdict::Approve => (DecisionKind::Approve, None, None),
                Verdict::Decline { reason } => (DecisionKind::Decline, reason, None),
                Verdict::Resume { data } => (DecisionKind::Resume, None, Some(data)),
            };
            DecisionView {
                kind,
                reason,
                data,
                fingerprint: d.fingerprint,
                operator: d.operator,
                decided_at: d.decided_at,
                delivery: d.delivery,
                outcome: d.outcome,
                attempts: d.attempts,
                last_error: d.last_error,
                next_attempt_at: d.next_attempt_at,
            }
        });
        let c = q.call;
        Self {
            id: q.id.to_string(),
            engine: c.engine.to_string(),
            agent_id: c.agent_id.to_string(),
            agent_name: c.agent_name,
            thread_id: c.thread_id,
            resource_id: c.resource_id,
            run_id: c.run_id.to_string(),
            tool_call_id: c.tool_call_id.to_string(),
            tool_name: c.tool_name,
            args: c.args,
            fingerprint: c.fingerprint,
            kind: c.kind,
            suspend_payload: c.suspend_payload,
            resume_schema: c.resume_schema,
            chain: c.chain,
            state: q.state,
            paused_at: q.paused_at,
            allowed,
            decision,
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueuePage {
    pub items: Vec<QueueItem>,
    /// Pass as `cursor` for the next page; null on the last page.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct QueueQuery {
    /// `pending` (default), `decided`, `delivered`, `failed`, `interrupted`, `gone`, or `all`.
    state: Option<String>,
    engine: Option<String>,
    agent: Option<String>,
    tool: Option<String>,
    /// `approval` or `suspend`.
    kind: Option<String>,
    thread: Option<String>,
    run: Option<String>,
    /// 1–500, default 50.
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u32>,
    /// `nextCursor` of the previous page.
    cursor: Option<String>,
}

fn parse_cursor(cursor: Option<&str>) -> ApiResult<Option<i64>> {
    cursor
        .filter(|c| !c.is_empty())
        .map(|c| c.parse::<i64>().map_err(|_| ApiError::invalid(format!("bad cursor {c:?}"))))
        .transpose()
}

/// `{status: "ok", version}`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Health {
    pub status: &'static str,
    pub version: &'static str,
}

#[utoipa::path(get, path = "/api/health", security(()), responses((status = 200, description = "The server is up", body = Health)))]
async fn health() -> Json<Health> {
    Json(Health { status: "ok", version: env!("CARGO_PKG_VERSION") })
}

#[utoipa::path(get, path = "/api/queue", params(QueueQuery),
    responses((status = 200, description = "Newest first", body = QueuePage), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn list_queue(State(state): State<ApiState>, Query(q): Query<QueueQuery>) -> ApiResult<Json<QueuePage>> {
    let item_state = match q.state.as_deref().unwrap_or("pending") {
        "all" => None,
        s => Some(serde_json::from_value::<ItemState>(Value::String(s.into())).map_err(|_| ApiError::invalid(format!("unknown state {s:?}")))?),
    };
    let kind = q
        .kind
        .as_deref()
        .filter(|k| !k.is_empty())
        .map(|k| serde_json::from_value::<CallKind>(Value::String(k.into())).map_err(|_| ApiError::invalid(format!("unknown kind {k:?}"))))
        .transpose()?;
    let nonempty = |v: Option<String>| v.filter(|s| !s.is_empty());
    let filter = queue::Filter {
        state: item_state,
        engine: nonempty(q.engine),
        agent: nonempty(q.agent),
        tool: nonempty(q.tool),
        kind,
        run: nonempty(q.run),
        thread: nonempty(q.thread),
    };
    let cursor = parse_cursor(q.cursor.as_deref())?;
    let mut conn = state.app.db.pool().acquire().await.map_err(crate::domain::Error::from)?;
    let page = queue::list(&mut conn, &filter, cursor, q.limit.unwrap_or(50)).await?;
    Ok(Json(QueuePage {
        items: page.entries.into_iter().map(|e| QueueItem::from_entry(e, &state)).collect(),
        next_cursor: page.next_cursor.map(|c| c.to_string()),
    }))
}

#[utoipa::path(get, path = "/api/queue/{id}", params(("id" = String, Path)),
    responses((status = 200, description = "The call", body = QueueItem), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn get_item(State(state): State<ApiState>, Path(id): Path<String>) -> ApiResult<Json<QueueItem>> {
    let entry = state.app.console.item(&ItemId::new(id)).await?;
    Ok(Json(QueueItem::from_entry(entry, &state)))
}

/// `{fingerprint}`: the fingerprint that was on screen (C3).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ApproveBody {
    fingerprint: String,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct DeclineBody {
    fingerprint: String,
    reason: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ResumeBody {
    fingerprint: String,
    /// Validated against the call's resume schema.
    data: Value,
}

fn parse_fingerprint(text: &str) -> ApiResult<Fingerprint> {
    Fingerprint::parse(text).ok_or_else(|| ApiError::invalid("fingerprint must be \"sha256:\" followed by 64 lowercase hex digits"))
}

async fn decide(state: &ApiState, id: String, verdict: Verdict, fingerprint: &str) -> ApiResult<Json<QueueItem>> {
    let request = DecisionRequest { verdict, fingerprint: parse_fingerprint(fingerprint)?, operator: state.app.operator("web") };
    let entry = state.app.console.decide_and_deliver(&ItemId::new(id), request).await?;
    Ok(Json(QueueItem::from_entry(entry, state)))
}

#[utoipa::path(post, path = "/api/queue/{id}/approve", params(("id" = String, Path)), request_body = ApproveBody,
    responses((status = 200, description = "Decided; the call as it is after delivery", body = QueueItem), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, description = "fingerprint_mismatch, already_decided or decision_not_allowed", body = ErrorBody),
        (status = 503, description = "storage_busy", body = ErrorBody)))]
async fn approve(State(state): State<ApiState>, Path(id): Path<String>, body: Result<Json<ApproveBody>, JsonRejection>) -> ApiResult<Json<QueueItem>> {
    let Json(body) = body?;
    decide(&state, id, Verdict::Approve, &body.fingerprint).await
}

#[utoipa::path(post, path = "/api/queue/{id}/decline", params(("id" = String, Path)), request_body = DeclineBody,
    responses((status = 200, description = "Decided; the call as it is after delivery", body = QueueItem), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, description = "fingerprint_mismatch, already_decided or decision_not_allowed", body = ErrorBody),
        (status = 503, description = "storage_busy", body = ErrorBody)))]
async fn decline(State(state): State<ApiState>, Path(id): Path<String>, body: Result<Json<DeclineBody>, JsonRejection>) -> ApiResult<Json<QueueItem>> {
    let Json(body) = body?;
    let reason = body.reason.map(|r| r.trim().to_owned()).filter(|r| !r.is_empty());
    decide(&state, id, Verdict::Decline { reason }, &body.fingerprint).await
}

#[utoipa::path(post, path = "/api/queue/{id}/resume", params(("id" = String, Path)), request_body = ResumeBody,
    responses((status = 200, description = "Decided; the call as it is after delivery", body = QueueItem), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, description = "fingerprint_mismatch, already_decided or decision_not_allowed", body = ErrorBody),
        (status = 422, description = "invalid_resume_data, with the failing JSON paths", body = ErrorBody), (status = 503, description = "storage_busy", body = ErrorBody)))]
async fn resume(State(state): State<ApiState>, Path(id): Path<String>, body: Result<Json<ResumeBody>, JsonRejection>) -> ApiResult<Json<QueueItem>> {
    let Json(body) = body?;
    decide(&state, id, Verdict::Resume { data: body.data }, &body.fingerprint).await
}

/// Server-Sent Events: `queue` events `{type: added|updated, id}`; `resync` when this listener fell
/// behind and should reload. Ends when the server stops.
#[utoipa::path(get, path = "/api/events", responses(
    (status = 200, description = "Server-Sent Events. `event: ready` (data `{}`) once connected; `event: queue` with a QueueEvent as data; `event: resync` (data `{}`) when this listener fell behind and must reload.", content_type = "text/event-stream", body = QueueEvent),
    (status = 401, body = ErrorBody)))]
async fn events(State(state): State<ApiState>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let mut rx = state.app.events.subscribe();
    let stop = super::stopped(state.shutdown.clone());
    let stream = async_stream::stream! {
        tokio::pin!(stop);
        yield Ok(Event::default().event("ready").data("{}"));
        loop {
            tokio::select! {
                received = rx.recv() => match received {
                    Ok(event) => yield Ok(Event::default().event("queue").json_data(&event).expect("event serializes")),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => yield Ok(Event::default().event("resync").data("{}")),
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                },
                _ = &mut stop => break,
            }
        }
    };
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    /// Only entries of this queue item.
    item: Option<String>,
    /// 1–500, default 50.
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u32>,
    /// `nextCursor` of the previous page.
    cursor: Option<String>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditPage {
    pub entries: Vec<audit::Entry>,
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

#[utoipa::path(get, path = "/api/audit", params(AuditQuery), responses((status = 200, description = "Newest first", body = AuditPage), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn list_audit(State(state): State<ApiState>, Query(q): Query<AuditQuery>) -> ApiResult<Json<AuditPage>> {
    let cursor = parse_cursor(q.cursor.as_deref())?;
    let mut conn = state.app.db.pool().acquire().await.map_err(crate::domain::Error::from)?;
    let (entries, next) = audit::list(&mut conn, q.item.as_deref(), cursor, q.limit.unwrap_or(50)).await?;
    Ok(Json(AuditPage { entries, next_cursor: next.map(|n| n.to_string()) }))
}

#[utoipa::path(get, path = "/api/audit/verify", responses((status = 200, description = "The result of walking the whole chain", body = audit::Verification), (status = 401, body = ErrorBody)))]
async fn verify_audit(State(state): State<ApiState>) -> ApiResult<Json<audit::Verification>> {
    let mut conn = state.app.db.pool().acquire().await.map_err(crate::domain::Error::from)?;
    Ok(Json(audit::verify(&mut conn).await?))
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
    info(title = "Approval Console API", description = "Console API. Every route but /api/health needs `Authorization: Bearer <token>`. Errors are `{code, message, details?}`."),
    paths(health, openapi, list_queue, get_item, approve, decline, resume, events, list_audit, verify_audit),
    components(schemas(Health, QueueItem, QueuePage, DecisionView, ErrorBody, ApproveBody, DeclineBody, ResumeBody, AuditPage,
        audit::Entry, audit::Verification, audit::BadEntry, QueueEvent, Change, ChainLink, CallKind, ItemState, DecisionKind, Delivery))
)]
pub struct ApiDoc;

/// The OpenAPI document of the console API, derived from the Rust types.
pub fn openapi_document() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.merge(<super::engines::EnginesDoc as OpenApi>::openapi());
    doc.merge(<super::notifications::NotificationsDoc as OpenApi>::openapi());
    doc
}

#[utoipa::path(get, path = "/api/openapi.json", responses((status = 200, description = "This document", content_type = "application/json"), (status = 401, body = ErrorBody)))]
async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(openapi_document())
}
