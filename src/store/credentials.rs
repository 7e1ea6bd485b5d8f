//! Stored credentials (`approval-console tokens …`): a name, a role and the SHA-256 of the token.
//! The token itself is shown once, when it is made, and never stored.

use super::{parse_ts, ts};
use crate::domain::{Error, Role};
use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::{any::AnyRow, AnyConnection, Row};

/// A credential as listed: never its secret (the database does not have it either).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Credential {
    pub name: String,
    pub role: Role,
    pub created_at: DateTime<Utc>,
    pub created_by: String,
    #[schema(required = true)]
    pub last_used_at: Option<DateTime<Utc>>,
}

fn from_row(r: &AnyRow) -> Result<Credential, Error> {
    let role: String = r.try_get("role")?;
    Ok(Credential {
        role: Role::parse(&role).ok_or_else(|| Error::Storage(format!("unknown role {role:?} in credentials")))?,
        name: r.try_get("name")?,
        created_at: parse_ts(&r.try_get::<String, _>("created_at")?)?,
        created_by: r.try_get("created_by")?,
        last_used_at: r.try_get::<Option<String>, _>("last_used_at")?.map(|t| parse_ts(&t)).transpose()?,
    })
}

/// Stores a new credential; `false` if a live one has that name already.
pub async fn insert(
    conn: &mut AnyConnection,
    id: &str,
    name: &str,
    role: Role,
    secret_hash: &str,
    by: &str,
    at: DateTime<Utc>,
) -> Result<bool, Error> {
    let done = sqlx::query(
        "INSERT INTO credentials (id, name, role, secret_hash, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT DO NOTHING",
    )
    .bind(id)
    .bind(name)
    .bind(role.as_str())
    .bind(secret_hash)
    .bind(ts(at))
    .bind(by)
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The live credentials, by name.
pub async fn live(conn: &mut AnyConnection) -> Result<Vec<Credential>, Error> {
    let rows =
        sqlx::query("SELECT name, role, created_at, created_by, last_used_at FROM credentials WHERE revoked_at IS NULL ORDER BY name")
            .fetch_all(&mut *conn)
            .await?;
    rows.iter().map(from_row).collect()
}

/// The live credential whose secret hashes to `secret_hash`, with when it was last used.
pub async fn by_hash(conn: &mut AnyConnection, secret_hash: &str) -> Result<Option<Credential>, Error> {
    let row = sqlx::query(
        "SELECT name, role, created_at, created_by, last_used_at FROM credentials WHERE secret_hash = $1 AND revoked_at IS NULL",
    )
    .bind(secret_hash)
    .fetch_optional(&mut *conn)
    .await?;
    row.as_ref().map(from_row).transpose()
}

/// Revokes the live credential `name`; its role, or `None` if there was none.
pub async fn revoke(conn: &mut AnyConnection, name: &str, by: &str, at: DateTime<Utc>) -> Result<Option<Role>, Error> {
    let role: Option<String> =
        sqlx::query_scalar("UPDATE credentials SET revoked_at = $1, revoked_by = $2 WHERE name = $3 AND revoked_at IS NULL RETURNING role")
            .bind(ts(at))
            .bind(by)
            .bind(name)
            .fetch_optional(&mut *conn)
            .await?;
    Ok(role.and_then(|r| Role::parse(&r)))
}

/// Notes a use of the live credential `name`.
pub async fn touch(conn: &mut AnyConnection, name: &str, at: DateTime<Utc>) -> Result<(), Error> {
    sqlx::query("UPDATE credentials SET last_used_at = $1 WHERE name = $2 AND revoked_at IS NULL")
        .bind(ts(at))
        .bind(name)
        .execute(&mut *conn)
        .await?;
    Ok(())
}
