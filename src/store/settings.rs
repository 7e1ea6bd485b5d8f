//! Operator settings: one JSON document per key.

use super::{now, parse_json, ts};
use crate::domain::Error;
use serde_json::Value;
use sqlx::SqliteConnection;

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
