//! The two-person rule: a tool with a quorum of N runs only after N approvals by N different
//! operators (principals) on the call's one fingerprint. Approvals below the quorum are recorded
//! and audited, the call waits; one decline ends it; the principal that started the run cannot
//! approve it; its time limit covers the whole quorum; no grant and no Mastra-shaped route stands
//! in for an operator; only an admin changes a quorum.

use crate::helpers::*;
use approval_console::domain::{ItemId, Role, Verdict};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::time::Duration;

async fn set_quorum(t: &TestApp, rules: Value) {
    // Lowering a quorum is a widening: these set-ups confirm it (tests/api/widening.rs tests the refusal).
    let (status, body) = t.put("/api/settings/quorum", json!({ "rules": rules, "confirmWidening": true })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn approve_as(t: &TestApp, token: &str, item: &Value) -> (StatusCode, Value) {
    let path = format!("/api/queue/{}/approve", item["id"].as_str().unwrap());
    t.call_as(token, Method::POST, &path, Some(json!({ "fingerprint": item["fingerprint"] }))).await
}

/// The operators of a call's approvals, as the API lists them.
fn approvers(item: &Value) -> Vec<String> {
    item["approvals"].as_array().unwrap().iter().map(|a| a["operator"].as_str().unwrap().to_owned()).collect()
}

/// A bot to start runs, and two operators to approve them.
async fn cast(t: &TestApp) -> (String, String, String) {
    (t.token("bot", Role::Agent).await, t.token("operator-a", Role::Operator).await, t.token("operator-b", Role::Operator).await)
}

#[tokio::test]
async fn c08_two_operators_must_approve_the_same_fingerprint_before_the_call_runs() {
    let t = spawn_app().await;
    let (bot, a, b) = cast(&t).await;
    set_quorum(&t, json!([{ "tool": "delete_record", "approvals": 2 }])).await;
    let item = t.paused_by(&bot, "delete rec-1").await;
    let id = item["id"].as_str().unwrap();
    assert_eq!((item["quorum"].as_u64(), item["approvals"].clone()), (Some(2), json!([])), "{item}");
    assert!(!item["allowed"].as_array().unwrap().contains(&json!("edit")), "each operator approves the same arguments: {item}");
    let mut events = t.app.subscribe(&t.app.local_admin("test"));

    let (status, first) = approve_as(&t, &a, &item).await;
    assert_eq!(status, StatusCode::ACCEPTED, "recorded, not yet decided: {first}");
    assert_eq!((first["state"].as_str(), first["decision"].is_null()), (Some("pending"), true), "{first}");
    assert_eq!(approvers(&first), ["operator-a (web)"]);
    assert_eq!(first["approvals"][0]["operatorKey"], "token:operator-a");
    assert_eq!(t.counters.deletes(), 0, "one approval of two runs nothing");
    // Every screen hears of it: the change feed announces the call again.
    let announced = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let e = events.recv().await.unwrap();
            if e.id.as_str() == id {
                return e;
            }
        }
    })
    .await
    .expect("the approval reaches the change feed");
    assert_eq!(serde_json::to_value(&announced).unwrap()["type"], "added", "still waiting");

    // Another fingerprint than the call's is refused as ever, and counts for nothing.
    let mut other = item.clone();
    other["fingerprint"] = json!(format!("sha256:{}", "0".repeat(64)));
    let (status, body) = approve_as(&t, &b, &other).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("fingerprint_mismatch")), "{body}");
    assert_eq!(approvers(&t.item(id).await), ["operator-a (web)"]);

    let (status, done) = approve_as(&t, &b, &item).await;
    assert_eq!(status, StatusCode::OK, "the second operator's approval is the decision: {done}");
    assert_eq!(done["state"], "delivered", "{done}");
    assert_eq!(done["decision"]["operator"], "operator-b (web)");
    assert_eq!(done["decision"]["fingerprint"], item["fingerprint"]);
    assert_eq!(approvers(&done), ["operator-a (web)", "operator-b (web)"]);
    assert_eq!(t.counters.deletes(), 1, "it ran once");
    assert_eq!(t.count("SELECT COUNT(*) FROM decisions").await, 1, "one decision, as for any call");
    assert_eq!(t.actions_of(id).await, ["call.paused", "approval.recorded", "decision.approve", "delivery.delivered"]);
    let (_, audit) = t.get(&format!("/api/audit?item={id}")).await;
    let entries = audit["entries"].as_array().unwrap();
    let recorded = entries.iter().find(|e| e["action"] == "approval.recorded").unwrap();
    assert_eq!((recorded["actor"].as_str(), recorded["fingerprint"].clone()), (Some("operator-a (web)"), item["fingerprint"].clone()));
    assert_eq!((recorded["details"]["approvals"].as_u64(), recorded["details"]["quorum"].as_u64()), (Some(1), Some(2)), "{recorded}");
    let decided = entries.iter().find(|e| e["action"] == "decision.approve").unwrap();
    let by: Vec<&str> = decided["details"]["approvedBy"].as_array().unwrap().iter().map(|a| a["operator"].as_str().unwrap()).collect();
    assert_eq!(by, ["operator-a (web)", "operator-b (web)"], "{decided}");
    assert_eq!(decided["details"]["quorum"], 2);
    let (_, verified) = t.get("/api/audit/verify").await;
    assert_eq!(verified["ok"], true, "{verified}");
}

#[tokio::test]
async fn c08_the_same_operator_approving_twice_is_refused_and_the_call_still_waits() {
    let t = spawn_app().await;
    let (bot, a, _) = cast(&t).await;
    set_quorum(&t, json!([{ "tool": "delete_record", "approvals": 3 }])).await;
    let item = t.paused_by(&bot, "delete rec-1").await;
    let id = item["id"].as_str().unwrap();
    assert_eq!(approve_as(&t, &a, &item).await.0, StatusCode::ACCEPTED);
    let (status, body) = approve_as(&t, &a, &item).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("already_approved")), "{body}");
    assert_eq!(body["details"], json!({ "approvals": 1, "quorum": 3 }));

    // The local admin is one operator, whatever it acts through: the session token, then the CLI.
    assert_eq!(approve_as(&t, TOKEN, &t.item(id).await).await.0, StatusCode::ACCEPTED);
    let fingerprint = item["fingerprint"].as_str().unwrap();
    let again = t.app.decide_shown(id, Verdict::Approve, fingerprint, &t.app.local_admin("cli")).await.unwrap_err();
    assert_eq!(again.code(), "already_approved", "{again}");

    let after = t.item(id).await;
    assert_eq!(after["state"], "pending");
    assert_eq!(approvers(&after).len(), 2, "{after}");
    assert_eq!(
        t.counters.deletes(),
        0,
        "two approvals by one operator and the local admin — with a quorum of 3 nothing would run; here the admin's was the second"
    );
}

#[tokio::test]
async fn c08_a_decline_after_one_approval_ends_the_call_and_it_never_runs() {
    let t = spawn_app().await;
    let (bot, a, b) = cast(&t).await;
    set_quorum(&t, json!([{ "tool": "delete_record", "approvals": 2 }])).await;
    let item = t.paused_by(&bot, "delete rec-1").await;
    let id = item["id"].as_str().unwrap();
    assert_eq!(approve_as(&t, &a, &item).await.0, StatusCode::ACCEPTED);
    let (status, declined) = t
        .call_as(
            &b,
            Method::POST,
            &format!("/api/queue/{id}/decline"),
            Some(json!({ "fingerprint": item["fingerprint"], "reason": "not this one" })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{declined}");
    assert_eq!((declined["state"].as_str(), declined["decision"]["kind"].as_str()), (Some("delivered"), Some("decline")), "{declined}");
    let (status, body) = approve_as(&t, TOKEN, &item).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("already_decided")), "a decline ends it: {body}");
    assert_eq!(t.counters.deletes(), 0);
    assert_eq!(t.actions_of(id).await, ["call.paused", "approval.recorded", "decision.decline", "delivery.delivered"]);
}

#[tokio::test]
async fn c08_the_principal_that_started_the_run_cannot_approve_it() {
    let t = spawn_app().await;
    let (_, a, b) = cast(&t).await;
    set_quorum(&t, json!([{ "tool": "delete_record", "approvals": 2 }])).await;
    // An operator may start runs too; under a quorum it cannot then approve them.
    let item = t.paused_by(&a, "delete rec-1").await;
    let (status, body) = approve_as(&t, &a, &item).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("own_run")), "{body}");
    assert_eq!(body["details"]["startedBy"], "token:operator-a");
    assert_eq!(approve_as(&t, &b, &item).await.0, StatusCode::ACCEPTED);
    let (status, body) = approve_as(&t, &a, &item).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "not as the second either: {body}");
    // The local admin's own run (the session token started it): not through the CLI either.
    let own = t.paused_by(TOKEN, "delete rec-2").await;
    let refused = t
        .app
        .decide_shown(own["id"].as_str().unwrap(), Verdict::Approve, own["fingerprint"].as_str().unwrap(), &t.app.local_admin("cli"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "own_run", "{refused}");
    assert_eq!(t.counters.deletes(), 0);
    assert_eq!(t.item(item["id"].as_str().unwrap()).await["state"], "pending");
    // Without a quorum the rule does not apply: one approval by the starter runs it.
    set_quorum(&t, json!([])).await;
    let (status, done) = approve_as(&t, &a, &item).await;
    assert_eq!((status, done["state"].as_str()), (StatusCode::OK, Some("delivered")), "{done}");
}

#[tokio::test]
async fn c08_an_expiry_after_one_approval_declines_the_whole_call_and_nothing_runs() {
    let t = spawn_app().await;
    let (bot, a, b) = cast(&t).await;
    set_quorum(&t, json!([{ "tool": "delete_record", "approvals": 2 }])).await;
    let (status, _) =
        t.put("/api/settings/expiry", json!({ "rules": [{ "tool": "delete_record", "afterSecs": 1 }], "warnBeforeSecs": 0 })).await;
    assert_eq!(status, StatusCode::OK);
    let item = t.paused_by(&bot, "delete rec-late").await;
    let id = item["id"].as_str().unwrap();
    assert_eq!(approve_as(&t, &a, &item).await.0, StatusCode::ACCEPTED);
    let expired = wait::within(Duration::from_secs(5), || async { Some(t.app.testing().expire_due().await.unwrap()).filter(|n| *n > 0) })
        .await
        .unwrap_or(0);
    assert_eq!(expired, 1, "the deadline counts from the pause, approvals or not");
    let after = t.item(id).await;
    assert_eq!((after["tab"].as_str(), after["decision"]["expiredAfterSecs"].as_u64()), (Some("expired"), Some(1)), "{after}");
    assert_eq!(approvers(&after), ["operator-a (web)"], "the approval stays on record");
    let (status, body) = approve_as(&t, &b, &item).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("already_decided")), "{body}");
    assert_eq!(t.counters.deletes(), 0, "an expired call never runs");
    assert_eq!(t.actions_of(id).await, ["call.paused", "approval.recorded", "decision.expire", "delivery.delivered"]);
}

#[tokio::test]
async fn c08_a_grant_never_stands_in_for_an_approval_of_a_tool_with_a_quorum() {
    let t = spawn_app().await;
    let (bot, a, _) = cast(&t).await;
    let first = t.paused_by(&bot, "delete rec-1").await;
    let grant = json!({ "fromItem": first["id"], "fingerprint": first["fingerprint"], "scope": "engine", "expiresInSecs": 3600, "applyToWaiting": false });
    let (status, made) = t.post("/api/grants", grant.clone()).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    set_quorum(&t, json!([{ "tool": "delete_record", "approvals": 2 }])).await;

    let later = t.paused_by(&bot, "delete rec-2").await;
    let later_id = ItemId::new(later["id"].as_str().unwrap());
    assert_eq!(t.app.testing().apply_grants(&later_id).await.unwrap(), None, "the grant made before the quorum is not used");
    assert_eq!(t.app.testing().sweep_grants().await.unwrap(), 0);
    assert_eq!(t.item(later_id.as_str()).await["state"], "pending");
    // Not with an approval recorded either: a grant is no second operator.
    assert_eq!(approve_as(&t, &a, &later).await.0, StatusCode::ACCEPTED);
    assert_eq!(t.app.testing().sweep_grants().await.unwrap(), 0);
    assert_eq!(t.item(later_id.as_str()).await["state"], "pending");
    let (status, body) = t
        .post(
            "/api/grants",
            json!({ "fromItem": later["id"], "fingerprint": later["fingerprint"], "scope": "engine", "expiresInSecs": 3600 }),
        )
        .await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("quorum_tool")), "no new grant for it: {body}");
    assert_eq!(body["details"], json!({ "tool": "delete_record", "quorum": 2 }));
    let (_, grants) = t.get("/api/grants").await;
    assert_eq!((grants.as_array().unwrap().len(), grants[0]["uses"].as_u64()), (1, Some(0)), "{grants}");
    assert_eq!(t.counters.deletes(), 0);
}

#[tokio::test]
async fn c08_neither_the_mastra_shaped_routes_nor_an_edited_approval_count_towards_a_quorum() {
    let t = spawn_app().await;
    let (bot, a, _) = cast(&t).await;
    set_quorum(&t, json!([{ "tool": "delete_record", "approvals": 2 }])).await;
    let item = t.paused_by(&bot, "delete rec-1").await;
    let ids = json!({ "runId": item["runId"], "toolCallId": item["toolCallId"] });
    for path in ["/api/agents/demo/approve-tool-call-generate", "/api/agents/demo/approve-tool-call"] {
        let (status, body) = t.call_as(&a, Method::POST, path, Some(ids.clone())).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("quorum_tool")), "{path}: {body}");
    }
    let (status, body) = t
        .call_as(
            &a,
            Method::POST,
            &format!("/api/queue/{}/approve-edited", item["id"].as_str().unwrap()),
            Some(json!({ "fingerprint": item["fingerprint"], "args": { "id": "rec-2" } })),
        )
        .await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("quorum_tool")), "{body}");
    let after = t.item(item["id"].as_str().unwrap()).await;
    assert_eq!((after["state"].as_str(), after["approvals"].clone()), (Some("pending"), json!([])), "nothing counted: {after}");
    assert_eq!(t.counters.deletes(), 0);
}

#[tokio::test]
async fn c08_only_an_admin_changes_a_quorum() {
    let t = spawn_app().await;
    let operator = t.token("o", Role::Operator).await;
    let (status, body) = t.call_as(&operator, Method::PUT, "/api/settings/quorum", Some(json!({ "rules": [] }))).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("forbidden")), "{body}");
    set_quorum(&t, json!([{ "tool": "delete_record", "approvals": 2 }])).await;
    let (status, body) = t
        .call_as(&operator, Method::PUT, "/api/settings/quorum", Some(json!({ "rules": [{ "tool": "delete_record", "approvals": 1 }] })))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, read) = t.call_as(&operator, Method::GET, "/api/settings/quorum", None).await;
    assert_eq!((status, read), (StatusCode::OK, json!({ "rules": [{ "tool": "delete_record", "approvals": 2 }] })), "operators read it");
    let as_operator = approval_console::domain::Actor::new(approval_console::domain::Principal::token("o", Role::Operator), "cli");
    // The core takes the admin's context only (the type of `set_quorum`'s caller), and an operator's
    // principal is refused it.
    let refused = approval_console::domain::authority::admit(approval_console::domain::Op::SaveQuorumSettings, as_operator).unwrap_err();
    assert_eq!(refused.code(), "forbidden");
    for bad in [
        json!([{ "tool": "delete_record", "approvals": 1 }]),
        json!([{ "tool": "", "approvals": 2 }]),
        json!([{ "tool": "x", "approvals": 11 }]),
    ] {
        let (status, body) = t.put("/api/settings/quorum", json!({ "rules": bad })).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{body}");
    }
    assert_eq!(t.get("/api/settings/quorum").await.1["rules"][0]["approvals"], 2, "unchanged");
}

#[tokio::test]
async fn c08_cli_policy_quorum_sets_lists_and_removes_a_quorum_and_approves_as_one_operator() {
    let t = spawn_app().await;
    let dir = t.dir.clone();
    let run = |args: &'static [&'static str]| {
        let dir = dir.clone();
        tokio::task::spawn_blocking(move || cli(&dir, args))
    };
    let empty = run(&["policy", "quorum"]).await.unwrap();
    assert!(empty.status.success() && text_of(&empty).contains("No quorums"), "{}", text_of(&empty));
    let set = run(&["policy", "quorum", "delete_record", "2"]).await.unwrap();
    assert!(set.status.success(), "{}", text_of(&set));
    assert!(text_of(&set).contains("delete_record now needs 2 approvals"), "{}", text_of(&set));
    // A running console applies it at once.
    assert_eq!(t.get("/api/settings/quorum").await.1, json!({ "rules": [{ "tool": "delete_record", "approvals": 2 }] }));
    let listed = run(&["policy", "quorum"]).await.unwrap();
    assert!(text_of(&listed).lines().any(|l| l.starts_with("delete_record") && l.trim_end().ends_with('2')), "{}", text_of(&listed));
    let json_out = run(&["policy", "quorum", "--json"]).await.unwrap();
    let parsed: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    assert_eq!(parsed["rules"][0]["tool"], "delete_record");
    assert_eq!(run(&["policy", "quorum", "delete_record", "0"]).await.unwrap().status.code(), Some(2), "zero approvals is refused");
    assert_eq!(run(&["policy", "quorum", "delete_record", "11"]).await.unwrap().status.code(), Some(2));

    // The CLI approves as the local admin: one operator of the quorum.
    let bot = t.token("bot", Role::Agent).await;
    let operator = t.token("operator-a", Role::Operator).await;
    let item = t.paused_by(&bot, "delete rec-1").await;
    let id = item["id"].as_str().unwrap().to_owned();
    let dir2 = dir.clone();
    let id2 = id.clone();
    let first = tokio::task::spawn_blocking(move || cli(&dir2, &["approve", &id2, "--yes"])).await.unwrap();
    assert!(first.status.success(), "{}", text_of(&first));
    assert!(text_of(&first).contains("approval recorded") && text_of(&first).contains("1 of 2 approvals"), "{}", text_of(&first));
    let waiting = t.item(&id).await;
    assert_eq!(waiting["state"], "pending");
    assert!(approvers(&waiting)[0].ends_with(" (cli)"), "{waiting}");
    let (status, done) = approve_as(&t, &operator, &waiting).await;
    assert_eq!((status, done["state"].as_str()), (StatusCode::OK, Some("delivered")), "{done}");
    assert_eq!(t.counters.deletes(), 1);

    let off = run(&["policy", "quorum", "delete_record", "--off", "--yes"]).await.unwrap();
    assert!(off.status.success() && text_of(&off).contains("delete_record now needs one approval"), "{}", text_of(&off));
    assert_eq!(t.get("/api/settings/quorum").await.1, json!({ "rules": [] }));
    assert!(run(&["policy", "quorum", "lookup_record", "3"]).await.unwrap().status.success());
    let one = run(&["policy", "quorum", "lookup_record", "1", "--yes"]).await.unwrap();
    assert!(one.status.success(), "{}", text_of(&one));
    assert_eq!(t.get("/api/settings/quorum").await.1, json!({ "rules": [] }), "1 removes it too");
}

#[tokio::test]
async fn cli_policy_quorum_refuses_a_tool_nothing_named_unless_yes() {
    let t = spawn_app().await;
    // The demo agent names delete_record; nothing names delet_record or deploy_prod.
    let dir = t.dir.clone();
    let run = |args: &'static [&'static str]| {
        let dir = dir.clone();
        tokio::task::spawn_blocking(move || cli(&dir, args))
    };
    let typo = run(&["policy", "quorum", "delet_record", "2"]).await.unwrap();
    assert_eq!(typo.status.code(), Some(2), "{}", text_of(&typo));
    let said = text_of(&typo);
    assert!(said.contains("delet_record") && said.contains("Did you mean delete_record?") && said.contains("--yes"), "{said}");
    assert_eq!(t.get("/api/settings/quorum").await.1, json!({ "rules": [] }), "nothing was changed");

    let anyway = run(&["policy", "quorum", "deploy_prod", "2", "--yes"]).await.unwrap();
    assert!(anyway.status.success(), "{}", text_of(&anyway));
    assert!(text_of(&anyway).contains("warning: no agent, engine or queued call has named a tool deploy_prod"), "{}", text_of(&anyway));
    assert_eq!(t.get("/api/settings/quorum").await.1, json!({ "rules": [{ "tool": "deploy_prod", "approvals": 2 }] }));
    let known = run(&["policy", "quorum", "delete_record", "2"]).await.unwrap();
    assert!(known.status.success() && !text_of(&known).contains("warning"), "{}", text_of(&known));
}

#[tokio::test]
async fn c08_running_an_interrupted_call_again_needs_the_quorum_anew() {
    use approval_console::domain::{DecisionRequest, Fingerprint};
    // The session token (the local admin) starts the run; the call is approved, then its delivery
    // is cut by a crash while the tool ran.
    let t = spawn_app().await;
    t.generate_with(json!({ "messages": [{ "role": "user", "content": "delete rec-1" }], "threadId": "th-q", "resourceId": "user-1" }))
        .await;
    let item = t.pending().await.remove(0);
    let request = DecisionRequest {
        verdict: Verdict::Approve,
        fingerprint: Fingerprint::parse(item["fingerprint"].as_str().unwrap()).unwrap(),
        operator: "test".into(),
        operator_key: None,
    };
    t.app.testing().decide(&ItemId::new(item["id"].as_str().unwrap()), request).await.unwrap();
    approval_console::store::testing::crash_while_delivering(t.app.testing().db(), None).await.unwrap();
    let (dir, tmp, counters) = t.stop().await;
    let mut t = TestApp::builder().dir(&dir).counters(counters).spawn().await;
    t.keep(tmp);
    let (_, a, b) = cast(&t).await;
    set_quorum(&t, json!([{ "tool": "delete_record", "approvals": 2 }])).await;
    let id = item["id"].as_str().unwrap();
    let again = json!({ "resolution": "run_again", "fingerprint": item["fingerprint"] });

    let (status, body) = t.post(&format!("/api/queue/{id}/resolve"), again.clone()).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("own_run")), "the run's starter: {body}");
    let still = t.item(id).await;
    assert_eq!((still["state"].as_str(), still["resolution"].clone()), (Some("interrupted"), Value::Null), "nothing written: {still}");

    let (status, retry) = t.call_as(&a, Method::POST, &format!("/api/queue/{id}/resolve"), Some(again)).await;
    assert_eq!(status, StatusCode::OK, "{retry}");
    assert_eq!((retry["state"].as_str(), approvers(&retry)), (Some("pending"), vec!["operator-a (web)".to_owned()]), "{retry}");
    assert_eq!(t.counters.deletes(), 0, "one operator's word runs nothing again");
    let (status, done) = approve_as(&t, &b, &retry).await;
    assert_eq!((status, done["state"].as_str()), (StatusCode::OK, Some("delivered")), "{done}");
    assert_eq!(t.counters.deletes(), 1);
}

#[tokio::test]
async fn c08_an_approval_racing_a_decline_answers_what_it_did_recorded_202_or_lost_409_never_200() {
    let t = spawn_app().await;
    let (bot, a, b) = cast(&t).await;
    set_quorum(&t, json!([{ "tool": "delete_record", "approvals": 2 }])).await;
    let mut items = Vec::new();
    for n in 0..12 {
        items.push(t.paused_by(&bot, &format!("delete rec-{n}")).await);
    }
    // Each call approved by one operator (1 of 2) and declined by another at the same moment.
    let races = items.iter().map(|item| {
        let (t, a, b) = (&t, &a, &b);
        async move {
            let id = item["id"].as_str().unwrap();
            let path = format!("/api/queue/{id}/decline");
            let decline = t.call_as(b, Method::POST, &path, Some(json!({ "fingerprint": item["fingerprint"], "reason": "no" })));
            let (approved, declined) = tokio::join!(approve_as(t, a, item), decline);
            (id.to_owned(), approved, declined)
        }
    });
    for (id, (approve_status, approve_body), (decline_status, decline_body)) in futures::future::join_all(races).await {
        assert_eq!(decline_status, StatusCode::OK, "{id}: the decline decides either way: {decline_body}");
        let actions = t.actions_of(&id).await;
        let recorded = actions.iter().any(|a| a == "approval.recorded");
        if recorded {
            // Recorded as 1 of 2 — whatever the call shows now (the decline may have won since).
            assert_eq!(approve_status, StatusCode::ACCEPTED, "{id}: recorded, so 202: {approve_body} ({actions:?})");
        } else {
            assert_eq!(
                (approve_status, approve_body["code"].as_str()),
                (StatusCode::CONFLICT, Some("already_decided")),
                "{id}: it lost the race and recorded nothing: {actions:?}"
            );
        }
        assert!(actions.contains(&"decision.decline".to_owned()), "{id}: {actions:?}");
    }
    assert_eq!(t.counters.deletes(), 0, "declined calls never run");
}

/// Issue 44, point 8: a phone paired through an admin token, no person named, took the token's
/// NAME as its person, and one human met a quorum of two alone (her token, then her phone).
#[tokio::test]
async fn c08_a_phone_paired_through_an_admin_token_is_its_persons_and_never_her_second_approval() {
    let t = spawn_app().await;
    let r = crate::remote::Remote::start(&t).await;
    let (status, made) = t.post("/api/tokens", json!({ "name": "alice-admin", "role": "admin", "person": "alice" })).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let alice = made["token"].as_str().unwrap().to_owned();
    let (status, started) = t.call_as(&alice, Method::POST, "/api/devices/pairings", Some(json!({}))).await;
    assert_eq!(status, StatusCode::CREATED, "{started}");
    assert_eq!((started["person"].as_str(), started["name"].as_str()), (Some("alice"), Some("alice-phone-1")), "{started}");
    let (mut passkey, cookie) = r.pair(&r.http, &started).await;
    let (_, devices) = t.get("/api/devices").await;
    assert_eq!(devices[0]["person"], "alice", "{devices}");

    let bot = t.token("bot", Role::Agent).await;
    set_quorum(&t, json!([{ "tool": "delete_record", "approvals": 2 }])).await;
    let item = t.paused_by(&bot, "delete rec-1").await;
    let id = item["id"].as_str().unwrap();
    assert_eq!(approve_as(&t, &alice, &item).await.0, StatusCode::ACCEPTED, "alice's first approval");
    // Her phone, with its passkey asked for this very call: the same person.
    let step_up = r.begin_step_up(&r.http, &cookie, &item, "approve").await;
    let (status, refused) = r.approve_with(&r.http, &cookie, &mut passkey, step_up, &item).await;
    assert_eq!((status, refused["code"].as_str()), (StatusCode::CONFLICT, Some("already_approved")), "{refused}");
    let after = t.item(id).await;
    assert_eq!((after["state"].as_str(), approvers(&after).len()), (Some("pending"), 1), "{after}");
    assert_eq!(t.counters.deletes(), 0, "one person's two approvals run nothing");
    // An admin may still name a device for another person, as for tokens: bob's phone counts.
    let (_, for_bob) = t.call_as(&alice, Method::POST, "/api/devices/pairings", Some(json!({ "person": "bob" }))).await;
    assert_eq!((for_bob["person"].as_str(), for_bob["name"].as_str()), (Some("bob"), Some("bob-phone-1")), "{for_bob}");
    let (mut bobs, bob_cookie) = r.pair(&r.http, &for_bob).await;
    let step_up = r.begin_step_up(&r.http, &bob_cookie, &item, "approve").await;
    let (status, done) = r.approve_with(&r.http, &bob_cookie, &mut bobs, step_up, &item).await;
    assert_eq!((status, done["state"].as_str()), (StatusCode::OK, Some("delivered")), "{done}");
    assert_eq!(t.counters.deletes(), 1);
}
