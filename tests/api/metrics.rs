//! `GET /api/metrics` in the Prometheus text format: what it counts follows what happened, and an
//! agent's credential cannot read it.

use crate::helpers::*;
use approval_console::domain::Role;
use reqwest::{Method, StatusCode};

/// The value of one sample line (`name{labels} value`), if the text has it.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

async fn metrics(t: &TestApp) -> String {
    let r = t.http.get(format!("{}/api/metrics", t.base)).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let kind = r.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(kind.starts_with("text/plain; version=0.0.4"), "{kind}");
    r.text().await.unwrap()
}

#[tokio::test]
async fn metrics_count_the_queue_decisions_and_commits_as_they_change() {
    let t = spawn_app().await;
    // `local`, or `local@<instance>` when the tests run on PostgreSQL (team mode).
    let pending_series = format!("approval_console_queue_items{{engine=\"{}\",state=\"pending\"}}", t.app.testing().local_engine().id());
    let before = metrics(&t).await;
    assert_eq!(sample(&before, &pending_series), None);
    for w in before.lines().filter(|l| l.starts_with("# TYPE")) {
        assert!(w.ends_with(" gauge") || w.ends_with(" counter"), "{w}");
    }
    t.generate("delete rec-1").await;
    t.generate("delete rec-2").await;
    let paused = metrics(&t).await;
    assert_eq!(sample(&paused, &pending_series), Some(2.0), "{paused}");
    let item = t.pending().await.remove(0);
    let (status, _) = t.approve(&item).await;
    assert_eq!(status, StatusCode::OK);
    let after = metrics(&t).await;
    assert_eq!(sample(&after, &pending_series), Some(1.0), "{after}");
    assert_eq!(sample(&after, "approval_console_decisions{verdict=\"approve\",delivery=\"delivered\"}"), Some(1.0), "{after}");
    let writes = |text: &str| sample(text, "approval_console_store_writes_total").unwrap();
    let commits = |text: &str| sample(text, "approval_console_store_commits_total").unwrap();
    assert!(writes(&after) > writes(&paused) && commits(&after) > commits(&paused), "{after}");
    assert!(commits(&after) <= writes(&after));
    // Reading the call to approve it ran on SQLite without a hop (a point read, store::lite); on
    // PostgreSQL (team mode) every statement goes to the server.
    let statements = |text: &str| sample(text, "approval_console_store_statements_total").unwrap();
    let direct = |text: &str| sample(text, "approval_console_store_direct_statements_total").unwrap();
    assert!(direct(&after) <= statements(&after), "{after}");
    if !t.app.testing().local_engine().id().as_str().contains('@') {
        assert!(direct(&after) > direct(&paused), "{after}");
    }
}

#[tokio::test]
async fn an_agent_credential_cannot_read_the_metrics() {
    let t = spawn_app().await;
    let agent = t.token("bot", Role::Agent).await;
    let (status, body) = t.call_as(&agent, Method::GET, "/api/metrics", None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let operator = t.token("alice", Role::Operator).await;
    let (status, _) = t.call_as(&operator, Method::GET, "/api/metrics", None).await;
    assert_eq!(status, StatusCode::OK);
}
