//! Codex through its app-server: the real `codex app-server` (`tests/codex`, `@openai/codex` 0.169.0
//! from npm) behind `approval-console codex`, driven by a JSON-RPC client written here (what an
//! editor does: initialize, thread/start, turn/start) over the bridge's stdio, against a real
//! console. No model and no account: Codex talks to a scripted Responses API on 127.0.0.1 that asks
//! for one shell command per turn step, then ends the turn. The thread asks for approval of every
//! command that is not known safe (`approvalPolicy: untrusted`), so Codex's approval requests reach
//! the bridge, which answers them from the queue. Each test prints what it measured: from Codex's
//! request to the queue row, and from the decision to Codex.

use crate::agent_cli;
use crate::codex::{codex_bin, codex_home, scripted_model, Script};
use crate::helpers::*;
use approval_console::domain::Role;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The editor's side: `approval-console codex` as its app-server, every message it got, and the
/// bridge's log lines (passed on to stderr) with when each came.
pub(crate) struct Editor {
    bridge: tokio::process::Child,
    input: tokio::process::ChildStdin,
    messages: tokio::sync::mpsc::UnboundedReceiver<(Instant, Value)>,
    seen: Vec<(Instant, Value)>,
    next_id: u64,
    pub log: Arc<Mutex<Vec<(Instant, String)>>>,
}

impl Editor {
    /// `approval-console codex --codex <the real one>` in `dir` (Codex's home in `dir/home`, its
    /// model the scripted one), asking the console at `console` with `token`.
    async fn start(dir: &Path, script: &Script, console: &str, token: &str) -> Self {
        Self::start_with(dir, &scripted_model(script.clone()).await, console, token).await
    }

    /// [`start`](Self::start) with the model at `model` (its base URL).
    pub(crate) async fn start_with(dir: &Path, model: &str, console: &str, token: &str) -> Self {
        let home = codex_home(dir, model, "");
        // Codex runs an approved command in its sandbox through a helper it links into its home, and
        // refuses to do that when its home is under the temporary directory (as this test's is):
        // then the sandbox's start fails ("bwrap: execvp codex-linux-sandbox"), now and then, and
        // the approved command does not run. A user's ~/.codex is not under it; here, a temporary
        // directory of its own beside the home stands for that.
        let tmp = dir.join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let mut bridge = tokio::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
            .args(["codex", "--codex"])
            .arg(codex_bin())
            .current_dir(dir)
            .env("APPROVAL_CONSOLE_URL", console)
            .env("APPROVAL_CONSOLE_AGENT_TOKEN", token)
            .env("APPROVAL_CONSOLE_LOG", "info")
            .env("XDG_STATE_HOME", crate::helpers::serve_process::connector_state())
            .env("HOME", &home)
            .env("CODEX_HOME", home.join(".codex"))
            .env("TMPDIR", &tmp)
            .env("SCRIPTED_MODEL_KEY", "scripted")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let input = bridge.stdin.take().unwrap();
        let log = Arc::new(Mutex::new(vec![]));
        let (mut stderr, kept) = (BufReader::new(bridge.stderr.take().unwrap()).lines(), log.clone());
        tokio::spawn(async move {
            while let Ok(Some(line)) = stderr.next_line().await {
                eprintln!("{line}");
                kept.lock().unwrap().push((Instant::now(), line));
            }
        });
        let mut lines = BufReader::new(bridge.stdout.take().unwrap()).lines();
        let (tx, messages) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                let msg: Value =
                    serde_json::from_str(&line).unwrap_or_else(|e| panic!("the bridge wrote a line that is not JSON ({e}): {line}"));
                if tx.send((Instant::now(), msg)).is_err() {
                    return;
                }
            }
        });
        let mut editor = Self { bridge, input, messages, seen: vec![], next_id: 1, log };
        editor.request("initialize", json!({ "clientInfo": { "name": "approval-console-test", "version": "0" } })).await;
        editor.send(json!({ "jsonrpc": "2.0", "method": "initialized" })).await;
        editor
    }

    pub(crate) async fn send(&mut self, msg: Value) {
        self.input.write_all(format!("{msg}\n").as_bytes()).await.unwrap();
        self.input.flush().await.unwrap();
    }

    /// The first message from now on that `pred` holds for (within 90 s).
    pub(crate) async fn until(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> (Instant, Value) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
        loop {
            let next = tokio::time::timeout_at(deadline, self.messages.recv()).await;
            let Ok(Some((at, msg))) = next else {
                let methods: Vec<_> = self.seen.iter().map(|(_, m)| m["method"].as_str().unwrap_or("(response)").to_owned()).collect();
                panic!("never came: {what}; the bridge passed on: {methods:?}");
            };
            self.seen.push((at, msg.clone()));
            assert!(
                !msg["method"].as_str().is_some_and(|m| m.ends_with("/requestApproval")),
                "the bridge answers approvals itself, never passes them on: {msg}"
            );
            assert!(
                !msg["id"].as_str().is_some_and(|id| id.starts_with("approval-console:")),
                "Codex's answers to the bridge's own requests are the bridge's: {msg}"
            );
            if pred(&msg) {
                return (at, msg);
            }
        }
    }

    /// Sends request `method` and waits for its result.
    pub(crate) async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })).await;
        let (_, answer) = self.until(&format!("the answer to {method}"), |m| m["id"] == id && m.get("method").is_none()).await;
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }

    /// A thread in `dir` that asks before any command not known safe, and its first turn.
    async fn turn(&mut self, dir: &Path) {
        let started =
            self.request("thread/start", json!({ "cwd": dir, "approvalPolicy": "untrusted", "sandbox": "workspace-write" })).await;
        let thread = started["thread"]["id"].as_str().unwrap().to_owned();
        self.request("turn/start", json!({ "threadId": thread, "input": [{ "type": "text", "text": "go" }] })).await;
    }

    /// When Codex announced the item it then asked about (the request itself is the bridge's).
    async fn item_started(&mut self, kind: &str) -> Instant {
        self.until(&format!("a {kind} item"), |m| m["method"] == "item/started" && m["params"]["item"]["type"] == kind).await.0
    }

    /// Waits for Codex to say the bridge's answer arrived (`serverRequest/resolved`); when.
    pub(crate) async fn resolved(&mut self) -> Instant {
        self.until("Codex's word that the approval was answered", |m| m["method"] == "serverRequest/resolved").await.0
    }

    /// Waits for the item of type `kind` to complete; it.
    pub(crate) async fn completed(&mut self, kind: &str) -> Value {
        self.until(&format!("a completed {kind} item"), |m| m["method"] == "item/completed" && m["params"]["item"]["type"] == kind).await.1
    }

    pub(crate) async fn turn_completed(&mut self) {
        self.until("the turn's end", |m| m["method"] == "turn/completed").await;
    }

    /// Closes the bridge's input: the app-server ends, and the bridge with it, exiting 0.
    pub(crate) async fn close(self) {
        let Self { mut bridge, input, .. } = self;
        drop(input);
        let status = tokio::time::timeout(Duration::from_secs(30), bridge.wait()).await.expect("the bridge ends").unwrap();
        assert!(status.success(), "{status:?}");
    }
}

/// The codex call the bridge queued, with when it was first seen.
pub(crate) async fn queued(t: &TestApp) -> (Instant, Value) {
    let call = agent_cli::queued(t, "codex").await;
    (Instant::now(), call)
}

pub(crate) fn ms(from: Instant, to: Instant) -> u128 {
    to.saturating_duration_since(from).as_millis()
}

#[tokio::test]
async fn through_the_app_server_a_command_runs_only_after_the_operator_approves_it_in_the_queue() {
    let t = spawn_app().await;
    let token = t.token("codex-app", Role::Agent).await;
    let work = tempfile::tempdir().unwrap();
    let ran = work.path().join("ran");
    let script = Script { commands: vec![format!("touch {}", ran.display())], ..Default::default() };
    let mut editor = Editor::start(work.path(), &script, &t.base, &token).await;
    editor.turn(work.path()).await;

    let asked = editor.item_started("commandExecution").await;
    let (row, call) = queued(&t).await;
    assert_eq!((call["toolName"].as_str(), call["source"].as_str()), (Some("Bash"), Some("codex")), "{call}");
    let command = call["args"]["command"].as_str().unwrap();
    assert!(command.contains(&format!("touch {}", ran.display())), "the command as Codex runs it: {command}");
    assert_eq!(call["allowed"], json!(["approve", "decline"]), "Codex takes no edited command");
    assert!(call["risk"]["level"].is_string(), "its risk is shown: {call}");
    assert!(!ran.exists(), "nothing runs before the decision");

    let decided = Instant::now();
    let (status, body) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answered = editor.resolved().await;
    let item = editor.completed("commandExecution").await;
    assert_eq!(item["params"]["item"]["status"], "completed", "{item}");
    editor.turn_completed().await;
    assert!(ran.exists(), "the approved command ran");
    println!("codex app-server: request → queue row ≤ {} ms; decision → Codex {} ms", ms(asked, row), ms(decided, answered));
    editor.close().await;
}

#[tokio::test]
async fn through_the_app_server_a_file_change_declined_in_the_queue_is_not_written_and_was_shown_as_a_diff() {
    let t = spawn_app().await;
    let token = t.token("codex-app", Role::Agent).await;
    let work = tempfile::tempdir().unwrap();
    let new = work.path().join("notes.md");
    let patch = format!("*** Begin Patch\n*** Add File: {}\n+hello\n+world\n*** End Patch", new.display());
    let script = Script { commands: vec![format!("apply_patch <<'PATCH'\n{patch}\nPATCH\n")], ..Default::default() };
    let mut editor = Editor::start(work.path(), &script, &t.base, &token).await;
    editor.turn(work.path()).await;

    let asked = editor.item_started("fileChange").await;
    let (row, call) = queued(&t).await;
    assert_eq!((call["toolName"].as_str(), call["source"].as_str()), (Some("apply_patch"), Some("codex")), "{call}");
    assert_eq!(call["changes"]["summary"], "creates notes.md (2 lines)", "{call}");
    assert_eq!(call["changes"]["files"][0]["diff"], "+hello\n+world\n");

    let decided = Instant::now();
    let (status, body) = t.decline(&call, "not in this repository").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answered = editor.resolved().await;
    let item = editor.completed("fileChange").await;
    assert_eq!(item["params"]["item"]["status"], "declined", "{item}");
    editor.turn_completed().await;
    assert!(!new.exists(), "the declined file change was not written");
    let outputs = script.outputs.lock().unwrap().clone();
    assert!(outputs.iter().any(|o| o.contains("rejected")), "Codex told its model: {outputs:?}");
    let (_, audit) = t.get(&format!("/api/audit?item={}", call["id"].as_str().unwrap())).await;
    assert!(audit.to_string().contains("not in this repository"), "the reason Codex cannot take is in the audit: {audit}");
    println!("codex app-server (file change): request → queue row ≤ {} ms; decision → Codex {} ms", ms(asked, row), ms(decided, answered));
    editor.close().await;
}

#[tokio::test]
async fn through_the_app_server_a_console_restart_while_codex_waits_loses_nothing_and_the_command_runs_once() {
    let t = spawn_app().await;
    let token = t.token("codex-app", Role::Agent).await;
    let port = t.server.addr.port();
    let work = tempfile::tempdir().unwrap();
    let ran = work.path().join("ran");
    let script = Script { commands: vec![format!("echo once >> {}", ran.display())], ..Default::default() };
    let mut editor = Editor::start(work.path(), &script, &t.base, &token).await;
    editor.turn(work.path()).await;
    let (_, before) = queued(&t).await;

    // The console goes away while Codex waits, and comes back on the same address.
    let (dir, tmp, counters) = t.stop().await;
    assert!(reqwest::get(format!("http://127.0.0.1:{port}/api/health")).await.is_err(), "the console is down");
    let t = TestApp::builder().dir(&dir).counters(counters).port(port).spawn().await;
    let (_, after) = queued(&t).await;
    assert_eq!(after["id"], before["id"], "the same call is still queued");
    assert!(!ran.exists(), "nothing ran meanwhile");

    let (status, body) = t.approve(&after).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    editor.resolved().await;
    editor.turn_completed().await;
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "once\n", "the approved command ran once");
    let codex_calls = t.count("SELECT COUNT(*) FROM queue_items WHERE engine = 'codex'").await;
    assert_eq!(codex_calls, 1, "asking again after the restart queued nothing new");
    editor.close().await;
    drop(tmp);
}

#[tokio::test]
async fn through_the_app_server_an_approval_asked_while_the_console_is_down_waits_for_it_and_is_queued_once_it_is_back() {
    let t = spawn_app().await;
    let token = t.token("codex-app", Role::Agent).await;
    let port = t.server.addr.port();
    let work = tempfile::tempdir().unwrap();
    let ran = work.path().join("ran");
    let script = Script { commands: vec![format!("echo once >> {}", ran.display())], ..Default::default() };
    let mut editor = Editor::start(work.path(), &script, &t.base, &token).await;
    let (dir, tmp, counters) = t.stop().await;

    // Codex asks while nobody answers at the console's address.
    editor.turn(work.path()).await;
    editor.item_started("commandExecution").await;
    let t = TestApp::builder().dir(&dir).counters(counters).port(port).spawn().await;
    let (_, call) = queued(&t).await;
    assert!(!ran.exists(), "nothing ran meanwhile");
    let (status, body) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    editor.resolved().await;
    editor.turn_completed().await;
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "once\n", "the approved command ran once");
    editor.close().await;
    drop(tmp);
}

#[tokio::test]
async fn through_the_app_server_without_an_agent_credential_every_approval_is_declined_and_nothing_runs() {
    let t = spawn_app().await;
    let work = tempfile::tempdir().unwrap();
    let ran = work.path().join("ran");
    let script = Script { commands: vec![format!("touch {}", ran.display())], ..Default::default() };
    let mut editor = Editor::start(work.path(), &script, &t.base, "").await;
    editor.turn(work.path()).await;
    let item = editor.completed("commandExecution").await;
    assert_eq!(item["params"]["item"]["status"], "declined", "{item}");
    editor.turn_completed().await;
    assert!(!ran.exists(), "the command never ran");
    assert!(t.pending().await.is_empty(), "nothing was queued");
    editor.close().await;
}

/// Issue 47: the same command twice in one turn. Approved by an admin's "always allow" grant made
/// from the first call, the bridge answers `acceptForSession`: Codex runs the second without asking
/// (one queued call; the grant's use records the session rule). Approved by an operator once, it
/// answers `accept`: Codex asks again for the second, which is queued too.
#[tokio::test]
async fn through_the_app_server_an_always_allow_grant_answers_accept_for_session_and_an_approval_once_accept() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    let token = t.token("codex-app", Role::Agent).await;
    let paused = || async {
        let (_, audit) = t.get("/api/audit").await;
        audit["entries"].as_array().unwrap().iter().filter(|e| e["action"] == "call.paused").count()
    };
    for always in [true, false] {
        let work = tempfile::tempdir().unwrap();
        let before = paused().await;
        let command = format!("touch {}", work.path().join("ran").display());
        let script = Script { commands: vec![command.clone(), command], ..Default::default() };
        let mut editor = Editor::start(work.path(), &script, &t.base, &token).await;
        editor.turn(work.path()).await;
        let (_, call) = queued(&t).await;
        if always {
            let grant = json!({ "fromItem": call["id"], "fingerprint": call["fingerprint"], "scope": "agent", "expiresInSecs": 3600,
                "conditions": [{ "pointer": "/command", "op": "equals", "value": call["args"]["command"] }] });
            let (status, made) = t.post("/api/grants", grant).await;
            assert_eq!(status, StatusCode::CREATED, "{made}");
        } else {
            let (status, body) = t.approve(&call).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            let (_, again) = wait::until(Duration::from_secs(60), || async {
                let now = agent_cli::queued(&t, "codex").await;
                if now["id"] != call["id"] {
                    Ok(((), now))
                } else {
                    Err("the second command was not asked about".to_owned())
                }
            })
            .await;
            let (status, body) = t.approve(&again).await;
            assert_eq!(status, StatusCode::OK, "{body}");
        }
        editor.turn_completed().await;
        assert_eq!(script.outputs.lock().unwrap().len(), 2, "both commands ran (always: {always})");
        let asked = paused().await - before;
        assert_eq!(asked, if always { 1 } else { 2 }, "always: {always}");
        editor.close().await;
    }
    let (_, audit) = t.get("/api/audit").await;
    let used = audit["entries"].as_array().unwrap().iter().find(|e| e["action"] == "grant.used").expect("grant.used audited");
    assert_eq!(
        used["details"]["sessionRule"],
        json!({ "agent": "codex", "scope": "session", "destination": "session", "rule": "acceptForSession" }),
        "{used}"
    );
}
