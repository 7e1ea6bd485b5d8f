//! C6: the append-only, hash-chained audit log.
//!
//! Each entry's `hash` is SHA-256 over the RFC 8785 form of all its fields, `prev_hash` included, so an
//! edited entry breaks its own hash, a removed or reordered one breaks the link of the next, and a cut
//! tail no longer matches `audit_head`. SQLite triggers refuse UPDATE and DELETE on the table.

use super::sql::{scalar, sql, tuple, Row, Sql};
use super::{now, parse_json, ts, Db};
use crate::domain::{canonical_json, Error};
use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// `prev_hash` of the first entry.
pub const GENESIS: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

/// What to record: made only by [`Record::of`], from typed details.
#[derive(Clone, Debug)]
pub struct Record<'a> {
    actor: &'a str,
    action: crate::domain::audit::AuditAction,
    queue_item_id: Option<&'a str>,
    tool_name: Option<&'a str>,
    fingerprint: Option<&'a str>,
    details: Value,
}

impl<'a> Record<'a> {
    /// An entry of `details`' own action (see [`crate::domain::audit::Details`]), by `actor`, about the
    /// queue entry `item` (its id, tool and fingerprint) when there is one.
    pub fn of<D: crate::domain::audit::Details>(actor: &'a str, item: Option<(&'a str, &'a str, &'a str)>, details: &D) -> Self {
        Record {
            actor,
            action: details.action(),
            queue_item_id: item.map(|i| i.0),
            tool_name: item.map(|i| i.1),
            fingerprint: item.map(|i| i.2),
            details: serde_json::to_value(details).expect("audit details serialize"),
        }
    }

    /// The same entry naming `tool`, for an entry about a tool call that has no queue entry (a plain
    /// tool of a local run).
    pub fn with_tool(mut self, tool: &'a str) -> Self {
        self.tool_name = Some(tool);
        self
    }
}

/// An entry a unit of work collected ([`super::uow::Uow::audit`]): appended, in order, when the unit
/// of work ends, in its transaction.
#[derive(Clone, Debug)]
pub(crate) struct Collected {
    actor: String,
    action: crate::domain::audit::AuditAction,
    queue_item_id: Option<String>,
    tool_name: Option<String>,
    fingerprint: Option<String>,
    details: Value,
}

impl Record<'_> {
    /// This entry, kept until its unit of work ends.
    pub(crate) fn collect(self) -> Collected {
        Collected {
            actor: self.actor.to_owned(),
            action: self.action,
            queue_item_id: self.queue_item_id.map(str::to_owned),
            tool_name: self.tool_name.map(str::to_owned),
            fingerprint: self.fingerprint.map(str::to_owned),
            details: self.details,
        }
    }
}

impl Collected {
    pub(crate) fn record(&self) -> Record<'_> {
        Record {
            actor: &self.actor,
            action: self.action,
            queue_item_id: self.queue_item_id.as_deref(),
            tool_name: self.tool_name.as_deref(),
            fingerprint: self.fingerprint.as_deref(),
            details: self.details.clone(),
        }
    }
}

/// A stored entry.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = AuditEntry)]
pub struct Entry {
    pub seq: i64,
    /// RFC 3339, UTC.
    #[schema(format = DateTime)]
    pub at: String,
    pub actor: String,
    /// One of `AuditAction` (as text: an older version may have written another).
    pub action: String,
    #[schema(required = true)]
    pub queue_item_id: Option<String>,
    #[schema(required = true)]
    pub tool_name: Option<String>,
    #[schema(required = true)]
    pub fingerprint: Option<String>,
    pub details: Value,
    pub prev_hash: String,
    pub hash: String,
}

impl Entry {
    fn computed_hash(&self) -> String {
        let body = json!({
            "seq": self.seq, "at": self.at, "actor": self.actor, "action": self.action,
            "queueItemId": self.queue_item_id, "toolName": self.tool_name, "fingerprint": self.fingerprint,
            "details": self.details, "prevHash": self.prev_hash,
        });
        let canonical = canonical_json(&body).expect("audit entries hold only finite numbers");
        format!("sha256:{}", hex::encode(Sha256::digest(canonical.as_bytes())))
    }
}

/// Appends an entry, chained to the newest one (and moves `audit_head` to it). Call inside the
/// transaction that makes the change it records, so the two commit together.
///
/// The newest entry is known without reading it when this process's last append committed and
/// nothing was rolled back since ([`WriteTx::audit_head`]). Another process may have appended
/// meanwhile (the CLI, another console of a team): then the entry's `seq` is taken already, the
/// insert does nothing (`ON CONFLICT … DO NOTHING`, no error to end the transaction), and the head
/// is read and the entry made again on it — so a chain never forks, whoever appends.
pub async fn append(tx: &mut super::writer::WriteTx, record: Record<'_>) -> Result<Entry, Error> {
    let mut entry = Entry {
        seq: 0,
        at: ts(now()),
        actor: record.actor.to_owned(),
        action: record.action.as_str().to_owned(),
        queue_item_id: record.queue_item_id.map(str::to_owned),
        tool_name: record.tool_name.map(str::to_owned),
        fingerprint: record.fingerprint.map(str::to_owned),
        details: record.details,
        prev_hash: String::new(),
        hash: String::new(),
    };
    loop {
        let known = tx.audit_head().take();
        let read = known.is_none();
        let (seq, prev_hash) = match known {
            Some(head) => head,
            None => head(tx).await?,
        };
        entry.seq = seq + 1;
        entry.prev_hash = prev_hash;
        entry.hash = entry.computed_hash();
        let done = sql("INSERT INTO audit_log (seq, at, actor, action, queue_item_id, tool_name, fingerprint, details, prev_hash, hash)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (seq) DO NOTHING")
        .bind(entry.seq)
        .bind(&entry.at)
        .bind(&entry.actor)
        .bind(&entry.action)
        .bind(&entry.queue_item_id)
        .bind(&entry.tool_name)
        .bind(&entry.fingerprint)
        .bind(entry.details.to_string())
        .bind(&entry.prev_hash)
        .bind(&entry.hash)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 1 {
            // `audit_head` followed in the same statement (trigger `audit_log_head`).
            *tx.audit_head() = Some((entry.seq, entry.hash.clone()));
            return Ok(entry);
        }
        if read {
            // Read inside this write transaction, which holds the database's write lock: nobody
            // can have appended since.
            return Err(Error::Storage(format!("audit entry {} exists already beyond the recorded head", entry.seq)));
        }
    }
}

/// The newest entry's seq and hash (0 and [`GENESIS`] before the first), read in `tx`.
async fn head(tx: &mut super::writer::WriteTx) -> Result<(i64, String), Error> {
    let head: Option<(i64, String)> = tuple("SELECT seq, hash FROM audit_head WHERE id = 1").fetch_optional(&mut *tx).await?;
    Ok(head.unwrap_or_else(|| (0, GENESIS.to_owned())))
}

pub(super) fn from_row(row: &Row) -> Result<Entry, Error> {
    Ok(Entry {
        seq: row.try_get("seq")?,
        at: row.try_get("at")?,
        actor: row.try_get("actor")?,
        action: row.try_get("action")?,
        queue_item_id: row.try_get("queue_item_id")?,
        tool_name: row.try_get("tool_name")?,
        fingerprint: row.try_get("fingerprint")?,
        details: parse_json(&row.try_get::<String>("details")?)?,
        prev_hash: row.try_get("prev_hash")?,
        hash: row.try_get("hash")?,
    })
}

/// Rows fetched with `LIMIT limit + 1` as a page of at most `limit` entries and the next cursor.
fn page(rows: &[Row], limit: i64) -> Result<(Vec<Entry>, Option<i64>), Error> {
    let more = rows.len() as i64 > limit;
    let entries: Vec<Entry> = rows.iter().take(limit as usize).map(from_row).collect::<Result<_, _>>()?;
    let next = if more { entries.last().map(|e| e.seq) } else { None };
    Ok((entries, next))
}

/// The newest delivery entry (`delivery.*`: delivered, failed, deferred, retry, interrupted) of each
/// of these queue entries that has one, by queue entry id.
pub(in crate::store) async fn latest_deliveries(
    conn: &mut impl Sql,
    items: &[&str],
) -> Result<std::collections::HashMap<String, Entry>, Error> {
    let mut out = std::collections::HashMap::new();
    if items.is_empty() {
        return Ok(out);
    }
    let text = super::numbered(&format!(
        "SELECT * FROM audit_log WHERE queue_item_id IN ({}) AND action LIKE 'delivery.%' ORDER BY seq",
        vec!["?"; items.len()].join(", ")
    ));
    let mut query = sql(text);
    for item in items {
        query = query.bind(*item);
    }
    for row in query.fetch_all(&mut *conn).await? {
        let entry = from_row(&row)?;
        if let Some(item) = entry.queue_item_id.clone() {
            out.insert(item, entry);
        }
    }
    Ok(out)
}

/// The seq of the newest entry (0 for an empty log).
pub(in crate::store) async fn head_seq(conn: &mut impl Sql) -> Result<i64, Error> {
    scalar("SELECT COALESCE(MAX(seq), 0) FROM audit_log").fetch_one(&mut *conn).await
}

/// Up to `limit` entries after `after` and at most `up_to`, oldest first (for exports).
pub async fn range(conn: &mut impl Sql, after: i64, up_to: i64, limit: u32) -> Result<Vec<Entry>, Error> {
    let rows = sql("SELECT * FROM audit_log WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3")
        .bind(after)
        .bind(up_to)
        .bind(i64::from(limit.max(1)))
        .fetch_all(&mut *conn)
        .await?;
    rows.iter().map(from_row).collect()
}

/// The result of walking the chain.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Verification {
    pub ok: bool,
    /// Entries checked.
    pub checked: i64,
    /// The first entry found edited, removed, inserted or reordered; null when the chain holds.
    #[schema(required = true)]
    pub first_bad: Option<BadEntry>,
}

#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct BadEntry {
    pub seq: i64,
    pub problem: String,
}

/// Walks the whole chain in `seq` order, in batches, and names the first entry that does not hold.
pub async fn verify(conn: &mut impl Sql) -> Result<Verification, Error> {
    let mut expected_seq = 1_i64;
    let mut prev_hash = GENESIS.to_owned();
    let bad = |seq: i64, problem: String, checked: i64| Verification { ok: false, checked, first_bad: Some(BadEntry { seq, problem }) };
    loop {
        let rows = sql("SELECT * FROM audit_log WHERE seq >= $1 ORDER BY seq LIMIT 1000").bind(expected_seq).fetch_all(&mut *conn).await?;
        if rows.is_empty() {
            break;
        }
        for row in &rows {
            let entry = from_row(row)?;
            let checked = expected_seq - 1;
            if entry.seq != expected_seq {
                return Ok(bad(expected_seq, format!("entry {expected_seq} is missing (next is {})", entry.seq), checked));
            }
            if entry.prev_hash != prev_hash {
                return Ok(bad(entry.seq, "does not link to the entry before it (removed or reordered)".into(), checked));
            }
            if entry.computed_hash() != entry.hash {
                return Ok(bad(entry.seq, "its content does not match its hash (edited)".into(), checked));
            }
            prev_hash = entry.hash;
            expected_seq += 1;
        }
    }
    let checked = expected_seq - 1;
    let head: Option<(i64, String)> = tuple("SELECT seq, hash FROM audit_head WHERE id = 1").fetch_optional(&mut *conn).await?;
    match head {
        Some((seq, hash)) if seq != checked || hash != prev_hash => Ok(bad(
            checked + 1,
            format!("the log ends at entry {checked} but the recorded head is entry {seq} (tail removed or rewritten)"),
            checked,
        )),
        None if checked > 0 => Ok(bad(checked, "the chain head record is missing".into(), checked)),
        _ => Ok(Verification { ok: true, checked, first_bad: None }),
    }
}

/// Walks the whole chain (see [`verify`]) on one connection.
pub async fn verify_chain(db: &Db) -> Result<Verification, Error> {
    let mut conn = db.pool().acquire().await?;
    verify(&mut conn).await
}

/// The newest `limit` entries of one action (`policy.applied`), newest first.
pub async fn of_action(db: &Db, action: &str, limit: u32) -> Result<Vec<Entry>, Error> {
    let mut conn = db.pool().acquire().await?;
    let limit = i64::from(limit.clamp(1, 500));
    let rows = sql("SELECT * FROM audit_log WHERE action = $1 ORDER BY seq DESC LIMIT $2")
        .bind(action)
        .bind(limit + 1)
        .fetch_all(&mut *conn)
        .await?;
    Ok(page(&rows, limit)?.0)
}

/// The seq of the newest entry (0 for an empty log), on a connection of its own.
pub async fn newest_seq(db: &Db) -> Result<i64, Error> {
    let mut conn = db.pool().acquire().await?;
    head_seq(&mut conn).await
}

/// Up to `limit` entries after `after` and at most `up_to`, oldest first (see [`range`]), on a connection of their own.
pub async fn entries_between(db: &Db, after: i64, up_to: i64, limit: u32) -> Result<Vec<Entry>, Error> {
    let mut conn = db.pool().acquire().await?;
    range(&mut conn, after, up_to, limit).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::audit::SettingsChanged;

    async fn append_one(db: &Db, n: i64) {
        let mut tx = db.begin_write().await.unwrap();
        let details = SettingsChanged { setting: "test", before: &json!(n - 1), after: &json!(n), widens: &[] };
        append(&mut tx, Record::of("tester", None, &details)).await.unwrap();
        tx.commit().await.unwrap();
    }

    async fn seqs(db: &Db) -> Vec<i64> {
        sqlx::query_scalar("SELECT seq FROM audit_log ORDER BY seq").fetch_all(db.pool()).await.unwrap()
    }

    /// Another process (here a second `Db` on the same file, as the CLI beside `serve`) appends
    /// between this one's appends: the entry this one knew as newest is not newest any more, and
    /// its next entry links to the other's, not beside it.
    #[tokio::test]
    async fn appends_of_another_process_between_ours_keep_one_chain() {
        let dir = tempfile::tempdir().unwrap();
        let ours = Db::open(dir.path()).await.unwrap();
        let theirs = Db::open(dir.path()).await.unwrap();
        append_one(&ours, 1).await;
        append_one(&theirs, 2).await;
        append_one(&theirs, 3).await;
        append_one(&ours, 4).await;
        append_one(&ours, 5).await;
        assert_eq!(seqs(&ours).await, vec![1, 2, 3, 4, 5]);
        let checked = verify_chain(&ours).await.unwrap();
        assert!(checked.ok, "{checked:?}");
        assert_eq!(checked.checked, 5);
    }

    /// An append rolled back with its transaction leaves no gap: the next entry takes its place.
    #[tokio::test]
    async fn an_append_rolled_back_leaves_no_gap() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).await.unwrap();
        append_one(&db, 1).await;
        {
            let mut tx = db.begin_write().await.unwrap();
            let details = SettingsChanged { setting: "test", before: &json!(1), after: &json!(2), widens: &[] };
            append(&mut tx, Record::of("tester", None, &details)).await.unwrap();
            // Dropped without commit: rolled back.
        }
        append_one(&db, 2).await;
        assert_eq!(seqs(&db).await, vec![1, 2]);
        assert!(verify_chain(&db).await.unwrap().ok);
    }
}
