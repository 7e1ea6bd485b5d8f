//! Issue 46: the crash test again, with a model that takes 2 s a turn. A delivered decision's tool
//! result is committed in its own transaction right after the tool returns, before the model's next
//! turn; so a SIGKILL during that turn leaves nothing for an operator to resolve — the run goes on
//! from the committed result at the next start — and only a kill inside a tool leaves its call
//! `interrupted`. The tool keeps its own ledger (a `start` line as it begins, an `end` line once its
//! side effect is done) and the model server records every request, so the test tells for each
//! call where the kill found it.

use crate::crash_loop::{all_items, approve_what_waits, assert_nothing_lost, client, records_agent, resolve, Rng, Told};
use crate::fake_server::{approval_cycle_held, FakeOpenAi};
use crate::serve_process::ServeProcess;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const TOKEN: &str = "tok-slow-model-crash-5e2b8d1f7a3c6049e5b2d8f1a7c30694";
const KILLS: usize = 12;
const CLIENTS: usize = 3;
/// How long the model takes to answer once it has a tool's result.
const TURN: Duration = Duration::from_secs(2);

/// The ledger's lines: (phase, record id), in order.
fn ledger(file: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a whole line");
            (v["phase"].as_str().unwrap().to_owned(), v["id"].as_str().unwrap().to_owned())
        })
        .collect()
}

/// The tool call ids whose results the model was sent, with how many times each was sent.
fn results_sent(fake: &FakeOpenAi) -> HashMap<String, usize> {
    let mut sent = HashMap::new();
    for r in fake.requests() {
        for m in r.body["messages"].as_array().into_iter().flatten().filter(|m| m["role"] == "tool") {
            *sent.entry(m["tool_call_id"].as_str().unwrap_or_default().to_owned()).or_default() += 1;
        }
    }
    sent
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c05_with_a_slow_model_a_kill_leaves_interrupted_only_the_calls_it_found_inside_their_tool() {
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    eprintln!("slow model crash seed {seed}");
    let mut rng = Rng(seed);
    // Every turn that follows a tool's result takes `TURN`; the turn that proposes the call does not.
    let fake = FakeOpenAi::answering(approval_cycle_held(|reply| reply.after(TURN))).await;
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("ledger.jsonl");
    let agents = tmp.path().join("agents.toml");
    std::fs::write(&agents, records_agent("slow", Some(&fake.base_url), "ledger", &file)).unwrap();
    let data = tmp.path().join("data");
    let start = || ServeProcess::start_with(env!("CARGO_BIN_EXE_approval-console"), &data, TOKEN, &["--agents", agents.to_str().unwrap()]);
    let told = Arc::new(Mutex::new(Told::default()));

    for life in 0..KILLS {
        let mut console = start();
        let before = told.lock().unwrap().approved.len();
        let clients: Vec<_> = (0..CLIENTS).map(|n| tokio::spawn(client(console.base.clone(), TOKEN, "slow", n, told.clone()))).collect();
        // Once this life has approved something (its deliveries and model turns under way), a kill
        // anywhere in the next 400 ms: inside a tool (100 ms each) or, mostly, in a model's turn.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while told.lock().unwrap().approved.len() == before {
            assert!(std::time::Instant::now() < deadline, "life {life}: nothing was approved in 60 s");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        tokio::time::sleep(Duration::from_millis(rng.below(400))).await;
        console.kill();
        for c in clients {
            c.await.unwrap();
        }
    }

    // One more life. The runs the kills left on a model's turn go on by themselves; what a kill cut
    // inside a tool is resolved as the ledger says it went; what still waits is approved.
    let console = start();
    let lines = ledger(&file);
    let ended: HashSet<&str> = lines.iter().filter(|(p, _)| p == "end").map(|(_, id)| id.as_str()).collect();
    let started: HashSet<&str> = lines.iter().filter(|(p, _)| p == "start").map(|(_, id)| id.as_str()).collect();
    let sent = results_sent(&fake);
    let interrupted: Vec<Value> = all_items(&console).await.into_iter().filter(|i| i["state"] == "interrupted").collect();
    // Where each interrupted call's kill came, by the ledger: inside the tool (begun, not done),
    // after the tool was done but before the console had its answer, or in the instant between
    // the console handing the call to the tool and the tool's first line (the tool process dies
    // with the console: a request it had not read yet never ran).
    let (mut inside, mut answering, mut handed) = (0, 0, 0);
    for item in &interrupted {
        let record = item["args"]["id"].as_str().unwrap();
        // Never a kill in the model's turn: the call's result had not reached the model.
        let call = item["toolCallId"].as_str().unwrap();
        assert!(!sent.contains_key(call), "interrupted, yet its result had reached the model (a kill in the model's turn): {item}");
        match (started.contains(record), ended.contains(record)) {
            (true, false) => inside += 1,
            (true, true) => answering += 1,
            (false, ended) => {
                assert!(!ended, "a tool done that never began: {record}");
                handed += 1;
            }
        }
        resolve(&console, item, if ended.contains(record) { "ran" } else { "did_not_run" }).await;
    }
    approve_what_waits(&console).await;
    console.runs_over("slow").await;

    let items = all_items(&console).await;
    let told = std::mem::take(&mut *told.lock().unwrap());
    let sent = results_sent(&fake);
    // Every delivered call's result reached the model; each one sent more than once was on a
    // model's turn when a kill came, and went on from its committed result.
    let mut resumed = 0;
    for item in items.iter().filter(|i| i["state"] == "delivered") {
        let times = sent.get(item["toolCallId"].as_str().unwrap()).copied().unwrap_or(0);
        assert!(times >= 1, "delivered, and its result never reached the model: {item}");
        resumed += usize::from(times > 1);
    }
    // No call run twice, or begun twice; no lost decision, none run without an approval, no dead end.
    let lines = ledger(&file);
    for phase in ["start", "end"] {
        let mut seen = HashSet::new();
        let twice: Vec<&str> = lines.iter().filter(|(p, id)| p == phase && !seen.insert(id.as_str())).map(|(_, id)| id.as_str()).collect();
        assert!(twice.is_empty(), "a call's tool {phase}ed twice: {twice:?}");
    }
    let begun: Vec<String> = lines.iter().map(|(_, id)| id.clone()).collect();
    assert_nothing_lost(&console, &items, &told, &begun).await;
    eprintln!(
        "slow model crash: {KILLS} kills, {} entries, {} approvals told, {} tools begun, {} interrupted ({inside} inside the tool, {answering} after it was done and before its answer, {handed} handed to it and not yet read), {resumed} model turns cut by a kill and taken up again",
        items.len(),
        told.approved.len(),
        lines.iter().filter(|(p, _)| p == "start").count(),
        interrupted.len(),
    );
    assert!(resumed > 0, "no kill landed in a model's turn: the test proved nothing");
}
