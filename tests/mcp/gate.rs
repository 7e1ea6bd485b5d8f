//! `approval-console mcp-gate`: the official MCP TypeScript SDK client (`gate-client.mjs`) drives the
//! gate in front of the real `@modelcontextprotocol/server-filesystem`; a real `serve` is the
//! console. The client sees the upstream's tools; a write waits in the queue (source `mcp`) and runs
//! only once approved; a declined one is a tool error with the reason and never reaches the server.
//! A tool the upstream marks read-only is asked about too, unless `--pass`ed or the annotations are
//! trusted (`--trust-annotations`); the upstream never finds the gate's credential.

use super::serve_process::{self, ServeProcess};
use super::{filesystem_server, node, tests_dir, wait};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

const TOKEN: &str = "gate-test-token-4f8b2e6a9c1d7053f4b8e2a6c9d17305";

/// The SDK client script against `url` with `token` as the agent credential, not started.
fn client_command(url: &str, token: &str) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(node());
    cmd.arg(tests_dir().join("gate-client.mjs"))
        .current_dir(tests_dir())
        .env("GATE_BIN", env!("CARGO_BIN_EXE_approval-console"))
        .env("FS_SERVER", filesystem_server())
        .env("APPROVAL_CONSOLE_URL", url)
        .env("APPROVAL_CONSOLE_AGENT_TOKEN", token)
        .env("XDG_STATE_HOME", serve_process::connector_state())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true);
    cmd
}

/// Starts the SDK client script on `root`; `only_write`: its short run (tools, one write). The gate
/// trusts the upstream's annotations (`--trust-annotations`), so its read-only tools pass.
fn client(root: &std::path::Path, url: &str, token: &str, only_write: bool) -> tokio::process::Child {
    let mut cmd = client_command(url, token);
    cmd.env("ROOT", root).env("GATE_FLAGS", "--trust-annotations");
    if only_write {
        cmd.env("ONLY_WRITE", "1");
    }
    cmd.spawn().unwrap()
}

/// Runs the SDK client with a plan (`gate_args`, the gate's flags; `upstream`, the server; `calls`
/// as `[step, tool, arguments]`) to its end: the tool list, then each call's result.
async fn run_plan(url: &str, token: &str, extra_env: &[(&str, &str)], plan: Value) -> Vec<Value> {
    let mut cmd = client_command(url, token);
    cmd.env("PLAN", plan.to_string()).stderr(std::process::Stdio::piped());
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let out =
        tokio::time::timeout(Duration::from_secs(60), cmd.spawn().unwrap().wait_with_output()).await.expect("the client ends").unwrap();
    assert!(out.status.success(), "the client: {:?}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// A port on 127.0.0.1 where nothing listens.
fn unreachable_console() -> String {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", closed.local_addr().unwrap())
}

/// The pending `mcp` call not among `seen`, once it is queued.
async fn next_mcp_call(console: &ServeProcess, seen: &[String]) -> Value {
    wait::until(Duration::from_secs(10), || async {
        let queue = console.get("/api/queue?source=mcp").await;
        let new = queue["items"].as_array().unwrap().iter().find(|c| !seen.contains(&c["id"].as_str().unwrap().to_owned())).cloned();
        new.ok_or_else(|| "the gate queued no call".to_owned())
    })
    .await
}

/// The client's next step, as the JSON line it printed.
async fn next(lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line()).await.expect("the client goes on").unwrap();
    serde_json::from_str(&line.expect("the client printed its step")).unwrap()
}

#[tokio::test]
async fn c01_an_mcp_clients_writes_wait_for_the_operator_and_reads_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let data_dir = tmp.path().join("data");
    let root = tmp.path().join("files");
    std::fs::create_dir_all(&root).unwrap();
    let root = root.canonicalize().unwrap();
    std::fs::write(root.join("hello.txt"), "hello from the upstream").unwrap();
    let console = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), &data_dir, TOKEN);
    let token = serve_process::add_token(env!("CARGO_BIN_EXE_approval-console"), &data_dir, "files-gate", "agent");

    let mut client = client(&root, &console.base, &token, false);
    let mut lines = BufReader::new(client.stdout.take().unwrap()).lines();
    let tools = next(&mut lines).await;
    let names: Vec<&str> = tools["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    for expected in ["read_text_file", "write_file", "edit_file", "list_directory"] {
        assert!(names.contains(&expected), "the upstream's tools, offered as they are: {names:?}");
    }
    let write = tools["tools"].as_array().unwrap().iter().find(|t| t["name"] == "write_file").unwrap();
    assert_eq!(write["annotations"]["destructiveHint"], true, "with the upstream's annotations: {write}");

    let read = next(&mut lines).await;
    assert_eq!((read["isError"].as_bool(), read["text"].as_str()), (Some(false), Some("hello from the upstream")), "{read}");
    assert_eq!(console.get("/api/queue?source=mcp&tab=all").await["items"], json!([]), "a read-only tool passes without asking");

    // The write waits in the queue; nothing is written before the approval.
    let call = next_mcp_call(&console, &[]).await;
    assert_eq!(
        (call["toolName"].as_str(), call["agentId"].as_str(), call["engine"].as_str()),
        (Some("write_file"), Some("files-gate"), Some("mcp")),
        "{call}"
    );
    assert_eq!(call["args"], json!({ "path": format!("{}/new.txt", root.display()), "content": "written after approval" }));
    assert!(call["context"]["upstream"].as_str().unwrap().contains("server-filesystem"), "{call}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!root.join("new.txt").exists(), "not written while it waits");
    let decided =
        console.post(&format!("/api/queue/{}/approve", call["id"].as_str().unwrap()), json!({ "fingerprint": call["fingerprint"] })).await;
    assert_eq!(decided["decision"]["kind"], "approve", "{decided}");
    let approved = next(&mut lines).await;
    assert_eq!(approved["isError"], false, "{approved}");
    assert_eq!(std::fs::read_to_string(root.join("new.txt")).unwrap(), "written after approval");

    let second = next_mcp_call(&console, &[call["id"].as_str().unwrap().to_owned()]).await;
    let decided = console
        .post(
            &format!("/api/queue/{}/decline", second["id"].as_str().unwrap()),
            json!({ "fingerprint": second["fingerprint"], "reason": "not that file" }),
        )
        .await;
    assert_eq!(decided["decision"]["kind"], "decline", "{decided}");
    let declined = next(&mut lines).await;
    assert_eq!(declined["isError"], true, "a tool error for the client: {declined}");
    assert!(declined["text"].as_str().unwrap().contains("declined in Approval Console: not that file"), "{declined}");
    assert!(!root.join("denied.txt").exists(), "a declined call never reaches the server");

    let status = tokio::time::timeout(Duration::from_secs(30), client.wait()).await.unwrap().unwrap();
    assert!(status.success(), "the client closed cleanly: {status:?}");
}

#[tokio::test]
async fn a_call_that_needs_an_approval_fails_closed_when_the_console_cannot_be_reached() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let url = unreachable_console();
    let mut client = client(&root, &url, "ac_anything", true);
    let mut lines = BufReader::new(client.stdout.take().unwrap()).lines();
    next(&mut lines).await;
    let write = next(&mut lines).await;
    assert_eq!(write["isError"], true, "{write}");
    assert!(write["text"].as_str().unwrap().contains("cannot be reached"), "{write}");
    assert!(!root.join("unreached.txt").exists(), "not run without an approval");
    client.wait().await.unwrap();
}

/// A plan of the filesystem server on `root`: a read of `hello.txt` and a write, behind a gate with `flags`.
fn read_and_write(root: &std::path::Path, flags: &[&str]) -> Value {
    let mut gate_args = vec!["--agent", "files-gate", "--timeout", "20"];
    gate_args.extend_from_slice(flags);
    json!({
        "gateArgs": gate_args,
        "upstream": [node(), filesystem_server(), root],
        "calls": [
            ["read", "read_text_file", { "path": format!("{}/hello.txt", root.display()) }],
            ["write", "write_file", { "path": format!("{}/written.txt", root.display()), "content": "never" }],
        ],
    })
}

#[tokio::test]
async fn a_tool_the_upstream_marks_read_only_is_asked_about_by_default_and_fails_closed_without_a_console() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    std::fs::write(root.join("hello.txt"), "hello from the upstream").unwrap();
    let steps = run_plan(&unreachable_console(), "ac_anything", &[], read_and_write(&root, &[])).await;
    let read_tool = steps[0]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "read_text_file").unwrap();
    assert_eq!(read_tool["annotations"]["readOnlyHint"], true, "the upstream calls it read-only: {read_tool}");
    let read = &steps[1];
    assert_eq!(read["isError"], true, "asked about, and with no console, not run: {read}");
    assert!(read["text"].as_str().unwrap().contains("cannot be reached"), "{read}");
    assert!(!read["text"].as_str().unwrap().contains("hello from the upstream"), "{read}");
    assert_eq!(steps[2]["isError"], true, "{}", steps[2]);
    assert!(!root.join("written.txt").exists());
}

#[tokio::test]
async fn a_read_only_tool_passes_only_with_trust_annotations_or_pass_and_a_write_still_fails_closed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    std::fs::write(root.join("hello.txt"), "hello from the upstream").unwrap();
    for flags in [&["--trust-annotations"][..], &["--pass", "read_text_file"][..]] {
        let steps = run_plan(&unreachable_console(), "ac_anything", &[], read_and_write(&root, flags)).await;
        let (read, write) = (&steps[1], &steps[2]);
        assert_eq!((read["isError"].as_bool(), read["text"].as_str()), (Some(false), Some("hello from the upstream")), "{flags:?}: {read}");
        assert_eq!(write["isError"], true, "{flags:?}: {write}");
        assert!(write["text"].as_str().unwrap().contains("cannot be reached"), "{flags:?}: {write}");
        assert!(!root.join("written.txt").exists(), "{flags:?}");
    }
    // --ask wins over both.
    let steps =
        run_plan(&unreachable_console(), "ac_anything", &[], read_and_write(&root, &["--trust-annotations", "--ask", "read_text_file"]))
            .await;
    assert_eq!(steps[1]["isError"], true, "{}", steps[1]);
}

#[tokio::test]
async fn the_upstream_finds_no_console_credential_in_its_environment_or_in_the_gates() {
    const AGENT_TOKEN: &str = "ac_gate-credential-the-upstream-must-not-see";
    const SESSION_TOKEN: &str = "session-token-the-upstream-must-not-see";
    let plan = json!({
        "gateArgs": ["--pass", "echo"],
        "upstream": [node(), tests_dir().join("misbehaving-server.mjs"), "snoop"],
        "calls": [["snoop", "echo", { "text": "hi" }]],
    });
    let steps = run_plan(&unreachable_console(), AGENT_TOKEN, &[("APPROVAL_CONSOLE_TOKEN", SESSION_TOKEN)], plan).await;
    let snoop = &steps[1];
    assert_eq!(snoop["isError"], false, "{snoop}");
    let seen: Value = serde_json::from_str(snoop["text"].as_str().unwrap()).unwrap();
    let env = seen["env"].as_object().unwrap();
    assert!(env.contains_key("PATH"), "the upstream reported its environment: {env:?}");
    let leaked: Vec<&String> = env.keys().filter(|k| k.starts_with("APPROVAL_CONSOLE_")).collect();
    assert!(leaked.is_empty(), "nothing of the console's reaches the upstream's environment: {leaked:?}");
    // Its parent (the gate's guard, a fork of the gate) and grandparent (the gate): same user, so
    // their /proc/PID/environ is readable (here, as root, whatever the dumpable flag says).
    for ancestor in seen["ancestors"].as_array().unwrap() {
        let environ = ancestor["environ"].as_str().unwrap();
        if environ.starts_with("unreadable") {
            continue;
        }
        assert!(environ.contains("APPROVAL_CONSOLE_AGENT_TOKEN="), "the gate's environment as read: {ancestor}");
        assert!(!environ.contains(AGENT_TOKEN), "the gate's credential is wiped from what /proc shows: {ancestor}");
        assert!(!environ.contains(SESSION_TOKEN), "and so is every APPROVAL_CONSOLE_* value: {ancestor}");
    }
    assert!(
        seen["ancestors"].as_array().unwrap().iter().any(|a| !a["environ"].as_str().unwrap().starts_with("unreadable")),
        "root reads every /proc/PID/environ, so the check above ran: {seen}"
    );
}
