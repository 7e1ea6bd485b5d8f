//! Approvals of calls whose tool needs several (the two-person rule): one row per operator and call.
//! The approval that completes a quorum is stored here too, beside the decision it becomes.

use crate::domain::{Approval, Error, Fingerprint, ItemId};
use crate::store::cells::Cells;
use crate::store::sql::{sql, Sql};
use crate::store::{lite, numbered, parse_ts, ts, Db};
use std::collections::HashMap;

/// Stores `approval` of `item`; false (and nothing stored) if its operator approved `item` already:
/// the primary key refuses a second one, whatever the caller checked.
pub async fn insert(conn: &mut impl Sql, item: &ItemId, approval: &Approval) -> Result<bool, Error> {
    let done = sql("INSERT INTO approvals (queue_item_id, operator_key, operator, fingerprint, approved_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (queue_item_id, operator_key) DO NOTHING")
    .bind(item.as_str())
    .bind(&approval.operator_key)
    .bind(&approval.operator)
    .bind(approval.fingerprint.as_str())
    .bind(ts(approval.approved_at))
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

const OF: &str = "SELECT queue_item_id, operator_key, operator, fingerprint, approved_at FROM approvals WHERE queue_item_id = $1
         ORDER BY approved_at, operator_key";

/// The approvals of `item`, oldest first.
pub async fn of(conn: &mut impl Sql, item: &ItemId) -> Result<Vec<Approval>, Error> {
    let rows = sql(OF).bind(item.as_str()).fetch_all(&mut *conn).await?;
    rows.iter().map(|r| from_row(r).map(|(_, a)| a)).collect()
}

/// The approvals of each of these entries that has any, oldest first, by entry id.
pub async fn of_items(conn: &mut impl Sql, items: &[&str]) -> Result<HashMap<String, Vec<Approval>>, Error> {
    let mut out: HashMap<String, Vec<Approval>> = HashMap::new();
    if items.is_empty() {
        return Ok(out);
    }
    let text = of_items_sql(items.len());
    let mut query = sql(text);
    for item in items {
        query = query.bind(*item);
    }
    for row in query.fetch_all(&mut *conn).await? {
        let (item, approval) = from_row(&row)?;
        out.entry(item).or_default().push(approval);
    }
    Ok(out)
}

fn of_items_sql(n: usize) -> String {
    numbered(&format!(
        "SELECT queue_item_id, operator_key, operator, fingerprint, approved_at FROM approvals WHERE queue_item_id IN ({})
         ORDER BY approved_at, operator_key",
        vec!["?"; n].join(", ")
    ))
}

fn from_row(row: &impl Cells) -> Result<(String, Approval), Error> {
    let text: String = row.cell("fingerprint")?;
    let fingerprint = Fingerprint::parse(&text).ok_or_else(|| Error::Storage(format!("stored approval fingerprint {text:?}")))?;
    Ok((
        row.cell("queue_item_id")?,
        Approval {
            operator: row.cell("operator")?,
            operator_key: row.cell("operator_key")?,
            fingerprint,
            approved_at: parse_ts(&row.cell::<String>("approved_at")?)?,
        },
    ))
}

/// The approvals of each of these entries that has any, by entry id (see [`of_items`]): a page's
/// worth of point reads, on SQLite without a hop ([`crate::store::lite`]).
pub async fn of_queue_items(db: &Db, items: &[&str]) -> Result<HashMap<String, Vec<Approval>>, Error> {
    let Some(readers) = db.readers() else {
        return of_items(&mut *db.pool().acquire().await?, items).await;
    };
    if items.is_empty() {
        return Ok(HashMap::new());
    }
    readers
        .read(|c| {
            let args: Vec<&dyn rusqlite::ToSql> = items.iter().map(|i| i as &dyn rusqlite::ToSql).collect();
            let mut out: HashMap<String, Vec<Approval>> = HashMap::new();
            for (item, approval) in lite::rows(c, &of_items_sql(items.len()), &args, |r| from_row(r))? {
                out.entry(item).or_default().push(approval);
            }
            Ok(out)
        })
        .await
}

/// The approvals of `item`, oldest first (see [`of`]).
pub async fn of_call(db: &Db, item: &ItemId) -> Result<Vec<Approval>, Error> {
    if let Some(readers) = db.readers() {
        return readers.read(|c| Ok(lite::rows(c, OF, &[&item.as_str()], |r| from_row(r))?.into_iter().map(|(_, a)| a).collect())).await;
    }
    let mut conn = db.pool().acquire().await?;
    of(&mut conn, item).await
}
