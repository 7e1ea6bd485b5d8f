//! The real `approval-console-desktop` binary as a process (under `scripts/with-desktop`: Xvfb, a
//! D-Bus session, dunst): killed with -9 and started again, it loses nothing and runs nothing twice
//! (C5); it refuses to serve a data directory another process serves.
//!
//!     scripts/with-desktop cargo test -p approval-console-desktop --test process
//!
//! Skipped (saying so) without `APPROVAL_CONSOLE_DESKTOP_TESTS=1`, which scripts/with-desktop sets.

#[path = "../../tests/support/mastra_server.rs"]
mod mastra_server;
#[path = "../../tests/support/wait.rs"]
mod wait;

use mastra_server::MastraServer;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_approval-console-desktop");
const TOKEN: &str = "desktop-process-test-token-6c2e9a4f8b1d5073c6e2a9f4b8d15073";

fn enabled(test: &str) -> bool {
    if std::env::var("APPROVAL_CONSOLE_DESKTOP_TESTS").as_deref() == Ok("1") {
        return true;
    }
    eprintln!("SKIPPED desktop process test {test}: needs a display and a session bus; run it under scripts/with-desktop");
    false
}

/// The desktop app over `data_dir`, its HTTP API on a free port; SIGKILLed when dropped.
struct Desktop {
    child: Child,
    base: String,
    http: reqwest::Client,
}

impl Desktop {
    /// Its stderr (GTK, D-Bus and the app's warnings) goes to `<data_dir>.log`, appended across restarts.
    fn start(data_dir: &Path) -> Self {
        Self::start_with(data_dir, &[]).0
    }

    /// [`Desktop::start`] with more options; also answers the line it printed.
    fn start_with(data_dir: &Path, more: &[&str]) -> (Self, String) {
        let log = std::fs::OpenOptions::new().create(true).append(true).open(data_dir.with_extension("log")).unwrap();
        let mut child = Command::new(BIN)
            .args(["--data-dir", data_dir.to_str().unwrap(), "--port", "0", "--token", TOKEN])
            .args(more)
            .env("APPROVAL_CONSOLE_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("start approval-console-desktop");
        // "Approval Console is running. Local engine API: http://127.0.0.1:PORT/api/agents   Browser: …"
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut line).expect("read the start line");
        let at = line.find("http://").unwrap_or_else(|| {
            panic!(
                "no API address printed: {line:?}; stderr: {}",
                std::fs::read_to_string(data_dir.with_extension("log")).unwrap_or_default()
            )
        });
        let end = line[at..].find("/api/agents").expect("API address") + at;
        (Self { child, base: line[at..end].to_owned(), http: reqwest::Client::new() }, line)
    }

    async fn get(&self, path: &str) -> Value {
        self.http.get(format!("{}{path}", self.base)).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap()
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let r = self.http.post(format!("{}{path}", self.base)).bearer_auth(TOKEN).json(&body).send().await.unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }

    /// kill -9, and wait until the process is gone.
    fn kill9(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How long these tests wait for what the app or the server does (see [`wait`]).
const WAIT: Duration = Duration::from_secs(30);

fn delete_runs(mastra: &MastraServer) -> usize {
    mastra.tools_ran().iter().filter(|t| t["tool"] == "deleteRecord").count()
}

#[tokio::test]
async fn c05_killed_with_a_decision_in_the_outbox_the_app_delivers_it_once_after_a_restart() {
    if !enabled("c05_killed_with_a_decision_in_the_outbox") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("console");
    let mut mastra = MastraServer::start(&tmp.path().join("mastra"), None);
    let mut desktop = Desktop::start(&data);
    let (status, engine) = desktop.post("/api/engines", json!({ "name": "m", "baseUrl": mastra.base, "pollMs": 200 })).await;
    assert_eq!(status, 201, "{engine}");

    mastra.generate("ops", "delete rec-desktop", Some(("t-d", "u-d"))).await;
    wait::eventually(WAIT, "the remote call in the desktop app's queue", || async {
        desktop.get("/api/queue?engine=m").await["items"][0].is_object()
    })
    .await;
    let item = desktop.get("/api/queue?engine=m").await["items"][0].clone();
    let id = item["id"].as_str().unwrap().to_owned();

    // The server goes down; the operator approves: the decision waits in the outbox.
    mastra.kill();
    let (status, decided) = desktop.post(&format!("/api/queue/{id}/approve"), json!({ "fingerprint": item["fingerprint"] })).await;
    assert_eq!(status, 200, "{decided}");
    assert_eq!(decided["state"], "decided", "answered once committed: {decided}");
    // Its delivery, in a task of its own, finds the server down and puts it back in the outbox.
    wait::eventually(WAIT, "the decision back in the outbox", || async {
        desktop.get(&format!("/api/queue/{id}")).await["decision"]["delivery"] == "pending"
    })
    .await;

    // The app dies without any shutdown; the server comes back; the app starts again (a reboot).
    desktop.kill9();
    mastra.restart();
    let desktop = Desktop::start(&data);
    wait::eventually(WAIT, "the decision delivered by the restarted app", || async {
        desktop.get(&format!("/api/queue/{id}")).await["state"] == "delivered"
    })
    .await;
    assert_eq!(delete_runs(&mastra), 1, "the approved tool ran once");
    // Later outbox passes send nothing more.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(delete_runs(&mastra), 1, "and only once");
    let audit = desktop.get(&format!("/api/audit?item={id}")).await;
    let actions: Vec<&str> = audit["entries"].as_array().unwrap().iter().rev().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["call.paused", "decision.approve", "delivery.deferred", "delivery.delivered"]);
}

#[tokio::test]
async fn the_token_url_is_printed_only_when_asked() {
    if !enabled("the_token_url_is_printed_only_when_asked") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (quiet, line) = Desktop::start_with(&tmp.path().join("a"), &[]);
    assert!(!line.contains(TOKEN) && !line.contains("#token="), "the token is not printed by default: {line:?}");
    assert_eq!(quiet.get("/api/health").await["status"], "ok");
    drop(quiet);
    let (_asked, line) = Desktop::start_with(&tmp.path().join("b"), &["--print-url"]);
    assert!(line.contains(&format!("#token={TOKEN}")), "{line:?}");
}

#[tokio::test]
async fn c05_the_app_refuses_a_data_directory_another_process_serves_and_says_which() {
    if !enabled("c05_the_app_refuses_a_data_directory_another_process_serves") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // This test process plays the `serve` that holds the directory.
    let _serving = approval_console::app::ServeLock::acquire(tmp.path()).unwrap();
    let mut child = Command::new(BIN)
        .args(["--data-dir", tmp.path().to_str().unwrap(), "--port", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("already serving") && stderr.contains(&format!("pid {}", std::process::id())), "{stderr}");
}
