//! A run relayed to an AG-UI agent: the RunAgentInput POSTed to its endpoint, its event stream
//! (`text/event-stream`, `data: {event}` per event, read with the engine's one SSE decoder) read
//! event by event and passed on. A run that ends with `RUN_FINISHED` `outcome: {type: "interrupt"}`
//! is stored (`store::agui`) before that event is passed on, so a client that hears of the
//! interrupts finds them queued or about to be.

use super::calls;
use crate::domain::Error;
use crate::engine::local::model::sse::SseDecoder;
use crate::engine::local::model::ApiKey;
use crate::engine::remote::base::Link;
use crate::engine::remote::http::{describe, http_client, parse_base_url, RemoteError};
use crate::store::agui as store;
use futures::StreamExt;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// How a relayed run ended, as its events said.
#[derive(Debug, Default)]
pub struct RunEnd {
    /// `RUN_FINISHED` (`outcome`, `result`) or `RUN_ERROR` (`message`, `code`): the last one seen.
    pub last: Option<Value>,
    /// The interrupts it ended with (stored).
    pub interrupts: usize,
}

/// A run the agent answered with an event stream, not read yet.
pub struct Opened {
    link: Arc<Link>,
    input: Value,
    requested_by: Option<String>,
    response: reqwest::Response,
    /// Called once a run's interrupts are stored, so they are queued now rather than at the next poll.
    stored: Option<Box<dyn Fn() + Send + Sync>>,
}

/// The thread a RunAgentInput is for, checked: `threadId` and `runId` strings, `messages` a list.
pub fn thread_of(input: &Value) -> Result<&str, Error> {
    let field = |k: &str| input[k].as_str().filter(|s| !s.is_empty());
    let (Some(thread), Some(_)) = (field("threadId"), field("runId")) else {
        return Err(Error::InvalidRequest("a RunAgentInput needs threadId and runId".into()));
    };
    if !input["messages"].is_array() {
        return Err(Error::InvalidRequest("a RunAgentInput needs messages (a list)".into()));
    }
    Ok(thread)
}

/// POSTs `input` to the agent's endpoint `url` with the engine's token: the stream it answers, or
/// how it failed (`engine_unreachable` when nothing was taken: no connection).
pub async fn open(link: Arc<Link>, url: &str, input: Value, requested_by: Option<String>) -> Result<Opened, Error> {
    thread_of(&input)?;
    let token = link.token_or_health().await?;
    let response = link.observe(post(url, &input, token.as_ref()).await).await.map_err(|e| link.to_error(e))?;
    Ok(Opened { link, input, requested_by, response, stored: None })
}

async fn post(url: &str, input: &Value, token: Option<&ApiKey>) -> Result<reqwest::Response, RemoteError> {
    let url = parse_base_url(url).map_err(RemoteError::Incompatible)?;
    let client = http_client().map_err(RemoteError::Unreachable)?;
    let mut request = client.post(url).header("accept", "text/event-stream").json(input);
    if let Some(t) = token {
        request = request.bearer_auth(t.expose());
    }
    let response = request.send().await.map_err(|e| RemoteError::Unreachable(describe(&e)))?;
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let text = String::from_utf8_lossy(&response.bytes().await.unwrap_or_default()).chars().take(500).collect::<String>();
    let why = format!("the agent answered {status}: {text}");
    Err(match status.as_u16() {
        401 | 403 => RemoteError::Auth(why),
        500.. => RemoteError::Unreachable(why),
        _ => RemoteError::Refused(why),
    })
}

impl Opened {
    /// Calls `stored` once the run's interrupts are stored.
    pub fn when_stored(mut self, stored: impl Fn() + Send + Sync + 'static) -> Self {
        self.stored = Some(Box::new(stored));
        self
    }

    /// Reads the run's events to the end, passing each on to `out` (`data: {event}\n\n`; a closed
    /// `out` — the client gone — does not stop the reading: the interrupts are stored all the same).
    pub async fn relay(self, out: impl Fn(String)) -> Result<RunEnd, Error> {
        let Opened { link, mut input, requested_by, response, stored } = self;
        if let Some(o) = input.as_object_mut() {
            o.remove("resume");
        }
        let thread = thread_of(&input)?.to_owned();
        let mut tools: HashMap<String, (String, String)> = HashMap::new();
        let mut last_tool: Option<String> = None;
        let mut end = RunEnd::default();
        let mut decoder = SseDecoder::default();
        let mut bytes = response.bytes_stream();
        loop {
            let (events, done) = match bytes.next().await {
                Some(Ok(piece)) => (decoder.push(&piece), false),
                Some(Err(e)) => return Err(Error::Unreachable(format!("the agent's stream broke off: {}", describe(&e)))),
                None => (decoder.finish().map(|last| last.into_iter().collect()), true),
            };
            let events = events.map_err(|e| Error::Engine(format!("the agent's event stream: {e}")))?;
            for data in events {
                let Ok(event) = serde_json::from_str::<Value>(&data) else {
                    tracing::warn!(engine = %link.id, "an AG-UI event that is not JSON: passed on, not read");
                    out(format!("data: {data}\n\n"));
                    continue;
                };
                match event["type"].as_str() {
                    Some("TOOL_CALL_START" | "TOOL_CALL_CHUNK") if event["toolCallName"].is_string() => {
                        let id = event["toolCallId"].as_str().unwrap_or_default().to_owned();
                        let name = event["toolCallName"].as_str().unwrap_or_default().to_owned();
                        let delta = event["delta"].as_str().unwrap_or_default().to_owned();
                        tools.insert(id.clone(), (name, delta));
                        last_tool = Some(id);
                    }
                    Some("TOOL_CALL_ARGS" | "TOOL_CALL_CHUNK") => {
                        let id = event["toolCallId"].as_str().map(str::to_owned).or_else(|| last_tool.clone()).unwrap_or_default();
                        if let Some((_, args)) = tools.get_mut(&id) {
                            args.push_str(event["delta"].as_str().unwrap_or_default());
                        }
                    }
                    Some("RUN_FINISHED") => {
                        let outcome = &event["outcome"];
                        if outcome["type"] == "interrupt" {
                            let open = outcome["interrupts"].as_array().cloned().unwrap_or_default();
                            let entries: Vec<Value> =
                                open.iter()
                                    .map(|i| {
                                        let tool = i["toolCallId"].as_str().and_then(|id| tools.get(id)).map(|(name, args)| {
                                            (name.as_str(), serde_json::from_str(args).unwrap_or_else(|_| json!(args)))
                                        });
                                        calls::entry(i, tool, requested_by.as_deref())
                                    })
                                    .collect();
                            let run = event["runId"].as_str().or(input["runId"].as_str()).unwrap_or_default().to_owned();
                            store::store_waiting(&link.db, link.id.as_str(), &thread, &run, &input, &entries).await?;
                            end.interrupts = entries.len();
                            if let Some(stored) = &stored {
                                stored();
                            }
                        } else {
                            store::end_thread(&link.db, link.id.as_str(), &thread).await?;
                        }
                        end.last = Some(json!({ "type": "RUN_FINISHED", "outcome": outcome, "result": event["result"] }));
                    }
                    Some("RUN_ERROR") => {
                        end.last = Some(json!({ "type": "RUN_ERROR", "message": event["message"], "code": event["code"] }));
                    }
                    _ => {}
                }
                out(format!("data: {data}\n\n"));
            }
            if done {
                break;
            }
        }
        Ok(end)
    }
}
