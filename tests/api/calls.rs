//! Calls that agents submit themselves (`POST /api/calls`): queued like any paused call, with the
//! S7 fingerprint; the agent waits for the decision (`GET /api/calls/{id}?waitSecs=`); an
//! idempotency key makes a retry find the same call; the agent can withdraw it; it never decides.

use crate::helpers::*;
use approval_console::domain::{Fingerprint, Role};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::time::Duration;

async fn submit(t: &TestApp, token: &str, key: Option<&str>, body: Value) -> (StatusCode, Value) {
    let mut r = t.http.post(format!("{}/api/calls", t.base)).bearer_auth(token).json(&body);
    if let Some(key) = key {
        r = r.header("Idempotency-Key", key);
    }
    let r = r.send().await.unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

fn delete_call() -> Value {
    json!({ "tool": "delete_record", "args": { "id": "rec-7" }, "agent": "billing-bot", "thread": "t-1", "context": { "cwd": "/srv/app" } })
}

#[tokio::test]
async fn c01_a_submitted_call_is_queued_with_its_fingerprint_and_its_agent_gets_the_decision() {
    let t = spawn_app().await;
    let bot = t.token("bot", Role::Agent).await;
    let (status, queued) = submit(&t, &bot, Some("call-1"), delete_call()).await;
    assert_eq!(status, StatusCode::CREATED, "{queued}");
    let id = queued["id"].as_str().unwrap().to_owned();
    let expected = Fingerprint::of("delete_record", &json!({ "id": "rec-7" })).unwrap();
    assert_eq!(queued["fingerprint"], expected.as_str(), "S7: over the tool and its arguments");
    assert_eq!(
        (queued["source"].as_str(), queued["created"].as_bool(), queued["status"]["outcome"].as_str()),
        (Some("http"), Some(true), Some("pending"))
    );

    // The operator's queue has it like any paused call.
    let item = t.item(&id).await;
    assert_eq!(
        (item["engine"].as_str(), item["agentId"].as_str(), item["threadId"].as_str()),
        // `bot` may claim no agent name: the call is queued under its own (it said billing-bot).
        (Some("http"), Some("bot"), Some("t-1")),
        "{item}"
    );
    assert_eq!(item["pauseReason"]["kind"], "submitted");
    assert_eq!(item["allowed"], json!(["approve", "decline"]));

    // The agent waits; the operator approves meanwhile; the wait ends with the decision.
    let waiting = {
        let (http, base, bot, id) = (t.http.clone(), t.base.clone(), bot.clone(), id.clone());
        tokio::spawn(async move {
            let r = http.get(format!("{base}/api/calls/{id}?waitSecs=30")).bearer_auth(&bot).send().await.unwrap();
            (r.status(), r.json::<Value>().await.unwrap())
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "the wait holds while nobody decided");
    let (status, body) = t.approve(&item).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, answer) = tokio::time::timeout(Duration::from_secs(10), waiting).await.expect("the wait ends with the decision").unwrap();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (answer["outcome"].as_str(), answer["args"].clone(), answer["edited"].as_bool()),
        (Some("approved"), json!({ "id": "rec-7" }), Some(false)),
        "{answer}"
    );
    assert_eq!(t.item(&id).await["state"], "delivered", "handed over: nothing else to send");
    let actions = t.actions_of(&id).await;
    assert_eq!(actions, ["call.paused", "decision.approve", "delivery.delivered"], "{actions:?}");
}

#[tokio::test]
async fn a_retry_with_the_same_idempotency_key_finds_the_same_call_and_another_call_under_it_is_refused() {
    let t = spawn_app().await;
    let bot = t.token("bot", Role::Agent).await;
    let (status, first) = submit(&t, &bot, Some("k-1"), delete_call()).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    let (status, again) = submit(&t, &bot, Some("k-1"), delete_call()).await;
    assert_eq!((status, again["id"].clone(), again["created"].as_bool()), (StatusCode::OK, first["id"].clone(), Some(false)), "{again}");
    let mut other = delete_call();
    other["args"]["id"] = json!("rec-8");
    let (status, refused) = submit(&t, &bot, Some("k-1"), other.clone()).await;
    assert_eq!((status, refused["code"].as_str()), (StatusCode::CONFLICT, Some("idempotency_key_reused")), "{refused}");
    assert_eq!(refused["details"]["id"], first["id"]);
    // Another credential's key is its own.
    let other_bot = t.token("bot-2", Role::Agent).await;
    let (status, _) = submit(&t, &other_bot, Some("k-1"), other).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(t.count("SELECT COUNT(*) FROM queue_items WHERE engine = 'http'").await, 2, "one call per key and credential");
    // Concurrent retries of one request queue it once.
    let tries = (0..8).map(|_| submit(&t, &bot, Some("k-2"), delete_call()));
    let answers = futures::future::join_all(tries).await;
    let ids: std::collections::BTreeSet<String> =
        answers.iter().map(|(s, a)| a["id"].as_str().unwrap_or_else(|| panic!("{s}: {a}")).to_owned()).collect();
    assert_eq!(ids.len(), 1, "{answers:?}");
    assert_eq!(answers.iter().filter(|(s, _)| *s == StatusCode::CREATED).count(), 1);
}

#[tokio::test]
async fn an_agent_sees_only_its_own_calls_and_cannot_decide_them() {
    let t = spawn_app().await;
    let (bot, other) = (t.token("bot", Role::Agent).await, t.token("other-bot", Role::Agent).await);
    let (_, queued) = submit(&t, &bot, None, delete_call()).await;
    let id = queued["id"].as_str().unwrap();
    let (status, body) = t.call_as(&other, Method::GET, &format!("/api/calls/{id}"), None).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{body}");
    let (status, _) = t.call_as(&other, Method::DELETE, &format!("/api/calls/{id}"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let path = format!("/api/queue/{id}/approve");
    let (status, body) = t.call_as(&bot, Method::POST, &path, Some(json!({ "fingerprint": queued["fingerprint"] }))).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("forbidden")), "the agent never decides: {body}");
    // A call that was not submitted is no submitted call, even for operators.
    let run = t.generate("delete rec-1").await;
    let local = t.pending_call(run["runId"].as_str().unwrap(), "call_1").await;
    let (status, _) = t.get(&format!("/api/calls/{}", local["id"].as_str().unwrap())).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, mine) = t.call_as(&bot, Method::GET, &format!("/api/calls/{id}"), None).await;
    assert_eq!((status, mine["outcome"].as_str()), (StatusCode::OK, Some("pending")));
}

#[tokio::test]
async fn a_declined_or_answered_call_tells_its_agent_and_a_withdrawn_one_leaves_the_queue() {
    let t = spawn_app().await;
    let bot = t.token("bot", Role::Agent).await;
    let (_, declined) = submit(&t, &bot, None, delete_call()).await;
    let item = t.item(declined["id"].as_str().unwrap()).await;
    let (status, _) = t.decline(&item, "not on a Friday").await;
    assert_eq!(status, StatusCode::OK);
    let (_, answer) = t.call_as(&bot, Method::GET, &format!("/api/calls/{}?waitSecs=5", item["id"].as_str().unwrap()), None).await;
    assert_eq!(
        (answer["outcome"].as_str(), answer["reason"].as_str(), answer["args"].clone()),
        (Some("declined"), Some("not on a Friday"), Value::Null),
        "{answer}"
    );

    let ask = json!({ "tool": "pick_region", "args": {}, "agent": "deploy-bot", "payload": { "question": "Which region?" },
        "resumeSchema": { "type": "object", "properties": { "region": { "enum": ["eu", "us"] } }, "required": ["region"] } });
    let (status, asked) = submit(&t, &bot, None, ask).await;
    assert_eq!(status, StatusCode::CREATED, "{asked}");
    let item = t.item(asked["id"].as_str().unwrap()).await;
    assert_eq!((item["kind"].as_str(), item["allowed"].clone()), (Some("suspend"), json!(["resume", "decline"])), "{item}");
    let (status, body) = t.resume(&item, json!({ "region": "mars" })).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_resume_data")),
        "checked against its schema: {body}"
    );
    let (status, _) = t.resume(&item, json!({ "region": "eu" })).await;
    assert_eq!(status, StatusCode::OK);
    let (_, answer) = t.call_as(&bot, Method::GET, &format!("/api/calls/{}", item["id"].as_str().unwrap()), None).await;
    assert_eq!((answer["outcome"].as_str(), answer["data"].clone()), (Some("answered"), json!({ "region": "eu" })), "{answer}");

    let (_, left) = submit(&t, &bot, None, delete_call()).await;
    let id = left["id"].as_str().unwrap();
    let (status, gone) = t.call_as(&bot, Method::DELETE, &format!("/api/calls/{id}"), None).await;
    assert_eq!((status, gone["outcome"].as_str()), (StatusCode::OK, Some("withdrawn")), "{gone}");
    let item = t.item(id).await;
    assert_eq!(item["state"], "gone");
    let (status, body) = t.approve(&item).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("already_decided")), "{body}");
    // Withdrawing a decided call keeps its decision.
    let (status, body) = t.call_as(&bot, Method::DELETE, &format!("/api/calls/{}", declined["id"].as_str().unwrap()), None).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("already_decided")), "{body}");
}

#[tokio::test]
async fn bad_submissions_get_a_clear_error_and_queue_nothing() {
    let t = spawn_app().await;
    let bot = t.token("bot", Role::Agent).await;
    let deep = (0..200).fold(json!(1), |v, _| json!([v]));
    let cases = [
        (json!({ "args": {}, "agent": "a" }), "tool"),
        (json!({ "tool": "", "args": {}, "agent": "a" }), "tool"),
        (json!({ "tool": "x", "args": {}, "agent": "a\u{7}" }), "agent"),
        (json!({ "tool": "x".repeat(201), "args": {}, "agent": "a" }), "tool"),
        (json!({ "tool": "x", "args": {}, "agent": "a", "resumeSchema": { "type": 12 } }), "resumeSchema"),
        (json!({ "tool": "x", "args": {}, "agent": "a", "payload": { "q": 1 } }), "payload"),
        (json!({ "tool": "x", "args": {}, "agent": "a", "context": "cwd" }), "context"),
        (json!({ "tool": "x", "args": {}, "agent": "a", "source": "slack" }), "source"),
        (json!({ "tool": "x", "args": {}, "agent": "a", "extra": 1 }), "extra"),
        (json!({ "tool": "x", "args": deep, "agent": "a" }), "nested"),
    ];
    for (body, says) in cases {
        let (status, answer) = submit(&t, &bot, None, body.clone()).await;
        assert_eq!((status, answer["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{body}: {answer}");
        assert!(answer["message"].as_str().unwrap().contains(says), "{says}: {answer}");
    }
    let (status, answer) = submit(&t, &bot, Some(" "), delete_call()).await;
    assert_eq!((status, answer["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{answer}");
    let huge = json!({ "tool": "x", "args": { "blob": "a".repeat(5 * 1024 * 1024) }, "agent": "a" });
    let (status, answer) = submit(&t, &bot, None, huge).await;
    assert_eq!((status, answer["code"].as_str()), (StatusCode::PAYLOAD_TOO_LARGE, Some("payload_too_large")), "{answer}");
    let (status, answer) = t.call_as(&bot, Method::GET, "/api/calls/nope?waitSecs=61", None).await;
    assert_eq!((status, answer["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{answer}");
    assert_eq!(t.count("SELECT COUNT(*) FROM queue_items").await, 0);
    let (status, _) = submit(&t, "not-a-token", None, delete_call()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn c01_the_queue_marks_each_calls_source_and_filters_by_it() {
    let t = spawn_app().await;
    let bot = t.token("bot", Role::Agent).await;
    t.generate("delete rec-1").await;
    submit(&t, &bot, None, delete_call()).await;
    let mut hooked = delete_call();
    hooked["source"] = json!("claude-code");
    hooked["tool"] = json!("Bash");
    hooked["args"] = json!({ "command": "make deploy" });
    submit(&t, &bot, None, hooked).await;

    let (_, all) = t.get("/api/queue").await;
    let sources: Vec<&str> = all["items"].as_array().unwrap().iter().map(|i| i["source"].as_str().unwrap()).collect();
    assert_eq!(sources, ["claude-code", "http", "local"], "newest first, each marked");
    let hook_item = &all["items"][0];
    assert_eq!(hook_item["context"], json!({ "cwd": "/srv/app" }), "what the agent said around it");
    assert_eq!(all["items"][2]["context"], Value::Null, "an engine's call has none");
    for (source, expected) in
        [("claude-code", vec!["Bash"]), ("http", vec!["delete_record"]), ("local", vec!["delete_record"]), ("mastra", vec![])]
    {
        let (status, page) = t.get(&format!("/api/queue?source={source}")).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        let tools: Vec<&str> = page["items"].as_array().unwrap().iter().map(|i| i["toolName"].as_str().unwrap()).collect();
        assert_eq!(tools, expected, "source={source}");
        let (_, counts) = t.get(&format!("/api/queue/counts?source={source}")).await;
        assert_eq!(counts["pending"], expected.len(), "counts under source={source}: {counts}");
    }
    let (status, body) = t.get("/api/queue?source=slack").await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{body}");
}

/// Issue 44, least data: the text of a submitted call's file is kept while the call waits and let go
/// as it leaves the queue, whoever ends it — an operator's decline, a grant (on the waiting call, and
/// on a call it covers as it is submitted: stored approved in the same commit), the agent's
/// withdrawal.
#[tokio::test]
async fn a_submitted_files_text_is_let_go_whoever_ends_the_call() {
    let t = spawn_app().await;
    let bot = t.token("bot", Role::Agent).await;
    let kept = || t.count("SELECT COUNT(*) FROM submissions WHERE file_text IS NOT NULL");
    let with_file = |tool: &str, order: &str| {
        json!({ "tool": tool, "args": { "order": order }, "agent": "bot",
            "context": { "cwd": "/srv/app", "file": { "path": "notes.md", "exists": true, "text": format!("NOTE-{order}\n") } } })
    };
    let id_of = |v: &Value| v["id"].as_str().unwrap().to_owned();

    let (_, declined) = submit(&t, &bot, None, with_file("archive", "a-1")).await;
    assert_eq!(kept().await, 1, "kept while it waits");
    assert_eq!(t.decline(&t.item(&id_of(&declined)).await, "no").await.0, StatusCode::OK);
    assert_eq!(kept().await, 0, "declined");

    let (_, withdrawn) = submit(&t, &bot, None, with_file("archive", "a-2")).await;
    assert_eq!(kept().await, 1);
    assert_eq!(t.call_as(&bot, Method::DELETE, &format!("/api/calls/{}", id_of(&withdrawn)), None).await.0, StatusCode::OK);
    assert_eq!(kept().await, 0, "withdrawn");

    let (_, waiting) = submit(&t, &bot, None, with_file("refund", "r-1")).await;
    let waiting = t.item(&id_of(&waiting)).await;
    let grant = json!({ "fromItem": waiting["id"], "fingerprint": waiting["fingerprint"], "scope": "agent", "conditions": [], "expiresInSecs": 3600 });
    let (status, made) = t.post("/api/grants", grant).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    assert_eq!(t.app.testing().sweep_grants().await.unwrap(), 1, "{made}");
    assert_ne!(t.item(waiting["id"].as_str().unwrap()).await["state"], "pending");
    assert_eq!(kept().await, 0, "approved by the grant while waiting");
    let (_, covered) = submit(&t, &bot, None, with_file("refund", "r-2")).await;
    assert_eq!(covered["status"]["outcome"], "approved", "{covered}");
    assert_eq!(kept().await, 0, "approved by the grant as it was submitted: never kept past the commit");
    let note = t.item(&id_of(&covered)).await["context"]["file"].clone();
    assert_eq!((note["sha256"].as_str().map(|h| h.starts_with("sha256:")), note.get("text")), (Some(true), None), "{note}");
}
