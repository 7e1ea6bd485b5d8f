//! Operators' channels (issue 28; `migrations/*_reach.sql`): each paused call's messages, planned
//! once (`reach_planned`), sent when due and retried (`reach_outbox`), and claims ("I'm on it").

use super::sql::{scalar, sql, tuple, Row};
use super::{audit, parse_ts, ts, Db};
use crate::domain::audit::{CallClaimed, ChannelSecretChanged, ReachFailed};
use crate::domain::Error;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// A message to send.
pub struct NewMessage<'a> {
    pub channel: &'a str,
    pub person: &'a str,
    pub rule: &'a str,
    pub step: u32,
    pub due_at: DateTime<Utc>,
}

/// A message as stored, with what the sender needs to know of its call now.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub id: String,
    pub queue_item_id: String,
    pub channel: String,
    pub person: String,
    pub rule: String,
    pub step: i64,
    pub due_at: DateTime<Utc>,
    /// `pending`, `sent`, `skipped` (the call was decided or claimed first) or `failed` (given up).
    pub state: String,
    pub attempts: i64,
    #[schema(required = true)]
    pub last_error: Option<String>,
    #[schema(required = true)]
    pub sent_at: Option<DateTime<Utc>>,
}

/// Who claimed a call.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Claim {
    pub person: String,
    pub principal: String,
    pub claimed_at: DateTime<Utc>,
}

const MESSAGE: &str = "o.id, o.queue_item_id, o.channel, o.person, o.rule, o.step, o.due_at, o.state, o.attempts, o.last_error, o.sent_at";

fn message(r: &Row) -> Result<Message, Error> {
    Ok(Message {
        id: r.try_get("id")?,
        queue_item_id: r.try_get("queue_item_id")?,
        channel: r.try_get("channel")?,
        person: r.try_get("person")?,
        rule: r.try_get("rule")?,
        step: r.try_get("step")?,
        due_at: parse_ts(&r.try_get::<String>("due_at")?)?,
        state: r.try_get("state")?,
        attempts: r.try_get("attempts")?,
        last_error: r.try_get("last_error")?,
        sent_at: r.try_get::<Option<String>>("sent_at")?.map(|t| parse_ts(&t)).transpose()?,
    })
}

/// Pending calls whose messages are not planned yet (oldest first): their id, tool, agent, source
/// and when they paused.
pub async fn unplanned(db: &Db, limit: i64) -> Result<Vec<(String, DateTime<Utc>)>, Error> {
    let mut conn = db.pool().acquire().await?;
    let rows: Vec<(String, String)> = tuple(
        "SELECT id, paused_at FROM queue_items WHERE state = 'pending'
           AND NOT EXISTS (SELECT 1 FROM reach_planned p WHERE p.queue_item_id = queue_items.id)
         ORDER BY seq LIMIT $1",
    )
    .bind(limit)
    .fetch_all(&mut conn)
    .await?;
    rows.into_iter().map(|(id, at)| Ok((id, parse_ts(&at)?))).collect()
}

/// Plans a call's messages, once: `false` (nothing written) if it was planned already.
pub async fn plan(db: &Db, item_id: &str, messages: &[NewMessage<'_>], now: DateTime<Utc>) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    let done = sql("INSERT INTO reach_planned (queue_item_id, planned_at) VALUES ($1, $2) ON CONFLICT DO NOTHING")
        .bind(item_id)
        .bind(ts(now))
        .execute(&mut tx)
        .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    for m in messages {
        sql("INSERT INTO reach_outbox (id, queue_item_id, channel, person, rule, step, due_at, state, next_attempt_at, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $7, $8) ON CONFLICT DO NOTHING")
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(item_id)
        .bind(m.channel)
        .bind(m.person)
        .bind(m.rule)
        .bind(i64::from(m.step))
        .bind(ts(m.due_at))
        .bind(ts(now))
        .execute(&mut tx)
        .await?;
    }
    tx.commit().await?;
    Ok(true)
}

/// A message due at `now`, with its call's state and claim.
pub struct Due {
    pub message: Message,
    pub item_state: String,
    pub claimed_by: Option<String>,
}

/// The messages due at `now` (oldest first).
pub async fn due(db: &Db, now: DateTime<Utc>, limit: i64) -> Result<Vec<Due>, Error> {
    let mut conn = db.pool().acquire().await?;
    let rows = sql(format!(
        "SELECT {MESSAGE}, q.state AS item_state, c.person AS claimed_by FROM reach_outbox o
         JOIN queue_items q ON q.id = o.queue_item_id LEFT JOIN claims c ON c.queue_item_id = o.queue_item_id
         WHERE o.state = 'pending' AND o.due_at <= $1 AND o.next_attempt_at <= $1 ORDER BY o.due_at LIMIT $2"
    ))
    .bind(ts(now))
    .bind(limit)
    .fetch_all(&mut conn)
    .await?;
    rows.iter()
        .map(|r| Ok(Due { message: message(r)?, item_state: r.try_get("item_state")?, claimed_by: r.try_get("claimed_by")? }))
        .collect()
}

/// When the next pending message is due (for the sender's sleep).
pub async fn next_due(db: &Db) -> Result<Option<DateTime<Utc>>, Error> {
    let mut conn = db.pool().acquire().await?;
    let at: Option<Option<String>> =
        scalar("SELECT MIN(next_attempt_at) FROM reach_outbox WHERE state = 'pending'").fetch_optional(&mut conn).await?;
    at.flatten().map(|t| parse_ts(&t)).transpose()
}

async fn set(
    db: &Db,
    id: &str,
    state: &str,
    next: Option<DateTime<Utc>>,
    error: Option<&str>,
    sent: Option<DateTime<Utc>>,
) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    sql("UPDATE reach_outbox SET state = $1, next_attempt_at = COALESCE($2, next_attempt_at), last_error = COALESCE($3, last_error),
                sent_at = COALESCE($4, sent_at), attempts = attempts + (CASE WHEN $5 THEN 1 ELSE 0 END) WHERE id = $6")
    .bind(state)
    .bind(next.map(ts))
    .bind(error)
    .bind(sent.map(ts))
    .bind(error.is_some() || sent.is_some())
    .bind(id)
    .execute(&mut tx)
    .await?;
    tx.commit().await
}

/// Sent at `at`.
pub async fn sent(db: &Db, id: &str, at: DateTime<Utc>) -> Result<(), Error> {
    set(db, id, "sent", None, None, Some(at)).await
}

/// Not sent, on purpose (`why`: decided, claimed, off duty…).
pub async fn skipped(db: &Db, id: &str, why: &str) -> Result<(), Error> {
    set(db, id, "skipped", None, Some(why), None).await
}

/// Held until `until` (quiet hours): no attempt counted.
pub async fn hold(db: &Db, id: &str, until: DateTime<Utc>) -> Result<(), Error> {
    set(db, id, "pending", Some(until), None, None).await
}

/// Failed this time: tried again at `next`.
pub async fn retry(db: &Db, id: &str, next: DateTime<Utc>, error: &str) -> Result<(), Error> {
    set(db, id, "pending", Some(next), Some(error), None).await
}

/// Given up after its attempts, with `reach.failed` in the audit log.
pub async fn failed(db: &Db, m: &Message, error: &str) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    sql("UPDATE reach_outbox SET state = 'failed', last_error = $1, attempts = attempts + 1 WHERE id = $2")
        .bind(error)
        .bind(&m.id)
        .execute(&mut tx)
        .await?;
    let details = ReachFailed { channel: &m.channel, person: &m.person, attempts: m.attempts + 1, error };
    audit::append(&mut tx, audit::Record::of("reach", Some((m.queue_item_id.as_str(), "", "")), &details)).await?;
    tx.commit().await
}

/// The local admin `by` (an actor's audit name) set or removed a channel's secret: audited in a
/// transaction of its own (the secret itself is never in the database).
pub async fn secret_changed(db: &Db, by: &str, change: &ChannelSecretChanged<'_>) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    audit::append(&mut tx, audit::Record::of(by, None, change)).await?;
    tx.commit().await
}

/// A call's messages, in order.
pub async fn messages_of(db: &Db, item_id: &str) -> Result<Vec<Message>, Error> {
    let mut conn = db.pool().acquire().await?;
    let rows = sql(format!("SELECT {MESSAGE} FROM reach_outbox o WHERE o.queue_item_id = $1 ORDER BY o.due_at, o.channel"))
        .bind(item_id)
        .fetch_all(&mut conn)
        .await?;
    rows.iter().map(message).collect()
}

/// Who claimed the call, if anyone.
pub async fn claim_of(db: &Db, item_id: &str) -> Result<Option<Claim>, Error> {
    let mut conn = db.pool().acquire().await?;
    let row = sql("SELECT person, principal_key, claimed_at FROM claims WHERE queue_item_id = $1")
        .bind(item_id)
        .fetch_optional(&mut conn)
        .await?;
    row.map(|r| {
        Ok(Claim {
            person: r.try_get("person")?,
            principal: r.try_get("principal_key")?,
            claimed_at: parse_ts(&r.try_get::<String>("claimed_at")?)?,
        })
    })
    .transpose()
}

/// Claims a pending call for `person` (replacing an earlier claim), with `call.claimed`, and skips
/// its messages still waiting; `false` if the call is not pending.
pub async fn claim(db: &Db, item: (&str, &str, &str), key: &str, person: &str, by: &str, at: DateTime<Utc>) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    let pending: Option<String> =
        scalar("SELECT state FROM queue_items WHERE id = $1 AND state = 'pending'").bind(item.0).fetch_optional(&mut tx).await?;
    if pending.is_none() {
        return Ok(false);
    }
    sql("INSERT INTO claims (queue_item_id, principal_key, person, claimed_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (queue_item_id) DO UPDATE SET principal_key = excluded.principal_key, person = excluded.person, claimed_at = excluded.claimed_at")
    .bind(item.0)
    .bind(key)
    .bind(person)
    .bind(ts(at))
    .execute(&mut tx)
    .await?;
    // Its escalation stops now: the messages still waiting are skipped in the claim's transaction.
    sql("UPDATE reach_outbox SET state = 'skipped', last_error = $1 WHERE queue_item_id = $2 AND state = 'pending'")
        .bind(format!("claimed by {person}"))
        .bind(item.0)
        .execute(&mut tx)
        .await?;
    audit::append(&mut tx, audit::Record::of(by, Some(item), &CallClaimed { person })).await?;
    tx.commit().await?;
    Ok(true)
}

/// One decided call's figures for the statistics: when it paused and was decided, by whom, under
/// which rule, and when each channel's message went.
pub struct Decided {
    pub rule: String,
    pub paused_at: DateTime<Utc>,
    pub decided_at: DateTime<Utc>,
    /// Who decided, as the audit log names them (`alice (remote)`).
    pub operator: String,
    /// (channel, person, sent_at) of each message sent before the decision.
    pub sent: Vec<(String, String, DateTime<Utc>)>,
}

/// The decided calls since `since` that had messages (at most `limit`, newest first).
pub async fn decided_since(db: &Db, since: DateTime<Utc>, limit: i64) -> Result<Vec<Decided>, Error> {
    let mut conn = db.pool().acquire().await?;
    let rows = sql("SELECT q.id, q.paused_at, d.decided_at, d.operator FROM queue_items q JOIN decisions d ON d.queue_item_id = q.id
         WHERE d.decided_at >= $1 AND EXISTS (SELECT 1 FROM reach_outbox o WHERE o.queue_item_id = q.id)
         ORDER BY d.decided_at DESC LIMIT $2")
    .bind(ts(since))
    .bind(limit)
    .fetch_all(&mut conn)
    .await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let (id, paused, decided, operator): (String, String, String, String) =
            (r.try_get("id")?, r.try_get("paused_at")?, r.try_get("decided_at")?, r.try_get("operator")?);
        let msgs = sql(format!("SELECT {MESSAGE} FROM reach_outbox o WHERE o.queue_item_id = $1")).bind(&id).fetch_all(&mut conn).await?;
        let msgs: Vec<Message> = msgs.iter().map(message).collect::<Result<_, _>>()?;
        let decided_at = parse_ts(&decided)?;
        out.push(Decided {
            rule: msgs.first().map(|m| m.rule.clone()).unwrap_or_default(),
            paused_at: parse_ts(&paused)?,
            decided_at,
            operator,
            sent: msgs.into_iter().filter_map(|m| m.sent_at.filter(|t| *t <= decided_at).map(|t| (m.channel, m.person, t))).collect(),
        });
    }
    Ok(out)
}
