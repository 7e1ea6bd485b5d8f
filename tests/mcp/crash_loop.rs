//! Issue 15: the project's own crash test. The real `serve`, with an agent whose approval-needing
//! tool is an MCP server that appends each call to a file (a real side effect), is killed with
//! SIGKILL at random points while concurrent clients start runs and approve them, again and again.
//! Afterwards every interrupted call is resolved as the side-effect file says it went, and:
//! no lost pause, no lost decision, no call run twice, no call run without an approval, no call
//! left with nothing to do, and an audit chain that verifies.

use crate::serve_process::ServeProcess;
use crate::{node, quoted, tests_dir};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TOKEN: &str = "tok-crash-loop-9a3e7c1f5b2d8046a9e3c7f1b5d20486";
const KILLS: usize = 20;
const CLIENTS: usize = 4;
/// Makes every record id unique across the console's lives.
static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// What the clients were told, gathered across all the lives of the console.
#[derive(Default)]
pub(crate) struct Told {
    /// Runs a generate answered as suspended: each must have its queue entry.
    pub(crate) paused_runs: HashSet<String>,
    /// Queue entries an approve answered 200 for: each must have its approval stored.
    pub(crate) approved: HashSet<String>,
}

/// xorshift64*, seeded from the clock (printed, so a failing run can be replayed by hand).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// One client: starts runs and approves whatever waits, until the console dies under it.
pub(crate) async fn client(base: String, token: &'static str, agent: &'static str, n: usize, told: Arc<Mutex<Told>>) {
    let http = reqwest::Client::builder().timeout(Duration::from_secs(5)).build().unwrap();
    for i in 0usize.. {
        let id = format!("rec-{n}-{i}-{}", NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst));
        let Ok(r) = http
            .post(format!("{base}/api/agents/{agent}/generate"))
            .bearer_auth(token)
            .json(&json!({ "messages": format!("delete {id}") }))
            .send()
            .await
        else {
            return;
        };
        let Ok(answer) = r.json::<Value>().await else { return };
        if answer["finishReason"] == "suspended" {
            told.lock().unwrap().paused_runs.insert(answer["runId"].as_str().unwrap().to_owned());
        }
        let Ok(r) = http.get(format!("{base}/api/queue?limit=10")).bearer_auth(token).send().await else { return };
        let Ok(page) = r.json::<Value>().await else { return };
        for item in page["items"].as_array().cloned().unwrap_or_default() {
            let url = format!("{base}/api/queue/{}/approve", item["id"].as_str().unwrap());
            let Ok(r) = http.post(url).bearer_auth(token).json(&json!({ "fingerprint": item["fingerprint"] })).send().await else { return };
            if r.status().is_success() {
                told.lock().unwrap().approved.insert(item["id"].as_str().unwrap().to_owned());
            }
        }
    }
}

/// Every line the tool appended: the ids it ran for.
fn effects(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a whole line")["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Every queue entry (all states), paging through.
pub(crate) async fn all_items(console: &ServeProcess) -> Vec<Value> {
    let mut items = Vec::new();
    let mut cursor = String::new();
    loop {
        let page = console.get(&format!("/api/queue?state=all&limit=200{cursor}")).await;
        items.extend(page["items"].as_array().unwrap().iter().cloned());
        match page["nextCursor"].as_str() {
            Some(c) => cursor = format!("&cursor={c}"),
            None => return items,
        }
    }
}

/// `agents.toml` for agent `id`: its one tool `delete_record`, needing approval, is the misbehaving
/// MCP server in `mode` writing to `file`; `model`: an OpenAI-compatible server's base URL (else
/// the scripted demo model).
pub(crate) fn records_agent(id: &str, model: Option<&str>, mode: &str, file: &Path) -> String {
    let model = model.map(|url| {
        format!("[agents.model]\napi = \"openai-compatible\"\nprovider = \"fake\"\nbase_url = {}\nmodel = \"fake-model\"\n", quoted(url))
    });
    format!(
        "[[agents]]\nid = {}\ntools = []\n{}[[agents.mcp]]\nname = \"records\"\ncommand = {}\nargs = [{}, {}, {}]\nenv = {{ TOOL_NAME = \"delete_record\" }}\n[agents.approval]\ntools = {{ delete_record = true }}\n",
        quoted(id),
        model.unwrap_or_default(),
        quoted(node()),
        quoted(tests_dir().join("misbehaving-server.mjs").to_string_lossy()),
        quoted(mode),
        quoted(file.to_string_lossy()),
    )
}

/// The last life's work: `item`, interrupted, resolved as `how` (`ran`, `did_not_run`).
pub(crate) async fn resolve(console: &ServeProcess, item: &Value, how: &str) {
    let body = json!({ "resolution": how, "fingerprint": item["fingerprint"] });
    let after = console.post(&format!("/api/queue/{}/resolve", item["id"].as_str().unwrap()), body).await;
    assert_eq!(after["resolution"]["kind"], how, "{after}");
}

/// The last life's work: whatever still waits approved and delivered, so every run ends.
pub(crate) async fn approve_what_waits(console: &ServeProcess) {
    for item in all_items(console).await.iter().filter(|i| i["state"] == "pending") {
        let id = item["id"].as_str().unwrap();
        console.post(&format!("/api/queue/{id}/approve"), json!({ "fingerprint": item["fingerprint"] })).await;
        let after = console.settled(id).await;
        assert_eq!(after["state"], "delivered", "{after}");
    }
}

/// What every crash test asserts at the end: every approval a client was told of is stored as an
/// approval; every record the tool touched (`ran`) was approved; each entry is over (delivered,
/// failed, gone, or interrupted and resolved); the audit chain verifies.
pub(crate) async fn assert_nothing_lost(console: &ServeProcess, items: &[Value], told: &Told, ran: &[String]) {
    for id in &told.approved {
        let item = items.iter().find(|i| i["id"] == id.as_str()).unwrap_or_else(|| panic!("approved entry {id} is gone"));
        assert_eq!(item["decision"]["kind"], "approve", "{item}");
    }
    let approved_args: HashSet<&str> =
        items.iter().filter(|i| i["decision"]["kind"] == "approve").map(|i| i["args"]["id"].as_str().unwrap()).collect();
    for id in ran {
        assert!(approved_args.contains(id.as_str()), "{id} ran without an approval");
    }
    for item in items {
        let over = matches!(item["state"].as_str(), Some("delivered" | "failed" | "gone"))
            || (item["state"] == "interrupted" && !item["resolution"].is_null());
        assert!(over, "left with nothing to do: {item}");
    }
    let verified = console.get("/api/audit/verify").await;
    assert_eq!(verified["ok"], true, "{verified}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c05_kill_9_at_random_points_loses_nothing_and_runs_nothing_twice() {
    let started = Instant::now();
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    eprintln!("crash loop seed {seed}");
    let mut rng = Rng(seed);
    let tmp = tempfile::tempdir().unwrap();
    let effect = tmp.path().join("effects.jsonl");
    let agents = tmp.path().join("agents.toml");
    std::fs::write(&agents, records_agent("crash", None, "append", &effect)).unwrap();
    let data = tmp.path().join("data");
    let start = || ServeProcess::start_with(env!("CARGO_BIN_EXE_approval-console"), &data, TOKEN, &["--agents", agents.to_str().unwrap()]);
    let told = Arc::new(Mutex::new(Told::default()));

    for _ in 0..KILLS {
        let mut console = start();
        let clients: Vec<_> = (0..CLIENTS).map(|n| tokio::spawn(client(console.base.clone(), TOKEN, "crash", n, told.clone()))).collect();
        tokio::time::sleep(Duration::from_millis(50 + rng.below(400))).await;
        console.kill(); // SIGKILL, wherever the clients and the console are
        for c in clients {
            c.await.unwrap();
        }
    }

    // One more life, to settle everything: what a crash cut short is resolved as the file says.
    let console = start();
    let ran: HashSet<String> = effects(&effect).into_iter().collect();
    for item in all_items(&console).await.iter().filter(|i| i["state"] == "interrupted" && i["resolution"].is_null()) {
        resolve(&console, item, if ran.contains(item["args"]["id"].as_str().unwrap()) { "ran" } else { "did_not_run" }).await;
    }
    // And what still waits is approved, so every run ends.
    approve_what_waits(&console).await;
    let items = all_items(&console).await;
    let told = std::mem::take(&mut *told.lock().unwrap());
    // No lost pause: every run a client was told is suspended has its entry.
    let runs: HashSet<&str> = items.iter().map(|i| i["runId"].as_str().unwrap()).collect();
    for run in &told.paused_runs {
        assert!(runs.contains(run.as_str()), "run {run} was paused but has no queue entry");
    }
    // No call run twice; no lost decision, none run without an approval, no dead end; no run waits.
    let lines = effects(&effect);
    let unique: HashSet<&String> = lines.iter().collect();
    assert_eq!(unique.len(), lines.len(), "a call ran twice: {lines:?}");
    assert_nothing_lost(&console, &items, &told, &lines).await;
    let runs = console.runs_over("crash").await;
    assert_eq!(runs["runs"], json!([]), "{runs}");
    let interrupted = items.iter().filter(|i| i["state"] == "interrupted").count();
    let had_run = items.iter().filter(|i| i["resolution"]["kind"] == "ran").count();
    eprintln!(
        "crash loop: {KILLS} kills, {} entries, {} runs paused, {} approvals told, {} tool runs, {interrupted} interrupted ({had_run} of them had run), {:.1} s",
        items.len(),
        told.paused_runs.len(),
        told.approved.len(),
        lines.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(!lines.is_empty() && !told.approved.is_empty(), "the loop did some work");
}
