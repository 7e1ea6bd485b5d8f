//! The client side of submitted calls, shared by the connectors that run beside an agent (the
//! coding agents' hooks, the MCP gate): find the console (`APPROVAL_CONSOLE_URL`, and an agent
//! credential in `APPROVAL_CONSOLE_TOKEN`), submit a call, wait for its outcome until a deadline,
//! and withdraw it if none came. Every failure is an `Err` with a sentence for the agent: the
//! callers fail closed on it.

use crate::app::calls::{CallStatus, NewCall, Outcome};
use serde_json::Value;
use std::time::Duration;
use tokio::time::Instant;

/// The console's address when `APPROVAL_CONSOLE_URL` is not set: a local `serve` or desktop app.
pub const DEFAULT_URL: &str = "http://127.0.0.1:4319";

/// Longest single wait request; the client asks again until its deadline.
const POLL_SECS: u64 = 25;

/// A console to ask, as an agent credential.
pub struct ConsoleClient {
    base: String,
    token: String,
    http: reqwest::Client,
}

impl ConsoleClient {
    /// The console at `url`, with the token from `APPROVAL_CONSOLE_TOKEN`.
    pub fn from_env(url: &str) -> Result<Self, String> {
        let token = std::env::var("APPROVAL_CONSOLE_TOKEN").ok().filter(|t| !t.trim().is_empty()).ok_or_else(|| {
            "APPROVAL_CONSOLE_TOKEN is not set: give it an agent credential (approval-console tokens add NAME --role agent)".to_owned()
        })?;
        Self::new(url, token.trim())
    }

    pub fn new(url: &str, token: &str) -> Result<Self, String> {
        let base = url.trim_end_matches('/').to_owned();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!("APPROVAL_CONSOLE_URL {base:?} is not an http:// or https:// address"));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
        Ok(Self { base, token: token.to_owned(), http })
    }

    /// Queues `call` (under `key`, if given) and waits for its outcome for at most `timeout`; with
    /// none by then, withdraws the call (so nobody approves what will not run) and says so — unless
    /// it was decided in the meantime, when that decision is the answer.
    pub async fn ask(&self, call: &NewCall, key: Option<&str>, timeout: Duration) -> Result<CallStatus, String> {
        let deadline = Instant::now() + timeout;
        let left = || deadline.saturating_duration_since(Instant::now());
        let base = &self.base;
        let mut submit =
            self.http.post(format!("{base}/api/calls")).bearer_auth(&self.token).json(call).timeout(left().max(Duration::from_secs(1)));
        if let Some(key) = key {
            submit = submit.header("Idempotency-Key", key);
        }
        let submitted = read(submit.send().await.map_err(|e| self.unreachable(&e))?).await?;
        let id = submitted["id"].as_str().ok_or("the console's answer has no call id")?.to_owned();
        let mut status = status_from(submitted["status"].clone())?;

        while status.outcome == Outcome::Pending && !left().is_zero() {
            let wait = left().as_secs().min(POLL_SECS);
            let asked = self
                .http
                .get(format!("{base}/api/calls/{id}?waitSecs={wait}"))
                .bearer_auth(&self.token)
                .timeout(Duration::from_secs(wait + 10).min(left() + Duration::from_secs(1)))
                .send()
                .await;
            match asked {
                // The credential holds as many long polls as it may (other sessions of the same agent):
                // wait as told, then ask again until the deadline.
                Ok(r) if r.status() == reqwest::StatusCode::TOO_MANY_REQUESTS => {
                    let secs = r.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok()?.parse().ok()).unwrap_or(1);
                    tokio::time::sleep(Duration::from_secs(secs).min(left())).await;
                }
                Ok(r) => status = status_from(read(r).await?)?,
                // The console restarting or a lost connection: the call is queued; ask again until the deadline.
                Err(e) => {
                    tracing::warn!("asking the console again: {}", self.unreachable(&e));
                    tokio::time::sleep(Duration::from_secs(1).min(left())).await;
                }
            }
        }
        if status.outcome != Outcome::Pending {
            return Ok(status);
        }
        let withdrawn =
            self.http.delete(format!("{base}/api/calls/{id}")).bearer_auth(&self.token).timeout(Duration::from_secs(5)).send().await;
        if matches!(&withdrawn, Ok(r) if r.status() == reqwest::StatusCode::CONFLICT) {
            // Decided just now: that decision stands.
            let now = self.http.get(format!("{base}/api/calls/{id}")).bearer_auth(&self.token).timeout(Duration::from_secs(5)).send().await;
            if let Ok(r) = now {
                if let Ok(s) = read(r).await.and_then(status_from) {
                    if s.outcome != Outcome::Pending {
                        return Ok(s);
                    }
                }
            }
        }
        Err(format!("no decision within {} s; the call was withdrawn from the queue", timeout.as_secs()))
    }

    fn unreachable(&self, e: &reqwest::Error) -> String {
        if e.is_timeout() {
            format!("the console at {} did not answer in time", self.base)
        } else {
            format!("the console at {} cannot be reached ({e}); is it running?", self.base)
        }
    }
}

fn status_from(v: Value) -> Result<CallStatus, String> {
    serde_json::from_value(v).map_err(|e| format!("the console's answer is not a call status: {e}"))
}

/// A JSON answer, or the console's error as a sentence.
async fn read(r: reqwest::Response) -> Result<Value, String> {
    let status = r.status();
    let body: Value = r.json().await.map_err(|e| format!("the console's answer ({status}) is not JSON: {e}"))?;
    if status.is_success() {
        return Ok(body);
    }
    let code = body["code"].as_str().unwrap_or("error");
    let message = body["message"].as_str().unwrap_or("");
    Err(match status {
        reqwest::StatusCode::UNAUTHORIZED => format!("the console refused APPROVAL_CONSOLE_TOKEN ({code}): {message}"),
        _ => format!("the console refused the call ({status}, {code}): {message}"),
    })
}
