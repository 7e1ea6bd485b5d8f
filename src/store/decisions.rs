//! Decisions and their delivery state: the outbox (C5). `approvals`: the approvals a decision of a
//! tool with a quorum waits for (the two-person rule). A decision is made durable in a unit of work
//! ([`super::uow::Uow::decide`]), as the decision kernel planned it (`domain::plan`).

pub mod approvals;

use super::cells::Cells;
use super::sql::{sql, Row, Sql};
use super::{now, parse_json, parse_ts, ts};
use crate::domain::{Decision, DecisionId, Delivery, Error, Fingerprint, ItemId, Verdict};
use serde_json::Value;

fn delivery_str(d: Delivery) -> &'static str {
    match d {
        Delivery::Pending => "pending",
        Delivery::Delivering => "delivering",
        Delivery::Delivered => "delivered",
        Delivery::Failed => "failed",
    }
}

fn parse_delivery(text: &str) -> Result<Delivery, Error> {
    Ok(match text {
        "pending" => Delivery::Pending,
        "delivering" => Delivery::Delivering,
        "delivered" => Delivery::Delivered,
        "failed" => Delivery::Failed,
        other => return Err(Error::Storage(format!("unknown delivery state {other:?}"))),
    })
}

/// Stores a new decision, to be delivered. The unique index on `queue_item_id` makes a second decision
/// on the same entry fail, whatever the caller checked before.
/// `receipt_id`: the id of its receipt (`d.receipt`), to find it by.
pub async fn insert(conn: &mut impl Sql, d: &Decision, receipt_id: Option<&str>) -> Result<(), Error> {
    let (reason, data) = match &d.verdict {
        Verdict::Approve => (None, None),
        Verdict::Decline { reason } => (reason.clone(), None),
        Verdict::Resume { data } => (None, Some(data.to_string())),
        // Stored as the approval it is; `data` (unused by approvals) holds the edited arguments.
        Verdict::ApproveEdited { args, fingerprint } => {
            (None, Some(serde_json::json!({ "editedArgs": args, "editedFingerprint": fingerprint }).to_string()))
        }
        // Stored as the decline it is to the engine; `data` (unused by declines) marks the expiry.
        Verdict::Expire { after_secs } => {
            (Some(Verdict::expiry_text(*after_secs)), Some(serde_json::json!({ "expiredAfterSecs": after_secs }).to_string()))
        }
    };
    sql("INSERT INTO decisions (id, queue_item_id, kind, fingerprint, reason, data, operator, decided_at, delivery, attempts, receipt, receipt_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)")
    .bind(d.id.as_str())
    .bind(d.item_id.as_str())
    // The table knows approve/decline/resume: an edited approval is an approval (its data says more).
    .bind(match d.verdict.kind() {
        crate::domain::DecisionKind::Edit => "approve",
        kind => kind.as_str(),
    })
    .bind(d.fingerprint.as_str())
    .bind(reason)
    .bind(data)
    .bind(&d.operator)
    .bind(ts(d.decided_at))
    .bind(delivery_str(d.delivery))
    .bind(i64::from(d.attempts))
    .bind(d.receipt.as_deref())
    .bind(receipt_id)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Claims a decision for delivery (`pending → delivering`), committed before the tool runs, so a
/// crash during execution leaves `delivering` behind and the tool is never run a second time.
/// Returns false if another worker or process claimed it first.
pub async fn claim(conn: &mut impl Sql, id: &DecisionId) -> Result<bool, Error> {
    let done = sql("UPDATE decisions SET delivery = 'delivering', attempts = attempts + 1 WHERE id = $1 AND delivery = 'pending'")
        .bind(id.as_str())
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Records the end of a delivery: `delivering → delivered | failed`, with the engine's answer.
/// Returns false (and changes nothing) if the decision was not `delivering`.
pub async fn finish(conn: &mut impl Sql, id: &DecisionId, delivery: Delivery, outcome: &Value, error: Option<&str>) -> Result<bool, Error> {
    let done = sql(
        "UPDATE decisions SET delivery = $1, outcome = $2, last_error = $3, delivered_at = $4 WHERE id = $5 AND delivery = 'delivering'",
    )
    .bind(delivery_str(delivery))
    .bind(outcome.to_string())
    .bind(error)
    .bind(ts(now()))
    .bind(id.as_str())
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The columns [`from_joined_row`] reads, of the decisions table as `d`.
const D_COLUMNS: &str = "d.id AS d_id, d.queue_item_id, d.kind AS d_kind, d.fingerprint AS d_fingerprint, d.reason AS d_reason,
    d.data AS d_data, d.operator AS d_operator, d.decided_at AS d_decided_at, d.delivery AS d_delivery,
    d.outcome AS d_outcome, d.attempts AS d_attempts, d.last_error AS d_last_error, d.next_attempt_at AS d_next_attempt_at, d.receipt AS d_receipt";

fn decisions_from_rows(rows: &[Row]) -> Result<Vec<Decision>, Error> {
    rows.iter()
        .map(|r| {
            let item = ItemId::new(r.try_get::<String>("queue_item_id")?);
            from_joined_row(r, &item).map(|d| d.expect("row has a decision"))
        })
        .collect()
}

/// Decisions in a delivery state, oldest first.
pub(in crate::store) async fn with_delivery(conn: &mut impl Sql, delivery: Delivery) -> Result<Vec<Decision>, Error> {
    let rows = sql(format!("SELECT {D_COLUMNS} FROM decisions d WHERE d.delivery = $1 ORDER BY d.decided_at"))
        .bind(delivery_str(delivery))
        .fetch_all(&mut *conn)
        .await?;
    decisions_from_rows(&rows)
}

/// Reads the `d_*` columns of a row (a queue row LEFT JOIN decisions, or a decisions row).
pub(crate) fn from_joined_row(row: &impl Cells, item_id: &ItemId) -> Result<Option<Decision>, Error> {
    let Some(id) = row.cell::<Option<String>>("d_id")? else { return Ok(None) };
    let kind: String = row.cell("d_kind")?;
    let verdict = match kind.as_str() {
        "approve" => match row.cell::<Option<String>>("d_data")?.map(|t| parse_json(&t)).transpose()? {
            Some(mut d) if d.get("editedArgs").is_some() => Verdict::ApproveEdited {
                args: d["editedArgs"].take(),
                fingerprint: d["editedFingerprint"]
                    .as_str()
                    .and_then(Fingerprint::parse)
                    .ok_or_else(|| Error::Storage("edited approval without its fingerprint".into()))?,
            },
            _ => Verdict::Approve,
        },
        "decline" => {
            match row.cell::<Option<String>>("d_data")?.map(|t| parse_json(&t)).transpose()?.and_then(|d| d["expiredAfterSecs"].as_u64()) {
                Some(after_secs) => Verdict::Expire { after_secs },
                None => Verdict::Decline { reason: row.cell("d_reason")? },
            }
        }
        "resume" => {
            Verdict::Resume { data: row.cell::<Option<String>>("d_data")?.map(|t| parse_json(&t)).transpose()?.unwrap_or(Value::Null) }
        }
        other => return Err(Error::Storage(format!("unknown decision kind {other:?}"))),
    };
    let fingerprint: String = row.cell("d_fingerprint")?;
    Ok(Some(Decision {
        id: DecisionId::new(id),
        item_id: item_id.clone(),
        verdict,
        fingerprint: Fingerprint::parse(&fingerprint)
            .ok_or_else(|| Error::Storage(format!("bad fingerprint {fingerprint:?} in database")))?,
        operator: row.cell("d_operator")?,
        decided_at: parse_ts(&row.cell::<String>("d_decided_at")?)?,
        delivery: parse_delivery(&row.cell::<String>("d_delivery")?)?,
        outcome: row.cell::<Option<String>>("d_outcome")?.map(|t| parse_json(&t)).transpose()?,
        attempts: row.cell::<Option<i64>>("d_attempts")?.unwrap_or(0).max(0) as u32,
        last_error: row.cell("d_last_error")?,
        next_attempt_at: row.cell::<Option<String>>("d_next_attempt_at")?.map(|t| parse_ts(&t)).transpose()?,
        receipt: row.cell("d_receipt")?,
    }))
}

/// Gives a claimed decision back to the outbox after a failed attempt (the engine was unreachable):
/// `delivering → pending`, with the error and when to try again. False if it was not `delivering`.
pub async fn defer(
    conn: &mut impl Sql,
    id: &DecisionId,
    error: &str,
    next_attempt_at: chrono::DateTime<chrono::Utc>,
) -> Result<bool, Error> {
    let done =
        sql("UPDATE decisions SET delivery = 'pending', last_error = $1, next_attempt_at = $2 WHERE id = $3 AND delivery = 'delivering'")
            .bind(error)
            .bind(ts(next_attempt_at))
            .bind(id.as_str())
            .execute(&mut *conn)
            .await?;
    Ok(done.rows_affected() == 1)
}

/// A delivery cut short (its console stopped while sending it) back to the outbox, due now, with its
/// audit entry (`delivery.retry`, saying `why`): for engines that refuse to act twice on one call,
/// whose call is re-read before it is sent again. False (nothing written) if it was not `delivering`.
pub(in crate::store) async fn retry_cut(conn: &mut super::writer::WriteTx, d: &Decision, tool: &str, why: &str) -> Result<bool, Error> {
    if !defer(conn, &d.id, why, now()).await? {
        return Ok(false);
    }
    super::audit::append(
        conn,
        super::audit::Record::of(
            "console",
            Some((d.item_id.as_str(), tool, d.fingerprint.as_str())),
            &crate::domain::audit::DeliveryRetry { decision_id: &d.id, why },
        ),
    )
    .await?;
    Ok(true)
}

/// How a waiting decision stands in the outbox.
#[derive(Clone, Debug, PartialEq)]
pub struct Attempts {
    pub attempts: u32,
    pub last_error: Option<String>,
    pub next_attempt_at: Option<chrono::DateTime<chrono::Utc>>,
}

pub async fn attempts(conn: &mut impl Sql, id: &DecisionId) -> Result<Option<Attempts>, Error> {
    let row = sql("SELECT attempts, last_error, next_attempt_at FROM decisions WHERE id = $1")
        .bind(id.as_str())
        .fetch_optional(&mut *conn)
        .await?;
    row.map(|r| {
        Ok(Attempts {
            attempts: r.try_get::<i64>("attempts")?.max(0) as u32,
            last_error: r.try_get("last_error")?,
            next_attempt_at: r.try_get::<Option<String>>("next_attempt_at")?.map(|t| parse_ts(&t)).transpose()?,
        })
    })
    .transpose()
}

/// Pending decisions the outbox worker should deliver now: deferred ones whose next attempt is due,
/// and ones nobody delivered although they were decided more than `grace` ago (the deciding process
/// delivers at once; the worker is the fallback). Oldest first. `engines`: only calls of these
/// (team mode: the engines this console delivers; `None`: every engine).
pub async fn due(conn: &mut impl Sql, grace: chrono::Duration, engines: Option<&[String]>) -> Result<Vec<Decision>, Error> {
    let at = now();
    let only = match engines {
        Some(list) => format!(" AND q.engine IN ({})", if list.is_empty() { "NULL".to_owned() } else { vec!["?"; list.len()].join(", ") }),
        None => String::new(),
    };
    let text = super::numbered(&format!(
        "SELECT {D_COLUMNS} FROM decisions d JOIN queue_items q ON q.id = d.queue_item_id
         WHERE d.delivery = 'pending'
           AND ((d.next_attempt_at IS NOT NULL AND d.next_attempt_at <= ?) OR (d.next_attempt_at IS NULL AND d.decided_at <= ?)){only}
         ORDER BY d.decided_at LIMIT 100"
    ));
    let mut query = sql(text).bind(ts(at)).bind(ts(at - grace));
    for engine in engines.unwrap_or_default() {
        query = query.bind(engine.as_str());
    }
    let rows = query.fetch_all(&mut *conn).await?;
    decisions_from_rows(&rows)
}

/// Decisions of the calls of one run of `engine` that are `delivering` (claimed, or held by an
/// engine that sends several together), with each call's tool call id.
pub(in crate::store) async fn delivering_of_run(conn: &mut impl Sql, engine: &str, run_id: &str) -> Result<Vec<(Decision, String)>, Error> {
    let rows = sql(format!(
        "SELECT {D_COLUMNS}, q.tool_call_id FROM decisions d JOIN queue_items q ON q.id = d.queue_item_id
         WHERE d.delivery = 'delivering' AND q.engine = $1 AND q.run_id = $2 ORDER BY d.decided_at"
    ))
    .bind(engine)
    .bind(run_id)
    .fetch_all(&mut *conn)
    .await?;
    let decisions = decisions_from_rows(&rows)?;
    rows.iter().zip(decisions).map(|(r, d)| Ok((d, r.try_get::<String>("tool_call_id")?))).collect()
}

/// Decisions of `engine`'s calls left `delivering` (claimed by a console that then stopped): with
/// their tool name, oldest first.
pub(in crate::store) async fn delivering_of_engine(conn: &mut impl Sql, engine: &str) -> Result<Vec<(Decision, String)>, Error> {
    let rows = sql(format!(
        "SELECT {D_COLUMNS}, q.tool_name FROM decisions d JOIN queue_items q ON q.id = d.queue_item_id
         WHERE d.delivery = 'delivering' AND q.engine = $1 ORDER BY d.decided_at"
    ))
    .bind(engine)
    .fetch_all(&mut *conn)
    .await?;
    let decisions = decisions_from_rows(&rows)?;
    rows.iter().zip(decisions).map(|(r, d)| Ok((d, r.try_get::<String>("tool_name")?))).collect()
}
