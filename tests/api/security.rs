//! Every /api route needs the token; Host and Origin are checked; the UI is served with a strict CSP.

use crate::helpers::*;
use reqwest::StatusCode;
use serde_json::Value;

#[tokio::test]
async fn every_api_route_but_health_needs_the_bearer_token() {
    let t = spawn_app().await;
    for path in ["/api/queue", "/api/events", "/api/audit", "/api/audit/verify", "/api/openapi.json", "/api/agents", "/api/queue/x"] {
        let r = t.http.get(format!("{}{path}", t.base)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{path} without a token");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["code"], "unauthorized");
        let r = t.http.get(format!("{}{path}", t.base)).bearer_auth("wrong").send().await.unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{path} with a wrong token");
    }
    let r = t
        .http
        .post(format!("{}/api/agents/demo/generate", t.base))
        .json(&serde_json::json!({"messages": "delete x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let r = t.http.get(format!("{}/api/queue?token={TOKEN}", t.base)).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "a token in the query string is not accepted");
    let r = t.http.get(format!("{}/api/health", t.base)).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(t.pending().await.is_empty(), "the refused generate queued nothing");
}

#[tokio::test]
async fn a_foreign_host_header_is_refused_against_dns_rebinding() {
    let t = spawn_app().await;
    for host in ["evil.example", "evil.example:80", "127.0.0.1.nip.io"] {
        let r = t.http.get(format!("{}/api/queue", t.base)).bearer_auth(TOKEN).header("host", host).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{host}");
        let r = t.http.get(format!("{}/", t.base)).header("host", host).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "the UI too, for {host}");
    }
    let r = t
        .http
        .get(format!("{}/api/queue", t.base))
        .bearer_auth(TOKEN)
        .header("host", format!("localhost:{}", t.server.addr.port()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_foreign_origin_is_refused_against_csrf() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let url = format!("{}/api/queue/{}/approve", t.base, item["id"].as_str().unwrap());
    let body = serde_json::json!({"fingerprint": item["fingerprint"]});
    for origin in ["https://evil.example", "null", "http://127.0.0.1:1"] {
        let r = t.http.post(&url).bearer_auth(TOKEN).header("origin", origin).json(&body).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{origin}");
    }
    assert_eq!(t.counters.deletes(), 0);
    let own = format!("http://127.0.0.1:{}", t.server.addr.port());
    let r = t.http.post(&url).bearer_auth(TOKEN).header("origin", own).json(&body).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn the_server_listens_on_loopback_only() {
    let t = spawn_app().await;
    assert!(t.server.addr.ip().is_loopback());
    assert!(t.server.ui_url(TOKEN).contains(&format!("/#token={TOKEN}")), "the token travels in the fragment");
}

#[tokio::test]
async fn the_ui_is_served_with_a_strict_content_security_policy() {
    let t = spawn_app().await;
    let r = t.http.get(format!("{}/", t.base)).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let csp = r.headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline") && csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(r.text().await.unwrap().contains("<"), "an HTML page");
}

#[tokio::test]
async fn the_openapi_document_describes_the_console_routes() {
    let t = spawn_app().await;
    let (status, doc) = t.get("/api/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    for path in
        ["/api/queue", "/api/queue/{id}/approve", "/api/queue/{id}/decline", "/api/queue/{id}/resume", "/api/events", "/api/audit/verify"]
    {
        assert!(doc["paths"][path].is_object(), "{path} missing");
    }
    assert!(doc["components"]["schemas"]["QueueItem"]["properties"]["fingerprint"].is_object());
}

#[tokio::test]
async fn events_announce_new_and_decided_calls_live() {
    let t = spawn_app().await;
    let r = t.http.get(format!("{}/api/events", t.base)).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    let mut stream = r.bytes_stream();
    let mut text = String::new();
    read_until(&mut stream, &mut text, "event: ready").await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let id = item["id"].as_str().unwrap();
    read_until(&mut stream, &mut text, &format!(r#"{{"type":"added","id":"{id}"}}"#)).await;
    t.approve(&item).await;
    read_until(&mut stream, &mut text, &format!(r#"{{"type":"updated","id":"{id}"}}"#)).await;
}

#[tokio::test]
async fn a_changed_engine_url_needs_its_token_again_and_the_token_never_follows_by_itself() {
    let t = spawn_app().await;
    let (a, seen_a) = recording_server().await;
    let (b, seen_b) = recording_server().await;
    let (status, body) =
        t.post("/api/engines", serde_json::json!({ "name": "prod", "baseUrl": a, "token": "s3cret-token", "sessionOnly": true })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    t.post("/api/engines/prod/sync", serde_json::json!({})).await;
    assert!(seen_a.lock().unwrap().iter().any(|h| h == "Bearer s3cret-token"), "{:?}", seen_a.lock().unwrap());

    let r = t
        .http
        .patch(format!("{}/api/engines/prod", t.base))
        .bearer_auth(TOKEN)
        .json(&serde_json::json!({ "baseUrl": b }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let refused: Value = r.json().await.unwrap();
    assert_eq!(refused["code"], "token_required", "{refused}");
    let (_, engines) = t.get("/api/engines").await;
    assert_eq!(engines[0]["baseUrl"].as_str().map(|u| u.trim_end_matches('/')), Some(a.as_str()), "nothing changed: {engines}");
    t.post("/api/engines/prod/sync", serde_json::json!({})).await;
    assert!(seen_b.lock().unwrap().is_empty(), "the new host heard nothing");

    // Said on purpose: the stored token goes to the new host.
    let r = t
        .http
        .patch(format!("{}/api/engines/prod", t.base))
        .bearer_auth(TOKEN)
        .json(&serde_json::json!({ "baseUrl": b, "keepToken": true }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    t.post("/api/engines/prod/sync", serde_json::json!({})).await;
    assert!(seen_b.lock().unwrap().iter().any(|h| h == "Bearer s3cret-token"));
    // A poll interval alone, or the same URL, needs nothing.
    let r = t
        .http
        .patch(format!("{}/api/engines/prod", t.base))
        .bearer_auth(TOKEN)
        .json(&serde_json::json!({ "baseUrl": b, "pollMs": 500 }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn an_engine_that_echoes_the_token_in_its_error_never_gets_it_stored_or_shown() {
    let t = spawn_app().await;
    let (base, seen) = answering_server(|auth| (401, serde_json::json!({ "error": format!("token refused: {auth}") }).to_string())).await;
    let (status, body) = t
        .post("/api/engines", serde_json::json!({ "name": "leaky", "baseUrl": base, "token": "tok-very-secret-123", "sessionOnly": true }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (_, synced) = t.post("/api/engines/leaky/sync", serde_json::json!({})).await;
    assert!(seen.lock().unwrap().iter().any(|h| h.contains("tok-very-secret-123")), "the server did get it");
    let (_, engines) = t.get("/api/engines").await;
    let shown = format!("{synced}{engines}");
    assert!(shown.contains("token refused") && shown.contains("[redacted]"), "{shown}");
    assert!(!shown.contains("tok-very-secret-123"), "{shown}");
    let stored = t.count("SELECT COUNT(*) FROM engines WHERE last_error LIKE '%tok-very-secret-123%'").await;
    let audited = t.count("SELECT COUNT(*) FROM audit_log WHERE details LIKE '%tok-very-secret-123%'").await;
    assert_eq!((stored, audited), (0, 0));
    assert_eq!(t.count("SELECT COUNT(*) FROM engines WHERE last_error LIKE '%[redacted]%'").await, 1);
}

#[tokio::test]
async fn a_plain_web_server_answering_404_is_incompatible_in_the_test_and_in_the_sync_alike() {
    let t = spawn_app().await;
    let (base, _) = answering_server(|_| (404, "<html><body>Not Found: /api/agents</body></html>".to_owned())).await;
    let (_, tested) = t.post("/api/engines/test", serde_json::json!({ "baseUrl": base })).await;
    assert_eq!(tested["result"], "incompatible", "{tested}");
    let (status, _) = t.post("/api/engines", serde_json::json!({ "name": "web", "baseUrl": base })).await;
    assert_eq!(status, StatusCode::CREATED);
    t.post("/api/engines/web/sync", serde_json::json!({})).await;
    let (_, engines) = t.get("/api/engines").await;
    assert_eq!(engines[0]["health"]["state"], "incompatible", "the same word as the test: {engines}");
}
