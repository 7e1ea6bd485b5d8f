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
    let r = t.http.post(format!("{}/api/agents/demo/generate", t.base)).json(&serde_json::json!({"messages": "delete x"})).send().await.unwrap();
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
    let r = t.http.get(format!("{}/api/queue", t.base)).bearer_auth(TOKEN).header("host", format!("localhost:{}", t.server.addr.port())).send().await.unwrap();
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
    for path in ["/api/queue", "/api/queue/{id}/approve", "/api/queue/{id}/decline", "/api/queue/{id}/resume", "/api/events", "/api/audit/verify"] {
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
