//! The real Codex CLI (`tests/codex`: `@openai/codex` from npm) with the hook config of docs/guides/coding-agents.md, which
//! runs `approval-console hook codex` as its PreToolUse hook, against a real console. No model and no
//! account: Codex talks to a scripted Responses API on 127.0.0.1 (a model provider in its config)
//! that asks for one shell command and then ends the turn, and records what Codex tells it the
//! command did. An approval lets the command run; a decline blocks it and its reason reaches the model.
//! With the config `hooks install codex` writes, a missing or crashing hook blocks the command; one
//! that runs past Codex's timeout does not (Codex has no setting for it: the README says so, and a
//! test pins it).

use crate::agent_cli;
use crate::helpers::*;
use approval_console::domain::Role;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::routing::post;
use axum::{Json, Router};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub(crate) fn codex_bin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/codex/node_modules/.bin/codex")
}

/// The scripted model: the `exec_command` it asks for at each step of the turn, then a message;
/// and the outputs Codex sent back (also for `codex_app_server.rs`).
#[derive(Clone, Default)]
pub(crate) struct Script {
    pub commands: Vec<String>,
    pub outputs: Arc<Mutex<Vec<String>>>,
}

impl Script {
    /// A turn that asks for `command`, then ends.
    pub fn one(command: String) -> Self {
        Self { commands: vec![command], ..Default::default() }
    }
}

fn event(data: Value) -> String {
    format!("event: {}\ndata: {data}\n\n", data["type"].as_str().unwrap_or_default())
}

/// A streamed Responses API answer whose one output is `item`.
pub(crate) fn streamed(item: Value) -> impl IntoResponse {
    let usage =
        json!({ "input_tokens": 1, "input_tokens_details": null, "output_tokens": 1, "output_tokens_details": null, "total_tokens": 2 });
    let sse = [
        event(json!({ "type": "response.created", "response": { "id": "resp_1" } })),
        event(json!({ "type": "response.output_item.done", "output_index": 0, "item": item })),
        event(json!({ "type": "response.completed", "response": { "id": "resp_1", "usage": usage } })),
    ]
    .concat();
    ([(axum::http::header::CONTENT_TYPE, "text/event-stream")], sse)
}

/// `POST /v1/responses` (streamed): the next step's command, or a message once every step has its output.
async fn responses(State(script): State<Script>, Json(request): Json<Value>) -> impl IntoResponse {
    let outputs: Vec<String> = request["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["type"] == "function_call_output")
        .map(|i| i["output"].as_str().map_or_else(|| i["output"].to_string(), str::to_owned))
        .collect();
    let item = match script.commands.get(outputs.len()) {
        Some(cmd) => json!({ "type": "function_call", "id": format!("fc_{}", outputs.len()), "call_id": format!("call_{}", outputs.len()),
            "name": "exec_command", "arguments": json!({ "cmd": cmd }).to_string() }),
        None => json!({ "type": "message", "role": "assistant", "id": "msg_1", "content": [{ "type": "output_text", "text": "done" }] }),
    };
    *script.outputs.lock().unwrap() = outputs;
    streamed(item)
}

/// The scripted model on 127.0.0.1: its base URL (`…/v1`).
pub(crate) async fn scripted_model(script: Script) -> String {
    let base = agent_cli::serve_on_loopback(Router::new().route("/v1/responses", post(responses)).with_state(script)).await;
    format!("{base}/v1")
}

/// Codex's home in `dir/home` with the scripted provider at `model` and `more` (hooks) in its
/// config; answers the home. Fails when Codex is not installed.
pub(crate) fn codex_home(dir: &Path, model: &str, more: &str) -> PathBuf {
    assert!(
        codex_bin().exists(),
        "Codex is not installed ({}): run `npm ci --prefix tests/codex` (scripts/test does it)",
        codex_bin().display()
    );
    let home = dir.join("home");
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    let config = format!(
        "model = \"scripted\"\nmodel_provider = \"scripted\"\n\n[model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{model}\"\nwire_api = \"responses\"\nenv_key = \"SCRIPTED_MODEL_KEY\"\n\n{more}"
    );
    std::fs::write(home.join(".codex/config.toml"), config).unwrap();
    home
}

/// `codex exec` in `dir`, its config the scripted provider and the docs' hook block (docs/guides/coding-agents.md) (this binary
/// at its path).
fn run_codex(dir: &Path, model: &str, console: &str, token: &str) -> tokio::process::Child {
    let hooks = crate::readme::codex_hook_config().replace(crate::readme::README_BINARY, env!("CARGO_BIN_EXE_approval-console"));
    run_codex_with(dir, model, console, token, &hooks)
}

/// `codex exec` in `dir`, its config the scripted provider and `hooks`.
fn run_codex_with(dir: &Path, model: &str, console: &str, token: &str, hooks: &str) -> tokio::process::Child {
    let home = codex_home(dir, model, hooks);
    agent_cli::start(&codex_bin(), dir, console, token, |cmd| {
        // The hook is the docs', trusted here without Codex's first-use prompt; no sandbox (the
        // command is a `touch` in this test's directory).
        cmd.args([
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-hook-trust",
            "--dangerously-bypass-approvals-and-sandbox",
            "clean up",
        ])
        .env("HOME", &home)
        .env("CODEX_HOME", home.join(".codex"))
        .env("SCRIPTED_MODEL_KEY", "scripted");
    })
}

#[tokio::test]
async fn c01_the_real_codex_with_the_readme_hook_config_runs_a_command_approved_and_never_one_declined() {
    let t = spawn_app().await;
    let token = t.token("codex-hook", Role::Agent).await;
    let work = tempfile::tempdir().unwrap();

    let approved = work.path().join("approved");
    std::fs::create_dir_all(&approved).unwrap();
    let script = Script::one(format!("touch {}", approved.join("ran").display()));
    let codex = run_codex(&approved, &scripted_model(script.clone()).await, &t.base, &token);
    let call = agent_cli::queued(&t, "codex").await;
    assert_eq!((call["toolName"].as_str(), call["source"].as_str()), (Some("Bash"), Some("codex")), "{call}");
    assert_eq!(call["args"]["command"], script.commands[0].as_str(), "the command exactly as Codex would run it");
    assert_eq!(call["allowed"], json!(["approve", "decline"]), "Codex takes no edited input");
    assert!(!approved.join("ran").exists(), "nothing runs before the decision");
    let (status, body) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    agent_cli::exits_ok(codex, "codex").await;
    assert!(approved.join("ran").exists(), "the approved command ran");

    let declined = work.path().join("declined");
    std::fs::create_dir_all(&declined).unwrap();
    let script = Script::one(format!("touch {}", declined.join("ran").display()));
    let codex = run_codex(&declined, &scripted_model(script.clone()).await, &t.base, &token);
    let call = agent_cli::queued(&t, "codex").await;
    let (status, body) = t.decline(&call, "not during the release freeze").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    agent_cli::exits_ok(codex, "codex").await;
    assert!(!declined.join("ran").exists(), "the declined command never ran");
    let outputs = script.outputs.lock().unwrap().clone();
    assert!(outputs.iter().any(|o| o.contains("not during the release freeze")), "the reason reached the model: {outputs:?}");
}

/// The hook config as `hooks install codex --timeout HOOK_SECS` writes it, its program at `program`.
fn installed_hooks(dir: &Path, program: &Path, hook_secs: u64) -> String {
    let out = crate::helpers::nothing_serving(&mut std::process::Command::new(env!("CARGO_BIN_EXE_approval-console")))
        .args(["hooks", "install", "codex", "--print", "--timeout", &hook_secs.to_string(), "--settings"])
        .arg(dir.join("none.toml"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let installed = String::from_utf8(out.stdout).unwrap();
    let binary = crate::readme::installed_binary();
    assert!(installed.contains(&format!("command = \"{binary} hook codex")), "{installed}");
    installed.replace(&binary, program.to_str().unwrap())
}

/// Runs Codex in `dir/name` with `hooks` and no console to answer: whether its command ran, and
/// what the model was told.
async fn ran_with(dir: &Path, name: &str, hooks: impl FnOnce(&Path) -> String) -> (bool, Vec<String>) {
    let work = dir.join(name);
    std::fs::create_dir_all(&work).unwrap();
    let script = Script::one(format!("touch {}", work.join("ran").display()));
    let codex = run_codex_with(&work, &scripted_model(script.clone()).await, "http://127.0.0.1:9", "ac_unused", &hooks(&work));
    agent_cli::exits_ok(codex, "codex").await;
    let outputs = script.outputs.lock().unwrap().clone();
    (work.join("ran").exists(), outputs)
}

#[tokio::test]
async fn the_real_codex_blocks_the_tool_when_its_hook_is_missing_or_crashes_but_runs_it_when_the_hook_outlives_its_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let agent_cli::FailingHooks { missing, crashing, hanging } = agent_cli::failing_hooks(dir);
    let (missing, crashed, hung) = tokio::join!(
        ran_with(dir, "missing", |w| installed_hooks(w, &missing, 30)),
        ran_with(dir, "crashing", |w| installed_hooks(w, &crashing, 30)),
        // The hook's own --timeout 1, so Codex gives it 11 s; it sleeps for 120.
        ran_with(dir, "hanging", |w| installed_hooks(w, &hanging, 1)),
    );
    for (case, (ran, outputs)) in [("missing", missing), ("crashing", crashed)] {
        assert!(!ran, "{case}: the command never ran: {outputs:?}");
        assert!(
            outputs.iter().any(|o| o.contains("Approval Console: the hook failed, so this call is blocked")),
            "{case}: blocked by the config's fallback: {outputs:?}"
        );
    }
    // What Codex 0.169.0 does, as the README says: a hook it ends at its timeout lets the call run.
    // If this fails, Codex blocks now: say so in the README and docs/guides/coding-agents.md.
    assert!(hung.0, "Codex ran the command after the hook outlived its timeout: {:?}", hung.1);
}
