//! Presence: who else has a call open right now, so two operators don't review the same call
//! without knowing. An open detail says so every [`HEARTBEAT`] ([`App::viewing`]) and gets the
//! others back; closing it says so too ([`App::stop_viewing`]). Someone not heard from for
//! [`PRESENCE_TTL`] is gone (a closed laptop, a console killed).

use super::App;
use crate::domain::{grade, Cx};
use crate::domain::{Error, ItemId};
use crate::store::presence;
use serde::Serialize;
use std::time::Duration;

pub use presence::Viewer;

/// How often an open detail says it is still open.
pub const HEARTBEAT: Duration = Duration::from_secs(10);

/// How long after their last heartbeat someone still counts as viewing (three heartbeats: one lost
/// request does not hide them).
pub const PRESENCE_TTL: Duration = Duration::from_secs(30);

/// The answer to a heartbeat: who else has the call open, and when to say so again.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Presence {
    /// Everyone else seen on this call within the last `PRESENCE_TTL`, longest there first; the
    /// caller is never listed (whichever window they use).
    pub viewers: Vec<Viewer>,
    /// Seconds until the next heartbeat is due.
    pub heartbeat_secs: u64,
}

impl App {
    /// `by` has call `id` open: recorded (on the shared database in team mode, so every console
    /// sees it), and the others who have it open are answered. `not_found` for an unknown id.
    pub async fn viewing(&self, id: &str, by: &Cx<grade::Watch>) -> Result<Presence, Error> {
        let id = ItemId::new(id);
        let now = chrono::Utc::now();
        let ttl = chrono::Duration::from_std(PRESENCE_TTL).expect("a small duration");
        let key = by.principal.key();
        let viewers = presence::record_viewing(&self.db, &id, &key, &by.audit_name(), now, now - ttl)
            .await?
            .ok_or_else(|| Error::not_found(format!("queue item {id}")))?;
        Ok(Presence { viewers, heartbeat_secs: HEARTBEAT.as_secs() })
    }

    /// `by` closed call `id`: the others stop seeing them at once, not a `PRESENCE_TTL` later.
    pub async fn stop_viewing(&self, id: &str, by: &Cx<grade::Watch>) -> Result<(), Error> {
        presence::record_leaving(&self.db, &ItemId::new(id), &by.principal.key()).await
    }
}
