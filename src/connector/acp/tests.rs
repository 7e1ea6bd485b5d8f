//! The relay's wire and its choice of option, without a console: lines pass unchanged, a permission
//! request never reaches the editor unless it decides too, and no decision means the reject option.

use super::permission::{self, Choice};
use super::*;
use crate::app::calls::{CallStatus, Outcome};
use crate::connector::tests::approved_by;
use crate::domain::GrantId;
use tokio::io::{duplex, AsyncBufReadExt, AsyncWriteExt, BufReader};

fn four_options() -> Value {
    json!([
        { "optionId": "a1", "name": "Allow", "kind": "allow_once" },
        { "optionId": "a2", "name": "Always", "kind": "allow_always" },
        { "optionId": "r1", "name": "Reject", "kind": "reject_once" },
        { "optionId": "r2", "name": "Never", "kind": "reject_always" },
    ])
}

fn picked(options: &Value, choice: Choice) -> Value {
    permission::response(options, choice)["outcome"].clone()
}

#[test]
fn each_decision_picks_the_agents_option_of_its_kind_and_never_a_broader_one() {
    let all = four_options();
    assert_eq!(picked(&all, Choice::Once), json!({ "outcome": "selected", "optionId": "a1" }));
    assert_eq!(picked(&all, Choice::Always), json!({ "outcome": "selected", "optionId": "a2" }));
    assert_eq!(picked(&all, Choice::Reject), json!({ "outcome": "selected", "optionId": "r1" }));
    let only = |kinds: &[&str]| {
        Value::Array(all.as_array().unwrap().iter().filter(|o| kinds.contains(&o["kind"].as_str().unwrap())).cloned().collect())
    };
    // An approval once is never answered with "always"; a reject never with an allow.
    assert_eq!(picked(&only(&["allow_always", "reject_once"]), Choice::Once), json!({ "outcome": "cancelled" }));
    assert_eq!(picked(&only(&["allow_once"]), Choice::Always), json!({ "outcome": "selected", "optionId": "a1" }));
    assert_eq!(picked(&only(&["reject_always", "allow_once"]), Choice::Reject), json!({ "outcome": "selected", "optionId": "r2" }));
    assert_eq!(picked(&only(&["allow_once", "allow_always"]), Choice::Reject), json!({ "outcome": "cancelled" }));
    assert_eq!(picked(&json!(null), Choice::Once), json!({ "outcome": "cancelled" }));
}

#[test]
fn an_approval_by_a_grant_is_always_and_an_operators_is_once() {
    assert_eq!(permission::choice_of(&approved_by(vec![crate::domain::receipt::grant_approver(&GrantId::new("g-1"))])), Choice::Always);
    assert_eq!(permission::choice_of(&approved_by(vec!["local:alice".into()])), Choice::Once);
    for outcome in [Outcome::Declined, Outcome::Withdrawn, Outcome::Pending, Outcome::Answered] {
        assert_eq!(permission::choice_of(&CallStatus { outcome, ..Default::default() }), Choice::Reject, "{outcome:?}");
    }
}

#[test]
fn the_call_shows_the_tool_call_merged_over_its_updates_and_the_options_as_context() {
    let known =
        json!({ "toolCallId": "t1", "title": "Old", "kind": "execute", "rawInput": { "command": "rm -rf build" }, "status": "pending" });
    let params =
        json!({ "sessionId": "s1", "toolCall": { "toolCallId": "t1", "title": "Run rm", "content": null }, "options": four_options() });
    let around = permission::Around { agent: "gemini", command: "gemini --acp", cwd: Some("/work") };
    let call = permission::call_of(&params, Some(&known), &around).unwrap();
    assert_eq!((call.tool.as_str(), call.agent.as_str(), call.thread.as_deref()), ("execute", "gemini", Some("s1")));
    assert_eq!(call.args, json!({ "title": "Run rm", "kind": "execute", "rawInput": { "command": "rm -rf build" } }));
    let context = call.context.unwrap();
    assert_eq!((context["cwd"].as_str(), context["options"][1]["kind"].as_str()), (Some("/work"), Some("allow_always")));
    assert!(permission::call_of(&json!({ "sessionId": "s1", "toolCall": {} }), None, &around).is_err());
}

/// A relay with no console, its ends: (editor writes, editor reads, agent reads, agent writes).
fn relay_without_console(
    editor_decides_too: bool,
) -> (tokio::io::DuplexStream, BufReader<tokio::io::DuplexStream>, BufReader<tokio::io::DuplexStream>, tokio::io::DuplexStream) {
    let (editor_in, editor_writes) = duplex(1 << 16);
    let (editor_out, editor_reads) = duplex(1 << 16);
    let (agent_in, agent_reads) = duplex(1 << 16);
    let (agent_out, agent_writes) = duplex(1 << 16);
    let options = Options {
        console: Err("no console".into()),
        agent: "a".into(),
        command: "a".into(),
        timeout: Duration::from_secs(5),
        editor_decides_too,
    };
    tokio::spawn(relay(options, editor_in, editor_out, agent_in, agent_out));
    (editor_writes, BufReader::new(editor_reads), BufReader::new(agent_reads), agent_writes)
}

async fn next_line(from: &mut BufReader<tokio::io::DuplexStream>) -> String {
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(10), from.read_line(&mut line)).await.expect("a line in time").unwrap();
    line
}

#[tokio::test]
async fn every_line_passes_unchanged_and_a_permission_request_without_a_console_gets_the_reject_option() {
    let (mut editor_writes, mut editor_reads, mut agent_reads, mut agent_writes) = relay_without_console(false);
    // Spacing, key order and non-JSON lines are the peers' business: passed byte for byte.
    let to_agent = "{ \"jsonrpc\":\"2.0\",  \"id\":1, \"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}\n";
    editor_writes.write_all(to_agent.as_bytes()).await.unwrap();
    assert_eq!(next_line(&mut agent_reads).await, to_agent);
    for line in ["{\"id\":1,\"jsonrpc\":\"2.0\",\"result\":{\"protocolVersion\":1}}\n", "not json at all\n"] {
        agent_writes.write_all(line.as_bytes()).await.unwrap();
        assert_eq!(next_line(&mut editor_reads).await, line);
    }
    let ask = json!({ "jsonrpc": "2.0", "id": 7, "method": REQUEST_PERMISSION,
        "params": { "sessionId": "s1", "toolCall": { "toolCallId": "t1", "kind": "edit" }, "options": four_options() } });
    agent_writes.write_all(format!("{ask}\n").as_bytes()).await.unwrap();
    let answer: Value = serde_json::from_str(&next_line(&mut agent_reads).await).unwrap();
    assert_eq!(answer, json!({ "jsonrpc": "2.0", "id": 7, "result": { "outcome": { "outcome": "selected", "optionId": "r1" } } }));
    // The editor never saw the request: the next line it reads is the next one the agent sends.
    agent_writes.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{}}\n").await.unwrap();
    assert!(next_line(&mut editor_reads).await.contains("session/update"));
}

#[tokio::test]
async fn with_the_editor_deciding_too_and_no_console_the_editors_answer_decides_and_reaches_the_agent_unchanged() {
    let (mut editor_writes, mut editor_reads, mut agent_reads, mut agent_writes) = relay_without_console(true);
    let ask = format!(
        "{}\n",
        json!({ "jsonrpc": "2.0", "id": "p-1", "method": REQUEST_PERMISSION,
            "params": { "sessionId": "s1", "toolCall": { "toolCallId": "t1" }, "options": four_options() } })
    );
    agent_writes.write_all(ask.as_bytes()).await.unwrap();
    assert_eq!(next_line(&mut editor_reads).await, ask, "the editor gets the request as the agent sent it");
    let answer = "{\"jsonrpc\":\"2.0\",\"id\":\"p-1\",\"result\":{\"outcome\":{\"outcome\":\"selected\",\"optionId\":\"a1\"}}}\n";
    editor_writes.write_all(answer.as_bytes()).await.unwrap();
    assert_eq!(next_line(&mut agent_reads).await, answer);
}
