//! Credentials with roles (issue 12): an agent can start runs but never decide; an operator decides;
//! only an admin changes grants, settings and engines. Every route checks the role.

use crate::helpers::*;
use approval_console::api::guard::roles;
use approval_console::domain::Role;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

fn delete(text: &str) -> Value {
    json!({ "messages": [{ "role": "user", "content": text }] })
}

/// Every route of the OpenAPI document and of the Mastra-shaped API, with a concrete path.
fn concrete(route: &str) -> String {
    route.replace("{id}", "q_none").replace("{agent}", "demo").replace("{name}", "prod")
}

#[tokio::test]
async fn agent_token_cannot_approve() {
    let t = spawn_app().await;
    let agent = t.token("support-bot", Role::Agent).await;
    let (status, answer) = t.call_as(&agent, Method::POST, "/api/agents/demo/generate", Some(delete("delete rec-1"))).await;
    assert_eq!(status, StatusCode::OK, "an agent starts runs: {answer}");
    let run = answer["runId"].as_str().unwrap().to_owned();
    let item = t.pending().await.remove(0);
    let id = item["id"].as_str().unwrap();
    let call = item["toolCallId"].as_str().unwrap();
    let ids = json!({ "runId": run, "toolCallId": call });
    for (path, body) in [
        (format!("/api/queue/{id}/approve"), json!({ "fingerprint": item["fingerprint"] })),
        (format!("/api/queue/{id}/approve-edited"), json!({ "fingerprint": item["fingerprint"], "args": { "id": "rec-2" } })),
        (format!("/api/queue/{id}/decline"), json!({ "fingerprint": item["fingerprint"] })),
        ("/api/agents/demo/approve-tool-call-generate".into(), ids.clone()),
        ("/api/agents/demo/approve-tool-call".into(), ids.clone()),
        ("/api/agents/no-such-agent/approve-tool-call-generate".into(), ids.clone()),
        ("/api/agents/demo/resume-stream".into(), json!({ "runId": run, "resumeData": { "approved": true } })),
        ("/api/agents/demo/send-tool-approval".into(), json!({ "threadId": "t", "resourceId": "r", "approved": true })),
        ("/api/grants".into(), json!({ "fromItem": id, "fingerprint": item["fingerprint"], "scope": "agent", "expiresInSecs": 3600 })),
    ] {
        let (status, body) = t.call_as(&agent, Method::POST, &path, Some(body)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {body}");
        assert_eq!(body["code"], "forbidden", "{path}: {body}");
    }
    let (status, _) =
        t.call_as(&agent, Method::PUT, "/api/settings/notifications", Some(json!({ "enabled": true, "highRiskTools": [] }))).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "the high-risk list cannot be emptied by an agent");
    for path in ["/api/queue", "/api/events", "/api/audit", "/api/grants"] {
        let (status, _) = t.call_as(&agent, Method::GET, path, None).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: the console API is not an agent's");
    }
    assert_eq!(t.counters.deletes(), 0, "nothing ran");
    assert_eq!(t.item(id).await["state"], "pending");
    assert_eq!(t.count("SELECT COUNT(*) FROM grants").await, 0);
    assert_eq!(t.count("SELECT COUNT(*) FROM decisions").await, 0);
    // The session's view: who started it is on record.
    let paused = t.count(&format!(r#"SELECT COUNT(*) FROM audit_log WHERE action = 'call.paused' AND details LIKE '%"startedBy":"token:support-bot"%' AND queue_item_id = '{id}'"#)).await;
    assert_eq!(paused, 1);
}

#[tokio::test]
async fn an_operator_token_decides_and_the_audit_names_it_but_it_cannot_change_grants_settings_or_engines() {
    let t = spawn_app().await;
    let operator = t.token("alice", Role::Operator).await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let id = item["id"].as_str().unwrap();
    let (status, body) = t
        .call_as(
            &operator,
            Method::POST,
            "/api/grants",
            Some(json!({ "fromItem": id, "fingerprint": item["fingerprint"], "scope": "agent", "expiresInSecs": 3600 })),
        )
        .await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("forbidden")), "{body}");
    assert_eq!(body["details"], json!({ "needed": "admin", "role": "operator" }));
    for (method, path, body) in [
        (Method::PUT, "/api/settings/notifications", json!({ "enabled": true })),
        (Method::PUT, "/api/settings/expiry", json!({ "rules": [] })),
        (Method::POST, "/api/engines", json!({ "name": "prod", "baseUrl": "http://127.0.0.1:9" })),
        (Method::POST, "/api/engines/test", json!({ "baseUrl": "http://127.0.0.1:9" })),
    ] {
        let (status, answer) = t.call_as(&operator, method, path, Some(body)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {answer}");
    }
    assert_eq!(t.count("SELECT COUNT(*) FROM engines").await, 0);
    let path = format!("/api/queue/{id}/approve");
    let (status, decided) =
        t.delivered(t.call_as(&operator, Method::POST, &path, Some(json!({ "fingerprint": item["fingerprint"] }))).await).await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    assert_eq!(decided["decision"]["operator"], "alice (web)");
    assert_eq!(t.counters.deletes(), 1);
    let actor = t
        .count(&format!(
            "SELECT COUNT(*) FROM audit_log WHERE action = 'decision.approve' AND actor = 'alice (web)' AND queue_item_id = '{id}'"
        ))
        .await;
    assert_eq!(actor, 1, "the decision is audited under the credential's name");
    let (status, me) = t.call_as(&operator, Method::GET, "/api/session", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me, json!({ "name": "alice", "role": "operator", "kind": "token" }));
    let (_, me) = t.get("/api/session").await;
    assert_eq!(me["role"], "admin", "the session token is the local admin's: {me}");
    assert_eq!(me["kind"], "local");
}

#[tokio::test]
async fn an_agent_lists_only_the_suspended_runs_it_started() {
    let t = spawn_app().await;
    let (a, b) = (t.token("bot-a", Role::Agent).await, t.token("bot-b", Role::Agent).await);
    let (_, run_a) = t.call_as(&a, Method::POST, "/api/agents/demo/generate", Some(delete("delete rec-a"))).await;
    let (_, run_b) = t.call_as(&b, Method::POST, "/api/agents/demo/generate", Some(delete("delete rec-b"))).await;
    let runs_of = |v: &Value| v["runs"].as_array().unwrap().iter().map(|r| r["runId"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
    let (status, listed) = t.call_as(&a, Method::GET, "/api/agents/demo/suspended-runs", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(runs_of(&listed), vec![run_a["runId"].as_str().unwrap().to_owned()]);
    assert_eq!(listed["total"], 1);
    let (_, listed) = t.call_as(&b, Method::GET, "/api/agents/demo/suspended-runs", None).await;
    assert_eq!(runs_of(&listed), vec![run_b["runId"].as_str().unwrap().to_owned()]);
    let (_, all) = t.get("/api/agents/demo/suspended-runs").await;
    assert_eq!(runs_of(&all).len(), 2, "an operator sees every run");
}

#[tokio::test]
async fn mastra_routes_refuse_a_call_of_another_agent_and_a_high_risk_approval() {
    let t = spawn_app().await;
    let operator = t.token("approver-app", Role::Operator).await;
    let answer = t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let ids = json!({ "runId": answer["runId"], "toolCallId": item["toolCallId"] });
    let (status, body) =
        t.call_as(&operator, Method::POST, "/api/agents/no-such-agent/approve-tool-call-generate", Some(ids.clone())).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("not_found")),
        "the agent in the path must be the call's: {body}"
    );

    let (status, _) = t.put("/api/settings/notifications", json!({ "enabled": true, "highRiskTools": ["delete_record"] })).await;
    assert_eq!(status, StatusCode::OK);
    for path in ["/api/agents/demo/approve-tool-call-generate", "/api/agents/demo/approve-tool-call"] {
        let (status, body) = t.call_as(&operator, Method::POST, path, Some(ids.clone())).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("high_risk_tool")), "{path}: {body}");
    }
    let (status, body) = t
        .call_as(
            &operator,
            Method::POST,
            "/api/agents/demo/resume-stream",
            Some(json!({ "runId": answer["runId"], "resumeData": { "approved": true } })),
        )
        .await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("high_risk_tool")), "{body}");
    assert_eq!(t.counters.deletes(), 0);
    assert_eq!(t.item(item["id"].as_str().unwrap()).await["state"], "pending");
    let (status, body) = t.call_as(&operator, Method::POST, "/api/agents/demo/decline-tool-call-generate", Some(ids)).await;
    assert_eq!(status, StatusCode::OK, "declining a high-risk call is fine: {body}");
    assert_eq!(t.item(item["id"].as_str().unwrap()).await["decision"]["operator"], "approver-app (mastra-api)");
}

#[tokio::test]
async fn every_route_refuses_a_role_below_or_beside_its_own_and_changes_nothing() {
    let t = spawn_app().await;
    let agent = t.token("a", Role::Agent).await;
    let viewer = t.token("v", Role::Viewer).await;
    let operator = t.token("o", Role::Operator).await;
    // What each role may, written out here rather than asked of `Role::includes` (the thing tested):
    // an operator an agent's and a viewer's routes; an agent and a viewer only their own.
    let may = |role: Role, needed: Role| match role {
        Role::Agent => needed == Role::Agent,
        Role::Viewer => needed == Role::Viewer,
        Role::Operator => needed != Role::Admin,
        Role::Admin => true,
    };
    let mut checked = 0;
    for (method, route, needed) in roles() {
        let Some(needed) = needed else { continue };
        for (token, role) in [(&agent, Role::Agent), (&viewer, Role::Viewer), (&operator, Role::Operator)] {
            if may(role, needed) {
                continue;
            }
            let body = (method != Method::GET).then(|| json!({}));
            let (status, answer) = t.call_as(token, method.clone(), &concrete(route), body).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{method} {route} as {role}: {answer}");
            assert_eq!(answer["code"], "forbidden", "{method} {route} as {role}");
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} refusals checked");
    assert_eq!(t.count("SELECT COUNT(*) FROM queue_items").await, 0);
    assert_eq!(t.count("SELECT COUNT(*) FROM engines").await, 0);
    assert_eq!(t.count("SELECT COUNT(*) FROM settings").await, 0);
}

#[tokio::test]
async fn every_route_of_the_api_is_in_the_role_table() {
    let t = spawn_app().await;
    let (_, doc) = t.get("/api/openapi.json").await;
    let mut missing = vec![];
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for method in ops.as_object().unwrap().keys() {
            let m = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            if approval_console::api::guard::required_role(&m, path).is_none() {
                missing.push(format!("{method} {path}"));
            }
        }
    }
    assert!(missing.is_empty(), "routes without a role: {missing:?}");
    // The Mastra-shaped routes are not in the document: every one of them answers, with a role.
    for (method, route, _) in roles().into_iter().filter(|(_, r, _)| r.starts_with("/api/agents")) {
        let (status, _) = t.call_as(TOKEN, method.clone(), &concrete(route), (method != Method::GET).then(|| json!({}))).await;
        assert_ne!(status, StatusCode::FORBIDDEN, "{method} {route} is routed and allowed for the admin");
    }
}

#[tokio::test]
async fn a_revoked_token_stops_working_at_once_and_a_changed_byte_never_works() {
    let t = spawn_app().await;
    let token = t.token("ci", Role::Operator).await;
    assert_eq!(t.call_as(&token, Method::GET, "/api/queue", None).await.0, StatusCode::OK);
    let mut bytes = token.clone().into_bytes();
    let last = bytes.len() - 1;
    bytes[last] = if bytes[last] == b'0' { b'1' } else { b'0' };
    let changed = String::from_utf8(bytes).unwrap();
    assert_eq!(t.call_as(&changed, Method::GET, "/api/queue", None).await.0, StatusCode::UNAUTHORIZED);
    t.app.revoke_token("ci", &t.app.local_admin("test")).await.unwrap();
    let (status, body) = t.call_as(&token, Method::GET, "/api/queue", None).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("unauthorized")));
    let stored: i64 = t.count(&format!("SELECT COUNT(*) FROM credentials WHERE secret_hash LIKE '%{}%'", &token[3..])).await;
    assert_eq!(stored, 0, "the token itself is not in the database");
    let audited = t.count("SELECT COUNT(*) FROM audit_log WHERE action IN ('credential.created', 'credential.revoked')").await;
    assert_eq!(audited, 2);
}

#[tokio::test]
async fn a_session_token_with_one_byte_changed_or_two_changes_that_cancel_is_refused() {
    let t = spawn_app().await;
    let good = TOKEN.as_bytes().to_vec();
    let mut variants = vec![];
    for i in [0, good.len() / 2, good.len() - 1] {
        let mut one = good.clone();
        one[i] ^= 0x01;
        variants.push(one);
    }
    // Differences that cancel: +1 and -1 on neighbouring bytes, and two bytes swapped.
    let mut cancel = good.clone();
    cancel[5] += 1;
    cancel[6] -= 1;
    variants.push(cancel);
    let mut swapped = good.clone();
    swapped.swap(0, 1);
    variants.push(swapped);
    for v in variants {
        let token = String::from_utf8(v).unwrap();
        assert_ne!(token, TOKEN);
        let (status, _) = t.call_as(&token, Method::GET, "/api/queue", None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{token:?}");
    }
    assert_eq!(t.call_as(TOKEN, Method::GET, "/api/queue", None).await.0, StatusCode::OK);
}

#[tokio::test]
async fn a_host_header_with_a_malformed_port_is_refused() {
    let t = spawn_app().await;
    for host in ["localhost:abc", "localhost:", "127.0.0.1:99999", "localhost:80:80", "[::1]x", "localhost:+1"] {
        let r = t.http.get(format!("{}/api/queue", t.base)).bearer_auth(TOKEN).header("host", host).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{host}");
    }
}

#[tokio::test]
async fn the_high_risk_tools_are_safety_settings_of_their_own_that_only_an_admin_changes() {
    let t = spawn_app().await;
    let operator = t.token("o", Role::Operator).await;
    let (status, safety) = t.get("/api/settings/safety").await;
    assert_eq!((status, safety), (StatusCode::OK, json!({ "highRiskTools": [] })));
    let (status, _) = t.call_as(&operator, Method::PUT, "/api/settings/safety", Some(json!({ "highRiskTools": [] }))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = t.put("/api/settings/safety", json!({ "highRiskTools": ["delete_record"] })).await;
    assert_eq!(status, StatusCode::OK);
    // The notification form shows (and saves) them too, from the same place.
    let (_, notifications) = t.get("/api/settings/notifications").await;
    assert_eq!(notifications["highRiskTools"], json!(["delete_record"]));
    let body = json!({ "enabled": false, "highRiskTools": ["transfer"], "confirmWidening": true });
    let (status, _) = t.put("/api/settings/notifications", body).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(t.get("/api/settings/safety").await.1, json!({ "highRiskTools": ["transfer"] }));
    let stored = approval_console::store::testing::setting_text(t.app.testing().db(), "notifications").await.unwrap().expect("stored");
    assert!(!stored.contains("transfer"), "kept once, in the safety settings: {stored}");
}

#[tokio::test]
async fn a_viewer_reads_the_metrics_the_team_figures_and_its_session_and_nothing_else() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let id = item["id"].as_str().unwrap();
    // Made as docs/reference/tokens.md says, by the CLI.
    let dir = t.dir.clone();
    let out = tokio::task::spawn_blocking(move || cli(&dir, &["tokens", "add", "grafana", "--role", "viewer"])).await.unwrap();
    assert!(out.status.success(), "{}", text_of(&out));
    let viewer = String::from_utf8(out.stdout).unwrap().lines().last().unwrap().trim().to_owned();

    let (status, metrics) = t.call_as(&viewer, Method::GET, "/api/metrics", None).await;
    assert_eq!(status, StatusCode::OK, "{metrics}");
    assert!(metrics.as_str().unwrap().contains("approval_console_"), "Prometheus text: {metrics}");
    let (status, stats) = t.call_as(&viewer, Method::GET, "/api/stats?days=7", None).await;
    assert_eq!(status, StatusCode::OK, "{stats}");
    let (status, me) = t.call_as(&viewer, Method::GET, "/api/session", None).await;
    assert_eq!((status, me), (StatusCode::OK, json!({ "name": "grafana", "role": "viewer", "kind": "token" })));

    let ids = json!({ "runId": "r", "toolCallId": "c" });
    for (method, path, body) in [
        (Method::GET, "/api/queue".to_owned(), None),
        (Method::GET, format!("/api/queue/{id}"), None),
        (Method::GET, "/api/events".to_owned(), None),
        (Method::GET, "/api/audit".to_owned(), None),
        (Method::GET, "/api/grants".to_owned(), None),
        (Method::GET, "/api/engines".to_owned(), None),
        (Method::GET, "/api/agents".to_owned(), None),
        (Method::GET, "/api/agents/demo/suspended-runs".to_owned(), None),
        (Method::POST, format!("/api/queue/{id}/approve"), Some(json!({ "fingerprint": item["fingerprint"] }))),
        (Method::POST, format!("/api/queue/{id}/decline"), Some(json!({ "fingerprint": item["fingerprint"] }))),
        (Method::POST, "/api/agents/demo/approve-tool-call".to_owned(), Some(ids)),
        (Method::POST, "/api/agents/demo/generate".to_owned(), Some(delete("delete rec-2"))),
        (Method::POST, "/api/calls".to_owned(), Some(json!({ "toolName": "rm", "args": {} }))),
        (Method::GET, "/api/calls/x".to_owned(), None),
    ] {
        let (status, answer) = t.call_as(&viewer, method.clone(), &path, body).await;
        assert_eq!((status, answer["code"].as_str()), (StatusCode::FORBIDDEN, Some("forbidden")), "{method} {path}: {answer}");
    }
    assert_eq!(t.item(id).await["state"], "pending");
    assert_eq!(t.count("SELECT COUNT(*) FROM queue_items").await, 1, "no run started, no call submitted");

    // The metrics no longer need a credential that can approve; an agent's still cannot read them.
    let operator = t.token("olga", Role::Operator).await;
    assert_eq!(t.call_as(&operator, Method::GET, "/api/metrics", None).await.0, StatusCode::OK);
    let agent = t.token("bot", Role::Agent).await;
    for path in ["/api/metrics", "/api/stats"] {
        let (status, body) = t.call_as(&agent, Method::GET, path, None).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {body}");
        assert_eq!(body["details"], json!({ "needed": "viewer", "role": "agent" }));
    }
}

#[tokio::test]
async fn an_open_event_stream_ends_when_its_credential_is_revoked() {
    use futures::StreamExt;
    let t = spawn_app().await;
    let token = t.token("watcher", Role::Operator).await;
    let r = t.http.get(format!("{}/api/events", t.base)).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let mut stream = r.bytes_stream();
    let mut text = String::new();
    read_until(&mut stream, &mut text, "event: ready").await;
    // Still open and told of changes while the credential holds.
    t.generate("delete rec-1").await;
    read_until(&mut stream, &mut text, r#""type":"added""#).await;

    t.app.revoke_token("watcher", &t.app.local_admin("test")).await.unwrap();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match tokio::time::timeout_at(deadline, stream.next()).await {
            Err(_) => panic!("the stream of a revoked credential is still open; it got {text}"),
            Ok(None) | Ok(Some(Err(_))) => break,
            Ok(Some(Ok(chunk))) => text.push_str(&String::from_utf8_lossy(&chunk)),
        }
    }
    // The session token's stream is not affected by it.
    let r = t.http.get(format!("{}/api/events", t.base)).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

/// The core checks reads too, from the catalog (`domain::authority::admit`), not only the HTTP guard:
/// an `App` method takes a context typed by its operation's grade (`Cx<Watch>`, `Cx<Operator>`), which
/// only an admission gives — so a caller reaching the core directly, as the window or the CLI does,
/// with an agent's or a viewer's principal is refused `forbidden` for every read of the queue, the
/// audit log, grants, settings and engines, and cannot call the method at all without it (it does not
/// compile); an operator's passes and the method answers.
#[tokio::test]
async fn the_core_refuses_a_read_to_a_role_the_catalog_does_not_give_it_whichever_shell_calls() {
    use approval_console::domain::authority::admit;
    use approval_console::domain::{grade, Actor, Error, Op, Principal};
    let t = spawn_app().await;
    let app = &t.app;
    let reads = [
        Op::QueuePage,
        Op::QueueCounts,
        Op::QueueItem,
        Op::PreviousCall,
        Op::AuditPage,
        Op::VerifyAudit,
        Op::DecisionHistory,
        Op::ExportAudit,
        Op::Grants,
        Op::Engines,
        Op::EngineAgents,
        Op::ExpirySettings,
        Op::SafetySettings,
        Op::QuorumSettings,
        Op::NotificationSettings,
        Op::NotificationStatus,
    ];
    for role in [Role::Agent, Role::Viewer] {
        for op in reads {
            let answer = admit(op, Actor::new(Principal::token("someone", role), "desktop")).err();
            assert!(matches!(answer, Some(Error::Forbidden { .. })), "{op:?} as {role}: {answer:?}");
        }
    }
    let operator = || Actor::new(Principal::token("alice", Role::Operator), "desktop");
    let watch = admit(Op::QueuePage, operator()).unwrap().cx::<grade::Watch>().unwrap();
    assert!(app.queue_page(&Default::default(), &watch).await.is_ok());
    assert!(app.verify_audit(&watch).await.is_ok());
    let operate = admit(Op::Grants, operator()).unwrap().cx::<grade::Operator>().unwrap();
    assert!(app.grants(&operate).await.is_ok());
    assert!(app.quorum_settings(&operate).await.is_ok());
}

/// Every operation declared in the core (`app::ops`) is refused `forbidden` by its one wrapper to a
/// role the catalog does not give it, as the window calls it (`operation::call_window`), before its
/// arguments are read (they are wrong for every operation here: without the check the answer would
/// be `invalid_request`), and nothing changes.
#[tokio::test]
async fn the_operations_wrapper_refuses_every_declared_operation_to_a_role_below_or_beside_its_own() {
    use approval_console::app::operation::{self, Operation, Visitor};
    use approval_console::domain::ops::Access;
    use approval_console::domain::{Actor, Error, Op, Principal};
    type Run = fn(approval_console::app::App, Value, Actor) -> futures::future::BoxFuture<'static, Result<Value, Error>>;
    struct Declared(Vec<(Op, Run)>);
    impl Visitor for Declared {
        fn visit<O: Operation>(&mut self) {
            fn boxed<O: Operation>(
                app: approval_console::app::App,
                args: Value,
                by: Actor,
            ) -> futures::future::BoxFuture<'static, Result<Value, Error>> {
                Box::pin(async move { operation::call_window::<O>(&app, args, &by).await })
            }
            self.0.push((O::OP, boxed::<O>));
        }
    }
    let t = spawn_app().await;
    let mut declared = Declared(vec![]);
    operation::each(&mut declared);
    let mut refused = 0;
    for (op, run) in declared.0 {
        let Access::Role(needed) = op.access() else { continue };
        for role in [Role::Agent, Role::Viewer, Role::Operator] {
            if role.includes(needed) {
                continue;
            }
            let by = Actor::new(Principal::token("someone", role), "desktop");
            let answer = run(t.app.clone(), json!("not the arguments of any operation"), by).await;
            assert!(matches!(answer, Err(Error::Forbidden { .. })), "{} as {role}: {answer:?}", op.name());
            refused += 1;
        }
    }
    assert!(refused > 60, "{refused} refused");
    assert_eq!(t.count("SELECT COUNT(*) FROM engines").await, 0);
    assert_eq!(t.count("SELECT COUNT(*) FROM settings").await, 0);
}

/// The wrapper every shell goes through (`operation::call`, which the HTTP handler calls after the
/// route's guard) refuses a role the catalog does not give, on its own: called directly, without the
/// HTTP guard or the window's arguments.
#[tokio::test]
async fn the_operations_wrapper_checks_the_role_itself() {
    use approval_console::app::operation::{self, Id, Nothing};
    use approval_console::app::ops::{engines, queue};
    use approval_console::domain::{Actor, Error, Principal};
    let t = spawn_app().await;
    let agent = Actor::new(Principal::token("bot", Role::Agent), "web");
    let answer = operation::call::<queue::op::QueueItem>(&t.app, Id { id: "q_none".into() }, Nothing, &agent).await;
    assert!(matches!(answer, Err(Error::Forbidden { .. })), "{:?}", answer.err());
    let answer = operation::call::<engines::op::EngineKinds>(&t.app, Nothing, Nothing, &agent).await;
    assert!(matches!(answer, Err(Error::Forbidden { .. })), "{:?}", answer.err());
    let operator = Actor::new(Principal::token("alice", Role::Operator), "web");
    let kinds = operation::call::<engines::op::EngineKinds>(&t.app, Nothing, Nothing, &operator).await.unwrap();
    assert_eq!(kinds.body.len(), approval_console::engine::kinds::remote_kinds().count(), "every remote kind");
}

#[tokio::test]
async fn an_admin_makes_lists_and_revokes_tokens_over_the_api_and_the_token_is_shown_once() {
    let t = spawn_app().await;
    let r = t
        .http
        .post(format!("{}/api/tokens", t.base))
        .bearer_auth(TOKEN)
        .json(&json!({ "name": "ci-bot", "role": "agent", "agents": ["support-bot"], "sources": ["http"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    assert_eq!(r.headers()["cache-control"], "no-store", "the one answer holding the token is not cached");
    let made: Value = r.json().await.unwrap();
    let secret = made["token"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("ac_") && secret.len() == 67, "{made}");
    assert_eq!(made["credential"]["name"], "ci-bot");
    assert_eq!(made["credential"]["role"], "agent");
    assert_eq!(made["credential"]["agents"], json!(["support-bot"]));
    // The token works at once, with its role: an agent starts runs and may not list tokens.
    let (status, _) = t.call_as(&secret, Method::POST, "/api/agents/demo/generate", Some(delete("look up rec-1"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(t.call_as(&secret, Method::GET, "/api/tokens", None).await.0, StatusCode::FORBIDDEN);
    // Listed without the token; the database and the audit log hold no trace of it.
    let (status, list) = t.get("/api/tokens").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert!(!list.to_string().contains(&secret[3..]), "the list never answers a token: {list}");
    assert_eq!(t.count(&format!("SELECT COUNT(*) FROM credentials WHERE secret_hash LIKE '%{}%'", &secret[3..])).await, 0);
    assert_eq!(t.count(&format!("SELECT COUNT(*) FROM audit_log WHERE details LIKE '%{}%'", &secret[3..])).await, 0);
    assert_eq!(t.count("SELECT COUNT(*) FROM audit_log WHERE action = 'credential.created'").await, 1);
    // A second live credential of the name, a bad name, an unknown source: refused, nothing made.
    for body in [
        json!({ "name": "ci-bot", "role": "operator" }),
        json!({ "name": "-x", "role": "operator" }),
        json!({ "name": "x", "role": "operator", "sources": ["carrier-pigeon"] }),
        json!({ "name": "x", "role": "root" }),
        json!({ "name": "x", "role": "operator", "token": "ac_mine" }),
    ] {
        let (status, answer) = t.post("/api/tokens", body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
    }
    assert_eq!(t.count("SELECT COUNT(*) FROM credentials").await, 1);
    // An operator may not make, list or revoke tokens.
    let operator = t.token("alice", Role::Operator).await;
    for (method, path, body) in [
        (Method::GET, "/api/tokens", None),
        (Method::POST, "/api/tokens", Some(json!({ "name": "mine", "role": "admin" }))),
        (Method::DELETE, "/api/tokens/ci-bot", None),
    ] {
        let (status, answer) = t.call_as(&operator, method, path, body).await;
        assert_eq!((status, answer["code"].as_str()), (StatusCode::FORBIDDEN, Some("forbidden")), "{path}: {answer}");
    }
    assert_eq!(t.count("SELECT COUNT(*) FROM credentials WHERE revoked_at IS NULL").await, 2);
    // Revoked: the token stops working; a second revoke finds nothing.
    let r = t.http.delete(format!("{}/api/tokens/ci-bot", t.base)).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.json::<Value>().await.unwrap(), json!({ "name": "ci-bot", "role": "agent" }));
    assert_eq!(t.call_as(&secret, Method::POST, "/api/agents/demo/generate", Some(delete("x"))).await.0, StatusCode::UNAUTHORIZED);
    let r = t.http.delete(format!("{}/api/tokens/ci-bot", t.base)).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(t.count("SELECT COUNT(*) FROM audit_log WHERE action = 'credential.revoked'").await, 1);
}
