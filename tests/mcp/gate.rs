//! `approval-console mcp-gate`: the official MCP TypeScript SDK client (`gate-client.mjs`) drives the
//! gate in front of the real `@modelcontextprotocol/server-filesystem`; a real `serve` is the
//! console. The client sees the upstream's tools; a read-only tool passes; a write waits in the
//! queue (source `mcp`) and runs only once approved; a declined one is a tool error with the reason
//! and never reaches the server.

use super::serve_process::{self, ServeProcess};
use super::{filesystem_server, node, tests_dir};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

const TOKEN: &str = "gate-test-token";

/// Starts the SDK client script against `url` with `token`; `only_write`: its short run (tools, one write).
fn client(root: &std::path::Path, url: &str, token: &str, only_write: bool) -> tokio::process::Child {
    let mut cmd = tokio::process::Command::new(node());
    cmd.arg(tests_dir().join("gate-client.mjs"))
        .current_dir(tests_dir())
        .env("GATE_BIN", env!("CARGO_BIN_EXE_approval-console"))
        .env("FS_SERVER", filesystem_server())
        .env("ROOT", root)
        .env("APPROVAL_CONSOLE_URL", url)
        .env("APPROVAL_CONSOLE_TOKEN", token)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true);
    if only_write {
        cmd.env("ONLY_WRITE", "1");
    }
    cmd.spawn().unwrap()
}

/// The pending `mcp` call not among `seen`, once it is queued.
async fn next_mcp_call(console: &ServeProcess, seen: &[String]) -> Value {
    for _ in 0..400 {
        let queue = console.get("/api/queue?source=mcp").await;
        if let Some(c) = queue["items"].as_array().unwrap().iter().find(|c| !seen.contains(&c["id"].as_str().unwrap().to_owned())) {
            return c.clone();
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the gate queued no call")
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
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let mut client = client(&root, &url, "ac_anything", true);
    let mut lines = BufReader::new(client.stdout.take().unwrap()).lines();
    next(&mut lines).await;
    let write = next(&mut lines).await;
    assert_eq!(write["isError"], true, "{write}");
    assert!(write["text"].as_str().unwrap().contains("cannot be reached"), "{write}");
    assert!(!root.join("unreached.txt").exists(), "not run without an approval");
    client.wait().await.unwrap();
}
