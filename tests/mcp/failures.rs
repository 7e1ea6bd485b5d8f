//! Servers that crash, hang, die or never start: a clear tool error or config error, never a stuck
//! run, and never a call sent twice.

use crate::*;
use approval_console::app::App;
use serde_json::json;
use std::time::{Duration, Instant};

fn agent_with(entry: &str) -> String {
    format!("[[agents]]\nid = \"{AGENT}\"\n{entry}")
}

#[tokio::test]
async fn a_server_that_crashes_during_a_call_fails_it_with_its_exit_status_and_the_run_ends() {
    let tmp = tempfile::tempdir().unwrap();
    let script = vec![calls(&[("echo", json!({"text": "hi"}))])];
    let (agent, seen) = agent(&agent_with(&misbehaving_entry("flaky", &["crash-on-call"], 5)), script).await;
    let app = App::open(tmp.path(), vec![agent]).await.unwrap();

    let started = Instant::now();
    let run_id = run(&app, "echo", Duration::from_secs(20)).await;
    assert!(started.elapsed() < Duration::from_secs(5), "a crash is seen at once, not at the timeout: {:?}", started.elapsed());
    assert!(waiting(&app, &run_id).await.is_empty());
    let results = tool_results(&seen);
    let told = text(&results[0].1);
    assert!(told.starts_with("Tool echo failed: MCP server \"flaky\" exited during the call (exit status: 3)"), "{told}");
    assert!(told.contains("misbehaving-server: crashing on tools/call"), "the stderr tail is in the error: {told}");
    assert_eq!(seen.lock().unwrap().len(), 2, "the model was asked again, with the error, and the run finished");
}

#[tokio::test]
async fn a_dead_server_is_started_again_once_per_call_and_reported_not_running_when_that_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("crashed");
    let entry = misbehaving_entry("flaky", &["crash-then-refuse", &marker.to_string_lossy()], 5);
    let (agent, _) = agent(&agent_with(&entry), vec![]).await;
    let echo = agent.tool("echo").unwrap();

    let first = echo.execute(&json!({"text": "1"}), None).await.unwrap_err();
    assert!(first.contains("exited during the call (exit status: 3)"), "{first}");
    let second = echo.execute(&json!({"text": "2"}), None).await.unwrap_err();
    assert!(second.starts_with("MCP server \"flaky\" is not running (exit status: 3) and did not start again:"), "{second}");
    assert!(second.contains("exit status: 4") && second.contains("refusing to start (crash-then-refuse)"), "{second}");
}

#[tokio::test]
async fn a_killed_server_is_started_again_on_the_next_call() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (agent, _) = agent(&agent_with(&filesystem_entry("fs", &root, 30)), vec![]).await;
    let list = agent.tool("list_allowed_directories").unwrap();
    let before = server_pids(&root);
    assert_eq!(before.len(), 1, "one server process on {}: {before:?}", root.display());
    let killed = std::process::Command::new("kill").args(["-9", &before[0].to_string()]).status().unwrap();
    assert!(killed.success());
    // Until its parent has reaped it, a killed process is a zombie that still has a /proc entry.
    wait::eventually(Duration::from_secs(10), "the killed server gone", || async {
        !std::path::Path::new(&format!("/proc/{}", before[0])).exists()
    })
    .await;

    let out = list.execute(&json!({}), None).await.expect("the server is started again");
    assert!(format!("{out:?}").contains(&*root.to_string_lossy()), "{out:?}");
    let after = server_pids(&root);
    assert!(after.len() == 1 && after[0] != before[0], "a new process: {before:?} → {after:?}");
}

#[tokio::test]
async fn a_server_that_never_answers_a_call_times_out_and_the_run_ends() {
    let tmp = tempfile::tempdir().unwrap();
    let script = vec![calls(&[("echo", json!({"text": "hi"}))])];
    let (agent, seen) = agent(&agent_with(&misbehaving_entry("stuck", &["hang"], 1)), script).await;
    let app = App::open(tmp.path(), vec![agent]).await.unwrap();

    let started = Instant::now();
    let run_id = run(&app, "echo", Duration::from_secs(20)).await;
    let took = started.elapsed();
    assert!(took >= Duration::from_secs(1) && took < Duration::from_secs(10), "bounded by timeout_secs = 1: {took:?}");
    assert!(waiting(&app, &run_id).await.is_empty());
    let told = text(&tool_results(&seen)[0].1);
    assert_eq!(told, "Tool echo failed: MCP server \"stuck\" did not answer within 1 s (timeout_secs)");
}

#[tokio::test]
async fn a_server_that_does_not_start_is_a_config_error_naming_the_agent_and_the_server() {
    let e = load(&agent_with("[[agents.mcp]]\nname = \"fs\"\ncommand = \"mcp-server-that-does-not-exist\"\n")).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "agents.toml:5:11: agents[0].mcp[0].command: MCP server \"fs\" of agent \"files\" did not start: \
         could not run \"mcp-server-that-does-not-exist\": No such file or directory (os error 2)"
    );

    let e = load(&agent_with(&misbehaving_entry("early", &["exit-at-start"], 5))).await.unwrap_err();
    assert_eq!(e.field, "agents[0].mcp[0].command", "{e}");
    assert!(e.message.starts_with("MCP server \"early\" of agent \"files\" did not start: server/discover and initialize failed:"), "{e}");
    assert!(e.message.contains("(the process exited: exit status: 2)"), "{e}");
    assert!(e.message.contains("stderr: misbehaving-server: refusing to start (exit-at-start)"), "{e}");

    let started = Instant::now();
    let e =
        load(&agent_with("[[agents.mcp]]\nname = \"mute\"\ncommand = \"sleep\"\nargs = [\"30\"]\ntimeout_secs = 1\n")).await.unwrap_err();
    assert!(
        e.message
            .starts_with("MCP server \"mute\" of agent \"files\" did not start: no answer to server/discover or initialize within 1 s"),
        "{e}"
    );
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
}

/// Processes whose command line holds `root` (the filesystem server started on it).
fn server_pids(root: &std::path::Path) -> Vec<u32> {
    let needle = root.to_string_lossy().into_owned();
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(&needle) && cmdline.contains("server-filesystem") {
            pids.push(pid);
        }
    }
    pids
}
