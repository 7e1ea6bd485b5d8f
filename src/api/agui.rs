//! An AG-UI engine's endpoint (`POST /api/agui/{engine}`): the console's AG-UI endpoint for one
//! agent, where a frontend (CopilotKit's `HttpAgent`, any AG-UI client) points instead of at the
//! agent. The run is relayed and its events streamed back as they come; the relay goes on to the
//! run's end if the client leaves, so its interrupts are stored all the same.

use super::error::ApiError;
use super::{ApiState, By};
use crate::domain::grade;
use axum::body::Body;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_stream::wrappers::UnboundedReceiverStream;

pub fn routes() -> Router<ApiState> {
    Router::new().route("/api/agui/{engine}", post(run))
}

async fn run(
    State(state): State<ApiState>,
    By(caller): By<grade::Agent>,
    Path(engine): Path<String>,
    body: Result<Json<Value>, JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(input) = body?;
    let opened = state.app.agui_open(&caller.via("ag-ui"), &engine, input).await?;
    let (tx, rx) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let sent = tx.clone();
        if let Err(e) = opened.relay(move |event| drop(sent.send(event))).await {
            let error = json!({ "type": "RUN_ERROR", "message": e.to_string(), "code": e.code() });
            let _ = tx.send(format!("data: {error}\n\n"));
        }
    });
    let body = Body::from_stream(UnboundedReceiverStream::new(rx).map(Ok::<_, std::convert::Infallible>));
    Ok(([("content-type", "text/event-stream"), ("cache-control", "no-cache")], body).into_response())
}
