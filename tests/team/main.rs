//! Team mode: several real `approval-console serve` processes, each with a data directory of its
//! own, on one real PostgreSQL database (a throwaway cluster, tests/support/postgres.rs). One queue:
//! a call paused on one console shows on the others through LISTEN/NOTIFY, a decision taken
//! anywhere is delivered by the console whose local engine runs the call — also when that console
//! was down when the decision was taken — and only one decision per call wins.

#[path = "../support/langgraph_server.rs"]
mod langgraph_server;
#[path = "../support/mastra_server.rs"]
mod mastra_server;
#[path = "../support/postgres.rs"]
mod postgres;
#[path = "../support/recording_server.rs"]
mod recording_server;
#[path = "../support/serve_process.rs"]
mod serve_process;
#[path = "../support/wait.rs"]
mod wait;

use reqwest::StatusCode;
use serde_json::{json, Value};
use serve_process::{read_until, ServeProcess};
use std::path::{Path, PathBuf};
use std::time::Duration;

const TOKEN: &str = "team-test-token-5b8e2d7a1c4f9063b2e8d5a7c1f40963";

/// A console's data directory, pointed at `url` (the test support hands the URL to each process).
fn console_dir(root: &Path, name: &str, url: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("test-database-url"), url).unwrap();
    dir
}

/// A credential made with the CLI on the team's database: it works on every console.
fn token(dir: &Path, name: &str, role: &str) -> String {
    serve_process::add_token(env!("CARGO_BIN_EXE_approval-console"), dir, name, role)
}

fn start(dir: &Path) -> ServeProcess {
    ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), dir, TOKEN)
}

async fn call(s: &ServeProcess, method: reqwest::Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
    let mut r = reqwest::Client::new().request(method, format!("{}{path}", s.base)).bearer_auth(TOKEN);
    if let Some(body) = body {
        r = r.json(&body);
    }
    let r = r.send().await.unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// Pauses one call of the demo agent on `s` (the demo's delete_record asks for approval).
async fn pause(s: &ServeProcess, record: &str) -> Value {
    let (status, answer) = call(
        s,
        reqwest::Method::POST,
        "/api/agents/demo/generate",
        Some(json!({ "messages": [{ "role": "user", "content": format!("delete {record}") }] })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer
}

async fn item(s: &ServeProcess, id: &str) -> Value {
    s.get(&format!("/api/queue/{id}")).await
}

/// How long these tests wait for what another console, the database or an engine does (see [`wait`]).
const WAIT: Duration = Duration::from_secs(20);

/// Waits until the entry's state on `s` is `state`.
async fn wait_state(s: &ServeProcess, id: &str, state: &str) -> Value {
    wait::until(WAIT, || async {
        let entry = item(s, id).await;
        if entry["state"] == state {
            Ok(entry)
        } else {
            Err(format!("{id} never became {state}: {entry}"))
        }
    })
    .await
}

async fn pending(s: &ServeProcess) -> Vec<Value> {
    s.get("/api/queue?state=pending&limit=500").await["items"].as_array().cloned().unwrap_or_default()
}

/// The audit entries of one call, oldest first.
async fn audit_of(s: &ServeProcess, id: &str) -> Vec<Value> {
    let mut entries = s.get(&format!("/api/audit?item={id}&limit=500")).await["entries"].as_array().cloned().unwrap_or_default();
    entries.reverse();
    entries
}

#[tokio::test]
async fn c01_c05_a_call_paused_on_one_console_shows_on_another_which_approves_it_and_the_first_delivers_it() {
    let url = postgres::database().await;
    let root = tempfile::tempdir().unwrap();
    let dir_a = console_dir(root.path(), "a", &url);
    let a = start(&dir_a);
    let b = start(&console_dir(root.path(), "b", &url));

    // B listens to its event stream before A's agent pauses.
    let events = reqwest::Client::new().get(format!("{}/api/events", b.base)).bearer_auth(TOKEN).send().await.unwrap();
    let mut stream = events.bytes_stream();
    let mut seen = String::new();
    read_until(&mut stream, &mut seen, "event: ready").await;

    let answer = pause(&a, "rec-1").await;
    let on_a = pending(&a).await;
    assert_eq!(on_a.len(), 1, "{answer}");
    let id = on_a[0]["id"].as_str().unwrap().to_owned();
    // The event reaches B through PostgreSQL's NOTIFY (B never polled for it: its safety-net poll is 5 s).
    read_until(&mut stream, &mut seen, &format!(r#"{{"type":"added","id":"{id}"}}"#)).await;
    let on_b = pending(&b).await;
    assert_eq!(on_b.len(), 1);
    assert_eq!((&on_b[0]["id"], &on_b[0]["fingerprint"]), (&on_a[0]["id"], &on_a[0]["fingerprint"]));
    let engine = on_b[0]["engine"].as_str().unwrap().to_owned();
    // A's local engine, named after the instance name A keeps in its data directory.
    let instance = std::fs::read_to_string(dir_a.join("instance")).unwrap();
    assert_eq!(engine, format!("local@{}", instance.trim()));

    // B decides; A (whose local engine runs the call) delivers it: the tool runs there, once.
    let (status, decided) =
        call(&b, reqwest::Method::POST, &format!("/api/queue/{id}/approve"), Some(json!({ "fingerprint": on_b[0]["fingerprint"] }))).await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    let delivered = wait_state(&b, &id, "delivered").await;
    assert_eq!(delivered["decision"]["kind"], "approve");
    assert!(delivered["decision"]["operator"].as_str().is_some_and(|o| !o.is_empty()), "{delivered}");
    // Its receipt is signed with B's key; both consoles publish both keys (the shared database), and
    // A's engine ran the tool only after checking B's receipt.
    let receipt = delivered["decision"]["receipt"].as_str().expect("a signed receipt");
    let kid = approval_console::domain::receipt::decode(receipt).unwrap().0.kid;
    for s in [&a, &b] {
        let keys = s.get("/.well-known/jwks.json").await;
        let kids: Vec<&str> = keys["keys"].as_array().unwrap().iter().map(|k| k["kid"].as_str().unwrap()).collect();
        assert_eq!(kids.len(), 2, "one key per console: {keys}");
        assert!(kids.contains(&kid.as_str()), "{keys}");
    }
    assert_eq!(delivered["decision"]["outcome"]["status"], "executed", "{delivered}");
    let actions: Vec<String> = audit_of(&a, &id).await.iter().map(|e| e["action"].as_str().unwrap().to_owned()).collect();
    assert_eq!(actions.iter().filter(|a| a.as_str() == "decision.approve").count(), 1, "{actions:?}");
    assert_eq!(actions.iter().filter(|a| a.as_str() == "delivery.delivered").count(), 1, "{actions:?}");
    // One audit chain, whichever console checks it.
    for s in [&a, &b] {
        let v = s.get("/api/audit/verify").await;
        assert_eq!(v["ok"], true, "{v}");
    }
    assert_eq!(a.get("/api/audit/verify").await["checked"], b.get("/api/audit/verify").await["checked"]);
}

#[tokio::test]
async fn c05_decisions_taken_on_two_consoles_at_once_leave_exactly_one_per_call() {
    let url = postgres::database().await;
    let root = tempfile::tempdir().unwrap();
    let a = start(&console_dir(root.path(), "a", &url));
    let b = start(&console_dir(root.path(), "b", &url));
    for n in 0..8 {
        pause(if n % 2 == 0 { &a } else { &b }, &format!("rec-{n}")).await;
    }
    let calls = pending(&a).await;
    assert_eq!(calls.len(), 8);
    // Each call approved on A and declined on B at the same moment.
    let races = calls.iter().map(|c| {
        let id = c["id"].as_str().unwrap().to_owned();
        let fp = c["fingerprint"].clone();
        let (a, b) = (&a, &b);
        async move {
            let (approve_path, decline_path) = (format!("/api/queue/{id}/approve"), format!("/api/queue/{id}/decline"));
            let approve = call(a, reqwest::Method::POST, &approve_path, Some(json!({ "fingerprint": fp })));
            let decline = call(b, reqwest::Method::POST, &decline_path, Some(json!({ "fingerprint": fp, "reason": "no" })));
            let ((sa, ba), (sb, bb)) = tokio::join!(approve, decline);
            (id, sa, ba, sb, bb)
        }
    });
    for (id, sa, ba, sb, bb) in futures::future::join_all(races).await {
        let wins = [sa, sb].iter().filter(|s| **s == StatusCode::OK).count();
        assert_eq!(wins, 1, "{id}: exactly one decision wins: A {sa} {ba}, B {sb} {bb}");
        let loser = if sa == StatusCode::OK { &bb } else { &ba };
        assert_eq!(loser["code"], "already_decided", "{id}: {loser}");
        let entry = item(&a, &id).await;
        let decided: Vec<Value> =
            audit_of(&a, &id).await.into_iter().filter(|e| e["action"].as_str().is_some_and(|a| a.starts_with("decision."))).collect();
        assert_eq!(decided.len(), 1, "{id}: one decision in the audit: {decided:?} ({entry})");
    }
    // Every call ends delivered exactly once by its own console.
    for c in &calls {
        let id = c["id"].as_str().unwrap();
        wait_state(&b, id, "delivered").await;
        let deliveries = audit_of(&b, id).await.iter().filter(|e| e["action"] == "delivery.delivered").count();
        assert_eq!(deliveries, 1, "{id}");
    }
    assert_eq!(a.get("/api/audit/verify").await["ok"], true);
}

#[tokio::test]
async fn c05_a_decision_for_a_console_that_is_down_waits_and_is_delivered_once_when_it_is_back() {
    let url = postgres::database().await;
    let root = tempfile::tempdir().unwrap();
    let dir_a = console_dir(root.path(), "a", &url);
    let mut a = start(&dir_a);
    let b = start(&console_dir(root.path(), "b", &url));
    pause(&a, "rec-1").await;
    let c = pending(&b).await.remove(0);
    let id = c["id"].as_str().unwrap().to_owned();
    a.kill();

    let (status, body) =
        call(&b, reqwest::Method::POST, &format!("/api/queue/{id}/approve"), Some(json!({ "fingerprint": c["fingerprint"] }))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // Nobody else runs A's call: it waits in the outbox (B retries nothing of it).
    tokio::time::sleep(Duration::from_secs(2)).await;
    let waiting = item(&b, &id).await;
    assert_eq!((waiting["state"].as_str(), waiting["decision"]["delivery"].as_str()), (Some("decided"), Some("pending")), "{waiting}");

    // A comes back (same data directory: the same instance) and delivers it, once.
    let a = start(&dir_a);
    wait_state(&a, &id, "delivered").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let deliveries = audit_of(&a, &id).await.iter().filter(|e| e["action"] == "delivery.delivered").count();
    assert_eq!(deliveries, 1);
    assert_eq!(b.get("/api/audit/verify").await["ok"], true);
}

/// Which of `consoles` sync engine `name` now (`syncedHere`), by index.
async fn syncing(consoles: &[&ServeProcess], name: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, c) in consoles.iter().enumerate() {
        let list = c.get("/api/engines").await;
        if list.as_array().into_iter().flatten().any(|e| e["name"] == name && e["syncedHere"] == true) {
            out.push(i);
        }
    }
    out
}

/// Waits (up to 30 s) until exactly one of `consoles` syncs `name`; its index.
async fn one_syncing(consoles: &[&ServeProcess], name: &str) -> usize {
    wait::until(Duration::from_secs(30), || async {
        let now = syncing(consoles, name).await;
        assert!(now.len() <= 1, "two consoles sync {name} at once: {now:?}");
        now.first().copied().ok_or_else(|| format!("no console took the lease of {name}"))
    })
    .await
}

/// Waits until `s` lists a pending call of engine `engine` other than those in `known`.
async fn new_pending_of(s: &ServeProcess, engine: &str, known: &[String]) -> Value {
    wait::until(WAIT, || async {
        pending(s)
            .await
            .into_iter()
            .find(|c| c["engine"] == engine && !known.contains(&c["id"].as_str().unwrap().to_owned()))
            .ok_or_else(|| format!("no new pending call of {engine}"))
    })
    .await
}

#[tokio::test]
async fn c05_a_remote_engine_is_synced_and_delivered_by_one_console_at_a_time_and_another_takes_over_when_it_dies() {
    let url = postgres::database().await;
    let root = tempfile::tempdir().unwrap();
    let mastra = mastra_server::MastraServer::start(&root.path().join("mastra"), None);
    let mut consoles = vec![start(&console_dir(root.path(), "a", &url)), start(&console_dir(root.path(), "b", &url))];
    // Both consoles know the engine (the table is shared); exactly one holds its lease, and keeps it.
    add_engine(&consoles[0], &consoles.iter().collect::<Vec<_>>(), json!({ "name": "m", "baseUrl": mastra.base, "pollMs": 200 })).await;
    let holder = one_syncing(&consoles.iter().collect::<Vec<_>>(), "m").await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(syncing(&consoles.iter().collect::<Vec<_>>(), "m").await, vec![holder]);
    let other = 1 - holder;

    // A pause at the engine shows on both; the console without the lease decides, the holder delivers.
    mastra.generate("ops", "delete rec-1", Some(("t-1", "u-1"))).await;
    let first = new_pending_of(&consoles[other], "m", &[]).await;
    let id = first["id"].as_str().unwrap().to_owned();
    let (status, body) = call(
        &consoles[other],
        reqwest::Method::POST,
        &format!("/api/queue/{id}/approve"),
        Some(json!({ "fingerprint": first["fingerprint"] })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait_state(&consoles[other], &id, "delivered").await;
    assert_eq!(mastra.tools_ran().len(), 1, "{:?}", mastra.tools_ran());

    // The holder dies (-9): the other takes the lease over, syncs and delivers from then on.
    consoles[holder].kill();
    let survivors = [&consoles[other]];
    assert_eq!(one_syncing(&survivors, "m").await, 0);
    mastra.generate("ops", "delete rec-2", Some(("t-2", "u-2"))).await;
    let second = new_pending_of(&consoles[other], "m", std::slice::from_ref(&id)).await;
    let second_id = second["id"].as_str().unwrap().to_owned();
    let (status, body) = call(
        &consoles[other],
        reqwest::Method::POST,
        &format!("/api/queue/{second_id}/approve"),
        Some(json!({ "fingerprint": second["fingerprint"] })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait_state(&consoles[other], &second_id, "delivered").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Each approved call ran once at the engine: no delivery twice, none lost.
    let ran = mastra.tools_ran();
    assert_eq!(ran.len(), 2, "{ran:?}");
    assert_eq!(consoles[other].get("/api/audit/verify").await["ok"], true);
    drop(consoles);
}

/// Adds engine `name` on `s`, and waits until every console of `consoles` has loaded it.
async fn add_engine(s: &ServeProcess, consoles: &[&ServeProcess], body: Value) {
    let name = body["name"].clone();
    let (status, answer) = call(s, reqwest::Method::POST, "/api/engines", Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    for c in consoles {
        wait::eventually(WAIT, "every console loaded the engine added on another", || async {
            c.get("/api/engines").await.as_array().into_iter().flatten().any(|e| e["name"] == name)
        })
        .await;
    }
}

#[tokio::test]
async fn c05_a_langgraph_engine_has_one_holder_and_a_request_held_by_a_holder_that_dies_is_sent_by_the_next() {
    let url = postgres::database().await;
    let root = tempfile::tempdir().unwrap();
    let lg = langgraph_server::LangGraphServer::start(&root.path().join("langgraph")).await;
    let mut consoles = vec![start(&console_dir(root.path(), "a", &url)), start(&console_dir(root.path(), "b", &url))];
    let all: Vec<&ServeProcess> = consoles.iter().collect();
    add_engine(&consoles[0], &all, json!({ "name": "lg", "kind": "langgraph", "baseUrl": lg.base, "pollMs": 200 })).await;
    let holder = one_syncing(&all, "lg").await;
    let other = 1 - holder;

    // A middleware interrupt with two requests, shown on both consoles.
    let thread = lg.interrupted("hitl", json!({})).await;
    let mut calls = wait::until(WAIT, || async {
        let now: Vec<Value> = pending(&consoles[other]).await.into_iter().filter(|c| c["threadId"] == thread.as_str()).collect();
        if now.len() == 2 {
            Ok(now)
        } else {
            Err(format!("the interrupt's two requests never showed: {now:?}"))
        }
    })
    .await;
    calls.sort_by(|a, b| a["toolCallId"].as_str().cmp(&b["toolCallId"].as_str()));
    let approve = |s: &ServeProcess, c: &Value| {
        let (path, body) = (format!("/api/queue/{}/approve", c["id"].as_str().unwrap()), json!({ "fingerprint": c["fingerprint"] }));
        let s = s.base.clone();
        async move {
            let r = reqwest::Client::new().post(format!("{s}{path}")).bearer_auth(TOKEN).json(&body).send().await.unwrap();
            assert_eq!(r.status(), StatusCode::OK, "{}", r.text().await.unwrap_or_default());
        }
    };
    // The first decided where the engine is not synced: the holder takes it and holds it.
    approve(&consoles[other], &calls[0]).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(lg.thread(&thread).await["status"], "interrupted", "nothing sent while a request is undecided");

    // The holder dies (-9); the survivor takes the engine over and, once the second is decided, sends both.
    consoles[holder].kill();
    assert_eq!(one_syncing(&[&consoles[other]], "lg").await, 0);
    approve(&consoles[other], &calls[1]).await;
    for c in &calls {
        wait_state(&consoles[other], c["id"].as_str().unwrap(), "delivered").await;
    }
    // Delivered once the resume run is created; the graph goes on by itself.
    wait::eventually(WAIT, "the resume run stopped", || async { lg.thread(&thread).await["status"] != "busy" }).await;
    let done = lg.thread(&thread).await;
    assert_eq!(done["status"], "idle", "{done}");
    assert_eq!(done["values"]["result"], json!({ "decisions": [{ "type": "approve" }, { "type": "approve" }] }), "sent once, both answers");
    assert_eq!(consoles[other].get("/api/audit/verify").await["ok"], true);
    drop(consoles);
}

#[tokio::test]
async fn c05_a_delivery_the_lease_holder_claimed_and_never_finished_is_sent_again_once_by_the_next_holder() {
    use sqlx::Connection;
    let url = postgres::database().await;
    let root = tempfile::tempdir().unwrap();
    let mastra = mastra_server::MastraServer::start(&root.path().join("mastra"), None);
    let mut a = start(&console_dir(root.path(), "a", &url));
    let (status, body) =
        call(&a, reqwest::Method::POST, "/api/engines", Some(json!({ "name": "m", "baseUrl": mastra.base, "pollMs": 200 }))).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(one_syncing(&[&a], "m").await, 0);
    mastra.generate("ops", "delete rec-1", Some(("t-1", "u-1"))).await;
    let c = new_pending_of(&a, "m", &[]).await;
    let id = c["id"].as_str().unwrap().to_owned();
    a.kill();

    // An operator approves from the CLI of another machine (it holds no lease: the decision waits in
    // the outbox) …
    let dir_b = console_dir(root.path(), "b", &url);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .args(["--data-dir", dir_b.to_str().unwrap(), "approve", &id, "--yes"])
        .env("APPROVAL_CONSOLE_DATABASE_URL", &url)
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // … and the holder had claimed it and died sending it: the state a holder killed mid-delivery leaves.
    let mut pg = sqlx::PgConnection::connect(&url).await.unwrap();
    let claimed = sqlx::query(
        "UPDATE decisions SET delivery = 'delivering', attempts = attempts + 1 WHERE queue_item_id = $1 AND delivery = 'pending'",
    )
    .bind(&id)
    .execute(&mut pg)
    .await
    .unwrap();
    assert_eq!(claimed.rows_affected(), 1);
    assert!(mastra.tools_ran().is_empty());

    // The next console to take the lease sends it again, re-reading the call first: it runs once.
    let b = start(&dir_b);
    assert_eq!(one_syncing(&[&b], "m").await, 0);
    // Taken over before the console says it delivers the engine: from then on a delivery left
    // `delivering` may be its own, which must never be taken for cut (and sent twice).
    let actions: Vec<String> = audit_of(&b, &id).await.iter().map(|e| e["action"].as_str().unwrap().to_owned()).collect();
    assert!(actions.contains(&"delivery.retry".to_owned()), "taken over by the time the engine shows synced here: {actions:?}");
    wait_state(&b, &id, "delivered").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(mastra.tools_ran().len(), 1, "{:?}", mastra.tools_ran());
    let actions: Vec<String> = audit_of(&b, &id).await.iter().map(|e| e["action"].as_str().unwrap().to_owned()).collect();
    assert!(actions.contains(&"delivery.retry".to_owned()), "{actions:?}");
    assert_eq!(actions.iter().filter(|a| a.as_str() == "delivery.delivered").count(), 1, "{actions:?}");
    assert_eq!(b.get("/api/audit/verify").await["ok"], true);
}

/// `token`'s heartbeat on call `id` through console `s`: who else has it open.
async fn viewers(s: &ServeProcess, token: &str, id: &str) -> Vec<String> {
    let r = reqwest::Client::new().post(format!("{}/api/queue/{id}/viewers", s.base)).bearer_auth(token).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let body: Value = r.json().await.unwrap();
    body["viewers"].as_array().unwrap().iter().map(|v| v["viewer"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn c02_operators_on_two_consoles_see_each_other_on_the_call_they_both_have_open() {
    let url = postgres::database().await;
    let root = tempfile::tempdir().unwrap();
    let (dir_a, dir_b) = (console_dir(root.path(), "a", &url), console_dir(root.path(), "b", &url));
    let (a, b) = (start(&dir_a), start(&dir_b));
    let (alice, bob) = (token(&dir_a, "alice", "operator"), token(&dir_b, "bob", "operator"));
    pause(&a, "rec-1").await;
    let id = pending(&a).await[0]["id"].as_str().unwrap().to_owned();

    assert!(viewers(&a, &alice, &id).await.is_empty());
    assert_eq!(viewers(&b, &bob, &id).await, ["alice (web)"], "bob on B sees alice, who opened it on A");
    assert_eq!(viewers(&a, &alice, &id).await, ["bob (web)"], "and alice on A sees bob");
    let r = reqwest::Client::new().delete(format!("{}/api/queue/{id}/viewers", b.base)).bearer_auth(&bob).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert!(viewers(&a, &alice, &id).await.is_empty(), "bob closed it on B: alice on A sees nobody");
}

/// Submits the same call (`refund_order` ord-1, Idempotency-Key `k-1`) to `s` as `bot`: the answer.
async fn submit(http: &reqwest::Client, s: &ServeProcess, bot: &str) -> Value {
    let request = json!({ "tool": "refund_order", "args": { "order": "ord-1" }, "agent": "billing-bot" });
    let r =
        http.post(format!("{}/api/calls", s.base)).bearer_auth(bot).header("Idempotency-Key", "k-1").json(&request).send().await.unwrap();
    r.json().await.unwrap()
}

#[tokio::test]
async fn c01_c05_a_call_an_agent_submits_to_one_console_is_decided_on_another_and_its_wait_ends() {
    let url = postgres::database().await;
    let root = tempfile::tempdir().unwrap();
    let (dir_a, dir_b) = (console_dir(root.path(), "a", &url), console_dir(root.path(), "b", &url));
    let (a, b) = (start(&dir_a), start(&dir_b));
    let bot = token(&dir_a, "bot", "agent");
    let http = reqwest::Client::new();
    let submitted: Value = submit(&http, &a, &bot).await;
    let id = submitted["id"].as_str().unwrap().to_owned();
    // The agent waits on A …
    let waiting = {
        let (http, base, bot, id) = (http.clone(), a.base.clone(), bot.clone(), id.clone());
        tokio::spawn(async move {
            http.get(format!("{base}/api/calls/{id}?waitSecs=30")).bearer_auth(&bot).send().await.unwrap().json::<Value>().await.unwrap()
        })
    };
    // … the same key on B finds the same call …
    let again: Value = submit(&http, &b, &bot).await;
    assert_eq!((again["id"].as_str(), again["created"].as_bool()), (Some(id.as_str()), Some(false)), "{again}");
    // … an operator on B approves it, and A's wait ends with the approval.
    let on_b = item(&b, &id).await;
    let (status, body) =
        call(&b, reqwest::Method::POST, &format!("/api/queue/{id}/approve"), Some(json!({ "fingerprint": on_b["fingerprint"] }))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answer = tokio::time::timeout(Duration::from_secs(15), waiting).await.expect("A hears of B's decision").unwrap();
    assert_eq!((answer["outcome"].as_str(), answer["args"].clone()), (Some("approved"), json!({ "order": "ord-1" })), "{answer}");
    wait_state(&a, &id, "delivered").await;
    let delivered = audit_of(&a, &id).await.iter().filter(|e| e["action"] == "delivery.delivered").count();
    assert_eq!(delivered, 1, "handed over once, whichever console");
}

/// Engine `name` as console `s` lists it.
async fn engine_on(s: &ServeProcess, name: &str) -> Value {
    s.get("/api/engines").await.as_array().into_iter().flatten().find(|e| e["name"] == name).cloned().unwrap_or(Value::Null)
}

/// Waits (up to 20 s) until `s` lists engine `name` with health `state` at `base`.
async fn wait_engine(s: &ServeProcess, name: &str, base: &str, state: &str) -> Value {
    wait::until(WAIT, || async {
        let e = engine_on(s, name).await;
        if e["baseUrl"] == base && e["health"]["state"] == state {
            Ok(e)
        } else {
            Err(format!("{name} never became {state} at {base}: {e}"))
        }
    })
    .await
}

#[tokio::test]
async fn c07_an_engine_token_is_bound_to_its_url_on_every_console_and_never_follows_a_url_changed_on_another() {
    let url = postgres::database().await;
    let root = tempfile::tempdir().unwrap();
    let server_1 = mastra_server::MastraServer::start(&root.path().join("mastra"), Some("secret-1"));
    let (server_2, seen_by_2) = recording_server::recording_server().await;
    // A alone first, so A holds the engine's lease: A is the console that sends to it.
    let a = start(&console_dir(root.path(), "a", &url));
    let (status, body) = call(
        &a,
        reqwest::Method::POST,
        "/api/engines",
        Some(json!({ "name": "m", "baseUrl": server_1.base, "token": "secret-1", "sessionOnly": true, "pollMs": 200 })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(one_syncing(&[&a], "m").await, 0);
    wait_engine(&a, "m", &server_1.base, "reachable").await;
    let b = start(&console_dir(root.path(), "b", &url));
    assert_eq!(one_syncing(&[&a, &b], "m").await, 0, "A keeps the lease");

    // On B an admin points the engine at server 2, with a token of B's own for it.
    let (status, body) = call(
        &b,
        reqwest::Method::PATCH,
        "/api/engines/m",
        Some(json!({ "baseUrl": server_2, "token": "secret-2-on-b", "sessionOnly": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // A re-reads the row and reconnects to server 2: its token was given for server 1, so it sends
    // nothing and says why.
    let on_a = wait_engine(&a, "m", &server_2, "token_required").await;
    assert!(on_a["health"]["lastError"].as_str().is_some_and(|e| e.contains(&server_2)), "{on_a}");
    // Connected anew after the change, A kept the lease (an edit never hands the engine to
    // another console), and B shows the health A stored, not a guess of its own.
    assert_eq!(on_a["syncedHere"], true, "{on_a}");
    let on_b = wait_engine(&b, "m", &server_2, "token_required").await;
    assert_eq!(on_b["syncedHere"], false, "{on_b}");
    tokio::time::sleep(Duration::from_secs(1)).await; // five more poll intervals
    let seen: Vec<String> = seen_by_2.lock().unwrap().clone();
    assert!(seen.iter().all(|h| !h.contains("secret-1")), "server 2 got server 1's token: {seen:?}");

    // Given the token again for server 2 on A, A sends that one, to server 2.
    let (status, body) =
        call(&a, reqwest::Method::PATCH, "/api/engines/m", Some(json!({ "token": "secret-2", "sessionOnly": true }))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait::until(WAIT, || async {
        let seen: Vec<String> = seen_by_2.lock().unwrap().clone();
        if seen.iter().any(|h| h == "Bearer secret-2") {
            Ok(())
        } else {
            Err(format!("A never used the token given for server 2: {seen:?}"))
        }
    })
    .await;
    let seen: Vec<String> = seen_by_2.lock().unwrap().clone();
    assert!(seen.iter().all(|h| !h.contains("secret-1")), "{seen:?}");
}

#[tokio::test]
async fn c05_an_engine_edited_on_the_console_that_syncs_it_never_lets_its_lease_go() {
    use sqlx::Connection;
    let url = postgres::database().await;
    let root = tempfile::tempdir().unwrap();
    let mastra = mastra_server::MastraServer::start(&root.path().join("mastra"), None);
    let a = start(&console_dir(root.path(), "a", &url));
    let (status, body) =
        call(&a, reqwest::Method::POST, "/api/engines", Some(json!({ "name": "m", "baseUrl": mastra.base, "pollMs": 200 }))).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(one_syncing(&[&a], "m").await, 0);

    // Another would-be holder tries the lock as fast as it can while A's engine is connected anew
    // after each edit: it must never find the lock free.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let prober = {
        let (url, stop) = (url.clone(), stop.clone());
        tokio::spawn(async move {
            let mut pg = sqlx::PgConnection::connect(&url).await.unwrap();
            let mut tries = 0u64;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let taken: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
                    .bind(approval_console::store::lease::key("engine:m"))
                    .fetch_one(&mut pg)
                    .await
                    .unwrap();
                assert!(!taken, "the lease was free after {tries} tries: an edit let it go");
                tries += 1;
            }
            tries
        })
    };
    for poll_ms in [300, 400, 500] {
        let (status, body) = call(&a, reqwest::Method::PATCH, "/api/engines/m", Some(json!({ "pollMs": poll_ms }))).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        wait::until(WAIT, || async {
            let e = engine_on(&a, "m").await;
            if e["pollMs"] == poll_ms && e["syncedHere"] == true && e["health"]["state"] == "reachable" {
                Ok(())
            } else {
                Err(format!("m was not synced again by A at {poll_ms} ms: {e}"))
            }
        })
        .await;
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let tries = prober.await.expect("the lease stayed held");
    assert!(tries > 0);
}

#[tokio::test]
async fn c05_two_consoles_starting_one_run_id_at_once_first_writer_wins_and_the_other_gets_run_exists() {
    let url = postgres::database().await;
    let root = tempfile::tempdir().unwrap();
    let a = start(&console_dir(root.path(), "a", &url));
    let b = start(&console_dir(root.path(), "b", &url));
    let starts = (0..10).map(|n| {
        let (a, b) = (&a, &b);
        async move {
            let run_id = format!("shared-{n}");
            let body = |record: &str| json!({ "messages": [{ "role": "user", "content": format!("delete {record}") }], "runId": run_id });
            let on_a = call(a, reqwest::Method::POST, "/api/agents/demo/generate", Some(body("rec-from-a")));
            let on_b = call(b, reqwest::Method::POST, "/api/agents/demo/generate", Some(body("rec-from-b")));
            let ((sa, ba), (sb, bb)) = tokio::join!(on_a, on_b);
            (run_id, sa, ba, sb, bb)
        }
    });
    let results = futures::future::join_all(starts).await;
    let calls = pending(&a).await;
    for (run_id, sa, ba, sb, bb) in results {
        let ok: Vec<&str> = [(sa, "a"), (sb, "b")].iter().filter(|(s, _)| *s == StatusCode::OK).map(|(_, c)| *c).collect();
        assert_eq!(ok.len(), 1, "{run_id}: exactly one start wins: A {sa} {ba}, B {sb} {bb}");
        let loser = if sa == StatusCode::OK { (&sb, &bb) } else { (&sa, &ba) };
        assert_eq!((*loser.0, loser.1["code"].as_str()), (StatusCode::CONFLICT, Some("run_exists")), "{run_id}: {}", loser.1);
        // The winner's run is the one that waits, untouched: its call, its arguments, its console's engine.
        let of_run: Vec<&Value> = calls.iter().filter(|c| c["runId"] == run_id.as_str()).collect();
        assert_eq!(of_run.len(), 1, "{run_id}: {of_run:?}");
        assert_eq!(of_run[0]["args"]["id"], format!("rec-from-{}", ok[0]), "{run_id}: {}", of_run[0]);
    }
    // Each waiting run is its winner's, and approving it on the other console runs it there.
    let c = &calls[0];
    let (status, body) = call(
        &b,
        reqwest::Method::POST,
        &format!("/api/queue/{}/approve", c["id"].as_str().unwrap()),
        Some(json!({ "fingerprint": c["fingerprint"] })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait_state(&a, c["id"].as_str().unwrap(), "delivered").await;
}

/// One request of the load: its status, whether it had a `Retry-After`, its body.
async fn load_request(http: &reqwest::Client, s: &str, n: usize, ids: &[String]) -> (StatusCode, bool, String) {
    let r = match n % 4 {
        0 => http.get(format!("{s}/api/queue?state=pending&limit=50")),
        1 => http.get(format!("{s}/api/queue/{}", ids[n % ids.len()])),
        2 => http
            .post(format!("{s}/api/agents/demo/generate"))
            .json(&json!({ "messages": [{ "role": "user", "content": format!("delete load-{n}") }] })),
        _ => http.get(format!("{s}/api/audit?limit=20")),
    };
    let r = r.bearer_auth(TOKEN).send().await.unwrap_or_else(|e| panic!("the console must answer every request: {e}"));
    let status = r.status();
    let retry_after = r.headers().contains_key(reqwest::header::RETRY_AFTER);
    (status, retry_after, r.text().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c05_postgresql_restarted_under_load_gives_2xx_409_or_503_storage_unavailable_with_retry_after_never_500_and_serving_resumes() {
    // A cluster of this test's own: restarting the shared one would cut the other tests short.
    let cluster = std::sync::Arc::new(postgres::Cluster::start());
    let url = cluster.database().await;
    let root = tempfile::tempdir().unwrap();
    let a = start(&console_dir(root.path(), "a", &url));
    for n in 0..3 {
        pause(&a, &format!("rec-{n}")).await;
    }
    let ids: Vec<String> = pending(&a).await.iter().map(|c| c["id"].as_str().unwrap().to_owned()).collect();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let workers: Vec<_> = (0..6)
        .map(|w| {
            let (base, ids, stop) = (a.base.clone(), ids.clone(), stop.clone());
            tokio::spawn(async move {
                let http = reqwest::Client::new();
                let mut answers = Vec::new();
                let mut n = w;
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    answers.push(load_request(&http, &base, n, &ids).await);
                    n += 6;
                }
                answers
            })
        })
        .collect();
    for _ in 0..2 {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let c = cluster.clone();
        tokio::task::spawn_blocking(move || c.restart()).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut unavailable = 0;
    let mut total = 0;
    for w in workers {
        for (status, retry_after, body) in w.await.unwrap() {
            total += 1;
            assert_ne!(status, StatusCode::INTERNAL_SERVER_ERROR, "never 500: {body}");
            if status == StatusCode::SERVICE_UNAVAILABLE {
                unavailable += 1;
                assert!(retry_after, "503 without Retry-After: {body}");
                assert!(body.contains("\"storage_unavailable\""), "{body}");
            } else {
                assert!(status.is_success() || status == StatusCode::CONFLICT, "{status}: {body}");
            }
        }
    }
    eprintln!("{total} requests under two restarts, {unavailable} answered 503 storage_unavailable");

    // Serving again: reads, a new pause and a decision all work.
    wait::until(WAIT, || async {
        let r = reqwest::Client::new().get(format!("{}/api/queue", a.base)).bearer_auth(TOKEN).send().await.unwrap();
        if r.status() == StatusCode::OK {
            Ok(())
        } else {
            Err(format!("the console never served again: {}", r.status()))
        }
    })
    .await;
    pause(&a, "after-restart").await;
    let c = pending(&a).await.into_iter().find(|c| c["args"]["id"] == "after-restart").expect("the new call waits");
    let (status, body) = call(
        &a,
        reqwest::Method::POST,
        &format!("/api/queue/{}/approve", c["id"].as_str().unwrap()),
        Some(json!({ "fingerprint": c["fingerprint"] })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait_state(&a, c["id"].as_str().unwrap(), "delivered").await;
    assert_eq!(a.get("/api/audit/verify").await["ok"], true);
}
