//! `GET /api/stats?days=N`: the team's figures follow what was decided, by whom and how fast, and
//! the pending series follows when each call paused and stopped waiting; the period is checked; an
//! agent's credential cannot read them.
//!
//! The calls pause, are decided and expire for real; then their times are moved back (SQL on the
//! stored timestamps) so that the period, its hours and the times to decision are known exactly.

use crate::helpers::*;
use approval_console::domain::{Actor, Error, ItemId, ItemState, Role};
use chrono::{DateTime, Duration, Utc};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

/// Pauses the demo agent on `text`; returns the queue entry.
async fn pause(t: &TestApp, text: &str) -> Value {
    let answer = t.generate(text).await;
    t.pending_call(answer["runId"].as_str().unwrap(), "call_1").await
}

/// Moves a call's pause, and its decision or its end without one, to the given times.
async fn set_times(t: &TestApp, item: &Value, paused: DateTime<Utc>, decided: Option<DateTime<Utc>>) {
    let id = item["id"].as_str().unwrap();
    let done = approval_console::store::testing::set_times(t.app.testing().db(), &ItemId::new(id), paused, decided).await.unwrap();
    if decided.is_some() {
        assert_eq!(done, 1, "{id} has a decision");
    }
}

async fn stats(t: &TestApp, query: &str) -> Value {
    let (status, body) = t.get(&format!("/api/stats{query}")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

/// A call, when it paused, and when it was decided or ended (`None`: it still waits).
type Span<'a> = (&'a Value, DateTime<Utc>, Option<DateTime<Utc>>);

fn at(v: &Value) -> DateTime<Utc> {
    v.as_str().unwrap_or_else(|| panic!("not a time: {v}")).parse().unwrap()
}

#[tokio::test]
async fn stats_count_the_periods_decisions_by_tool_and_operator_and_the_calls_pending_hour_by_hour() {
    let t = spawn_app().await;
    let alice = t.token("alice", Role::Operator).await;
    let old = pause(&t, "delete rec-old").await;
    let d1 = pause(&t, "delete rec-1").await;
    let d2 = pause(&t, "delete rec-2").await;
    let d3 = pause(&t, "delete rec-3").await;
    let waiting_long = pause(&t, "delete rec-4").await;
    let gone = pause(&t, "delete rec-5").await;
    let waiting_now = pause(&t, "delete rec-6").await;
    let a1 = pause(&t, "ask which region?").await;
    let a2 = pause(&t, "ask which table?").await;

    for item in [&old, &d1] {
        assert_eq!(t.approve(item).await.0, StatusCode::OK);
    }
    let (status, body) = t
        .call_as(
            &alice,
            Method::POST,
            &format!("/api/queue/{}/approve", d2["id"].as_str().unwrap()),
            Some(json!({ "fingerprint": d2["fingerprint"] })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = t
        .call_as(
            &alice,
            Method::POST,
            &format!("/api/queue/{}/decline", d3["id"].as_str().unwrap()),
            Some(json!({ "fingerprint": d3["fingerprint"], "reason": "no" })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(t.resume(&a1, json!({ "answer": "eu-west" })).await.0, StatusCode::OK);
    // a2 expires: ask_operator gets a limit of 1 s.
    let (status, body) =
        t.put("/api/settings/expiry", json!({ "rules": [{ "tool": "ask_operator", "afterSecs": 1 }], "warnBeforeSecs": 0 })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait::eventually(std::time::Duration::from_secs(10), "an expiry pass expired something", || async {
        t.app.testing().expire_due().await.unwrap() > 0
    })
    .await;
    assert_eq!(t.item(a2["id"].as_str().unwrap()).await["decision"]["expiredAfterSecs"], 1);

    // The times, relative to now: (call, paused, decided or ended).
    let now = Utc::now();
    let (h, m, d) = (Duration::hours, Duration::minutes, Duration::days);
    let spans: Vec<Span> = vec![
        (&old, now - d(10), Some(now - d(9))), // before the period: not counted
        (&d1, now - h(3), Some(now - h(2))),
        (&d2, now - d(8), Some(now - d(6))), // paused before the period, decided in it
        (&d3, now - m(30), Some(now - m(10))),
        (&waiting_long, now - d(8), None),
        (&gone, now - h(5), Some(now - h(4))), // ended at the engine, undecided
        (&waiting_now, at(&waiting_now["pausedAt"]), None),
        (&a1, now - h(2), Some(now - h(1))),
        (&a2, now - m(50), Some(now - m(49))),
    ];
    for (item, paused, end) in &spans {
        let decided = if item["id"] == gone["id"] { None } else { *end };
        set_times(&t, item, *paused, decided).await;
    }
    let gone_id = ItemId::new(gone["id"].as_str().unwrap());
    approval_console::store::testing::set_state(t.app.testing().db(), &gone_id, ItemState::Gone, Some(now - h(4))).await.unwrap();

    let s = stats(&t, "?days=7").await;
    let (since, until) = (at(&s["since"]), at(&s["until"]));
    assert_eq!(until - since, d(7), "{s}");
    assert!(until >= now && until - now < m(1), "until is now: {s}");
    assert_eq!(s["decisions"], json!({ "approved": 2, "declined": 1, "expired": 1, "resumed": 1, "total": 5 }));
    // delete_record: 20 min, 1 h and 2 days; ask_operator: 1 min (the expiry) and 1 h.
    assert_eq!(
        s["byTool"],
        json!([
            { "tool": "delete_record", "decided": 3, "p50Secs": 3600.0, "p90Secs": 172_800.0, "declined": 1, "expired": 0 },
            { "tool": "ask_operator", "decided": 2, "p50Secs": 60.0, "p90Secs": 3600.0, "declined": 0, "expired": 1 },
        ])
    );
    // Two decisions each (the expiry is nobody's): by name.
    let admin = json!({ "operator": format!("{} (web)", t.app.operator()), "decided": 2, "p50Secs": 3600.0, "p90Secs": 3600.0 });
    let alice = json!({ "operator": "alice (web)", "decided": 2, "p50Secs": 1200.0, "p90Secs": 172_800.0 });
    let mut operators = vec![admin, alice];
    operators.sort_by_key(|o| o["operator"].as_str().unwrap().to_owned());
    assert_eq!(s["byOperator"], json!(operators));

    // One point per clock hour ending in the period, then now; each the calls pending then by the
    // definition, from the times above.
    let points = s["pendingOverTime"].as_array().unwrap();
    assert!((168..=169).contains(&points.len()), "{}", points.len());
    let times: Vec<DateTime<Utc>> = points.iter().map(|p| at(&p["at"])).collect();
    assert_eq!(*times.last().unwrap(), until);
    assert!(times[0] > since && times[0] - since <= h(1), "{:?}", times[0]);
    for w in times.windows(2) {
        assert_eq!(w[0].timestamp() % 3600, 0, "on the hour: {}", w[0]);
        assert!(w[1] > w[0] && w[1] - w[0] <= h(1));
    }
    let pending_at = |t: DateTime<Utc>| spans.iter().filter(|(_, paused, end)| *paused <= t && end.is_none_or(|e| e > t)).count();
    let expected: Vec<(DateTime<Utc>, usize)> = times.iter().map(|&t| (t, pending_at(t))).collect();
    let got: Vec<(DateTime<Utc>, usize)> = points.iter().map(|p| (at(&p["at"]), p["pending"].as_u64().unwrap() as usize)).collect();
    assert_eq!(got, expected);
    assert_eq!(got.last().unwrap().1, 2, "the calls left pending");
    assert_eq!(got[0].1, 2, "waiting since before the period: rec-2 and rec-4");
    // Each of these hours holds one point: rec-5 waited until it was gone, then no longer.
    let in_hour = |from: Duration, to: Duration| got.iter().find(|(t, _)| *t >= now - from && *t < now - to).unwrap().1;
    assert_eq!((in_hour(h(5), h(4)), in_hour(h(4), h(3))), (2, 1), "{got:?}");

    // Without days: the last 7 days; one day: 24 hours.
    let default = stats(&t, "").await;
    assert_eq!(at(&default["until"]) - at(&default["since"]), d(7));
    assert_eq!(default["decisions"]["total"], 5);
    let day = stats(&t, "?days=1").await;
    assert_eq!(day["decisions"], json!({ "approved": 1, "declined": 1, "expired": 1, "resumed": 1, "total": 4 }));
    assert!((24..=25).contains(&day["pendingOverTime"].as_array().unwrap().len()));
}

#[tokio::test]
async fn stats_for_days_out_of_1_to_90_or_not_a_whole_number_are_an_invalid_request() {
    let t = spawn_app().await;
    for days in ["0", "91", "-1", "1.5", "abc", "", "7d", "100000000000"] {
        let (status, body) = t.get(&format!("/api/stats?days={days}")).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{days:?}: {body}");
        assert!(body["message"].as_str().unwrap().contains("from 1 to 90"), "{days:?}: {body}");
    }
    let empty = stats(&t, "?days=90").await;
    assert_eq!(empty["decisions"], json!({ "approved": 0, "declined": 0, "expired": 0, "resumed": 0, "total": 0 }));
    assert_eq!((empty["byTool"].clone(), empty["byOperator"].clone()), (json!([]), json!([])));
    let points = empty["pendingOverTime"].as_array().unwrap();
    assert!((90 * 24..=90 * 24 + 1).contains(&points.len()), "{}", points.len());
    assert!(points.iter().all(|p| p["pending"] == 0));
    // The core checks the range too, for every shell.
    let err = t.app.stats(0, &t.app.local_admin("test")).await.unwrap_err();
    assert!(matches!(err, Error::InvalidRequest(_)), "{err}");
}

#[tokio::test]
async fn an_agent_credential_cannot_read_the_stats_through_the_api_nor_the_core() {
    let t = spawn_app().await;
    let agent = t.token("bot", Role::Agent).await;
    let (status, body) = t.call_as(&agent, Method::GET, "/api/stats?days=7", None).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("forbidden")), "{body}");
    let principal = t.app.authenticate(&agent).await.unwrap().expect("the agent's token");
    // The core's stats take a viewer's context, which only an admission gives: refused for an agent.
    let err = approval_console::domain::authority::admit(approval_console::domain::Op::Stats, Actor::new(principal, "test")).unwrap_err();
    assert!(matches!(err, Error::Forbidden { .. }), "{err}");
    let operator = t.token("alice", Role::Operator).await;
    let (status, body) = t.call_as(&operator, Method::GET, "/api/stats", None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}
