//! Operator settings: one JSON document per key. Every change is audited (`settings.changed`, with
//! the document before and after) in the transaction that stores it.

use super::{audit, now, parse_json, ts, Db};
use crate::domain::audit::SettingsChanged;
use crate::domain::Error;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use sqlx::AnyConnection;

/// A settings document: stored as JSON under its key, its `Default` until first saved, checked
/// before it is saved.
pub trait Document: Serialize + DeserializeOwned + Default {
    /// Its key in the `settings` table.
    const KEY: &'static str;
    /// What it is called in errors ("notification settings").
    const NAME: &'static str;
    /// Refuses values that must not be stored (`invalid_request`).
    fn check(&self) -> Result<(), Error>;
}

impl Document for crate::domain::safety::SafetySettings {
    const KEY: &'static str = "safety";
    const NAME: &'static str = "safety settings";
    fn check(&self) -> Result<(), Error> {
        if self.high_risk_tools.iter().any(|t| t.trim().is_empty()) {
            return Err(Error::InvalidRequest("a high-risk tool needs a name".into()));
        }
        Ok(())
    }
}

impl Document for crate::domain::safety::QuorumSettings {
    const KEY: &'static str = "quorum";
    const NAME: &'static str = "quorum settings";
    fn check(&self) -> Result<(), Error> {
        crate::domain::safety::QuorumSettings::check(self)
    }
}

impl Document for crate::domain::risk::custom::RiskRules {
    const KEY: &'static str = "risk";
    const NAME: &'static str = "risk rules";
    fn check(&self) -> Result<(), Error> {
        crate::domain::risk::custom::RiskRules::check(self).map_err(Error::InvalidRequest)
    }
}

/// The quorums of the two-person rule, or none (every tool needs one approval).
pub async fn quorum(db: &Db) -> Result<crate::domain::safety::QuorumSettings, Error> {
    load(db).await
}

/// The safety settings (the high-risk tools), or none marked high-risk.
pub async fn safety(db: &Db) -> Result<crate::domain::safety::SafetySettings, Error> {
    load(db).await
}

/// Every stored document as read by one statement: where a request needs several, it reads them at
/// once instead of one round trip each.
#[derive(Clone, Debug, Default)]
pub struct Snapshot(std::collections::HashMap<String, Value>);

impl Snapshot {
    /// The document as stored when the snapshot was read, or its default.
    pub fn get<T: Document>(&self) -> Result<T, Error> {
        decode(self.0.get(T::KEY).cloned())
    }
}

/// A snapshot of `docs` (key → document JSON), as if stored (tests).
#[cfg(test)]
pub fn snapshot_of(docs: serde_json::Map<String, Value>) -> Snapshot {
    Snapshot(docs.into_iter().collect())
}

/// Every stored document, in one statement.
pub async fn snapshot(db: &Db) -> Result<Snapshot, Error> {
    let rows: Vec<(String, String)> = sqlx::query_as("SELECT key, value FROM settings").fetch_all(db.pool()).await?;
    rows.into_iter().map(|(key, text)| Ok((key, parse_json(&text)?))).collect::<Result<_, Error>>().map(Snapshot)
}

/// The stored document, or its default when none was saved.
pub async fn load<T: Document>(db: &Db) -> Result<T, Error> {
    let mut conn = db.pool().acquire().await?;
    read(&mut conn).await
}

/// Checks and stores the document, audited as changed by `by` (an actor's audit name).
pub async fn save<T: Document>(db: &Db, doc: &T, by: &str) -> Result<(), Error> {
    doc.check()?;
    let mut tx = db.begin_write().await?;
    change(&mut tx, doc, by).await?;
    tx.commit().await
}

/// Checks and stores two documents in one transaction: both or neither, each audited.
pub async fn save_both<A: Document, B: Document>(db: &Db, a: &A, b: &B, by: &str) -> Result<(), Error> {
    a.check()?;
    b.check()?;
    let mut tx = db.begin_write().await?;
    change(&mut tx, a, by).await?;
    change(&mut tx, b, by).await?;
    tx.commit().await?;
    Ok(())
}

/// A policy file put in force (`approval-console policy apply`): its four documents stored in one
/// transaction, each change audited (`settings.changed`), then `policy.applied` with the versions
/// before and after. Checked by the caller.
pub async fn save_policy<A: Document, B: Document, C: Document, D: Document>(
    db: &Db,
    docs: (&A, &B, &C, &D),
    before: &str,
    after: &str,
    by: &str,
) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    change(&mut tx, docs.0, by).await?;
    change(&mut tx, docs.1, by).await?;
    change(&mut tx, docs.2, by).await?;
    change(&mut tx, docs.3, by).await?;
    let details = crate::domain::audit::PolicyApplied { before, after };
    audit::append(&mut tx, audit::Record::of(by, None, &details)).await?;
    tx.commit().await
}

/// Reads the stored document and stores `edit(stored)` as [`change`] does, in one transaction (two at once both hold); answers it.
pub async fn update<T: Document>(db: &Db, by: &str, edit: impl FnOnce(T) -> Result<T, Error>) -> Result<T, Error> {
    let mut tx = db.begin_write().await?;
    let stored: T = read(&mut tx).await?;
    // `edit`'s refusal writes nothing; like `change`, this does not `check` the document.
    let doc = edit(stored)?;
    change(&mut tx, &doc, by).await?;
    tx.commit().await?;
    Ok(doc)
}

/// Stores `doc` in the caller's transaction with its audit entry (`settings.changed`: `setting`,
/// `before` — the default when none was stored — and `after`), so the two commit together. A
/// document equal to the stored one is not a change: nothing is written. Answers whether it changed.
/// Does not [`Document::check`] it.
pub async fn change<T: Document>(conn: &mut super::writer::WriteTx, doc: &T, by: &str) -> Result<bool, Error> {
    let after = serde_json::to_value(doc).expect("settings serialize");
    let before = match get(conn, T::KEY).await? {
        Some(stored) => stored,
        None => serde_json::to_value(T::default()).expect("settings serialize"),
    };
    if before == after {
        return Ok(false);
    }
    put(conn, T::KEY, &after).await?;
    let details = SettingsChanged { setting: T::KEY, before: &before, after: &after };
    audit::append(conn, audit::Record::of(by, None, &details)).await?;
    Ok(true)
}

/// The stored document in the caller's transaction, or its default.
pub async fn read<T: Document>(conn: &mut AnyConnection) -> Result<T, Error> {
    decode(get(conn, T::KEY).await?)
}

/// A stored document as its type, or its default when none was stored.
fn decode<T: Document>(stored: Option<Value>) -> Result<T, Error> {
    match stored {
        Some(v) => serde_json::from_value(v).map_err(|e| Error::Storage(format!("stored {} are unreadable: {e}", T::NAME))),
        None => Ok(T::default()),
    }
}

pub async fn get(conn: &mut AnyConnection, key: &str) -> Result<Option<Value>, Error> {
    let text: Option<String> = sqlx::query_scalar("SELECT value FROM settings WHERE key = $1").bind(key).fetch_optional(&mut *conn).await?;
    text.map(|t| parse_json(&t)).transpose()
}

/// Writes a document without auditing it: only through [`change`].
async fn put(conn: &mut AnyConnection, key: &str, value: &Value) -> Result<(), Error> {
    sqlx::query("INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at")
        .bind(key)
        .bind(value.to_string())
        .bind(ts(now()))
        .execute(&mut *conn)
        .await?;
    Ok(())
}
