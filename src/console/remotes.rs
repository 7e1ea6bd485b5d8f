//! The remote engines of the `engines` table, connected to the console: added, changed and removed
//! from the CLI, the API or the UI (through the table, so another process's changes are picked up),
//! each run by the supervisor ([`super::supervisor`]) while the console serves.

use super::supervisor::RemoteEngine;
use super::{Console, Events};
use crate::domain::CallSource;
use crate::domain::{EngineId, Error};
use crate::engine::local::model::ApiKey;
use crate::engine::remote::base::SyncReport;
use crate::engine::remote::http::parse_base_url;
use crate::secrets;
use crate::store::engines::{self as store, EngineRow};
use crate::store::lease::LeaseSlot;
use crate::store::{Db, Topology};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{watch, Notify};

/// How often the table is re-read for changes made by another process.
const RELOAD: Duration = Duration::from_secs(2);

/// Settings of a remote engine, as given by the operator.
#[derive(Clone, Debug)]
pub struct EngineSettings {
    pub name: String,
    pub base_url: String,
    /// `Some(token)`: store it in the keyring; `None` on add: no token; `None` on edit: keep it.
    pub token: Option<ApiKey>,
    /// On edit: forget the stored token.
    pub clear_token: bool,
    /// On edit with a new URL and no `token`: keep sending the stored token, to the new host — the
    /// token this console holds (it is bound to the new URL here); other consoles of a team hold
    /// theirs for the old URL and send nothing until given it again. Without it, a URL change of an
    /// engine with a token needs `token` or `clear_token` (`token_required`).
    pub keep_token: bool,
    /// Keep `token` in this process's memory only, not in the keyring (when the keyring is missing
    /// or locked); it is asked for again after a restart.
    pub session_only: bool,
    pub poll_ms: Option<u32>,
}

/// Default poll interval.
pub const DEFAULT_POLL_MS: u32 = 1000;

struct Running {
    row: EngineRow,
    engine: RemoteEngine,
    stop: Option<watch::Sender<bool>>,
}

/// Cheap to clone.
#[derive(Clone)]
pub struct Remotes {
    db: Db,
    events: Events,
    console: Console,
    running: Arc<Mutex<HashMap<String, Running>>>,
    /// Tokens given for this session only, by engine name, each with the URL it was given for;
    /// handed to the engine on every (re)connect, which uses it for that URL only.
    session_tokens: Arc<Mutex<HashMap<String, (ApiKey, String)>>>,
    /// Each engine's lease (team mode), kept across its connections (see [`LeaseSlot`]); removed,
    /// and so let go, when the engine is removed or the console stops.
    leases: Arc<Mutex<HashMap<String, LeaseSlot>>>,
    /// Set once `start` ran: engines then get a sync loop.
    syncing: Arc<Mutex<Option<watch::Receiver<bool>>>>,
    wake: Arc<Notify>,
}

impl Remotes {
    pub fn new(db: Db, events: Events, console: Console) -> Self {
        Self {
            db,
            events,
            console,
            running: Arc::default(),
            session_tokens: Arc::default(),
            leases: Arc::default(),
            syncing: Arc::default(),
            wake: Arc::default(),
        }
    }

    /// Connects the engines of the table to the console (without syncing: see [`Remotes::start`]).
    pub async fn load(&self) -> Result<(), Error> {
        self.reload().await
    }

    /// [`Console::decide_and_deliver`], connecting first the remote engine of a call that another
    /// console of the team added moments ago and this one has not connected yet (the engines table
    /// is re-read every 2 s): that refusal stored nothing, so the decision is asked again once.
    pub async fn decide_and_deliver(
        &self,
        decider: &super::Decider,
        id: &crate::domain::ItemId,
        ask: super::Ask,
    ) -> Result<(super::view::QueueItem, bool), Error> {
        match self.console.decide_and_deliver(decider, id, ask.clone()).await {
            Err(Error::Engine(_)) if self.db.topology() == Topology::Team => {
                self.load().await?;
                self.console.decide_and_deliver(decider, id, ask).await
            }
            other => other,
        }
    }

    /// Starts syncing every engine, now and as engines are added, until `stop` flips.
    pub fn start(&self, stop: watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        *self.syncing.lock().expect("remotes lock") = Some(stop.clone());
        let this = self.clone();
        let mut stop = stop;
        tokio::spawn(async move {
            loop {
                if let Err(e) = this.reload().await {
                    tracing::warn!("reading the engines table failed: {e}");
                }
                tokio::select! {
                    _ = tokio::time::sleep(RELOAD) => {}
                    _ = this.wake.notified() => {}
                    _ = stop.changed() => break,
                }
                if *stop.borrow() {
                    break;
                }
            }
            let all: Vec<String> = this.running.lock().expect("remotes lock").keys().cloned().collect();
            for name in all {
                this.disconnect(&name, false);
            }
        })
    }

    /// Brings the connected engines in line with the table.
    async fn reload(&self) -> Result<(), Error> {
        let rows = store::list_all(&self.db).await?;
        let names: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
        let stale: Vec<String> = self.running.lock().expect("remotes lock").keys().filter(|n| !names.contains(n)).cloned().collect();
        for name in stale {
            self.disconnect(&name, false);
        }
        for row in rows {
            // Connected at open (no sync loop yet) and now serving: connected again, with its loop.
            let syncing = self.syncing.lock().expect("remotes lock").is_some();
            let same = self
                .running
                .lock()
                .expect("remotes lock")
                .get(&row.name)
                .is_some_and(|r| settings_equal(&r.row, &row) && (r.stop.is_some() || !syncing));
            if !same {
                // Its settings changed: connected anew, keeping its lease.
                self.disconnect(&row.name, true);
                self.connect(row)?;
            }
        }
        Ok(())
    }

    fn connect(&self, row: EngineRow) -> Result<(), Error> {
        let engine = RemoteEngine::new(self.db.clone(), self.events.clone(), &row)?;
        if row.token_ref.as_deref() == Some(store::SESSION_TOKEN) {
            if let Some((token, given_for)) = self.session_tokens.lock().expect("remotes lock").get(&row.name) {
                engine.set_session_token_now(token.clone(), given_for);
            }
        }
        self.console.register(engine.as_engine());
        let stop = self.syncing.lock().expect("remotes lock").clone().map(|outer| {
            let (tx, rx) = watch::channel(false);
            let mut outer = outer;
            let inner = tx.clone();
            tokio::spawn(async move {
                // The engine's loop stops with the server, or when the engine is disconnected.
                tokio::select! {
                    _ = outer.changed() => { let _ = inner.send(true); }
                    _ = inner.closed() => {}
                }
            });
            let lease = self.leases.lock().expect("remotes lock").entry(row.name.clone()).or_default().clone();
            engine.spawn(rx, lease);
            tx
        });
        tracing::debug!(engine = %row.name, kind = row.kind.as_str(), url = %row.base_url, "remote engine connected");
        self.running.lock().expect("remotes lock").insert(row.name.clone(), Running { row, engine, stop });
        Ok(())
    }

    /// Stops the engine's sync loop; its lease is let go (once that loop ends) unless `keep_lease`.
    fn disconnect(&self, name: &str, keep_lease: bool) {
        if !keep_lease {
            self.leases.lock().expect("remotes lock").remove(name);
        }
        if let Some(r) = self.running.lock().expect("remotes lock").remove(name) {
            if let Some(stop) = r.stop {
                let _ = stop.send(true);
            }
            self.console.unregister(&EngineId::new(name));
        }
    }

    /// The connected engine `name`.
    pub fn get(&self, name: &str) -> Option<RemoteEngine> {
        self.running.lock().expect("remotes lock").get(name).map(|r| r.engine.clone())
    }

    /// Every configured engine with its live health.
    pub async fn list(&self) -> Result<Vec<(EngineRow, Option<RemoteEngine>)>, Error> {
        let rows = store::list_all(&self.db).await?;
        Ok(rows
            .into_iter()
            .map(|row| {
                let engine = self.get(&row.name);
                (row, engine)
            })
            .collect())
    }

    /// Adds an engine: the token goes to the keyring first (nothing is stored if that fails).
    /// `kind` says which API it speaks (it never changes after). Audited `engine.added` as done by
    /// `by` (an actor's audit name), in the transaction that stores it.
    pub async fn add(&self, kind: CallSource, s: EngineSettings, by: &str) -> Result<EngineRow, Error> {
        check_name(&s.name)?;
        crate::engine::kinds::remote(kind)?;
        parse_base_url(&s.base_url).map_err(Error::InvalidRequest)?;
        let poll_ms = check_poll(s.poll_ms.unwrap_or(DEFAULT_POLL_MS))?;
        if store::find(&self.db, &s.name).await?.is_some() {
            return Err(Error::InvalidRequest(format!("an engine named {:?} already exists", s.name)));
        }
        let token_ref = match &s.token {
            Some(token) if s.session_only => {
                self.session_tokens.lock().expect("remotes lock").insert(s.name.clone(), (token.clone(), s.base_url.trim().to_owned()));
                Some(store::SESSION_TOKEN.to_owned())
            }
            Some(token) => {
                let name = store::token_ref(&s.name, s.base_url.trim());
                secrets::set(&name, token).await?;
                Some(name)
            }
            None => None,
        };
        let token = if s.token.is_some() { "set" } else { "none" };
        let row = store::add_audited(&self.db, &s.name, kind, s.base_url.trim(), token_ref.as_deref(), poll_ms, by, token).await?;
        self.reload().await?;
        self.wake.notify_one();
        Ok(row)
    }

    /// Changes an engine's URL, token or poll interval. Audited `engine.changed` as done by `by`
    /// (an actor's audit name), in the transaction that stores it: before, after, and what became of
    /// the token (never the token).
    pub async fn edit(&self, s: EngineSettings, by: &str) -> Result<EngineRow, Error> {
        let current = store::find(&self.db, &s.name).await?.ok_or_else(|| Error::not_found(format!("engine {:?}", s.name)))?;
        let base_url = if s.base_url.trim().is_empty() { current.base_url.clone() } else { s.base_url.trim().to_owned() };
        let new_url = parse_base_url(&base_url).map_err(Error::InvalidRequest)?;
        let moved = parse_base_url(&current.base_url).map_or(true, |old| old != new_url);
        if moved && current.token_ref.is_some() && s.token.is_none() && !s.clear_token && !s.keep_token {
            return Err(Error::TokenRequired { engine: s.name.clone() });
        }
        let poll_ms = check_poll(s.poll_ms.unwrap_or(current.poll_ms))?;
        let token_ref = if let Some(token) = &s.token {
            if s.session_only {
                self.session_tokens.lock().expect("remotes lock").insert(s.name.clone(), (token.clone(), base_url.clone()));
                Some(store::SESSION_TOKEN.to_owned())
            } else {
                let name = store::token_ref(&s.name, &base_url);
                secrets::set(&name, token).await?;
                self.session_tokens.lock().expect("remotes lock").remove(&s.name);
                if moved {
                    forget(&old_entries(&current, &name)).await?;
                }
                Some(name)
            }
        } else if s.clear_token {
            self.session_tokens.lock().expect("remotes lock").remove(&s.name);
            forget(&old_entries(&current, "")).await?;
            None
        } else if moved && current.token_ref.is_some() {
            // keep_token: this console's own token follows the URL, on purpose; no other console's does.
            Some(self.rebind(&current, &base_url).await?)
        } else {
            current.token_ref.clone()
        };
        let token_change = |before: &EngineRow| match (&s.token, s.clear_token) {
            (Some(_), _) if before.token_ref.is_some() => "replaced",
            (Some(_), _) => "set",
            (None, true) if before.token_ref.is_some() => "cleared",
            (None, _) if before.token_ref.is_some() && moved => "kept for the new URL",
            (None, _) if before.token_ref.is_some() => "kept",
            (None, _) => "none",
        };
        let row = store::update_audited(&self.db, &s.name, &base_url, token_ref.as_deref(), poll_ms, by, token_change)
            .await?
            .ok_or_else(|| Error::not_found(format!("engine {:?}", s.name)))?;
        // A new token under the same keyring name: reconnect so the cached one is dropped.
        if s.token.is_some() || s.clear_token {
            self.disconnect(&s.name, true);
        }
        self.reload().await?;
        Ok(row)
    }

    /// Removes an engine and its keyring entry. Its queue entries stay as history (undecidable).
    /// Audited `engine.removed` as done by `by` (an actor's audit name), with the engine as it was.
    pub async fn remove(&self, name: &str, by: &str) -> Result<(), Error> {
        let row = store::find(&self.db, name).await?.ok_or_else(|| Error::not_found(format!("engine {name:?}")))?;
        self.session_tokens.lock().expect("remotes lock").remove(name);
        if let Err(e) = forget(&old_entries(&row, "")).await {
            tracing::warn!(engine = name, "could not delete the engine's token from the keyring: {e}");
        }
        store::remove_audited(&self.db, name, by).await?;
        self.disconnect(name, false);
        Ok(())
    }

    /// A complete sync of one engine now.
    pub async fn sync_now(&self, name: &str) -> Result<SyncReport, Error> {
        let engine = self.get(name).ok_or_else(|| Error::not_found(format!("engine {name:?}")))?;
        engine.sync(true).await
    }
}

impl Remotes {
    /// `keep_token` on a new URL: the token this console holds for the engine's current URL is
    /// bound to `new_url` instead (a session token's URL changes; a keyring token moves to the entry
    /// of the new URL). `token_required` if this console holds none for the current URL: it cannot
    /// keep what it never had (another console's token stays that console's).
    async fn rebind(&self, current: &EngineRow, new_url: &str) -> Result<String, Error> {
        let name = &current.name;
        let required = || Error::TokenRequired { engine: name.clone() };
        if current.token_ref.as_deref() == Some(store::SESSION_TOKEN) {
            let mut tokens = self.session_tokens.lock().expect("remotes lock");
            let Some((_, given_for)) = tokens.get_mut(name).filter(|(_, u)| store::url_key(u) == store::url_key(&current.base_url)) else {
                return Err(required());
            };
            *given_for = new_url.to_owned();
            return Ok(store::SESSION_TOKEN.to_owned());
        }
        let mut held = None;
        let mut candidates = vec![store::token_ref(name, &current.base_url)];
        if self.db.topology() == Topology::Solo {
            candidates.push(store::legacy_token_ref(name));
        }
        for entry in &candidates {
            match secrets::get(entry).await {
                Ok(token) => {
                    held = Some(token);
                    break;
                }
                Err(secrets::SecretError::NotFound { .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let token = held.ok_or_else(required)?;
        let bound = store::token_ref(name, new_url);
        secrets::set(&bound, &token).await?;
        forget(&old_entries(current, &bound)).await?;
        Ok(bound)
    }
}

/// The keyring entries this console may hold for `row`'s token, but `keep`: the one its row names,
/// the one of its URL, the one from before tokens were bound to URLs.
fn old_entries(row: &EngineRow, keep: &str) -> Vec<String> {
    if row.token_ref.as_deref().is_none_or(|r| r == store::SESSION_TOKEN) {
        return vec![];
    }
    let mut names = vec![store::token_ref(&row.name, &row.base_url), store::legacy_token_ref(&row.name)];
    if let Some(named) = row.token_ref.as_ref().filter(|n| n.as_str() != store::SESSION_TOKEN) {
        names.push(named.clone());
    }
    names.sort();
    names.dedup();
    names.retain(|n| n != keep);
    names
}

/// Deletes keyring entries; ones that are not there are fine.
async fn forget(names: &[String]) -> Result<(), Error> {
    for name in names {
        match secrets::delete(name).await {
            Ok(()) | Err(secrets::SecretError::NotFound { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

fn settings_equal(a: &EngineRow, b: &EngineRow) -> bool {
    a.base_url == b.base_url && a.token_ref == b.token_ref && a.poll_ms == b.poll_ms && a.updated_at == b.updated_at
}

fn check_poll(ms: u32) -> Result<u32, Error> {
    if !(100..=3_600_000).contains(&ms) {
        return Err(Error::InvalidRequest(format!("poll interval {ms} ms: use 100 ms to 1 hour")));
    }
    Ok(ms)
}

/// Checks an engine name: 1–64 of `A–Z a–z 0–9 . _ -`, not `local` and not a source of submitted
/// calls (`http`, `claude-code`, `codex`, `gemini`, `mcp`, `acp`).
fn check_name(name: &str) -> Result<(), Error> {
    if name.is_empty() || name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')) {
        return Err(Error::InvalidRequest(format!("engine name {name:?}: use 1–64 letters, digits, '.', '_' or '-'")));
    }
    if name == EngineId::local().as_str() {
        return Err(Error::InvalidRequest("\"local\" is the local engine's name; pick another".into()));
    }
    if crate::engine::kinds::parse_submitted(name).is_some() {
        return Err(Error::InvalidRequest(format!("{name:?} is where calls that agents submit themselves are queued; pick another name")));
    }
    Ok(())
}
