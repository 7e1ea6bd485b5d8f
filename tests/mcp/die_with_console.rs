//! Issue 15: an MCP server dies with the console. A console killed with SIGKILL while a call is in
//! flight leaves no server behind to carry it out (the server runs in a process group of its own,
//! which a guard process kills when the console goes).

use crate::serve_process::ServeProcess;
use crate::{node, quoted, tests_dir, wait};
use std::time::Duration;

/// Processes whose command line holds `needle`.
fn processes_with(needle: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        if String::from_utf8_lossy(&cmdline).replace('\0', " ").contains(needle) {
            pids.push(pid);
        }
    }
    pids
}

#[tokio::test]
async fn c05_a_console_killed_mid_call_leaves_no_mcp_server_to_carry_the_call_out() {
    let tmp = tempfile::tempdir().unwrap();
    let effect = tmp.path().join("side-effect.log");
    // The demo model calls `lookup_record` for "lookup <id>": here it is the MCP server's one tool,
    // with a side effect 1.5 s after the call arrives.
    let agents = tmp.path().join("agents.toml");
    let script = tests_dir().join("misbehaving-server.mjs");
    std::fs::write(
        &agents,
        format!(
            "[[agents]]\nid = \"slow\"\ntools = []\n[[agents.mcp]]\nname = \"slow\"\ncommand = {}\nargs = [{}, \"slow-append\", {}]\nenv = {{ TOOL_NAME = \"lookup_record\" }}\n",
            quoted(node()),
            quoted(script.to_string_lossy()),
            quoted(effect.to_string_lossy()),
        ),
    )
    .unwrap();
    let data = tmp.path().join("data");
    let mut console = ServeProcess::start_with(
        env!("CARGO_BIN_EXE_approval-console"),
        &data,
        "tok-die-with-console-0b6d3f9a2e7c1548b0d6f3a9e2c71548",
        &["--agents", agents.to_str().unwrap()],
    );
    let needle = effect.to_string_lossy().into_owned();
    let servers = processes_with(&needle);
    assert_eq!(servers.len(), 1, "{servers:?}");
    // Its parent is the guard (a fork of the console), not the console itself.
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", servers[0])).unwrap();
    let parent: u32 = stat.rsplit(')').next().unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
    assert_ne!(parent, console.child.id(), "the server runs under its guard");

    let base = console.base.clone();
    let call = tokio::spawn(async move {
        let body = serde_json::json!({ "messages": "lookup rec-1" });
        reqwest::Client::new()
            .post(format!("{base}/api/agents/slow/generate"))
            .bearer_auth("tok-die-with-console-0b6d3f9a2e7c1548b0d6f3a9e2c71548")
            .json(&body)
            .send()
            .await
    });
    let started = effect.with_extension("log.started");
    wait::eventually(Duration::from_secs(10), "the call reached the server", || async { started.exists() }).await;
    console.kill(); // SIGKILL, mid-call
    wait::until(Duration::from_secs(10), || async {
        let left = processes_with(&needle);
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("left running: {left:?}"))
        }
    })
    .await;
    // Nobody is left to write it: the side effect never happened.
    assert!(!effect.exists(), "the call ran after the console was gone: {:?}", std::fs::read_to_string(&effect));
    assert!(call.await.unwrap().is_err(), "the client saw the connection end");
}
