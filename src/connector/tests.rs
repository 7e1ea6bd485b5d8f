//! The connector against a fake console on 127.0.0.1: what it answers (arguments, edited or not, a
//! receipt) and the key set it publishes are the test's; a receipt holds only for what the
//! connector itself runs, signed by a key it trusts.

use super::keys::Trust;
use super::*;
use crate::domain::receipt::{Claims, Outcome as Decided, Signer, VERSION};
use crate::domain::Fingerprint;
use serde_json::json;
use std::path::{Path, PathBuf};

/// What the fake console answers a submitted call with: approved at once.
struct Answer {
    args: Value,
    edited: bool,
    receipt: Option<String>,
}

/// A fresh directory that outlives the test's client (a first-use key file goes there).
fn scratch() -> PathBuf {
    Box::leak(Box::new(tempfile::tempdir().unwrap())).path().to_owned()
}

/// A console on 127.0.0.1 that approves every call at once with `answer`, and publishes `keys`;
/// a client of it trusting `trust`.
async fn console_with(answer: Answer, keys: Jwks, trust: Trust) -> ConsoleClient {
    use axum::routing::{get, post};
    let status = json!({ "id": "q_1", "outcome": "approved", "args": answer.args, "edited": answer.edited, "editedFingerprint": null,
                         "reason": null, "expired": false, "data": null, "receipt": answer.receipt });
    let app = axum::Router::new()
        .route("/api/calls", post(move || async move { axum::Json(json!({ "id": "q_1", "status": status })) }))
        .route("/.well-known/jwks.json", get(move || async move { axum::Json(keys) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    ConsoleClient::new(&url, "agent-token", trust).unwrap()
}

/// [`console_with`] answering the agent's own arguments, unedited, trusting the console's keys on
/// first use (kept in a directory of its own).
async fn console(receipt: Option<String>, keys: Jwks) -> ConsoleClient {
    let trust = Trust::FirstUse { file: scratch().join("keys.json") };
    console_with(Answer { args: json!({"id": "rec-1"}), edited: false, receipt }, keys, trust).await
}

/// A receipt of call `call_id` approving `shown`, to run with `runs` (edited when they differ).
fn receipt(signer: &Signer, call_id: &str, shown: &Value, runs: &Value, edited: bool) -> String {
    let fp = |args: &Value| Fingerprint::of("delete_record", args).unwrap();
    let now = chrono::Utc::now().timestamp();
    signer.sign(&Claims {
        version: VERSION,
        id: Claims::new_id(),
        decision: Decided::Approved,
        edited,
        fingerprint: fp(shown),
        executed_fingerprint: Some(fp(runs)),
        tool: "delete_record".into(),
        source: "mcp".into(),
        engine: "mcp".into(),
        agent: None,
        run_id: None,
        tool_call_id: None,
        call_id: call_id.into(),
        approvers: vec!["local:alice".into()],
        policy_version: "p-0".into(),
        issued_at: now,
        expires_at: now + 60,
        rule_scope: None,
    })
}

fn signed(signer: &Signer, args: &Value, call_id: &str) -> String {
    receipt(signer, call_id, args, args, false)
}

fn call() -> NewCall {
    serde_json::from_value(json!({ "tool": "delete_record", "args": {"id": "rec-1"}, "agent": "gate" })).unwrap()
}

fn keys_of(signer: &Signer) -> Jwks {
    Jwks { keys: vec![signer.jwk(0)] }
}

/// `keys` in a new owner-only file (`mode`), as a user pins them.
fn pinned_file(keys: &Jwks, mode: u32) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let file = scratch().join("jwks.json");
    std::fs::write(&file, serde_json::to_string_pretty(keys).unwrap()).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
    file
}

fn refused(why: &str, e: String) {
    assert!(e.contains("receipt is refused") && e.contains(why), "{why}: {e}");
}

/// An approval's status (call `q_1`) with a receipt naming `approvers`, its signature not checked
/// again by what reads it (as after [`ConsoleClient::ask`]).
pub(crate) fn approved_by(approvers: Vec<String>) -> CallStatus {
    let now = chrono::Utc::now().timestamp();
    let fp = Fingerprint::of("edit", &json!({})).unwrap();
    let receipt = Signer::generate().sign(&Claims {
        version: VERSION,
        id: Claims::new_id(),
        decision: Decided::Approved,
        edited: false,
        fingerprint: fp.clone(),
        executed_fingerprint: Some(fp),
        tool: "edit".into(),
        source: "acp".into(),
        engine: "acp".into(),
        agent: None,
        run_id: None,
        tool_call_id: None,
        call_id: "q_1".into(),
        approvers,
        policy_version: "p-0".into(),
        issued_at: now,
        expires_at: now + 60,
        rule_scope: None,
    });
    CallStatus { id: "q_1".into(), outcome: Outcome::Approved, receipt: Some(receipt), ..Default::default() }
}

/// An approval's status (call `q_1`) by grant `grant`, whose receipt claims `scope` for its rule.
pub(crate) fn approved_by_grant_in(grant: &str, scope: crate::domain::session_rule::RuleScope) -> CallStatus {
    let mut status = approved_by(vec![crate::domain::receipt::grant_approver(&crate::domain::GrantId::new(grant))]);
    let (_, mut claims) = crate::domain::receipt::decode(status.receipt.as_deref().unwrap()).unwrap();
    claims.rule_scope = (scope != crate::domain::session_rule::RuleScope::Session).then_some(scope);
    status.receipt = Some(Signer::generate().sign(&claims));
    status
}

const WAIT: Duration = Duration::from_secs(5);

#[tokio::test]
async fn an_approval_passes_only_on_its_own_receipt_once() {
    let signer = Signer::generate();
    let keys = keys_of(&signer);
    let good = console(Some(signed(&signer, &json!({"id": "rec-1"}), "q_1")), keys.clone()).await;
    assert_eq!(good.ask(&call(), None, WAIT).await.unwrap().outcome, Outcome::Approved);
    let replay = good.ask(&call(), None, WAIT).await.unwrap_err();
    assert!(replay.contains("used before"), "{replay}");

    let other_args = console(Some(signed(&signer, &json!({"id": "rec-2"}), "q_1")), keys.clone()).await;
    refused("fingerprint_mismatch", other_args.ask(&call(), None, WAIT).await.unwrap_err());
    let other_call = console(Some(signed(&signer, &json!({"id": "rec-1"}), "q_2")), keys.clone()).await;
    refused("for call q_2", other_call.ask(&call(), None, WAIT).await.unwrap_err());
    let stranger = console(Some(signed(&Signer::generate(), &json!({"id": "rec-1"}), "q_1")), keys.clone()).await;
    refused("is not among the console's receipt keys", stranger.ask(&call(), None, WAIT).await.unwrap_err());
    let none = console(None, keys).await;
    refused("sent none", none.ask(&call(), None, WAIT).await.unwrap_err());
}

/// The console answers other arguments than the agent's, unedited, with a receipt that matches
/// them: the connector checks what it will run — the agent's own — and refuses.
#[tokio::test]
async fn a_receipt_matching_the_consoles_arguments_is_refused_when_the_agent_runs_other_ones() {
    let signer = Signer::generate();
    let theirs = json!({"id": "rec-2"});
    let answer = Answer { args: theirs.clone(), edited: false, receipt: Some(signed(&signer, &theirs, "q_1")) };
    let swapped = console_with(answer, keys_of(&signer), Trust::FirstUse { file: scratch().join("k.json") }).await;
    refused("fingerprint_mismatch", swapped.ask(&call(), None, WAIT).await.unwrap_err());
}

/// An edit runs the edited arguments the console sends, only when the receipt's executed
/// fingerprint is theirs (computed here) and the receipt says edited too; the status answered
/// carries exactly what was checked.
#[tokio::test]
async fn an_edited_approval_runs_the_edit_its_receipt_binds_and_nothing_else() {
    let signer = Signer::generate();
    let (own, edit) = (json!({"id": "rec-1"}), json!({"id": "rec-9"}));
    let ask = |answer: Answer| {
        let keys = keys_of(&signer);
        async move { console_with(answer, keys, Trust::FirstUse { file: scratch().join("k.json") }).await.ask(&call(), None, WAIT).await }
    };
    let ok = ask(Answer { args: edit.clone(), edited: true, receipt: Some(receipt(&signer, "q_1", &own, &edit, true)) }).await.unwrap();
    assert_eq!(ok.args, Some(edit.clone()), "the edit runs");
    let other = json!({"id": "rec-666"});
    let e = ask(Answer { args: other.clone(), edited: true, receipt: Some(receipt(&signer, "q_1", &own, &edit, true)) }).await;
    refused("fingerprint_mismatch", e.unwrap_err());
    // Said unedited by the console, edited by the receipt: the agent's own arguments run, and the
    // receipt does not bind them.
    let e = ask(Answer { args: edit.clone(), edited: false, receipt: Some(receipt(&signer, "q_1", &own, &edit, true)) }).await;
    refused("fingerprint_mismatch", e.unwrap_err());
    // Said edited by the console, not by the receipt.
    let e = ask(Answer { args: own.clone(), edited: true, receipt: Some(receipt(&signer, "q_1", &own, &own, false)) }).await;
    refused("not edited", e.unwrap_err());
    // Unedited: what runs is the agent's own, whatever else the console sends beside.
    let ok = ask(Answer { args: own.clone(), edited: false, receipt: Some(signed(&signer, &own, "q_1")) }).await.unwrap();
    assert_eq!(ok.args, Some(own));
}

/// Pinned keys alone verify: a console publishing (and signing with) another key is refused, and
/// one whose published set is swapped is not asked for it.
#[tokio::test]
async fn pinned_receipt_keys_alone_verify_and_the_consoles_are_not_fetched() {
    let (real, impostor) = (Signer::generate(), Signer::generate());
    let pinned = pinned_file(&keys_of(&real), 0o600);
    let trust = || Trust::pinned(&pinned).unwrap();
    let own = json!({"id": "rec-1"});
    let answer = |by: &Signer| Answer { args: own.clone(), edited: false, receipt: Some(signed(by, &own, "q_1")) };
    let fake = console_with(answer(&impostor), keys_of(&impostor), trust()).await;
    let e = fake.ask(&call(), None, WAIT).await.unwrap_err();
    refused("pinned in", e.clone());
    assert!(e.contains(&pinned.display().to_string()), "{e}");
    // The console publishes the impostor's set; the pinned key still verifies its own receipt.
    let good = console_with(answer(&real), keys_of(&impostor), trust()).await;
    assert_eq!(good.ask(&call(), None, WAIT).await.unwrap().outcome, Outcome::Approved);
    // A pinned file another user could write is refused, as a secret file is.
    let open = pinned_file(&keys_of(&real), 0o644);
    let e = Trust::pinned(&open).unwrap_err();
    assert!(e.contains("its mode is 0644"), "{e}");
}

/// Trust on first use: the console's key set is kept, owner-only, the first time; a later set that
/// signs with another key is refused, saying where the kept keys are and how to trust anew.
#[tokio::test]
async fn the_consoles_keys_are_trusted_on_first_use_and_a_later_swap_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let (first, second) = (Signer::generate(), Signer::generate());
    let file = scratch().join("state/approval-console/connector/keys-test.json");
    let own = json!({"id": "rec-1"});
    let answer = |by: &Signer| Answer { args: own.clone(), edited: false, receipt: Some(signed(by, &own, "q_1")) };
    let trusting = console_with(answer(&first), keys_of(&first), Trust::FirstUse { file: file.clone() }).await;
    assert_eq!(trusting.ask(&call(), None, WAIT).await.unwrap().outcome, Outcome::Approved);
    let kept: Jwks = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(kept, keys_of(&first));
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(std::fs::metadata(file.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);

    // Another run of the connector (a new hook process), the console's key set swapped.
    let swapped = console_with(answer(&second), keys_of(&second), Trust::FirstUse { file: file.clone() }).await;
    let e = swapped.ask(&call(), None, WAIT).await.unwrap_err();
    refused("trusted on first use", e.clone());
    assert!(e.contains(&format!("remove {}", file.display())), "{e}");
    assert_eq!(serde_json::from_str::<Jwks>(&std::fs::read_to_string(&file).unwrap()).unwrap(), keys_of(&first), "not replaced");
}

#[test]
fn the_first_use_file_is_the_connectors_own_per_console() {
    let a = keys::first_use_file("http://127.0.0.1:4319").unwrap();
    assert_eq!(a, keys::first_use_file("http://127.0.0.1:4319/").unwrap());
    assert_ne!(a, keys::first_use_file("http://127.0.0.1:4320").unwrap());
    assert!(a.ends_with(Path::new("approval-console/connector").join(a.file_name().unwrap())), "{}", a.display());
}
