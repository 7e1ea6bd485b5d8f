//! HTTP client for one LangGraph server (the LangGraph Platform API as the official servers serve
//! it): the interrupted threads, one thread, and a resume run created — each failure classified.

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
/// Bytes read per listing at most, all pages together (one answer may hold up to
/// [`crate::engine::remote::http::MAX_BODY`]): beyond it the listing stops, partial.
pub const LISTING_BUDGET: usize = 64 * 1024 * 1024;

/// A server at `base` (e.g. `http://127.0.0.1:2024`). A token is sent as `x-api-key` (LangGraph
/// Platform, Agent Inbox) and as a bearer token (custom auth), so either kind of deployment takes it.
#[derive(Clone)]
pub struct Client {
    base: Url,
    http: reqwest::Client,
    /// [`LISTING_BUDGET`], smaller in tests.
    listing_budget: usize,
}

/// One listing of the interrupted threads.
pub struct Listing {
    pub threads: Vec<Value>,
    /// False if there were more than [`MAX_PAGES`] pages, or more than [`LISTING_BUDGET`] bytes:
    /// then nothing unlisted is taken as gone.
    pub complete: bool,
}

impl Client {
    pub fn new(base: &str) -> Result<Self, String> {
        Ok(Self { base: parse_base_url(base)?, http: http_client()?, listing_budget: LISTING_BUDGET })
    }

    /// This client with another total budget for one listing (tests).
    pub fn with_listing_budget(mut self, bytes: usize) -> Self {
        self.listing_budget = bytes;
        self
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
        let mut read = 0;
        for page in 0..MAX_PAGES {
            if read > self.listing_budget {
                tracing::warn!(
                    "{}: the {status} threads take more than {} bytes after {page} pages: the listing is partial (nothing unlisted is taken as gone)",
                    self.base,
                    self.listing_budget
                );
                return Ok(Listing { threads, complete: false });
            }
            let body = json!({
                "status": status, "limit": PAGE, "offset": page * PAGE,
                "sort_by": "thread_id", "sort_order": "asc",
                "select": ["thread_id", "status", "metadata", "interrupts", "updated_at"],
            });
            let (answer, size) =
                self.json_sized(Method::POST, self.url(&["threads", "search"]), token, Some(&body), REQUEST_TIMEOUT).await?;
            read += size;
            let Value::Array(found) = answer else {
                return Err(RemoteError::Incompatible("POST /threads/search did not answer a list of threads".into()));
            };
            let last = found.len() < PAGE;
            threads.extend(found);
            if last {
                return Ok(Listing { threads, complete: true });
            }
        }
        tracing::warn!("{}: more than {MAX_PAGES} pages of {status} threads: the listing is partial", self.base);
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

    /// `POST /threads/{id}/runs` with `body` (`{assistant_id, command: {resume}}`): the run as the
    /// server created it (`run_id`, `status: pending`), answered at once — not waited for. `busy`
    /// if a run already goes on the thread (the server rejects a second one).
    pub async fn resume(&self, thread: &str, body: &Value, token: Option<&ApiKey>) -> Result<Value, RemoteError> {
        self.json(Method::POST, self.url(&["threads", thread, "runs"]), token, Some(body)).await
    }

    async fn json(&self, method: Method, url: Url, token: Option<&ApiKey>, body: Option<&Value>) -> Result<Value, RemoteError> {
        self.json_sized(method, url, token, body, REQUEST_TIMEOUT).await.map(|(v, _)| v)
    }

    /// A request's JSON answer within `timeout`, with the answer's size in bytes; each failure
    /// classified.
    async fn json_sized(
        &self,
        method: Method,
        url: Url,
        token: Option<&ApiKey>,
        body: Option<&Value>,
        timeout: Duration,
    ) -> Result<(Value, usize), RemoteError> {
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
            return serde_json::from_slice(&bytes)
                .map(|v| (v, bytes.len()))
                .map_err(|e| RemoteError::Incompatible(format!("{what} answered malformed JSON: {e}")));
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
            // A run already going on the thread (409 "thread is busy", 422 "thread is already running
            // a task"): worth trying again.
            StatusCode::CONFLICT | StatusCode::UNPROCESSABLE_ENTITY if busy(&message) => RemoteError::Busy(message),
            s if s.is_server_error() => RemoteError::Unreachable(message),
            _ => RemoteError::Refused(message),
        })
    }
}

/// Whether a 409/422 says a run already goes on the thread (the servers' words for it).
fn busy(message: &str) -> bool {
    let said = message.to_ascii_lowercase();
    said.contains("busy") || said.contains("already running")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_run_on_a_thread_is_busy_in_either_servers_words() {
        assert!(busy("POST /threads/t/runs: 422 Unprocessable Entity: Thread is already running a task. Wait for it to finish or choose a different multitask strategy."));
        assert!(busy("POST /threads/t/state: 409 Conflict: Thread is busy"));
        assert!(!busy("POST /threads/t/runs: 422 Unprocessable Entity: invalid command"));
    }

    #[test]
    fn urls_escape_thread_ids_and_keep_a_prefix() {
        let c = Client::new("http://127.0.0.1:2024/").unwrap();
        assert_eq!(c.url(&["threads", "a/b?c", "runs"]).as_str(), "http://127.0.0.1:2024/threads/a%2Fb%3Fc/runs");
        let c = Client::new("http://127.0.0.1:2024/lg").unwrap();
        assert_eq!(c.url(&["threads", "search"]).as_str(), "http://127.0.0.1:2024/lg/threads/search");
    }

    /// A server on 127.0.0.1 whose every `POST /threads/search` answers a full page of 100 threads
    /// of about 10 KB each; the number of pages asked for is counted.
    async fn endless_pages() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = asked.clone();
        let page: Vec<Value> = (0..PAGE)
            .map(|i| json!({ "thread_id": format!("t{i}"), "status": "interrupted", "metadata": { "pad": "x".repeat(10_000) } }))
            .collect();
        let page = serde_json::to_string(&page).unwrap();
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else { return };
                let (count, page) = (count.clone(), page.clone());
                tokio::spawn(async move {
                    let mut seen = Vec::new();
                    let mut buf = [0u8; 4096];
                    loop {
                        // Each request: its head, then its body (Content-Length), then the answer.
                        let head_end = loop {
                            if let Some(at) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                                break at + 4;
                            }
                            match socket.read(&mut buf).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => seen.extend_from_slice(&buf[..n]),
                            }
                        };
                        let head = String::from_utf8_lossy(&seen[..head_end]).to_ascii_lowercase();
                        let length: usize =
                            head.lines().find_map(|l| l.strip_prefix("content-length: ")).and_then(|n| n.trim().parse().ok()).unwrap_or(0);
                        while seen.len() < head_end + length {
                            match socket.read(&mut buf).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => seen.extend_from_slice(&buf[..n]),
                            }
                        }
                        seen.drain(..head_end + length);
                        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let reply =
                            format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{page}", page.len());
                        if socket.write_all(reply.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        (base, asked)
    }

    #[tokio::test]
    async fn a_listing_stops_partial_once_its_pages_pass_the_total_budget() {
        let (base, asked) = endless_pages().await;
        // About 1 MB a page: past 3 MB after the fourth page.
        let client = Client::new(&base).unwrap().with_listing_budget(3 * 1024 * 1024);
        let listing = client.threads("interrupted", None).await.unwrap();
        assert!(!listing.complete, "a listing cut by the budget is partial, so nothing unlisted is taken as gone");
        assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 4);
        assert_eq!(listing.threads.len(), 4 * PAGE);
    }
}
