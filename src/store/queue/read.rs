//! Lookups: an entry by id or by call, a run's or an engine's pending ones, the one decided before
//! another; pending counts.

use super::row::{entry_from_row, parse_state, COLUMNS, EXPIRED, FROM};
use super::Entry;
use crate::domain::{EngineId, Error, ItemId, ItemState, RunId, ToolCallId};
use crate::store::lite;
use crate::store::sql::{scalar, sql, Sql};

/// The ids that start with `prefix` (the id itself among them if it is one), at most `limit`.
pub async fn ids_starting_with(conn: &mut impl Sql, prefix: &str, limit: i64) -> Result<Vec<ItemId>, Error> {
    let escaped = prefix.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
    let ids: Vec<String> = scalar("SELECT id FROM queue_items WHERE id LIKE $1 ESCAPE '\\' ORDER BY id LIMIT $2")
        .bind(format!("{escaped}%"))
        .bind(limit)
        .fetch_all(&mut *conn)
        .await?;
    Ok(ids.into_iter().map(ItemId::new).collect())
}

const BY_ID: &str = " WHERE q.id = $1";
const PENDING_CALL: &str = " WHERE q.engine = $1 AND q.run_id = $2 AND q.tool_call_id = $3 AND q.state = 'pending'";
const PENDING_OF_RUN: &str = " WHERE q.engine = $1 AND q.run_id = $2 AND q.state = 'pending' ORDER BY q.seq";

/// One entry by id.
pub async fn get(conn: &mut impl Sql, id: &ItemId) -> Result<Option<Entry>, Error> {
    let row = sql(format!("{COLUMNS}{FROM}{BY_ID}")).bind(id.as_str()).fetch_optional(&mut *conn).await?;
    row.as_ref().map(entry_from_row).transpose()
}

/// [`get`] on a reader's connection (SQLite, [`crate::store::lite`]).
pub(crate) fn get_lite(conn: &rusqlite::Connection, id: &ItemId) -> Result<Option<Entry>, Error> {
    lite::row(conn, &format!("{COLUMNS}{FROM}{BY_ID}"), &[&id.as_str()], |r| entry_from_row(r))
}

/// The pending entry of one call of a run.
pub(in crate::store) async fn find_pending(
    conn: &mut impl Sql,
    engine: &EngineId,
    run_id: &RunId,
    tool_call_id: &ToolCallId,
) -> Result<Option<Entry>, Error> {
    let row = sql(format!("{COLUMNS}{FROM}{PENDING_CALL}"))
        .bind(engine.as_str())
        .bind(run_id.as_str())
        .bind(tool_call_id.as_str())
        .fetch_optional(&mut *conn)
        .await?;
    row.as_ref().map(entry_from_row).transpose()
}

/// [`find_pending`] on a reader's connection.
pub(crate) fn find_pending_lite(
    conn: &rusqlite::Connection,
    engine: &EngineId,
    run_id: &RunId,
    tool_call_id: &ToolCallId,
) -> Result<Option<Entry>, Error> {
    let args: [&dyn rusqlite::ToSql; 3] = [&engine.as_str(), &run_id.as_str(), &tool_call_id.as_str()];
    lite::row(conn, &format!("{COLUMNS}{FROM}{PENDING_CALL}"), &args, |r| entry_from_row(r))
}

/// The pending entries of a run, oldest first.
pub(in crate::store) async fn pending_of_run(conn: &mut impl Sql, engine: &EngineId, run_id: &RunId) -> Result<Vec<Entry>, Error> {
    let rows = sql(format!("{COLUMNS}{FROM}{PENDING_OF_RUN}")).bind(engine.as_str()).bind(run_id.as_str()).fetch_all(&mut *conn).await?;
    rows.iter().map(entry_from_row).collect()
}

/// [`pending_of_run`] on a reader's connection.
pub(crate) fn pending_of_run_lite(conn: &rusqlite::Connection, engine: &EngineId, run_id: &RunId) -> Result<Vec<Entry>, Error> {
    lite::rows(conn, &format!("{COLUMNS}{FROM}{PENDING_OF_RUN}"), &[&engine.as_str(), &run_id.as_str()], |r| entry_from_row(r))
}

/// The call an operator decided last before `id` of the same engine, thread and tool (a call
/// without a thread has none): approved, declined, answered or approved with edits — an expiry is
/// nobody's decision and is skipped. With its decision.
pub(in crate::store) async fn previous_decided(conn: &mut impl Sql, id: &ItemId) -> Result<Option<Entry>, Error> {
    let row = sql(format!(
        "{COLUMNS} FROM queue_items cur
         JOIN queue_items q ON q.thread_id = cur.thread_id AND q.tool_name = cur.tool_name AND q.engine = cur.engine AND q.seq < cur.seq
         JOIN decisions d ON d.queue_item_id = q.id
         WHERE cur.id = $1 AND NOT {EXPIRED}
         ORDER BY q.seq DESC LIMIT 1"
    ))
    .bind(id.as_str())
    .fetch_optional(&mut *conn)
    .await?;
    row.as_ref().map(entry_from_row).transpose()
}

/// How many entries are pending.
pub(in crate::store) async fn count_pending(conn: &mut impl Sql) -> Result<i64, Error> {
    scalar("SELECT COUNT(*) FROM queue_items WHERE state = 'pending'").fetch_one(&mut *conn).await
}

/// Every pending entry of an engine, oldest first.
pub(in crate::store) async fn pending_of_engine(conn: &mut impl Sql, engine: &EngineId) -> Result<Vec<Entry>, Error> {
    let rows = sql(format!("{COLUMNS}{FROM} WHERE q.state = 'pending' AND q.engine = $1 ORDER BY q.seq"))
        .bind(engine.as_str())
        .fetch_all(&mut *conn)
        .await?;
    rows.iter().map(entry_from_row).collect()
}

/// The state of the newest entry of one call that is not `gone`, if any.
pub(in crate::store) async fn live_state(
    conn: &mut impl Sql,
    engine: &EngineId,
    run_id: &RunId,
    tool_call_id: &ToolCallId,
) -> Result<Option<ItemState>, Error> {
    let state: Option<String> = scalar(
        "SELECT state FROM queue_items WHERE run_id = $1 AND engine = $2 AND tool_call_id = $3 AND state <> 'gone' ORDER BY seq DESC LIMIT 1",
    )
    .bind(run_id.as_str())
    .bind(engine.as_str())
    .bind(tool_call_id.as_str())
    .fetch_optional(&mut *conn)
    .await?;
    state.map(|s| parse_state(&s)).transpose()
}

/// Per engine: (pending entries, decisions waiting for delivery).
pub(in crate::store) async fn counts_by_engine(conn: &mut impl Sql) -> Result<std::collections::HashMap<String, (i64, i64)>, Error> {
    let mut out: std::collections::HashMap<String, (i64, i64)> = std::collections::HashMap::new();
    let rows = sql("SELECT engine, COUNT(*) AS n FROM queue_items WHERE state = 'pending' GROUP BY engine").fetch_all(&mut *conn).await?;
    for r in rows {
        out.entry(r.try_get("engine")?).or_default().0 = r.try_get("n")?;
    }
    let rows = sql("SELECT q.engine, COUNT(*) AS n FROM decisions d JOIN queue_items q ON q.id = d.queue_item_id
         WHERE d.delivery IN ('pending', 'delivering') GROUP BY q.engine")
    .fetch_all(&mut *conn)
    .await?;
    for r in rows {
        out.entry(r.try_get("engine")?).or_default().1 = r.try_get("n")?;
    }
    Ok(out)
}
