//! HTTP client for one Mastra server: the routes the console needs, each failure classified.

use crate::engine::local::model::sse::SseDecoder;
use crate::engine::local::model::ApiKey;
use crate::engine::remote::http::{describe, http_client, read_limited, REQUEST_TIMEOUT};
pub use crate::engine::remote::http::{parse_base_url, RemoteError, MAX_BODY};
use crate::engine::ChunkSink;
use futures::StreamExt;
use reqwest::{Method, StatusCode, Url};
use serde_json::Value;

/// A server at `base` (e.g. `http://127.0.0.1:4111`), with an optional bearer token.
#[derive(Clone)]
pub struct Client {
    base: Url,
    http: reqwest::Client,
}

impl Client {
    pub fn new(base: &str) -> Result<Self, String> {
        let base = parse_base_url(base)?;
        let http = http_client()?;
        Ok(Self { base, http })
    }

    pub fn base(&self) -> &Url {
        &self.base
    }

    /// `<base>/api/<segments…>`, each segment percent-encoded (agent ids come from the server).
    fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        {
            let mut path = url.path_segments_mut().expect("http(s) URLs have paths");
            path.pop_if_empty().push("api");
            for s in segments {
                path.push(s);
            }
        }
        url
    }

    /// `GET /api/agents`: agents by id.
    pub async fn agents(&self, token: Option<&ApiKey>) -> Result<Value, RemoteError> {
        let v = self.json(Method::GET, self.url(&["agents"]), token, None).await?;
        if !v.is_object() {
            return Err(RemoteError::Incompatible("GET /api/agents did not answer a JSON object of agents".into()));
        }
        Ok(v)
    }

    /// `GET /api/agents/:id/suspended-runs[?fromDate=]`: the `runs` array.
    pub async fn suspended_runs(
        &self,
        agent: &str,
        token: Option<&ApiKey>,
        from: Option<chrono::DateTime<chrono::Utc>>,
    ) -> Result<Vec<Value>, RemoteError> {
        let mut url = self.url(&["agents", agent, "suspended-runs"]);
        if let Some(from) = from {
            url.query_pairs_mut().append_pair("fromDate", &from.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
        }
        let v = self.json(Method::GET, url, token, None).await?;
        match v.get("runs") {
            Some(Value::Array(runs)) => Ok(runs.clone()),
            _ => Err(RemoteError::Incompatible(format!("GET suspended-runs of {agent:?} answered without a `runs` array"))),
        }
    }

    /// POSTs to a streaming route (`approve-tool-call`, `decline-tool-call`, `resume-stream`) and reads
    /// the whole stream, forwarding each chunk to `sink`. Returns the chunks.
    ///
    /// Once the server answered 2xx it has taken the decision: a stream cut short after that is not an
    /// error (the chunks read so far are returned), since sending again could act twice.
    pub async fn post_stream(
        &self,
        agent: &str,
        route: &str,
        body: &Value,
        token: Option<&ApiKey>,
        sink: Option<&ChunkSink>,
    ) -> Result<Vec<Value>, RemoteError> {
        let response = self.send(Method::POST, self.url(&["agents", agent, route]), token, Some(body)).await?;
        let mut chunks = Vec::new();
        let mut decoder = SseDecoder::default();
        let mut bytes = response.bytes_stream();
        let mut read = 0usize;
        let push = |data: String, chunks: &mut Vec<Value>| {
            let data = data.trim();
            if data.is_empty() || data == "[DONE]" {
                return;
            }
            match serde_json::from_str::<Value>(data) {
                Ok(chunk) => {
                    if let Some(sink) = sink {
                        let _ = sink.send(chunk.clone());
                    }
                    chunks.push(chunk);
                }
                Err(e) => tracing::warn!(route, "skipping a malformed chunk from the engine: {e}"),
            }
        };
        while let Some(piece) = bytes.next().await {
            let piece = match piece {
                Ok(p) => p,
                Err(e) => {
                    tracing::warn!(route, "the engine's stream ended early: {e}");
                    break;
                }
            };
            read += piece.len();
            if read > MAX_BODY {
                tracing::warn!(route, "the engine's stream is longer than {MAX_BODY} bytes; stopped reading");
                break;
            }
            match decoder.push(&piece) {
                Ok(events) => events.into_iter().for_each(|d| push(d, &mut chunks)),
                Err(e) => {
                    tracing::warn!(route, "the engine's stream is malformed: {e}");
                    break;
                }
            }
        }
        if let Ok(Some(last)) = decoder.finish() {
            push(last, &mut chunks);
        }
        Ok(chunks)
    }

    async fn json(&self, method: Method, url: Url, token: Option<&ApiKey>, body: Option<&Value>) -> Result<Value, RemoteError> {
        let what = format!("{method} {}", url.path());
        let response = self.send(method, url, token, body).await?;
        let body = read_limited(response).await.map_err(|e| RemoteError::Unreachable(format!("{what}: {e}")))?;
        serde_json::from_slice(&body).map_err(|e| RemoteError::Incompatible(format!("{what} answered malformed JSON: {e}")))
    }

    /// Sends; a non-2xx answer becomes the matching [`RemoteError`].
    async fn send(&self, method: Method, url: Url, token: Option<&ApiKey>, body: Option<&Value>) -> Result<reqwest::Response, RemoteError> {
        let what = format!("{method} {}", url.path());
        // `/api/agents/<id>/…`: a route of one agent (as opposed to the agent listing itself).
        let one_agent = url.path_segments().is_some_and(|s| {
            let s: Vec<&str> = s.collect();
            s.windows(3).any(|w| w[0] == "api" && w[1] == "agents" && !w[2].is_empty())
        });
        let mut request = self.http.request(method, url).timeout(REQUEST_TIMEOUT);
        if let Some(token) = token {
            request = request.bearer_auth(token.expose());
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(|e| RemoteError::Unreachable(format!("{what}: {}", describe(&e))))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let text = read_limited(response).await.map(|b| String::from_utf8_lossy(&b[..b.len().min(4096)]).into_owned()).unwrap_or_default();
        // The error shape of a Mastra server: a JSON object with an `error` (or `message`) string.
        let json_error = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v.get("error").or_else(|| v.get("message")).and_then(Value::as_str).map(str::to_owned));
        let mastra_shaped = json_error.is_some();
        let message = json_error.unwrap_or(text);
        // The body may echo the request, token included: never stored, logged or shown as it came.
        let secrets: Vec<&str> = token.map(|t| t.expose()).into_iter().collect();
        let message = crate::domain::text::redact(&format!("{what}: {status}: {message}"), &secrets);
        Err(match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => RemoteError::Auth(message),
            // An unknown agent, said the way Mastra says it: the server is there and speaks its API.
            // Any other 404 (the agent listing missing, an HTML page) is not a Mastra server's answer.
            StatusCode::NOT_FOUND if one_agent && mastra_shaped => RemoteError::Refused(message),
            StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED => RemoteError::Incompatible(message),
            s if s.is_server_error() && message.contains("could not find a suspended run") => RemoteError::RunNotSuspended(message),
            s if s.is_server_error() && message.contains("not suspended") => RemoteError::CallNotSuspended(message),
            s if s.is_server_error() => RemoteError::Unreachable(message),
            _ => RemoteError::Refused(message),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_escape_agent_ids() {
        let c = Client::new("http://127.0.0.1:4111/").unwrap();
        assert_eq!(c.url(&["agents", "a/b?c", "suspended-runs"]).as_str(), "http://127.0.0.1:4111/api/agents/a%2Fb%3Fc/suspended-runs");
        let c = Client::new("http://127.0.0.1:4111/prefix").unwrap();
        assert_eq!(c.url(&["agents"]).as_str(), "http://127.0.0.1:4111/prefix/api/agents");
    }
}
