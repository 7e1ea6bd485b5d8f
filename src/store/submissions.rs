//! Submitted calls (`POST /api/calls`): who submitted each one, under which idempotency key, and
//! what they said around it. The text of the file an edit changes (`file_text`, taken out of the
//! context by [`crate::domain::context::seal`]) is kept only while the call waits: a trigger empties
//! it as the call leaves `pending`, whoever decides it (migrations `…_submission_file_text.sql`).

use super::sql::{sql, Row, Sql};
use super::writer::WriteTx;
use super::{parse_json, queue, ts, Db};
use crate::domain::audit::PauseOrigin;
use crate::domain::{Decision, Error, ItemId, ItemState, PausedCall, QueuedCall};
use chrono::{DateTime, Utc};
use serde_json::Value;

/// One submission.
#[derive(Clone, Debug, PartialEq)]
pub struct Submission {
    pub item: ItemId,
    /// `Principal::key()` of the credential that submitted it.
    pub principal_key: String,
    pub idempotency_key: String,
    pub request_hash: String,
    /// Sealed: the file's path, size and hash, never its text.
    pub context: Option<Value>,
    pub submitted_at: DateTime<Utc>,
}

/// Stores `s` with the text of its file, if any, kept until the call leaves the queue; false
/// (nothing stored) when its principal used its idempotency key already.
pub async fn insert(conn: &mut impl Sql, s: &Submission, file_text: Option<&str>) -> Result<bool, Error> {
    let done =
        sql("INSERT INTO submissions (queue_item_id, principal_key, idempotency_key, request_hash, context, submitted_at, file_text)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (principal_key, idempotency_key) DO NOTHING")
        .bind(s.item.as_str())
        .bind(&s.principal_key)
        .bind(&s.idempotency_key)
        .bind(&s.request_hash)
        .bind(s.context.as_ref().map(Value::to_string))
        .bind(ts(s.submitted_at))
        .bind(file_text)
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

const COLUMNS: &str = "SELECT queue_item_id, principal_key, idempotency_key, request_hash, context, submitted_at FROM submissions";

/// The submission `principal_key` made under `key`, if any.
pub(in crate::store) async fn by_key(conn: &mut impl Sql, principal_key: &str, key: &str) -> Result<Option<Submission>, Error> {
    let row = sql(format!("{COLUMNS} WHERE principal_key = $1 AND idempotency_key = $2"))
        .bind(principal_key)
        .bind(key)
        .fetch_optional(&mut *conn)
        .await?;
    row.as_ref().map(from_row).transpose()
}

/// The submission that queued `item`, if it was submitted.
pub(in crate::store) async fn of_item(conn: &mut impl Sql, item: &ItemId) -> Result<Option<Submission>, Error> {
    let row = sql(format!("{COLUMNS} WHERE queue_item_id = $1")).bind(item.as_str()).fetch_optional(&mut *conn).await?;
    row.as_ref().map(from_row).transpose()
}

/// The `context` of each of these entries that was submitted with one, by entry id: with its file's
/// text while the call waits (for the diff), without once it left the queue.
pub(in crate::store) async fn contexts_of(conn: &mut impl Sql, items: &[&str]) -> Result<std::collections::HashMap<String, Value>, Error> {
    let mut out = std::collections::HashMap::new();
    if items.is_empty() {
        return Ok(out);
    }
    let text = super::numbered(&format!(
        "SELECT queue_item_id, context, file_text FROM submissions WHERE context IS NOT NULL AND queue_item_id IN ({})",
        vec!["?"; items.len()].join(", ")
    ));
    let mut query = sql(text);
    for item in items {
        query = query.bind(*item);
    }
    for row in query.fetch_all(&mut *conn).await? {
        let mut context = parse_json(&row.try_get::<String>("context")?)?;
        if let Some(text) = row.try_get::<Option<String>>("file_text")? {
            crate::domain::context::with_file_text(&mut context, text);
        }
        out.insert(row.try_get("queue_item_id")?, context);
    }
    Ok(out)
}

fn from_row(r: &Row) -> Result<Submission, Error> {
    Ok(Submission {
        item: ItemId::new(r.try_get::<String>("queue_item_id")?),
        principal_key: r.try_get("principal_key")?,
        idempotency_key: r.try_get("idempotency_key")?,
        request_hash: r.try_get("request_hash")?,
        context: r.try_get::<Option<String>>("context")?.as_deref().map(parse_json).transpose()?,
        submitted_at: super::parse_ts(&r.try_get::<String>("submitted_at")?)?,
    })
}

/// A call to submit under an idempotency key (see [`submit_in`]).
pub struct NewSubmission<'a> {
    /// `Principal::key()` of the credential that submits it.
    pub principal_key: &'a str,
    pub idempotency_key: &'a str,
    /// The hash of the request, to tell a retry from another request under the same key.
    pub request_hash: &'a str,
    /// Sealed ([`crate::domain::context::seal`]): what is stored and audited.
    pub context: &'a Option<Value>,
    /// The text of the file its edit changes, taken out of `context`: kept while the call waits.
    pub file_text: Option<&'a str>,
}

/// What [`submit_in`] did.
#[derive(Debug)]
pub enum Submitted {
    /// Queued now as this entry: the call, its audit entry and its submission, written together —
    /// with the approval of a grant that covered the call (`granted`, claimed for delivery) when the
    /// unit of work that queued it stored one ([`super::uow::Uow`]).
    Queued { item: Box<QueuedCall>, granted: Option<Box<Decision>> },
    /// The key found the call an earlier request (the same one) queued: read in the transaction,
    /// answered after its commit (so it is durable when the agent hears of it).
    Earlier(Box<queue::Entry>),
    /// The key was used for another request, which queued this entry: nothing written.
    KeyReused(ItemId),
}

/// Queues `call` (audited by `actor`) with its submission `s` in the transaction `tx`, or finds what
/// an earlier request with `s`'s key queued (`granted` is `None`: the caller adds a grant's approval).
pub(crate) async fn submit_in(
    tx: &mut WriteTx,
    actor: &str,
    call: &PausedCall,
    origin: PauseOrigin<'_>,
    s: &NewSubmission<'_>,
) -> Result<Submitted, Error> {
    if let Some(earlier) = by_key(&mut *tx, s.principal_key, s.idempotency_key).await? {
        if earlier.request_hash != s.request_hash {
            return Ok(Submitted::KeyReused(earlier.item));
        }
        // Read in this transaction: the first request's call may be in the same batch, not
        // committed yet.
        let entry = queue::get(&mut *tx, &earlier.item).await?.ok_or_else(|| Error::not_found(format!("queue item {}", earlier.item)))?;
        return Ok(Submitted::Earlier(Box::new(entry)));
    }
    let item = queue::pause(tx, actor, call, origin).await?;
    let stored = insert(
        &mut *tx,
        &Submission {
            item: item.id.clone(),
            principal_key: s.principal_key.to_owned(),
            idempotency_key: s.idempotency_key.to_owned(),
            request_hash: s.request_hash.to_owned(),
            context: s.context.clone(),
            submitted_at: item.paused_at,
        },
        s.file_text,
    )
    .await?;
    // The key was taken meanwhile (another console of the team).
    if !stored {
        return Err(Error::StorageBusy);
    }
    Ok(Submitted::Queued { item: Box::new(item), granted: None })
}

/// The submission that queued `item`, if it was submitted (see [`of_item`]).
pub async fn find(db: &Db, item: &ItemId) -> Result<Option<Submission>, Error> {
    let mut conn = db.pool().acquire().await?;
    of_item(&mut conn, item).await
}

/// The `context` of each of these entries that was submitted with one, by entry id (see [`contexts_of`]).
pub async fn contexts_of_items(db: &Db, items: &[&str]) -> Result<std::collections::HashMap<String, Value>, Error> {
    let mut conn = db.pool().acquire().await?;
    contexts_of(&mut conn, items).await
}

/// Joins the submitted call `relay` (a relayed preview: Claude Code's channel) into the submitted
/// call `into` (the hook's, with the whole input, for the same tool call), in one transaction:
/// `relay` leaves the queue (`gone`, audited by `record`) and its context names `into`
/// (`joinedInto`); `into`'s context gains `channel` (what reaches its agent besides its hook), and
/// `into` counts as changed, so every screen reads it again. False, with nothing written, unless
/// both were still pending.
pub async fn join(db: &Db, relay: &ItemId, into: &ItemId, channel: Value, record: super::audit::Record<'_>) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    if !queue::transition(&mut tx, relay, ItemState::Pending, ItemState::Gone).await?
        || !queue::transition(&mut tx, into, ItemState::Pending, ItemState::Pending).await?
    {
        return Ok(false);
    }
    for (item, key, value) in [(relay, "joinedInto", Value::String(into.to_string())), (into, "channel", channel)] {
        let mut context = of_item(&mut tx, item).await?.and_then(|s| s.context).unwrap_or_else(|| serde_json::json!({}));
        if let Some(object) = context.as_object_mut() {
            object.insert(key.into(), value);
        }
        sql("UPDATE submissions SET context = $1 WHERE queue_item_id = $2")
            .bind(context.to_string())
            .bind(item.as_str())
            .execute(&mut tx)
            .await?;
    }
    super::audit::append(&mut tx, record).await?;
    tx.commit().await?;
    Ok(true)
}
