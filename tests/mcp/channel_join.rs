//! Claude Code's channel relay joined with its PermissionRequest hook: Claude Code relays a
//! permission dialog to its channels and runs its PermissionRequest hooks side by side (2.1.328:
//! the relay first, the hooks right after), so the console hears of one tool call twice — a
//! preview from the relay, the whole input from the hook. The SDK host (`channel-host.mjs`) plays
//! Claude Code's relay in a session (`CLAUDE_CODE_SESSION_ID`, as Claude Code sets it for the MCP
//! servers it starts); the real `approval-console hook claude-code` gets a crafted PermissionRequest
//! event on stdin, as Claude Code writes it. Joined, the operator sees one call with the whole input,
//! and one decision answers both; anything less than the same credential, session, tool and a preview
//! built from that input keeps them apart.

use super::channel::{host_in, next, prompt, relayed, TOKEN};
use super::serve_process::{self, ServeProcess};
use super::wait;
use serde_json::{json, Value};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// `approval-console hook claude-code` fed `event`, with `token` as its credential; started.
fn hook(url: &str, token: &str, event: &Value) -> tokio::process::Child {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .args(["hook", "claude-code", "--timeout", "60"])
        .env("APPROVAL_CONSOLE_URL", url)
        .env("APPROVAL_CONSOLE_AGENT_TOKEN", token)
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .env("XDG_STATE_HOME", serve_process::connector_state())
        .env_remove("APPROVAL_CONSOLE_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = event.to_string();
    tokio::spawn(async move {
        let _ = stdin.write_all(input.as_bytes()).await;
    });
    child
}

/// A PermissionRequest event as Claude Code writes it on its hook's stdin.
fn permission_request(session: &str, tool_use_id: &str, input: Value) -> Value {
    json!({ "session_id": session, "transcript_path": "", "cwd": "/work/app", "permission_mode": "default",
        "hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": input, "tool_use_id": tool_use_id })
}

/// What the hook printed, once it exited.
async fn answer_of(mut hook: tokio::process::Child) -> Value {
    let mut out = String::new();
    hook.stdout.take().unwrap().read_to_string(&mut out).await.unwrap();
    tokio::time::timeout(Duration::from_secs(30), hook.wait()).await.unwrap().unwrap();
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The pending claude-code calls, once there are `n`.
async fn pending(console: &ServeProcess, n: usize) -> Vec<Value> {
    wait::until(Duration::from_secs(20), || async {
        let items = console.get("/api/queue?source=claude-code&sort=oldest").await["items"].as_array().unwrap().clone();
        if items.len() == n {
            Ok(items)
        } else {
            Err(format!("{} pending, not {n}: {items:?}", items.len()))
        }
    })
    .await
}

/// A console in `tmp` and an agent credential `claude-code` of it (the hook's and the relay's).
fn console_in(tmp: &tempfile::TempDir) -> (ServeProcess, String) {
    let data = tmp.path().join("data");
    let console = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), &data, TOKEN);
    let token = serve_process::add_token(env!("CARGO_BIN_EXE_approval-console"), &data, "claude-code", "agent");
    (console, token)
}

/// Call `id` once it no longer waits.
async fn left_queue(console: &ServeProcess, id: &str) -> Value {
    wait::until(Duration::from_secs(20), || async {
        let item = console.get(&format!("/api/queue/{id}")).await;
        if item["state"] == "pending" {
            Err("still waiting".to_owned())
        } else {
            Ok(item)
        }
    })
    .await
}

/// Relays one more prompt through `host` and approves it: its `allow` must be the next line the host
/// printed (nothing went out for the prompts before it); then the host ends.
async fn a_next_prompt_is_answered_first(
    console: &ServeProcess,
    mut host: tokio::process::Child,
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
) {
    let mut stdin = host.stdin.take().unwrap();
    let next_prompt = prompt("ghijk", "Bash", "Decided", r#"{ "command": "pwd" }"#);
    stdin.write_all(format!("{next_prompt}\n").as_bytes()).await.unwrap();
    stdin.flush().await.unwrap();
    let decided = wait::until(Duration::from_secs(20), || async {
        let items = console.get("/api/queue?source=claude-code&tab=all").await["items"].as_array().unwrap().clone();
        items.into_iter().find(|c| c["args"]["description"] == "Decided").ok_or_else(|| "not queued yet".to_owned())
    })
    .await;
    console
        .post(&format!("/api/queue/{}/approve", decided["id"].as_str().unwrap()), json!({ "fingerprint": decided["fingerprint"] }))
        .await;
    let answer = next(lines).await;
    assert_eq!(answer["params"], json!({ "request_id": "ghijk", "behavior": "allow" }), "nothing was sent for the prompts before");
    drop(stdin);
    assert!(tokio::time::timeout(Duration::from_secs(30), host.wait()).await.unwrap().unwrap().success());
}

const SESSION: &str = "5f0c1e2a-8d3b-4c6e-9a71-2b4d6f8e0a13";

#[tokio::test]
async fn a_relayed_prompt_and_the_hooks_call_for_it_are_one_call_with_the_whole_input_and_one_decision_answers_both() {
    let tmp = tempfile::tempdir().unwrap();
    let (console, token) = console_in(&tmp);
    let input = json!({ "command": "npm test -- --runInBand", "description": "Run the tests" });
    // Claude Code 2.1.328's preview of that input.
    let preview = r#"{ "command": "npm test -- --runInBand", "description": "Run the tests" }"#;
    let prompts = json!([prompt("hjkmn", "Bash", "Run the tests", preview)]);
    let mut host = host_in(&console.base, &token, prompts, 1, 60, &[("CLAUDE_CODE_SESSION_ID", SESSION)]);
    let mut lines = BufReader::new(host.stdout.take().unwrap()).lines();
    next(&mut lines).await;
    let relayed_call = relayed(&console, 1).await.remove(0);
    assert_eq!(relayed_call["threadId"], SESSION, "the relay's call is in its Claude Code session: {relayed_call}");

    let hook = hook(&console.base, &token, &permission_request(SESSION, "toolu_01", input.clone()));
    let joined = wait::until(Duration::from_secs(20), || async {
        let relay = console.get(&format!("/api/queue/{}", relayed_call["id"].as_str().unwrap())).await;
        if relay["state"] == "gone" {
            Ok(relay)
        } else {
            Err(format!("the relayed call is {}", relay["state"]))
        }
    })
    .await;
    let shown = pending(&console, 1).await.remove(0);
    assert_eq!(shown["args"], input, "the one call the operator sees has the whole input: {shown}");
    assert_eq!(shown["context"]["channel"]["requestId"], "hjkmn", "labelled as reachable through the channel too: {shown}");
    assert_eq!(shown["context"]["channel"]["joined"], relayed_call["id"]);
    assert_eq!(joined["context"]["joinedInto"], shown["id"], "the relayed call says where it went: {joined}");
    assert!(joined["decision"].is_null(), "{joined}");

    let approved = console
        .post(&format!("/api/queue/{}/approve", shown["id"].as_str().unwrap()), json!({ "fingerprint": shown["fingerprint"] }))
        .await;
    assert_eq!(approved["decision"]["kind"], "approve", "{approved}");
    let allow = next(&mut lines).await;
    assert_eq!(allow["params"], json!({ "request_id": "hjkmn", "behavior": "allow" }), "the relay answers with the hook's decision");
    let answered = answer_of(hook).await;
    assert_eq!(answered["hookSpecificOutput"]["decision"]["behavior"], "allow", "{answered}");
    // Figures (printed, never asserted).
    let ms = |at: &Value| chrono::DateTime::parse_from_rfc3339(at.as_str().unwrap()).unwrap().timestamp_millis();
    println!(
        "channel relay joined: prompt relayed → queue row {} ms; decision → Claude Code (relay) {} ms",
        ms(&relayed_call["pausedAt"]) - allow["sentAt"].as_i64().unwrap(),
        allow["at"].as_i64().unwrap() - ms(&approved["decision"]["decidedAt"])
    );
    let all = console.get("/api/queue?source=claude-code&tab=all").await["items"].as_array().unwrap().len();
    assert_eq!(all, 2, "nothing else was queued");
    assert!(tokio::time::timeout(Duration::from_secs(30), host.wait()).await.unwrap().unwrap().success());
}

#[tokio::test]
async fn a_hooks_call_of_other_arguments_another_session_or_another_credential_is_never_joined() {
    let tmp = tempfile::tempdir().unwrap();
    let (console, token) = console_in(&tmp);
    let other_token = serve_process::add_token(env!("CARGO_BIN_EXE_approval-console"), &tmp.path().join("data"), "another-agent", "agent");
    let input = json!({ "command": "rm -rf build", "description": "Clean" });
    let preview = r#"{"command":"rm -rf build","description":"Clean"}"#;
    let prompts = json!([prompt("pqrst", "Bash", "Clean", preview)]);
    let mut host = host_in(&console.base, &token, prompts, 1, 60, &[("CLAUDE_CODE_SESSION_ID", SESSION)]);
    let mut lines = BufReader::new(host.stdout.take().unwrap()).lines();
    next(&mut lines).await;
    relayed(&console, 1).await;
    // Each differs from the relayed prompt in one way only.
    let hooks = [
        hook(
            &console.base,
            &token,
            &permission_request(SESSION, "toolu_a", json!({ "command": "rm -rf build dist", "description": "Clean" })),
        ),
        hook(&console.base, &token, &permission_request("another-session", "toolu_b", input.clone())),
        hook(&console.base, &other_token, &permission_request(SESSION, "toolu_c", input.clone())),
    ];
    let calls = pending(&console, 4).await;
    let relayed_call = calls.iter().find(|c| c["context"]["preview"] == true).expect("the relayed call still waits");
    assert!(relayed_call["context"].get("joinedInto").is_none(), "{relayed_call}");
    assert!(calls.iter().all(|c| c["context"].get("channel").is_none()), "{calls:?}");

    // Each is decided on its own: the relay's decline is the relay's answer.
    for call in &calls {
        let path = format!("/api/queue/{}/decline", call["id"].as_str().unwrap());
        console.post(&path, json!({ "fingerprint": call["fingerprint"], "reason": "no" })).await;
    }
    let deny = next(&mut lines).await;
    assert_eq!(deny["params"], json!({ "request_id": "pqrst", "behavior": "deny" }));
    for hook in hooks {
        assert_eq!(answer_of(hook).await["hookSpecificOutput"]["decision"]["behavior"], "deny");
    }
    assert!(tokio::time::timeout(Duration::from_secs(30), host.wait()).await.unwrap().unwrap().success());
}

#[tokio::test]
async fn a_prompt_relayed_after_the_hook_asked_joins_its_call_at_once_and_a_decline_answers_both() {
    let tmp = tempfile::tempdir().unwrap();
    let (console, token) = console_in(&tmp);
    let input = json!({ "command": format!("echo {}", "long ".repeat(60)), "description": "Say it" });
    // The documented preview: the JSON cut at 200 characters.
    let preview: String = input.to_string().chars().take(200).collect();
    let hook = hook(&console.base, &token, &permission_request(SESSION, "toolu_02", input.clone()));
    let shown = pending(&console, 1).await.remove(0);
    let prompts = json!([prompt("vwxyz", "Bash", "Say it", &preview)]);
    let mut host = host_in(&console.base, &token, prompts, 1, 60, &[("CLAUDE_CODE_SESSION_ID", SESSION)]);
    let mut lines = BufReader::new(host.stdout.take().unwrap()).lines();
    next(&mut lines).await;
    let labelled = wait::until(Duration::from_secs(20), || async {
        let item = console.get(&format!("/api/queue/{}", shown["id"].as_str().unwrap())).await;
        if item["context"]["channel"]["requestId"] == "vwxyz" {
            Ok(item)
        } else {
            Err(format!("not joined yet: {item}"))
        }
    })
    .await;
    assert_eq!(pending(&console, 1).await[0]["id"], shown["id"], "still one call to decide");
    let path = format!("/api/queue/{}/decline", shown["id"].as_str().unwrap());
    console.post(&path, json!({ "fingerprint": labelled["fingerprint"], "reason": "not now" })).await;
    let deny = next(&mut lines).await;
    assert_eq!(deny["params"], json!({ "request_id": "vwxyz", "behavior": "deny" }));
    assert_eq!(answer_of(hook).await["hookSpecificOutput"]["decision"]["behavior"], "deny");
    assert!(tokio::time::timeout(Duration::from_secs(30), host.wait()).await.unwrap().unwrap().success());
}

/// One line of a Claude Code transcript: an assistant's tool call, or the result the user's turn carries.
fn transcript_line(block: Value) -> String {
    let role = if block["type"] == "tool_use" { "assistant" } else { "user" };
    format!("{}\n", json!({ "type": role, "sessionId": SESSION, "message": { "role": role, "content": [block] } }))
}

#[tokio::test]
async fn a_prompt_whose_tool_call_the_transcript_shows_answered_is_withdrawn_and_nothing_is_sent() {
    let tmp = tempfile::tempdir().unwrap();
    let (console, token) = console_in(&tmp);
    // Claude Code's config folder, with the session's transcript in a project folder of it: an
    // earlier identical call already answered, then the one the dialog is about.
    let config = tmp.path().join("claude");
    let project = config.join("projects").join("-work-app.0123456789abcdef");
    std::fs::create_dir_all(&project).unwrap();
    let transcript = project.join(format!("{SESSION}.jsonl"));
    let input = json!({ "command": "git push --force", "description": "Push" });
    let call = |id: &str| transcript_line(json!({ "type": "tool_use", "id": id, "name": "Bash", "input": input }));
    let result = |id: &str| {
        transcript_line(
            json!({ "type": "tool_result", "tool_use_id": id, "content": "The user doesn't want to proceed with this tool use.", "is_error": true }),
        )
    };
    std::fs::write(&transcript, format!("{}{}{}", call("toolu_old"), result("toolu_old"), call("toolu_now"))).unwrap();

    let preview = r#"{ "command": "git push --force", "description": "Push" }"#;
    let prompts = json!([prompt("bcdef", "Bash", "Push", preview)]);
    let config_dir = config.to_str().unwrap();
    let mut host =
        host_in(&console.base, &token, prompts, 1, 60, &[("CLAUDE_CODE_SESSION_ID", SESSION), ("CLAUDE_CONFIG_DIR", config_dir)]);
    let mut lines = BufReader::new(host.stdout.take().unwrap()).lines();
    next(&mut lines).await;
    let id = relayed(&console, 1).await[0]["id"].as_str().unwrap().to_owned();
    // Still waiting: nothing in the transcript answered this one yet.
    assert_eq!(console.get(&format!("/api/queue/{id}")).await["state"], "pending");

    // The local dialog refused it: Claude Code writes the tool call's result.
    use std::io::Write;
    std::fs::OpenOptions::new().append(true).open(&transcript).unwrap().write_all(result("toolu_now").as_bytes()).unwrap();
    let gone = left_queue(&console, &id).await;
    assert_eq!(gone["state"], "gone", "withdrawn on the transcript's word: {gone}");
    assert!(gone["decision"].is_null(), "{gone}");

    // Then a prompt that is decided: its answer is the first the host gets.
    a_next_prompt_is_answered_first(&console, host, &mut lines).await;
}

#[tokio::test]
async fn a_joined_call_whose_tool_call_the_transcript_shows_answered_leaves_the_queue_and_nothing_is_sent() {
    let tmp = tempfile::tempdir().unwrap();
    let (console, token) = console_in(&tmp);
    let config = tmp.path().join("claude");
    let project = config.join("projects").join("-work-app");
    std::fs::create_dir_all(&project).unwrap();
    let transcript = project.join(format!("{SESSION}.jsonl"));
    let input = json!({ "command": "git push --force", "description": "Push" });
    std::fs::write(&transcript, transcript_line(json!({ "type": "tool_use", "id": "toolu_now", "name": "Bash", "input": input }))).unwrap();

    let preview = r#"{ "command": "git push --force", "description": "Push" }"#;
    let prompts = json!([prompt("bcdef", "Bash", "Push", preview)]);
    let config_dir = config.to_str().unwrap();
    let mut host =
        host_in(&console.base, &token, prompts, 1, 60, &[("CLAUDE_CODE_SESSION_ID", SESSION), ("CLAUDE_CONFIG_DIR", config_dir)]);
    let mut lines = BufReader::new(host.stdout.take().unwrap()).lines();
    next(&mut lines).await;
    let relayed_call = relayed(&console, 1).await.remove(0);
    let hook = hook(&console.base, &token, &permission_request(SESSION, "toolu_now", input.clone()));
    let shown = wait::until(Duration::from_secs(20), || async {
        let relay = console.get(&format!("/api/queue/{}", relayed_call["id"].as_str().unwrap())).await;
        match relay["context"]["joinedInto"].as_str() {
            Some(into) => Ok(into.to_owned()),
            None => Err(format!("not joined yet: {relay}")),
        }
    })
    .await;
    assert_eq!(console.get(&format!("/api/queue/{shown}")).await["state"], "pending");

    // The local dialog answered: Claude Code writes the tool call's result. The joined call leaves
    // the queue (nobody should decide it now), and the relay sends the host nothing.
    use std::io::Write;
    let result = json!({ "type": "tool_result", "tool_use_id": "toolu_now", "content": "ok", "is_error": false });
    std::fs::OpenOptions::new().append(true).open(&transcript).unwrap().write_all(transcript_line(result).as_bytes()).unwrap();
    let gone = left_queue(&console, &shown).await;
    assert_eq!(gone["state"], "gone", "withdrawn on the transcript's word: {gone}");
    assert!(gone["decision"].is_null(), "{gone}");
    // The hook, still waiting on it, answers (Claude Code no longer reads it): not an allow.
    let answered = answer_of(hook).await;
    assert_ne!(answered["hookSpecificOutput"]["decision"]["behavior"], "allow", "{answered}");
    // Nothing reached the host for that prompt: its next line is for the next prompt, decided.
    a_next_prompt_is_answered_first(&console, host, &mut lines).await;
}

#[tokio::test]
async fn a_prompt_two_waiting_hook_calls_fit_alike_joins_neither() {
    let tmp = tempfile::tempdir().unwrap();
    let (console, token) = console_in(&tmp);
    let input = json!({ "command": "npm publish", "description": "Publish" });
    // Two tool calls of the session with the same input wait (two dialogs): a preview shows both.
    let hooks = [
        hook(&console.base, &token, &permission_request(SESSION, "toolu_a", input.clone())),
        hook(&console.base, &token, &permission_request(SESSION, "toolu_b", input.clone())),
    ];
    pending(&console, 2).await;
    let preview = r#"{ "command": "npm publish", "description": "Publish" }"#;
    let prompts = json!([prompt("uvwxy", "Bash", "Publish", preview)]);
    let mut host = host_in(&console.base, &token, prompts, 1, 60, &[("CLAUDE_CODE_SESSION_ID", SESSION)]);
    let mut lines = BufReader::new(host.stdout.take().unwrap()).lines();
    next(&mut lines).await;
    // Never a guess between two: all three wait, each on its own.
    let calls = pending(&console, 3).await;
    let relayed_call = calls.iter().find(|c| c["context"]["preview"] == true).expect("the relayed call still waits");
    assert!(relayed_call["context"].get("joinedInto").is_none(), "{relayed_call}");
    assert!(calls.iter().all(|c| c["context"].get("channel").is_none()), "{calls:?}");
    for call in &calls {
        let path = format!("/api/queue/{}/decline", call["id"].as_str().unwrap());
        console.post(&path, json!({ "fingerprint": call["fingerprint"], "reason": "no" })).await;
    }
    assert_eq!(next(&mut lines).await["params"], json!({ "request_id": "uvwxy", "behavior": "deny" }));
    for hook in hooks {
        assert_eq!(answer_of(hook).await["hookSpecificOutput"]["decision"]["behavior"], "deny");
    }
    assert!(tokio::time::timeout(Duration::from_secs(30), host.wait()).await.unwrap().unwrap().success());
}
