//! `approval-console hook claude-code|codex`: one hook run. Reads the event on stdin, queues the
//! call through the console's HTTP API (`POST /api/calls`), waits for the decision and prints the
//! answer; every failure prints a deny. Always exits 0 with an answer on stdout: a hook that crashes
//! or exits non-zero lets the call go on in both agents.

use super::args::{HookAgent, HookArgs};
use approval_console::app::calls::{CallStatus, Outcome};
use approval_console::hook::{self, Agent, HookEvent};
use serde_json::Value;
use std::process::ExitCode;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::time::Instant;

/// Most bytes of hook input read (the console takes at most 4 MiB of call).
const INPUT_LIMIT: u64 = 4 * 1024 * 1024;

/// Longest single wait request; the hook asks again until its timeout.
const POLL: u64 = 25;

pub async fn run(which: &HookAgent) -> ExitCode {
    let (agent, args) = match which {
        HookAgent::ClaudeCode(a) => (Agent::ClaudeCode, a),
        HookAgent::Codex(a) => (Agent::Codex, a),
    };
    let mut input = String::new();
    let read = tokio::io::stdin().take(INPUT_LIMIT + 1).read_to_string(&mut input).await;
    let answer = match read {
        Err(e) => hook::deny(agent, None, &format!("Approval Console hook: cannot read the hook input: {e}")),
        Ok(n) if n as u64 > INPUT_LIMIT => hook::deny(agent, None, "Approval Console hook: the hook input is larger than 4 MiB"),
        Ok(_) => answer_for(agent, &input, args).await,
    };
    println!("{answer}");
    ExitCode::SUCCESS
}

async fn answer_for(agent: Agent, input: &str, args: &HookArgs) -> Value {
    let event = match hook::parse(input) {
        Ok(e) => e,
        Err(bad) => {
            tracing::warn!("hook input refused: {}", bad.reason);
            return hook::deny(agent, bad.event, &format!("Approval Console hook: {}", bad.reason));
        }
    };
    match ask(agent, &event, args).await {
        Ok(status) => hook::answer(agent, event.event, &status),
        Err(why) => {
            tracing::warn!("hook denies: {why}");
            hook::deny(agent, Some(event.event), &format!("Approval Console: {why}"))
        }
    }
}

/// Queues the call and waits for its outcome until the timeout; then withdraws it.
async fn ask(agent: Agent, event: &HookEvent, args: &HookArgs) -> Result<CallStatus, String> {
    let token = std::env::var("APPROVAL_CONSOLE_TOKEN").ok().filter(|t| !t.trim().is_empty()).ok_or_else(|| {
        "APPROVAL_CONSOLE_TOKEN is not set: give the hook an agent credential (approval-console tokens add NAME --role agent)".to_owned()
    })?;
    let base = args.url.trim_end_matches('/').to_owned();
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(format!("APPROVAL_CONSOLE_URL {base:?} is not an http:// or https:// address"));
    }
    let deadline = Instant::now() + Duration::from_secs(args.timeout);
    let http = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(5))
        .build()
        .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
    let left = || deadline.saturating_duration_since(Instant::now());

    let mut submit =
        http.post(format!("{base}/api/calls")).bearer_auth(&token).json(&event.call(agent)).timeout(left().max(Duration::from_secs(1)));
    if let Some(key) = event.idempotency_key(agent) {
        submit = submit.header("Idempotency-Key", key);
    }
    let answer = submit.send().await.map_err(|e| unreachable(&base, &e))?;
    let submitted = read(answer).await?;
    let id = submitted["id"].as_str().ok_or("the console's answer has no call id")?.to_owned();
    let mut status: CallStatus =
        serde_json::from_value(submitted["status"].clone()).map_err(|e| format!("the console's answer is not a call status: {e}"))?;

    while status.outcome == Outcome::Pending {
        let wait = left().as_secs().min(POLL);
        if left().is_zero() {
            break;
        }
        let asked = http
            .get(format!("{base}/api/calls/{id}?waitSecs={wait}"))
            .bearer_auth(&token)
            .timeout(Duration::from_secs(wait + 10).min(left() + Duration::from_secs(1)))
            .send()
            .await;
        match asked {
            Ok(r) => {
                status = serde_json::from_value(read(r).await?).map_err(|e| format!("the console's answer is not a call status: {e}"))?
            }
            // The console restarting or a lost connection: the call is queued; ask again until the timeout.
            Err(e) => {
                tracing::warn!("asking the console again: {}", unreachable(&base, &e));
                tokio::time::sleep(Duration::from_secs(1).min(left())).await;
            }
        }
    }
    if status.outcome != Outcome::Pending {
        return Ok(status);
    }
    // No decision in time: take the call out of the queue, so nobody approves what will not run —
    // unless it was decided just now, when that decision stands.
    let withdrawn = http.delete(format!("{base}/api/calls/{id}")).bearer_auth(&token).timeout(Duration::from_secs(5)).send().await;
    if let Ok(r) = withdrawn {
        if r.status() == reqwest::StatusCode::CONFLICT {
            let now = http.get(format!("{base}/api/calls/{id}")).bearer_auth(&token).timeout(Duration::from_secs(5)).send().await;
            if let Ok(r) = now {
                if let Ok(s) = read(r).await.and_then(|v| serde_json::from_value::<CallStatus>(v).map_err(|e| e.to_string())) {
                    if s.outcome != Outcome::Pending {
                        return Ok(s);
                    }
                }
            }
        }
    }
    Err(format!("no decision within {} s (--timeout); the call was withdrawn from the queue", args.timeout))
}

fn unreachable(base: &str, e: &reqwest::Error) -> String {
    if e.is_timeout() {
        format!("the console at {base} did not answer in time")
    } else {
        format!("the console at {base} cannot be reached ({e}); is it running?")
    }
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
