//! HTTP client for one LangGraph server (the LangGraph Platform API as the official servers serve
//! it): the interrupted threads, one thread, and a resume run — each failure classified.

use crate::engine::local::model::ApiKey;
use crate::engine::remote::http::{describe, http_client, parse_base_url, read_limited, RemoteError, REQUEST_TIMEOUT};
use reqwest::{Method, StatusCode, Url};
use serde_json::{json, Value};
use std::time::Duration;

/// Threads asked for per page of `POST /threads/search`.
pub const PAGE: usize = 100;
/// Pages read per listing at most: beyond `PAGE * MAX_PAGES` interrupted threads a listing is
/// partial (and then marks nothing gone).
pub const MAX_PAGES: usize = 100;
/// A resume run may take as long as the graph needs to reach its next interrupt or its end.
const RUN_TIMEOUT: Duration = Duration::from_secs(300);

/// A server at `base` (e.g. `http://127.0.0.1:2024`). A token is sent as `x-api-key` (LangGraph
/// Platform, Agent Inbox) and as a bearer token (custom auth), so either kind of deployment takes it.
#[derive(Clone)]
pub struct Client {
    base: Url,
    http: reqwest::Client,
}

/// One listing of the interrupted threads.
pub struct Listing {
    pub threads: Vec<Value>,
    /// False if there were more than [`MAX_PAGES`] pages.
    pub complete: bool,
}

impl Client {
    pub fn new(base: &str) -> Result<Self, String> {
        Ok(Self { base: parse_base_url(base)?, http: http_client()? })
    }

    pub fn base(&self) -> &Url {
        &self.base
    }

    /// `<base>/<segments…>`, each segment percent-encoded (thread ids come from the server).
    fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        {
            let mut path = url.path_segments_mut().expect("http(s) URLs have paths");
            path.pop_if_empty();
            for s in segments {
                path.push(s);
            }
        }
        url
    }

    /// `POST /threads/search {status}`: every thread with that status (`interrupted`, `busy`), page
    /// by page, with the fields the console reads (`values` left out: it can be large).
    pub async fn threads(&self, status: &str, token: Option<&ApiKey>) -> Result<Listing, RemoteError> {
        let mut threads = Vec::new();
        for page in 0..MAX_PAGES {
            let body = json!({
                "status": status, "limit": PAGE, "offset": page * PAGE,
                "sort_by": "thread_id", "sort_order": "asc",
                "select": ["thread_id", "status", "metadata", "interrupts", "updated_at"],
            });
            let answer = self.json(Method::POST, self.url(&["threads", "search"]), token, Some(&body)).await?;
            let Value::Array(found) = answer else {
                return Err(RemoteError::Incompatible("POST /threads/search did not answer a list of threads".into()));
            };
            let last = found.len() < PAGE;
            threads.extend(found);
            if last {
                return Ok(Listing { threads, complete: true });
            }
        }
        Ok(Listing { threads, complete: false })
    }

    /// `POST /threads/count {status}`: how many threads have that status.
    pub async fn count(&self, status: &str, token: Option<&ApiKey>) -> Result<u64, RemoteError> {
        let answer = self.json(Method::POST, self.url(&["threads", "count"]), token, Some(&json!({ "status": status }))).await?;
        answer.as_u64().ok_or_else(|| RemoteError::Incompatible("POST /threads/count did not answer a count".into()))
    }

    /// `GET /threads/{id}`; `None` if the server has no such thread.
    pub async fn thread(&self, id: &str, token: Option<&ApiKey>) -> Result<Option<Value>, RemoteError> {
        match self.json(Method::GET, self.url(&["threads", id]), token, None).await {
            Ok(v) if v.is_object() => Ok(Some(v)),
            Ok(_) => Err(RemoteError::Incompatible(format!("GET /threads/{id} did not answer a thread"))),
            Err(RemoteError::RunNotSuspended(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `POST /threads/{id}/runs/wait` with `body` (`{assistant_id, command: {resume}}`): the run's
    /// last state, once it ended or stopped at its next interrupt.
    pub async fn resume(&self, thread: &str, body: &Value, token: Option<&ApiKey>) -> Result<Value, RemoteError> {
        self.json_within(Method::POST, self.url(&["threads", thread, "runs", "wait"]), token, Some(body), RUN_TIMEOUT).await
    }

    async fn json(&self, method: Method, url: Url, token: Option<&ApiKey>, body: Option<&Value>) -> Result<Value, RemoteError> {
        self.json_within(method, url, token, body, REQUEST_TIMEOUT).await
    }

    async fn json_within(
        &self,
        method: Method,
        url: Url,
        token: Option<&ApiKey>,
        body: Option<&Value>,
        timeout: Duration,
    ) -> Result<Value, RemoteError> {
        let what = format!("{method} {}", url.path());
        let mut request = self.http.request(method, url).timeout(timeout);
        if let Some(token) = token {
            request = request.header("x-api-key", token.expose()).bearer_auth(token.expose());
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(|e| RemoteError::Unreachable(format!("{what}: {}", describe(&e))))?;
        let status = response.status();
        let bytes = read_limited(response).await.map_err(|e| RemoteError::Unreachable(format!("{what}: {e}")))?;
        if status.is_success() {
            return serde_json::from_slice(&bytes).map_err(|e| RemoteError::Incompatible(format!("{what} answered malformed JSON: {e}")));
        }
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).into_owned();
        // The error shapes of the LangGraph servers: `{detail}` (Python), `{error, message}` (JS).
        let said = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| ["detail", "message", "error"].iter().find_map(|k| v.get(*k).and_then(Value::as_str).map(str::to_owned)));
        let shaped = said.is_some();
        let secrets: Vec<&str> = token.map(|t| t.expose()).into_iter().collect();
        let message = crate::domain::text::redact(&format!("{what}: {status}: {}", said.unwrap_or(text)), &secrets);
        Err(match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => RemoteError::Auth(message),
            // A thread the server says it does not have: it speaks the API, the thread is gone.
            StatusCode::NOT_FOUND if shaped && what.contains("/threads/") && !what.ends_with("/threads/search") => {
                RemoteError::RunNotSuspended(message)
            }
            StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED => RemoteError::Incompatible(message),
            // A run already going on the thread (422 "thread is busy", 409): worth trying again.
            StatusCode::CONFLICT | StatusCode::UNPROCESSABLE_ENTITY if message.to_ascii_lowercase().contains("busy") => {
                RemoteError::Busy(message)
            }
            s if s.is_server_error() => RemoteError::Unreachable(message),
            _ => RemoteError::Refused(message),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_escape_thread_ids_and_keep_a_prefix() {
        let c = Client::new("http://127.0.0.1:2024/").unwrap();
        assert_eq!(c.url(&["threads", "a/b?c", "runs", "wait"]).as_str(), "http://127.0.0.1:2024/threads/a%2Fb%3Fc/runs/wait");
        let c = Client::new("http://127.0.0.1:2024/lg").unwrap();
        assert_eq!(c.url(&["threads", "search"]).as_str(), "http://127.0.0.1:2024/lg/threads/search");
    }
}
