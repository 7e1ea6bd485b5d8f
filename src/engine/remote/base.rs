//! What every remote adapter shares with the console's supervisor, and nothing that runs by itself:
//! the engine's token (read from the keyring once), its health (written when it changes), how a
//! server's failure becomes the console's error, and what one sync did. The poll loop, the lease,
//! backoff and take-over are the supervisor's ([`crate::console::supervisor`]).

use super::http::RemoteError;
use crate::domain::{CallKind, EngineId, Error, ItemState, PausedCall};
use crate::engine::local::model::ApiKey;
use crate::secrets;
use crate::store::engines::{self as store, EngineRow, Health, HealthReport};
use crate::store::feed::Events;
use crate::store::{Db, Topology};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// What one sync did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SyncReport {
    /// Whether the listing was complete (else only recent runs were asked for).
    pub full: bool,
    /// Agents (Mastra) or graphs with waiting threads (LangGraph) seen.
    pub agents: usize,
    /// Calls the engine lists as waiting (after merging nested approvals).
    pub listed: usize,
    pub added: usize,
    /// Calls whose arguments changed since they were queued (old entry `gone`, new one pending).
    pub changed: usize,
    /// Pending entries whose run no longer waits at the engine.
    pub gone: usize,
    /// Listed entries that could not be queued (malformed, or arguments too deeply nested).
    pub skipped: usize,
}

/// What the adapter of one remote engine and the console's supervisor share: who it is, where its
/// queue is, its token and its health. Made by the supervisor, handed to the kind's `connect`.
pub struct Link {
    pub id: EngineId,
    pub kind: crate::domain::CallSource,
    pub db: Db,
    pub events: Events,
    token_ref: Option<String>,
    /// The engine's URL as tokens are bound to it ([`store::url_key`]): the URL of every request
    /// this engine sends (its client is built from the same row).
    url: String,
    /// The token read from the keyring (or given for this session only), kept after the first read;
    /// only ever one given for [`Link::url`].
    token: tokio::sync::Mutex<Option<ApiKey>>,
    /// A session token was given, but for another URL: it is not used.
    session_elsewhere: AtomicBool,
    health: Mutex<HealthReport>,
}

impl Link {
    pub fn new(db: Db, events: Events, row: &EngineRow) -> Self {
        Self {
            id: EngineId::new(&row.name),
            kind: row.kind,
            db,
            events,
            token_ref: row.token_ref.clone(),
            url: store::url_key(&row.base_url),
            token: tokio::sync::Mutex::new(None),
            session_elsewhere: AtomicBool::new(false),
            health: Mutex::new(row.health.clone()),
        }
    }

    /// Uses `token` for this process only (when the keyring cannot hold it), if it was given for
    /// this engine's URL (`given_for`); one given for another URL is never sent (`token_required`).
    /// Call on a new engine.
    pub fn set_session_token_now(&self, token: ApiKey, given_for: &str) {
        if store::url_key(given_for) != self.url {
            tracing::warn!(engine = %self.id, "the token of this session was given for another URL: not sent to {}", self.url);
            self.session_elsewhere.store(true, Ordering::SeqCst);
            return;
        }
        match self.token.try_lock() {
            Ok(mut slot) => *slot = Some(token),
            Err(_) => tracing::warn!(engine = %self.id, "the session token could not be set: the engine is busy"),
        }
    }

    pub fn health(&self) -> HealthReport {
        self.health.lock().expect("health lock").clone()
    }

    async fn token(&self) -> Result<Option<ApiKey>, RemoteError> {
        let Some(name) = &self.token_ref else { return Ok(None) };
        let mut cached = self.token.lock().await;
        if let Some(t) = &*cached {
            return Ok(Some(t.clone()));
        }
        let required = || {
            RemoteError::TokenRequired(format!(
                "this console holds no token given for {}: the engine's URL changed (here or on another console), so an admin gives its token again for the new URL",
                self.url
            ))
        };
        if name == store::SESSION_TOKEN {
            if self.session_elsewhere.load(Ordering::SeqCst) {
                return Err(required());
            }
            return Err(RemoteError::Auth(
                "this engine's token was kept for one session only (the keyring could not hold it): enter it again".into(),
            ));
        }
        // The entry is named after the URL the requests go to, whatever the (shared) row names: a
        // token is only ever read for the URL it was given for.
        let bound = store::token_ref(self.id.as_str(), &self.url);
        let entry = if *name == bound {
            bound
        } else if *name == store::legacy_token_ref(self.id.as_str()) && self.db.topology() == Topology::Solo {
            // Stored before tokens were bound to URLs, on a console of its own: only its own edits
            // changed the URL, each of which needed the token again or kept it on purpose.
            name.clone()
        } else {
            return Err(required());
        };
        match secrets::get(&entry).await {
            Ok(t) => {
                *cached = Some(t.clone());
                Ok(Some(t))
            }
            Err(secrets::SecretError::NotFound { .. }) => Err(required()),
            // Without its token the engine would answer 401: say why instead.
            Err(e) => Err(RemoteError::Auth(format!("cannot read the engine's token: {e}"))),
        }
    }

    /// The token; failing to read it is recorded as the engine's health (it cannot be asked without it).
    pub async fn token_or_health(&self) -> Result<Option<ApiKey>, Error> {
        match self.token().await {
            Ok(token) => Ok(token),
            Err(e) => Err(self.to_error(self.observe::<()>(Err(e)).await.expect_err("an error stays an error"))),
        }
    }

    /// A remote failure as the console's error: unreachable and auth failures are worth retrying.
    pub fn to_error(&self, e: RemoteError) -> Error {
        match e {
            RemoteError::Unreachable(m) | RemoteError::Busy(m) => Error::Unreachable(m),
            RemoteError::Auth(m) => Error::Unreachable(format!("authentication failed: {m}")),
            RemoteError::TokenRequired(m) => Error::Unreachable(format!("token required: {m}")),
            RemoteError::Incompatible(m) => {
                Error::Engine(format!("the engine's answer is not one a supported {} server gives: {m}", self.kind.as_str()))
            }
            RemoteError::RunNotSuspended(m) => Error::not_found(format!("suspended run at the engine ({m})")),
            RemoteError::CallNotSuspended(m) => {
                tracing::info!(engine = %self.id, "engine: {m}");
                Error::AlreadyDecided { state: ItemState::Gone }
            }
            RemoteError::Refused(m) => Error::Engine(m),
        }
    }

    /// Records how a request went; health is written to the database only when it changes.
    pub async fn observe<T>(&self, result: Result<T, RemoteError>) -> Result<T, RemoteError> {
        let now = crate::store::now();
        let changed = {
            let mut h = self.health.lock().expect("health lock");
            let before = h.state;
            match &result {
                Ok(_)
                | Err(
                    RemoteError::RunNotSuspended(_) | RemoteError::CallNotSuspended(_) | RemoteError::Refused(_) | RemoteError::Busy(_),
                ) => {
                    h.state = Health::Reachable;
                    h.last_ok_at = Some(now);
                }
                Err(e) => {
                    h.state = match e {
                        RemoteError::Auth(_) => Health::AuthFailed,
                        RemoteError::TokenRequired(_) => Health::TokenRequired,
                        RemoteError::Incompatible(_) => Health::Incompatible,
                        _ => Health::Unreachable,
                    };
                    let message = e.to_string();
                    if h.last_error.as_deref() != Some(&message) {
                        h.last_error = Some(message);
                        h.last_error_at = Some(now);
                    } else if before != h.state {
                        h.last_error_at = Some(now);
                    }
                }
            }
            (before != h.state).then(|| h.clone())
        };
        if let Some(h) = changed {
            match &h.state {
                Health::Reachable => tracing::info!(engine = %self.id, "engine reachable"),
                s => tracing::warn!(engine = %self.id, state = ?s, "engine: {}", h.last_error.as_deref().unwrap_or("")),
            }
            if let Err(e) = store::store_health(&self.db, self.id.as_str(), &h).await {
                tracing::warn!(engine = %self.id, "could not store the engine's health: {e}");
            }
        }
        result
    }
}

/// Whether a listed call is the stored one, unchanged. Mastra lists no arguments for a suspended
/// call, while its stream does: a call stored with the arguments from a stream is unchanged if the
/// tool and the suspend payload are. A suspended call's payload is compared too (the fingerprint
/// covers only the tool and the arguments).
pub fn unchanged(stored: &PausedCall, listed: &PausedCall) -> bool {
    let payload_same = listed.kind != CallKind::Suspend || stored.suspend_payload == listed.suspend_payload;
    if stored.fingerprint == listed.fingerprint {
        return payload_same;
    }
    listed.kind == CallKind::Suspend && listed.args.is_null() && stored.tool_name == listed.tool_name && payload_same
}
