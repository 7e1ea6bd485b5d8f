//! The CLI works the queue on the data directory: it shows what it decides, asks, and binds the
//! decision to the fingerprint it showed.

use crate::helpers::*;
use std::process::{Command, Output, Stdio};

fn cli(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text_of(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[tokio::test]
async fn cli_lists_the_queue_and_approves_with_yes_showing_the_fingerprint() {
    let t = spawn_app().await;
    t.generate("delete rec-\u{202E}gnp.exe").await;
    let item = t.pending().await.remove(0);
    let id = item["id"].as_str().unwrap();
    let (dir, tmp, _) = t.stop().await;

    let listed = cli(&dir, &["queue"]);
    assert!(listed.status.success(), "{}", text_of(&listed));
    let out = text_of(&listed);
    assert!(out.contains(id) && out.contains("delete_record"), "{out}");
    assert!(out.contains("\\u{202E}") && !out.contains('\u{202E}'), "a bidi override is shown escaped: {out}");

    let approved = cli(&dir, &["approve", id, "--yes"]);
    assert!(approved.status.success(), "{}", text_of(&approved));
    let out = text_of(&approved);
    assert!(out.contains(item["fingerprint"].as_str().unwrap()), "the full fingerprint is shown: {out}");
    assert!(out.contains("deleted"), "the outcome is shown: {out}");

    let again = cli(&dir, &["approve", id, "--yes"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(text_of(&again).contains("already_decided"), "{}", text_of(&again));
    assert!(text_of(&cli(&dir, &["queue"])).contains("The queue is empty."));
    drop(tmp);
}

#[tokio::test]
async fn cli_without_a_terminal_and_without_yes_decides_nothing() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let (dir, tmp, counters) = t.stop().await;
    let refused = cli(&dir, &["decline", item["id"].as_str().unwrap(), "--reason", "no"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text_of(&refused).contains("--yes"), "{}", text_of(&refused));
    let t = spawn_app_in(&dir, counters).await;
    assert_eq!(t.pending().await.len(), 1);
    drop(tmp);
}

#[tokio::test]
async fn cli_resume_checks_the_data_against_the_schema() {
    let t = spawn_app().await;
    t.generate("ask which region?").await;
    let item = t.pending().await.remove(0);
    let id = item["id"].as_str().unwrap().to_owned();
    let (dir, tmp, _) = t.stop().await;
    let bad = cli(&dir, &["resume", &id, "--data", r#"{"answer": 3}"#, "--yes"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text_of(&bad).contains("invalid_resume_data") && text_of(&bad).contains("/answer"), "{}", text_of(&bad));
    let good = cli(&dir, &["resume", &id, "--data", r#"{"answer": "eu-west"}"#, "--yes"]);
    assert!(good.status.success(), "{}", text_of(&good));
    assert!(text_of(&good).contains("eu-west"));
    drop(tmp);
}

#[tokio::test]
async fn a_decision_made_by_the_cli_while_serve_runs_reaches_the_event_stream() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let id = item["id"].as_str().unwrap();
    let r = t.http.get(format!("{}/api/events", t.base)).bearer_auth(TOKEN).send().await.unwrap();
    let mut stream = r.bytes_stream();
    let mut text = String::new();
    read_until(&mut stream, &mut text, "event: ready").await;

    let dir = t.dir.clone();
    let id_owned = id.to_owned();
    let out = tokio::task::spawn_blocking(move || cli(&dir, &["approve", &id_owned, "--yes"])).await.unwrap();
    assert!(out.status.success(), "{}", text_of(&out));
    read_until(&mut stream, &mut text, &format!(r#"{{"type":"updated","id":"{id}"}}"#)).await;
    assert_eq!(t.item(id).await["state"], "delivered");
}

#[test]
fn agents_toml_in_the_data_dir_defines_the_local_agents_and_a_bad_one_is_refused_with_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("agents.toml"),
        "[[agents]]\nid = \"ops\"\ntools = [\"lookup_record\"]\n[agents.approval]\ntools = { lookup_record = true }\n",
    )
    .unwrap();
    let ok = cli(tmp.path(), &["agents"]);
    assert!(ok.status.success(), "{}", text_of(&ok));
    let out = text_of(&ok);
    assert!(out.contains("ops") && out.contains("lookup_record") && out.contains("requires approval"), "{out}");

    std::fs::write(tmp.path().join("agents.toml"), "[[agents]]\nid = \"ops\"\ntools = [\n  \"lookup_recrod\"]\n").unwrap();
    let bad = cli(tmp.path(), &["agents"]);
    assert_eq!(bad.status.code(), Some(2));
    let out = text_of(&bad);
    assert!(out.contains("agents.toml:4:3: agents[0].tools[0]: unknown tool \"lookup_recrod\""), "{out}");

    let elsewhere = tmp.path().join("other.toml");
    std::fs::write(&elsewhere, "[[agents]]\nid = \"x\"\n").unwrap();
    let ok = cli(tmp.path(), &["--agents", elsewhere.to_str().unwrap(), "agents"]);
    assert!(ok.status.success(), "--agents overrides the file in the data dir: {}", text_of(&ok));
    // Commands that run no agent do not read the file, so a broken one does not lock the queue away.
    let listed = cli(tmp.path(), &["queue"]);
    assert!(listed.status.success(), "{}", text_of(&listed));
    let refused = cli(tmp.path(), &["approve", "q_none", "--yes"]);
    assert!(text_of(&refused).contains("agents.toml:4:3"), "deciding runs tools, so it needs valid agents: {}", text_of(&refused));
}

#[tokio::test]
async fn serve_lists_the_agents_of_agents_toml() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("agents.toml"), "[[agents]]\nid = \"ops\"\nname = \"Ops\"\ntools = [\"delete_record\"]\n").unwrap();
    let server = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), tmp.path(), TOKEN);
    let agents: serde_json::Value =
        reqwest::Client::new().get(format!("{}/api/agents", server.base)).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
    drop(server);
    assert_eq!(agents.as_object().unwrap().keys().collect::<Vec<_>>(), ["ops"], "{agents}");
    assert_eq!(agents["ops"]["name"], "Ops");
    assert_eq!(agents["ops"]["tools"]["delete_record"]["requireApproval"], true);
    assert!(agents["ops"]["tools"]["ask_operator"].is_object(), "ask_operator is available to every agent");
}

#[tokio::test]
async fn c05_a_second_serve_on_the_same_data_directory_is_refused_and_the_first_keeps_serving() {
    // Both would recover at start, each taking the other's in-flight deliveries and runs for
    // interrupted ones and running them again: only one process may serve a data directory.
    let tmp = tempfile::tempdir().unwrap();
    let first = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), tmp.path(), TOKEN);
    let second = cli(tmp.path(), &["serve", "--port", "0", "--token", TOKEN]);
    assert!(!second.status.success(), "{}", text_of(&second));
    let said = text_of(&second);
    assert!(said.contains("already serving") && said.contains(&format!("pid {}", first.child.id())), "{said}");
    assert_eq!(first.get("/api/health").await["status"], "ok", "the first server is untouched");
    drop(first);
    // Its lock goes with the process (also on kill -9: ServeProcess kills its child).
    let third = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), tmp.path(), TOKEN);
    assert_eq!(third.get("/api/health").await["status"], "ok");
}
