//! The queue table: every paused call, with its state; reads join the decision taken on it.

use super::{decisions, now, parse_json, parse_ts, ts, Dialect};
use crate::domain::{
    AgentId, CallKind, CallSource, Decision, EngineId, Error, Fingerprint, ItemId, ItemState, PausedCall, QueuedCall, RunId, ToolCallId,
};
use sqlx::{any::AnyRow, AnyConnection, Row};

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
    /// When not empty: only entries in one of these states (as stored, so a state the code does not
    /// know yet simply matches nothing). Applies together with `state`.
    pub states: Vec<&'static str>,
    /// `Some(true)`: only entries whose decision was an expiry (declined because nobody decided in
    /// time); `Some(false)`: only entries without such a decision.
    pub expired: Option<bool>,
    pub engine: Option<String>,
    /// Only calls from this source (stored with each call).
    pub source: Option<CallSource>,
    pub agent: Option<String>,
    pub tool: Option<String>,
    pub kind: Option<CallKind>,
    pub run: Option<String>,
    pub thread: Option<String>,
    /// Search words: see [`Search`].
    pub search: Option<Search>,
    /// Oldest first instead of newest first.
    pub oldest_first: bool,
}

/// Words an entry must all contain, case-insensitively, in its tool name, agent id, agent name or
/// the JSON text of its arguments (as stored: compact, keys in their order).
///
/// Words of three characters or more are looked up in the `queue_search` FTS5 trigram index (fast
/// at any queue size; Unicode case folding). Shorter words cannot use trigrams: they are matched
/// with `LIKE` (ASCII case folding only) on the rows the long words left, or on every row if there
/// are none.
#[derive(Clone, Debug, PartialEq)]
pub struct Search {
    words: Vec<String>,
}

impl Search {
    /// Most words in one search.
    pub const MAX_WORDS: usize = 8;
    /// Longest search text, in characters.
    pub const MAX_CHARS: usize = 256;

    /// The words of `text` (split on whitespace); `Ok(None)` when there are none.
    pub fn parse(text: &str) -> Result<Option<Self>, Error> {
        if text.chars().count() > Self::MAX_CHARS {
            return Err(Error::InvalidRequest(format!("the search is longer than {} characters", Self::MAX_CHARS)));
        }
        let words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        if words.len() > Self::MAX_WORDS {
            return Err(Error::InvalidRequest(format!("a search has at most {} words", Self::MAX_WORDS)));
        }
        Ok((!words.is_empty()).then_some(Self { words }))
    }

    /// The FTS5 query of the long words (each a quoted phrase, so nothing in it is query syntax).
    fn fts_query(&self) -> Option<String> {
        let phrases: Vec<String> =
            self.words.iter().filter(|w| w.chars().count() >= 3).map(|w| format!("\"{}\"", w.replace('"', "\"\""))).collect();
        (!phrases.is_empty()).then(|| phrases.join(" AND "))
    }

    /// `LIKE` patterns of the words shorter than `shorter_than` characters (every word with
    /// 0), `\` escaping the wildcards.
    fn like_patterns(&self, shorter_than: usize) -> Vec<String> {
        self.words
            .iter()
            .filter(|w| shorter_than == 0 || w.chars().count() < shorter_than)
            .map(|w| format!("%{}%", w.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")))
            .collect()
    }
}

/// One page, in the filter's order; `next_cursor` continues after the last entry.
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

/// Adds a paused call as a pending entry (a trigger adds it to the search index). Fails if the
/// same call is already pending.
pub async fn insert_pending(conn: &mut AnyConnection, call: &PausedCall) -> Result<QueuedCall, Error> {
    let id = ItemId::generate();
    let at = now();
    sqlx::query(
        "INSERT INTO queue_items (id, engine, source, agent_id, agent_name, thread_id, resource_id, run_id, tool_call_id,
            tool_name, args, fingerprint, kind, suspend_payload, resume_schema, chain, pause_reason, requested_by, state, paused_at,
            updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, 'pending', $19, $20)",
    )
    .bind(id.as_str())
    .bind(call.engine.as_str())
    .bind(call.source.as_str())
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
    .bind(call.pause_reason.as_ref().map(|r| serde_json::to_string(r).expect("pause reason serializes")))
    .bind(call.requested_by.as_deref())
    .bind(ts(at))
    .bind(ts(at))
    .execute(&mut *conn)
    .await?;
    Ok(QueuedCall { id, call: call.clone(), state: ItemState::Pending, paused_at: at })
}

/// Queues `call` as a pending entry and audits it (`call.paused`, by `actor`, with
/// [`CallPaused`](crate::domain::audit::CallPaused) details from `origin`): the one way a paused call
/// enters the queue with its audit entry.
pub async fn pause(
    conn: &mut AnyConnection,
    actor: &str,
    call: &PausedCall,
    origin: crate::domain::audit::PauseOrigin<'_>,
) -> Result<QueuedCall, Error> {
    let item = insert_pending(conn, call).await?;
    let details = crate::domain::audit::CallPaused::of(call, origin);
    super::audit::append(
        conn,
        super::audit::Record::of(actor, Some((item.id.as_str(), &call.tool_name, call.fingerprint.as_str())), &details),
    )
    .await?;
    Ok(item)
}

/// A call that changed at its engine queued again as it is now: a new pending entry with its own
/// fingerprint, audited `call.paused` on the new one and `call.changed` on the old entry (before and
/// after, and `why` when given), in the caller's transaction. The old entry is the caller's to end.
pub async fn requeue_changed(
    conn: &mut AnyConnection,
    actor: &str,
    old: &crate::domain::QueuedCall,
    now: &PausedCall,
    why: Option<&str>,
) -> Result<crate::domain::QueuedCall, Error> {
    let new = pause(conn, actor, now, crate::domain::audit::PauseOrigin::Engine {}).await?;
    let mut details = serde_json::json!({
        "runId": now.run_id, "toolCallId": now.tool_call_id, "replacedBy": new.id,
        "before": { "fingerprint": old.call.fingerprint, "args": old.call.args },
        "after": { "fingerprint": now.fingerprint, "args": now.args },
    });
    if let Some(why) = why {
        details["why"] = serde_json::json!(why);
    }
    super::audit::append(
        conn,
        super::audit::Record {
            actor,
            action: crate::domain::audit::AuditAction::CallChanged,
            queue_item_id: Some(old.id.as_str()),
            tool_name: Some(&now.tool_name),
            fingerprint: Some(now.fingerprint.as_str()),
            details,
        },
    )
    .await?;
    Ok(new)
}

/// The ids that start with `prefix` (the id itself among them if it is one), at most `limit`.
pub async fn ids_starting_with(conn: &mut AnyConnection, prefix: &str, limit: i64) -> Result<Vec<ItemId>, Error> {
    let escaped = prefix.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
    let ids: Vec<String> = sqlx::query_scalar("SELECT id FROM queue_items WHERE id LIKE $1 ESCAPE '\\' ORDER BY id LIMIT $2")
        .bind(format!("{escaped}%"))
        .bind(limit)
        .fetch_all(&mut *conn)
        .await?;
    Ok(ids.into_iter().map(ItemId::new).collect())
}

/// Moves an entry from `from` to `to`; returns false (and changes nothing) if it was not in `from`.
pub async fn transition(conn: &mut AnyConnection, id: &ItemId, from: ItemState, to: ItemState) -> Result<bool, Error> {
    let done = sqlx::query("UPDATE queue_items SET state = $1, updated_at = $2 WHERE id = $3 AND state = $4")
        .bind(state_str(to))
        .bind(ts(now()))
        .bind(id.as_str())
        .bind(state_str(from))
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Marks every pending entry of a run as `gone` (the run ended without them being decided).
pub async fn retire_run(conn: &mut AnyConnection, engine: &EngineId, run_id: &RunId) -> Result<Vec<ItemId>, Error> {
    let rows = sqlx::query(
        "UPDATE queue_items SET state = 'gone', updated_at = $1 WHERE engine = $2 AND run_id = $3 AND state = 'pending' RETURNING id",
    )
    .bind(ts(now()))
    .bind(engine.as_str())
    .bind(run_id.as_str())
    .fetch_all(&mut *conn)
    .await?;
    rows.iter().map(|r| Ok(ItemId::new(r.try_get::<String, _>(0)?))).collect()
}

/// The columns [`entry_from_row`] reads: a queue row and the decision taken on it (`d`).
const COLUMNS: &str = "SELECT q.seq, q.id, q.engine, q.source, q.agent_id, q.agent_name, q.thread_id, q.resource_id, q.run_id,
    q.tool_call_id, q.tool_name, q.args, q.fingerprint, q.kind, q.suspend_payload, q.resume_schema, q.chain, q.pause_reason, q.requested_by,
    q.state, q.paused_at,
    d.id AS d_id, d.kind AS d_kind, d.fingerprint AS d_fingerprint, d.reason AS d_reason, d.data AS d_data,
    d.operator AS d_operator, d.decided_at AS d_decided_at, d.delivery AS d_delivery, d.outcome AS d_outcome,
    d.attempts AS d_attempts, d.last_error AS d_last_error, d.next_attempt_at AS d_next_attempt_at";
/// The rows of [`COLUMNS`]: every queue entry, with its decision if any.
const FROM: &str = " FROM queue_items q LEFT JOIN decisions d ON d.queue_item_id = q.id";

fn entry_from_row(row: &AnyRow) -> Result<Entry, Error> {
    let opt_json = |col: &str| -> Result<Option<serde_json::Value>, Error> {
        row.try_get::<Option<String>, _>(col)?.map(|t| parse_json(&t)).transpose()
    };
    let fingerprint: String = row.try_get("fingerprint")?;
    let call = PausedCall {
        engine: EngineId::new(row.try_get::<String, _>("engine")?),
        source: {
            let source: String = row.try_get("source")?;
            CallSource::parse(&source).ok_or_else(|| Error::Storage(format!("unknown call source {source:?} in database")))?
        },
        agent_id: AgentId::new(row.try_get::<String, _>("agent_id")?),
        agent_name: row.try_get("agent_name")?,
        thread_id: row.try_get("thread_id")?,
        resource_id: row.try_get("resource_id")?,
        run_id: RunId::new(row.try_get::<String, _>("run_id")?),
        tool_call_id: ToolCallId::new(row.try_get::<String, _>("tool_call_id")?),
        tool_name: row.try_get("tool_name")?,
        args: parse_json(&row.try_get::<String, _>("args")?)?,
        fingerprint: Fingerprint::parse(&fingerprint)
            .ok_or_else(|| Error::Storage(format!("bad fingerprint {fingerprint:?} in database")))?,
        kind: match row.try_get::<String, _>("kind")?.as_str() {
            "approval" => CallKind::Approval,
            "suspend" => CallKind::Suspend,
            other => return Err(Error::Storage(format!("unknown call kind {other:?} in database"))),
        },
        suspend_payload: opt_json("suspend_payload")?,
        resume_schema: opt_json("resume_schema")?,
        chain: serde_json::from_str(&row.try_get::<String, _>("chain")?)
            .map_err(|e| Error::Storage(format!("bad chain in database: {e}")))?,
        // An unreadable reason is only a missing explanation, never a broken entry.
        pause_reason: row.try_get::<Option<String>, _>("pause_reason")?.and_then(|t| serde_json::from_str(&t).ok()),
        requested_by: row.try_get("requested_by")?,
    };
    let queued = QueuedCall {
        id: ItemId::new(row.try_get::<String, _>("id")?),
        call,
        state: parse_state(&row.try_get::<String, _>("state")?)?,
        paused_at: parse_ts(&row.try_get::<String, _>("paused_at")?)?,
    };
    let decision = decisions::from_joined_row(row, &queued.id)?;
    Ok(Entry { queued, decision })
}

/// One entry by id.
pub async fn get(conn: &mut AnyConnection, id: &ItemId) -> Result<Option<Entry>, Error> {
    let row = sqlx::query(&format!("{COLUMNS}{FROM} WHERE q.id = $1")).bind(id.as_str()).fetch_optional(&mut *conn).await?;
    row.as_ref().map(entry_from_row).transpose()
}

/// The pending entry of one call of a run.
pub async fn find_pending(
    conn: &mut AnyConnection,
    engine: &EngineId,
    run_id: &RunId,
    tool_call_id: &ToolCallId,
) -> Result<Option<Entry>, Error> {
    let row =
        sqlx::query(&format!("{COLUMNS}{FROM} WHERE q.engine = $1 AND q.run_id = $2 AND q.tool_call_id = $3 AND q.state = 'pending'"))
            .bind(engine.as_str())
            .bind(run_id.as_str())
            .bind(tool_call_id.as_str())
            .fetch_optional(&mut *conn)
            .await?;
    row.as_ref().map(entry_from_row).transpose()
}

/// The pending entries of a run, oldest first.
pub async fn pending_of_run(conn: &mut AnyConnection, engine: &EngineId, run_id: &RunId) -> Result<Vec<Entry>, Error> {
    let rows = sqlx::query(&format!("{COLUMNS}{FROM} WHERE q.engine = $1 AND q.run_id = $2 AND q.state = 'pending' ORDER BY q.seq"))
        .bind(engine.as_str())
        .bind(run_id.as_str())
        .fetch_all(&mut *conn)
        .await?;
    rows.iter().map(entry_from_row).collect()
}

/// The call an operator decided last before `id` of the same engine, thread and tool (a call
/// without a thread has none): approved, declined, answered or approved with edits — an expiry is
/// nobody's decision and is skipped. With its decision.
pub async fn previous_decided(conn: &mut AnyConnection, id: &ItemId) -> Result<Option<Entry>, Error> {
    let row = sqlx::query(&format!(
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

/// Whether the decision joined as `d` is an expiry: a decline stored with `expiredAfterSecs` in its
/// data (see `decisions::insert`); NULL (false) without a decision.
pub(crate) const EXPIRED: &str = "(d.kind = 'decline' AND COALESCE(d.data, '') LIKE '{\"expiredAfterSecs\":%')";

/// A value bound to a query built at run time.
enum Bind {
    Text(String),
    Int(i64),
}

/// How the rows of a listing are reached.
#[derive(Clone, Copy, PartialEq)]
enum Drive {
    /// Pages: queue rows (through the search index when searching, which hands them over in
    /// `seq` order so a page stops early), each with its decision if any (`d`).
    Entries,
    /// Counting every entry: queue rows only, so the state indexes answer.
    Counts,
    /// Counting expired entries: from the decisions (few are expiries), each to its queue row; the
    /// search is checked per row.
    Expired,
}

/// The `FROM` and `WHERE` of a listing under `filter` (its state conditions only for
/// [`Drive::Entries`]), the column that orders it (`seq`, or the search index's rowid, the same
/// number), and the values to bind.
fn select_from(filter: &Filter, drive: Drive, dialect: Dialect) -> (String, &'static str, Vec<Bind>) {
    let mut binds = Vec::new();
    // SQLite searches its trigram index (FTS5) for the long words; PostgreSQL its trigram index
    // (pg_trgm) on `search_text` for every word, through ILIKE.
    let fts = match dialect {
        Dialect::Sqlite => filter.search.as_ref().and_then(Search::fts_query),
        Dialect::Postgres => None,
    };
    let (mut sql, order_col) = match (drive, fts) {
        (Drive::Expired, fts) => {
            // SQLite: CROSS JOIN keeps the decisions as the outer loop (few are expiries).
            let join = if dialect == Dialect::Sqlite { "CROSS JOIN" } else { "JOIN" };
            let mut sql = format!(" FROM decisions d {join} queue_items q ON q.id = d.queue_item_id WHERE d.kind = 'decline' AND d.data IS NOT NULL AND {EXPIRED}");
            if let Some(query) = fts {
                sql.push_str(" AND EXISTS (SELECT 1 FROM queue_search WHERE queue_search MATCH ? AND rowid = q.seq)");
                binds.push(Bind::Text(query));
            }
            (sql, "q.seq")
        }
        (drive, Some(query)) => {
            binds.push(Bind::Text(query));
            let decisions = if drive == Drive::Entries { " LEFT JOIN decisions d ON d.queue_item_id = q.id" } else { "" };
            (format!(" FROM queue_search s JOIN queue_items q ON q.seq = s.rowid{decisions} WHERE queue_search MATCH ?"), "s.rowid")
        }
        (Drive::Entries, None) => (" FROM queue_items q LEFT JOIN decisions d ON d.queue_item_id = q.id WHERE TRUE".to_owned(), "q.seq"),
        (Drive::Counts, None) => (" FROM queue_items q WHERE TRUE".to_owned(), "q.seq"),
    };
    let with_state = drive == Drive::Entries;
    let mut add = |clause: &str, value: Option<String>| {
        if let Some(v) = value {
            sql.push_str(clause);
            binds.push(Bind::Text(v));
        }
    };
    if with_state {
        add(" AND q.state = ?", filter.state.map(|s| state_str(s).to_owned()));
    }
    add(" AND q.engine = ?", filter.engine.clone());
    add(" AND q.agent_id = ?", filter.agent.clone());
    add(" AND q.tool_name = ?", filter.tool.clone());
    add(" AND q.kind = ?", filter.kind.map(|k| kind_str(k).to_owned()));
    add(" AND q.run_id = ?", filter.run.clone());
    add(" AND q.thread_id = ?", filter.thread.clone());
    add(" AND q.source = ?", filter.source.map(|s| s.as_str().to_owned()));
    if with_state && !filter.states.is_empty() {
        sql.push_str(&format!(" AND q.state IN ({})", vec!["?"; filter.states.len()].join(", ")));
        binds.extend(filter.states.iter().map(|s| Bind::Text((*s).to_owned())));
    }
    match filter.expired {
        Some(true) if with_state => sql.push_str(&format!(" AND {EXPIRED}")),
        Some(false) if with_state => sql.push_str(&format!(" AND NOT COALESCE({EXPIRED}, FALSE)")),
        _ => {}
    }
    if dialect == Dialect::Postgres {
        for pattern in filter.search.as_ref().map(|s| s.like_patterns(0)).unwrap_or_default() {
            sql.push_str(" AND q.search_text ILIKE ? ESCAPE '\\'");
            binds.push(Bind::Text(pattern));
        }
        return (sql, order_col, binds);
    }
    for pattern in filter.search.as_ref().map(|s| s.like_patterns(3)).unwrap_or_default() {
        sql.push_str(
            " AND (q.tool_name LIKE ? ESCAPE '\\' OR q.agent_id LIKE ? ESCAPE '\\' OR COALESCE(q.agent_name, '') LIKE ? ESCAPE '\\' OR q.args LIKE ? ESCAPE '\\')",
        );
        binds.extend((0..4).map(|_| Bind::Text(pattern.clone())));
    }
    (sql, order_col, binds)
}

fn bind_all<'q>(
    mut query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
    binds: &'q [Bind],
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    for b in binds {
        query = match b {
            Bind::Text(t) => query.bind(t.as_str()),
            Bind::Int(i) => query.bind(*i),
        };
    }
    query
}

/// A page of entries, newest first (oldest first with `filter.oldest_first`), after `cursor` (a
/// `seq` from an earlier page of the same order).
pub async fn list(conn: &mut AnyConnection, filter: &Filter, cursor: Option<i64>, limit: u32) -> Result<Page, Error> {
    let (from, order_col, mut binds) = select_from(filter, Drive::Entries, Dialect::of(conn));
    let (cmp, dir) = if filter.oldest_first { (">", "ASC") } else { ("<", "DESC") };
    let mut sql = format!("{COLUMNS}{from}");
    if let Some(c) = cursor {
        sql.push_str(&format!(" AND {order_col} {cmp} ?"));
        binds.push(Bind::Int(c));
    }
    sql.push_str(&format!(" ORDER BY {order_col} {dir} LIMIT ?"));
    let limit = limit.clamp(1, 500);
    binds.push(Bind::Int(i64::from(limit) + 1));
    let sql = super::numbered(&sql);
    let rows = bind_all(sqlx::query(&sql), &binds).fetch_all(&mut *conn).await?;
    let more = rows.len() > limit as usize;
    let rows = &rows[..rows.len().min(limit as usize)];
    let next_cursor = if more { rows.last().map(|r| r.try_get::<i64, _>("seq")).transpose()? } else { None };
    let entries = rows.iter().map(entry_from_row).collect::<Result<_, _>>()?;
    Ok(Page { entries, next_cursor })
}

/// How many entries match `filter` (its `state`, `states` and `expired` ignored) in each state, and
/// whether their decision was an expiry: `(state as stored, expired, count)`; empty groups left out.
///
/// Two queries: every entry by state (on the state indexes, without the decisions), then the
/// expired ones by state (from the decisions: declines with data), taken out of the first counts.
pub async fn count_by_state(conn: &mut AnyConnection, filter: &Filter) -> Result<Vec<(String, bool, i64)>, Error> {
    let dialect = Dialect::of(conn);
    let (from, _, binds) = select_from(filter, Drive::Counts, dialect);
    let sql = super::numbered(&format!("SELECT q.state AS state, COUNT(*) AS n{from} GROUP BY q.state"));
    let rows = bind_all(sqlx::query(&sql), &binds).fetch_all(&mut *conn).await?;
    let mut counts: Vec<(String, bool, i64)> =
        rows.iter().map(|r| Ok((r.try_get("state")?, false, r.try_get("n")?))).collect::<Result<_, Error>>()?;
    let (from, _, binds) = select_from(filter, Drive::Expired, dialect);
    let sql = super::numbered(&format!("SELECT q.state AS state, COUNT(*) AS n{from} GROUP BY q.state"));
    for row in bind_all(sqlx::query(&sql), &binds).fetch_all(&mut *conn).await? {
        let (state, n): (String, i64) = (row.try_get("state")?, row.try_get("n")?);
        if let Some(all) = counts.iter_mut().find(|(s, _, _)| *s == state) {
            all.2 -= n;
        }
        counts.push((state, true, n));
    }
    counts.retain(|(_, _, n)| *n > 0);
    Ok(counts)
}

/// How many entries are pending.
pub async fn count_pending(conn: &mut AnyConnection) -> Result<i64, Error> {
    Ok(sqlx::query_scalar("SELECT COUNT(*) FROM queue_items WHERE state = 'pending'").fetch_one(&mut *conn).await?)
}

/// Every pending entry of an engine, oldest first.
pub async fn pending_of_engine(conn: &mut AnyConnection, engine: &EngineId) -> Result<Vec<Entry>, Error> {
    let rows = sqlx::query(&format!("{COLUMNS}{FROM} WHERE q.state = 'pending' AND q.engine = $1 ORDER BY q.seq"))
        .bind(engine.as_str())
        .fetch_all(&mut *conn)
        .await?;
    rows.iter().map(entry_from_row).collect()
}

/// The state of the newest entry of one call that is not `gone`, if any.
pub async fn live_state(
    conn: &mut AnyConnection,
    engine: &EngineId,
    run_id: &RunId,
    tool_call_id: &ToolCallId,
) -> Result<Option<ItemState>, Error> {
    let state: Option<String> = sqlx::query_scalar(
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
pub async fn counts_by_engine(conn: &mut AnyConnection) -> Result<std::collections::HashMap<String, (i64, i64)>, Error> {
    let mut out: std::collections::HashMap<String, (i64, i64)> = std::collections::HashMap::new();
    let rows =
        sqlx::query("SELECT engine, COUNT(*) AS n FROM queue_items WHERE state = 'pending' GROUP BY engine").fetch_all(&mut *conn).await?;
    for r in rows {
        out.entry(r.try_get("engine")?).or_default().0 = r.try_get("n")?;
    }
    let rows = sqlx::query(
        "SELECT q.engine, COUNT(*) AS n FROM decisions d JOIN queue_items q ON q.id = d.queue_item_id
         WHERE d.delivery IN ('pending', 'delivering') GROUP BY q.engine",
    )
    .fetch_all(&mut *conn)
    .await?;
    for r in rows {
        out.entry(r.try_get("engine")?).or_default().1 = r.try_get("n")?;
    }
    Ok(out)
}
