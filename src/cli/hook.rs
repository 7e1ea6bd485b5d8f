//! `approval-console hook claude-code|codex|gemini`: one hook run. Reads the event on stdin, asks the
//! console ([`ConsoleClient::ask`]) and prints the answer; every failure prints a deny. Always exits
//! 0 with an answer on stdout, and within its --timeout and a few seconds: by default a hook that
//! crashes, exits non-zero or outlives the agent's own timeout lets the call go on in every agent
//! (`hooks install` writes the settings that make Claude Code block then, and Codex and Gemini CLI
//! where they can).

use super::args::HookAgent;
use approval_console::connector::{self, ConsoleClient};
use approval_console::hook::{self, Agent};
use serde_json::Value;
use std::process::ExitCode;
use std::time::Duration;
use tokio::io::AsyncReadExt;

/// Most bytes of hook input read (the console takes at most 4 MiB of call).
const INPUT_LIMIT: u64 = 4 * 1024 * 1024;

/// How long past --timeout the hook may take to withdraw its call and answer before it stops waiting.
const OVERRUN: Duration = Duration::from_secs(7);

/// One hook run; `data_dir` (`--data-dir`, `APPROVAL_CONSOLE_DATA_DIR`) names the console to find
/// when no URL is given.
pub async fn run(which: &HookAgent, data_dir: Option<&std::path::Path>) -> ExitCode {
    let (agent, args) = match which {
        HookAgent::ClaudeCode(a) => (Agent::ClaudeCode, a),
        HookAgent::Codex(a) => (Agent::Codex, a),
        HookAgent::Gemini(a) => (Agent::Gemini, a),
    };
    let timeout = Duration::from_secs(args.timeout);
    let answering = async {
        let mut input = String::new();
        let read = tokio::io::stdin().take(INPUT_LIMIT + 1).read_to_string(&mut input).await;
        match read {
            Err(e) => hook::deny(agent, None, &format!("Approval Console hook: cannot read the hook input: {e}")),
            Ok(n) if n as u64 > INPUT_LIMIT => hook::deny(agent, None, "Approval Console hook: the hook input is larger than 4 MiB"),
            Ok(_) => match connector::console_url(args.url.as_deref(), data_dir) {
                Ok(url) => answer_for(agent, &input, &url, args.jwks.as_deref(), timeout).await,
                Err(why) => hook::deny(
                    agent,
                    hook::parse(&input).map_or_else(|bad| bad.event, |e| Some(e.event)),
                    &format!("Approval Console: {why}"),
                ),
            },
        }
    };
    // Whatever hangs (input never closed, a console that stops answering mid-request), the hook
    // answers before the agent's own timeout, which `hooks install` sets 10 s past --timeout.
    let (answer, timed_out) = match tokio::time::timeout(timeout + OVERRUN, answering).await {
        Ok(answer) => (answer, false),
        Err(_) => (hook::deny(agent, None, &format!("Approval Console hook: no answer within {} s (--timeout)", args.timeout)), true),
    };
    println!("{answer}");
    if timed_out {
        // The input may still be open: a read of it blocks a thread that the runtime would wait for
        // at the end. The answer is out (a line of stdout is flushed), so end here.
        std::process::exit(0);
    }
    ExitCode::SUCCESS
}

async fn answer_for(agent: Agent, input: &str, url: &str, jwks: Option<&std::path::Path>, timeout: Duration) -> Value {
    let event = match hook::parse(input) {
        Ok(e) => e,
        Err(bad) => {
            tracing::warn!("hook input refused: {}", bad.reason);
            return hook::deny(agent, bad.event, &format!("Approval Console hook: {}", bad.reason));
        }
    };
    if !agent.sends(event.event) {
        let why = format!("{} does not send {} events: check the hook's event in the settings", agent.name(), event.event.name());
        tracing::warn!("hook input refused: {why}");
        return hook::deny(agent, None, &format!("Approval Console hook: {why}"));
    }
    let mut call = event.call(agent);
    let asked = match ConsoleClient::from_env(url, jwks) {
        Ok(console) => {
            if let Some(Value::Object(context)) = call.context.as_mut() {
                if let Some(file) = hook::file_on_disk(agent.source(), &event.tool_name, &event.tool_input, event.cwd.as_deref()) {
                    context.insert("file".into(), file);
                }
                if let Some(transcript) = event.transcript_path.as_deref().and_then(hook::transcript_tail) {
                    context.insert("transcript".into(), transcript);
                }
            }
            console.ask(&call, event.idempotency_key(agent).as_deref(), timeout).await
        }
        Err(e) => Err(e),
    };
    match asked {
        Ok(status) => {
            // Gemini CLI's "always allow": a policy rule in the user's policy file (never blocks the answer).
            if agent == Agent::Gemini {
                match hook::gemini_policy::home().map(|home| hook::gemini_policy::write(&call, &status, &home)) {
                    Some(Ok(Some(file))) => tracing::info!("Gemini policy rule written to {}", file.display()),
                    Some(Err(why)) => tracing::warn!("no Gemini policy rule written: {why}"),
                    Some(Ok(None)) | None => {}
                }
            }
            hook::with_session_rule(hook::answer(agent, event.event, &status), &call, &status)
        }
        Err(why) => {
            tracing::warn!("hook denies: {why}");
            hook::deny(agent, Some(event.event), &format!("Approval Console: {why}"))
        }
    }
}
