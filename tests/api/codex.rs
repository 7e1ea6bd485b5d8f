//! The real Codex CLI (`tests/codex`: `@openai/codex` from npm) with the README's hook config, which
//! runs `approval-console hook codex` as its PreToolUse hook, against a real console. No model and no
//! account: Codex talks to a scripted Responses API on 127.0.0.1 (a model provider in its config)
//! that asks for one shell command and then ends the turn, and records what Codex tells it the
//! command did. An approval lets the command run; a decline blocks it and its reason reaches the model.

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

fn codex_bin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/codex/node_modules/.bin/codex")
}

/// The scripted model: the command it asks for, and the outputs Codex sent back.
#[derive(Clone, Default)]
struct Script {
    command: String,
    outputs: Arc<Mutex<Vec<String>>>,
}

fn event(data: Value) -> String {
    format!("event: {}\ndata: {data}\n\n", data["type"].as_str().unwrap_or_default())
}

/// `POST /v1/responses` (streamed): an `exec_command` call for a new turn; after its output, a message.
async fn responses(State(script): State<Script>, Json(request): Json<Value>) -> impl IntoResponse {
    let outputs: Vec<String> = request["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["type"] == "function_call_output")
        .map(|i| match &i["output"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    let item = if outputs.is_empty() {
        json!({ "type": "function_call", "id": "fc_1", "call_id": "call_console_1", "name": "exec_command",
            "arguments": json!({ "cmd": script.command }).to_string() })
    } else {
        json!({ "type": "message", "role": "assistant", "id": "msg_1", "content": [{ "type": "output_text", "text": "done" }] })
    };
    *script.outputs.lock().unwrap() = outputs;
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

async fn scripted_model(script: Script) -> String {
    let base = agent_cli::serve_on_loopback(Router::new().route("/v1/responses", post(responses)).with_state(script)).await;
    format!("{base}/v1")
}

/// `codex exec` in `dir`, its config the scripted provider and the README's hook block (the binary
/// named by its path).
fn run_codex(dir: &Path, model: &str, console: &str, token: &str) -> tokio::process::Child {
    assert!(
        codex_bin().exists(),
        "Codex is not installed ({}): run `npm ci --prefix tests/codex` (scripts/test does it)",
        codex_bin().display()
    );
    let home = dir.join("home");
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    let hooks = crate::readme::block("toml", "hook codex")
        .replace("\"approval-console hook codex", &format!("\"{} hook codex", env!("CARGO_BIN_EXE_approval-console")));
    let config = format!(
        "model = \"scripted\"\nmodel_provider = \"scripted\"\n\n[model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{model}\"\nwire_api = \"responses\"\nenv_key = \"SCRIPTED_MODEL_KEY\"\n\n{hooks}"
    );
    std::fs::write(home.join(".codex/config.toml"), config).unwrap();
    agent_cli::start(&codex_bin(), dir, console, token, |cmd| {
        // The hook is the README's, trusted here without Codex's first-use prompt; no sandbox (the
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
    let script = Script { command: format!("touch {}", approved.join("ran").display()), ..Default::default() };
    let codex = run_codex(&approved, &scripted_model(script.clone()).await, &t.base, &token);
    let call = agent_cli::queued(&t, "codex").await;
    assert_eq!((call["toolName"].as_str(), call["source"].as_str()), (Some("Bash"), Some("codex")), "{call}");
    assert_eq!(call["args"]["command"], script.command.as_str(), "the command exactly as Codex would run it");
    assert_eq!(call["allowed"], json!(["approve", "decline"]), "Codex takes no edited input");
    assert!(!approved.join("ran").exists(), "nothing runs before the decision");
    let (status, body) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    agent_cli::exits_ok(codex, "codex").await;
    assert!(approved.join("ran").exists(), "the approved command ran");

    let declined = work.path().join("declined");
    std::fs::create_dir_all(&declined).unwrap();
    let script = Script { command: format!("touch {}", declined.join("ran").display()), ..Default::default() };
    let codex = run_codex(&declined, &scripted_model(script.clone()).await, &t.base, &token);
    let call = agent_cli::queued(&t, "codex").await;
    let (status, body) = t.decline(&call, "not during the release freeze").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    agent_cli::exits_ok(codex, "codex").await;
    assert!(!declined.join("ran").exists(), "the declined command never ran");
    let outputs = script.outputs.lock().unwrap().clone();
    assert!(outputs.iter().any(|o| o.contains("not during the release freeze")), "the reason reached the model: {outputs:?}");
}
