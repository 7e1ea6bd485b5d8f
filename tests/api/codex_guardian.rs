//! Codex's own reviewer ("auto-review", `approvalsReviewer: auto_review`) denies an action; the
//! real `codex app-server` 0.169.0 behind `approval-console codex` reports it, and the console
//! lets an operator override that one denial. No account: the scripted Responses API on 127.0.0.1
//! is both the agent's model and the reviewer's — Codex runs its reviewer as a session of the same
//! provider, whose answer is the JSON its prompt asks for (`{risk_level, user_authorization,
//! outcome, rationale}`). The scripted reviewer denies, unless its transcript holds Codex's record
//! that the user approved that exact action — what `thread/approveGuardianDeniedAction` adds to the
//! thread, and nothing else does. The agent asks for one escalated command at the start of each turn
//! (`sandbox_permissions: require_escalated`, which `on-request` sends to the reviewer).

use crate::agent_cli;
use crate::codex::streamed;
use crate::codex_app_server::{ms, queued, Editor};
use crate::helpers::*;
use approval_console::domain::Role;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::routing::post;
use axum::{Json, Router};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What Codex adds to the thread for an override (Codex 0.169.0's words).
const OVERRIDDEN: &str = "The user has manually approved a specific action";

/// The scripted model: the command the agent asks for, and what the reviewer was asked each time
/// (how many times the override's record was in its transcript, and what it answered).
#[derive(Clone)]
struct Guarded {
    command: String,
    reviews: Arc<Mutex<Vec<(usize, &'static str)>>>,
}

async fn responses(State(model): State<Guarded>, Json(request): Json<Value>) -> impl IntoResponse {
    let text = request.to_string();
    let input = request["input"].as_array().cloned().unwrap_or_default();
    let item = if text.contains("user_authorization") && text.contains("risk_level") {
        // The reviewer's session.
        let overrides = text.matches(OVERRIDDEN).count();
        let (outcome, assessment) = if overrides > 0 {
            (
                "allow",
                json!({ "risk_level": "high", "user_authorization": "high", "outcome": "allow", "rationale": "the user approved it" }),
            )
        } else {
            (
                "deny",
                json!({ "risk_level": "high", "user_authorization": "unknown", "outcome": "deny", "rationale": "it wipes the build cache" }),
            )
        };
        model.reviews.lock().unwrap().push((overrides, outcome));
        json!({ "type": "message", "role": "assistant", "id": "msg_r", "content": [{ "type": "output_text", "text": assessment.to_string() }] })
    } else if input.last().is_some_and(|i| i["type"] == "message" && i["role"] == "user") {
        let args = json!({ "cmd": model.command, "sandbox_permissions": "require_escalated", "justification": "clear the build cache" });
        json!({ "type": "function_call", "id": "fc_0", "call_id": "call_0", "name": "exec_command", "arguments": args.to_string() })
    } else {
        json!({ "type": "message", "role": "assistant", "id": "msg_1", "content": [{ "type": "output_text", "text": "done" }] })
    };
    streamed(item)
}

/// The bridge in `dir` against the scripted model asking for `command`; the model's record.
async fn start(dir: &Path, command: String, t: &TestApp, token: &str) -> (Editor, Guarded) {
    let model = Guarded { command, reviews: Arc::default() };
    let base = agent_cli::serve_on_loopback(Router::new().route("/v1/responses", post(responses)).with_state(model.clone())).await;
    (Editor::start_with(dir, &format!("{base}/v1"), &t.base, token).await, model)
}

/// A thread whose approvals Codex's reviewer answers, and its first turn; the thread's id.
async fn reviewed_turn(editor: &mut Editor, dir: &Path) -> String {
    let started = editor
        .request(
            "thread/start",
            json!({ "cwd": dir, "approvalPolicy": "on-request", "approvalsReviewer": "auto_review", "sandbox": "workspace-write" }),
        )
        .await;
    let thread = started["thread"]["id"].as_str().unwrap().to_owned();
    editor.request("turn/start", json!({ "threadId": thread, "input": [{ "type": "text", "text": "clean up" }] })).await;
    thread
}

/// Waits for the reviewer's denial, passed on to the client unchanged; when, and its params.
async fn denied(editor: &mut Editor) -> (Instant, Value) {
    let (at, msg) = editor
        .until("the reviewer's denial", |m| {
            m["method"] == "item/autoApprovalReview/completed" && m["params"]["review"]["status"] == "denied"
        })
        .await;
    (at, msg["params"].clone())
}

/// When the bridge logged Codex's answer to its override, if it did.
fn override_taken(editor: &Editor) -> Option<Instant> {
    editor.log.lock().unwrap().iter().find(|(_, l)| l.contains("Codex took the override")).map(|(at, _)| *at)
}

#[tokio::test]
async fn an_operator_overrides_a_denial_of_codexs_reviewer_once_and_codex_runs_the_command_once_on_its_retry() {
    let t = spawn_app().await;
    let token = t.token("codex-app", Role::Agent).await;
    let work = tempfile::tempdir().unwrap();
    let ran = work.path().join("ran");
    let (mut editor, model) = start(work.path(), format!("echo once >> {}", ran.display()), &t, &token).await;
    let thread = reviewed_turn(&mut editor, work.path()).await;

    let (denial_at, review) = denied(&mut editor).await;
    assert_eq!(review["review"]["rationale"], "it wipes the build cache", "passed on unchanged: {review}");
    let (row, call) = queued(&t).await;
    assert_eq!((call["toolName"].as_str(), call["source"].as_str()), (Some("Bash"), Some("codex")), "{call}");
    assert!(call["args"]["command"].as_str().unwrap().contains(&format!("echo once >> {}", ran.display())), "{call}");
    assert_eq!(call["context"]["guardianDenied"], true, "{call}");
    assert_eq!(call["context"]["reason"], "it wipes the build cache", "the reviewer's rationale: {call}");
    assert_eq!(call["risk"]["level"], "high", "an override needs an operator: {call}");
    let grant = json!({ "fromItem": call["id"], "fingerprint": call["fingerprint"], "scope": "agent", "expiresInSecs": 3600 });
    let (status, body) = t.post("/api/grants", grant).await;
    assert!(status.is_client_error() && body["code"] == "high_risk_tool", "no standing permission from an override: {status} {body}");
    editor.turn_completed().await;
    assert!(!ran.exists(), "the denied command did not run");

    let decided = Instant::now();
    let (status, body) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let taken = wait::until(std::time::Duration::from_secs(30), || async {
        override_taken(&editor).ok_or_else(|| "Codex has not answered the override".to_owned())
    })
    .await;
    assert!(!ran.exists(), "an override runs nothing by itself");

    // The agent retries on its next turn; the reviewer, now told the user approved it, allows it.
    editor.request("turn/start", json!({ "threadId": thread, "input": [{ "type": "text", "text": "try again" }] })).await;
    let item = editor.completed("commandExecution").await;
    assert_eq!(item["params"]["item"]["status"], "completed", "{item}");
    editor.turn_completed().await;
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "once\n", "the overridden command ran once");
    let reviews = model.reviews.lock().unwrap().clone();
    assert_eq!(reviews, [(0, "deny"), (1, "allow")], "one override reached Codex, and its reviewer saw it once");

    let (_, audit) = t.get(&format!("/api/audit?item={}", call["id"].as_str().unwrap())).await;
    let entries = audit["entries"].as_array().unwrap();
    let paused = entries.iter().find(|e| e["action"] == "call.paused").expect("call.paused audited");
    assert_eq!(paused["details"]["context"]["guardianDenied"], true, "the audit says it was an override: {paused}");
    assert!(
        entries.iter().any(|e| e["action"] == "decision.approve" && e["actor"] == "root (web)"),
        "the operator's approval is audited: {audit}"
    );
    println!(
        "codex app-server (reviewer's denial): denial → queue row ≤ {} ms; decision → Codex took the override {} ms",
        ms(denial_at, row),
        ms(decided, taken)
    );
    editor.close().await;
}

#[tokio::test]
async fn a_declined_override_sends_nothing_and_codexs_reviewer_denies_the_retry_again() {
    let t = spawn_app().await;
    let token = t.token("codex-app", Role::Agent).await;
    let work = tempfile::tempdir().unwrap();
    let ran = work.path().join("ran");
    let (mut editor, model) = start(work.path(), format!("echo once >> {}", ran.display()), &t, &token).await;
    let thread = reviewed_turn(&mut editor, work.path()).await;
    denied(&mut editor).await;
    let (_, call) = queued(&t).await;
    editor.turn_completed().await;
    let (status, body) = t.decline(&call, "not the shared cache").await;
    assert_eq!(status, StatusCode::OK, "{body}");

    editor.request("turn/start", json!({ "threadId": thread, "input": [{ "type": "text", "text": "try again" }] })).await;
    denied(&mut editor).await;
    let item = editor.completed("commandExecution").await;
    assert_eq!(item["params"]["item"]["status"], "declined", "{item}");
    editor.turn_completed().await;
    assert!(!ran.exists(), "the denial stands: the command never ran");
    assert_eq!(model.reviews.lock().unwrap().clone(), [(0, "deny"), (0, "deny")], "no override reached Codex");
    assert!(override_taken(&editor).is_none(), "the bridge sent no override");
    editor.close().await;
}
