//! Issue 6: edit-then-approve for local-engine calls. The decision is bound to the call as shown
//! (C3); the tool runs with the edited arguments, whose own fingerprint the console computes and the
//! engine checks just before running (S7); the audit keeps both.

use crate::helpers::*;
use approval_console::domain::Fingerprint;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn s07_an_approval_with_edited_arguments_runs_the_edited_call_and_the_audit_keeps_both() {
    let t = spawn_app().await;
    let answer = t.generate("delete rec-1").await;
    let item = t.pending_call(answer["runId"].as_str().unwrap(), "call_1").await;
    assert_eq!(item["allowed"], json!(["approve", "decline", "edit"]), "the local engine runs edited arguments");
    let id = item["id"].as_str().unwrap();

    let (status, after) =
        t.post(&format!("/api/queue/{id}/approve-edited"), json!({ "fingerprint": item["fingerprint"], "args": { "id": "rec-9" } })).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    let after = t.settled(id).await;
    let d = &after["decision"];
    let edited = Fingerprint::of("delete_record", &json!({ "id": "rec-9" })).unwrap();
    assert_eq!((d["kind"].as_str(), &d["data"]), (Some("edit"), &json!({ "id": "rec-9" })), "{d}");
    assert_eq!(d["fingerprint"], item["fingerprint"], "bound to what was shown");
    assert_eq!(d["editedFingerprint"], edited.as_str());
    assert_eq!(d["outcome"]["result"], json!({ "deleted": "rec-9" }), "the edited call ran: {d}");
    assert_eq!(t.counters.deletes(), 1);
    assert_eq!(after["args"], json!({ "id": "rec-1" }), "the queue entry keeps the call as it paused");

    let (_, audit) = t.get(&format!("/api/audit?item={id}")).await;
    let entry = audit["entries"].as_array().unwrap().iter().find(|e| e["action"] == "decision.edit").expect("decision.edit audited");
    assert_eq!(entry["fingerprint"], item["fingerprint"]);
    assert_eq!(entry["details"]["args"], json!({ "id": "rec-1" }));
    assert_eq!(entry["details"]["verdict"], json!({ "editedArgs": { "id": "rec-9" }, "editedFingerprint": edited.as_str() }));
}

#[tokio::test]
async fn edited_arguments_must_fit_the_tools_schema_and_the_call_as_shown() {
    let t = spawn_app().await;
    let answer = t.generate("delete rec-1").await;
    let item = t.pending_call(answer["runId"].as_str().unwrap(), "call_1").await;
    let id = item["id"].as_str().unwrap();
    let (status, body) =
        t.post(&format!("/api/queue/{id}/approve-edited"), json!({ "fingerprint": item["fingerprint"], "args": { "id": 5 } })).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_arguments")), "{body}");
    assert_eq!(body["details"]["errors"][0]["path"], "/id", "{body}");
    let (status, body) = t
        .post(
            &format!("/api/queue/{id}/approve-edited"),
            json!({ "fingerprint": format!("sha256:{}", "1".repeat(64)), "args": { "id": "rec-2" } }),
        )
        .await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("fingerprint_mismatch")), "{body}");
    let asked = t.generate("ask which table?").await;
    let asked = t.pending_call(asked["runId"].as_str().unwrap(), "call_1").await;
    let (status, body) = t
        .post(
            &format!("/api/queue/{}/approve-edited", asked["id"].as_str().unwrap()),
            json!({ "fingerprint": asked["fingerprint"], "args": { "question": "x" } }),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::CONFLICT, Some("decision_not_allowed")),
        "a suspend call is answered, not edited: {body}"
    );
    assert_eq!(t.item(id).await["state"], "pending");
    assert_eq!(t.counters.deletes(), 0);
}
