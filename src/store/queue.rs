//! The queue table: every paused call, with its state; reads join the decision taken on it.

use super::{decisions, now, parse_json, parse_ts, ts};
use crate::domain::{
    AgentId, CallKind, Decision, EngineId, Error, Fingerprint, ItemId, ItemState, PausedCall, QueuedCall,
    RunId, ToolCallId,
};
use sqlx::{sqlite::SqliteRow, Row, SqliteConnection};

/// A queue entry with the decision taken on it, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub queued: QueuedCall,
    pub decision: Option<Decision>,
}

/// Filters of a queue listing; `None` means any.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// `None`: every state.
    pub state: Option<ItemState>,
    pub engine: Option<String>,
    pub agent: Option<String>,
    pub tool: Option<String>,
    pub kind: Option<CallKind>,
    pub run: Option<String>,
    pub thread: Option<String>,
}

/// One page, newest first; `next_cursor` continues after the last entry.
#[derive(Clone, Debug)]
pub struct Page {
    pub entries: Vec<Entry>,
    pub next_cursor: Option<i64>,
}

pub(crate) fn state_str(state: ItemState) -> &'static str {
    match state {
        ItemState::Pending => "pending",
        ItemState::Decided => "decided",
        ItemState::Delivered => "delivered",
        ItemState::Failed => "failed",
        ItemState::Interrupted => "interrupted",
        ItemState::Gone => "gone",
    }
}

fn parse_state(text: &str) -> Result<ItemState, Error> {
    Ok(match text {
        "pending" => ItemState::Pending,
        "decided" => ItemState::Decided,
        "delivered" => ItemState::Delivered,
        "failed" => ItemState::Failed,
        "interrupted" => ItemState::Interrupted,
        "gone" => ItemState::Gone,
        other => return Err(Error::Storage(format!("unknown queue state {other:?}"))),
    })
}

pub(crate) fn kind_str(kind: CallKind) -> &'static str {
    match kind {
        CallKind::Approval => "approval",
        CallKind::Suspend => "suspend",
    }
}

/// Adds a paused call as a pending entry. Fails if the same call is already pending.
pub async fn insert_pending(conn: &mut SqliteConnection, call: &PausedCall) -> Result<QueuedCall, Error> {
    let id = ItemId::generate();
    let at = now();
    sqlx::query(
        "INSERT INTO queue_items (id, engine, agent_id, agent_name, thread_id, resource_id, run_id, tool_call_id,
            tool_name, args, fingerprint, kind, suspend_payload, resume_schema, chain, state, paused_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)",
    )
    .bind(id.as_str())
    .bind(call.engine.as_str())
    .bind(call.agent_id.as_str())
    .bind(call.agent_name.as_deref())
    .bind(call.thread_id.as_deref())
    .bind(call.resource_id.as_deref())
    .bind(call.run_id.as_str())
    .bind(call.tool_call_id.as_str())
    .bind(&call.tool_name)
    .bind(call.args.to_string())
    .bind(call.fingerprint.as_str())
    .bind(kind_str(call.kind))
    .bind(call.suspend_payload.as_ref().map(|v| v.to_string()))
    .bind(call.resume_schema.as_ref().map(|v| v.to_string()))
    .bind(serde_json::to_string(&call.chain).expect("chain serializes"))
    .bind(ts(at))
    .bind(ts(at))
    .execute(&mut *conn)
    .await?;
    Ok(QueuedCall { id, call: call.clone(), state: ItemState::Pending, paused_at: at })
}

/// Moves an entry from `from` to `to`; returns false (and changes nothing) if it was not in `from`.
pub async fn transition(conn: &mut SqliteConnection, id: &ItemId, from: ItemState, to: ItemState) -> Result<bool, Error> {
    let done = sqlx::query("UPDATE queue_items SET state = ?, updated_at = ? WHERE id = ? AND state = ?")
        .bind(state_str(to))
        .bind(ts(now()))
        .bind(id.as_str())
        .bind(state_str(from))
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Marks every pending entry of a run as `gone` (the run ended without them being decided).
pub async fn retire_run(conn: &mut SqliteConnection, engine: &EngineId, run_id: &RunId) -> Result<Vec<ItemId>, Error> {
    let rows = sqlx::query(
        "UPDATE queue_items SET state = 'gone', updated_at = ? WHERE engine = ? AND run_id = ? AND state = 'pending' RETURNING id",
    )
    .bind(ts(now()))
    .bind(engine.as_str())
    .bind(run_id.as_str())
    .fetch_all(&mut *conn)
    .await?;
    Ok(rows.iter().map(|r| ItemId::new(r.get::<String, _>(0))).collect())
}

const SELECT: &str = "SELECT q.seq, q.id, q.engine, q.agent_id, q.agent_name, q.thread_id, q.resource_id, q.run_id,
    q.tool_call_id, q.tool_name, q.args, q.fingerprint, q.kind, q.suspend_payload, q.resume_schema, q.chain,
    q.state, q.paused_at,
    d.id AS d_id, d.kind AS d_kind, d.fingerprint AS d_fingerprint, d.reason AS d_reason, d.data AS d_data,
    d.operator AS d_operator, d.decided_at AS d_decided_at, d.delivery AS d_delivery, d.outcome AS d_outcome,
    d.attempts AS d_attempts, d.last_error AS d_last_error, d.next_attempt_at AS d_next_attempt_at
    FROM queue_items q LEFT JOIN decisions d ON d.queue_item_id = q.id";

fn entry_from_row(row: &SqliteRow) -> Result<Entry, Error> {
    let opt_json = |col: &str| -> Result<Option<serde_json::Value>, Error> {
        row.get::<Option<String>, _>(col).map(|t| parse_json(&t)).transpose()
    };
    let fingerprint: String = row.get("fingerprint");
    let call = PausedCall {
        engine: EngineId::new(row.get::<String, _>("engine")),
        agent_id: AgentId::new(row.get::<String, _>("agent_id")),
        agent_name: row.get("agent_name"),
        thread_id: row.get("thread_id"),
        resource_id: row.get("resource_id"),
        run_id: RunId::new(row.get::<String, _>("run_id")),
        tool_call_id: ToolCallId::new(row.get::<String, _>("tool_call_id")),
        tool_name: row.get("tool_name"),
        args: parse_json(&row.get::<String, _>("args"))?,
        fingerprint: Fingerprint::parse(&fingerprint)
            .ok_or_else(|| Error::Storage(format!("bad fingerprint {fingerprint:?} in database")))?,
        kind: match row.get::<String, _>("kind").as_str() {
            "approval" => CallKind::Approval,
            _ => CallKind::Suspend,
        },
        suspend_payload: opt_json("suspend_payload")?,
        resume_schema: opt_json("resume_schema")?,
        chain: serde_json::from_str(&row.get::<String, _>("chain"))
            .map_err(|e| Error::Storage(format!("bad chain in database: {e}")))?,
    };
    let queued = QueuedCall {
        id: ItemId::new(row.get::<String, _>("id")),
        call,
        state: parse_state(&row.get::<String, _>("state"))?,
        paused_at: parse_ts(&row.get::<String, _>("paused_at"))?,
    };
    let decision = decisions::from_joined_row(row, &queued.id)?;
    Ok(Entry { queued, decision })
}

/// One entry by id.
pub async fn get(conn: &mut SqliteConnection, id: &ItemId) -> Result<Option<Entry>, Error> {
    let row = sqlx::query(&format!("{SELECT} WHERE q.id = ?")).bind(id.as_str()).fetch_optional(&mut *conn).await?;
    row.as_ref().map(entry_from_row).transpose()
}

/// The pending entry of one call of a run.
pub async fn find_pending(
    conn: &mut SqliteConnection,
    engine: &EngineId,
    run_id: &RunId,
    tool_call_id: &ToolCallId,
) -> Result<Option<Entry>, Error> {
    let row = sqlx::query(&format!(
        "{SELECT} WHERE q.engine = ? AND q.run_id = ? AND q.tool_call_id = ? AND q.state = 'pending'"
    ))
    .bind(engine.as_str())
    .bind(run_id.as_str())
    .bind(tool_call_id.as_str())
    .fetch_optional(&mut *conn)
    .await?;
    row.as_ref().map(entry_from_row).transpose()
}

/// The pending entries of a run, oldest first.
pub async fn pending_of_run(conn: &mut SqliteConnection, engine: &EngineId, run_id: &RunId) -> Result<Vec<Entry>, Error> {
    let rows = sqlx::query(&format!("{SELECT} WHERE q.engine = ? AND q.run_id = ? AND q.state = 'pending' ORDER BY q.seq"))
        .bind(engine.as_str())
        .bind(run_id.as_str())
        .fetch_all(&mut *conn)
        .await?;
    rows.iter().map(entry_from_row).collect()
}

/// A page of entries, newest first, after `cursor` (a `seq` from an earlier page).
pub async fn list(conn: &mut SqliteConnection, filter: &Filter, cursor: Option<i64>, limit: u32) -> Result<Page, Error> {
    let mut sql = format!("{SELECT} WHERE 1 = 1");
    let mut binds: Vec<String> = Vec::new();
    let mut add = |clause: &str, value: Option<String>| {
        if let Some(v) = value {
            sql.push_str(clause);
            binds.push(v);
        }
    };
    add(" AND q.state = ?", filter.state.map(|s| state_str(s).to_owned()));
    add(" AND q.engine = ?", filter.engine.clone());
    add(" AND q.agent_id = ?", filter.agent.clone());
    add(" AND q.tool_name = ?", filter.tool.clone());
    add(" AND q.kind = ?", filter.kind.map(|k| kind_str(k).to_owned()));
    add(" AND q.run_id = ?", filter.run.clone());
    add(" AND q.thread_id = ?", filter.thread.clone());
    if cursor.is_some() {
        sql.push_str(" AND q.seq < ?");
    }
    sql.push_str(" ORDER BY q.seq DESC LIMIT ?");
    let mut query = sqlx::query(&sql);
    for b in &binds {
        query = query.bind(b);
    }
    if let Some(c) = cursor {
        query = query.bind(c);
    }
    let limit = limit.clamp(1, 500);
    let rows = query.bind(i64::from(limit) + 1).fetch_all(&mut *conn).await?;
    let more = rows.len() > limit as usize;
    let rows = &rows[..rows.len().min(limit as usize)];
    let next_cursor = if more { rows.last().map(|r| r.get::<i64, _>("seq")) } else { None };
    let entries = rows.iter().map(entry_from_row).collect::<Result<_, _>>()?;
    Ok(Page { entries, next_cursor })
}

/// How many entries are pending.
pub async fn count_pending(conn: &mut SqliteConnection) -> Result<i64, Error> {
    Ok(sqlx::query_scalar("SELECT COUNT(*) FROM queue_items WHERE state = 'pending'").fetch_one(&mut *conn).await?)
}

/// Every pending entry of an engine, oldest first.
pub async fn pending_of_engine(conn: &mut SqliteConnection, engine: &EngineId) -> Result<Vec<Entry>, Error> {
    let rows = sqlx::query(&format!("{SELECT} WHERE q.state = 'pending' AND q.engine = ? ORDER BY q.seq"))
        .bind(engine.as_str())
        .fetch_all(&mut *conn)
        .await?;
    rows.iter().map(entry_from_row).collect()
}

/// The state of the newest entry of one call that is not `gone`, if any.
pub async fn live_state(conn: &mut SqliteConnection, engine: &EngineId, run_id: &RunId, tool_call_id: &ToolCallId) -> Result<Option<ItemState>, Error> {
    let state: Option<String> = sqlx::query_scalar(
        "SELECT state FROM queue_items WHERE run_id = ? AND engine = ? AND tool_call_id = ? AND state <> 'gone' ORDER BY seq DESC LIMIT 1",
    )
    .bind(run_id.as_str())
    .bind(engine.as_str())
    .bind(tool_call_id.as_str())
    .fetch_optional(&mut *conn)
    .await?;
    state.map(|s| parse_state(&s)).transpose()
}

/// Per engine: (pending entries, decisions waiting for delivery).
pub async fn counts_by_engine(conn: &mut SqliteConnection) -> Result<std::collections::HashMap<String, (i64, i64)>, Error> {
    let mut out: std::collections::HashMap<String, (i64, i64)> = std::collections::HashMap::new();
    let rows = sqlx::query("SELECT engine, COUNT(*) AS n FROM queue_items WHERE state = 'pending' GROUP BY engine").fetch_all(&mut *conn).await?;
    for r in rows {
        out.entry(r.get("engine")).or_default().0 = r.get("n");
    }
    let rows = sqlx::query(
        "SELECT q.engine, COUNT(*) AS n FROM decisions d JOIN queue_items q ON q.id = d.queue_item_id
         WHERE d.delivery IN ('pending', 'delivering') GROUP BY q.engine",
    )
    .fetch_all(&mut *conn)
    .await?;
    for r in rows {
        out.entry(r.get("engine")).or_default().1 = r.get("n");
    }
    Ok(out)
}
