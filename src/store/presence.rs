//! Presence: who has a call open right now, on any console of the team (one row per person and call,
//! refreshed by the open detail's heartbeat). Ephemeral: no audit, no change feed.

use super::sql::{sql, Sql};
use super::{parse_ts, queue, ts, Db};
use crate::domain::{Error, ItemId};
use chrono::{DateTime, Utc};
use serde::Serialize;

/// Someone who has a call open.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Viewer {
    /// As the audit log names them, with the channel of their last heartbeat: `alice (web)`.
    pub viewer: String,
    /// Since when they have had it open (their first heartbeat in a row).
    pub since: DateTime<Utc>,
    /// Their last heartbeat.
    pub seen_at: DateTime<Utc>,
}

/// `key` (named `viewer`) has `item` open at `now`: a new row, or a refreshed one. A row last seen
/// before `stale` was a visit that ended: it starts again at `now`. Rows of any call last seen
/// before `stale` are pruned.
pub async fn see(
    conn: &mut impl Sql,
    item: &ItemId,
    key: &str,
    viewer: &str,
    now: DateTime<Utc>,
    stale: DateTime<Utc>,
) -> Result<(), Error> {
    sql("DELETE FROM presence WHERE seen_at < $1").bind(ts(stale)).execute(&mut *conn).await?;
    sql("INSERT INTO presence (queue_item_id, viewer_key, viewer, since, seen_at) VALUES ($1, $2, $3, $4, $4)
         ON CONFLICT (queue_item_id, viewer_key) DO UPDATE SET viewer = excluded.viewer, seen_at = excluded.seen_at")
    .bind(item.as_str())
    .bind(key)
    .bind(viewer)
    .bind(ts(now))
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// `key` closed `item` (nothing happens when they had not opened it).
pub async fn leave(conn: &mut impl Sql, item: &ItemId, key: &str) -> Result<(), Error> {
    sql("DELETE FROM presence WHERE queue_item_id = $1 AND viewer_key = $2").bind(item.as_str()).bind(key).execute(&mut *conn).await?;
    Ok(())
}

/// Who else than `key` was seen on `item` since `fresh`, longest there first.
pub async fn others(conn: &mut impl Sql, item: &ItemId, key: &str, fresh: DateTime<Utc>) -> Result<Vec<Viewer>, Error> {
    let rows = sql("SELECT viewer, since, seen_at FROM presence WHERE queue_item_id = $1 AND viewer_key <> $2 AND seen_at >= $3
         ORDER BY since, viewer_key")
    .bind(item.as_str())
    .bind(key)
    .bind(ts(fresh))
    .fetch_all(&mut *conn)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(Viewer {
                viewer: r.try_get("viewer")?,
                since: parse_ts(&r.try_get::<String>("since")?)?,
                seen_at: parse_ts(&r.try_get::<String>("seen_at")?)?,
            })
        })
        .collect()
}

/// Records that `key` has `item` open ([`see`]) and answers the [`others`]; `None` (nothing written) when there is no entry `item`.
pub async fn record_viewing(
    db: &Db,
    item: &ItemId,
    key: &str,
    viewer: &str,
    now: DateTime<Utc>,
    stale: DateTime<Utc>,
) -> Result<Option<Vec<Viewer>>, Error> {
    // Each step on a connection of its own: the check, the write, the read.
    {
        let mut conn = db.pool().acquire().await?;
        if queue::get(&mut conn, item).await?.is_none() {
            return Ok(None);
        }
    }
    let mut tx = db.begin_write().await?;
    see(&mut tx, item, key, viewer, now, stale).await?;
    tx.commit().await?;
    let mut conn = db.pool().acquire().await?;
    Ok(Some(others(&mut conn, item, key, stale).await?))
}

/// `key` closed `item` (see [`leave`]), in a write of its own.
pub async fn record_leaving(db: &Db, item: &ItemId, key: &str) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    leave(&mut tx, item, key).await?;
    tx.commit().await
}
