//! Calls that agents submit themselves, over HTTP: queue one, wait for its decision, withdraw it.

use super::error::{ApiResult, ErrorBody};
use super::{ApiQuery, ApiState, By};
use crate::app::calls::{CallStatus, NewCall, Outcome, SubmittedCall, MAX_WAIT};
use crate::domain::{grade, inexact_literals, Error};
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::time::Duration;
use utoipa::OpenApi;

pub fn routes() -> Router<ApiState> {
    Router::new().route("/api/calls", post(submit)).route("/api/calls/{id}", get(status).delete(withdraw))
}

/// Queues a call for an operator to decide. Send an `Idempotency-Key` header (1–200 characters,
/// unique per call, e.g. the agent's own call id): a retry with it finds the call it queued (200)
/// instead of queueing it twice.
#[utoipa::path(post, path = "/api/calls", operation_id = "submit_call", request_body = NewCall,
    params(("Idempotency-Key" = Option<String>, Header, description = "Makes a retry find the call the first request queued")),
    responses(
        (status = 201, description = "Queued", body = SubmittedCall),
        (status = 200, description = "Queued by an earlier request with the same Idempotency-Key and the same call", body = SubmittedCall),
        (status = 400, description = "invalid_request: a field out of range, a resumeSchema that is no schema, arguments that cannot be fingerprinted; invalid_arguments: numbers in `args` an IEEE double cannot carry exactly — an integer no double equals (2^60 + 1), a decimal not written as its double's shortest form (0.10000000000000001), one out of range (1e400) — whose fingerprint would be their neighbours' too (details: errors, each with its JSON Pointer into args)", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 409, description = "idempotency_key_reused: the key came with another call before (details: id)", body = ErrorBody),
        (status = 413, description = "payload_too_large: the body is larger than 4 MiB, holds more JSON values than the server takes, or `args`, `payload` or `resumeSchema` is larger (as compact JSON) than the server's limit, 256 KiB by default (details: field, limit, size)", body = ErrorBody),
        (status = 429, description = "rate_limited: this credential submitted more calls than its quota (10 a second, 30 at once by default); ask again after `Retry-After` seconds (details: retryAfterSecs)", body = ErrorBody)))]
async fn submit(
    State(state): State<ApiState>,
    By(caller): By<grade::Agent>,
    headers: HeaderMap,
    body: Result<Json<Box<RawValue>>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<SubmittedCall>)> {
    let Json(body) = body?;
    let call = match Json::<NewCall>::from_bytes(body.get().as_bytes()) {
        Ok(Json(call)) => call,
        // A number out of the doubles' range is no call to serde: said as the arguments' fault.
        Err(rejection) => match inexact_args(&body) {
            Ok(paths) if !paths.is_empty() => return Err(Error::InexactNumbers { paths }.into()),
            _ => return Err(rejection.into()),
        },
    };
    let limit = state.quotas.limits().max_args_bytes;
    for (what, value) in [("args", Some(&call.args)), ("payload", call.payload.as_ref()), ("resumeSchema", call.resume_schema.as_ref())] {
        let size = value.map_or(0, super::limits::json_len);
        if size > limit {
            return Err(super::ApiError::too_large(what, limit, size));
        }
    }
    // Judged on the text as sent: `call.args` has its decimals rounded already.
    let paths = inexact_args(&body).map_err(|e| super::ApiError::invalid(format!("args: {e}")))?;
    if !paths.is_empty() {
        return Err(Error::InexactNumbers { paths }.into());
    }
    let key = match headers.get("idempotency-key") {
        None => None,
        Some(v) => Some(v.to_str().map_err(|_| super::ApiError::invalid("Idempotency-Key: visible ASCII characters only"))?.to_owned()),
    };
    let submitted = state.app.submit_call(call, key.as_deref(), &caller.via("api")).await?;
    let code = if submitted.created { StatusCode::CREATED } else { StatusCode::OK };
    Ok((code, Json(submitted)))
}

/// JSON Pointers (into `args`) to the numbers of a submission's `args`, as written, that the
/// fingerprint cannot bind (`domain::inexact_literals`); none when it has no `args`.
fn inexact_args(body: &RawValue) -> Result<Vec<String>, serde_json::Error> {
    #[derive(Deserialize)]
    struct Args<'a> {
        #[serde(borrow)]
        args: Option<&'a RawValue>,
    }
    let Args { args } = serde_json::from_str(body.get())?;
    args.map_or(Ok(vec![]), |args| inexact_literals(args.get()))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WaitQuery {
    /// Hold the request until the call is decided, at most this many seconds (0–60; default 0:
    /// answer at once). Ask again while `outcome` is `pending`.
    #[serde(default)]
    wait_secs: u64,
}

/// Where a submitted call stands. An agent reads only the calls it submitted.
#[utoipa::path(get, path = "/api/calls/{id}", operation_id = "call_status", params(("id" = String, Path), WaitQuery),
    responses((status = 200, description = "The call's outcome so far", body = CallStatus),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, description = "No such submitted call of this credential", body = ErrorBody),
        (status = 429, description = "rate_limited: this credential holds as many long polls as it may (32 by default); ask again after `Retry-After` seconds", body = ErrorBody)))]
async fn status(
    State(state): State<ApiState>,
    By(caller): By<grade::Agent>,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<WaitQuery>,
) -> ApiResult<Json<CallStatus>> {
    if q.wait_secs > MAX_WAIT.as_secs() {
        return Err(super::ApiError::invalid(format!("waitSecs: 0–{}", MAX_WAIT.as_secs())));
    }
    let by = caller.via("api");
    tokio::select! {
        answer = state.app.call_status(&id, Duration::from_secs(q.wait_secs), &by) => Ok(Json(answer?)),
        // A stopping server answers what it knows now rather than holding the request.
        _ = super::stopped(state.shutdown.clone()) => Ok(Json(state.app.call_status(&id, Duration::ZERO, &by).await?)),
    }
}

/// The agent stops waiting: the call leaves the queue (`withdrawn`), so nobody approves what will
/// not run. A call decided already keeps its decision: 409 `already_decided`, then read it.
#[utoipa::path(delete, path = "/api/calls/{id}", operation_id = "withdraw_call", params(("id" = String, Path)),
    responses((status = 200, description = "Withdrawn", body = CallStatus),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "already_decided", body = ErrorBody)))]
async fn withdraw(State(state): State<ApiState>, By(caller): By<grade::Agent>, Path(id): Path<String>) -> ApiResult<Json<CallStatus>> {
    Ok(Json(state.app.withdraw_call(&id, &caller.via("api")).await?))
}

#[derive(OpenApi)]
#[openapi(paths(submit, status, withdraw), components(schemas(NewCall, SubmittedCall, CallStatus, Outcome)))]
pub struct CallsDoc;
