//! Paired devices, their sessions and pairings (issue 28; `migrations/*_devices.sql`). No secret is
//! stored: a passkey is a public key, a pairing code and a session cookie are kept as SHA-256 only.
//! Each change and its audit entry commit together.

use super::sql::{scalar, sql, Row, Sql};
use super::{audit, parse_ts, ts, Db};
use crate::domain::audit::{DeviceChanged, RemoteRefusal};
use crate::domain::Error;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// A device as listed: never its passkey or its sessions.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Device {
    pub id: String,
    pub name: String,
    /// Whose operator credential it is (the two-person rule counts persons).
    pub person: String,
    pub created_at: DateTime<Utc>,
    pub created_by: String,
    #[schema(required = true)]
    pub last_used_at: Option<DateTime<Utc>>,
    /// Signed-in browsers of this device now.
    pub sessions: i64,
}

/// A live device with its passkey (webauthn-rs's `Passkey` as JSON).
pub struct Keyed {
    pub id: String,
    pub name: String,
    pub person: String,
    pub passkey: String,
}

/// A claimed pairing: the device's name and person to be.
pub struct Pairing {
    pub id: String,
    pub name: String,
    pub person: String,
}

const LISTED: &str = "d.id, d.name, d.person, d.created_at, d.created_by, d.last_used_at,
     (SELECT COUNT(*) FROM device_sessions s WHERE s.device_id = d.id) AS sessions";

fn from_row(r: &Row) -> Result<Device, Error> {
    Ok(Device {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        person: r.try_get("person")?,
        created_at: parse_ts(&r.try_get::<String>("created_at")?)?,
        created_by: r.try_get("created_by")?,
        last_used_at: r.try_get::<Option<String>>("last_used_at")?.map(|t| parse_ts(&t)).transpose()?,
        sessions: r.try_get("sessions")?,
    })
}

fn keyed(r: &Row) -> Result<Keyed, Error> {
    Ok(Keyed { id: r.try_get("id")?, name: r.try_get("name")?, person: r.try_get("person")?, passkey: r.try_get("passkey")? })
}

/// The live devices, by name.
pub async fn list(db: &Db) -> Result<Vec<Device>, Error> {
    let mut conn = db.pool().acquire().await?;
    let rows = sql(format!("SELECT {LISTED} FROM devices d WHERE d.revoked_at IS NULL ORDER BY d.name")).fetch_all(&mut conn).await?;
    rows.iter().map(from_row).collect()
}

/// Whether a live device is named `name`.
pub async fn name_taken(db: &Db, name: &str) -> Result<bool, Error> {
    let mut conn = db.pool().acquire().await?;
    let n: i64 = scalar("SELECT COUNT(*) FROM devices WHERE name = $1 AND revoked_at IS NULL").bind(name).fetch_one(&mut conn).await?;
    Ok(n > 0)
}

/// A pairing to store: its code only as a hash.
pub struct NewPairing<'a> {
    pub id: &'a str,
    pub code_hash: &'a str,
    pub name: &'a str,
    pub person: &'a str,
    pub by: &'a str,
    pub at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// Stores a pairing with its `device.pairing_started` entry.
pub async fn start_pairing(db: &Db, p: &NewPairing<'_>) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    sql("INSERT INTO pairings (id, code_hash, name, person, created_at, created_by, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)")
        .bind(p.id)
        .bind(p.code_hash)
        .bind(p.name)
        .bind(p.person)
        .bind(ts(p.at))
        .bind(p.by)
        .bind(ts(p.expires_at))
        .execute(&mut tx)
        .await?;
    let expires = ts(p.expires_at);
    let details = DeviceChanged::PairingStarted { pairing_id: p.id, name: p.name, person: p.person, expires_at: &expires };
    audit::append(&mut tx, audit::Record::of(p.by, None, &details)).await?;
    tx.commit().await
}

/// What a pairing code came to ([`claim_pairing`]).
pub enum Claim {
    /// The live pairing of that code, used up now.
    Claimed(Pairing),
    /// No live pairing has that code (wrong, used or expired): the try counted against every live
    /// pairing, and those that have now seen `max_wrong` wrong tries ended (these), each with its
    /// `device.pairing_ended` entry.
    Wrong { ended: Vec<Pairing> },
}

/// Takes the live pairing whose code hashes to `code_hash` (unused, unexpired at `now`): marked
/// used in this same statement, so of two proofs of one code exactly one gets it. A code no live
/// pairing has is a wrong try against each live one, and a pairing with `max_wrong` of them ends
/// (expires now), in the same transaction: guessing kills codes, it never locks pairing for all.
pub async fn claim_pairing(db: &Db, code_hash: &str, now: DateTime<Utc>, max_wrong: i64) -> Result<Claim, Error> {
    let mut tx = db.begin_write().await?;
    let row =
        sql("UPDATE pairings SET used_at = $1 WHERE code_hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING id, name, person")
            .bind(ts(now))
            .bind(code_hash)
            .fetch_optional(&mut tx)
            .await?;
    let pairing = |r: &Row| -> Result<Pairing, Error> {
        Ok(Pairing { id: r.try_get("id")?, name: r.try_get("name")?, person: r.try_get("person")? })
    };
    if let Some(row) = row {
        tx.commit().await?;
        return Ok(Claim::Claimed(pairing(&row)?));
    }
    sql("UPDATE pairings SET wrong_tries = wrong_tries + 1 WHERE used_at IS NULL AND expires_at > $1")
        .bind(ts(now))
        .execute(&mut tx)
        .await?;
    let rows = sql("UPDATE pairings SET expires_at = $1 WHERE used_at IS NULL AND expires_at > $1 AND wrong_tries >= $2
                    RETURNING id, name, person, wrong_tries")
    .bind(ts(now))
    .bind(max_wrong)
    .fetch_all(&mut tx)
    .await?;
    let mut ended = Vec::with_capacity(rows.len());
    for r in &rows {
        let p = pairing(r)?;
        let wrong_tries: i64 = r.try_get("wrong_tries")?;
        let details = DeviceChanged::PairingEnded { pairing_id: &p.id, name: &p.name, person: &p.person, wrong_tries };
        audit::append(&mut tx, audit::Record::of("remote-listener", None, &details)).await?;
        ended.push(p);
    }
    tx.commit().await?;
    Ok(Claim::Wrong { ended })
}

/// A session to store with a device: its cookie only as a hash.
pub struct NewSession<'a> {
    pub secret_hash: &'a str,
    pub at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// Where the browser connected from, for the audit log.
    pub address: &'a str,
}

async fn insert_session(conn: &mut impl Sql, device_id: &str, s: &NewSession<'_>) -> Result<(), Error> {
    sql("INSERT INTO device_sessions (secret_hash, device_id, created_at, expires_at) VALUES ($1, $2, $3, $4)")
        .bind(s.secret_hash)
        .bind(device_id)
        .bind(ts(s.at))
        .bind(ts(s.expires_at))
        .execute(&mut *conn)
        .await?;
    // Expired sessions go as new ones come.
    sql("DELETE FROM device_sessions WHERE expires_at <= $1").bind(ts(s.at)).execute(&mut *conn).await?;
    Ok(())
}

/// A device just paired: stored with its passkey and first session, and `device.paired`. `false`
/// (nothing stored) if a live device has the name already.
pub struct NewDevice<'a> {
    pub id: &'a str,
    pub pairing: &'a Pairing,
    pub credential_id: &'a str,
    pub passkey: &'a str,
    pub by: &'a str,
}

pub async fn pair(db: &Db, d: &NewDevice<'_>, session: &NewSession<'_>) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    let done = sql("INSERT INTO devices (id, name, person, credential_id, passkey, created_at, created_by, last_used_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $6) ON CONFLICT DO NOTHING")
    .bind(d.id)
    .bind(&d.pairing.name)
    .bind(&d.pairing.person)
    .bind(d.credential_id)
    .bind(d.passkey)
    .bind(ts(session.at))
    .bind(d.by)
    .execute(&mut tx)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    insert_session(&mut tx, d.id, session).await?;
    let details = DeviceChanged::Paired {
        pairing_id: &d.pairing.id,
        device_id: d.id,
        name: &d.pairing.name,
        person: &d.pairing.person,
        address: session.address,
    };
    audit::append(&mut tx, audit::Record::of(d.by, None, &details)).await?;
    tx.commit().await?;
    Ok(true)
}

/// The live device of a live session whose cookie hashes to `secret_hash` at `now`.
pub async fn session(db: &Db, secret_hash: &str, now: DateTime<Utc>) -> Result<Option<Keyed>, Error> {
    let mut conn = db.pool().acquire().await?;
    let row = sql("SELECT d.id, d.name, d.person, d.passkey FROM device_sessions s JOIN devices d ON d.id = s.device_id
                   WHERE s.secret_hash = $1 AND s.expires_at > $2 AND d.revoked_at IS NULL")
    .bind(secret_hash)
    .bind(ts(now))
    .fetch_optional(&mut conn)
    .await?;
    row.as_ref().map(keyed).transpose()
}

/// The live device named `name`, with its passkey (a step-up asks for it).
pub async fn keyed_by_name(db: &Db, name: &str) -> Result<Option<Keyed>, Error> {
    let mut conn = db.pool().acquire().await?;
    let row = sql("SELECT id, name, person, passkey FROM devices WHERE name = $1 AND revoked_at IS NULL")
        .bind(name)
        .fetch_optional(&mut conn)
        .await?;
    row.as_ref().map(keyed).transpose()
}

/// The live device whose passkey has the credential id `credential_id` (base64url, as stored): a
/// sign-in finds its device by the credential the browser chose, never by listing them.
pub async fn keyed_by_credential(db: &Db, credential_id: &str) -> Result<Option<Keyed>, Error> {
    let mut conn = db.pool().acquire().await?;
    let row = sql("SELECT id, name, person, passkey FROM devices WHERE credential_id = $1 AND revoked_at IS NULL")
        .bind(credential_id)
        .fetch_optional(&mut conn)
        .await?;
    row.as_ref().map(keyed).transpose()
}

/// A sign-in: the passkey as it is now (its counter moved), a new session, `device.signed_in`.
/// `false` if the device was revoked meanwhile.
pub async fn sign_in(db: &Db, device: &Keyed, passkey: &str, session: &NewSession<'_>) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    let done = sql("UPDATE devices SET passkey = $1, last_used_at = $2 WHERE id = $3 AND revoked_at IS NULL")
        .bind(passkey)
        .bind(ts(session.at))
        .bind(&device.id)
        .execute(&mut tx)
        .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    insert_session(&mut tx, &device.id, session).await?;
    let details = DeviceChanged::SignedIn { device_id: &device.id, name: &device.name, address: session.address };
    audit::append(&mut tx, audit::Record::of(&device.name, None, &details)).await?;
    tx.commit().await?;
    Ok(true)
}

/// Keeps a live device's passkey as a step-up left it (its counter moved) and notes its use.
pub async fn note_use(db: &Db, device_id: &str, passkey: &str, at: DateTime<Utc>) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    sql("UPDATE devices SET passkey = $1, last_used_at = $2 WHERE id = $3 AND revoked_at IS NULL")
        .bind(passkey)
        .bind(ts(at))
        .bind(device_id)
        .execute(&mut tx)
        .await?;
    tx.commit().await
}

/// Ends one session (sign-out).
pub async fn end_session(db: &Db, secret_hash: &str) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    sql("DELETE FROM device_sessions WHERE secret_hash = $1").bind(secret_hash).execute(&mut tx).await?;
    tx.commit().await
}

/// Renames the live device `name`; `Ok(false)` if there is none, an error if `new` is taken.
pub async fn rename(db: &Db, name: &str, new: &str, by: &str) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    let taken: i64 = scalar("SELECT COUNT(*) FROM devices WHERE name = $1 AND revoked_at IS NULL").bind(new).fetch_one(&mut tx).await?;
    if taken > 0 && name != new {
        return Err(Error::InvalidRequest(format!("a device is named {new:?} already")));
    }
    let id: Option<String> = scalar("UPDATE devices SET name = $1 WHERE name = $2 AND revoked_at IS NULL RETURNING id")
        .bind(new)
        .bind(name)
        .fetch_optional(&mut tx)
        .await?;
    let Some(id) = id else { return Ok(false) };
    audit::append(&mut tx, audit::Record::of(by, None, &DeviceChanged::Renamed { device_id: &id, before: name, after: new })).await?;
    tx.commit().await?;
    Ok(true)
}

/// Revokes the live device `name` and ends its sessions, with `device.revoked`; `None` if there is
/// no such device, else how many sessions ended.
pub async fn revoke(db: &Db, name: &str, by: &str, at: DateTime<Utc>) -> Result<Option<u64>, Error> {
    let mut tx = db.begin_write().await?;
    let row = sql("UPDATE devices SET revoked_at = $1, revoked_by = $2 WHERE name = $3 AND revoked_at IS NULL RETURNING id, person")
        .bind(ts(at))
        .bind(by)
        .bind(name)
        .fetch_optional(&mut tx)
        .await?;
    let Some(row) = row else { return Ok(None) };
    let (id, person): (String, String) = (row.try_get("id")?, row.try_get("person")?);
    let ended = sql("DELETE FROM device_sessions WHERE device_id = $1").bind(&id).execute(&mut tx).await?.rows_affected();
    let details = DeviceChanged::Revoked { device_id: &id, name, person: &person, sessions_ended: ended };
    audit::append(&mut tx, audit::Record::of(by, None, &details)).await?;
    tx.commit().await?;
    Ok(Some(ended))
}

/// Writes a refusal of the remote listener (or a failed pairing) to the audit log, as `actor`.
pub async fn refused(db: &Db, actor: &str, refusal: &RemoteRefusal<'_>) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    audit::append(&mut tx, audit::Record::of(actor, None, refusal)).await?;
    tx.commit().await
}

/// The person of the device named `name` (the newest of that name, revoked ones included).
pub async fn person_of(conn: &mut impl Sql, name: &str) -> Result<Option<String>, Error> {
    scalar("SELECT person FROM devices WHERE name = $1 ORDER BY created_at DESC LIMIT 1").bind(name).fetch_optional(&mut *conn).await
}
