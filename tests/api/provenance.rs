//! Who asked for a call (issue 23): every call records the principal that submitted it or started
//! its run; an agent credential claims only the agent names and sources it was given (else its calls
//! carry its own name); grants bind to that principal; whoever asked for a call never counts towards
//! its quorum, and one person counts once however many credentials they hold; the local admin is
//! the OS account by user id; a session token can never be a credential.

use crate::helpers::*;
use approval_console::app::tokens::Claims;
use approval_console::domain::{ItemId, Role, Verdict};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::time::Duration;

async fn submit(t: &TestApp, token: &str, body: Value) -> (StatusCode, Value) {
    t.call_as(token, Method::POST, "/api/calls", Some(body)).await
}

/// A credential with claims; returns its token.
async fn token_with(t: &TestApp, name: &str, role: Role, claims: Claims) -> String {
    t.app.add_token_with(name, role, claims, &t.app.local_admin("test")).await.expect("add token").secret
}

fn refund(agent: &str) -> Value {
    json!({ "tool": "refund_order", "args": { "order": "o-1", "amount": 999 }, "agent": agent })
}

async fn approve_as(t: &TestApp, token: &str, item: &Value) -> (StatusCode, Value) {
    let path = format!("/api/queue/{}/approve", item["id"].as_str().unwrap());
    t.call_as(token, Method::POST, &path, Some(json!({ "fingerprint": item["fingerprint"] }))).await
}

async fn set_quorum(t: &TestApp, tool: &str, n: u32) {
    let (status, body) = t.put("/api/settings/quorum", json!({ "rules": [{ "tool": tool, "approvals": n }] })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn a_credential_without_agent_claims_submits_as_itself_whatever_agent_its_calls_name() {
    let t = spawn_app().await;
    let hook = t.token("claude-hook", Role::Agent).await;
    let (status, queued) = submit(&t, &hook, refund("billing-bot")).await;
    assert_eq!(status, StatusCode::CREATED, "{queued}");
    let item = t.item(queued["id"].as_str().unwrap()).await;
    assert_eq!(item["agentId"], "claude-hook", "a self-declared agent name is not taken: {item}");
    assert_eq!(item["requestedBy"], json!({ "name": "claude-hook", "kind": "token" }), "{item}");
    let (_, audit) = t.get("/api/audit").await;
    let paused = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "call.paused" && e["queueItemId"] == item["id"])
        .expect("call.paused audited")
        .clone();
    assert_eq!(
        (paused["details"]["submittedBy"].as_str(), paused["details"]["agentId"].as_str()),
        (Some("token:claude-hook"), Some("claude-hook"))
    );
}

#[tokio::test]
async fn a_credential_claims_only_the_agent_names_and_sources_it_was_given() {
    let t = spawn_app().await;
    let claims = Claims { person: None, agents: Some(vec!["billing-bot".into()]), sources: Some(vec!["http".into()]) };
    let billing = token_with(&t, "billing-runner", Role::Agent, claims).await;

    let (status, queued) = submit(&t, &billing, refund("billing-bot")).await;
    assert_eq!(status, StatusCode::CREATED, "{queued}");
    let item = t.item(queued["id"].as_str().unwrap()).await;
    assert_eq!((item["agentId"].as_str(), item["requestedBy"]["name"].as_str()), (Some("billing-bot"), Some("billing-runner")));

    let (status, refused) = submit(&t, &billing, refund("payroll-bot")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!(refused["code"], "claim_not_allowed");
    assert_eq!(refused["details"], json!({ "what": "agent", "claimed": "payroll-bot", "allowed": ["billing-bot"] }));

    let mut from_gate = refund("billing-bot");
    from_gate["source"] = json!("mcp");
    let (status, refused) = submit(&t, &billing, from_gate).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!((refused["code"].as_str(), refused["details"]["what"].as_str()), (Some("claim_not_allowed"), Some("source")));
    assert_eq!(t.pending().await.len(), 1, "nothing refused was queued");

    // Bad claims are refused when the credential is made.
    for bad in [
        Claims { agents: Some(vec![]), ..Claims::default() },
        Claims { sources: Some(vec!["slack".into()]), ..Claims::default() },
        Claims { person: Some("two words".into()), ..Claims::default() },
    ] {
        let e = t.app.add_token_with("bad", Role::Agent, bad.clone(), &t.app.local_admin("test")).await.err().expect("refused");
        assert_eq!(e.code(), "invalid_request", "{bad:?}: {e}");
    }
}

#[tokio::test]
async fn a_grant_for_an_agent_covers_only_the_calls_of_the_principal_it_was_made_from() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    let claims = Claims { person: None, agents: Some(vec!["billing-bot".into()]), sources: None };
    let first = token_with(&t, "billing-a", Role::Agent, claims.clone()).await;
    let second = token_with(&t, "billing-b", Role::Agent, claims).await;

    let (_, made) = submit(&t, &first, refund("billing-bot")).await;
    let from = t.item(made["id"].as_str().unwrap()).await;
    let (status, g) = t
        .post(
            "/api/grants",
            json!({ "fromItem": from["id"], "fingerprint": from["fingerprint"], "scope": "agent", "expiresInSecs": 3600, "applyToWaiting": false }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{g}");
    assert_eq!(g["grant"]["requestedBy"], "token:billing-a", "{g}");

    // Another credential claiming the same agent: not covered. The grant's own principal: covered.
    let (_, theirs) =
        submit(&t, &second, json!({ "tool": "refund_order", "args": { "order": "o-2", "amount": 1 }, "agent": "billing-bot" })).await;
    let theirs = ItemId::new(theirs["id"].as_str().unwrap());
    assert_eq!(t.app.testing().apply_grants(&theirs).await.unwrap(), None, "a claimed agent name is not the principal");
    let (_, mine) =
        submit(&t, &first, json!({ "tool": "refund_order", "args": { "order": "o-3", "amount": 1 }, "agent": "billing-bot" })).await;
    let mine = ItemId::new(mine["id"].as_str().unwrap());
    wait::eventually(Duration::from_secs(20), "the grant approved its own principal's call", || async {
        t.item(mine.as_str()).await["state"] != "pending"
    })
    .await;
    assert_eq!(t.item(theirs.as_str()).await["state"], "pending", "{}", t.item(theirs.as_str()).await);
}

#[tokio::test]
async fn c08_whoever_submitted_a_call_cannot_count_towards_its_quorum() {
    let t = spawn_app().await;
    set_quorum(&t, "refund_order", 2).await;
    let alice = t.token("alice", Role::Operator).await;
    let bob = t.token("bob", Role::Operator).await;
    let (status, queued) = submit(&t, &alice, refund("billing-bot")).await;
    assert_eq!(status, StatusCode::CREATED, "{queued}");
    let item = t.item(queued["id"].as_str().unwrap()).await;

    let (status, refused) = approve_as(&t, &alice, &item).await;
    assert_eq!((status, refused["code"].as_str()), (StatusCode::FORBIDDEN, Some("own_run")), "{refused}");
    assert_eq!(refused["details"]["startedBy"], "token:alice");
    // Nor through another credential of the same person.
    let alice_phone = token_with(&t, "alice-phone", Role::Operator, Claims { person: Some("alice".into()), ..Claims::default() }).await;
    let (status, refused) = approve_as(&t, &alice_phone, &item).await;
    assert_eq!((status, refused["code"].as_str()), (StatusCode::FORBIDDEN, Some("own_run")), "{refused}");

    let (status, first) = approve_as(&t, &bob, &item).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{first}");
    assert_eq!(first["approvals"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn c08_one_person_counts_once_in_a_quorum_however_many_credentials_they_hold() {
    let t = spawn_app().await;
    set_quorum(&t, "delete_record", 3).await;
    let bot = t.token("bot", Role::Agent).await;
    let laptop = token_with(&t, "carol-laptop", Role::Operator, Claims { person: Some("carol".into()), ..Claims::default() }).await;
    let phone = token_with(&t, "carol-phone", Role::Operator, Claims { person: Some("carol".into()), ..Claims::default() }).await;
    // An operator token named like the local admin's OS account is that person too.
    let admin_too = t.token(t.app.operator(), Role::Operator).await;

    let item = t.paused_by(&bot, "delete rec-1").await;
    assert_eq!(item["requestedBy"], json!({ "name": "bot", "kind": "token" }), "the run's starter: {item}");

    let (status, first) = approve_as(&t, &laptop, &item).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{first}");
    let (status, again) = approve_as(&t, &phone, &item).await;
    assert_eq!((status, again["code"].as_str()), (StatusCode::CONFLICT, Some("already_approved")), "{again}");
    assert_eq!(t.counters.deletes(), 0, "one person's two credentials are one approval");

    // An operator token named like the local admin approves: a second person. The local admin
    // itself (the CLI, the window) is then the same person again, and is refused.
    let (status, second) = approve_as(&t, &admin_too, &item).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{second}");
    let local = t.app.local_admin::<approval_console::domain::grade::Local>("cli");
    let e = t
        .app
        .decide_shown(item["id"].as_str().unwrap(), Verdict::Approve, item["fingerprint"].as_str().unwrap(), &local.narrow())
        .await
        .expect_err("the local admin and its own operator token are one person");
    assert_eq!(e.code(), "already_approved", "{e}");
    assert_eq!(t.counters.deletes(), 0);
}

#[test]
fn the_cli_acts_as_the_os_account_whatever_user_says() {
    let dir = tempfile::tempdir().unwrap();
    let run = |user: &str, args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
            .arg("--data-dir")
            .arg(dir.path())
            .args(args)
            .env("USER", user)
            .env("LOGNAME", user)
            .env("APPROVAL_CONSOLE_LOG", "warn")
            .env_remove("APPROVAL_CONSOLE_DATABASE_URL")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let out = run("mallory-1", &["tokens", "add", "probe", "--role", "agent"]);
    assert!(out.status.success(), "{}", text_of(&out));
    let audit = run("mallory-2", &["audit", "list", "--limit", "1"]);
    let text = text_of(&audit);
    assert!(!text.contains("mallory-1"), "the audit names the OS account, not $USER: {text}");
    assert!(text.contains(&approval_console::app::account::os_account()), "{text}");
}

#[tokio::test]
async fn serve_refuses_a_session_token_that_is_a_credential_of_any_role() {
    let t = spawn_app().await;
    let agent = t.token("hook", Role::Agent).await;
    let revoked = t.token("old", Role::Operator).await;
    t.app.revoke_token("old", &t.app.local_admin("test")).await.unwrap();
    let dir = t.dir.clone();
    for (token, says) in [
        (agent.as_str(), "credential \"hook\""),
        (revoked.as_str(), "revoked credential \"old\""),
        ("ac_0123456789abcdef", "form of a stored credential"),
    ] {
        let e = t.app.check_session_token(token).await.expect_err("refused");
        assert!(e.to_string().contains(says), "{e}");
        assert!(!e.to_string().contains(token), "the error never prints the token: {e}");
        // The real `serve`, given it by the variable the connectors once shared: it stops at once.
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
            .arg("--data-dir")
            .arg(&dir)
            .args(["serve", "--port", "0"])
            .envs(serve_process::database_env(&dir))
            .env("APPROVAL_CONSOLE_TOKEN", token)
            .env("APPROVAL_CONSOLE_LOG", "warn")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let status = tokio::time::timeout(Duration::from_secs(60), child.wait()).await.expect("serve stopped").unwrap();
        let out = child.wait_with_output().await.unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(!status.success(), "{text}");
        assert!(text.contains("session token") && !text.contains("Open:"), "{text}");
    }
    assert!(t.app.check_session_token("a-long-random-session-token").await.is_ok());
}

#[tokio::test]
async fn c08_approvals_at_the_same_moment_count_each_other_and_one_person_still_counts_once() {
    let t = spawn_app().await;
    set_quorum(&t, "delete_record", 2).await;
    let bot = t.token("bot", Role::Agent).await;
    let (a, b) = (t.token("operator-a", Role::Operator).await, t.token("operator-b", Role::Operator).await);
    let laptop = token_with(&t, "dana-laptop", Role::Operator, Claims { person: Some("dana".into()), ..Claims::default() }).await;
    let phone = token_with(&t, "dana-phone", Role::Operator, Claims { person: Some("dana".into()), ..Claims::default() }).await;
    let mut items = Vec::new();
    for n in 0..16 {
        items.push(t.paused_by(&bot, &format!("delete rec-{n}")).await);
    }
    let (people, one_person) = items.split_at(8);
    // Two people approving each call at once: one approval is recorded, the other sees it and is the
    // decision — never two recorded approvals and a call left waiting.
    let races = people.iter().map(|item| {
        let (t, a, b) = (&t, &a, &b);
        async move { (item["id"].as_str().unwrap().to_owned(), tokio::join!(approve_as(t, a, item), approve_as(t, b, item))) }
    });
    let raced = futures::future::join_all(races).await;
    // Each decision is answered once committed; its delivery follows (issue 46).
    t.settle().await;
    for (id, ((first, first_body), (second, second_body))) in raced {
        let mut statuses = [first, second];
        statuses.sort();
        assert_eq!(statuses, [StatusCode::OK, StatusCode::ACCEPTED], "{id}: {first_body} / {second_body}");
        assert_eq!(t.actions_of(&id).await, ["call.paused", "approval.recorded", "decision.approve", "delivery.delivered"], "{id}");
    }
    assert_eq!(t.counters.deletes(), 8, "each call ran once");
    // One person through two credentials at once: one approval, the other refused; nothing runs.
    let races = one_person.iter().map(|item| {
        let (t, laptop, phone) = (&t, &laptop, &phone);
        async move { (item.clone(), tokio::join!(approve_as(t, laptop, item), approve_as(t, phone, item))) }
    });
    for (item, ((first, first_body), (second, second_body))) in futures::future::join_all(races).await {
        let id = item["id"].as_str().unwrap();
        let codes = [first_body["code"].as_str(), second_body["code"].as_str()];
        assert!(
            (first, second) == (StatusCode::ACCEPTED, StatusCode::CONFLICT)
                || (first, second) == (StatusCode::CONFLICT, StatusCode::ACCEPTED),
            "{id}: {first_body} / {second_body}"
        );
        assert!(codes.contains(&Some("already_approved")), "{id}: {codes:?}");
        let now = t.item(id).await;
        assert_eq!((now["state"].as_str(), now["approvals"].as_array().unwrap().len()), (Some("pending"), 1), "{now}");
    }
    assert_eq!(t.counters.deletes(), 8, "one person's approvals ran nothing");
}
