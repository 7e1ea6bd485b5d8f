//! The console API: the queue, decisions, live events, the audit log, health, and its OpenAPI document.

use super::error::{ApiResult, ErrorBody};
use super::{ApiQuery, ApiState, Caller};
use crate::app::audit::AuditPage;
use crate::app::audit::{DecisionHistory, DecisionRecord, ExportFormat, HistoryQuery};
use crate::app::query::{AuditQuery, QueueCountsQuery, QueueQuery, SortOrder, StateFilter, TabFilter};
use crate::app::queue::{ApprovalView, Blocked, DecisionView, PreviousCall, QueueCounts, QueueItem, QueuePage, QueueTab};
use crate::app::stats::{DecisionCounts, OperatorStats, PendingPoint, StatsQuery, TeamStats, ToolStats};
use crate::console::{Change, QueueEvent};
use crate::domain::audit::AuditAction;
use crate::domain::Op;
use crate::domain::{
    CallKind, ChainLink, DecisionKind, Delivery, ItemState, PauseKind, PauseReason, Principal, PrincipalKind, Role, Verdict,
};
use crate::store::audit;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::Stream;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::convert::Infallible;
use std::time::Duration;
use utoipa::OpenApi;

pub fn routes() -> Router<ApiState> {
    Router::new()
        .route("/api/health", get(health))
        .route("/api/session", get(session))
        .route("/api/openapi.json", get(openapi))
        .route("/api/queue", get(list_queue))
        .route("/api/queue/counts", get(queue_counts))
        .route("/api/queue/{id}", get(get_item))
        .route("/api/queue/{id}/previous", get(previous_call))
        .route("/api/queue/{id}/approve", post(approve))
        .route("/api/queue/{id}/decline", post(decline))
        .route("/api/queue/{id}/resume", post(resume))
        .route("/api/queue/{id}/approve-edited", post(approve_edited))
        .route("/api/queue/{id}/resolve", post(resolve))
        .route("/api/events", get(events))
        .route("/api/audit", get(list_audit))
        .route("/api/audit/verify", get(verify_audit))
        .route("/api/audit/decisions", get(decision_history))
        .route("/api/audit/export", get(export_audit))
        .route("/api/metrics", get(metrics))
        .route("/api/stats", get(stats))
}

/// Prometheus text format: queue depth by engine and state, decisions by verdict and delivery,
/// engine health, and the store's writes and commits.
#[utoipa::path(get, path = "/api/metrics",
    responses((status = 200, description = "Prometheus text exposition format 0.0.4", content_type = "text/plain; version=0.0.4", body = String), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn metrics(State(state): State<ApiState>, caller: Caller) -> ApiResult<axum::response::Response> {
    let text = state.app.metrics(&caller.web()).await?;
    Ok(axum::response::Response::builder()
        .header(axum::http::header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")
        .header(axum::http::header::CACHE_CONTROL, "no-store")
        .body(axum::body::Body::from(text))
        .expect("static headers are valid"))
}

/// The team's figures over the last `days` days: decisions by outcome, time to decision per tool
/// and per operator, pending calls hour by hour.
#[utoipa::path(get, path = "/api/stats", params(StatsQuery),
    responses((status = 200, description = "The period's figures", body = TeamStats),
        (status = 400, description = "invalid_request: days is not a whole number from 1 to 90", body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn stats(State(state): State<ApiState>, caller: Caller, ApiQuery(q): ApiQuery<StatsQuery>) -> ApiResult<Json<TeamStats>> {
    Ok(Json(state.app.stats(q.days()?, &caller.web()).await?))
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

/// Who the presented token stands for: its name and role (the UI offers only what the role may do).
#[utoipa::path(get, path = "/api/session", responses((status = 200, description = "The caller", body = Principal), (status = 401, body = ErrorBody)))]
async fn session(caller: Caller) -> Json<Principal> {
    Json(caller.0)
}

#[utoipa::path(get, path = "/api/queue", params(QueueQuery),
    responses((status = 200, description = "Newest first", body = QueuePage), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn list_queue(State(state): State<ApiState>, caller: Caller, ApiQuery(q): ApiQuery<QueueQuery>) -> ApiResult<Json<QueuePage>> {
    Ok(Json(state.app.queue_page(&q, &caller.web()).await?))
}

#[utoipa::path(get, path = "/api/queue/counts", params(QueueCountsQuery),
    responses((status = 200, description = "Calls per tab of the queue view under these filters and search", body = QueueCounts), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn queue_counts(
    State(state): State<ApiState>,
    caller: Caller,
    ApiQuery(q): ApiQuery<QueueCountsQuery>,
) -> ApiResult<Json<QueueCounts>> {
    Ok(Json(state.app.queue_counts(&q, &caller.web()).await?))
}

#[utoipa::path(get, path = "/api/queue/{id}", params(("id" = String, Path)),
    responses((status = 200, description = "The call", body = QueueItem), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn get_item(State(state): State<ApiState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<QueueItem>> {
    Ok(Json(state.app.queue_item(&id, &caller.web()).await?))
}

#[utoipa::path(get, path = "/api/queue/{id}/previous", params(("id" = String, Path)), operation_id = "previous_call",
    responses((status = 200, description = "The call of the same tool in the same thread decided last before this one (null if none), to show what changed", body = PreviousCall),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn previous_call(State(state): State<ApiState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<PreviousCall>> {
    Ok(Json(state.app.previous_call(&id, &caller.web()).await?))
}

/// `{fingerprint}`: the fingerprint that was on screen (C3).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ApproveBody {
    fingerprint: String,
}

/// `{fingerprint, args}`: the fingerprint that was on screen (C3) and the arguments as edited.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApproveEditedBody {
    fingerprint: String,
    args: Value,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct DeclineBody {
    fingerprint: String,
    reason: Option<String>,
}

/// What became of an interrupted call (the console stopped while its tool ran).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ResolveBody {
    /// `ran`, `did_not_run`, or `run_again` (offered only for tools marked idempotent: see the
    /// call's `allowed`).
    resolution: DecisionKind,
    /// The fingerprint that was on screen.
    fingerprint: String,
    /// With `ran` only: what the tool returned, as the model is to be told; a sentence saying it
    /// ran and its result was lost when left out.
    result: Option<Value>,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ResumeBody {
    fingerprint: String,
    /// Validated against the call's resume schema.
    data: Value,
}

async fn decide(state: &ApiState, caller: &Caller, id: String, verdict: Verdict, fingerprint: &str) -> ApiResult<Json<QueueItem>> {
    Ok(Json(state.app.decide_shown(&id, verdict, fingerprint, &caller.web()).await?))
}

#[utoipa::path(post, path = "/api/queue/{id}/approve", params(("id" = String, Path)), request_body = ApproveBody,
    responses((status = 200, description = "Decided; the call as it is after delivery", body = QueueItem),
        (status = 202, description = "An approval of a tool with a quorum (the two-person rule) that did not complete it: recorded, and the call still waits for other operators' approvals (it is `pending`, its `approvals` list this one)", body = QueueItem),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden; own_run (under a quorum, the principal that started the run cannot approve its calls)", body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, description = "fingerprint_mismatch, already_decided, decision_not_allowed, already_approved (this operator approved the call already) or quorum_tool (an approval that cannot count towards the quorum)", body = ErrorBody),
        (status = 503, description = "storage_busy", body = ErrorBody)))]
async fn approve(
    State(state): State<ApiState>,
    caller: Caller,
    Path(id): Path<String>,
    body: Result<Json<ApproveBody>, JsonRejection>,
) -> ApiResult<(axum::http::StatusCode, Json<QueueItem>)> {
    let Json(body) = body?;
    let (item, recorded) = state.app.decide_shown_told(&id, Verdict::Approve, &body.fingerprint, &caller.web()).await?;
    // What this request did, not what the call shows now: an approval recorded short of its quorum
    // is 202 even if another operator's decision completed or declined the call meanwhile.
    let status = if recorded { axum::http::StatusCode::ACCEPTED } else { axum::http::StatusCode::OK };
    Ok((status, Json(item)))
}

#[utoipa::path(post, path = "/api/queue/{id}/approve-edited", params(("id" = String, Path)), request_body = ApproveEditedBody,
    responses((status = 200, description = "Approved with the edited arguments (local engine); the decision holds both fingerprints", body = QueueItem),
        (status = 400, description = "invalid_request", body = ErrorBody), (status = 422, description = "invalid_arguments: the edited arguments fail the tool's input schema (errors by path)", body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, description = "fingerprint_mismatch, already_decided, decision_not_allowed (an engine that cannot run edited arguments) or quorum_tool (a tool with a quorum is approved as it is)", body = ErrorBody)))]
async fn approve_edited(
    State(state): State<ApiState>,
    caller: Caller,
    Path(id): Path<String>,
    body: Result<Json<ApproveEditedBody>, JsonRejection>,
) -> ApiResult<Json<QueueItem>> {
    let Json(body) = body?;
    Ok(Json(state.app.approve_edited(&id, &body.fingerprint, body.args, &caller.web()).await?))
}

#[utoipa::path(post, path = "/api/queue/{id}/decline", params(("id" = String, Path)), request_body = DeclineBody,
    responses((status = 200, description = "Decided; the call as it is after delivery", body = QueueItem), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, description = "fingerprint_mismatch, already_decided or decision_not_allowed", body = ErrorBody),
        (status = 503, description = "storage_busy", body = ErrorBody)))]
async fn decline(
    State(state): State<ApiState>,
    caller: Caller,
    Path(id): Path<String>,
    body: Result<Json<DeclineBody>, JsonRejection>,
) -> ApiResult<Json<QueueItem>> {
    let Json(body) = body?;
    let reason = body.reason.map(|r| r.trim().to_owned()).filter(|r| !r.is_empty());
    decide(&state, &caller, id, Verdict::Decline { reason }, &body.fingerprint).await
}

#[utoipa::path(post, path = "/api/queue/{id}/resume", params(("id" = String, Path)), request_body = ResumeBody,
    responses((status = 200, description = "Decided; the call as it is after delivery", body = QueueItem), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, description = "fingerprint_mismatch, already_decided or decision_not_allowed", body = ErrorBody),
        (status = 422, description = "invalid_resume_data, with the failing JSON paths", body = ErrorBody), (status = 503, description = "storage_busy", body = ErrorBody)))]
async fn resume(
    State(state): State<ApiState>,
    caller: Caller,
    Path(id): Path<String>,
    body: Result<Json<ResumeBody>, JsonRejection>,
) -> ApiResult<Json<QueueItem>> {
    let Json(body) = body?;
    decide(&state, &caller, id, Verdict::Resume { data: body.data }, &body.fingerprint).await
}

#[utoipa::path(post, path = "/api/queue/{id}/resolve", params(("id" = String, Path)), request_body = ResolveBody,
    responses((status = 200, description = "Resolved; the run went on. For run_again, the new entry that ran the call again, as it is after delivery", body = QueueItem),
        (status = 400, description = "invalid_request (a result with another resolution than ran, a malformed fingerprint)", body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, description = "decision_not_allowed (not interrupted, or run_again of a tool not marked idempotent), already_decided (resolved already), fingerprint_mismatch", body = ErrorBody),
        (status = 503, description = "storage_busy", body = ErrorBody)))]
async fn resolve(
    State(state): State<ApiState>,
    caller: Caller,
    Path(id): Path<String>,
    body: Result<Json<ResolveBody>, JsonRejection>,
) -> ApiResult<Json<QueueItem>> {
    let Json(body) = body?;
    Ok(Json(state.app.resolve(&id, body.resolution, body.result, &body.fingerprint, &caller.web()).await?))
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
    caller: Caller,
    headers: axum::http::HeaderMap,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    caller.web().may(Op::Events)?;
    let mut rx = state.app.subscribe();
    let stop = super::stopped(state.shutdown.clone());
    // The token the guard accepted, to ask again whether it still holds (a stored credential only).
    let secret = (caller.0.kind == PrincipalKind::Token).then(|| super::guard::bearer(&headers).to_owned()).filter(|s| !s.is_empty());
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
                    match app.token_still_valid(secret).await {
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

#[utoipa::path(get, path = "/api/audit", params(AuditQuery), responses((status = 200, description = "Newest first", body = AuditPage), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn list_audit(State(state): State<ApiState>, caller: Caller, ApiQuery(q): ApiQuery<AuditQuery>) -> ApiResult<Json<AuditPage>> {
    Ok(Json(state.app.audit_page(&q, &caller.web()).await?))
}

#[utoipa::path(get, path = "/api/audit/verify", responses((status = 200, description = "The result of walking the whole chain", body = audit::Verification), (status = 401, body = ErrorBody)))]
async fn verify_audit(State(state): State<ApiState>, caller: Caller) -> ApiResult<Json<audit::Verification>> {
    Ok(Json(state.app.verify_audit(&caller.web()).await?))
}

#[utoipa::path(get, path = "/api/audit/decisions", params(HistoryQuery),
    responses((status = 200, description = "Decisions from the audit log, newest first, each with its newest delivery entry", body = DecisionHistory), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn decision_history(
    State(state): State<ApiState>,
    caller: Caller,
    ApiQuery(q): ApiQuery<HistoryQuery>,
) -> ApiResult<Json<DecisionHistory>> {
    Ok(Json(state.app.decision_history(&q, &caller.web()).await?))
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
    caller: Caller,
    ApiQuery(q): ApiQuery<ExportQuery>,
) -> ApiResult<axum::response::Response> {
    use axum::http::header;
    use futures::StreamExt;
    let format = ExportFormat::parse(q.format.as_deref().unwrap_or_default())?;
    let stream =
        state.app.export_audit(format, &caller.web())?.map(|chunk| chunk.map(axum::body::Bytes::from).map_err(std::io::Error::other));
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
    paths(health, session, openapi, list_queue, queue_counts, get_item, previous_call, approve, approve_edited, decline, resume, resolve, events, list_audit, verify_audit, decision_history, export_audit, metrics, stats),
    components(schemas(Health, Principal, Role, PrincipalKind, QueueItem, ApprovalView, Blocked, PauseReason, PauseKind, StateFilter, TabFilter, SortOrder, AuditAction, PreviousCall, QueuePage, QueueTab, QueueCounts, DecisionView, ErrorBody, ApproveBody, ApproveEditedBody, DeclineBody, ResumeBody, ResolveBody, crate::store::resolutions::Stored, AuditPage,
        DecisionHistory, DecisionRecord, ExportFormat, TeamStats, DecisionCounts, ToolStats, OperatorStats, PendingPoint,
        audit::Entry, audit::Verification, audit::BadEntry, QueueEvent, Change, ChainLink, CallKind, ItemState, DecisionKind, Delivery))
)]
pub struct ApiDoc;

/// The OpenAPI document of the console API, derived from the Rust types.
pub fn openapi_document() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.merge(<super::engines::EnginesDoc as OpenApi>::openapi());
    doc.merge(<super::notifications::NotificationsDoc as OpenApi>::openapi());
    doc.merge(<super::expiry::ExpiryDoc as OpenApi>::openapi());
    doc.merge(<super::grants::GrantsDoc as OpenApi>::openapi());
    doc.merge(<super::safety::SafetyDoc as OpenApi>::openapi());
    doc.merge(<super::presence::PresenceDoc as OpenApi>::openapi());
    doc.merge(<super::calls::CallsDoc as OpenApi>::openapi());
    doc
}

#[utoipa::path(get, path = "/api/openapi.json", responses((status = 200, description = "This document", content_type = "application/json"), (status = 401, body = ErrorBody)))]
async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(openapi_document())
}
