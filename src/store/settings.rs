//! Operator settings: one JSON document per key. Every change is audited (`settings.changed`, with
//! the document before and after) in the transaction that stores it.

use super::sql::{scalar, sql, Sql};
use super::{audit, now, parse_json, ts, Db};
use crate::domain::audit::SettingsChanged;
use crate::domain::Error;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// A settings document: stored as JSON under its key, its `Default` until first saved, checked
/// before it is saved.
pub trait Document: Serialize + DeserializeOwned + Default {
    /// Its key in the `settings` table.
    const KEY: &'static str;
    /// What it is called in errors ("notification settings").
    const NAME: &'static str;
    /// Refuses values that must not be stored (`invalid_request`).
    fn check(&self) -> Result<(), Error>;
}

impl Document for crate::domain::safety::SafetySettings {
    const KEY: &'static str = "safety";
    const NAME: &'static str = "safety settings";
    fn check(&self) -> Result<(), Error> {
        if self.high_risk_tools.iter().any(|t| t.trim().is_empty()) {
            return Err(Error::InvalidRequest("a high-risk tool needs a name".into()));
        }
        let range = crate::domain::receipt::TTL_RANGE;
        if let Some(ttl) = self.receipt_ttl_secs.filter(|t| !range.contains(t)) {
            return Err(Error::InvalidRequest(format!(
                "a receipt's lifetime of {ttl} s is out of range: {} s to {} s",
                range.start(),
                range.end()
            )));
        }
        Ok(())
    }
}

impl Document for crate::domain::safety::QuorumSettings {
    const KEY: &'static str = "quorum";
    const NAME: &'static str = "quorum settings";
    fn check(&self) -> Result<(), Error> {
        crate::domain::safety::QuorumSettings::check(self)
    }
}

impl Document for crate::domain::risk::custom::RiskRules {
    const KEY: &'static str = "risk";
    const NAME: &'static str = "risk rules";
    fn check(&self) -> Result<(), Error> {
        crate::domain::risk::custom::RiskRules::check(self).map_err(Error::InvalidRequest)
    }
}

impl Document for crate::domain::reach::ReachSettings {
    const KEY: &'static str = "reach";
    const NAME: &'static str = "channels and escalation";
    fn check(&self) -> Result<(), Error> {
        crate::domain::reach::ReachSettings::check(self).map_err(Error::InvalidRequest)
    }
}

impl Document for crate::domain::remote::RemoteSettings {
    const KEY: &'static str = "remote";
    const NAME: &'static str = "remote listener settings";
    fn check(&self) -> Result<(), Error> {
        crate::domain::remote::RemoteSettings::check(self)
    }
}

/// The quorums of the two-person rule, or none (every tool needs one approval).
pub async fn quorum(db: &Db) -> Result<crate::domain::safety::QuorumSettings, Error> {
    load(db).await
}

/// The safety settings (the high-risk tools), or none marked high-risk.
pub async fn safety(db: &Db) -> Result<crate::domain::safety::SafetySettings, Error> {
    load(db).await
}

/// Every stored document as read by one statement: where a request needs several, it reads them at
/// once instead of one round trip each. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Snapshot(Arc<HashMap<String, Value>>);

impl Snapshot {
    /// The document as stored when the snapshot was read, or its default.
    pub fn get<T: Document>(&self) -> Result<T, Error> {
        decode(self.0.get(T::KEY).cloned())
    }
}

/// A snapshot of `docs` (key → document JSON), as if stored (tests).
#[cfg(test)]
pub fn snapshot_of(docs: serde_json::Map<String, Value>) -> Snapshot {
    Snapshot(Arc::new(docs.into_iter().collect()))
}

/// Every stored document: from memory where this process keeps them ([`Cache`]), else in one
/// statement.
pub async fn snapshot(db: &Db) -> Result<Snapshot, Error> {
    let cache = db.settings_cache();
    let token = cache.token();
    let generation = match cache.kept(token.as_deref()) {
        Ok(kept) => return Ok(kept),
        Err(generation) => generation,
    };
    let rows: Vec<(String, String)> = sqlx::query_as("SELECT key, value FROM settings").fetch_all(db.pool()).await?;
    let read = rows.into_iter().map(|(key, text)| Ok((key, parse_json(&text)?))).collect::<Result<_, Error>>()?;
    let read = Snapshot(Arc::new(read));
    if let Some(token) = token {
        cache.keep(generation, token, &read);
    }
    Ok(read)
}

/// The stored document, or its default when none was saved.
pub async fn load<T: Document>(db: &Db) -> Result<T, Error> {
    snapshot(db).await?.get()
}

/// The settings as last read, kept in memory by a console on SQLite while it hears of every change:
/// - a process that commits a change (this one, or the CLI on the same file) writes a new random
///   token to the database's signal file (`approval-console.db-settings`) once committed, and every
///   read compares it with the token the kept settings were read under — a read of a few bytes
///   instead of a statement, so a change is in force here as soon as the command that made it
///   returns;
/// - as a safety net (a process that died between its commit and its token), the change feed's
///   reader reports the database's settings epoch (a number every change of the table moves, by
///   trigger) with each read of the feed — after every commit here, at least every 250 ms.
///
/// A process that does not read the feed (a one-shot command) keeps nothing, nor does a console on
/// PostgreSQL (consoles of a team on other machines share no file): each read is a statement.
#[derive(Debug, Default)]
pub struct Cache {
    kept: Mutex<Kept>,
    /// The signal file (SQLite); none on PostgreSQL.
    signal: Option<PathBuf>,
}

#[derive(Debug, Default)]
struct Kept {
    /// The feed's reader runs: changes of other processes will be heard.
    watched: bool,
    /// Moves at every forgetting: a read that began before it is not kept.
    generation: u64,
    epoch: Option<i64>,
    /// The settings and the signal token they were read under.
    snapshot: Option<(Vec<u8>, Snapshot)>,
}

impl Cache {
    /// A cache signalled through `signal`, beside the SQLite file; none for PostgreSQL.
    pub fn new(signal: Option<PathBuf>) -> Self {
        Self { kept: Mutex::default(), signal }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The signal file's token now (empty when there is none yet), where settings may be kept.
    fn token(&self) -> Option<Vec<u8>> {
        let signal = self.signal.as_ref()?;
        if !self.lock().watched {
            return None;
        }
        let mut file = match std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(signal) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(Vec::new()),
            Err(_) => return None,
        };
        let mut token = Vec::with_capacity(TOKEN_LEN);
        file.read_to_end(&mut token).ok().map(|_| token)
    }

    /// The kept settings if they were read under `token`; else the generation a read starting now
    /// belongs to.
    fn kept(&self, token: Option<&[u8]>) -> Result<Snapshot, u64> {
        let kept = self.lock();
        match (&kept.snapshot, token) {
            (Some((under, snapshot)), Some(token)) if under == token => Ok(snapshot.clone()),
            _ => Err(kept.generation),
        }
    }

    /// Keeps what a read of `generation` found under `token`, unless something was forgotten since
    /// it began.
    fn keep(&self, generation: u64, token: Vec<u8>, read: &Snapshot) {
        let mut kept = self.lock();
        if kept.watched && kept.generation == generation {
            kept.snapshot = Some((token, read.clone()));
        }
    }

    fn forget_in(kept: &mut Kept) {
        kept.generation += 1;
        kept.snapshot = None;
    }

    /// This process committed a change of the settings: forgets them here, and tells every other
    /// process on the file (a new token).
    fn changed(&self) {
        Self::forget_in(&mut self.lock());
        let Some(signal) = &self.signal else { return };
        let token = hex::encode(rand::random::<[u8; TOKEN_LEN / 2]>());
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(signal)
            .and_then(|mut file| file.write_all(token.as_bytes()));
        if let Err(e) = written {
            // Other consoles on this file see the change at their next read of the change feed.
            tracing::warn!(path = %signal.display(), "cannot signal a change of the settings: {e}");
        }
    }

    /// The change feed could not be read: nothing is kept until it is read again.
    pub(in crate::store) fn unheard(&self) {
        let mut kept = self.lock();
        kept.watched = false;
        kept.epoch = None;
        Self::forget_in(&mut kept);
    }

    /// The change feed's reader saw the settings epoch `n`: what was kept under another is forgotten.
    pub fn epoch(&self, n: i64) {
        let mut kept = self.lock();
        kept.watched = true;
        if kept.epoch != Some(n) {
            kept.epoch = Some(n);
            Self::forget_in(&mut kept);
        }
    }
}

/// Hex characters of a signal token.
const TOKEN_LEN: usize = 32;

/// Checks and stores the document, audited as changed by `by` (an actor's audit name).
pub async fn save<T: Document>(db: &Db, doc: &T, by: &str) -> Result<(), Error> {
    doc.check()?;
    let mut tx = db.begin_write().await?;
    change(&mut tx, doc, by).await?;
    committed(db, tx.commit().await)
}

/// A policy file put in force (`approval-console policy apply`): its four documents stored in one
/// transaction, each change audited (`settings.changed`), then `policy.applied` with the versions
/// before and after and what widens. `judge` reads the four documents stored (in the transaction)
/// and answers the widenings to note, or a refusal that writes nothing. Checked by the caller.
pub async fn save_policy<A: Document, B: Document, C: Document, D: Document>(
    db: &Db,
    docs: (&A, &B, &C, &D),
    before: &str,
    after: &str,
    by: &str,
    judge: impl FnOnce((A, B, C, D)) -> Result<Vec<String>, Error>,
) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    let stored = (read(&mut tx).await?, read(&mut tx).await?, read(&mut tx).await?, read(&mut tx).await?);
    let widens = judge(stored)?;
    change(&mut tx, docs.0, by).await?;
    change(&mut tx, docs.1, by).await?;
    change(&mut tx, docs.2, by).await?;
    change(&mut tx, docs.3, by).await?;
    let details = crate::domain::audit::PolicyApplied { before, after, widens: &widens };
    audit::append(&mut tx, audit::Record::of(by, None, &details)).await?;
    committed(db, tx.commit().await)
}

/// What decides whether a change may be stored, in its transaction: given the document stored and
/// the one to store, the widenings to note in its audit entry (`settings.changed`'s `widens`), or a
/// refusal that writes nothing.
pub trait Judge<T>: FnOnce(&T, &T) -> Result<Vec<String>, Error> {}
impl<T, F: FnOnce(&T, &T) -> Result<Vec<String>, Error>> Judge<T> for F {}

/// [`save`], judged in its transaction ([`Judge`]).
pub async fn save_judged<T: Document + Clone>(db: &Db, doc: &T, by: &str, judge: impl Judge<T>) -> Result<(), Error> {
    judged::<T, T>(db, by, None, |_| Ok(doc.clone()), judge).await.map(drop)
}

/// [`update`], judged in its transaction ([`Judge`]); the document made is [`Document::check`]ed.
pub async fn update_judged<T: Document>(
    db: &Db,
    by: &str,
    edit: impl FnOnce(&T) -> Result<T, Error>,
    judge: impl Judge<T>,
) -> Result<T, Error> {
    judged::<T, T>(db, by, None, edit, judge).await
}

/// `also` and a `T` made from the stored one (`edit`), both stored in one transaction or neither,
/// the `T` judged ([`Judge`]). Both are [`Document::check`]ed.
pub async fn save_with_judged<A: Document, T: Document>(
    db: &Db,
    also: &A,
    by: &str,
    edit: impl FnOnce(&T) -> Result<T, Error>,
    judge: impl Judge<T>,
) -> Result<T, Error> {
    judged(db, by, Some(also), edit, judge).await
}

async fn judged<T: Document, A: Document>(
    db: &Db,
    by: &str,
    also: Option<&A>,
    edit: impl FnOnce(&T) -> Result<T, Error>,
    judge: impl Judge<T>,
) -> Result<T, Error> {
    if let Some(a) = also {
        a.check()?;
    }
    let mut tx = db.begin_write().await?;
    let stored: T = read(&mut tx).await?;
    let doc = edit(&stored)?;
    doc.check()?;
    let widens = judge(&stored, &doc)?;
    if let Some(a) = also {
        change(&mut tx, a, by).await?;
    }
    change_noted(&mut tx, &doc, by, &widens).await?;
    committed(db, tx.commit().await)?;
    Ok(doc)
}

/// Reads the stored document and stores `edit(stored)` as [`change`] does, in one transaction (two at once both hold); answers it.
pub async fn update<T: Document>(db: &Db, by: &str, edit: impl FnOnce(T) -> Result<T, Error>) -> Result<T, Error> {
    let mut tx = db.begin_write().await?;
    let stored: T = read(&mut tx).await?;
    // `edit`'s refusal writes nothing; like `change`, this does not `check` the document.
    let doc = edit(stored)?;
    change(&mut tx, &doc, by).await?;
    committed(db, tx.commit().await)?;
    Ok(doc)
}

/// After a commit that may have changed the settings: forgets the kept ones, whatever the outcome
/// (a failed commit's fate is not always known).
fn committed(db: &Db, outcome: Result<(), Error>) -> Result<(), Error> {
    db.settings_cache().changed();
    outcome
}

/// Stores `doc` in the caller's transaction with its audit entry (`settings.changed`: `setting`,
/// `before` — the default when none was stored — and `after`), so the two commit together. A
/// document equal to the stored one is not a change: nothing is written. Answers whether it changed.
/// Does not [`Document::check`] it.
pub async fn change<T: Document>(conn: &mut super::writer::WriteTx, doc: &T, by: &str) -> Result<bool, Error> {
    change_noted(conn, doc, by, &[]).await
}

/// [`change`], its audit entry noting what of it `widens` (when any: `settings.changed`'s `widens`).
async fn change_noted<T: Document>(conn: &mut super::writer::WriteTx, doc: &T, by: &str, widens: &[String]) -> Result<bool, Error> {
    let after = serde_json::to_value(doc).expect("settings serialize");
    let before = match get(conn, T::KEY).await? {
        Some(stored) => stored,
        None => serde_json::to_value(T::default()).expect("settings serialize"),
    };
    if before == after {
        return Ok(false);
    }
    put(conn, T::KEY, &after).await?;
    let details = SettingsChanged { setting: T::KEY, before: &before, after: &after, widens };
    audit::append(conn, audit::Record::of(by, None, &details)).await?;
    Ok(true)
}

/// The stored document in the caller's transaction, or its default.
pub async fn read<T: Document>(conn: &mut impl Sql) -> Result<T, Error> {
    decode(get(conn, T::KEY).await?)
}

/// A stored document as its type, or its default when none was stored.
fn decode<T: Document>(stored: Option<Value>) -> Result<T, Error> {
    match stored {
        Some(v) => serde_json::from_value(v).map_err(|e| Error::Storage(format!("stored {} are unreadable: {e}", T::NAME))),
        None => Ok(T::default()),
    }
}

pub async fn get(conn: &mut impl Sql, key: &str) -> Result<Option<Value>, Error> {
    let text: Option<String> = scalar("SELECT value FROM settings WHERE key = $1").bind(key).fetch_optional(&mut *conn).await?;
    text.map(|t| parse_json(&t)).transpose()
}

/// Writes a document without auditing it: only through [`change`].
async fn put(conn: &mut impl Sql, key: &str, value: &Value) -> Result<(), Error> {
    sql("INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at")
        .bind(key)
        .bind(value.to_string())
        .bind(ts(now()))
        .execute(&mut *conn)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::safety::SafetySettings;
    use std::time::Duration;

    fn marks(tool: &str) -> SafetySettings {
        SafetySettings { high_risk_tools: vec![tool.into()], ..Default::default() }
    }

    async fn high_risk(db: &Db) -> Vec<String> {
        load::<SafetySettings>(db).await.unwrap().high_risk_tools
    }

    fn is_kept(db: &Db) -> bool {
        db.settings_cache().lock().snapshot.is_some()
    }

    async fn watched(dir: &std::path::Path) -> (Db, tokio::task::JoinHandle<()>) {
        let db = Db::open(dir).await.unwrap();
        let watcher = super::super::feed::Events::default().watch_every(db.clone(), Duration::from_secs(24 * 3600)).await.unwrap();
        (db, watcher)
    }

    /// Kept only where the feed is read; this process's own save is in force when it returns.
    #[tokio::test]
    async fn settings_are_kept_while_the_feed_is_read_and_a_save_is_seen_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).await.unwrap();
        assert!(high_risk(&db).await.is_empty());
        assert!(!is_kept(&db), "nothing kept without the feed's reader");
        drop(db);
        let (db, watcher) = watched(dir.path()).await;
        assert!(high_risk(&db).await.is_empty());
        assert!(is_kept(&db), "kept once the feed is read");
        save(&db, &marks("delete_record"), "admin").await.unwrap();
        assert_eq!(high_risk(&db).await, ["delete_record"], "the save is in force when it returns");
        watcher.abort();
    }

    /// Another process (the CLI on the same file) changes the settings: in force here as soon as
    /// its save returns, with no read of the feed in between.
    #[tokio::test]
    async fn a_change_by_another_process_is_in_force_when_its_save_returns() {
        let dir = tempfile::tempdir().unwrap();
        let (db, watcher) = watched(dir.path()).await;
        assert!(high_risk(&db).await.is_empty());
        assert!(is_kept(&db));
        let cli = Db::open(dir.path()).await.unwrap();
        save(&cli, &marks("send_money"), "cli").await.unwrap();
        assert_eq!(high_risk(&db).await, ["send_money"]);
        watcher.abort();
    }

    /// A change that left no token (its process died between its commit and the token; a hand
    /// edit) is seen at the next read of the feed: here woken by a commit of this process.
    #[tokio::test]
    async fn a_change_without_its_token_is_seen_at_the_next_read_of_the_feed() {
        let dir = tempfile::tempdir().unwrap();
        let (db, watcher) = watched(dir.path()).await;
        assert!(high_risk(&db).await.is_empty());
        let other = Db::open(dir.path()).await.unwrap();
        sqlx::query("INSERT INTO settings (key, value, updated_at) VALUES ('safety', '{\"highRiskTools\":[\"wire\"]}', 'now')")
            .execute(other.pool())
            .await
            .unwrap();
        let mut tx = db.begin_write().await.unwrap();
        crate::store::queue::insert_pending(&mut tx, &crate::domain::PausedCall::sample("lookup", serde_json::json!({}))).await.unwrap();
        tx.commit().await.unwrap();
        let seen = async {
            while high_risk(&db).await.is_empty() {
                tokio::task::yield_now().await;
            }
        };
        tokio::time::timeout(Duration::from_secs(60), seen).await.expect("the change is seen");
        assert_eq!(high_risk(&db).await, ["wire"]);
        watcher.abort();
    }
}
