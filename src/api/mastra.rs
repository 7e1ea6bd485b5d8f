//! The local engine over HTTP in Mastra's shapes (`reference/mastra-http-api.md`), so a Mastra client
//! can drive it. Decisions made here go through the console like any other (checked, made durable,
//! audited, consumed once): there is no side door to the engine.

use super::error::ApiError;
use super::{ApiQuery, ApiState, By};
use crate::domain::{grade, AgentId, CallKind, Cx, Error, RunId, Verdict};
use crate::engine::chunk::{chunk, Folded};
use crate::engine::local::{agent::Message, policy::RequireToolApproval, RunOptions, RunRequest, StartId, DEFAULT_MAX_STEPS};
use crate::store::queue;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_stream::wrappers::UnboundedReceiverStream;

pub fn routes() -> Router<ApiState> {
    Router::new()
        .route("/api/agents", get(list_agents))
        .route("/api/agents/{agent}", get(get_agent))
        .route("/api/agents/{agent}/generate", post(generate))
        .route("/api/agents/{agent}/stream", post(stream))
        .route("/api/agents/{agent}/suspended-runs", get(suspended_runs))
        .route("/api/agents/{agent}/approve-tool-call", post(approve_stream))
        .route("/api/agents/{agent}/decline-tool-call", post(decline_stream))
        .route("/api/agents/{agent}/approve-tool-call-generate", post(approve_generate))
        .route("/api/agents/{agent}/decline-tool-call-generate", post(decline_generate))
        .route("/api/agents/{agent}/resume-stream", post(resume_stream))
        .route("/api/agents/{agent}/send-tool-approval", post(send_tool_approval))
}

/// Mastra answers errors as `{error}`; the console's `{code, message}` ride along.
struct MastraError(ApiError);

impl From<Error> for MastraError {
    fn from(e: Error) -> Self {
        Self(e.into())
    }
}

impl From<ApiError> for MastraError {
    fn from(e: ApiError) -> Self {
        Self(e)
    }
}

impl From<JsonRejection> for MastraError {
    fn from(r: JsonRejection) -> Self {
        Self(r.into())
    }
}

impl IntoResponse for MastraError {
    fn into_response(self) -> Response {
        self.0.respond(|b| {
            let mut body = json!({ "error": b.message, "code": b.code, "message": b.message });
            if let Some(d) = b.details {
                body["details"] = json!(d);
            }
            body
        })
    }
}

/// `e` as the Mastra-shaped routes answer errors (`{error, code, message, details?}`), for the
/// layers in front of them ([`super::limits`]).
pub(super) fn answer(e: ApiError) -> Response {
    MastraError(e).into_response()
}

type MastraResult<T> = Result<T, MastraError>;

fn agent_json(agent: &crate::engine::local::agent::Agent) -> Value {
    let tools: serde_json::Map<String, Value> = agent
        .tools
        .iter()
        .map(|t| {
            let mut v = json!({
                "id": t.name(),
                "description": t.description(),
                // Mastra sends schemas as superjson strings.
                "inputSchema": json!({"json": t.input_schema()}).to_string(),
                "requireApproval": t.require_approval(),
            });
            if let Some(s) = t.suspend_schema() {
                v["suspendSchema"] = json!({"json": s}).to_string().into();
            }
            if let Some(s) = t.resume_schema() {
                v["resumeSchema"] = json!({"json": s}).to_string().into();
            }
            (t.name().to_owned(), v)
        })
        .collect();
    json!({
        "id": agent.id, "name": agent.name, "instructions": agent.instructions,
        "tools": tools, "agents": {}, "workflows": {},
        "provider": agent.model.id().split('/').next().unwrap_or_default(),
        "modelId": agent.model.id().split('/').nth(1).unwrap_or_default(),
    })
}

async fn list_agents(State(state): State<ApiState>, By(caller): By<grade::Agent>) -> MastraResult<Json<Value>> {
    let agents = state.app.local_agents(&caller.via("mastra-api"))?;
    Ok(Json(Value::Object(agents.iter().map(|a| (a.id.to_string(), agent_json(a))).collect())))
}

async fn get_agent(State(state): State<ApiState>, By(caller): By<grade::Agent>, Path(agent): Path<String>) -> MastraResult<Json<Value>> {
    let a = state.app.local_agent(&agent, &caller.via("mastra-api"))?;
    Ok(Json(agent_json(&a)))
}

/// `{messages, memory?: {thread, resource}, runId?, requireToolApproval?, maxSteps?}`;
/// `requireToolApproval` is a boolean or approval rules (see [`crate::engine::local::policy`]).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GenerateBody {
    messages: Value,
    #[serde(default)]
    memory: Option<Value>,
    thread_id: Option<String>,
    resource_id: Option<String>,
    run_id: Option<String>,
    #[serde(default)]
    require_tool_approval: Option<Value>,
    max_steps: Option<u32>,
    /// S10: let this message answer the thread's suspended tool.
    #[serde(default)]
    auto_resume_suspended_tools: bool,
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join(""),
        other => other.to_string(),
    }
}

fn parse_messages(messages: &Value) -> Result<Vec<Message>, ApiError> {
    let list = match messages {
        Value::String(s) => return Ok(vec![Message::User { content: s.clone() }]),
        Value::Array(list) => list,
        Value::Object(_) => std::slice::from_ref(messages),
        _ => return Err(ApiError::invalid("messages must be a string, a message, or a list of messages")),
    };
    list.iter()
        .map(|m| match m {
            Value::String(s) => Ok(Message::User { content: s.clone() }),
            _ => {
                let content = text_of(&m["content"]);
                match m["role"].as_str() {
                    Some("user") | None => Ok(Message::User { content }),
                    Some("assistant") => Ok(Message::Assistant { content, tool_calls: vec![] }),
                    Some("system") => Ok(Message::System { content }),
                    Some(other) => Err(ApiError::invalid(format!("unsupported message role {other:?}"))),
                }
            }
        })
        .collect()
}

fn memory_ids(body: &GenerateBody) -> (Option<String>, Option<String>) {
    let id_of = |v: &Value| v.as_str().map(str::to_owned).or_else(|| v["id"].as_str().map(str::to_owned));
    let thread = body.memory.as_ref().and_then(|m| id_of(&m["thread"])).or_else(|| body.thread_id.clone());
    let resource = body.memory.as_ref().and_then(|m| id_of(&m["resource"])).or_else(|| body.resource_id.clone());
    (thread, resource)
}

fn run_request(agent: &str, body: &GenerateBody, caller: &Cx<grade::Agent>) -> Result<RunRequest, ApiError> {
    let require_tool_approval = match &body.require_tool_approval {
        None => RequireToolApproval::Never,
        Some(value) => RequireToolApproval::from_json(value).map_err(|e| ApiError::invalid(format!("requireToolApproval: {e}")))?,
    };
    let (thread_id, resource_id) = memory_ids(body);
    Ok(RunRequest {
        agent_id: AgentId::new(agent),
        messages: parse_messages(&body.messages)?,
        thread_id,
        resource_id,
        options: RunOptions::new(require_tool_approval, body.max_steps.unwrap_or(DEFAULT_MAX_STEPS).clamp(1, 100)),
        run_id: StartId::of(body.run_id.clone().map(RunId::new)),
        started_by: Some(caller.principal.key()),
    })
}

/// Runs `work` with a chunk sink; answers the chunks as SSE (`data: {json}` … `data: [DONE]`).
fn sse_of<F>(run_id: RunId, work: F) -> Response
where
    F: FnOnce(mpsc::UnboundedSender<Value>) -> futures::future::BoxFuture<'static, Result<(), Error>> + Send + 'static,
{
    let (tx, rx) = mpsc::unbounded_channel();
    let errors = tx.clone();
    tokio::spawn(async move {
        if let Err(e) = work(tx).await {
            let _ = errors.send(chunk("error", &run_id, json!({"error": {"message": e.to_string(), "code": e.code()}})));
        }
    });
    let events = UnboundedReceiverStream::new(rx)
        .map(|c| Ok::<_, std::convert::Infallible>(Event::default().data(c.to_string())))
        .chain(futures::stream::once(async { Ok(Event::default().data("[DONE]")) }));
    Sse::new(events).into_response()
}

/// Runs `work` with a chunk sink and folds the chunks into a `/generate` answer: every chunk until
/// the sink's last holder lets go of it (a run going on after a delivery holds it until it pauses or
/// ends).
async fn generate_of<F>(run_id: RunId, work: F) -> MastraResult<Json<Value>>
where
    F: FnOnce(mpsc::UnboundedSender<Value>) -> futures::future::BoxFuture<'static, Result<(), Error>>,
{
    let (tx, mut rx) = mpsc::unbounded_channel();
    let result = work(tx).await;
    let mut folded = Folded::default();
    while let Some(c) = rx.recv().await {
        folded.push(&c);
    }
    result?;
    Ok(Json(folded.into_generate_answer(&run_id)))
}

async fn generate(
    State(state): State<ApiState>,
    By(caller): By<grade::Agent>,
    Path(agent): Path<String>,
    body: Result<Json<GenerateBody>, JsonRejection>,
) -> MastraResult<Json<Value>> {
    let Json(body) = body?;
    let request = run_request(&agent, &body, &caller)?;
    let run_id = request.run_id.id().cloned().expect("set above");
    let (app, auto, by) = (state.app.clone(), body.auto_resume_suspended_tools, caller.via("mastra-api"));
    generate_of(run_id, move |tx| Box::pin(async move { app.send(request, auto, Some(tx), &by).await.map(|_| ()) })).await
}

async fn stream(
    State(state): State<ApiState>,
    By(caller): By<grade::Agent>,
    Path(agent): Path<String>,
    body: Result<Json<GenerateBody>, JsonRejection>,
) -> MastraResult<Response> {
    let Json(body) = body?;
    let request = run_request(&agent, &body, &caller)?;
    state.app.local_agent(&agent, &caller.via("mastra-api"))?;
    // A taken run id is answered as an error before the stream starts (nothing is run).
    state.app.check_new_run_id(&request.run_id).await?;
    let run_id = request.run_id.id().cloned().expect("set above");
    let (app, auto, by) = (state.app.clone(), body.auto_resume_suspended_tools, caller.via("mastra-api"));
    Ok(sse_of(run_id, move |tx| Box::pin(async move { app.send(request, auto, Some(tx), &by).await.map(|_| ()) })))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SuspendedQuery {
    thread_id: Option<String>,
    resource_id: Option<String>,
    from_date: Option<String>,
    to_date: Option<String>,
    per_page: Option<usize>,
    page: Option<usize>,
}

/// An agent credential lists only the runs it started; operators list every run.
async fn suspended_runs(
    State(state): State<ApiState>,
    By(caller): By<grade::Agent>,
    Path(agent): Path<String>,
    ApiQuery(q): ApiQuery<SuspendedQuery>,
) -> MastraResult<Json<Value>> {
    let runs = state.app.suspended_runs_for(&caller, &agent, q.thread_id.as_deref(), q.resource_id.as_deref()).await?;
    let in_range = |at: &str| q.from_date.as_deref().is_none_or(|f| at >= f) && q.to_date.as_deref().is_none_or(|t| at <= t);
    let runs: Vec<_> = runs.into_iter().filter(|r| in_range(&r.suspended_at)).collect();
    let total = runs.len();
    let runs: Vec<_> = match (q.per_page, q.page) {
        (Some(per), Some(page)) => runs.into_iter().skip(per * page).take(per).collect(),
        _ => runs,
    };
    Ok(Json(json!({ "runs": runs, "total": total })))
}

/// `{runId, toolCallId, reason?}`; Mastra's HTTP API requires both ids.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DecisionBody {
    run_id: Option<String>,
    tool_call_id: Option<String>,
    reason: Option<String>,
    resume_data: Option<Value>,
}

fn decision_ids(body: &DecisionBody, need_call: bool) -> Result<RunId, ApiError> {
    let run_id = body.run_id.clone().filter(|r| !r.is_empty()).ok_or_else(|| ApiError::invalid("runId is required"))?;
    if need_call && body.tool_call_id.as_deref().is_none_or(str::is_empty) {
        return Err(ApiError::invalid("toolCallId is required"));
    }
    Ok(RunId::new(run_id))
}

/// Decides through the app (checked, stored, audited), then delivers with `tx` as the chunk sink.
/// A decision through a Mastra-shaped route, stored, then delivered with the run's chunks streamed
/// (`as_stream`) or folded into a `/generate` answer. The decision's signed receipt goes in the
/// `X-Approval-Receipt` header (docs/receipts.md).
async fn decide_and_answer(
    state: ApiState,
    by: Cx<grade::Operator>,
    entry: queue::Entry,
    verdict: Verdict,
    as_stream: bool,
) -> MastraResult<Response> {
    let run_id = entry.queued.call.run_id.clone();
    let decision = match state.app.decide_as_engine_client(&by, &entry, verdict, false).await {
        Ok(decision) => decision,
        // A refusal by these routes' own rules (who may decide here, and what) is answered before a
        // stream starts; one of the decision itself (resume data its schema refuses, a call decided
        // meanwhile) as the stream's error chunk, as Mastra answers it.
        Err(e) if as_stream && !routes_own_refusal(&e) => return Ok(sse_of(run_id, move |_| Box::pin(async move { Err(e) }))),
        Err(e) => return Err(e.into()),
    };
    let receipt = decision.receipt.clone();
    let deliver = move |tx| -> futures::future::BoxFuture<'static, Result<(), Error>> {
        Box::pin(async move { state.app.deliver_engine_client_decision(&decision, &entry, Some(tx)).await })
    };
    let mut response = if as_stream { sse_of(run_id, deliver) } else { generate_of(run_id, deliver).await?.into_response() };
    if let Some(value) = receipt.and_then(|r| axum::http::HeaderValue::from_str(&r).ok()) {
        response.headers_mut().insert(RECEIPT_HEADER, value);
    }
    Ok(response)
}

/// Whether the decision kernel refused who decided through these routes or what they may decide (a
/// high-risk approval, one under a quorum, a decision the call does not allow, arguments nobody can
/// bind): answered as an HTTP error, before any stream.
fn routes_own_refusal(e: &Error) -> bool {
    matches!(
        e,
        Error::HighRiskNeedsConsole { .. }
            | Error::HighRiskTool { .. }
            | Error::QuorumTool { .. }
            | Error::DecisionNotAllowed { .. }
            | Error::MissingArguments
            | Error::AmbiguousArguments { .. }
            | Error::StepUpRequired { .. }
            | Error::Forbidden { .. }
            | Error::NotAdmitted { .. }
    )
}

/// The response header that carries a decision's receipt on the Mastra-shaped decision routes.
pub const RECEIPT_HEADER: &str = "x-approval-receipt";

async fn decision_route(
    state: ApiState,
    caller: Cx<grade::Operator>,
    agent: String,
    body: DecisionBody,
    approve: bool,
    as_stream: bool,
) -> MastraResult<Response> {
    let by = caller.via("mastra-api");
    let run_id = decision_ids(&body, true)?;
    let entry = state.app.pending_call(&agent, &run_id, body.tool_call_id.as_deref()).await?;
    let verdict = if approve { Verdict::Approve } else { Verdict::Decline { reason: body.reason.clone() } };
    decide_and_answer(state, by, entry, verdict, as_stream).await
}

async fn approve_stream(
    State(s): State<ApiState>,
    By(c): By<grade::Operator>,
    Path(a): Path<String>,
    body: Result<Json<DecisionBody>, JsonRejection>,
) -> MastraResult<Response> {
    decision_route(s, c, a, body?.0, true, true).await
}

async fn decline_stream(
    State(s): State<ApiState>,
    By(c): By<grade::Operator>,
    Path(a): Path<String>,
    body: Result<Json<DecisionBody>, JsonRejection>,
) -> MastraResult<Response> {
    decision_route(s, c, a, body?.0, false, true).await
}

async fn approve_generate(
    State(s): State<ApiState>,
    By(c): By<grade::Operator>,
    Path(a): Path<String>,
    body: Result<Json<DecisionBody>, JsonRejection>,
) -> MastraResult<Response> {
    decision_route(s, c, a, body?.0, true, false).await
}

async fn decline_generate(
    State(s): State<ApiState>,
    By(c): By<grade::Operator>,
    Path(a): Path<String>,
    body: Result<Json<DecisionBody>, JsonRejection>,
) -> MastraResult<Response> {
    decision_route(s, c, a, body?.0, false, false).await
}

/// `{runId, resumeData, toolCallId?}`: resume data for a suspend() call; for an approval pause,
/// `{approved: bool, reason?}` approves or declines it (Mastra's approval resume schema).
async fn resume_stream(
    State(state): State<ApiState>,
    By(caller): By<grade::Operator>,
    Path(agent): Path<String>,
    body: Result<Json<DecisionBody>, JsonRejection>,
) -> MastraResult<Response> {
    let by = caller.via("mastra-api");
    let Json(body) = body?;
    let run_id = decision_ids(&body, false)?;
    let data = body.resume_data.clone().ok_or_else(|| ApiError::invalid("resumeData is required"))?;
    let entry = state.app.pending_call(&agent, &run_id, body.tool_call_id.as_deref()).await?;
    let verdict = match entry.queued.call.kind {
        CallKind::Suspend => Verdict::Resume { data },
        CallKind::Approval => match data["approved"].as_bool() {
            Some(true) => Verdict::Approve,
            Some(false) => Verdict::Decline { reason: data["reason"].as_str().map(str::to_owned) },
            None => {
                return Err(ApiError::from(Error::InvalidResumeData {
                    errors: vec![crate::domain::PathError {
                        path: "/approved".into(),
                        message: "an approval is resumed with {approved: boolean, reason?: string}".into(),
                    }],
                })
                .into())
            }
        },
    };
    decide_and_answer(state, by, entry, verdict, true).await
}

/// `{threadId, resourceId, toolCallId?, approved, resumeData?, reason?}` (S12).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SendToolApprovalBody {
    thread_id: String,
    resource_id: String,
    tool_call_id: Option<String>,
    approved: bool,
    resume_data: Option<Value>,
    reason: Option<String>,
}

/// S12 `send_tool_approval`: finds the thread's suspended call (in storage), decides it through the
/// console, and answers at once (`{accepted: true, runId, toolCallId}`); the run goes on in the
/// background. When several calls of the thread wait, `toolCallId` must say which.
async fn send_tool_approval(
    State(state): State<ApiState>,
    By(caller): By<grade::Operator>,
    Path(agent): Path<String>,
    body: Result<Json<SendToolApprovalBody>, JsonRejection>,
) -> MastraResult<Json<Value>> {
    let by = caller.via("mastra-api");
    let Json(body) = body?;
    let entry = state.app.pending_call_of_thread(&agent, &body.thread_id, &body.resource_id, body.tool_call_id.as_deref()).await?;
    let verdict = match (body.approved, entry.queued.call.kind, body.resume_data) {
        (false, _, _) => Verdict::Decline { reason: body.reason },
        (true, CallKind::Approval, _) => Verdict::Approve,
        (true, CallKind::Suspend, Some(data)) => Verdict::Resume { data },
        (true, CallKind::Suspend, None) => return Err(ApiError::invalid("resumeData is required to answer a suspended tool").into()),
    };
    // Answers at once; the run goes on in the background.
    let decision = state.app.decide_as_engine_client(&by, &entry, verdict, true).await?;
    let call = &entry.queued.call;
    Ok(Json(json!({ "accepted": true, "runId": call.run_id, "toolCallId": call.tool_call_id, "receipt": decision.receipt })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ErrorCode;
    use axum::http::StatusCode;

    /// CI saw a Mastra-shaped 503 `storage_unavailable` (PostgreSQL restarting under a
    /// `generate`) answered without `Retry-After`: both shapes now carry the same headers.
    #[test]
    fn both_error_shapes_carry_retry_after_and_the_unavailable_mark() {
        let unavailable = || ApiError::from(Error::StorageUnavailable("terminating connection".into()));
        for response in [unavailable().into_response(), answer(unavailable())] {
            assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
            let secs = response.headers().get(axum::http::header::RETRY_AFTER).expect("Retry-After");
            assert_eq!(secs.to_str().unwrap(), super::super::error::STORAGE_RETRY_AFTER_SECS.to_string());
            assert!(response.extensions().get::<super::super::error::StorageUnavailable>().is_some());
        }
        let other = ApiError::new(StatusCode::CONFLICT, ErrorCode::AlreadyDecided, "decided");
        assert!(answer(other).headers().get(axum::http::header::RETRY_AFTER).is_none());
    }
}
