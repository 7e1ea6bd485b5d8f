//! Issue 15: a call whose delivery a stop of the console cut short (`interrupted`: nobody knows
//! whether its tool ran) is never run again by itself, and the operator resolves it — it ran, it did
//! not run, or (idempotent tools) run it again — after which its run goes on.

use crate::helpers::*;
use approval_console::domain::{DecisionRequest, Fingerprint, ItemId, Role, Verdict};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

/// A call of `text` approved, its delivery cut by a crash while the tool ran, the console started
/// again: answers the app and the interrupted entry.
async fn interrupted(text: &str, thread: &str) -> (TestApp, Value) {
    let t = spawn_app().await;
    let body = json!({ "messages": [{ "role": "user", "content": text }], "threadId": thread, "resourceId": "user-1" });
    t.generate_with(body).await;
    let item = t.pending().await.remove(0);
    let verdict = match item["kind"].as_str() {
        Some("suspend") => Verdict::Resume { data: json!({ "answer": "blue" }) },
        _ => Verdict::Approve,
    };
    let request = DecisionRequest {
        verdict,
        fingerprint: Fingerprint::parse(item["fingerprint"].as_str().unwrap()).unwrap(),
        operator: "test".into(),
        operator_key: None,
    };
    t.app.testing().decide(&ItemId::new(item["id"].as_str().unwrap()), request).await.unwrap();
    // The process claimed the decision and died while the tool ran.
    t.app.testing().cut_inside_tool(&ItemId::new(item["id"].as_str().unwrap())).await.unwrap();
    let (dir, tmp, counters) = t.stop().await;
    let mut t = TestApp::builder().dir(&dir).counters(counters).spawn().await;
    t.keep(tmp);
    let after = t.item(item["id"].as_str().unwrap()).await;
    assert_eq!(after["state"], "interrupted", "{after}");
    (t, after)
}

/// POSTs a resolution; answered 200, the entry it answers (for `run_again`, the new one) once what
/// it set going is over.
async fn resolve(t: &TestApp, item: &Value, body: Value) -> (StatusCode, Value) {
    t.delivered(t.post(&format!("/api/queue/{}/resolve", item["id"].as_str().unwrap()), body).await).await
}

/// The thread's stored messages: what the run's model was told, and its last answer.
async fn thread(t: &TestApp, id: &str) -> Vec<Value> {
    approval_console::store::testing::thread(t.app.testing().db(), id, 50).await.unwrap()
}

async fn waiting_runs(t: &TestApp) -> usize {
    let (_, runs) = t.get("/api/agents/demo/suspended-runs").await;
    runs["runs"].as_array().unwrap().len()
}

#[tokio::test]
async fn c05_an_interrupted_call_lists_what_the_operator_can_say_and_its_run_waits() {
    let (t, item) = interrupted("delete rec-1", "th-wait").await;
    assert_eq!(item["allowed"], json!(["ran", "did_not_run", "run_again"]), "delete_record is idempotent: {item}");
    assert_eq!(item["resolution"], Value::Null);
    assert_eq!(t.counters.deletes(), 0, "never run again by itself");
    assert_eq!(waiting_runs(&t).await, 1, "the run waits for the operator's word");
    // A suspended call's tool (ask_operator) is not marked idempotent: no run_again.
    let (t2, asked) = interrupted("ask favourite colour?", "th-ask").await;
    assert_eq!(asked["allowed"], json!(["ran", "did_not_run"]), "{asked}");
    drop((t, t2));
}

#[tokio::test]
async fn c05_ran_with_a_result_tells_the_model_that_result_and_the_run_finishes() {
    let (t, item) = interrupted("delete rec-2", "th-ran").await;
    let told = json!({ "deleted": "rec-2", "checkedBy": "alice" });
    let (status, after) = resolve(&t, &item, json!({ "resolution": "ran", "fingerprint": item["fingerprint"], "result": told })).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["resolution"]["kind"], "ran");
    assert_eq!(after["resolution"]["result"], told);
    assert_eq!(after["allowed"], json!([]), "nothing left to say: {after}");
    assert_eq!(t.counters.deletes(), 0, "saying it ran runs nothing");
    assert_eq!(waiting_runs(&t).await, 0, "the run went on and finished");
    let messages = thread(&t, "th-ran").await;
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap_or_else(|| panic!("{messages:?}"));
    assert_eq!(tool["content"], told, "the model was told the operator's result");
    let last = messages.last().unwrap();
    assert!(last["content"].as_str().unwrap().starts_with("Done. delete_record:"), "{last}");
    let (_, audit) = t.get(&format!("/api/audit?item={}", item["id"].as_str().unwrap())).await;
    let entry = audit["entries"].as_array().unwrap().iter().find(|e| e["action"] == "resolution.ran").expect("audited");
    assert_eq!(entry["details"]["told"], told);
    let (_, verified) = t.get("/api/audit/verify").await;
    assert_eq!(verified["ok"], true, "{verified}");
}

#[tokio::test]
async fn c05_ran_without_a_result_and_did_not_run_tell_the_model_in_words() {
    let (t, item) = interrupted("delete rec-3", "th-lost").await;
    let (status, _) = resolve(&t, &item, json!({ "resolution": "ran", "fingerprint": item["fingerprint"] })).await;
    assert_eq!(status, StatusCode::OK);
    let told = thread(&t, "th-lost").await.into_iter().find(|m| m["role"] == "tool").unwrap()["content"].clone();
    assert!(told.as_str().unwrap().contains("ran, but its result was lost"), "{told}");

    let (t, item) = interrupted("delete rec-4", "th-failed").await;
    let (status, after) = resolve(&t, &item, json!({ "resolution": "did_not_run", "fingerprint": item["fingerprint"] })).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["resolution"]["kind"], "did_not_run");
    let told = thread(&t, "th-failed").await.into_iter().find(|m| m["role"] == "tool").unwrap()["content"].clone();
    assert!(told.as_str().unwrap().contains("failed") && told.as_str().unwrap().contains("did not run"), "{told}");
    assert_eq!((t.counters.deletes(), waiting_runs(&t).await), (0, 0));
}

#[tokio::test]
async fn c05_run_again_runs_the_tool_once_through_a_new_entry_approved_by_the_operator() {
    let (t, item) = interrupted("delete rec-5", "th-again").await;
    let (status, retry) = resolve(&t, &item, json!({ "resolution": "run_again", "fingerprint": item["fingerprint"] })).await;
    assert_eq!(status, StatusCode::OK, "{retry}");
    assert_ne!(retry["id"], item["id"], "a new entry for the same call");
    assert_eq!((retry["toolCallId"].clone(), retry["fingerprint"].clone()), (item["toolCallId"].clone(), item["fingerprint"].clone()));
    assert_eq!(retry["state"], "delivered", "{retry}");
    assert_eq!(retry["decision"]["kind"], "approve");
    assert_eq!(retry["decision"]["outcome"]["result"], json!({ "deleted": "rec-5" }));
    assert_eq!(t.counters.deletes(), 1, "run again: once");
    let old = t.item(item["id"].as_str().unwrap()).await;
    assert_eq!((old["state"].clone(), old["resolution"]["kind"].clone()), (json!("interrupted"), json!("run_again")));
    assert_eq!(old["resolution"]["retryItem"], retry["id"]);
    assert_eq!(waiting_runs(&t).await, 0);
    // The audit: the resolution on the old entry, then an approval of the new one by the same operator.
    let (_, audit) = t.get("/api/audit?limit=50").await;
    let actions: Vec<&str> = audit["entries"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
    let (again, approve) =
        (actions.iter().position(|a| *a == "resolution.run_again"), actions.iter().position(|a| *a == "decision.approve"));
    assert!(again.is_some() && approve.is_some(), "{actions:?}");
    // A second resolution of either kind is refused, and nothing runs.
    for kind in ["run_again", "ran", "did_not_run"] {
        let (status, err) = resolve(&t, &item, json!({ "resolution": kind, "fingerprint": item["fingerprint"] })).await;
        assert_eq!((status, err["code"].as_str()), (StatusCode::CONFLICT, Some("already_decided")), "{kind}: {err}");
    }
    assert_eq!(t.counters.deletes(), 1);
}

#[tokio::test]
async fn c05_a_resolution_is_refused_when_it_does_not_apply_and_nothing_changes() {
    let (t, item) = interrupted("delete rec-6", "th-refuse").await;
    let other = format!("sha256:{}", "0".repeat(64));
    let (status, err) = resolve(&t, &item, json!({ "resolution": "ran", "fingerprint": other })).await;
    assert_eq!((status, err["code"].as_str()), (StatusCode::CONFLICT, Some("fingerprint_mismatch")), "{err}");
    let (status, err) = resolve(&t, &item, json!({ "resolution": "did_not_run", "fingerprint": item["fingerprint"], "result": 1 })).await;
    assert_eq!((status, err["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{err}");
    let (status, err) = resolve(&t, &item, json!({ "resolution": "approve", "fingerprint": item["fingerprint"] })).await;
    assert_eq!((status, err["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{err}");
    let (status, err) = resolve(&t, &item, json!({ "resolution": "maybe", "fingerprint": item["fingerprint"] })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    // An agent's token never resolves (its own run's call least of all).
    let agent = t.token("bot", Role::Agent).await;
    let path = format!("/api/queue/{}/resolve", item["id"].as_str().unwrap());
    let (status, _) =
        t.call_as(&agent, Method::POST, &path, Some(json!({ "resolution": "ran", "fingerprint": item["fingerprint"] }))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // A call that was not interrupted: a waiting one is decided, not resolved.
    t.generate("delete rec-7").await;
    let waiting = t.pending().await.remove(0);
    let (status, err) = resolve(&t, &waiting, json!({ "resolution": "ran", "fingerprint": waiting["fingerprint"] })).await;
    assert_eq!((status, err["code"].as_str()), (StatusCode::CONFLICT, Some("decision_not_allowed")), "{err}");
    assert_eq!(err["details"]["allowed"], json!(["approve", "decline", "edit"]), "{err}");
    // run_again of a tool not marked idempotent.
    let (t2, asked) = interrupted("ask favourite colour?", "th-ask2").await;
    let (status, err) = resolve(&t2, &asked, json!({ "resolution": "run_again", "fingerprint": asked["fingerprint"] })).await;
    assert_eq!((status, err["code"].as_str()), (StatusCode::CONFLICT, Some("decision_not_allowed")), "{err}");
    // Nothing changed: still interrupted, still waiting, nothing ran.
    let still = t.item(item["id"].as_str().unwrap()).await;
    assert_eq!((still["resolution"].clone(), still["allowed"].clone()), (Value::Null, json!(["ran", "did_not_run", "run_again"])));
    assert_eq!((t.counters.deletes(), t.count("SELECT COUNT(*) FROM resolutions").await), (0, 0));
    assert_eq!(t2.count("SELECT COUNT(*) FROM resolutions").await, 0);
}

#[tokio::test]
async fn c05_a_suspended_calls_interrupted_answer_can_be_said_to_have_run() {
    let (t, item) = interrupted("ask favourite colour?", "th-ask3").await;
    let (status, after) = resolve(&t, &item, json!({ "resolution": "ran", "fingerprint": item["fingerprint"], "result": "blue" })).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    let messages = thread(&t, "th-ask3").await;
    assert_eq!(messages.iter().find(|m| m["role"] == "tool").unwrap()["content"], "blue");
    assert_eq!(waiting_runs(&t).await, 0);
}

#[tokio::test]
async fn c05_the_cli_lists_an_interrupted_call_with_its_choices_and_resolves_it() {
    let (t, item) = interrupted("delete rec-8", "th-cli").await;
    let id = item["id"].as_str().unwrap().to_owned();
    let (dir, tmp, _) = t.stop().await;
    let cli = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
            .arg("--data-dir")
            .arg(&dir)
            .args(args)
            .envs(serve_process::database_env(&dir))
            .env("APPROVAL_CONSOLE_LOG", "warn")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let text = |o: &std::process::Output| format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let listed = cli(&["queue", "--all"]);
    let out = text(&listed);
    assert!(out.contains(&format!("interrupted: did it run? `resolve {id} ran|did-not-run|run-again`")), "{out}");
    let refused = cli(&["resolve", &id, "ran"]);
    assert_eq!(refused.status.code(), Some(2), "no terminal, no --yes: {}", text(&refused));
    let bad = cli(&["resolve", &id, "ran", "--result", "{not json", "--yes"]);
    assert!(!bad.status.success() && text(&bad).contains("--result is not valid JSON"), "{}", text(&bad));
    let again = cli(&["resolve", &id[..10], "run-again", "--yes"]);
    assert!(again.status.success(), "{}", text(&again));
    assert!(text(&again).contains("ran again as q_") && text(&again).contains("deleted"), "{}", text(&again));
    let out = text(&cli(&["queue", "--all"]));
    assert!(out.contains("interrupted, resolved by") && out.contains(": run again"), "{out}");
    let twice = cli(&["resolve", &id, "did-not-run", "--yes"]);
    assert!(!twice.status.success() && text(&twice).contains("already_decided"), "{}", text(&twice));
    drop(tmp);
}
