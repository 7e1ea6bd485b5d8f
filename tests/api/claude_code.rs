//! The real Claude Code CLI (`tests/claude-code`: `@anthropic-ai/claude-code` from npm) with
//! `approval-console hook claude-code` as its PreToolUse hook (the settings of docs/guides/coding-agents.md), against a
//! real console. No model and no
//! account: Claude Code talks to a scripted Messages API on 127.0.0.1 (`ANTHROPIC_BASE_URL`) that asks
//! for one Bash call and then ends the turn, and records what Claude Code tells it the tool did. An
//! approval lets the command run; a decline keeps it from running and its reason reaches the model.
//! With the settings `hooks install` writes, a hook that cannot answer (missing, crashing, past its
//! timeout) blocks the command too, where Claude Code would otherwise have run it.

use crate::agent_cli;
use crate::helpers::*;
use approval_console::domain::Role;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What Claude Code is asked to do.
const PROMPT: &str = "clean up the build folder";

fn claude_bin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/claude-code/node_modules/.bin/claude")
}

/// The scripted model: the Bash command it asks for (or, when `steps` has some, those tool calls
/// one after another), and the tool results Claude Code sent back.
#[derive(Clone, Default)]
struct Script {
    command: String,
    steps: Vec<(&'static str, Value)>,
    results: Arc<Mutex<Vec<String>>>,
    /// Claude Code's home: the model proposes a tool only once Claude Code's transcript there holds
    /// the prompt. Claude Code writes its transcript asynchronously (its documentation: it "may not
    /// yet include the current turn's most recent messages when a hook fires"), so under load a hook
    /// can run before the prompt is on disk; a test of what the hook read waits for it first.
    transcript_in: Option<PathBuf>,
}

/// Whether a transcript (`.jsonl`) under `home/.claude/projects` holds `text`.
fn transcribed(home: &Path, text: &str) -> bool {
    let Ok(projects) = std::fs::read_dir(home.join(".claude/projects")) else { return false };
    projects.flatten().filter_map(|project| std::fs::read_dir(project.path()).ok()).flatten().flatten().any(|file| {
        file.path().extension().is_some_and(|e| e == "jsonl") && std::fs::read_to_string(file.path()).is_ok_and(|t| t.contains(text))
    })
}

impl Script {
    /// The tool call for a request that holds `done` tool results so far, if any is left.
    fn step(&self, done: usize) -> Option<(&'static str, Value)> {
        if self.steps.is_empty() {
            return (done == 0).then(|| ("Bash", json!({ "command": self.command, "description": "Clean up" })));
        }
        self.steps.get(done).cloned()
    }
}

/// One Server-Sent Event of the Messages API.
fn event(kind: &str, data: Value) -> String {
    format!("event: {kind}\ndata: {data}\n\n")
}

/// `POST /v1/messages`: a Bash `tool_use` for a new turn; after a tool result, the end of the turn.
async fn messages(State(script): State<Script>, Json(request): Json<Value>) -> Response {
    let last = request["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or(Value::Null);
    let results: Vec<String> = last["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["type"] == "tool_result")
        .map(|c| match &c["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    let done = request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|c| c["type"] == "tool_result")
        .count();
    let offered = |name: &str| request["tools"].as_array().into_iter().flatten().any(|t| t["name"] == name);
    let step = script.step(done).filter(|(name, _)| offered(name));
    if let (Some(home), Some(_)) = (&script.transcript_in, &step) {
        let home = home.clone();
        wait::eventually(std::time::Duration::from_secs(60), "Claude Code's transcript holds the prompt", move || {
            let home = home.clone();
            async move { transcribed(&home, PROMPT) }
        })
        .await;
    }
    script.results.lock().unwrap().extend(results);
    let model = request["model"].clone();
    if request["stream"] != true {
        let body = json!({ "id": "msg_plain", "type": "message", "role": "assistant", "model": model,
            "content": [{ "type": "text", "text": "ok" }], "stop_reason": "end_turn", "stop_sequence": null,
            "usage": { "input_tokens": 1, "output_tokens": 1 } });
        return Json(body).into_response();
    }
    let mut sse = event(
        "message_start",
        json!({ "type": "message_start", "message": { "id": "msg_1", "type": "message", "role": "assistant",
        "model": model, "content": [], "stop_reason": null, "stop_sequence": null, "usage": { "input_tokens": 10, "output_tokens": 1 } } }),
    );
    let stop = if let Some((name, input)) = step {
        let input = input.to_string();
        sse += &event(
            "content_block_start",
            json!({ "type": "content_block_start", "index": 0,
            "content_block": { "type": "tool_use", "id": format!("toolu_console_{}", done + 1), "name": name, "input": {} } }),
        );
        sse += &event(
            "content_block_delta",
            json!({ "type": "content_block_delta", "index": 0, "delta": { "type": "input_json_delta", "partial_json": input } }),
        );
        "tool_use"
    } else {
        sse += &event(
            "content_block_start",
            json!({ "type": "content_block_start", "index": 0, "content_block": { "type": "text", "text": "" } }),
        );
        sse += &event(
            "content_block_delta",
            json!({ "type": "content_block_delta", "index": 0, "delta": { "type": "text_delta", "text": "done" } }),
        );
        "end_turn"
    };
    sse += &event("content_block_stop", json!({ "type": "content_block_stop", "index": 0 }));
    sse += &event(
        "message_delta",
        json!({ "type": "message_delta", "delta": { "stop_reason": stop, "stop_sequence": null }, "usage": { "output_tokens": 1 } }),
    );
    sse += &event("message_stop", json!({ "type": "message_stop" }));
    ([(axum::http::header::CONTENT_TYPE, "text/event-stream")], sse).into_response()
}

/// Serves the scripted model on 127.0.0.1; its base URL.
async fn scripted_model(script: Script) -> String {
    agent_cli::serve_on_loopback(Router::new().route("/v1/messages", post(messages)).with_state(script)).await
}

/// Runs `claude -p` in `dir` with the docs' hook settings (docs/guides/coding-agents.md) (this binary at its path).
fn run_claude(dir: &Path, model: &str, console: &str, token: &str) -> tokio::process::Child {
    let settings = crate::readme::claude_code_settings().replace(crate::readme::README_BINARY, env!("CARGO_BIN_EXE_approval-console"));
    run_claude_with(dir, model, console, token, &settings)
}

/// Runs `claude -p` in `dir` with `settings`; resolves when it exits.
fn run_claude_with(dir: &Path, model: &str, console: &str, token: &str, settings: &str) -> tokio::process::Child {
    assert!(
        claude_bin().exists(),
        "Claude Code is not installed ({}): run `npm ci --prefix tests/claude-code` (scripts/test does it)",
        claude_bin().display()
    );
    std::fs::write(dir.join("settings.json"), settings).unwrap();
    std::fs::create_dir_all(dir.join("home")).unwrap();
    agent_cli::start(&claude_bin(), dir, console, token, |cmd| {
        cmd.args(["-p", PROMPT, "--output-format", "json", "--settings"])
            .arg(dir.join("settings.json"))
            .env("HOME", dir.join("home"))
            .env("ANTHROPIC_BASE_URL", model)
            .env("ANTHROPIC_API_KEY", "sk-ant-scripted-model")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1");
    })
}

/// Claude Code's answer (`--output-format json`), once it exited 0.
async fn finished(child: tokio::process::Child) -> Value {
    let out = agent_cli::exits_ok(child, "claude").await;
    serde_json::from_slice(&out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)))
}

#[tokio::test]
async fn c01_the_real_claude_code_runs_a_command_the_operator_approved_and_never_one_declined() {
    let t = spawn_app().await;
    let token = t.token("claude-hook", Role::Agent).await;
    let work = tempfile::tempdir().unwrap();

    // Approved: Claude Code runs the command.
    let approved = work.path().join("approved");
    std::fs::create_dir_all(&approved).unwrap();
    let script = Script { command: format!("touch {}", approved.join("ran").display()), ..Default::default() };
    let model = scripted_model(script.clone()).await;
    let claude = run_claude(&approved, &model, &t.base, &token);
    let call = agent_cli::queued(&t, "claude-code").await;
    assert_eq!((call["toolName"].as_str(), call["source"].as_str()), (Some("Bash"), Some("claude-code")), "{call}");
    assert_eq!(call["args"]["command"], script.command.as_str(), "the command exactly as Claude Code would run it");
    assert_eq!(call["context"]["cwd"].as_str().map(|c| c.ends_with("approved")), Some(true), "{call}");
    assert!(!approved.join("ran").exists(), "nothing runs before the decision");
    let (status, body) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answer = finished(claude).await;
    assert!(approved.join("ran").exists(), "the approved command ran: {answer}");
    assert!(answer["permission_denials"].as_array().is_none_or(Vec::is_empty), "{answer}");

    // Declined: it never runs, and the model hears the operator's reason.
    let declined = work.path().join("declined");
    std::fs::create_dir_all(&declined).unwrap();
    let script = Script { command: format!("touch {}", declined.join("ran").display()), ..Default::default() };
    let model = scripted_model(script.clone()).await;
    let claude = run_claude(&declined, &model, &t.base, &token);
    let call = agent_cli::queued(&t, "claude-code").await;
    let (status, body) = t.decline(&call, "not during the release freeze").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answer = finished(claude).await;
    assert!(!declined.join("ran").exists(), "the declined command never ran");
    assert_eq!(answer["permission_denials"][0]["tool_name"], "Bash", "{answer}");
    let results = script.results.lock().unwrap().clone();
    assert!(results.iter().any(|r| r.contains("not during the release freeze")), "the reason reached the model: {results:?}");
}

/// Issue 27: the real Claude Code reads a file, then asks to `Edit` it; the hook sends the file as it
/// is on disk, so the queued call shows the change as a unified diff against the file (its own line
/// numbers) with a summary for the row, and the approved edit is what lands in the file.
#[tokio::test]
async fn the_real_claude_codes_edit_is_shown_as_a_diff_against_the_file_on_disk() {
    let t = spawn_app().await;
    let token = t.token("claude-hook", Role::Agent).await;
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("pay.py");
    let before = "import os\n\ndef transfer(amount):\n    limit = 100\n    return send(amount, limit)\n";
    std::fs::write(&file, before).unwrap();
    let path = file.to_str().unwrap().to_owned();
    let script = Script {
        steps: vec![
            ("Read", json!({ "file_path": path })),
            ("Edit", json!({ "file_path": path, "old_string": "    limit = 100\n", "new_string": "    limit = 10_000\n" })),
        ],
        transcript_in: Some(work.path().join("home")),
        ..Default::default()
    };
    let model = scripted_model(script.clone()).await;
    let claude = run_claude(work.path(), &model, &t.base, &token);
    let call = agent_cli::queued(&t, "claude-code").await;
    assert_eq!(call["toolName"], "Edit", "{call}");
    let changes = &call["changes"];
    assert_eq!(changes["summary"], "edits 1 line in pay.py", "{call}");
    let f = &changes["files"][0];
    assert_eq!((f["path"].as_str(), f["action"].as_str(), f["againstDisk"].as_bool()), (Some("pay.py"), Some("edit"), Some(true)), "{f}");
    assert_eq!(
        f["diff"],
        "@@ -1,5 +1,5 @@\n import os\n \n def transfer(amount):\n-    limit = 100\n+    limit = 10_000\n     return send(amount, limit)\n",
        "{f}"
    );
    assert_eq!(call["context"]["file"].get("text"), None, "the file's text is shown as the diff, not sent again: {call}");
    // What led to it: the end of Claude Code's transcript, which the hook read (the prompt given).
    let (status, reason) = t.get(&format!("/api/queue/{}/reason", call["id"].as_str().unwrap())).await;
    assert_eq!((status, reason["source"].as_str()), (StatusCode::OK, Some("hook")), "{reason}");
    assert_eq!(reason["messages"][0], json!({ "role": "user", "text": "clean up the build folder" }), "{reason}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before, "nothing is edited before the decision");
    let (status, body) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    finished(claude).await;
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        before.replace("limit = 100", "limit = 10_000"),
        "the edit approved is the edit made"
    );
}

/// Settings as `hooks install claude-code --timeout HOOK_SECS` writes them, Bash allowed without
/// asking (so only the hook can stop a command), and the hook's program at `program`; `on_failure`
/// false drops `onFailure` (what Claude Code does without it).
fn installed_settings(dir: &Path, program: &Path, hook_secs: u64, on_failure: bool) -> String {
    let file = dir.join("installed.json");
    std::fs::write(&file, r#"{ "permissions": { "allow": ["Bash"] } }"#).unwrap();
    let out = crate::helpers::nothing_serving(&mut std::process::Command::new(env!("CARGO_BIN_EXE_approval-console")))
        .args(["hooks", "install", "claude-code", "--timeout", &hook_secs.to_string(), "--settings"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut settings: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let entry = &mut settings["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(entry["onFailure"], "block", "{entry}");
    entry["command"] = json!(program);
    if !on_failure {
        entry.as_object_mut().unwrap().remove("onFailure");
    }
    settings.to_string()
}

/// Runs Claude Code in `dir/name` with `settings` and no console to answer: whether its command ran,
/// and the tool results the model got.
async fn ran_with(dir: &Path, name: &str, settings: impl FnOnce(&Path) -> String) -> (bool, Vec<String>) {
    let work = dir.join(name);
    std::fs::create_dir_all(&work).unwrap();
    let script = Script { command: format!("touch {}", work.join("ran").display()), ..Default::default() };
    let model = scripted_model(script.clone()).await;
    let claude = run_claude_with(&work, &model, "http://127.0.0.1:9", "ac_unused", &settings(&work));
    finished(claude).await;
    let results = script.results.lock().unwrap().clone();
    (work.join("ran").exists(), results)
}

#[tokio::test]
async fn the_real_claude_code_blocks_the_tool_when_its_hook_is_missing_crashes_or_runs_past_its_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let agent_cli::FailingHooks { missing, crashing, hanging } = agent_cli::failing_hooks(dir);
    let (missing_open, missing_blocked, crashed, hung) = tokio::join!(
        // The control: without onFailure, Claude Code runs the command when the hook is missing.
        ran_with(dir, "missing-open", |w| installed_settings(w, &missing, 30, false)),
        ran_with(dir, "missing", |w| installed_settings(w, &missing, 30, true)),
        ran_with(dir, "crashing", |w| installed_settings(w, &crashing, 30, true)),
        // The hook's own --timeout 1, so Claude Code gives it 11 s; it sleeps for 120.
        ran_with(dir, "hanging", |w| installed_settings(w, &hanging, 1, true)),
    );
    assert!(missing_open.0, "without onFailure the command runs: the test would see a hook that fails open: {:?}", missing_open.1);
    for (case, (ran, results)) in [("missing", missing_blocked), ("crashing", crashed), ("past its timeout", hung)] {
        assert!(!ran, "{case}: the command never ran: {results:?}");
        assert!(results.iter().any(|r| r.contains("onFailure")), "{case}: blocked by the failed hook: {results:?}");
    }
}

/// The settings `hooks install claude-code --event permission-request` writes (printed) for a
/// project in `dir`, asking the console at `url`.
fn permission_request_settings(dir: &Path, url: &str) -> Value {
    let installed = std::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .args(["hooks", "install", "claude-code", "--event", "permission-request", "--print", "--timeout", "60", "--url", url])
        .arg("--settings")
        .arg(dir.join("settings.json"))
        .output()
        .unwrap();
    assert!(installed.status.success(), "{}", String::from_utf8_lossy(&installed.stderr));
    serde_json::from_slice(&installed.stdout).unwrap()
}

/// A model asking for the same Bash command (a `touch` in `dir`) twice in one run: the command, the script.
fn touch_twice(dir: &Path) -> (String, Script) {
    let command = format!("touch {}", dir.join("ran").display());
    let bash = json!({ "command": command, "description": "Touch" });
    (command, Script { steps: vec![("Bash", bash.clone()), ("Bash", bash)], ..Default::default() })
}

/// Issue 47: Claude Code with `approval-console hook claude-code` on `PermissionRequest` (as
/// `hooks install claude-code --event permission-request` writes it), asked for
/// the same Bash command twice in one `claude -p` run. An admin's "always allow" grant made from the
/// first call approves it, and the hook's allow carries `updatedPermissions` in session scope (from
/// Claude Code's own suggestion): Claude Code runs the second call without asking — one queued call,
/// two runs — and the grant's use in the audit log names the rule sent and to which agent.
#[tokio::test]
async fn an_always_allow_grant_writes_a_session_rule_back_and_the_real_claude_code_does_not_ask_again() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    let token = t.token("claude-hook", Role::Agent).await;
    let work = tempfile::tempdir().unwrap();
    let (command, script) = touch_twice(work.path());
    let model = scripted_model(script.clone()).await;
    let settings = permission_request_settings(work.path(), &t.base);
    assert!(settings["hooks"].get("PreToolUse").is_none() && settings["hooks"]["PermissionRequest"].is_array(), "{settings}");
    let claude = run_claude_with(work.path(), &model, &t.base, &token, &settings.to_string());
    let call = agent_cli::queued(&t, "claude-code").await;
    assert_eq!(call["context"]["event"], "PermissionRequest", "{call}");
    assert!(call["context"]["permissionSuggestions"].is_array(), "Claude Code's suggestions are kept with the call: {call}");
    let grant = json!({ "fromItem": call["id"], "fingerprint": call["fingerprint"], "scope": "agent", "expiresInSecs": 3600,
        "conditions": [{ "pointer": "/command", "op": "equals", "value": command }] });
    let (status, made) = t.post("/api/grants", grant).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let answer = finished(claude).await;
    let results = script.results.lock().unwrap().clone();
    // (A tool result is counted once per request that ends with it: Claude Code may ask twice.)
    assert!(results.len() >= 2 && results.iter().all(|r| r.contains("completed")), "both Bash calls ran: {results:?} {answer}");
    assert!(answer["permission_denials"].as_array().is_none_or(Vec::is_empty), "{answer}");
    let (_, audit) = t.get("/api/audit").await;
    let asked: Vec<&Value> = audit["entries"].as_array().unwrap().iter().filter(|e| e["action"] == "call.paused").collect();
    assert_eq!(asked.len(), 1, "the second identical call never reached the hook: {asked:?}");
    let used = audit["entries"].as_array().unwrap().iter().find(|e| e["action"] == "grant.used").expect("grant.used audited");
    let rule = &used["details"]["sessionRule"];
    assert_eq!((rule["agent"].as_str(), rule["destination"].as_str()), (Some("claude-code"), Some("session")), "{used}");
    assert_eq!(rule["rule"][0]["destination"], "session", "{used}");
}

/// Issue 47: the same run as the session-scope test, with the grant's rule scope `project` picked by
/// the admin. The preview shows, before the grant is made, the rule and the file it goes to (built by
/// the function the hook uses); the grant's approval tells the real Claude Code to keep the rule in
/// its project settings, and it writes it into the project's `.claude/settings.json`; the grant's
/// creation and use are audited with the scope and the file. (Within the same run Claude Code still
/// asks about the second call: a project rule is for its later sessions.)
#[tokio::test]
async fn a_project_scope_grant_shown_before_confirming_makes_the_real_claude_code_write_the_rule_into_the_projects_settings() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    let token = t.token("claude-hook", Role::Agent).await;
    let work = tempfile::tempdir().unwrap();
    let (command, script) = touch_twice(work.path());
    let model = scripted_model(script.clone()).await;
    let settings = permission_request_settings(work.path(), &t.base);
    let claude = run_claude_with(work.path(), &model, &t.base, &token, &settings.to_string());
    let call = agent_cli::queued(&t, "claude-code").await;
    let cwd = call["context"]["cwd"].as_str().expect("the hook reports its cwd").to_owned();
    let grant = json!({ "fromItem": call["id"], "fingerprint": call["fingerprint"], "scope": "agent", "expiresInSecs": 3600,
        "conditions": [{ "pointer": "/command", "op": "equals", "value": command }], "ruleScope": "project" });

    let (status, preview) = t.post("/api/grants/preview", grant.clone()).await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    let shown = &preview["agentRule"];
    assert_eq!(shown["scopes"], json!(["session", "project", "user"]), "{preview}");
    let settings_file = format!("{cwd}/.claude/settings.json");
    assert_eq!(shown["rule"]["location"], settings_file.as_str(), "{preview}");
    assert_eq!(
        shown["rule"]["rule"],
        json!([{ "type": "addRules", "behavior": "allow", "destination": "projectSettings", "rules": [{ "toolName": "Bash", "ruleContent": command }] }])
    );

    let (status, made) = t.post("/api/grants", grant).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    assert_eq!(made["grant"]["ruleScope"], "project");
    let answer = finished(claude).await;
    assert!(answer["permission_denials"].as_array().is_none_or(Vec::is_empty), "{answer}");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings_file).expect("Claude Code wrote its project settings")).unwrap();
    assert_eq!(written["permissions"]["allow"], json!([format!("Bash({command})")]), "{written}");

    let (_, audit) = t.get("/api/audit").await;
    let entries = audit["entries"].as_array().unwrap();
    let created = entries.iter().find(|e| e["action"] == "grant.created").expect("grant.created audited");
    assert_eq!(created["details"]["grant"]["ruleScope"], "project", "{created}");
    let used = entries.iter().find(|e| e["action"] == "grant.used").expect("grant.used audited");
    let rule = &used["details"]["sessionRule"];
    assert_eq!((rule["scope"].as_str(), rule["destination"].as_str()), (Some("project"), Some("projectSettings")), "{used}");
    assert_eq!(rule["location"], settings_file.as_str(), "{used}");
    // Claude Code 2.1.328 keeps a project rule in the file only: in the same `-p` run it asked about
    // the second identical call again (the grant approved it too), unlike a session rule.
    let used = entries.iter().filter(|e| e["action"] == "grant.used").count();
    assert_eq!(entries.iter().filter(|e| e["action"] == "call.paused").count(), used, "every call asked about was the grant's");
}
