//! The app-server bridge's reading of Codex's messages, as the real Codex 0.169.0 sends them
//! (tests/api/codex_app_server.rs runs it against the real one).

use super::*;
use crate::domain::change::{of_call, FileAction};
use crate::domain::risk::{assess, Level, Scene};

const THREAD: &str = "01a250e9-fe35-73e3-b68d-fe3f763021b2";
const TURN: &str = "01a250e9-ff05-7791-91fb-5036c29fbd98";

fn command_request(command: &str) -> Value {
    json!({ "method": COMMAND_APPROVAL, "id": 0, "params": { "kind": "command", "threadId": THREAD, "turnId": TURN, "itemId": "call_1",
        "startedAtMs": 1, "environmentId": "local", "command": command, "cwd": "/work",
        "commandActions": [{ "type": "unknown", "command": "git push --force origin main" }], "availableDecisions": ["accept", "cancel"] } })
}

fn file_item(method: &str, changes: Value) -> Value {
    json!({ "method": method, "params": { "threadId": THREAD, "turnId": TURN,
        "item": { "type": "fileChange", "id": "call_2", "changes": changes, "status": "inProgress" } } })
}

fn file_request() -> Value {
    json!({ "method": FILE_CHANGE_APPROVAL, "id": 7, "params": { "threadId": THREAD, "turnId": TURN, "itemId": "call_2", "startedAtMs": 1,
        "reason": null, "grantRoot": null } })
}

#[test]
fn a_command_approval_becomes_a_codex_bash_call_rated_like_the_hooks_with_a_key_from_its_ids() {
    let asked = Tracker::default().approval(&command_request("/bin/bash -lc 'git push --force origin main'")).unwrap().unwrap();
    assert_eq!(asked.id, json!(0));
    assert_eq!((asked.call.tool.as_str(), asked.call.agent.as_str()), ("Bash", "codex"));
    assert_eq!(asked.call.source, Some(CallSource::Codex));
    assert_eq!(asked.call.thread.as_deref(), Some(THREAD));
    assert_eq!(asked.call.args, json!({ "command": "/bin/bash -lc 'git push --force origin main'" }), "exactly as Codex runs it");
    let context = asked.call.context.clone().unwrap();
    assert_eq!((context["event"].as_str(), context["cwd"].as_str()), (Some(COMMAND_APPROVAL), Some("/work")));
    assert_eq!(asked.key, format!("codex-app:command:{THREAD}:{TURN}:call_1"));
    let risk = assess(&asked.call.tool, &asked.call.args, Scene { cwd: Some("/work"), dir: None });
    assert!(risk.level >= Level::High, "a force push to main through bash -lc is rated high: {risk:?}");
    // The same request again is the same call.
    let again = Tracker::default().approval(&command_request("/bin/bash -lc 'git push --force origin main'")).unwrap().unwrap();
    assert_eq!((again.key, again.call.args), (asked.key, asked.call.args));
}

#[test]
fn a_file_change_is_asked_about_with_the_changes_codex_announced_and_shows_as_a_diff() {
    let mut tracker = Tracker::default();
    tracker.observe(&json!({ "method": "thread/started", "params": { "thread": { "id": THREAD, "cwd": "/work" } } }));
    tracker.observe(&file_item(
        "item/started",
        json!([{ "path": "/work/new.txt", "kind": { "type": "add" }, "diff": "hello\n" },
               { "path": "/work/old.txt", "kind": { "type": "update", "move_path": null }, "diff": "@@ -1,2 +1,2 @@\n-one\n+uno\n two\n" }]),
    ));
    // A later update of the same item replaces what it writes.
    tracker.observe(&json!({ "method": "item/fileChange/patchUpdated", "params": { "threadId": THREAD, "turnId": TURN, "itemId": "call_2",
        "changes": [{ "path": "/work/new.txt", "kind": { "type": "add" }, "diff": "hello\nworld\n" },
                    { "path": "/work/old.txt", "kind": { "type": "update", "move_path": "/work/older.txt" },
                      "diff": "--- a/old.txt\n+++ b/old.txt\n@@ -1,2 +1,2 @@\n-one\n+uno\n two\n" },
                    { "path": "/work/gone.txt", "kind": { "type": "delete" }, "diff": "bye\n" }] } }));
    let asked = tracker.approval(&file_request()).unwrap().unwrap();
    assert_eq!((asked.id.clone(), asked.call.tool.as_str()), (json!(7), "apply_patch"));
    assert_eq!(asked.key, format!("codex-app:file:{THREAD}:{TURN}:call_2"));
    assert_eq!(asked.call.context.as_ref().unwrap()["cwd"], "/work", "the thread's working directory");
    let changes = of_call(crate::domain::CallSource::Codex, &asked.call.tool, &asked.call.args, None, Some("/work"))
        .expect("the queue reads it as a diff");
    let files: Vec<_> = changes.files.iter().map(|f| (f.path.as_str(), f.action, f.added, f.removed)).collect();
    assert_eq!(files, [("new.txt", FileAction::Create, 2, 0), ("old.txt", FileAction::Edit, 1, 1), ("gone.txt", FileAction::Delete, 0, 0)]);
    assert_eq!(changes.files[1].moved_to.as_deref(), Some("older.txt"));
    assert_eq!(changes.files[1].diff, "@@ -1,2 +1,2 @@\n-one\n+uno\n two\n", "the unified diff's file header is not a change");
    // Once the item completed, its changes are forgotten: an approval for it is declined unasked.
    tracker.observe(&file_item("item/completed", json!([])));
    let refused = tracker.approval(&file_request()).unwrap().unwrap_err();
    assert_eq!(refused.id, json!(7));
    assert!(refused.why.contains("never announced"), "{}", refused.why);
}

#[test]
fn other_messages_pass_and_an_approval_missing_its_ids_or_command_is_declined_unasked() {
    let tracker = Tracker::default();
    assert!(tracker.approval(&json!({ "method": "item/started", "params": {} })).is_none());
    assert!(tracker.approval(&json!({ "id": 3, "result": {} })).is_none());
    assert!(tracker.approval(&json!({ "method": "item/tool/requestUserInput", "id": 4, "params": {} })).is_none());
    let mut no_turn = command_request("ls");
    no_turn["params"]["turnId"] = Value::Null;
    assert!(tracker.approval(&no_turn).unwrap().is_err());
    let mut no_command = command_request("ls");
    no_command["params"]["command"] = Value::Null;
    assert_eq!(tracker.approval(&no_command).unwrap().unwrap_err().id, json!(0));
}

#[test]
fn only_an_approval_as_asked_is_accept_and_the_response_answers_the_request_id() {
    let status = |outcome, edited| Ok(CallStatus { id: "q_1".into(), outcome, edited, ..Default::default() });
    assert_eq!(decision(&status(Outcome::Approved, false)), "accept");
    assert_eq!(decision(&status(Outcome::Approved, true)), "decline", "Codex cannot run an edit");
    for outcome in [Outcome::Declined, Outcome::Withdrawn, Outcome::Answered, Outcome::Pending] {
        assert_eq!(decision(&status(outcome, false)), "decline", "{outcome:?}");
    }
    assert_eq!(decision(&Err("the console refused the call".into())), "decline");
    assert_eq!(response(&json!(0), "accept"), json!({ "id": 0, "result": { "decision": "accept" } }));
}

#[test]
fn an_approval_by_a_grant_is_accept_for_session_and_an_operators_is_accept() {
    use crate::connector::tests::approved_by;
    let grant = crate::domain::receipt::grant_approver(&crate::domain::GrantId::new("g-1"));
    assert_eq!(decision(&Ok(approved_by(vec![grant]))), "acceptForSession");
    assert_eq!(decision(&Ok(approved_by(vec!["local:alice".into()]))), "accept");
    assert_eq!(decision(&Ok(approved_by(vec!["console:grant:".into()]))), "accept", "a grant without an id names none");
}

/// A completed review, as the real Codex 0.169.0 sends it (`approvals_reviewer = "auto_review"`).
fn review(status: &str, action: Value) -> Value {
    json!({ "method": guardian::REVIEW_COMPLETED, "params": { "threadId": THREAD, "turnId": TURN, "startedAtMs": 1796663417577_i64,
        "completedAtMs": 1796663417613_i64, "reviewId": "54f7a1de-6c30-41d6-baba-8987fca9be71", "targetItemId": "call_2", "decisionSource": "agent",
        "review": { "status": status, "riskLevel": "high", "userAuthorization": "unknown", "rationale": "it deletes the build directory" },
        "action": action } })
}

fn command_action() -> Value {
    json!({ "type": "command", "source": "unifiedExec", "command": "/bin/bash -lc 'rm -rf build'", "cwd": "/work" })
}

#[test]
fn a_denial_by_codexs_reviewer_becomes_a_codex_call_marked_denied_with_the_rationale_once_per_review() {
    let mut tracker = Tracker::default();
    let denied = tracker.denial(&review("denied", command_action())).unwrap().unwrap();
    assert_eq!((denied.call.tool.as_str(), denied.call.source), ("Bash", Some(CallSource::Codex)));
    assert_eq!(denied.call.args, json!({ "command": "/bin/bash -lc 'rm -rf build'" }), "the command as the reviewer saw it");
    let context = denied.call.context.clone().unwrap();
    assert_eq!(context["guardianDenied"], true);
    assert_eq!((context["reason"].as_str(), context["cwd"].as_str()), (Some("it deletes the build directory"), Some("/work")));
    assert_eq!(context["event"], guardian::REVIEW_COMPLETED);
    assert_eq!(denied.key, format!("codex-app:guardian:{THREAD}:54f7a1de-6c30-41d6-baba-8987fca9be71"));
    // The same review reported again is not asked about (nor overridden) twice.
    assert!(tracker.denial(&review("denied", command_action())).is_none());
    // Reviews that approved, or are in progress, are nobody's business; neither are other messages.
    let mut fresh = Tracker::default();
    for status in ["approved", "inProgress", "timedOut", "aborted"] {
        assert!(fresh.denial(&review(status, command_action())).is_none(), "{status}");
    }
    assert!(fresh.denial(&command_request("ls")).is_none());
}

#[test]
fn the_override_carries_the_review_as_codexs_core_event_in_snake_case() {
    let denied = Tracker::default().denial(&review("denied", command_action())).unwrap().unwrap();
    assert_eq!(
        denied.params,
        json!({ "threadId": THREAD, "event": { "id": "54f7a1de-6c30-41d6-baba-8987fca9be71", "target_item_id": "call_2", "turn_id": TURN,
            "started_at_ms": 1796663417577_i64, "completed_at_ms": 1796663417613_i64, "status": "denied", "risk_level": "high",
            "user_authorization": "unknown", "rationale": "it deletes the build directory", "decision_source": "agent",
            "action": { "type": "command", "source": "unified_exec", "command": "/bin/bash -lc 'rm -rf build'", "cwd": "/work" } } })
    );
    let patch =
        guardian::core_event(&review("denied", json!({ "type": "applyPatch", "cwd": "/work", "files": ["/work/a.txt"] }))["params"]);
    assert_eq!(patch["action"], json!({ "type": "apply_patch", "cwd": "/work", "files": ["/work/a.txt"] }));
}

#[test]
fn a_denied_file_change_is_shown_as_its_diff_and_one_nobody_can_see_is_not_queued() {
    let mut tracker = Tracker::default();
    let action = json!({ "type": "applyPatch", "cwd": "/work", "files": ["/work/new.txt"] });
    assert!(tracker.denial(&review("denied", action.clone())).unwrap().is_err(), "never announced: nothing to show");
    let mut tracker = Tracker::default();
    tracker.observe(&file_item("item/started", json!([{ "path": "/work/new.txt", "kind": { "type": "add" }, "diff": "hello\n" }])));
    let denied = tracker.denial(&review("denied", action)).unwrap().unwrap();
    assert_eq!(denied.call.tool, "apply_patch");
    assert_eq!(denied.call.args["input"], "*** Begin Patch\n*** Add File: /work/new.txt\n+hello\n*** End Patch\n");
    let mut tracker = Tracker::default();
    let network = json!({ "type": "networkAccess", "target": "https://x.test", "host": "x.test", "protocol": "https", "port": 443 });
    assert!(tracker.denial(&review("denied", network)).unwrap().is_err(), "a kind the queue does not show: the denial stands");
}

#[test]
fn only_an_operators_unedited_approval_sends_the_override_never_a_grants_an_edit_or_a_decline() {
    use crate::connector::tests::approved_by;
    let denied = Tracker::default().denial(&review("denied", command_action())).unwrap().unwrap();
    let sent = guardian::override_request(&Ok(approved_by(vec!["local:alice".into()])), &denied, "approval-console:x:1").unwrap();
    assert_eq!(sent, json!({ "id": "approval-console:x:1", "method": guardian::APPROVE_DENIED, "params": denied.params }));
    let grant = crate::domain::receipt::grant_approver(&crate::domain::GrantId::new("g-1"));
    assert!(guardian::override_request(&Ok(approved_by(vec![grant])), &denied, "i").is_none(), "a grant overrides no reviewer");
    let status = |outcome, edited| Ok(CallStatus { id: "q_1".into(), outcome, edited, ..Default::default() });
    assert!(guardian::override_request(&status(Outcome::Approved, true), &denied, "i").is_none(), "an edit is not what was denied");
    for outcome in [Outcome::Declined, Outcome::Withdrawn, Outcome::Answered, Outcome::Pending] {
        assert!(guardian::override_request(&status(outcome, false), &denied, "i").is_none(), "{outcome:?}");
    }
    assert!(guardian::override_request(&Err("no decision within 600 s".into()), &denied, "i").is_none());
}

#[test]
fn only_codexs_answers_to_the_bridges_own_ids_are_kept_from_the_client() {
    let own = guardian::own_id_prefix();
    assert_ne!(own, guardian::own_id_prefix(), "each bridge its own");
    assert!(guardian::is_own_answer(&json!({ "id": format!("{own}54f7"), "result": {} }), &own));
    assert!(guardian::is_own_answer(&json!({ "id": format!("{own}54f7"), "error": { "code": -32600 } }), &own));
    assert!(!guardian::is_own_answer(&json!({ "id": 4, "result": {} }), &own), "the client's");
    assert!(!guardian::is_own_answer(&json!({ "id": "approval-console:other:1", "result": {} }), &own), "not this bridge's");
    assert!(!guardian::is_own_answer(&json!({ "id": format!("{own}1"), "method": "x" }), &own), "a request, not an answer");
}
