//! The consoles' receipt keys (issue 29; `migrations/*_receipts.sql`): each console's public keys,
//! live and retired, and where its secret half is kept (never the secret itself); and the receipts
//! stored with decisions, found by call, by receipt id, or by an engine's run and tool-call ids.

use super::sql::{sql, Row};
use super::{audit, parse_ts, ts, Db};
use crate::domain::audit::ReceiptKeyChanged;
use crate::domain::receipt::{Jwk, Jwks};
use crate::domain::Error;
use chrono::{DateTime, Utc};

/// A key as stored.
#[derive(Clone, Debug)]
pub struct KeyRow {
    pub kid: String,
    pub instance: String,
    /// The 32-byte public key, base64url (the JWK's `x`).
    pub public_key: String,
    /// Where the secret half is kept: `keyring:<entry>` or `file:<path in the data directory>`.
    pub secret_ref: String,
    pub created_at: DateTime<Utc>,
    pub retired_at: Option<DateTime<Utc>>,
}

impl KeyRow {
    pub fn jwk(&self) -> Jwk {
        Jwk::new(self.public_key.clone(), self.kid.clone(), self.created_at.timestamp(), self.retired_at.map(|t| t.timestamp()))
    }
}

fn key_from_row(r: &Row) -> Result<KeyRow, Error> {
    Ok(KeyRow {
        kid: r.try_get("kid")?,
        instance: r.try_get("instance")?,
        public_key: r.try_get("public_key")?,
        secret_ref: r.try_get("secret_ref")?,
        created_at: parse_ts(&r.try_get::<String>("created_at")?)?,
        retired_at: r.try_get::<Option<String>>("retired_at")?.map(|t| parse_ts(&t)).transpose()?,
    })
}

const KEY_COLUMNS: &str = "kid, instance, public_key, secret_ref, created_at, retired_at";

/// Every console's keys, oldest first: the key set a console publishes.
pub async fn keys(db: &Db) -> Result<Vec<KeyRow>, Error> {
    let mut conn = db.pool().acquire().await?;
    let rows = sql(format!("SELECT {KEY_COLUMNS} FROM receipt_keys ORDER BY created_at, kid")).fetch_all(&mut conn).await?;
    rows.iter().map(key_from_row).collect()
}

/// The key set of [`keys`].
pub async fn jwks(db: &Db) -> Result<Jwks, Error> {
    Ok(Jwks { keys: keys(db).await?.iter().map(KeyRow::jwk).collect() })
}

/// The live (not retired) key of console `instance`, if it has one.
pub async fn live(db: &Db, instance: &str) -> Result<Option<KeyRow>, Error> {
    let mut conn = db.pool().acquire().await?;
    let row = sql(format!("SELECT {KEY_COLUMNS} FROM receipt_keys WHERE instance = $1 AND retired_at IS NULL ORDER BY created_at DESC"))
        .bind(instance)
        .fetch_optional(&mut conn)
        .await?;
    row.as_ref().map(key_from_row).transpose()
}

/// A new live key of `key.instance`, audited: `receipt_key.created`, or `receipt_key.rotated` when
/// it replaces the live key `replaces` (retired in the same transaction, at the new key's time).
/// False (nothing written) when that instance's live key is no longer `replaces`: another process
/// of the same console made or rotated its key meanwhile.
pub async fn add(db: &Db, key: &KeyRow, replaces: Option<&str>, by: &str, reason: &str) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    let live: Option<String> = sql("SELECT kid FROM receipt_keys WHERE instance = $1 AND retired_at IS NULL")
        .bind(&key.instance)
        .fetch_optional(&mut tx)
        .await?
        .map(|r| r.try_get("kid"))
        .transpose()?;
    if live.as_deref() != replaces {
        return Ok(false);
    }
    if let Some(old) = replaces {
        sql("UPDATE receipt_keys SET retired_at = $1 WHERE kid = $2").bind(ts(key.created_at)).bind(old).execute(&mut tx).await?;
    }
    sql(format!("INSERT INTO receipt_keys ({KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, NULL)"))
        .bind(&key.kid)
        .bind(&key.instance)
        .bind(&key.public_key)
        .bind(&key.secret_ref)
        .bind(ts(key.created_at))
        .execute(&mut tx)
        .await?;
    let details = ReceiptKeyChanged {
        rotated: replaces.is_some(),
        kid: &key.kid,
        instance: &key.instance,
        kept: &key.secret_ref,
        retired: replaces,
        reason,
    };
    audit::append(&mut tx, audit::Record::of(by, None, &details)).await?;
    tx.commit().await?;
    Ok(true)
}

/// The key set as last read, for checking receipts without a statement each time: read again when
/// it lacks the key asked for (a key made since, by this console or another of the team).
#[derive(Default)]
pub struct KeyCache(std::sync::RwLock<Option<std::sync::Arc<Jwks>>>);

impl KeyCache {
    /// The key set to check a receipt signed with `kid` against.
    pub async fn for_kid(&self, db: &Db, kid: &str) -> Result<std::sync::Arc<Jwks>, Error> {
        if let Some(keys) = self.0.read().expect("keys lock").clone().filter(|k| k.get(kid).is_some()) {
            return Ok(keys);
        }
        self.read(db).await
    }

    /// The key set read now (and kept).
    pub async fn read(&self, db: &Db) -> Result<std::sync::Arc<Jwks>, Error> {
        let keys = std::sync::Arc::new(jwks(db).await?);
        *self.0.write().expect("keys lock") = Some(keys.clone());
        Ok(keys)
    }
}

/// A stored receipt and the call it is for.
#[derive(Clone, Debug)]
pub struct Found {
    pub item_id: String,
    pub receipt: String,
}

/// The receipt of the decision on a call: by the call's id, or by the receipt's own id (`rct_…`).
pub async fn of_call_or_id(db: &Db, id: &str) -> Result<Option<Found>, Error> {
    let mut conn = db.pool().acquire().await?;
    let row = sql("SELECT queue_item_id, receipt FROM decisions WHERE (queue_item_id = $1 OR receipt_id = $1) AND receipt IS NOT NULL")
        .bind(id)
        .fetch_optional(&mut conn)
        .await?;
    row.map(|r| Ok(Found { item_id: r.try_get("queue_item_id")?, receipt: r.try_get("receipt")? })).transpose()
}

/// The receipt of the newest decision on the call an engine knows as `tool_call_id` (of run
/// `run_id`, when given; any engine: the caller checks the claims name the engine it expects).
/// Without a run, calls of several runs with that id are `invalid_request`: which one is meant?
pub async fn of_engine_call(db: &Db, run_id: Option<&str>, tool_call_id: &str) -> Result<Option<Found>, Error> {
    let mut conn = db.pool().acquire().await?;
    let rows = sql("SELECT d.queue_item_id, d.receipt, q.run_id FROM decisions d JOIN queue_items q ON q.id = d.queue_item_id
         WHERE q.tool_call_id = $1 AND ($2 IS NULL OR q.run_id = $2) AND d.receipt IS NOT NULL ORDER BY d.decided_at DESC LIMIT 20")
    .bind(tool_call_id)
    .bind(run_id)
    .fetch_all(&mut conn)
    .await?;
    let Some(first) = rows.first() else { return Ok(None) };
    let run: String = first.try_get("run_id")?;
    for r in &rows[1..] {
        if r.try_get::<String>("run_id")? != run {
            return Err(Error::InvalidRequest(format!(
                "calls of several runs have the tool call id {tool_call_id:?}: name the run (runId)"
            )));
        }
    }
    Ok(Some(Found { item_id: first.try_get("queue_item_id")?, receipt: first.try_get("receipt")? }))
}
