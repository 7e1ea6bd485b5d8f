//! Leases (team mode): which console of a team syncs and delivers a remote engine. A lease is a
//! PostgreSQL session-level advisory lock held on a connection of its own for as long as the
//! console holds it; PostgreSQL lets it go the moment that connection ends — a console killed with
//! -9, a network cut — and another console takes it at its next try. On SQLite (one console) every
//! lease is granted and costs nothing.

use super::{Db, Location};
use crate::domain::Error;
use sha2::{Digest, Sha256};
use sqlx::{AnyConnection, Connection};

/// A held lease; dropping it lets it go.
pub struct Lease {
    conn: Option<AnyConnection>,
}

impl std::fmt::Debug for Lease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease").field("shared", &self.conn.is_some()).finish()
    }
}

/// Where a console keeps the lease of one remote engine between its connections: the sync loop of
/// the engine connected anew after a settings change finds the lease its last loop held, so a
/// console never lets its engine go to another console because it was edited. The loop holds the
/// slot while it syncs, so a new loop waits for the last one's sync to end.
pub type LeaseSlot = std::sync::Arc<tokio::sync::Mutex<Option<Lease>>>;

/// The advisory lock key of a lease name (`engine:<name>` for a remote engine): the first 8 bytes
/// of its SHA-256.
pub fn key(name: &str) -> i64 {
    let digest = Sha256::digest(format!("approval-console lease:{name}").as_bytes());
    i64::from_be_bytes(digest[..8].try_into().expect("8 bytes"))
}

impl Lease {
    /// Takes the lease `name` if no other console holds it; `None` if one does.
    pub async fn try_take(db: &Db, name: &str) -> Result<Option<Self>, Error> {
        let Location::Postgres(url) = db.location() else { return Ok(Some(Self { conn: None })) };
        let mut conn = AnyConnection::connect(url).await.map_err(|e| Error::Storage(super::redact(&e.to_string())))?;
        let taken: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1)").bind(key(name)).fetch_one(&mut conn).await?;
        if taken {
            Ok(Some(Self { conn: Some(conn) }))
        } else {
            let _ = conn.close().await;
            Ok(None)
        }
    }

    /// Whether the lease is still held: its connection still answers (a lost connection lost the lock).
    pub async fn alive(&mut self) -> bool {
        match self.conn.as_mut() {
            None => true,
            Some(conn) => sqlx::query("SELECT 1").execute(&mut *conn).await.is_ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lease_keys_differ_by_name_and_stay_the_same_for_one() {
        assert_eq!(key("prod"), key("prod"));
        assert_ne!(key("prod"), key("staging"));
    }
}
