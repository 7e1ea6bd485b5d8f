//! The running core: database, events, engines and the console, wired once and shared by `serve`,
//! the CLI, the tests and (later) the desktop shell.

pub mod account;
pub mod agui;
pub mod audit;
pub mod calls;
pub mod channel_secrets;
pub mod engines;
pub mod expiry;
pub mod grants;
pub mod lock;
pub mod mastra;
pub mod metrics;
pub mod notifications;
pub mod operation;
pub mod ops;
pub mod policy;
pub mod presence;
pub mod query;
pub mod queue;
pub mod reach;
pub mod receipts;
pub mod remote;
pub mod serving;
pub mod sources;
pub mod stats;
/// For tests and benchmarks only (see the module): not part of the console's API.
#[doc(hidden)]
pub mod testing;
pub mod tokens;
pub mod widening;

use crate::console::remotes::Remotes;
use crate::console::{Ask, Decider, How, Target};
use crate::console::{Console, Events};
use crate::domain::{grade, Actor, Cx, EngineId, Error, Principal, RunId, Verdict};
use crate::engine::local::{agent::Agent, demo, LocalEngine, RunRequest};
use crate::engine::{ChunkSink, Engine};
use crate::notify::{Notifications, Notifier};
use crate::store::{Db, Location, Topology};
pub use lock::ServeLock;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Cheap-to-clone handles on everything. Its fields are the app's own: the shells, the tests and the
/// benchmarks use its methods (tests and benchmarks also [`App::testing`], for what they simulate).
#[derive(Clone)]
pub struct App(Arc<Parts>);

/// What an [`App`] holds, shared by its clones (one per request: cloning it is one count).
#[doc(hidden)]
pub struct Parts {
    db: Db,
    events: Events,
    local: LocalEngine,
    console: Console,
    /// The remote engines (Mastra servers) of the `engines` table.
    remotes: Remotes,
    /// Desktop notifications (running once started with a notifier).
    notifications: Notifications,
    /// Who the local admin is, as written in the audit log: the OS account this process runs as,
    /// by its user id ([`account::os_account`]; never `$USER`).
    operator: String,
    /// The remote listener's core (`serve --listen`), once turned on.
    remote: std::sync::OnceLock<Arc<remote::Remote>>,
    /// Where the channels' links point (see [`App::set_link_base`]).
    links: crate::notify::reach::Links,
    /// The channels' secrets: files of the data directory, or the keyring (the desktop app).
    channel_secrets: crate::secrets::ChannelSecrets,
}

impl std::ops::Deref for App {
    type Target = Parts;
    fn deref(&self) -> &Parts {
        &self.0
    }
}

/// The id of this console's local engine: `local` on its own SQLite file; on a database a team
/// shares, `local@<instance>` — the instance name kept in the data directory's `instance` file
/// (made once: user, host and 4 random hex digits; edit it to rename before the first run), so each
/// console resumes and delivers only its own runs, also after a restart.
pub fn local_engine_id(db: &Db) -> Result<EngineId, Error> {
    if db.topology() == Topology::Solo {
        return Ok(EngineId::local());
    }
    let file = db.data_dir().join("instance");
    let name = match std::fs::read_to_string(&file) {
        Ok(text) => text.trim().to_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let clean =
                |s: &str| s.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')).take(24).collect::<String>();
            let user = clean(&account::os_account());
            let host = clean(std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default().trim());
            let name = format!(
                "{}-{}-{:04x}",
                if user.is_empty() { "console" } else { &user },
                if host.is_empty() { "host" } else { &host },
                rand::random::<u16>()
            );
            crate::store::private::owner_only_file(&file)?;
            std::fs::write(&file, format!("{name}\n")).map_err(|e| Error::Storage(format!("cannot write {}: {e}", file.display())))?;
            name
        }
        Err(e) => return Err(Error::Storage(format!("cannot read {}: {e}", file.display()))),
    };
    if name.is_empty() || name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')) {
        return Err(Error::InvalidRequest(format!(
            "{}: the instance name must be 1–64 letters, digits, '.', '_' or '-' (found {name:?})",
            file.display()
        )));
    }
    Ok(crate::engine::kinds::local_engine(Some(&name)))
}

impl App {
    /// Opens the data directory with the given local agents (the demo agent when `agents` is empty).
    /// Does not recover interrupted work: call [`App::recover`] once, in the process that serves.
    pub async fn open(data_dir: &Path, agents: Vec<Agent>) -> Result<Self, Error> {
        Self::open_at(data_dir, Location::new(data_dir, None)?, agents).await
    }

    /// [`App::open`] on the database `location` names (team mode: a PostgreSQL database several
    /// consoles share); the data directory keeps this console's own files.
    pub async fn open_at(data_dir: &Path, location: Location, agents: Vec<Agent>) -> Result<Self, Error> {
        let db = Db::open_at(data_dir, location).await?;
        let events = Events::default();
        events.watch(db.clone()).await?;
        let agents = if agents.is_empty() { vec![demo::agent()] } else { agents };
        let instance = local_engine_id(&db)?;
        let receipts = crate::console::receipts::Receipts::new(db.clone(), instance.to_string());
        let local = LocalEngine::new(instance, db.clone(), agents);
        let mut engines = vec![Arc::new(local.clone()) as Arc<dyn Engine>];
        for source in crate::engine::kinds::submitted() {
            engines.push(Arc::new(crate::engine::submitted::Submitted::new(source, db.clone())));
        }
        let console = Console::new(db.clone(), events.clone(), engines, receipts);
        let remotes = Remotes::new(db.clone(), events.clone(), console.clone());
        remotes.load().await?;
        let operator = account::os_account();
        let channel_secrets = crate::secrets::ChannelSecrets::new(db.data_dir());
        Ok(Self(Arc::new(Parts {
            db,
            events,
            local,
            console,
            remotes,
            notifications: Notifications::default(),
            operator,
            remote: Default::default(),
            links: Default::default(),
            channel_secrets,
        })))
    }

    /// Starts the background work of a serving console: each remote engine's sync loop, the
    /// outbox worker, the expiry and grants workers, and (with a notifier) desktop notifications of new calls. They stop when the
    /// returned guard is dropped.
    pub fn start(&self, notifier: Option<Arc<dyn Notifier>>) -> Background {
        let (stop, rx) = tokio::sync::watch::channel(false);
        self.remotes.start(rx.clone());
        self.console.spawn_outbox(rx.clone());
        self.console.spawn_expiry(rx.clone());
        self.console.spawn_grants(rx.clone());
        crate::notify::reach::start(self.console.clone(), self.links.clone(), self.channel_secrets.clone(), rx.clone());
        if let Some(notifier) = notifier {
            self.notifications.start(self.console.clone(), notifier, self.operator.clone(), rx);
        }
        Background { stop }
    }

    /// At a stop, and before a CLI command that decided exits: waits, at most `within`, for the
    /// decisions being delivered after their deciders were answered (a local tool cut short by the
    /// stop would be `interrupted` at the next start), then for the local runs going on after them
    /// (one cut short goes on at the next start); whether all finished.
    pub async fn finish_deliveries(&self, within: std::time::Duration) -> bool {
        let started = std::time::Instant::now();
        let delivered = self.console.deliveries_done(within).await;
        // Then the local runs those deliveries set going, in what is left of `within`.
        delivered && self.local.settled(within.saturating_sub(started.elapsed())).await
    }

    /// Sends a user's messages to a local agent: with `auto_resume` (S10), a `suspend()` pause of the
    /// same thread and resource is resumed with data the model takes from the message — through the
    /// decision kernel, audited like any decision — else a new run starts. Returns the run's id.
    ///
    /// An agent credential (`by`) auto-resumes only runs it started itself; operators any of the
    /// thread's ([`Cx::scope`]). Either way only `suspend()` data, never an approval (S10): the
    /// kernel refuses anything else from this decider ([`Decider::auto_resume`]).
    pub async fn send(
        &self,
        request: RunRequest,
        auto_resume: bool,
        sink: Option<ChunkSink>,
        by: &Cx<grade::Agent>,
    ) -> Result<RunId, Error> {
        if auto_resume {
            let scope = by.scope();
            let only_of = match &scope {
                crate::domain::authority::Scope::All => None,
                crate::domain::authority::Scope::Own(key) => Some(key.as_str()),
            };
            if let Some((entry, data)) = self.local.auto_resume_target(&request, only_of).await? {
                let run_id = entry.queued.call.run_id.clone();
                let ask = Ask::Verdict { verdict: Verdict::Resume { data }, fingerprint: entry.queued.call.fingerprint.clone() };
                let decision =
                    self.console.decide_whole(&Decider::auto_resume(by), Target::Entry(Box::new(entry)), ask, How::Claimed).await?;
                self.console.deliver_claimed(&decision, sink).await?;
                return Ok(run_id);
            }
        }
        self.local.start(request, sink).await
    }

    /// Who the local admin is (the OS user running the console), as written in the audit log.
    pub fn operator(&self) -> &str {
        &self.operator
    }

    /// Where the data is: the SQLite file of the data directory, or the PostgreSQL database (its URL
    /// without a password).
    pub fn data_location(&self) -> String {
        self.db.location().describe()
    }

    /// The local admin (the OS user running the console) acting through `channel` (`cli`, `desktop`,
    /// `notification`, …): the window, the CLI and notifications act as the data directory's owner.
    pub fn local_actor(&self, channel: &'static str) -> Actor {
        Actor::new(Principal::local(&self.operator), channel)
    }

    /// The local admin's context of grade `G` (inferred where it is used) through `channel`: what the
    /// CLI and the window hand to an operation ([`Cx::local`]: every grade but a device's).
    pub fn local_admin<G: crate::domain::authority::LocalHeld>(&self, channel: &'static str) -> Cx<G> {
        Cx::local(&self.operator, channel)
    }

    /// C5 at start-up: interrupted deliveries are marked (never re-run), stored decisions delivered,
    /// runs left half-advanced continue from their snapshots. Only the process that serves may do
    /// this: it first takes the data directory's [`ServeLock`] (refused with `already_serving` while
    /// another process serves), and must keep it for as long as it serves.
    pub async fn recover(&self) -> Result<ServeLock, Error> {
        let data_dir = self.db.data_dir();
        let lock = ServeLock::acquire(data_dir)?;
        // The receipts' signing key, made on the first start (or read once from where it is kept).
        let signer = self.console.receipts().signer().await?;
        tracing::debug!(kid = signer.kid(), "receipts are signed with this key");
        // Runs first: a decision cannot be delivered to a run still marked `running`.
        let runs = self.local.recover().await?;
        let (interrupted, delivered) = self.console.recover().await?;
        if interrupted + delivered + runs > 0 {
            tracing::info!(interrupted, delivered, runs, "recovered work left by the previous process");
        }
        Ok(lock)
    }
}

/// Keeps the background work of [`App::start`] running; stops it when dropped.
pub struct Background {
    stop: tokio::sync::watch::Sender<bool>,
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

/// `$XDG_DATA_HOME/approval-console`, else `~/.local/share/approval-console`.
pub fn default_data_dir() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("approval-console")
}
