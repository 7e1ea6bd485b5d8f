//! Operator settings: one JSON document per key.

use super::{now, parse_json, ts, Db};
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

/// The quorums of the two-person rule, or none (every tool needs one approval).
pub async fn quorum(db: &Db) -> Result<crate::domain::safety::QuorumSettings, Error> {
    load(db).await
}

/// The safety settings (the high-risk tools), or none marked high-risk.
pub async fn safety(db: &Db) -> Result<crate::domain::safety::SafetySettings, Error> {
    load(db).await
}

/// The stored document, or its default when none was saved.
pub async fn load<T: Document>(db: &Db) -> Result<T, Error> {
    let mut conn = db.pool().acquire().await?;
    match get(&mut conn, T::KEY).await? {
        Some(v) => serde_json::from_value(v).map_err(|e| Error::Storage(format!("stored {} are unreadable: {e}", T::NAME))),
        None => Ok(T::default()),
    }
}

/// Checks and stores the document.
pub async fn save<T: Document>(db: &Db, doc: &T) -> Result<(), Error> {
    doc.check()?;
    let mut tx = db.begin_write().await?;
    put(&mut tx, T::KEY, &serde_json::to_value(doc).expect("settings serialize")).await?;
    tx.commit().await
}

/// Checks and stores two documents in one transaction: both or neither.
pub async fn save_both<A: Document, B: Document>(db: &Db, a: &A, b: &B) -> Result<(), Error> {
    a.check()?;
    b.check()?;
    let mut tx = db.begin_write().await?;
    put(&mut tx, A::KEY, &serde_json::to_value(a).expect("settings serialize")).await?;
    put(&mut tx, B::KEY, &serde_json::to_value(b).expect("settings serialize")).await?;
    tx.commit().await?;
    Ok(())
}

pub async fn get(conn: &mut AnyConnection, key: &str) -> Result<Option<Value>, Error> {
    let text: Option<String> = sqlx::query_scalar("SELECT value FROM settings WHERE key = $1").bind(key).fetch_optional(&mut *conn).await?;
    text.map(|t| parse_json(&t)).transpose()
}

pub async fn put(conn: &mut AnyConnection, key: &str, value: &Value) -> Result<(), Error> {
    sqlx::query("INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at")
        .bind(key)
        .bind(value.to_string())
        .bind(ts(now()))
        .execute(&mut *conn)
        .await?;
    Ok(())
}
