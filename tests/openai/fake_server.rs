//! A scripted OpenAI-compatible server on 127.0.0.1:0: `POST /v1/chat/completions` in the real wire
//! format (JSON answers, SSE streams of `chat.completion.chunk`s ending in `data: [DONE]`, error
//! bodies, `Retry-After`). It records every request it gets and answers each with what its script
//! says. Shared by `tests/openai` and `benches/model_overhead.rs` (included with `#[path]`).

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use futures::StreamExt;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One request as the fake received it.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub path: String,
    pub authorization: Option<String>,
    /// The JSON body (`Null` if it was not JSON).
    pub body: Value,
    pub at: Instant,
}

/// How an SSE answer ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum End {
    /// `data: [DONE]`, then the body ends.
    Done,
    /// The body ends cleanly, without `[DONE]`.
    Close,
    /// The connection breaks off mid-body.
    Abort,
    /// Nothing more is sent, and the connection stays open.
    Stall,
}

/// An SSE answer: each event's `data`, sent as `data: …\n\n`.
#[derive(Clone, Debug)]
pub struct Sse {
    pub events: Vec<String>,
    pub end: End,
    /// Send the body in pieces of this many bytes (cutting lines and UTF-8 sequences), else one
    /// piece per event.
    pub split: Option<usize>,
    /// A pause before each piece, so pieces reach the client as separate reads.
    pub pace: Option<Duration>,
}

/// What the fake answers to one request.
#[derive(Clone, Debug)]
pub enum Reply {
    /// 200, `application/json`.
    Json(Value),
    /// Any status, headers and body (error answers).
    Status {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: String,
    },
    /// 200 with this content type and body (garbage).
    Raw {
        content_type: &'static str,
        body: String,
    },
    Sse(Sse),
    /// The reply, sent once `gate` has a permit (taken for good) or `after` has passed: a model turn
    /// held for as long as the test (or the benchmark, with a delay) wants.
    Held {
        gate: Option<Arc<tokio::sync::Semaphore>>,
        after: Option<Duration>,
        then: Box<Reply>,
    },
}

impl Reply {
    /// A stream of these events, ended by `[DONE]`, one piece per event with a 1 ms pause between.
    pub fn sse(events: Vec<String>) -> Self {
        Self::Sse(Sse { events, end: End::Done, split: None, pace: Some(Duration::from_millis(1)) })
    }

    /// The same stream sent as fast as possible.
    pub fn sse_unpaced(events: Vec<String>) -> Self {
        Self::Sse(Sse { events, end: End::Done, split: None, pace: None })
    }

    pub fn status(status: u16, body: Value) -> Self {
        Self::Status { status, headers: vec![("content-type", "application/json".into())], body: body.to_string() }
    }

    /// An OpenAI-shaped error body: `{"error": {"message", "type", "code"}}`.
    pub fn error(status: u16, message: &str, code: Option<&str>) -> Self {
        Self::status(status, json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": code}}))
    }

    /// This reply, held until `gate` gets a permit ([`tokio::sync::Semaphore::add_permits`]).
    pub fn held_by(self, gate: &Arc<tokio::sync::Semaphore>) -> Self {
        Self::Held { gate: Some(gate.clone()), after: None, then: Box::new(self) }
    }

    /// This reply, after `delay` (a model that takes that long a turn).
    pub fn after(self, delay: Duration) -> Self {
        Self::Held { gate: None, after: Some(delay), then: Box::new(self) }
    }

    pub fn with_header(mut self, name: &'static str, value: &str) -> Self {
        if let Self::Status { headers, .. } = &mut self {
            headers.push((name, value.into()));
        }
        self
    }

    /// For an SSE reply: how it ends.
    pub fn ending(mut self, how: End) -> Self {
        if let Self::Sse(s) = &mut self {
            s.end = how;
        }
        self
    }

    /// For an SSE reply: sent in pieces of `n` bytes.
    pub fn split_every(mut self, n: usize) -> Self {
        if let Self::Sse(s) = &mut self {
            s.split = Some(n);
        }
        self
    }
}

type Script = dyn Fn(usize, &Value) -> Reply + Send + Sync;

struct Shared {
    log: Mutex<Vec<Recorded>>,
    script: Box<Script>,
}

/// The running fake; stops when dropped.
pub struct FakeOpenAi {
    /// `http://127.0.0.1:<port>/v1`.
    pub base_url: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl FakeOpenAi {
    /// Answers request `n` (0-based) with `replies[n]`, the last reply again once they run out.
    pub async fn scripted(replies: Vec<Reply>) -> Self {
        assert!(!replies.is_empty());
        Self::answering(move |n, _| replies[n.min(replies.len() - 1)].clone()).await
    }

    /// Answers each request with `script(n, body)`.
    pub async fn answering(script: impl Fn(usize, &Value) -> Reply + Send + Sync + 'static) -> Self {
        let shared = Arc::new(Shared { log: Mutex::default(), script: Box::new(script) });
        let app = Router::new()
            .route("/v1/chat/completions", post(completions))
            .fallback(|| async { StatusCode::NOT_FOUND })
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind the fake");
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.expect("fake server");
        });
        Self { base_url: format!("http://{addr}/v1"), shared, task }
    }

    /// `agents.toml` for agent `ops` with the built-in `delete_record` tool, on this server's model.
    pub fn ops_agent_toml(&self) -> String {
        format!(
            "[[agents]]\nid = \"ops\"\ntools = [\"delete_record\"]\n\n[agents.model]\napi = \"openai-compatible\"\nprovider = \"fake\"\nbase_url = \"{}\"\nmodel = \"fake-model\"\n",
            self.base_url
        )
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.log.lock().unwrap().clone()
    }

    pub fn request_count(&self) -> usize {
        self.shared.log.lock().unwrap().len()
    }
}

impl Drop for FakeOpenAi {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn completions(State(shared): State<Arc<Shared>>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let n = {
        let mut log = shared.log.lock().unwrap();
        log.push(Recorded {
            path: uri.path().to_owned(),
            authorization: headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_owned),
            body: body.clone(),
            at: Instant::now(),
        });
        log.len() - 1
    };
    let mut reply = (shared.script)(n, &body);
    while let Reply::Held { gate, after, then } = reply {
        if let Some(gate) = gate {
            gate.acquire().await.expect("the gate stays open").forget();
        }
        if let Some(after) = after {
            tokio::time::sleep(after).await;
        }
        reply = *then;
    }
    respond(reply)
}

fn respond(reply: Reply) -> Response {
    let builder = Response::builder();
    match reply {
        Reply::Held { .. } => unreachable!("held replies are waited for above"),
        Reply::Json(v) => builder.header("content-type", "application/json").body(Body::from(v.to_string())),
        Reply::Status { status, headers, body } => {
            let mut b = builder.status(status);
            for (name, value) in headers {
                b = b.header(name, value);
            }
            b.body(Body::from(body))
        }
        Reply::Raw { content_type, body } => builder.header("content-type", content_type).body(Body::from(body)),
        Reply::Sse(sse) => {
            let mut text: String = sse.events.iter().map(|e| format!("data: {e}\n\n")).collect();
            if sse.end == End::Done {
                text.push_str("data: [DONE]\n\n");
            }
            let pieces: Vec<Bytes> = match sse.split {
                Some(n) => text.as_bytes().chunks(n.max(1)).map(Bytes::copy_from_slice).collect(),
                None => {
                    let mut p: Vec<Bytes> = sse.events.iter().map(|e| Bytes::from(format!("data: {e}\n\n"))).collect();
                    if sse.end == End::Done {
                        p.push(Bytes::from_static(b"data: [DONE]\n\n"));
                    }
                    p
                }
            };
            let (pace, end) = (sse.pace, sse.end);
            let body = futures::stream::iter(pieces)
                .then(move |piece| async move {
                    if let Some(d) = pace {
                        tokio::time::sleep(d).await;
                    }
                    Ok::<_, std::io::Error>(piece)
                })
                .chain(futures::stream::once(async move {
                    match end {
                        End::Abort => Err(std::io::Error::other("cut off")),
                        End::Stall => futures::future::pending().await,
                        End::Done | End::Close => Ok(Bytes::new()),
                    }
                }));
            builder.header("content-type", "text/event-stream").header("cache-control", "no-cache").body(Body::from_stream(body))
        }
    }
    .expect("a valid response")
}

// --- the wire format ----------------------------------------------------------------------------

/// A whole `chat.completion` with this message and finish reason.
pub fn completion(message: Value, finish_reason: &str) -> Value {
    json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "fake-model",
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    })
}

/// A plain text answer.
pub fn text_completion(text: &str) -> Value {
    completion(json!({"role": "assistant", "content": text, "refusal": null}), "stop")
}

/// An answer with tool calls `(id, name, arguments string)`, content `null`.
pub fn tool_call_completion(calls: &[(&str, &str, &str)]) -> Value {
    let calls: Vec<Value> =
        calls.iter().map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})).collect();
    completion(json!({"role": "assistant", "content": null, "tool_calls": calls}), "tool_calls")
}

/// One `chat.completion.chunk` with this delta and finish reason, as the `data` of an SSE event.
pub fn chunk(delta: Value, finish_reason: Option<&str>) -> String {
    json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "fake-model",
        "system_fingerprint": "fp_fake",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}],
    })
    .to_string()
}

/// A text answer streamed in these pieces: a role chunk, one chunk per piece, a `stop` chunk.
pub fn text_stream(pieces: &[&str]) -> Vec<String> {
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    events.extend(pieces.iter().map(|p| chunk(json!({"content": p}), None)));
    events.push(chunk(json!({}), Some("stop")));
    events
}

/// One tool call streamed as OpenAI does: id and name in the first fragment, the arguments in
/// `pieces` fragments, then `finish_reason: "tool_calls"`.
pub fn tool_call_stream(id: &str, name: &str, arguments: &str, pieces: usize) -> Vec<String> {
    let mut events = vec![chunk(
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}
        ]}),
        None,
    )];
    let chars: Vec<char> = arguments.chars().collect();
    let size = chars.len().div_ceil(pieces.max(1)).max(1);
    for piece in chars.chunks(size) {
        let piece: String = piece.iter().collect();
        events.push(chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}), None));
    }
    events.push(chunk(json!({}), Some("tool_calls")));
    events
}

/// The script of an approval cycle: a conversation whose last message is the user's `delete <id>`
/// gets a `delete_record {id}` call (id `call_<n>`); one whose last message is a tool result gets
/// the text `Deleted <id>: <result>`. Streamed (SSE, unpaced) or not.
pub fn approval_cycle(stream: bool) -> impl Fn(usize, &Value) -> Reply + Send + Sync + 'static {
    move |n, body| {
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let last = messages.last().cloned().unwrap_or(Value::Null);
        if last["role"] == "tool" {
            let text = format!("Deleted: {}", last["content"].as_str().unwrap_or_default());
            return if stream { Reply::sse_unpaced(text_stream(&[&text])) } else { Reply::Json(text_completion(&text)) };
        }
        let record = last["content"].as_str().unwrap_or_default().trim_start_matches("delete ").to_owned();
        let (id, args) = (format!("call_{n}"), json!({ "id": record }).to_string());
        if stream {
            Reply::sse_unpaced(tool_call_stream(&id, "delete_record", &args, 3))
        } else {
            Reply::Json(tool_call_completion(&[(&id, "delete_record", &args)]))
        }
    }
}

/// [`approval_cycle`] (not streamed), with every answer to a tool's result passed through `held`
/// first: a model whose turn after the tool takes as long as the test or benchmark says
/// ([`Reply::held_by`], [`Reply::after`]).
pub fn approval_cycle_held(
    held: impl Fn(Reply) -> Reply + Send + Sync + 'static,
) -> impl Fn(usize, &Value) -> Reply + Send + Sync + 'static {
    let cycle = approval_cycle(false);
    move |n, body| {
        let reply = cycle(n, body);
        match body["messages"].as_array().and_then(|m| m.last()).is_some_and(|m| m["role"] == "tool") {
            true => held(reply),
            false => reply,
        }
    }
}
