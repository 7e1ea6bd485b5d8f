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
//!
//! An approval is believed only on its signed receipt, checked here against what the connector
//! itself will run — the tool input it was given, or the operator's edit when the decision says
//! the arguments were edited — and against the receipt keys it trusts ([`keys::Trust`]: pinned,
//! or the console's trusted on first use), never merely against what the console answered.

pub mod acp;
mod always;
pub mod codex_app;
mod environ;
pub use always::{always_allowed, always_allowed_in};
pub mod keys;
pub mod relay;
#[cfg(test)]
pub(crate) mod tests;

use crate::app::calls::{CallStatus, NewCall, Outcome};
use crate::domain::receipt::{self, Expect, Jwks};
use keys::Trust;
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;
use tokio::time::Instant;

/// The console's address when `APPROVAL_CONSOLE_URL` is not set: a local `serve` or desktop app.
pub const DEFAULT_URL: &str = "http://127.0.0.1:4319";

/// The console a connector asks (the hooks, the MCP gate, `hooks install`): `given` (`--url`,
/// `APPROVAL_CONSOLE_URL`), else the console serving now, found as every CLI command finds it —
/// its record in `$XDG_RUNTIME_DIR/approval-console/serving` ([`crate::app::serving::find`]; with
/// `data_dir`, `--data-dir` or `APPROVAL_CONSOLE_DATA_DIR`, the one serving that directory) —
/// else [`DEFAULT_URL`]. An `Err` (a sentence for the agent; the callers fail closed): the named
/// data directory is not served, or several consoles serve and none is named.
pub fn console_url(given: Option<&str>, data_dir: Option<&std::path::Path>) -> Result<String, String> {
    if let Some(url) = given.map(str::trim).filter(|u| !u.is_empty()) {
        return Ok(url.to_owned());
    }
    match crate::app::serving::find(data_dir) {
        Ok(Some(serving)) => Ok(serving.url),
        Ok(None) => match data_dir {
            Some(dir) => Err(format!(
                "no console is serving the data directory {} (start one there, or give the console's address in APPROVAL_CONSOLE_URL)",
                dir.display()
            )),
            None => Ok(DEFAULT_URL.to_owned()),
        },
        Err(e) => Err(format!("{e}, or give the console's address in APPROVAL_CONSOLE_URL")),
    }
}

/// Longest single wait request; the client asks again until its deadline.
const POLL_SECS: u64 = 25;

/// The longest pause of a patient connector between two tries at an unreachable console.
pub const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// The variable the connectors read their agent credential from.
pub const TOKEN_VAR: &str = "APPROVAL_CONSOLE_AGENT_TOKEN";

/// The console's session token variable (`serve`, the desktop app): never a connector's credential.
const SESSION_TOKEN_VAR: &str = "APPROVAL_CONSOLE_TOKEN";

/// A console to ask, as an agent credential.
pub struct ConsoleClient {
    base: String,
    token: String,
    http: reqwest::Client,
    /// Which receipt keys verify.
    trust: Trust,
    /// The trusted keys, once read (or fetched on first use).
    keys: tokio::sync::Mutex<Option<Jwks>>,
    /// The receipts this process has acted on, until they expire: each runs a tool once.
    used: std::sync::Mutex<HashMap<String, i64>>,
}

impl ConsoleClient {
    /// The console at `url`, with the agent credential from `APPROVAL_CONSOLE_AGENT_TOKEN`, trusting
    /// the receipt keys pinned in `pinned` (`APPROVAL_CONSOLE_JWKS`, `--jwks`) or else the console's
    /// on first use ([`Trust::for_console`]). Without the credential, an error; one that names
    /// `APPROVAL_CONSOLE_AGENT_TOKEN` when only the session token's variable is set (whose value is
    /// never read here).
    pub fn from_env(url: &str, pinned: Option<&std::path::Path>) -> Result<Self, String> {
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
        Self::new(url, token.trim(), Trust::for_console(url, pinned)?)
    }

    /// [`from_env`](Self::from_env), then the values of every `APPROVAL_CONSOLE_*` variable (the
    /// credential, a session token that happens to be set) are wiped from this process's environment
    /// block (zeroed in place), so a process that reads `/proc/<pid>/environ` of this one, or of a fork
    /// of it, no longer finds them; and this process is made non-dumpable, so another process of the
    /// same user (not root) cannot read its files in `/proc` or its memory at all. For the MCP gate,
    /// which starts an upstream server it does not trust. Call it before starting any child, while no
    /// other thread reads the environment; afterwards those variables read as empty.
    pub fn from_env_hidden(url: &str, pinned: Option<&std::path::Path>) -> Result<Self, String> {
        let console = Self::from_env(url, pinned);
        let ours: Vec<String> =
            std::env::vars_os().filter_map(|(k, _)| k.into_string().ok()).filter(|k| k.starts_with("APPROVAL_CONSOLE_")).collect();
        environ::hide_from_proc(&ours);
        console
    }

    /// The console at `url` with the agent credential `token`, trusting the receipt keys `trust`.
    pub fn new(url: &str, token: &str, trust: Trust) -> Result<Self, String> {
        let base = url.trim_end_matches('/').to_owned();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!("APPROVAL_CONSOLE_URL {base:?} is not an http:// or https:// address"));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
        Ok(Self { base, token: token.to_owned(), http, trust, keys: Default::default(), used: Default::default() })
    }

    /// Queues `call` (under `key`, if given) and waits for its outcome for at most `timeout`; with
    /// none by then, withdraws the call (so nobody approves what will not run) and says so — unless
    /// it was decided in the meantime, when that decision is the answer.
    pub async fn ask(&self, call: &NewCall, key: Option<&str>, timeout: Duration) -> Result<CallStatus, String> {
        self.ask_with(call, key, timeout, false, std::future::pending()).await
    }

    /// [`ask`](Self::ask) for a connector whose agent waits as long as it takes (Codex's
    /// app-server, the channel relay): while the console cannot be reached — restarting, say — the
    /// call is submitted again (under the same `key`, so it is the same call) and its wait asked for
    /// again, ever less often (1 s, doubling up to [`MAX_BACKOFF`]), until `timeout`. A refusal
    /// still ends it.
    pub async fn ask_patiently(&self, call: &NewCall, key: &str, timeout: Duration) -> Result<CallStatus, String> {
        self.ask_with(call, Some(key), timeout, true, std::future::pending()).await
    }

    /// [`ask`](Self::ask), until `answered_elsewhere` completes first (another place answered the
    /// agent): then the call is withdrawn and the answer is `withdrawn` — or the console's decision,
    /// if one was committed just before the withdrawal.
    pub async fn ask_unless(
        &self,
        call: &NewCall,
        key: Option<&str>,
        timeout: Duration,
        answered_elsewhere: impl std::future::Future<Output = ()>,
    ) -> Result<CallStatus, String> {
        self.ask_with(call, key, timeout, false, answered_elsewhere).await
    }

    /// Follows call `id`, which another connector of this credential submitted and this one's call
    /// was joined into ([`CallStatus::joined_into`]): waits for its decision until `timeout` (not
    /// withdrawing it then: its own connector has a time limit of its own), then answers it — an
    /// approval only once its signed receipt holds for `tool` and the arguments the console says
    /// were approved, and `shown(args)` says they are what this connector's agent will run. An edit
    /// passes unchecked (the caller does not act on it). Pending at the deadline: that status.
    /// Until `answered_elsewhere` completes first (the agent says the tool call was answered without
    /// the console): then the call is withdrawn from the queue, as its own connector would (the same
    /// credential; a decision made just before stands), and the answer is `withdrawn`.
    pub async fn follow(
        &self,
        id: &str,
        tool: &str,
        timeout: Duration,
        shown: impl Fn(&Value) -> bool,
        answered_elsewhere: impl std::future::Future<Output = ()>,
    ) -> Result<CallStatus, String> {
        let mut answered_elsewhere = std::pin::pin!(answered_elsewhere);
        let deadline = Instant::now() + timeout;
        let left = || deadline.saturating_duration_since(Instant::now());
        let base = &self.base;
        loop {
            let wait = left().as_secs().min(POLL_SECS);
            let asking = self
                .http
                .get(format!("{base}/api/calls/{id}?waitSecs={wait}"))
                .bearer_auth(&self.token)
                .timeout(Duration::from_secs(wait + 10))
                .send();
            let asked = tokio::select! {
                biased;
                () = &mut answered_elsewhere => {
                    // Nobody should decide a call the agent answered: out of the queue (a 409, decided meanwhile, stands).
                    let withdrawn = self.http.delete(format!("{base}/api/calls/{id}")).bearer_auth(&self.token).timeout(Duration::from_secs(5));
                    if let Err(e) = withdrawn.send().await {
                        tracing::warn!("the joined call {id} stays queued: {}", self.unreachable(&e));
                    }
                    return Ok(CallStatus { id: id.to_owned(), outcome: Outcome::Withdrawn, ..Default::default() });
                }
                asked = asking => asked,
            };
            let status = match asked {
                Ok(r) if r.status() == reqwest::StatusCode::TOO_MANY_REQUESTS => {
                    tokio::time::sleep(Duration::from_secs(1).min(left())).await;
                    if left().is_zero() {
                        return Err("the console kept refusing another wait (too many requests)".into());
                    }
                    continue;
                }
                Ok(r) => status_from(read(r).await?)?,
                Err(e) if !left().is_zero() => {
                    tracing::warn!("asking the console again: {}", self.unreachable(&e));
                    tokio::time::sleep(Duration::from_secs(1).min(left())).await;
                    continue;
                }
                Err(e) => return Err(self.unreachable(&e)),
            };
            if status.id != id {
                return Err(format!("the console answered for call {}, not {id}", status.id));
            }
            if status.outcome == Outcome::Pending && !left().is_zero() {
                continue;
            }
            if status.outcome != Outcome::Approved || status.edited {
                return Ok(status);
            }
            let args = status.args.clone().ok_or("the console sent no arguments with the approval")?;
            if !shown(&args) {
                return Err(format!("call {id} was approved with arguments other than this connector's agent showed"));
            }
            let call = NewCall {
                tool: tool.to_owned(),
                args,
                agent: String::new(),
                thread: None,
                resume_schema: None,
                payload: None,
                source: None,
                context: None,
            };
            return self.checked(&call, status).await;
        }
    }

    /// [`ask_patiently`](Self::ask_patiently), until `answered_elsewhere` completes first: then as
    /// [`ask_unless`](Self::ask_unless).
    pub async fn ask_patiently_unless(
        &self,
        call: &NewCall,
        key: &str,
        timeout: Duration,
        answered_elsewhere: impl std::future::Future<Output = ()>,
    ) -> Result<CallStatus, String> {
        self.ask_with(call, Some(key), timeout, true, answered_elsewhere).await
    }

    /// [`ask_unless`](Self::ask_unless), telling `queued` the call's id as soon as the console
    /// queued it (the MCP gate links a waiting client to it: [`ConsoleClient::link`]).
    pub async fn ask_noting(
        &self,
        call: &NewCall,
        key: &str,
        timeout: Duration,
        queued: &(dyn Fn(&str) + Sync),
        answered_elsewhere: impl std::future::Future<Output = ()>,
    ) -> Result<CallStatus, String> {
        self.ask_with_noting(call, Some(key), timeout, false, queued, answered_elsewhere).await
    }

    /// The console's page of call `id`, for a person to open.
    pub fn link(&self, id: &str) -> String {
        format!("{}/#call={id}", self.base)
    }

    async fn ask_with(
        &self,
        call: &NewCall,
        key: Option<&str>,
        timeout: Duration,
        patient: bool,
        answered_elsewhere: impl std::future::Future<Output = ()>,
    ) -> Result<CallStatus, String> {
        self.ask_with_noting(call, key, timeout, patient, &|_| {}, answered_elsewhere).await
    }

    async fn ask_with_noting(
        &self,
        call: &NewCall,
        key: Option<&str>,
        timeout: Duration,
        patient: bool,
        queued: &(dyn Fn(&str) + Sync),
        answered_elsewhere: impl std::future::Future<Output = ()>,
    ) -> Result<CallStatus, String> {
        let mut answered_elsewhere = std::pin::pin!(answered_elsewhere);
        let mut elsewhere = false;
        let deadline = Instant::now() + timeout;
        let left = || deadline.saturating_duration_since(Instant::now());
        let base = &self.base;
        let mut pause = Duration::from_secs(1);
        let submitted = loop {
            let mut submit =
                self.http.post(format!("{base}/api/calls")).bearer_auth(&self.token).json(call).timeout(left().max(Duration::from_secs(1)));
            if let Some(key) = key {
                submit = submit.header("Idempotency-Key", key);
            }
            match submit.send().await {
                Ok(r) => break read(r).await?,
                Err(e) if patient && !left().is_zero() => {
                    tracing::warn!("submitting again in {} s: {}", pause.as_secs(), self.unreachable(&e));
                    tokio::time::sleep(pause.min(left())).await;
                    pause = (pause * 2).min(MAX_BACKOFF);
                }
                Err(e) => return Err(self.unreachable(&e)),
            }
        };
        pause = Duration::from_secs(1);
        let id = submitted["id"].as_str().ok_or("the console's answer has no call id")?.to_owned();
        queued(&id);
        let mut status = status_from(submitted["status"].clone())?;

        while status.outcome == Outcome::Pending && !left().is_zero() {
            let wait = left().as_secs().min(POLL_SECS);
            let asking = self
                .http
                .get(format!("{base}/api/calls/{id}?waitSecs={wait}"))
                .bearer_auth(&self.token)
                .timeout(Duration::from_secs(wait + 10).min(left() + Duration::from_secs(1)))
                .send();
            let asked = tokio::select! {
                biased;
                () = &mut answered_elsewhere => {
                    elsewhere = true;
                    break;
                }
                asked = asking => asked,
            };
            match asked {
                // The credential holds as many long polls as it may (other sessions of the same agent):
                // wait as told, then ask again until the deadline.
                Ok(r) if r.status() == reqwest::StatusCode::TOO_MANY_REQUESTS => {
                    let secs = r.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok()?.parse().ok()).unwrap_or(1);
                    tokio::time::sleep(Duration::from_secs(secs).min(left())).await;
                }
                Ok(r) => {
                    status = status_from(read(r).await?)?;
                    pause = Duration::from_secs(1);
                }
                // The console restarting or a lost connection: the call is queued; ask again until the
                // deadline (a patient connector ever less often).
                Err(e) => {
                    tracing::warn!("asking the console again: {}", self.unreachable(&e));
                    tokio::time::sleep(pause.min(left())).await;
                    if patient {
                        pause = (pause * 2).min(MAX_BACKOFF);
                    }
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
        if elsewhere {
            return Ok(CallStatus { id, outcome: Outcome::Withdrawn, ..Default::default() });
        }
        Err(format!("no decision within {} s; the call was withdrawn from the queue", timeout.as_secs()))
    }

    /// An approval, once its signed receipt holds (docs/receipts.md) for what the caller will run:
    /// its own arguments (`call.args`, what the agent gave it), or — when the decision says the
    /// operator edited them — the edited ones the console sent, bound by the receipt's
    /// `executedFingerprint`, which is computed here from those arguments; signed by a trusted key
    /// ([`Trust`]), not expired, for this call and tool, and not acted on before by this process.
    /// The status answered carries in `args` exactly the arguments checked, for the caller to run.
    /// Else an error: the caller fails closed. Other outcomes pass.
    async fn checked(&self, call: &NewCall, mut status: CallStatus) -> Result<CallStatus, String> {
        if status.outcome != Outcome::Approved {
            return Ok(status);
        }
        let refused = |why: String| format!("the approval's signed receipt is refused: {why}");
        let text = status.receipt.as_deref().ok_or_else(|| refused("the console sent none".into()))?;
        // What will run: the agent's own input, unless the decision is an edit (whose arguments
        // only the console has; the receipt binds them).
        let runs = if status.edited {
            status.args.clone().ok_or_else(|| refused("the console sent no edited arguments".into()))?
        } else {
            call.args.clone()
        };
        let kid = receipt::key_id_of(text).map_err(|e| refused(e.to_string()))?;
        let keys = self.keys_for(&kid).await.map_err(refused)?;
        let now = chrono::Utc::now().timestamp();
        let expect = Expect { tool: &call.tool, args: &runs, run_id: None, tool_call_id: None };
        let claims = receipt::verify(text, &keys, now, &expect).map_err(|e| refused(format!("{} ({})", e, e.code())))?;
        if claims.call_id != status.id {
            return Err(refused(format!("it is for call {}, not {}", claims.call_id, status.id)));
        }
        if claims.edited != status.edited {
            return Err(refused(format!(
                "it says the arguments were {}edited, the console's answer the opposite",
                if claims.edited { "" } else { "not " }
            )));
        }
        let mut used = self.used.lock().expect("used receipts");
        used.retain(|_, expires| *expires > now);
        if used.insert(claims.id.clone(), claims.expires_at).is_some() {
            return Err(refused(format!("receipt {} was used before (replayed)", claims.id)));
        }
        status.args = Some(runs);
        Ok(status)
    }

    /// The trusted key set, if it holds `kid`: the pinned one, or the console's as kept at first
    /// use — fetched (and kept) only when none was kept yet.
    async fn keys_for(&self, kid: &str) -> Result<Jwks, String> {
        let mut held = self.keys.lock().await;
        let keys = match held.as_ref() {
            Some(keys) => keys.clone(),
            None => {
                let keys = match self.trust.kept()? {
                    Some(kept) => kept,
                    None => {
                        let fetched = self.fetch_keys().await?;
                        self.trust.keep(&fetched)?;
                        fetched
                    }
                };
                *held = Some(keys.clone());
                keys
            }
        };
        if keys.get(kid).is_none() {
            return Err(self.trust.untrusted(kid));
        }
        Ok(keys)
    }

    /// The console's key set (`/.well-known/jwks.json`).
    async fn fetch_keys(&self) -> Result<Jwks, String> {
        let r = self
            .http
            .get(format!("{}/.well-known/jwks.json", self.base))
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .map_err(|e| self.unreachable(&e))?;
        serde_json::from_value(read(r).await?).map_err(|e| format!("the console's key set is not a JWKS: {e}"))
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
        reqwest::StatusCode::UNAUTHORIZED => format!("the console refused {TOKEN_VAR} ({code}): {message}"),
        _ => format!("the console refused the call ({status}, {code}): {message}"),
    })
}
