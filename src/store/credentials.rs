//! Stored credentials (`approval-console tokens …`): a name, a role and the SHA-256 of the token.
//! The token itself is shown once, when it is made, and never stored.

use super::sql::{scalar, sql, Row, Sql};
use super::{audit, parse_ts, ts, Db};
use crate::domain::audit::CredentialChanged;
use crate::domain::{Error, Role};
use chrono::{DateTime, Utc};
use serde::Serialize;

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
    /// Whom it belongs to: the two-person rule counts persons, so one person's credentials (and the
    /// local admin of the same name) approve once. The credential's own name unless set.
    pub person: String,
    /// The agent names its submitted calls may claim; null: its calls carry its own name.
    #[schema(required = true)]
    pub agents: Option<Vec<String>>,
    /// The sources (`http`, `claude-code`, `codex`, `gemini`, `mcp`, `acp`) its submitted calls may claim; null: any.
    #[schema(required = true)]
    pub sources: Option<Vec<String>>,
}

/// What a credential may claim of the calls it submits, and whose it is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Claims {
    /// Whom it belongs to (`None`: the credential's own name).
    pub person: Option<String>,
    /// The agent names it may claim (`None`: only its own name).
    pub agents: Option<Vec<String>>,
    /// The sources it may claim (`None`: any).
    pub sources: Option<Vec<String>>,
}

/// Every column [`from_row`] reads.
const COLUMNS: &str = "name, role, created_at, created_by, last_used_at, person, agents, sources";

fn list_of(r: &Row, column: &str) -> Result<Option<Vec<String>>, Error> {
    r.try_get::<Option<String>>(column)?
        .map(|t| serde_json::from_str(&t).map_err(|e| Error::Storage(format!("bad {column} in credentials: {e}"))))
        .transpose()
}

fn from_row(r: &Row) -> Result<Credential, Error> {
    let role: String = r.try_get("role")?;
    let name: String = r.try_get("name")?;
    Ok(Credential {
        person: r.try_get::<Option<String>>("person")?.unwrap_or_else(|| name.clone()),
        agents: list_of(r, "agents")?,
        sources: list_of(r, "sources")?,
        role: Role::parse(&role).ok_or_else(|| Error::Storage(format!("unknown role {role:?} in credentials")))?,
        name,
        created_at: parse_ts(&r.try_get::<String>("created_at")?)?,
        created_by: r.try_get("created_by")?,
        last_used_at: r.try_get::<Option<String>>("last_used_at")?.map(|t| parse_ts(&t)).transpose()?,
    })
}

/// A credential to store: never its secret, only the secret's hash.
pub struct NewCredential<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub role: Role,
    pub secret_hash: &'a str,
    pub claims: &'a Claims,
    /// Who made it, as the audit log names them.
    pub by: &'a str,
    pub at: DateTime<Utc>,
}

/// Stores a new credential; `false` if a live one has that name already.
pub async fn insert(conn: &mut impl Sql, c: &NewCredential<'_>) -> Result<bool, Error> {
    let NewCredential { id, name, role, secret_hash, claims, by, at } = *c;
    let list = |l: &Option<Vec<String>>| l.as_ref().map(|l| serde_json::to_string(l).expect("a list of strings serializes"));
    let done = sql("INSERT INTO credentials (id, name, role, secret_hash, created_at, created_by, person, agents, sources)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT DO NOTHING")
    .bind(id)
    .bind(name)
    .bind(role.as_str())
    .bind(secret_hash)
    .bind(ts(at))
    .bind(by)
    .bind(claims.person.as_deref())
    .bind(list(&claims.agents))
    .bind(list(&claims.sources))
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The live credentials, by name.
pub async fn live(conn: &mut impl Sql) -> Result<Vec<Credential>, Error> {
    let rows = sql(format!("SELECT {COLUMNS} FROM credentials WHERE revoked_at IS NULL ORDER BY name")).fetch_all(&mut *conn).await?;
    rows.iter().map(from_row).collect()
}

/// The live credential whose secret hashes to `secret_hash`, with when it was last used.
pub(in crate::store) async fn by_hash(conn: &mut impl Sql, secret_hash: &str) -> Result<Option<Credential>, Error> {
    let row = sql(format!("SELECT {COLUMNS} FROM credentials WHERE secret_hash = $1 AND revoked_at IS NULL"))
        .bind(secret_hash)
        .fetch_optional(&mut *conn)
        .await?;
    row.as_ref().map(from_row).transpose()
}

/// The credential, live or revoked, whose secret hashes to `secret_hash`: its name, role and whether
/// it was revoked.
pub(in crate::store) async fn ever_by_hash(conn: &mut impl Sql, secret_hash: &str) -> Result<Option<(String, String, bool)>, Error> {
    let row = sql("SELECT name, role, revoked_at FROM credentials WHERE secret_hash = $1 ORDER BY created_at DESC LIMIT 1")
        .bind(secret_hash)
        .fetch_optional(&mut *conn)
        .await?;
    row.map(|r| Ok((r.try_get("name")?, r.try_get("role")?, r.try_get::<Option<String>>("revoked_at")?.is_some()))).transpose()
}

/// The live credential `name`.
pub(in crate::store) async fn by_name(conn: &mut impl Sql, name: &str) -> Result<Option<Credential>, Error> {
    let row = sql(format!("SELECT {COLUMNS} FROM credentials WHERE name = $1 AND revoked_at IS NULL"))
        .bind(name)
        .fetch_optional(&mut *conn)
        .await?;
    row.as_ref().map(from_row).transpose()
}

/// The person a principal key (`Principal::key()`) stands for, as the two-person rule counts them:
/// the local admin `local:alice` is `alice`; a paired device `device:alice-phone` the person who
/// paired it; a credential `token:alice-laptop` is its `person`
/// (the newest credential of that name, revoked ones included: a run's starter may be revoked
/// since), else its name. A key of another form is its own person.
pub async fn person_of(conn: &mut impl Sql, key: &str) -> Result<String, Error> {
    if let Some(name) = key.strip_prefix("local:") {
        return Ok(name.to_owned());
    }
    if let Some(name) = key.strip_prefix("device:") {
        return Ok(super::devices::person_of(conn, name).await?.unwrap_or_else(|| key.to_owned()));
    }
    let Some(name) = key.strip_prefix("token:") else { return Ok(key.to_owned()) };
    let person: Option<Option<String>> = scalar("SELECT person FROM credentials WHERE name = $1 ORDER BY created_at DESC LIMIT 1")
        .bind(name)
        .fetch_optional(&mut *conn)
        .await?;
    Ok(person.flatten().unwrap_or_else(|| name.to_owned()))
}

/// [`person_of`] on a connection of its own.
pub async fn person_of_key(db: &Db, key: &str) -> Result<String, Error> {
    let mut conn = db.pool().acquire().await?;
    person_of(&mut conn, key).await
}

/// Revokes the live credential `name`; its role, or `None` if there was none.
pub async fn revoke(conn: &mut impl Sql, name: &str, by: &str, at: DateTime<Utc>) -> Result<Option<Role>, Error> {
    let role: Option<String> =
        scalar("UPDATE credentials SET revoked_at = $1, revoked_by = $2 WHERE name = $3 AND revoked_at IS NULL RETURNING role")
            .bind(ts(at))
            .bind(by)
            .bind(name)
            .fetch_optional(&mut *conn)
            .await?;
    Ok(role.and_then(|r| Role::parse(&r)))
}

/// Notes a use of the live credential `name`.
pub async fn touch(conn: &mut impl Sql, name: &str, at: DateTime<Utc>) -> Result<(), Error> {
    sql("UPDATE credentials SET last_used_at = $1 WHERE name = $2 AND revoked_at IS NULL")
        .bind(ts(at))
        .bind(name)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Stores a new credential and its `credential.created` audit entry in one transaction; `false` (nothing stored) if the name is live.
pub async fn create(db: &Db, c: &NewCredential<'_>) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    if !insert(&mut tx, c).await? {
        return Ok(false);
    }
    let claims = c.claims;
    let details = CredentialChanged::Created {
        name: c.name,
        role: c.role,
        person: claims.person.as_deref().unwrap_or(c.name),
        agents: &claims.agents,
        sources: &claims.sources,
    };
    audit::append(&mut tx, audit::Record::of(c.by, None, &details)).await?;
    tx.commit().await?;
    Ok(true)
}

/// Revokes the live credential `name` with its `credential.revoked` audit entry in one transaction; its role, `None` if none.
pub async fn revoke_audited(db: &Db, name: &str, by: &str, at: DateTime<Utc>) -> Result<Option<Role>, Error> {
    let mut tx = db.begin_write().await?;
    let Some(role) = revoke(&mut tx, name, by, at).await? else { return Ok(None) };
    audit::append(&mut tx, audit::Record::of(by, None, &CredentialChanged::Revoked { name, role })).await?;
    tx.commit().await?;
    Ok(Some(role))
}

/// Notes a use of the live credential `name` at `at`, in a write of its own.
pub async fn note_use(db: &Db, name: &str, at: DateTime<Utc>) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    touch(&mut tx, name, at).await?;
    tx.commit().await
}

/// The live credentials, by name.
pub async fn list_live(db: &Db) -> Result<Vec<Credential>, Error> {
    let mut conn = db.pool().acquire().await?;
    live(&mut conn).await
}

/// The live credential whose secret hashes to `secret_hash` (see [`by_hash`]).
pub async fn find_by_hash(db: &Db, secret_hash: &str) -> Result<Option<Credential>, Error> {
    let mut conn = db.pool().acquire().await?;
    by_hash(&mut conn, secret_hash).await
}

/// The credential, live or revoked, whose secret hashes to `secret_hash` (see [`ever_by_hash`]).
pub async fn find_ever_by_hash(db: &Db, secret_hash: &str) -> Result<Option<(String, String, bool)>, Error> {
    let mut conn = db.pool().acquire().await?;
    ever_by_hash(&mut conn, secret_hash).await
}

/// The live credential `name`.
pub async fn find_by_name(db: &Db, name: &str) -> Result<Option<Credential>, Error> {
    let mut conn = db.pool().acquire().await?;
    by_name(&mut conn, name).await
}
