//! This console's receipt key (issue 29, docs/receipts.md): made on first need (the first start of
//! `serve` or the desktop app, or the first decision), kept like the console's other secrets — the
//! OS keyring (the desktop app) or an owner-only file in the data directory (a server) — with its
//! public half in the database, where every console of a team publishes every key. Rotation makes a
//! new key and retires the old one; both are audited. The keys are also what the local engine checks
//! a receipt against before its tool runs.

use crate::domain::receipt::{Jwks, Signer};
use crate::domain::Error;
use crate::store::receipts::{self, KeyRow};
use crate::store::Db;
use std::os::unix::fs::DirBuilderExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Where a new key's secret goes.
const DIR: &str = "receipt-keys";
const KEYRING_PREFIX: &str = "receipt-key:";

/// This console's receipt key, and the key set as last read. Cheap to clone.
#[derive(Clone)]
pub struct Receipts(Arc<Inner>);

struct Inner {
    db: Db,
    /// This console's name among a team's: its local engine's id.
    instance: String,
    /// New keys go to the OS keyring (the desktop app), else to an owner-only file.
    keyring: AtomicBool,
    signer: tokio::sync::Mutex<Option<Arc<Signer>>>,
    keys: receipts::KeyCache,
}

impl Receipts {
    pub fn new(db: Db, instance: String) -> Self {
        Self(Arc::new(Inner {
            db,
            instance,
            keyring: AtomicBool::new(false),
            signer: tokio::sync::Mutex::new(None),
            keys: receipts::KeyCache::default(),
        }))
    }

    /// Keep new keys in the OS keyring rather than in a file (the desktop app, which has one).
    pub fn use_keyring(&self, yes: bool) {
        self.0.keyring.store(yes, Ordering::Relaxed);
    }

    /// The key this console signs with: its live key, read once from where it is kept; made (and
    /// audited) when it has none, or when its kept secret is gone (the old key is then retired).
    pub async fn signer(&self) -> Result<Arc<Signer>, Error> {
        let mut held = self.0.signer.lock().await;
        if let Some(signer) = held.as_ref() {
            return Ok(signer.clone());
        }
        for _ in 0..3 {
            let live = receipts::live(&self.0.db, &self.0.instance).await?;
            let (replaces, reason) = match &live {
                Some(row) => match self.read_secret(row).await {
                    Ok(signer) => {
                        let signer = Arc::new(signer);
                        *held = Some(signer.clone());
                        return Ok(signer);
                    }
                    Err(why) => {
                        tracing::warn!(kid = %row.kid, "the receipt key's secret cannot be read ({why}): making a new key");
                        (Some(row.kid.clone()), format!("the previous key's secret could not be read: {why}"))
                    }
                },
                None => (None, "this console's first key".to_owned()),
            };
            if let Some(signer) = self.make(replaces.as_deref(), "console", &reason).await? {
                *held = Some(signer.clone());
                return Ok(signer);
            }
            // Another process of this console made its key meanwhile: read that one.
        }
        Err(Error::Storage("the receipt key keeps changing under this console; try again".into()))
    }

    /// Makes a new key and retires the live one, audited as `by`. Answers the new key's id.
    pub async fn rotate(&self, by: &str) -> Result<String, Error> {
        let mut held = self.0.signer.lock().await;
        let live = receipts::live(&self.0.db, &self.0.instance).await?.map(|r| r.kid);
        let signer = self.make(live.as_deref(), by, "rotated by an admin").await?.ok_or(Error::StorageBusy)?;
        let kid = signer.kid().to_owned();
        *held = Some(signer);
        Ok(kid)
    }

    /// Every console's public keys, as published (`/.well-known/jwks.json`): read from the database.
    pub async fn jwks(&self) -> Result<Arc<Jwks>, Error> {
        self.0.keys.read(&self.0.db).await
    }

    /// A new key, stored and audited (see [`receipts::add`]); `None` if the live key is no longer
    /// `replaces` (another process made one: its secret stays where it went).
    async fn make(&self, replaces: Option<&str>, by: &str, reason: &str) -> Result<Option<Arc<Signer>>, Error> {
        let signer = Signer::generate();
        let secret_ref = self.keep(&signer).await?;
        let row = KeyRow {
            kid: signer.kid().to_owned(),
            instance: self.0.instance.clone(),
            public_key: signer.jwk(0).x,
            secret_ref,
            created_at: crate::store::now(),
            retired_at: None,
        };
        if !receipts::add(&self.0.db, &row, replaces, by, reason).await? {
            self.forget(&row.secret_ref).await;
            return Ok(None);
        }
        tracing::info!(kid = %row.kid, kept = %row.secret_ref, "made a receipt signing key");
        Ok(Some(Arc::new(signer)))
    }

    /// Keeps a new key's secret: in the keyring, or in an owner-only file of the data directory.
    async fn keep(&self, signer: &Signer) -> Result<String, Error> {
        let secret = crate::secrets::ApiKey::new(signer.secret_text());
        if self.0.keyring.load(Ordering::Relaxed) {
            let entry = format!("{KEYRING_PREFIX}{}", signer.kid());
            match crate::secrets::set(&entry, &secret).await {
                Ok(()) => return Ok(format!("keyring:{entry}")),
                // No keyring after all (locked, none on this session): decisions must still be
                // signed, so the key goes where a server keeps it, and the audit entry says where.
                Err(e) => tracing::warn!("the OS keyring cannot keep the receipt key ({e}); keeping it in an owner-only file"),
            }
        }
        let dir = self.0.db.data_dir().join(DIR);
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| Error::Storage(format!("cannot create {}: {e}", dir.display())))?;
        let name = format!("{DIR}/{}.key", signer.kid());
        crate::secrets::write_owner_only(&self.0.db.data_dir().join(&name), &format!("{}\n", secret.expose()))?;
        Ok(format!("file:{name}"))
    }

    /// Removes a kept secret no key row names (best effort).
    async fn forget(&self, secret_ref: &str) {
        if let Some(entry) = secret_ref.strip_prefix("keyring:") {
            let _ = crate::secrets::delete(entry).await;
        } else if let Some(path) = self.file(secret_ref) {
            let _ = std::fs::remove_file(path);
        }
    }

    fn file(&self, secret_ref: &str) -> Option<PathBuf> {
        let name = secret_ref.strip_prefix("file:")?;
        // Only a name this module gives: `receipt-keys/<kid>.key`, inside the data directory.
        let kid = name.strip_prefix(&format!("{DIR}/"))?.strip_suffix(".key")?;
        kid.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-').then(|| self.0.db.data_dir().join(name))
    }

    /// The secret a key row names, checked to be that key's.
    async fn read_secret(&self, row: &KeyRow) -> Result<Signer, String> {
        let text = if let Some(entry) = row.secret_ref.strip_prefix("keyring:") {
            crate::secrets::get(entry).await.map_err(|e| e.to_string())?
        } else {
            let path = self.file(&row.secret_ref).ok_or_else(|| format!("unknown place {:?}", row.secret_ref))?;
            crate::secrets::read_secret_file(&path).map_err(|e| e.to_string())?
        };
        let signer = Signer::from_secret_text(text.expose()).ok_or("the kept text is not a key")?;
        if signer.kid() != row.kid {
            return Err(format!("the kept key is {}, not {}", signer.kid(), row.kid));
        }
        Ok(signer)
    }
}
