//! The queries behind the team's figures (`app::stats`, `GET /api/stats`): the decisions of a period
//! counted by tool and by operator, the time each took, and the calls that started and stopped
//! waiting hour by hour. Counts are aggregated in SQL; only [`timed`] reads rows, at most `limit`.
//!
//! A decision is in the period when `decided_at >= since`. A call waits from `paused_at` until its
//! end: its decision's `decided_at`, or for a call that ended without one (`gone`) the
//! `updated_at` of that change; a pending call has no end.

use super::queue::EXPIRED;
use super::{parse_ts, ts, Db};
use crate::domain::Error;
use chrono::{DateTime, Duration, Utc};
use sqlx::{AnyConnection, Row};
use std::collections::BTreeMap;

/// Every state of a queue row, listed so that a range on `paused_at` can use the `(state,
/// paused_at)` index (an `IN` on its first column, then the range).
const ALL_STATES: &str = "('pending', 'decided', 'delivered', 'failed', 'interrupted', 'gone')";
/// The states a call can end in without a decision; its end is then its `updated_at`.
const UNDECIDED_ENDS: &str = "('gone', 'interrupted')";
/// The queue row `q` has no decision.
const NO_DECISION: &str = "NOT EXISTS (SELECT 1 FROM decisions d WHERE d.queue_item_id = q.id)";

/// One tool's decisions in the period, by outcome. `declined` leaves out expiries (`expired`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCounts {
    pub tool: String,
    pub decided: i64,
    pub approved: i64,
    pub declined: i64,
    pub expired: i64,
    pub resumed: i64,
}

/// The decisions taken from `since` on, per tool (an edited approval is an approval).
pub async fn by_tool(conn: &mut AnyConnection, since: DateTime<Utc>) -> Result<Vec<ToolCounts>, Error> {
    let rows = sqlx::query(&format!(
        "SELECT q.tool_name AS tool, COUNT(*) AS decided,
            SUM(CASE WHEN d.kind = 'approve' THEN 1 ELSE 0 END) AS approved,
            SUM(CASE WHEN d.kind = 'decline' AND NOT {EXPIRED} THEN 1 ELSE 0 END) AS declined,
            SUM(CASE WHEN {EXPIRED} THEN 1 ELSE 0 END) AS expired,
            SUM(CASE WHEN d.kind = 'resume' THEN 1 ELSE 0 END) AS resumed
         FROM decisions d JOIN queue_items q ON q.id = d.queue_item_id
         WHERE d.decided_at >= $1
         GROUP BY q.tool_name"
    ))
    .bind(ts(since))
    .fetch_all(&mut *conn)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(ToolCounts {
                tool: r.try_get("tool")?,
                decided: r.try_get("decided")?,
                approved: r.try_get("approved")?,
                declined: r.try_get("declined")?,
                expired: r.try_get("expired")?,
                resumed: r.try_get("resumed")?,
            })
        })
        .collect()
}

/// The decisions taken from `since` on by each operator (as the audit log names them: `alice
/// (web)`), expiries left out: nobody took those.
pub async fn by_operator(conn: &mut AnyConnection, since: DateTime<Utc>) -> Result<Vec<(String, i64)>, Error> {
    let rows = sqlx::query(&format!(
        "SELECT d.operator AS operator, COUNT(*) AS decided FROM decisions d
         WHERE d.decided_at >= $1 AND NOT {EXPIRED}
         GROUP BY d.operator"
    ))
    .bind(ts(since))
    .fetch_all(&mut *conn)
    .await?;
    rows.iter().map(|r| Ok((r.try_get("operator")?, r.try_get("decided")?))).collect()
}

/// One decision and how long its call waited for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Timed {
    pub tool: String,
    pub operator: String,
    pub expired: bool,
    /// `decided_at − paused_at` in seconds; 0 when the decision is stamped before the pause (clocks
    /// of two consoles apart).
    pub secs: f64,
}

/// The decisions taken from `since` on, newest first, with the time each took: at most `limit`
/// rows (the newest), so that the memory this takes stays bounded however busy the period was.
pub async fn timed(conn: &mut AnyConnection, since: DateTime<Utc>, limit: i64) -> Result<Vec<Timed>, Error> {
    let rows = sqlx::query(&format!(
        "SELECT q.tool_name AS tool, d.operator AS operator, CASE WHEN {EXPIRED} THEN 1 ELSE 0 END AS expired,
            q.paused_at AS paused_at, d.decided_at AS decided_at
         FROM decisions d JOIN queue_items q ON q.id = d.queue_item_id
         WHERE d.decided_at >= $1
         ORDER BY d.decided_at DESC LIMIT $2"
    ))
    .bind(ts(since))
    .bind(limit)
    .fetch_all(&mut *conn)
    .await?;
    rows.iter()
        .map(|r| {
            let paused = parse_ts(&r.try_get::<String, _>("paused_at")?)?;
            let decided = parse_ts(&r.try_get::<String, _>("decided_at")?)?;
            let micros = (decided - paused).num_microseconds().unwrap_or(i64::MAX).max(0);
            Ok(Timed {
                tool: r.try_get("tool")?,
                operator: r.try_get("operator")?,
                expired: r.try_get::<i64, _>("expired")? != 0,
                secs: micros as f64 / 1e6,
            })
        })
        .collect()
}

/// How many calls started and stopped waiting within one hour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HourChanges {
    pub paused: i64,
    pub ended: i64,
}

/// What the pending series of a period is made from: the calls waiting at `since`, and the calls
/// that started (`paused_at`) and stopped waiting in `(since, until]`, by the end of the clock hour
/// they fall in (a change at 10:20 counts at 11:00; one at 11:00:00 exactly at 11:00).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PendingChanges {
    pub at_since: i64,
    pub by_hour_end: BTreeMap<DateTime<Utc>, HourChanges>,
}

/// The calls waiting at `since` and the changes until `until` (see [`PendingChanges`]).
///
/// Counted in SQL from the indexes, without joining the period's rows: pauses by hour on `(state,
/// paused_at)`, decisions by hour on `decisions (decided_at)`, ends without a decision on `(state,
/// updated_at)` (each on the hour prefix of the stored text, `2026-12-01T19`); the calls waiting
/// at `until` (pending, or ended after it); those waiting at `since` follow from the changes in
/// between. A decision stamped before its call paused (the clocks of two consoles apart) is counted
/// when it is stamped, so in an hour that ends between the two such a call is one too few.
pub(in crate::store) async fn pending_changes(
    conn: &mut AnyConnection,
    since: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<PendingChanges, Error> {
    let at_until: i64 = sqlx::query_scalar(&format!(
        "SELECT (SELECT COUNT(*) FROM queue_items WHERE state = 'pending' AND paused_at <= $1)
             + (SELECT COUNT(*) FROM decisions d JOIN queue_items q ON q.id = d.queue_item_id WHERE d.decided_at > $1 AND q.paused_at <= $1)
             + (SELECT COUNT(*) FROM queue_items q WHERE q.state IN {UNDECIDED_ENDS} AND q.updated_at > $1 AND q.paused_at <= $1 AND {NO_DECISION})"
    ))
    .bind(ts(until))
    .fetch_one(&mut *conn)
    .await?;
    // `filter` ends with AND when it is not empty.
    let by_hour = |what: &str, col: &str, from: &str, filter: &str| {
        let hour = format!("SUBSTR({col}, 1, 13)");
        let edge = format!("CASE WHEN SUBSTR({col}, 14) = ':00:00.000000Z' THEN 1 ELSE 0 END");
        format!(
            "SELECT '{what}' AS what, {hour} AS hour, {edge} AS edge, COUNT(*) AS n FROM {from}
             WHERE {filter}{col} > $1 AND {col} <= $2 GROUP BY {hour}, {edge}"
        )
    };
    let sql = [
        by_hour("paused", "paused_at", "queue_items", &format!("state IN {ALL_STATES} AND ")),
        by_hour("ended", "decided_at", "decisions", ""),
        by_hour("ended", "q.updated_at", "queue_items q", &format!("q.state IN {UNDECIDED_ENDS} AND {NO_DECISION} AND ")),
    ]
    .join(" UNION ALL ");
    let rows = sqlx::query(&sql).bind(ts(since)).bind(ts(until)).fetch_all(&mut *conn).await?;
    let mut out = PendingChanges { at_since: at_until, by_hour_end: BTreeMap::new() };
    for r in &rows {
        let (what, hour, edge, n): (String, String, i64, i64) =
            (r.try_get("what")?, r.try_get("hour")?, r.try_get("edge")?, r.try_get("n")?);
        let start = parse_ts(&format!("{hour}:00:00Z"))?;
        let end = if edge == 1 { start } else { start + Duration::hours(1) };
        let changes = out.by_hour_end.entry(end).or_default();
        if what == "paused" {
            changes.paused += n;
            out.at_since -= n;
        } else {
            changes.ended += n;
            out.at_since += n;
        }
    }
    Ok(out)
}

/// A period's figures as [`by_tool`], [`by_operator`], [`timed`] and [`pending_changes`] read them.
#[derive(Debug)]
pub struct Period {
    pub tools: Vec<ToolCounts>,
    pub operators: Vec<(String, i64)>,
    pub timed: Vec<Timed>,
    pub pending: PendingChanges,
}

/// The figures of the period `since`..`until` (at most `max_timed` decisions timed), read on one pooled connection.
pub async fn period(db: &Db, since: DateTime<Utc>, until: DateTime<Utc>, max_timed: i64) -> Result<Period, Error> {
    let mut conn = db.pool().acquire().await?;
    let tools = by_tool(&mut conn, since).await?;
    let operators = by_operator(&mut conn, since).await?;
    let timed = timed(&mut conn, since, max_timed).await?;
    let pending = pending_changes(&mut conn, since, until).await?;
    Ok(Period { tools, operators, timed, pending })
}

/// What the metrics gauge (`GET /api/metrics`), as counted now.
#[derive(Debug)]
pub struct Gauges {
    /// Queue entries: `(engine, state, count)`, by engine and state.
    pub queue: Vec<(String, String, i64)>,
    /// Decisions: `(verdict kind, delivery, count)`, by kind and delivery.
    pub decisions: Vec<(String, String, i64)>,
    /// Remote engines: `(name, health)`, by name.
    pub engines: Vec<(String, String)>,
}

/// The queue by engine and state, the decisions by kind and delivery, and the engines' health, read on one connection.
pub async fn gauges(db: &Db) -> Result<Gauges, Error> {
    let mut conn = db.pool().acquire().await?;
    let queue = sqlx::query("SELECT engine, state, COUNT(*) AS n FROM queue_items GROUP BY engine, state ORDER BY engine, state")
        .fetch_all(&mut *conn)
        .await?;
    let decisions = sqlx::query("SELECT kind, delivery, COUNT(*) AS n FROM decisions GROUP BY kind, delivery ORDER BY kind, delivery")
        .fetch_all(&mut *conn)
        .await?;
    let engines = sqlx::query("SELECT name, health FROM engines ORDER BY name").fetch_all(&mut *conn).await?;
    drop(conn);
    Ok(Gauges {
        queue: queue.iter().map(|r| Ok((r.try_get("engine")?, r.try_get("state")?, r.try_get("n")?))).collect::<Result<_, Error>>()?,
        decisions: decisions
            .iter()
            .map(|r| Ok((r.try_get("kind")?, r.try_get("delivery")?, r.try_get("n")?)))
            .collect::<Result<_, Error>>()?,
        engines: engines.iter().map(|r| Ok((r.try_get("name")?, r.try_get("health")?))).collect::<Result<_, Error>>()?,
    })
}
