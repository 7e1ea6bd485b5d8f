//! Operator settings: one JSON document per key.

use super::{now, parse_json, ts, Db};
use crate::domain::Error;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use sqlx::SqliteConnection;

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
    let mut conn = db.pool().acquire().await?;
    put(&mut conn, T::KEY, &serde_json::to_value(doc).expect("settings serialize")).await
}

pub async fn get(conn: &mut SqliteConnection, key: &str) -> Result<Option<Value>, Error> {
    let text: Option<String> = sqlx::query_scalar("SELECT value FROM settings WHERE key = ?").bind(key).fetch_optional(&mut *conn).await?;
    text.map(|t| parse_json(&t)).transpose()
}

pub async fn put(conn: &mut SqliteConnection, key: &str, value: &Value) -> Result<(), Error> {
    sqlx::query("INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at")
        .bind(key)
        .bind(value.to_string())
        .bind(ts(now()))
        .execute(&mut *conn)
        .await?;
    Ok(())
}
