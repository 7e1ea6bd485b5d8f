//! Per-call expiry state (see [`crate::console::expiry`]): deadlines moved by a snooze, and the
//! warnings sent. The time limits themselves are settings.

use super::sql::{sql, tuple, Sql};
use super::{audit, parse_ts, ts, Db};
use crate::domain::audit::CallSnoozed;
use crate::domain::{Error, ItemId, QueuedCall};
use chrono::{DateTime, Utc};

/// Which calls a query asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Past their deadline.
    Due,
    /// Past their warning time and not yet warned.
    Unwarned,
}

/// A tool's limit as a cutoff: its pending calls paused at or before `cutoff` are past it. `tool`
/// `None` stands for every tool not named in `named`.
pub struct Cutoff<'a> {
    pub tool: Option<&'a str>,
    pub cutoff: DateTime<Utc>,
}

/// Pending calls past a cutoff of their tool's limit (unless snoozed), or whose snoozed deadline is
/// at or before `snoozed_cutoff`; at most `limit`, oldest first.
pub(in crate::store) async fn pending_past(
    conn: &mut impl Sql,
    cutoffs: &[Cutoff<'_>],
    named: &[String],
    snoozed_cutoff: DateTime<Utc>,
    ask: Ask,
    limit: i64,
) -> Result<Vec<ItemId>, Error> {
    let unwarned = if ask == Ask::Unwarned { " AND d.warned_at IS NULL" } else { "" };
    let mut parts = vec![format!(
        "SELECT q.id, q.paused_at FROM deadlines d JOIN queue_items q ON q.id = d.queue_item_id
         WHERE q.state = 'pending' AND d.never_reason IS NULL AND d.expires_at IS NOT NULL AND d.expires_at <= ?{unwarned}"
    )];
    let untouched = if ask == Ask::Unwarned {
        "NOT EXISTS (SELECT 1 FROM deadlines d WHERE d.queue_item_id = q.id AND (d.expires_at IS NOT NULL OR d.warned_at IS NOT NULL OR d.never_reason IS NOT NULL))"
    } else {
        "NOT EXISTS (SELECT 1 FROM deadlines d WHERE d.queue_item_id = q.id AND (d.expires_at IS NOT NULL OR d.never_reason IS NOT NULL))"
    };
    for c in cutoffs {
        let tool = match c.tool {
            Some(_) => "q.tool_name = ?".to_owned(),
            None if named.is_empty() => "TRUE".to_owned(),
            None => format!("q.tool_name NOT IN ({})", vec!["?"; named.len()].join(", ")),
        };
        parts.push(format!(
            "SELECT q.id, q.paused_at FROM queue_items q WHERE q.state = 'pending' AND {tool} AND q.paused_at <= ? AND {untouched}"
        ));
    }
    let text = super::numbered(&format!("SELECT id FROM ({}) AS due ORDER BY paused_at LIMIT ?", parts.join(" UNION ")));
    let mut query = sql(text).bind(ts(snoozed_cutoff));
    for c in cutoffs {
        match c.tool {
            Some(tool) => query = query.bind(tool),
            None => {
                for t in named {
                    query = query.bind(t);
                }
            }
        }
        query = query.bind(ts(c.cutoff));
    }
    let rows = query.bind(limit).fetch_all(&mut *conn).await?;
    rows.iter().map(|r| Ok(ItemId::new(r.try_get::<String>("id")?))).collect()
}

/// What is stored for one call.
#[derive(Debug, Default, PartialEq)]
pub struct Stored {
    /// A deadline set by a snooze.
    pub snoozed_until: Option<DateTime<Utc>>,
    /// Why it can never expire.
    pub never: Option<String>,
}

pub async fn stored(conn: &mut impl Sql, id: &ItemId) -> Result<Stored, Error> {
    let row: Option<(Option<String>, Option<String>)> = tuple("SELECT expires_at, never_reason FROM deadlines WHERE queue_item_id = $1")
        .bind(id.as_str())
        .fetch_optional(&mut *conn)
        .await?;
    let Some((until, never)) = row else { return Ok(Stored::default()) };
    Ok(Stored { snoozed_until: until.map(|t| parse_ts(&t)).transpose()?, never })
}

/// What is stored for each of these calls (see [`stored`]), in their order, read on one connection.
pub async fn stored_of(db: &Db, ids: &[ItemId]) -> Result<Vec<Stored>, Error> {
    let mut conn = db.pool().acquire().await?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        out.push(stored(&mut conn, id).await?);
    }
    Ok(out)
}

/// Notes that this call can never expire, and why; the expiry worker leaves it alone from now on.
pub(in crate::store) async fn mark_never(conn: &mut impl Sql, id: &ItemId, reason: &str) -> Result<(), Error> {
    sql("INSERT INTO deadlines (queue_item_id, never_reason) VALUES ($1, $2)
         ON CONFLICT (queue_item_id) DO UPDATE SET never_reason = excluded.never_reason")
    .bind(id.as_str())
    .bind(reason)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Moves the call's deadline to `until`; a warning will be sent again before it.
pub async fn snooze(conn: &mut impl Sql, id: &ItemId, until: DateTime<Utc>) -> Result<(), Error> {
    sql("INSERT INTO deadlines (queue_item_id, expires_at, warned_at) VALUES ($1, $2, NULL)
         ON CONFLICT (queue_item_id) DO UPDATE SET expires_at = excluded.expires_at, warned_at = NULL")
    .bind(id.as_str())
    .bind(ts(until))
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Notes that the call's "about to expire" warning went out.
pub(in crate::store) async fn mark_warned(conn: &mut impl Sql, id: &ItemId, at: DateTime<Utc>) -> Result<(), Error> {
    sql("INSERT INTO deadlines (queue_item_id, expires_at, warned_at) VALUES ($1, NULL, $2)
         ON CONFLICT (queue_item_id) DO UPDATE SET warned_at = excluded.warned_at")
    .bind(id.as_str())
    .bind(ts(at))
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// The calls past their cutoffs (see [`pending_past`]).
pub async fn past(
    db: &Db,
    cutoffs: &[Cutoff<'_>],
    named: &[String],
    snoozed_cutoff: DateTime<Utc>,
    ask: Ask,
    limit: i64,
) -> Result<Vec<ItemId>, Error> {
    let mut conn = db.pool().acquire().await?;
    pending_past(&mut conn, cutoffs, named, snoozed_cutoff, ask, limit).await
}

/// What is stored for the call `id` (see [`stored`]).
pub async fn stored_for(db: &Db, id: &ItemId) -> Result<Stored, Error> {
    let mut conn = db.pool().acquire().await?;
    stored(&mut conn, id).await
}

/// [`mark_never`] in a write of its own.
pub async fn record_never(db: &Db, id: &ItemId, reason: &str) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    mark_never(&mut tx, id, reason).await?;
    tx.commit().await
}

/// [`mark_warned`] in a write of its own.
pub async fn record_warned(db: &Db, id: &ItemId, at: DateTime<Utc>) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    mark_warned(&mut tx, id, at).await?;
    tx.commit().await
}

/// Moves the deadline of `item` from `from` to `until` with its `call.snoozed` audit entry (by `operator`) in one transaction.
pub async fn snooze_audited(db: &Db, item: &QueuedCall, from: DateTime<Utc>, until: DateTime<Utc>, operator: &str) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    snooze(&mut tx, &item.id, until).await?;
    let entry = (item.id.as_str(), item.call.tool_name.as_str(), item.call.fingerprint.as_str());
    audit::append(&mut tx, audit::Record::of(operator, Some(entry), &CallSnoozed { from, until })).await?;
    tx.commit().await
}
