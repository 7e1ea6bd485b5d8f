//! The client side of submitted calls, shared by the connectors that run beside an agent (the
//! coding agents' hooks, the MCP gate): find the console (`APPROVAL_CONSOLE_URL`, and an agent
//! credential in `APPROVAL_CONSOLE_AGENT_TOKEN`), submit a call, wait for its outcome until a
//! deadline, and withdraw it if none came. Every failure is an `Err` with a sentence for the agent:
//! the callers fail closed on it.
//!
//! The agent credential never shares a variable with the console's own session token
//! (`APPROVAL_CONSOLE_TOKEN`, read by `serve` and the desktop app): an agent that holds its
//! credential must not be able to start a console as its admin. The connectors never take a token
//! from `APPROVAL_CONSOLE_TOKEN`; set alone, it is refused with a sentence naming the right one.

use crate::app::calls::{CallStatus, NewCall, Outcome};
use crate::domain::receipt::{self, Expect, Jwks};
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;
use tokio::time::Instant;

/// The console's address when `APPROVAL_CONSOLE_URL` is not set: a local `serve` or desktop app.
pub const DEFAULT_URL: &str = "http://127.0.0.1:4319";

/// Longest single wait request; the client asks again until its deadline.
const POLL_SECS: u64 = 25;

/// The variable the connectors read their agent credential from.
pub const TOKEN_VAR: &str = "APPROVAL_CONSOLE_AGENT_TOKEN";

/// The console's session token variable (`serve`, the desktop app): never a connector's credential.
const SESSION_TOKEN_VAR: &str = "APPROVAL_CONSOLE_TOKEN";

/// A console to ask, as an agent credential.
pub struct ConsoleClient {
    base: String,
    token: String,
    http: reqwest::Client,
    /// The console's receipt keys as last fetched (`/.well-known/jwks.json`).
    keys: tokio::sync::Mutex<Option<Jwks>>,
    /// The receipts this process has acted on, until they expire: each runs a tool once.
    used: std::sync::Mutex<HashMap<String, i64>>,
}

impl ConsoleClient {
    /// The console at `url`, with the agent credential from `APPROVAL_CONSOLE_AGENT_TOKEN`. Without
    /// it, an error; one that names `APPROVAL_CONSOLE_AGENT_TOKEN` when only the session token's
    /// variable is set (whose value is never read here).
    pub fn from_env(url: &str) -> Result<Self, String> {
        let token = std::env::var(TOKEN_VAR).ok().filter(|t| !t.trim().is_empty()).ok_or_else(|| {
            if std::env::var_os(SESSION_TOKEN_VAR).is_some() {
                format!(
                    "{TOKEN_VAR} is not set, and {SESSION_TOKEN_VAR} is the console's own session token, never an agent's: \
                     put the agent credential in {TOKEN_VAR} (approval-console tokens add NAME --role agent)"
                )
            } else {
                format!("{TOKEN_VAR} is not set: give it an agent credential (approval-console tokens add NAME --role agent)")
            }
        })?;
        Self::new(url, token.trim())
    }

    /// [`from_env`](Self::from_env), then the values of every `APPROVAL_CONSOLE_*` variable (the
    /// credential, a session token that happens to be set) are wiped from this process's environment
    /// block (zeroed in place), so a process that reads `/proc/<pid>/environ` of this one, or of a fork
    /// of it, no longer finds them; and this process is made non-dumpable, so another process of the
    /// same user (not root) cannot read its files in `/proc` or its memory at all. For the MCP gate,
    /// which starts an upstream server it does not trust. Call it before starting any child, while no
    /// other thread reads the environment; afterwards those variables read as empty.
    pub fn from_env_hidden(url: &str) -> Result<Self, String> {
        let console = Self::from_env(url);
        let ours: Vec<String> =
            std::env::vars_os().filter_map(|(k, _)| k.into_string().ok()).filter(|k| k.starts_with("APPROVAL_CONSOLE_")).collect();
        hide_from_proc(&ours);
        console
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
        Ok(Self { base, token: token.to_owned(), http, keys: Default::default(), used: Default::default() })
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
            return self.checked(call, status).await;
        }
        let withdrawn =
            self.http.delete(format!("{base}/api/calls/{id}")).bearer_auth(&self.token).timeout(Duration::from_secs(5)).send().await;
        if matches!(&withdrawn, Ok(r) if r.status() == reqwest::StatusCode::CONFLICT) {
            // Decided just now: that decision stands.
            let now = self.http.get(format!("{base}/api/calls/{id}")).bearer_auth(&self.token).timeout(Duration::from_secs(5)).send().await;
            if let Ok(r) = now {
                if let Ok(s) = read(r).await.and_then(status_from) {
                    if s.outcome != Outcome::Pending {
                        return self.checked(call, s).await;
                    }
                }
            }
        }
        Err(format!("no decision within {} s; the call was withdrawn from the queue", timeout.as_secs()))
    }

    /// An approval as given, once its signed receipt holds (docs/receipts.md): signed by a key the
    /// console publishes, not expired, for this call, its tool and the arguments about to run, and not
    /// acted on before by this process. Else an error: the caller fails closed. Other outcomes pass.
    async fn checked(&self, call: &NewCall, status: CallStatus) -> Result<CallStatus, String> {
        if status.outcome != Outcome::Approved {
            return Ok(status);
        }
        let refused = |why: String| format!("the approval's signed receipt is refused: {why}");
        let text = status.receipt.as_deref().ok_or_else(|| refused("the console sent none".into()))?;
        let args = status.args.as_ref().ok_or_else(|| refused("the console sent no arguments".into()))?;
        let kid = receipt::key_id_of(text).map_err(|e| refused(e.to_string()))?;
        let keys = self.keys_for(&kid).await.map_err(refused)?;
        let now = chrono::Utc::now().timestamp();
        let expect = Expect { tool: &call.tool, args, run_id: None, tool_call_id: None };
        let claims = receipt::verify(text, &keys, now, &expect).map_err(|e| refused(format!("{} ({})", e, e.code())))?;
        if claims.call_id != status.id {
            return Err(refused(format!("it is for call {}, not {}", claims.call_id, status.id)));
        }
        let mut used = self.used.lock().expect("used receipts");
        used.retain(|_, expires| *expires > now);
        if used.insert(claims.id.clone(), claims.expires_at).is_some() {
            return Err(refused(format!("receipt {} was used before (replayed)", claims.id)));
        }
        Ok(status)
    }

    /// The console's key set, fetched again when it lacks `kid` (a key made since).
    async fn keys_for(&self, kid: &str) -> Result<Jwks, String> {
        let mut held = self.keys.lock().await;
        if let Some(keys) = held.as_ref().filter(|k| k.get(kid).is_some()) {
            return Ok(keys.clone());
        }
        let r = self
            .http
            .get(format!("{}/.well-known/jwks.json", self.base))
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .map_err(|e| self.unreachable(&e))?;
        let keys: Jwks = serde_json::from_value(read(r).await?).map_err(|e| format!("the console's key set is not a JWKS: {e}"))?;
        *held = Some(keys.clone());
        Ok(keys)
    }

    fn unreachable(&self, e: &reqwest::Error) -> String {
        if e.is_timeout() {
            format!("the console at {} did not answer in time", self.base)
        } else {
            format!("the console at {} cannot be reached ({e}); is it running?", self.base)
        }
    }
}

/// Zeroes the values of `names` where the environment block holds them, and makes the process
/// non-dumpable (Linux); elsewhere, nothing.
fn hide_from_proc(names: &[String]) {
    #[cfg(target_os = "linux")]
    {
        for name in names {
            let Ok(name) = std::ffi::CString::new(name.as_str()) else { continue };
            // SAFETY: `getenv` answers a pointer to the value's NUL-terminated bytes in the environment
            // block (for a variable the process inherited: the block the kernel shows as
            // /proc/<pid>/environ), which is writable; zeroing `strlen` bytes stays inside that value
            // and leaves the terminator. The caller guarantees no other thread reads the environment.
            unsafe {
                let value = libc::getenv(name.as_ptr());
                if !value.is_null() {
                    std::ptr::write_bytes(value, 0, libc::strlen(value));
                }
            }
        }
        // SAFETY: a flag of this process; no memory is involved.
        unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = names;
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
        reqwest::StatusCode::UNAUTHORIZED => format!("the console refused {TOKEN_VAR} ({code}): {message}"),
        _ => format!("the console refused the call ({status}, {code}): {message}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::receipt::{Claims, Outcome as Decided, Signer, VERSION};
    use crate::domain::Fingerprint;
    use serde_json::json;

    /// A console on 127.0.0.1 that approves every call at once with `receipt`, and publishes `keys`.
    async fn console(receipt: Option<String>, keys: Jwks) -> ConsoleClient {
        use axum::routing::{get, post};
        let status = json!({ "id": "q_1", "outcome": "approved", "args": {"id": "rec-1"}, "edited": false, "editedFingerprint": null,
                             "reason": null, "expired": false, "data": null, "receipt": receipt });
        let app = axum::Router::new()
            .route("/api/calls", post(move || async move { axum::Json(json!({ "id": "q_1", "status": status })) }))
            .route("/.well-known/jwks.json", get(move || async move { axum::Json(keys) }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        ConsoleClient::new(&url, "agent-token").unwrap()
    }

    fn signed(signer: &Signer, args: &Value, call_id: &str) -> String {
        let fp = Fingerprint::of("delete_record", args).unwrap();
        let now = chrono::Utc::now().timestamp();
        signer.sign(&Claims {
            version: VERSION,
            id: Claims::new_id(),
            decision: Decided::Approved,
            edited: false,
            fingerprint: fp.clone(),
            executed_fingerprint: Some(fp),
            tool: "delete_record".into(),
            source: "mcp".into(),
            engine: "mcp".into(),
            agent: None,
            run_id: None,
            tool_call_id: None,
            call_id: call_id.into(),
            approvers: vec!["local:alice".into()],
            policy_version: "p-0".into(),
            issued_at: now,
            expires_at: now + 60,
        })
    }

    fn call() -> NewCall {
        serde_json::from_value(json!({ "tool": "delete_record", "args": {"id": "rec-1"}, "agent": "gate" })).unwrap()
    }

    #[tokio::test]
    async fn an_approval_passes_only_on_its_own_receipt_once() {
        let signer = Signer::generate();
        let keys = Jwks { keys: vec![signer.jwk(0)] };
        let wait = Duration::from_secs(5);
        let good = console(Some(signed(&signer, &json!({"id": "rec-1"}), "q_1")), keys.clone()).await;
        assert_eq!(good.ask(&call(), None, wait).await.unwrap().outcome, Outcome::Approved);
        let replay = good.ask(&call(), None, wait).await.unwrap_err();
        assert!(replay.contains("used before"), "{replay}");

        let refused = |why: &str, e: String| assert!(e.contains("receipt is refused") && e.contains(why), "{why}: {e}");
        let other_args = console(Some(signed(&signer, &json!({"id": "rec-2"}), "q_1")), keys.clone()).await;
        refused("fingerprint_mismatch", other_args.ask(&call(), None, wait).await.unwrap_err());
        let other_call = console(Some(signed(&signer, &json!({"id": "rec-1"}), "q_2")), keys.clone()).await;
        refused("for call q_2", other_call.ask(&call(), None, wait).await.unwrap_err());
        let stranger = console(Some(signed(&Signer::generate(), &json!({"id": "rec-1"}), "q_1")), keys.clone()).await;
        refused("unknown_key", stranger.ask(&call(), None, wait).await.unwrap_err());
        let none = console(None, keys).await;
        refused("sent none", none.ask(&call(), None, wait).await.unwrap_err());
    }
}
