//! `approval-console channel claude-code`: Claude Code's channel relay. The official MCP TypeScript
//! SDK's client (`channel-host.mjs`) plays Claude Code — the real host needs a claude.ai account to
//! turn channels on, so the documented wire is driven instead: the capability check, then
//! `notifications/claude/channel/permission_request` in, `notifications/claude/channel/permission`
//! out. A real `serve` is the console. A relayed prompt waits as a preview-only call (exactly the
//! preview as its arguments, rated high risk, never made a grant); the operator's approve comes back
//! as `allow`, a decline as `deny`; a malformed prompt is never queued, and one nobody decides in
//! time is withdrawn with nothing answered (Claude Code's own dialog decides).

use super::serve_process::{self, ServeProcess};
use super::{node, tests_dir, wait};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

pub(crate) const TOKEN: &str = "channel-test-token-5e9c3a7b1d2f8046e5c9a3b7d1f28046";

/// The host script relaying `prompts`, done once `expect` answers came; started.
pub(crate) fn host(url: &str, token: &str, prompts: Value, expect: usize, timeout_secs: u64) -> tokio::process::Child {
    host_in(url, token, prompts, expect, timeout_secs, &[])
}

/// [`host`] with `env` besides (Claude Code's session, a home with its transcripts).
pub(crate) fn host_in(
    url: &str,
    token: &str,
    prompts: Value,
    expect: usize,
    timeout_secs: u64,
    env: &[(&str, &str)],
) -> tokio::process::Child {
    tokio::process::Command::new(node())
        .envs(env.iter().copied())
        .arg(tests_dir().join("channel-host.mjs"))
        .current_dir(tests_dir())
        .env("CHANNEL_BIN", env!("CARGO_BIN_EXE_approval-console"))
        .env("PROMPTS", prompts.to_string())
        .env("EXPECT", expect.to_string())
        .env("CHANNEL_TIMEOUT", timeout_secs.to_string())
        .env("APPROVAL_CONSOLE_URL", url)
        .env("APPROVAL_CONSOLE_AGENT_TOKEN", token)
        .env("XDG_STATE_HOME", serve_process::connector_state())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

/// The host's next line.
pub(crate) async fn next(lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line()).await.expect("the host goes on").unwrap();
    serde_json::from_str(&line.expect("the host printed a line")).unwrap()
}

/// The relayed calls in the queue (any state), once there are `n` (prompts are queued side by side:
/// in no particular order).
pub(crate) async fn relayed(console: &ServeProcess, n: usize) -> Vec<Value> {
    wait::until(Duration::from_secs(20), || async {
        let queue = console.get("/api/queue?source=claude-code&tab=all&sort=oldest").await;
        let items = queue["items"].as_array().unwrap().clone();
        if items.len() >= n {
            Ok(items)
        } else {
            Err(format!("{} of {n} prompts queued", items.len()))
        }
    })
    .await
}

pub(crate) fn prompt(id: &str, tool: &str, description: &str, preview: &str) -> Value {
    json!({ "request_id": id, "tool_name": tool, "description": description, "input_preview": preview })
}

#[tokio::test]
async fn a_relayed_prompt_waits_as_a_preview_only_call_and_the_operators_answer_goes_back_to_claude_code() {
    let tmp = tempfile::tempdir().unwrap();
    let console = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), &tmp.path().join("data"), TOKEN);
    let token = serve_process::add_token(env!("CARGO_BIN_EXE_approval-console"), &tmp.path().join("data"), "claude-code", "agent");
    let preview = r#"{"command":"npm test -- --watch=false && echo \"done\""}"#;
    let prompts = json!([
        prompt("abcde", "Bash", "Run the tests", preview),
        prompt("fghij", "Write", "Write the release notes", r##"{"file_path":"/tmp/notes.md","content":"# 1.2"##),
    ]);
    let mut host = host(&console.base, &token, prompts, 2, 60);
    let mut lines = BufReader::new(host.stdout.take().unwrap()).lines();
    let capabilities = next(&mut lines).await;
    for capability in ["claude/channel", "claude/channel/permission"] {
        assert!(capabilities["experimental"].get(capability).is_some(), "declared as Claude Code asks: {capabilities}");
    }

    let calls = relayed(&console, 2).await;
    let of = |tool: &str| calls.iter().find(|c| c["toolName"] == tool).unwrap_or_else(|| panic!("no {tool} call: {calls:?}")).clone();
    let (bash, write) = (&of("Bash"), &of("Write"));
    assert_eq!(
        (bash["toolName"].as_str(), bash["source"].as_str(), bash["state"].as_str()),
        (Some("Bash"), Some("claude-code"), Some("pending"))
    );
    assert_eq!(bash["args"], json!({ "description": "Run the tests", "input_preview": preview }), "exactly what the relay carries");
    assert_eq!(bash["context"]["preview"], true, "{bash}");
    assert_eq!((bash["risk"]["level"].as_str(), bash["highRisk"].as_bool()), (Some("high"), Some(true)), "{bash}");
    assert!(bash["risk"]["reasons"][0]["text"].as_str().unwrap().starts_with("preview only"), "{bash}");

    // No "always allow" from what was only a preview.
    let grant = reqwest::Client::new()
        .post(format!("{}/api/grants", console.base))
        .bearer_auth(TOKEN)
        .json(&json!({ "fromItem": bash["id"], "fingerprint": bash["fingerprint"], "scope": "agent", "expiresInSecs": 3600 }))
        .send()
        .await
        .unwrap();
    let status = grant.status();
    let body: Value = grant.json().await.unwrap();
    assert!(status.is_client_error() && body["code"] == "high_risk_tool", "{status} {body}");

    let approved =
        console.post(&format!("/api/queue/{}/approve", bash["id"].as_str().unwrap()), json!({ "fingerprint": bash["fingerprint"] })).await;
    assert_eq!(approved["decision"]["kind"], "approve", "{approved}");
    let allow = next(&mut lines).await;
    assert_eq!(allow["method"], "notifications/claude/channel/permission", "{allow}");
    assert_eq!(allow["params"], json!({ "request_id": "abcde", "behavior": "allow" }));
    // Figures (printed, never asserted): the host's clock and the console's are this machine's.
    let ms = |at: &Value| chrono::DateTime::parse_from_rfc3339(at.as_str().unwrap()).unwrap().timestamp_millis();
    let (sent, came) = (allow["sentAt"].as_i64().unwrap(), allow["at"].as_i64().unwrap());
    println!(
        "channel relay: prompt relayed → queue row {} ms; decision → Claude Code {} ms",
        ms(&bash["pausedAt"]) - sent,
        came - ms(&approved["decision"]["decidedAt"])
    );

    let declined = console
        .post(
            &format!("/api/queue/{}/decline", write["id"].as_str().unwrap()),
            json!({ "fingerprint": write["fingerprint"], "reason": "not now" }),
        )
        .await;
    assert_eq!(declined["decision"]["kind"], "decline", "{declined}");
    let deny = next(&mut lines).await;
    assert_eq!(deny["params"], json!({ "request_id": "fghij", "behavior": "deny" }));
    let status = tokio::time::timeout(Duration::from_secs(30), host.wait()).await.unwrap().unwrap();
    assert!(status.success(), "the host closed cleanly: {status:?}");
}

#[tokio::test]
async fn a_malformed_prompt_is_never_queued_and_one_nobody_decides_in_time_is_withdrawn_unanswered() {
    let tmp = tempfile::tempdir().unwrap();
    let console = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), &tmp.path().join("data"), TOKEN);
    let token = serve_process::add_token(env!("CARGO_BIN_EXE_approval-console"), &tmp.path().join("data"), "claude-code", "agent");
    // `l` is never in Claude Code's ids; then one left to time out (2 s); later, one decided.
    let prompts = json!([
        prompt("abcdl", "Bash", "Malformed id", r#"{"command":"rm -rf ~"}"#),
        prompt("kmnop", "Bash", "Nobody answers", r#"{"command":"ls"}"#),
    ]);
    let mut host = host(&console.base, &token, prompts, 1, 2);
    let mut lines = BufReader::new(host.stdout.take().unwrap()).lines();
    next(&mut lines).await;
    let first = relayed(&console, 1).await;
    assert_eq!(first.len(), 1, "the malformed prompt was not queued: {first:?}");
    assert_eq!(first[0]["args"]["description"], "Nobody answers");
    let id = first[0]["id"].as_str().unwrap().to_owned();
    let gone = wait::until(Duration::from_secs(30), || async {
        let item = console.get(&format!("/api/queue/{id}")).await;
        if item["state"] == "pending" {
            Err("still waiting".to_owned())
        } else {
            Ok(item)
        }
    })
    .await;
    assert_eq!(gone["state"], "gone", "withdrawn once its time ran out: {gone}");
    assert!(gone["decision"].is_null(), "{gone}");

    // Then a prompt that is decided, in the same session: its answer is the first the host gets
    // (one for the withdrawn prompt would have been sent as it was withdrawn, before this was relayed).
    use tokio::io::AsyncWriteExt;
    let mut stdin = host.stdin.take().unwrap();
    stdin.write_all(format!("{}\n", prompt("qrstu", "Bash", "Decided", r#"{"command":"pwd"}"#)).as_bytes()).await.unwrap();
    stdin.flush().await.unwrap();
    let calls = relayed(&console, 2).await;
    let decided = calls.iter().find(|c| c["args"]["description"] == "Decided").unwrap();
    console
        .post(&format!("/api/queue/{}/approve", decided["id"].as_str().unwrap()), json!({ "fingerprint": decided["fingerprint"] }))
        .await;
    let answer = next(&mut lines).await;
    assert_eq!(answer["params"], json!({ "request_id": "qrstu", "behavior": "allow" }), "nothing was answered for the withdrawn prompt");
    drop(stdin);
    assert!(tokio::time::timeout(Duration::from_secs(30), host.wait()).await.unwrap().unwrap().success());
}
