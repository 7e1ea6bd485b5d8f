//! Approvals of calls whose tool needs several (the two-person rule): one row per operator and call.
//! The approval that completes a quorum is stored here too, beside the decision it becomes.

use crate::domain::{Approval, Error, Fingerprint, ItemId};
use crate::store::{numbered, parse_ts, ts, Db};
use sqlx::{any::AnyRow, AnyConnection, Row};
use std::collections::HashMap;

/// Stores `approval` of `item`; false (and nothing stored) if its operator approved `item` already:
/// the primary key refuses a second one, whatever the caller checked.
pub async fn insert(conn: &mut AnyConnection, item: &ItemId, approval: &Approval) -> Result<bool, Error> {
    let done = sqlx::query(
        "INSERT INTO approvals (queue_item_id, operator_key, operator, fingerprint, approved_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (queue_item_id, operator_key) DO NOTHING",
    )
    .bind(item.as_str())
    .bind(&approval.operator_key)
    .bind(&approval.operator)
    .bind(approval.fingerprint.as_str())
    .bind(ts(approval.approved_at))
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The approvals of `item`, oldest first.
pub async fn of(conn: &mut AnyConnection, item: &ItemId) -> Result<Vec<Approval>, Error> {
    let rows = sqlx::query(
        "SELECT queue_item_id, operator_key, operator, fingerprint, approved_at FROM approvals WHERE queue_item_id = $1
         ORDER BY approved_at, operator_key",
    )
    .bind(item.as_str())
    .fetch_all(&mut *conn)
    .await?;
    rows.iter().map(|r| from_row(r).map(|(_, a)| a)).collect()
}

/// The approvals of each of these entries that has any, oldest first, by entry id.
pub async fn of_items(conn: &mut AnyConnection, items: &[&str]) -> Result<HashMap<String, Vec<Approval>>, Error> {
    let mut out: HashMap<String, Vec<Approval>> = HashMap::new();
    if items.is_empty() {
        return Ok(out);
    }
    let sql = numbered(&format!(
        "SELECT queue_item_id, operator_key, operator, fingerprint, approved_at FROM approvals WHERE queue_item_id IN ({})
         ORDER BY approved_at, operator_key",
        vec!["?"; items.len()].join(", ")
    ));
    let mut query = sqlx::query(&sql);
    for item in items {
        query = query.bind(*item);
    }
    for row in query.fetch_all(&mut *conn).await? {
        let (item, approval) = from_row(&row)?;
        out.entry(item).or_default().push(approval);
    }
    Ok(out)
}

fn from_row(row: &AnyRow) -> Result<(String, Approval), Error> {
    let text: String = row.try_get("fingerprint")?;
    let fingerprint = Fingerprint::parse(&text).ok_or_else(|| Error::Storage(format!("stored approval fingerprint {text:?}")))?;
    Ok((
        row.try_get("queue_item_id")?,
        Approval {
            operator: row.try_get("operator")?,
            operator_key: row.try_get("operator_key")?,
            fingerprint,
            approved_at: parse_ts(&row.try_get::<String, _>("approved_at")?)?,
        },
    ))
}

/// The approvals of each of these entries that has any, by entry id (see [`of_items`]).
pub async fn of_queue_items(db: &Db, items: &[&str]) -> Result<HashMap<String, Vec<Approval>>, Error> {
    let mut conn = db.pool().acquire().await?;
    of_items(&mut conn, items).await
}

/// The approvals of `item`, oldest first (see [`of`]).
pub async fn of_call(db: &Db, item: &ItemId) -> Result<Vec<Approval>, Error> {
    let mut conn = db.pool().acquire().await?;
    of(&mut conn, item).await
}
