//! Desktop notifications (C4) against a REAL notification service: dunst under Xvfb in a private
//! D-Bus session, started by `scripts/with-desktop`:
//!
//!     scripts/with-desktop cargo test --test notify -- --test-threads=1
//!
//! dunst prints every notification it shows (`-print`, to `$DUNST_PRINT_LOG`); `dunstctl action 0`
//! acts on the newest one through dunst's context menu, whose picker answers the action named in
//! `$DUNST_CHOICE_FILE`. Tests that need dunst skip themselves (saying so) without
//! `APPROVAL_CONSOLE_DESKTOP_TESTS=1`; they share one dunst, so they run one at a time.

#[path = "../support/mastra_server.rs"]
mod mastra_server;
#[path = "../support/wait.rs"]
mod wait;

use approval_console::api::{self, Server};
use approval_console::app::{App, Background};
use approval_console::notify::desktop::DesktopNotifier;
use approval_console::notify::{NotificationSettings, Notifier};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

const TOKEN: &str = "notify-test-token-8e2a5c1f9b7d3064e0a2c8f6b4d19e37";
const BIN: &str = env!("CARGO_BIN_EXE_approval-console");

fn desktop_tests_enabled(test: &str) -> bool {
    if std::env::var("APPROVAL_CONSOLE_DESKTOP_TESTS").as_deref() == Ok("1") {
        return true;
    }
    let _ = writeln!(std::io::stderr(), "SKIPPED desktop test {test}: needs a notification service; run `scripts/with-desktop cargo test --test notify -- --test-threads=1`");
    false
}

/// One notification as dunst printed it.
#[derive(Debug, Default, Clone)]
struct Shown {
    appname: String,
    summary: String,
    body: String,
    /// Action keys (`approve`, `default`, …) and, in the same order, their button labels.
    actions: Vec<String>,
    labels: Vec<String>,
    /// The notification's id on the bus.
    id: u32,
}

/// Every notification dunst showed so far.
fn shown() -> Vec<Shown> {
    let text = std::fs::read_to_string(std::env::var("DUNST_PRINT_LOG").expect("DUNST_PRINT_LOG")).unwrap_or_default();
    let mut out = Vec::new();
    let mut current: Option<Shown> = None;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line == "{" {
            current = Some(Shown::default());
            continue;
        }
        if line == "}" {
            out.extend(current.take());
            continue;
        }
        let Some(n) = current.as_mut() else { continue };
        if line == "\tactions: {" {
            for action in lines.by_ref() {
                if action == "\t}" {
                    break;
                }
                // `"key": "label"`
                let mut quoted = action.split('"').skip(1).step_by(2);
                if let Some(key) = quoted.next() {
                    n.actions.push(key.to_owned());
                    n.labels.extend(quoted.next().map(str::to_owned));
                }
            }
            continue;
        }
        if let Some(id) = line.strip_prefix("\tid: ") {
            n.id = id.trim().parse().unwrap_or_default();
            continue;
        }
        // `\tkey: 'value'`, the value possibly spanning lines.
        let Some((key, rest)) = line.strip_prefix('\t').and_then(|l| l.split_once(": '")) else { continue };
        let mut value = rest.to_owned();
        while !value.ends_with('\'') {
            match lines.next() {
                Some(more) => {
                    value.push('\n');
                    value.push_str(more);
                }
                None => break,
            }
        }
        value.pop();
        match key {
            "appname" => n.appname = value,
            "summary" => n.summary = value,
            "body" => n.body = value,
            _ => {}
        }
    }
    out
}

/// Waits (up to 10 s) for the `n`-th notification (counting from 1) and returns it.
async fn nth_shown(n: usize) -> Shown {
    wait::until(Duration::from_secs(10), || async {
        let all = shown();
        all.get(n - 1).cloned().ok_or_else(|| format!("notification {n} never shown; shown so far: {all:#?}"))
    })
    .await
}

/// Picks `choice` ("Approve", "Decline", "Open") in dunst's context menu of the notifications shown
/// (one at a time here: every test starts by closing all).
fn act(choice: &str) {
    std::fs::write(std::env::var("DUNST_CHOICE_FILE").expect("DUNST_CHOICE_FILE"), format!("{choice}\n")).unwrap();
    let status = std::process::Command::new("dunstctl").arg("context").status().expect("dunstctl");
    assert!(status.success());
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn close_all() {
    let _ = std::process::Command::new("dunstctl").arg("close-all").status();
}

struct Console {
    _tmp: tempfile::TempDir,
    app: App,
    server: Server,
    base: String,
    http: reqwest::Client,
    _background: Background,
}

impl Console {
    async fn start() -> Self {
        close_all();
        let tmp = tempfile::tempdir().unwrap();
        let app = App::open(tmp.path(), vec![]).await.unwrap();
        let background = app.start(Some(Arc::new(DesktopNotifier) as Arc<dyn Notifier>));
        let server = api::serve(app.clone(), 0, TOKEN).await.unwrap();
        let base = format!("http://{}", server.addr);
        Self { _tmp: tmp, app, server, base, http: reqwest::Client::new(), _background: background }
    }

    async fn send(&self, method: reqwest::Method, path: &str, body: Value) -> (StatusCode, Value) {
        let r = self.http.request(method, format!("{}{path}", self.base)).bearer_auth(TOKEN).json(&body).send().await.unwrap();
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    async fn generate(&self, text: &str) -> Value {
        let (status, body) = self.send(reqwest::Method::POST, "/api/agents/demo/generate", json!({ "messages": text })).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body
    }

    async fn pending(&self) -> Vec<Value> {
        self.send(reqwest::Method::GET, "/api/queue", json!(null)).await.1["items"].as_array().cloned().unwrap_or_default()
    }

    async fn item(&self, id: &str) -> Value {
        self.send(reqwest::Method::GET, &format!("/api/queue/{id}"), json!(null)).await.1
    }

    /// Waits (up to 10 s) until entry `id` is in `state`.
    async fn wait_state(&self, id: &str, state: &str) -> Value {
        wait::until(Duration::from_secs(10), || async {
            let item = self.item(id).await;
            if item["state"] == state {
                Ok(item)
            } else {
                Err(format!("item {id} never reached {state}: {item}"))
            }
        })
        .await
    }
}

#[tokio::test]
async fn c4_a_new_call_raises_a_notification_whose_approve_completes_the_run() {
    if !desktop_tests_enabled("c4_a_new_call_raises_a_notification_whose_approve_completes_the_run") {
        return;
    }
    let before = shown().len();
    let console = Console::start().await;
    let answer = console.generate("delete rec-n1").await;
    assert_eq!(answer["finishReason"], "suspended");
    let item = console.pending().await.remove(0);
    let n = nth_shown(before + 1).await;
    assert_eq!(n.appname, "Approval Console");
    assert!(n.summary.contains("wants to run delete_record"), "{n:?}");
    assert!(n.summary.contains("Demo agent"), "{n:?}");
    let fp12 = &item["fingerprint"].as_str().unwrap()[7..19];
    assert!(n.body.contains(fp12), "the short fingerprint is shown: {n:?}");
    assert!(n.body.contains("rec-n1"), "{n:?}");
    assert_eq!(sorted(n.actions.clone()), vec!["approve", "decline", "default"], "{n:?}");

    act("Approve");
    let after = console.wait_state(item["id"].as_str().unwrap(), "delivered").await;
    assert_eq!(after["decision"]["kind"], "approve");
    assert!(after["decision"]["operator"].as_str().unwrap().ends_with("(notification)"), "{after}");
    assert_eq!(after["decision"]["fingerprint"], item["fingerprint"], "bound to the fingerprint the notification showed");
    assert_eq!(console.app.notification_status(&console.app.local_admin("test")).unwrap().available, Some(true));
    console.server.stop().await;
}

#[tokio::test]
async fn c4_decline_from_a_notification_never_runs_the_tool() {
    if !desktop_tests_enabled("c4_decline_from_a_notification_never_runs_the_tool") {
        return;
    }
    let before = shown().len();
    let console = Console::start().await;
    console.generate("delete rec-n2").await;
    let item = console.pending().await.remove(0);
    nth_shown(before + 1).await;
    act("Decline");
    let after = console.wait_state(item["id"].as_str().unwrap(), "delivered").await;
    assert_eq!(after["decision"]["kind"], "decline");
    assert_eq!(after["decision"]["reason"], "declined from a desktop notification");
    assert_eq!(after["decision"]["outcome"]["status"], "declined", "{after}");
}

#[tokio::test]
async fn many_calls_at_once_are_told_in_one_notification_and_high_risk_tools_never_offer_approve() {
    if !desktop_tests_enabled("many_calls_at_once_are_told_in_one_notification_and_high_risk_tools_never_offer_approve") {
        return;
    }
    let before = shown().len();
    let console = Console::start().await;
    let texts: Vec<String> = (0..5).map(|i| format!("delete rec-g{i}")).collect();
    futures::future::join_all(texts.iter().map(|t| console.generate(t))).await;
    let n = nth_shown(before + 1).await;
    assert_eq!(n.summary, "5 calls waiting", "{n:?}");
    assert_eq!(n.actions, vec!["default"], "a group only opens the window: {n:?}");
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(shown().len(), before + 1, "one notification for the five");

    let settings = NotificationSettings { high_risk_tools: vec!["delete_record".into()], ..Default::default() };
    let (status, _) = console.send(reqwest::Method::PUT, "/api/settings/notifications", serde_json::to_value(&settings).unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    console.generate("delete rec-risky").await;
    let n = nth_shown(before + 2).await;
    assert!(n.summary.contains("delete_record"), "{n:?}");
    assert_eq!(sorted(n.actions.clone()), vec!["decline", "default"], "no Approve for a high-risk tool: {n:?}");
}

#[tokio::test]
async fn markup_and_hidden_characters_in_arguments_are_shown_not_obeyed() {
    if !desktop_tests_enabled("markup_and_hidden_characters_in_arguments_are_shown_not_obeyed") {
        return;
    }
    let before = shown().len();
    let console = Console::start().await;
    console.generate("delete <b>x</b><a href='javascript:alert(1)'>y</a>\u{202E}z\u{200B}").await;
    let n = nth_shown(before + 1).await;
    assert!(!n.body.contains("<b>") && !n.body.contains("<a "), "markup reached the notification: {n:?}");
    assert!(n.body.contains("&lt;b&gt;x&lt;/b&gt;"), "{n:?}");
    assert!(n.body.contains("\\u{202E}") && n.body.contains("\\u{200B}"), "hidden characters shown: {n:?}");
    assert!(!n.body.contains('\u{202E}') && !n.body.contains('\u{200B}'));
}

#[tokio::test]
async fn disabled_or_filtered_notifications_stay_silent() {
    if !desktop_tests_enabled("disabled_or_filtered_notifications_stay_silent") {
        return;
    }
    let before = shown().len();
    let console = Console::start().await;
    for settings in [
        NotificationSettings { enabled: false, ..Default::default() },
        NotificationSettings { agents: Some(vec!["someone-else".into()]), ..Default::default() },
        NotificationSettings { engines: Some(vec!["prod".into()]), ..Default::default() },
    ] {
        let (status, _) = console.send(reqwest::Method::PUT, "/api/settings/notifications", serde_json::to_value(&settings).unwrap()).await;
        assert_eq!(status, StatusCode::OK);
        console.generate("delete rec-quiet").await;
        // Settings apply when the call is told, after the gathering window.
        tokio::time::sleep(approval_console::notify::GATHER * 3).await;
    }
    // The pipeline works: with the settings back to all, the next call is told.
    let (status, _) = console.send(reqwest::Method::PUT, "/api/settings/notifications", json!({ "enabled": true })).await;
    assert_eq!(status, StatusCode::OK);
    console.generate("delete rec-loud").await;
    let n = nth_shown(before + 1).await;
    assert!(n.body.contains("rec-loud"), "the first notification is the one after the settings allowed it: {n:?}");
    assert_eq!(shown().len(), before + 1);
    let (status, body) = console
        .send(
            reqwest::Method::PUT,
            "/api/settings/notifications",
            json!({ "enabled": true, "quietHours": { "start": "25:00", "end": "07:00" } }),
        )
        .await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{body}");
}

#[tokio::test]
async fn c3_an_approve_from_a_notification_after_the_arguments_changed_sends_nothing_and_opens_the_call() {
    if !desktop_tests_enabled("c3_an_approve_from_a_notification_after_the_arguments_changed_sends_nothing_and_opens_the_call") {
        return;
    }
    let before = shown().len();
    let console = Console::start().await;
    let mut opened = console.app.open_requests();
    let tmp = tempfile::tempdir().unwrap();
    let mastra = mastra_server::MastraServer::start(&tmp.path().join("mastra"), None);
    let (status, body) =
        console.send(reqwest::Method::POST, "/api/engines", json!({ "name": "m", "baseUrl": mastra.base, "pollMs": 200 })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let answer = mastra.generate("ops", "delete rec-1", Some(("t-n", "u-n"))).await;
    let n = nth_shown(before + 1).await;
    assert!(n.summary.contains("deleteRecord") && n.body.contains("rec-1"), "{n:?}");
    let item = console.pending().await.into_iter().find(|i| i["engine"] == "m").expect("queued");

    // Behind the operator's back the run now deletes another record; then Approve on the notification.
    assert!(mastra.tamper_args(answer["runId"].as_str().unwrap(), "rec-1", "rec-666").await > 0);
    act("Approve");
    let request = tokio::time::timeout(Duration::from_secs(15), opened.recv()).await.expect("the window is asked to open").unwrap();
    assert_eq!(request.item.as_ref().map(|i| i.as_str()), item["id"].as_str());
    assert!(request.reason.unwrap().contains("changed"), "says why");
    assert!(mastra.tools_ran().is_empty(), "nothing ran at the server");
    let now = console.item(item["id"].as_str().unwrap()).await;
    assert!(now["decision"].is_null(), "no decision stored: {now}");
}

/// `approval-console serve --notify` on a fresh data directory in `tmp`, with these environment
/// variables set (`None`: removed); its stderr goes to `tmp/stderr`. The child and its base URL.
fn serve_notify(tmp: &tempfile::TempDir, env: &[(&str, Option<&str>)]) -> (std::process::Child, String) {
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let mut command = std::process::Command::new(BIN);
    command
        .args(["--data-dir", data.to_str().unwrap(), "serve", "--port", "0", "--token", TOKEN, "--notify"])
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(tmp.path().join("stderr")).unwrap());
    for (name, value) in env {
        match value {
            Some(v) => command.env(name, v),
            None => command.env_remove(name),
        };
    }
    let mut child = command.spawn().unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.as_mut().unwrap()), &mut line).unwrap();
    let at = line.find("http://").unwrap();
    let base = line[at..line[at..].find("/#").unwrap() + at].to_owned();
    (child, base)
}

/// A child process killed (and waited for) when dropped, failed assertions included.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// No notification service at all: the console keeps working and says so once (a plain `cargo test`
/// runs this one; it needs no desktop).
#[tokio::test]
async fn c4_without_a_notification_service_the_console_keeps_working_and_says_so_once() {
    let tmp = tempfile::tempdir().unwrap();
    let bus = format!("unix:path={}", tmp.path().join("no-bus").display());
    let (mut child, base) = serve_notify(&tmp, &[("DBUS_SESSION_BUS_ADDRESS", Some(bus.as_str()))]);
    let http = reqwest::Client::new();
    let post = |path: &str, body: Value| http.post(format!("{base}{path}")).bearer_auth(TOKEN).json(&body).send();
    for (told, text) in ["delete rec-a", "delete rec-b"].into_iter().enumerate() {
        let r = post("/api/agents/demo/generate", json!({ "messages": text })).await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        // The call is told (and fails: the first) or set aside for the retry (the second) before the next.
        wait::eventually(Duration::from_secs(5), &format!("call {} counted as missed", told + 1), || async {
            let status: Value =
                http.get(format!("{base}/api/notifications/status")).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
            status["missed"].as_u64() > Some(told as u64)
        })
        .await;
    }
    let status: Value = http.get(format!("{base}/api/notifications/status")).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
    assert_eq!((status["running"].as_bool(), status["available"].as_bool()), (Some(true), Some(false)), "{status}");
    assert!(status["lastError"].is_string() && status["lastErrorAt"].is_string(), "{status}");
    assert_eq!(status["missed"], 2, "the first failed, the second waited for the retry: {status}");
    // The queue works as ever.
    let queue: Value = http.get(format!("{base}/api/queue")).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
    let items = queue["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    let r = post(&format!("/api/queue/{}/approve", items[0]["id"].as_str().unwrap()), json!({ "fingerprint": items[0]["fingerprint"] }))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let _ = child.kill();
    let _ = child.wait();
    let stderr = std::fs::read_to_string(tmp.path().join("stderr")).unwrap();
    assert_eq!(stderr.matches("desktop notifications are not available").count(), 1, "said once: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Under a Japanese desktop locale the notifications speak Japanese, buttons included, and a
/// Japanese "承認" approves like "Approve" does (the locale is read once per process: its own `serve`).
#[tokio::test]
async fn notifications_follow_a_japanese_locale() {
    if !desktop_tests_enabled("notifications_follow_a_japanese_locale") {
        return;
    }
    close_all();
    let before = shown().len();
    let tmp = tempfile::tempdir().unwrap();
    let (mut child, base) =
        serve_notify(&tmp, &[("LANG", Some("ja_JP.UTF-8")), ("LC_ALL", None), ("LC_MESSAGES", None), ("LANGUAGE", None)]);
    let http = reqwest::Client::new();
    let r = http
        .post(format!("{base}/api/agents/demo/generate"))
        .bearer_auth(TOKEN)
        .json(&json!({ "messages": "delete rec-ja" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let n = nth_shown(before + 1).await;
    assert!(n.summary.contains("delete_record の実行を求めています"), "{n:?}");
    assert!(n.body.contains("フィンガープリント") && n.body.contains("rec-ja"), "{n:?}");
    assert_eq!(sorted(n.labels.clone()), sorted(vec!["承認".into(), "拒否".into(), "開く".into()]), "{n:?}");

    act("承認");
    let state = wait::within(Duration::from_secs(10), || async {
        let queue: Value = http.get(format!("{base}/api/queue?tab=all")).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
        Some(queue["items"][0]["state"].clone()).filter(|state| *state == "delivered")
    })
    .await
    .unwrap_or(Value::Null);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(state, "delivered", "承認 on the notification approved the call");
}

/// A call with an argument too long for a notification's body: dunst shows it cut, saying so, with
/// Decline and Open only (a real `serve --notify`); Decline from it declines the call.
#[tokio::test]
async fn cut_notification_offers_no_approve() {
    if !desktop_tests_enabled("cut_notification_offers_no_approve") {
        return;
    }
    close_all();
    let before = shown().len();
    let tmp = tempfile::tempdir().unwrap();
    let (child, base) = serve_notify(&tmp, &[("LANG", Some("en_US.UTF-8")), ("LC_ALL", None), ("LC_MESSAGES", None), ("LANGUAGE", None)]);
    let _serving = KillOnDrop(child);
    let http = reqwest::Client::new();
    let long = format!("rec-{}-end", "x".repeat(approval_console::notify::BODY_BUDGET));
    let r = http
        .post(format!("{base}/api/agents/demo/generate"))
        .bearer_auth(TOKEN)
        .json(&json!({ "messages": format!("delete {long}") }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let n = nth_shown(before + 1).await;
    assert!(n.summary.contains("wants to run delete_record"), "{n:?}");
    assert_eq!(sorted(n.actions.clone()), vec!["decline", "default"], "no Approve on a cut call: {n:?}");
    assert_eq!(n.body.lines().last(), Some("Cut: open the call to see all of it"), "{n:?}");
    assert!(n.body.contains("{\"id\":\"rec-xxx") && !n.body.contains("-end"), "the argument shown cut: {n:?}");

    act("Decline");
    let item = wait::until(Duration::from_secs(10), || async {
        let queue: Value = http.get(format!("{base}/api/queue?tab=all")).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
        let item = queue["items"][0].clone();
        if item["state"] == "delivered" {
            Ok(item)
        } else {
            Err(format!("Decline on the cut notification declined the call: {item}"))
        }
    })
    .await;
    let id = item["id"].as_str().unwrap_or_default().to_owned();
    let decided: Value = http.get(format!("{base}/api/queue/{id}")).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
    assert_eq!(item["state"], "delivered", "Decline on the cut notification declined the call: {item}");
    assert_eq!(decided["decision"]["kind"], "decline", "{decided}");
    assert!(decided["decision"]["operator"].as_str().unwrap().ends_with("(notification)"), "{decided}");
    assert_eq!(decided["decision"]["fingerprint"], decided["fingerprint"], "bound to the fingerprint it showed");
    assert_eq!(decided["decision"]["outcome"]["status"], "declined", "{decided}");
}

/// Answers every notice with one choice, whatever it offered (as a misbehaving notification service
/// or a forged D-Bus signal might).
#[derive(Clone)]
struct Answers(approval_console::notify::Choice, Arc<std::sync::Mutex<Vec<approval_console::notify::Notice>>>);

impl Notifier for Answers {
    fn show(
        &self,
        notice: approval_console::notify::Notice,
        answer: Box<dyn FnOnce(Option<approval_console::notify::Choice>) + Send>,
    ) -> Result<(), String> {
        self.1.lock().unwrap().push(notice);
        answer(Some(self.0));
        Ok(())
    }
}

/// An Approve that a notice did not offer (its call was cut) is not obeyed; one it offered is.
/// (Plain `cargo test`: a notifier that answers Approve to everything.)
#[tokio::test]
async fn an_approve_a_cut_notification_did_not_offer_is_not_obeyed() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::open(tmp.path(), vec![]).await.unwrap();
    let notifier = Answers(approval_console::notify::Choice::Approve, Arc::default());
    let (_stop, rx) = tokio::sync::watch::channel(false);
    app.testing().start_notifications(Arc::new(notifier.clone()), "op".into(), rx);
    let admin = app.local_admin::<approval_console::domain::grade::Local>("test");

    let long = pause(&app, &format!("delete rec-{}", "x".repeat(approval_console::notify::BODY_BUDGET))).await;
    // Told alone (its gathering window over) before the next call pauses.
    wait::eventually(Duration::from_secs(5), "the long call told", || async { notifier.1.lock().unwrap().len() == 1 }).await;
    let short = pause(&app, "delete rec-short").await;
    let state = wait::within(Duration::from_secs(5), || async {
        Some(app.queue_item(&short.id, &admin.narrow()).await.unwrap().state)
            .filter(|s| *s == approval_console::domain::ItemState::Delivered)
    })
    .await
    .unwrap_or(approval_console::domain::ItemState::Pending);
    assert_eq!(state, approval_console::domain::ItemState::Delivered, "an offered Approve approves");
    let told = notifier.1.lock().unwrap().clone();
    assert_eq!(told.len(), 2, "{told:?}");
    assert!(!told[0].actions.contains(&approval_console::notify::Choice::Approve), "{:?}", told[0]);
    let still = app.queue_item(&long.id, &admin.narrow()).await.unwrap();
    assert_eq!(still.state, approval_console::domain::ItemState::Pending, "the cut call's notice offered no Approve: nothing decided");
    assert!(still.decision.is_none());
}

/// Records what would be shown (no notification service needed).
#[derive(Default, Clone)]
struct Recorder(Arc<std::sync::Mutex<Vec<approval_console::notify::Notice>>>);

impl Notifier for Recorder {
    fn show(
        &self,
        notice: approval_console::notify::Notice,
        answer: Box<dyn FnOnce(Option<approval_console::notify::Choice>) + Send>,
    ) -> Result<(), String> {
        self.0.lock().unwrap().push(notice);
        answer(None);
        Ok(())
    }
}

/// A call an "always allow" grant covers is never told, however late the grant's approval comes:
/// here the grants worker does not run at all, so the call stays pending — and still no notice. A
/// call the grant does not cover is told. (Plain `cargo test`: a recording notifier.)
#[tokio::test]
async fn a_call_a_grant_covers_raises_no_notification() {
    use approval_console::console::grants::{Condition, ConditionOp, GrantScope, NewGrant};
    let tmp = tempfile::tempdir().unwrap();
    let app = App::open(tmp.path(), vec![]).await.unwrap();
    let admin = app.local_admin::<approval_console::domain::grade::Local>("test");
    let first = pause(&app, "delete rec-ok1").await;
    app.create_grant(
        &NewGrant {
            from_item: first.id.clone(),
            fingerprint: first.fingerprint.as_str().to_owned(),
            scope: GrantScope::Agent,
            conditions: vec![Condition { pointer: "/id".into(), op: ConditionOp::Prefix, value: json!("rec-ok") }],
            expires_in_secs: 3600,
            apply_to_waiting: true,
            shadow: false,
            rule_scope: Default::default(),
        },
        &admin.narrow(),
    )
    .await
    .unwrap();
    let recorder = Recorder::default();
    let (_stop, rx) = tokio::sync::watch::channel(false);
    app.testing().start_notifications(Arc::new(recorder.clone()), "op".into(), rx);

    let covered = pause(&app, "delete rec-ok2").await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    let uncovered = pause(&app, "delete rec-other").await;
    // Up to 2.5 s for the first notice; then a moment in which no other may come.
    wait::within(Duration::from_millis(2500), || async { (!recorder.0.lock().unwrap().is_empty()).then_some(()) }).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let told: Vec<_> = recorder.0.lock().unwrap().iter().map(|n| n.call.as_ref().map(|(id, _)| id.clone())).collect();
    assert_eq!(told, vec![Some(approval_console::domain::ItemId::new(&uncovered.id))], "only the uncovered call is told");
    let still = app.queue_item(&covered.id, &admin.narrow()).await.unwrap();
    assert_eq!(still.state, approval_console::domain::ItemState::Pending, "no grants worker here: still pending, yet not told");
}

/// The demo agent pauses on `delete <id>`; the queued call.
async fn pause(app: &App, text: &str) -> approval_console::app::queue::QueueItem {
    use approval_console::engine::local::agent::Message;
    use approval_console::engine::local::RunRequest;
    let request = RunRequest {
        agent_id: approval_console::domain::AgentId::new("demo"),
        messages: vec![Message::User { content: text.into() }],
        thread_id: None,
        resource_id: None,
        options: Default::default(),
        run_id: Default::default(),
        started_by: None,
    };
    let admin = app.local_admin::<approval_console::domain::grade::Local>("test");
    let run = app.send(request, false, None, &admin.narrow()).await.unwrap();
    let pending = approval_console::app::query::QueueQuery {
        run: Some(run.to_string()),
        sort: Some(approval_console::app::query::SortOrder::Oldest),
        ..Default::default()
    };
    app.queue_page(&pending, &admin.narrow()).await.unwrap().items.into_iter().next().expect("paused")
}

#[tokio::test]
async fn a_forged_approve_on_a_notification_that_offered_none_opens_the_call_and_approves_nothing() {
    if !desktop_tests_enabled("a_forged_approve_on_a_notification_that_offered_none_opens_the_call_and_approves_nothing") {
        return;
    }
    let before = shown().len();
    let console = Console::start().await;
    let mut opens = console.app.open_requests();
    let settings = NotificationSettings { high_risk_tools: vec!["delete_record".into()], ..Default::default() };
    let (status, _) = console.send(reqwest::Method::PUT, "/api/settings/notifications", serde_json::to_value(&settings).unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    console.generate("delete rec-forged").await;
    let n = nth_shown(before + 1).await;
    assert!(!n.actions.contains(&"approve".to_owned()) && n.id > 0, "{n:?}");
    let item = console.pending().await.remove(0);
    // Any process of the session can send this signal (docs/security.md says so).
    let sent = std::process::Command::new("dbus-send")
        .args(["--session", "--type=signal", "/org/freedesktop/Notifications", "org.freedesktop.Notifications.ActionInvoked"])
        .arg(format!("uint32:{}", n.id))
        .arg("string:approve")
        .status()
        .expect("dbus-send");
    assert!(sent.success());
    let open = tokio::time::timeout(Duration::from_secs(10), opens.recv()).await.expect("the call is opened instead").unwrap();
    assert_eq!(open.item.as_ref().map(|i| i.as_str()), item["id"].as_str());
    assert_eq!(console.item(item["id"].as_str().unwrap()).await["state"], "pending", "nothing was approved");
}

/// The two-person rule (C8): a call of a tool with a quorum is told with where it stands ("Needs 2
/// approvals…"), told again after another operator's approval ("1 of 2 approvals: operator-a
/// (web)", Approve still offered to this console's local admin), and not told again to the local
/// admin after its own approval. (Plain `cargo test`: a recording notifier.)
#[tokio::test]
async fn c08_a_call_under_a_quorum_is_told_again_after_each_approval_saying_where_it_stands() {
    use approval_console::domain::{Actor, Principal, Role, Verdict};
    use approval_console::notify::Choice;
    let tmp = tempfile::tempdir().unwrap();
    let app = App::open(tmp.path(), vec![]).await.unwrap();
    app.set_quorum("delete_record", 2, approval_console::app::widening::Widening::Unconfirmed, &app.local_admin("test")).await.unwrap();
    let recorder = Recorder::default();
    let (_stop, rx) = tokio::sync::watch::channel(false);
    app.testing().start_notifications(Arc::new(recorder.clone()), app.operator().to_owned(), rx);
    let told = |n: usize| {
        let recorder = recorder.clone();
        async move {
            wait::until(Duration::from_secs(5), || async {
                let notice = recorder.0.lock().unwrap().get(n - 1).cloned();
                notice.ok_or_else(|| format!("notice {n} never shown: {:#?}", recorder.0.lock().unwrap()))
            })
            .await
        }
    };

    let call = pause(&app, "delete rec-q1").await;
    let first = told(1).await;
    assert!(first.body.lines().any(|l| l == "Needs 2 approvals by different operators"), "{first:?}");
    assert!(first.actions.contains(&Choice::Approve), "{first:?}");
    let operator = approval_console::domain::authority::admit(
        approval_console::domain::Op::Approve,
        Actor::new(Principal::token("operator-a", Role::Operator), "web"),
    )
    .unwrap()
    .cx()
    .unwrap();
    let fp = call.fingerprint.as_str();
    let waiting = app.decide_shown(call.id.as_str(), Verdict::Approve, fp, &operator).await.unwrap();
    assert_eq!(waiting.state, approval_console::domain::ItemState::Pending);
    let second = told(2).await;
    assert_eq!(second.call, first.call, "the same call, bound to the same fingerprint");
    assert!(second.body.lines().any(|l| l == "1 of 2 approvals: operator-a (web)"), "{second:?}");
    assert!(second.actions.contains(&Choice::Approve), "this console's local admin may give the second: {second:?}");
    app.decide_shown(call.id.as_str(), Verdict::Approve, fp, &app.local_admin("desktop")).await.unwrap();
    assert!(app.finish_deliveries(Duration::from_secs(120)).await);
    let done = app.queue_item(call.id.as_str(), &app.local_admin("desktop")).await.unwrap();
    assert_eq!(done.state, approval_console::domain::ItemState::Delivered, "{done:?}");

    // The local admin approves another call first: nobody else here to tell, so no second notice.
    let other = pause(&app, "delete rec-q2").await;
    told(3).await;
    let mine =
        app.decide_shown(other.id.as_str(), Verdict::Approve, other.fingerprint.as_str(), &app.local_admin("desktop")).await.unwrap();
    assert_eq!(mine.approvals.len(), 1);
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(recorder.0.lock().unwrap().len(), 3, "not told again to whoever approved: {:#?}", recorder.0.lock().unwrap());
}

/// A notifier that keeps each notice with its answer, for the test to choose later.
#[derive(Clone, Default)]
struct Held(Arc<std::sync::Mutex<Vec<Answerable>>>);

type Answerable = (approval_console::notify::Notice, Box<dyn FnOnce(Option<approval_console::notify::Choice>) + Send>);

impl Notifier for Held {
    fn show(
        &self,
        notice: approval_console::notify::Notice,
        answer: Box<dyn FnOnce(Option<approval_console::notify::Choice>) + Send>,
    ) -> Result<(), String> {
        self.0.lock().unwrap().push((notice, answer));
        Ok(())
    }
}

/// A notification has no confirm step: an Approve it offered while the call was ordinary approves
/// nothing once the call is high-risk (here its tool listed since), and the window is asked to
/// open on the call, saying why. (Plain `cargo test`: a notifier that holds the answers.)
#[tokio::test]
async fn an_approve_offered_before_a_call_became_high_risk_approves_nothing_and_opens_it() {
    use approval_console::notify::Choice;
    let tmp = tempfile::tempdir().unwrap();
    let app = App::open(tmp.path(), vec![]).await.unwrap();
    let admin = app.local_admin::<approval_console::domain::grade::Local>("test");
    let held = Held::default();
    let (_stop, rx) = tokio::sync::watch::channel(false);
    app.testing().start_notifications(Arc::new(held.clone()), app.operator().to_owned(), rx);
    let mut opens = app.open_requests();
    let call = pause(&app, "delete rec-late").await;
    wait::until(Duration::from_secs(10), || async {
        if held.0.lock().unwrap().is_empty() {
            Err("no notice yet".to_owned())
        } else {
            Ok(())
        }
    })
    .await;
    let (notice, answer) = held.0.lock().unwrap().remove(0);
    assert!(notice.actions.contains(&Choice::Approve), "an ordinary call: {notice:?}");

    let safety = approval_console::domain::safety::SafetySettings { high_risk_tools: vec!["delete_record".into()], ..Default::default() };
    app.save_safety_settings(safety, approval_console::app::widening::Widening::Unconfirmed, &admin.narrow()).await.unwrap();
    answer(Some(Choice::Approve));
    let open = tokio::time::timeout(Duration::from_secs(10), opens.recv()).await.expect("the call is opened instead").unwrap();
    assert_eq!(open.item.as_ref().map(|i| i.as_str()), Some(call.id.as_str()));
    let reason = open.reason.unwrap_or_default();
    assert!(reason.contains("high risk") && reason.contains("nothing was sent"), "{reason}");
    let now = app.testing().entry(&approval_console::domain::ItemId::new(&call.id)).await.unwrap();
    assert_eq!(now.queued.state, approval_console::domain::ItemState::Pending, "nothing was approved");
}
