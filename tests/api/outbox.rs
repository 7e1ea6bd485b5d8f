//! The outbox when an engine cannot be reached (C5): the decision goes back to wait, with a wait
//! that grows with each failed attempt, and the deferral is audited once — fast, with an engine that
//! is always down (the real Mastra server version: tests/remote/outbox.rs).

use crate::helpers::*;
use approval_console::domain::{AgentId, CallKind, DecisionKind, Delivery, EngineId, Error, Fingerprint, PausedCall, RunId, ToolCallId};
use approval_console::engine::send::Checked;
use approval_console::engine::{ChunkSink, Engine};
use async_trait::async_trait;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// An engine whose server does not answer (every delivery `Unreachable`) until `up` is set; then it
/// takes each decision and records the outcome as an engine does. `now`: arguments its calls hold
/// now when they changed at the engine (a kind of engine the console has never seen: it implements
/// only the trait, and the console's send path checks it as any other).
struct Down {
    db: approval_console::store::Db,
    tried: AtomicUsize,
    up: AtomicBool,
    now: std::sync::Mutex<Option<Value>>,
}

#[async_trait]
impl Engine for Down {
    fn id(&self) -> EngineId {
        EngineId::new("down")
    }
    fn allowed(&self, _: &PausedCall) -> Vec<DecisionKind> {
        vec![DecisionKind::Approve, DecisionKind::Decline]
    }
    async fn reread(&self, call: &PausedCall) -> Result<Option<PausedCall>, Error> {
        Ok(Some(match self.now.lock().unwrap().clone() {
            Some(args) => PausedCall { fingerprint: Fingerprint::of(&call.tool_name, &args).unwrap(), args, ..call.clone() },
            None => call.clone(),
        }))
    }
    async fn send(&self, checked: Checked, _: Option<ChunkSink>) -> Result<Value, Error> {
        self.tried.fetch_add(1, Ordering::SeqCst);
        if !self.up.load(Ordering::SeqCst) {
            return Err(Error::Unreachable("connection refused".into()));
        }
        let outcome = json!({ "status": "delivered" });
        approval_console::store::testing::record_delivery(&self.db, &checked.own().decision, &checked.own().item, &outcome).await?;
        Ok(outcome)
    }
}

fn down(t: &TestApp) -> Arc<Down> {
    let down = Arc::new(Down {
        db: t.app.testing().db().clone(),
        tried: AtomicUsize::new(0),
        up: AtomicBool::new(false),
        now: Default::default(),
    });
    t.app.testing().register_engine(down.clone());
    down
}

/// A call of the `down` engine, queued as its sync would.
async fn queue_call(t: &TestApp, n: usize) -> (approval_console::domain::ItemId, Fingerprint) {
    let args = json!({ "id": format!("rec-{n}") });
    let call = PausedCall {
        engine: EngineId::new("down"),
        source: approval_console::domain::CallSource::Mastra,
        agent_id: AgentId::new("ops"),
        agent_name: None,
        thread_id: None,
        resource_id: None,
        run_id: RunId::new(format!("run-{n}")),
        tool_call_id: ToolCallId::new("call_1"),
        tool_name: "deleteRecord".into(),
        fingerprint: Fingerprint::of("deleteRecord", &args).unwrap(),
        args,
        kind: CallKind::Approval,
        suspend_payload: None,
        resume_schema: None,
        chain: vec![],
        requested_by: None,
        pause_reason: None,
    };
    let item = approval_console::store::testing::insert_pending(t.app.testing().db(), std::slice::from_ref(&call)).await.unwrap().remove(0);
    (item.id, call.fingerprint)
}

async fn deferred_entries(t: &TestApp) -> i64 {
    t.count("SELECT COUNT(*) FROM audit_log WHERE action = 'delivery.deferred'").await
}

#[tokio::test]
async fn c05_an_unreachable_engine_puts_the_decision_back_with_a_growing_wait_and_one_audit_entry() {
    let t = spawn_app().await;
    let down = down(&t);
    let (id, fingerprint) = queue_call(&t, 1).await;

    let before = chrono::Utc::now();
    let (status, body) = t.post(&format!("/api/queue/{id}/approve"), json!({ "fingerprint": fingerprint })).await;
    assert!(!status.is_server_error(), "{status} {body}");
    t.settle().await;
    assert_eq!(down.tried.load(Ordering::SeqCst), 1, "delivered at once, and refused");
    let waiting = approval_console::store::testing::decisions_in(t.app.testing().db(), Delivery::Pending).await.unwrap();
    assert_eq!(waiting.len(), 1, "the decision waits in the outbox");
    let decision = &waiting[0];
    let first = approval_console::store::testing::attempts(t.app.testing().db(), &decision.id).await.unwrap().unwrap();
    assert_eq!(first.attempts, 1);
    assert_eq!(first.last_error.as_deref(), Some("connection refused"));
    let next = first.next_attempt_at.expect("a time for the next attempt");
    let wait = next - before;
    assert!(wait > chrono::Duration::milliseconds(500) && wait <= chrono::Duration::seconds(3), "first wait {wait}");
    assert_eq!(deferred_entries(&t).await, 1);

    // The outbox tries again (here at once): refused again, it waits longer, and is not audited again.
    let again = chrono::Utc::now();
    let answer = t.app.testing().deliver(decision).await;
    assert!(matches!(answer, Err(Error::Unreachable(_))), "{answer:?}");
    let second = approval_console::store::testing::attempts(t.app.testing().db(), &decision.id).await.unwrap().unwrap();
    assert_eq!(second.attempts, 2);
    let wait = second.next_attempt_at.unwrap() - again;
    assert!(wait > chrono::Duration::milliseconds(1500) && wait <= chrono::Duration::seconds(4), "second wait {wait}");
    assert_eq!(deferred_entries(&t).await, 1, "only the first deferral is audited");
    let state = approval_console::store::testing::delivery_of(t.app.testing().db(), &decision.id).await.unwrap();
    assert_eq!(state.as_deref(), Some("pending"));
    assert_eq!(down.tried.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn c05_the_outbox_worker_delivers_each_due_decision_once_when_the_engine_is_back() {
    let t = spawn_app().await;
    let down = down(&t);
    for n in 1..=2 {
        let (id, fingerprint) = queue_call(&t, n).await;
        let (status, body) = t.post(&format!("/api/queue/{id}/approve"), json!({ "fingerprint": fingerprint })).await;
        assert!(!status.is_server_error(), "{status} {body}");
    }
    t.settle().await;
    assert_eq!(down.tried.load(Ordering::SeqCst), 2);
    // Not due yet (each waits a second): a pass delivers nothing and does not even try.
    assert_eq!(t.app.testing().deliver_due().await.unwrap(), 0);
    assert_eq!(down.tried.load(Ordering::SeqCst), 2);
    // Due, the engine still down: tried, nothing delivered.
    approval_console::store::testing::make_deliveries_due(t.app.testing().db()).await.unwrap();
    assert_eq!(t.app.testing().deliver_due().await.unwrap(), 0);
    assert_eq!(down.tried.load(Ordering::SeqCst), 4);
    // Due again, the engine back: both delivered, once each; the next pass finds nothing.
    approval_console::store::testing::make_deliveries_due(t.app.testing().db()).await.unwrap();
    down.up.store(true, Ordering::SeqCst);
    assert_eq!(t.app.testing().deliver_due().await.unwrap(), 2);
    assert_eq!(down.tried.load(Ordering::SeqCst), 6);
    assert_eq!(t.count("SELECT COUNT(*) FROM decisions WHERE delivery = 'delivered'").await, 2);
    assert_eq!(t.count("SELECT COUNT(*) FROM queue_items WHERE state = 'delivered'").await, 2);
    assert_eq!(t.app.testing().deliver_due().await.unwrap(), 0);
    assert_eq!(down.tried.load(Ordering::SeqCst), 6);
}

#[tokio::test]
async fn c3_any_engine_kind_gets_no_send_of_a_decision_whose_call_changed_after_it_was_made() {
    let t = spawn_app().await;
    let down = down(&t);
    let (id, fingerprint) = queue_call(&t, 1).await;
    let (status, body) = t.post(&format!("/api/queue/{id}/approve"), json!({ "fingerprint": fingerprint })).await;
    assert!(!status.is_server_error(), "{status} {body}");
    t.settle().await;
    assert_eq!(down.tried.load(Ordering::SeqCst), 1, "sent once, the engine down");

    // While the decision waits in the outbox, the call changes at the engine; the engine comes back.
    let changed = json!({ "id": "rec-666" });
    *down.now.lock().unwrap() = Some(changed.clone());
    down.up.store(true, Ordering::SeqCst);
    approval_console::store::testing::make_deliveries_due(t.app.testing().db()).await.unwrap();
    assert_eq!(t.app.testing().deliver_due().await.unwrap(), 0, "nothing delivered");
    assert_eq!(down.tried.load(Ordering::SeqCst), 1, "the engine was never asked to send it");

    let item = t.item(id.as_str()).await;
    assert_eq!((item["state"].as_str(), item["decision"]["delivery"].as_str()), (Some("failed"), Some("failed")), "{item}");
    let outcome = &item["decision"]["outcome"];
    let now = Fingerprint::of("deleteRecord", &changed).unwrap();
    assert_eq!(outcome["code"], "fingerprint_mismatch", "{item}");
    assert_eq!(outcome["details"], json!({ "expected": fingerprint, "actual": now }), "the fingerprint shown and the current one");
    // The call as it is now waits for the operator, as a new entry with its own fingerprint.
    let new_id = outcome["replacedBy"].as_str().expect("the changed call queued as new").to_owned();
    let new = t.item(&new_id).await;
    assert_eq!((new["state"].as_str(), new["args"].clone()), (Some("pending"), changed), "{new}");
    assert_eq!(new["fingerprint"], now.as_str());
    assert_eq!(
        t.actions_of(id.as_str()).await,
        ["decision.approve", "delivery.deferred", "call.changed", "delivery.failed"].map(String::from)
    );
    assert_eq!(t.actions_of(&new_id).await, ["call.paused"].map(String::from));

    // The new entry is decided on its own fingerprint and sent.
    let (status, body) = t.post(&format!("/api/queue/{new_id}/approve"), json!({ "fingerprint": now })).await;
    assert_eq!(status, reqwest::StatusCode::OK, "{body}");
    let body = t.settled(&new_id).await;
    assert_eq!(body["state"], "delivered", "{body}");
    assert_eq!(down.tried.load(Ordering::SeqCst), 2);
}
