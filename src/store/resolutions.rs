//! Resolutions of interrupted calls: what the operator said became of a call whose delivery a stop
//! of the console cut short.

use super::sql::{sql, Sql};
use super::{parse_json, parse_ts, ts, Db};
use crate::domain::audit::{CallRef, ResolutionRecorded};
use crate::domain::{DecisionKind, Error, Fingerprint, ItemId, QueuedCall};
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

/// A stored resolution.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Stored {
    /// `ran`, `did_not_run` or `run_again`.
    pub kind: DecisionKind,
    /// What the model was told the call returned (`ran`, `did_not_run`); null for `run_again`.
    #[schema(required = true)]
    pub result: Option<Value>,
    #[schema(value_type = String)]
    pub fingerprint: Fingerprint,
    pub operator: String,
    pub resolved_at: DateTime<Utc>,
    /// `run_again`: the new entry whose approval runs the call again.
    #[schema(value_type = Option<String>, required = true)]
    pub retry_item: Option<ItemId>,
}

/// Stores the one resolution of `item`. A second one is `already_decided` (state `interrupted`),
/// whatever the caller checked before: the primary key refuses it.
pub async fn insert(conn: &mut impl Sql, item: &ItemId, r: &Stored) -> Result<(), Error> {
    let kind = match r.kind {
        DecisionKind::Ran | DecisionKind::DidNotRun | DecisionKind::RunAgain => r.kind.as_str(),
        other => return Err(Error::Storage(format!("{} is not a resolution", other.as_str()))),
    };
    let done = sql("INSERT INTO resolutions (queue_item_id, kind, result, fingerprint, operator, resolved_at, retry_item_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (queue_item_id) DO NOTHING")
    .bind(item.as_str())
    .bind(kind)
    .bind(r.result.as_ref().map(Value::to_string))
    .bind(r.fingerprint.as_str())
    .bind(&r.operator)
    .bind(ts(r.resolved_at))
    .bind(r.retry_item.as_ref().map(ItemId::as_str))
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() == 0 {
        return Err(Error::AlreadyDecided { state: crate::domain::ItemState::Interrupted });
    }
    Ok(())
}

/// Stores the resolution of `item` with its audit entry (`resolution.<kind>`), in the caller's
/// transaction: the engine's own change (the run told what became of the call) commits with it.
pub async fn record(conn: &mut super::writer::WriteTx, item: &QueuedCall, r: &Stored) -> Result<(), Error> {
    insert(conn, &item.id, r).await?;
    let details = ResolutionRecorded { kind: r.kind, call: CallRef::of(&item.call), told: &r.result, retry_item: &r.retry_item };
    let item = (item.id.as_str(), item.call.tool_name.as_str(), r.fingerprint.as_str());
    super::audit::append(conn, super::audit::Record::of(&r.operator, Some(item), &details)).await?;
    Ok(())
}

/// The resolution of `item`, if it has one.
pub async fn get(conn: &mut impl Sql, item: &ItemId) -> Result<Option<Stored>, Error> {
    let row = sql("SELECT kind, result, fingerprint, operator, resolved_at, retry_item_id FROM resolutions WHERE queue_item_id = $1")
        .bind(item.as_str())
        .fetch_optional(&mut *conn)
        .await?;
    let Some(row) = row else { return Ok(None) };
    let kind = match row.try_get::<String>("kind")?.as_str() {
        "ran" => DecisionKind::Ran,
        "did_not_run" => DecisionKind::DidNotRun,
        "run_again" => DecisionKind::RunAgain,
        other => return Err(Error::Storage(format!("unknown resolution kind {other:?}"))),
    };
    let text: String = row.try_get("fingerprint")?;
    let fingerprint = Fingerprint::parse(&text).ok_or_else(|| Error::Storage(format!("stored resolution fingerprint {text:?}")))?;
    Ok(Some(Stored {
        kind,
        result: row.try_get::<Option<String>>("result")?.map(|t| parse_json(&t)).transpose()?,
        fingerprint,
        operator: row.try_get("operator")?,
        resolved_at: parse_ts(&row.try_get::<String>("resolved_at")?)?,
        retry_item: row.try_get::<Option<String>>("retry_item_id")?.map(ItemId::new),
    }))
}

/// The resolution of each of these entries, if it has one (see [`get`]), in their order, read on one connection.
pub async fn of_items(db: &Db, items: &[ItemId]) -> Result<Vec<Option<Stored>>, Error> {
    let mut conn = db.pool().acquire().await?;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.push(get(&mut conn, item).await?);
    }
    Ok(out)
}

/// The resolution of `item`, if it has one (see [`get`]).
pub async fn find(db: &Db, item: &ItemId) -> Result<Option<Stored>, Error> {
    let mut conn = db.pool().acquire().await?;
    get(&mut conn, item).await
}

/// A `run_again` resolution of `item` in one transaction: a new pending entry for the same call, and
/// the resolution naming it (see [`record`]). Answers the new entry.
pub async fn record_run_again(db: &Db, item: &QueuedCall, mut r: Stored) -> Result<QueuedCall, Error> {
    let mut tx = db.begin_write().await?;
    let retry = super::queue::insert_pending(&mut tx, &item.call).await?;
    r.retry_item = Some(retry.id.clone());
    record(&mut tx, item, &r).await?;
    tx.commit().await?;
    Ok(retry)
}
