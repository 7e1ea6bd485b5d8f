//! Fills a data directory with pending calls, for benchmarks: batches of 1,000 per transaction,
//! fingerprint each, a mix of agents, tools and kinds. Returns calls written per second.
#![allow(dead_code)]

use approval_console::domain::{AgentId, CallKind, EngineId, Fingerprint, PausedCall, RunId, ToolCallId};
use approval_console::store::Db;
use serde_json::json;
use std::time::Instant;

pub async fn fill(dir: &std::path::Path, n: usize) -> f64 {
    fill_at(dir, approval_console::store::Location::new(dir, None).unwrap(), n).await
}

/// [`fill`] into the database `location` names (a PostgreSQL one in team mode).
pub async fn fill_at(dir: &std::path::Path, location: approval_console::store::Location, n: usize) -> f64 {
    let db = Db::open_at(dir, location).await.unwrap();
    let started = Instant::now();
    let mut i = 0;
    while i < n {
        let mut calls = vec![];
        for _ in 0..1000.min(n - i) {
            let (tool, kind) = if i % 10 == 0 { ("ask_operator", CallKind::Suspend) } else { ("delete_record", CallKind::Approval) };
            let args = json!({ "id": format!("rec-{i}"), "reason": "cleanup of stale customer records" });
            let call = PausedCall {
                engine: EngineId::local(),
                source: approval_console::domain::CallSource::Local,
                agent_id: AgentId::new(if i % 2 == 0 { "demo" } else { "billing" }),
                agent_name: Some("Bench agent".into()),
                thread_id: Some(format!("t-{}", i % 100)),
                resource_id: Some("user-1".into()),
                run_id: RunId::new(format!("bench-run-{i}")),
                tool_call_id: ToolCallId::new("call_1"),
                tool_name: tool.into(),
                fingerprint: Fingerprint::of(tool, &args).unwrap(),
                args,
                kind,
                suspend_payload: (kind == CallKind::Suspend).then(|| json!({"question": "which one?"})),
                resume_schema: None,
                chain: vec![],
                requested_by: None,
                pause_reason: None,
            };
            calls.push(call);
            i += 1;
        }
        approval_console::store::testing::insert_pending(&db, &calls).await.unwrap();
    }
    let rate = n as f64 / started.elapsed().as_secs_f64();
    approval_console::store::testing::settle_after_fill(&db).await.unwrap();
    db.close().await;
    rate
}
