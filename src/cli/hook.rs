//! `approval-console hook claude-code|codex`: one hook run. Reads the event on stdin, asks the
//! console ([`ConsoleClient::ask`]) and prints the answer; every failure prints a deny. Always exits
//! 0 with an answer on stdout: a hook that crashes or exits non-zero lets the call go on in both agents.

use super::args::HookAgent;
use approval_console::connector::ConsoleClient;
use approval_console::hook::{self, Agent};
use serde_json::Value;
use std::process::ExitCode;
use std::time::Duration;
use tokio::io::AsyncReadExt;

/// Most bytes of hook input read (the console takes at most 4 MiB of call).
const INPUT_LIMIT: u64 = 4 * 1024 * 1024;

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
        Ok(_) => answer_for(agent, &input, &args.url, Duration::from_secs(args.timeout)).await,
    };
    println!("{answer}");
    ExitCode::SUCCESS
}

async fn answer_for(agent: Agent, input: &str, url: &str, timeout: Duration) -> Value {
    let event = match hook::parse(input) {
        Ok(e) => e,
        Err(bad) => {
            tracing::warn!("hook input refused: {}", bad.reason);
            return hook::deny(agent, bad.event, &format!("Approval Console hook: {}", bad.reason));
        }
    };
    let asked = match ConsoleClient::from_env(url) {
        Ok(console) => console.ask(&event.call(agent), event.idempotency_key(agent).as_deref(), timeout).await,
        Err(e) => Err(e),
    };
    match asked {
        Ok(status) => hook::answer(agent, event.event, &status),
        Err(why) => {
            tracing::warn!("hook denies: {why}");
            hook::deny(agent, Some(event.event), &format!("Approval Console: {why}"))
        }
    }
}
