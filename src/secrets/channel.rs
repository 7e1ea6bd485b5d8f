//! Operators' channels' secrets (issue 44): a namespace of their own. A channel's secret (its
//! webhook's HMAC key, its Slack URL, its SMTP password, its Matrix token) is found by the channel's
//! name alone, in one of two places, and nowhere else:
//!
//! - the OS keyring's entry `channel.<name>` (service `approval-console`): where the desktop app
//!   keeps it ([`ChannelSecrets::use_keyring`]);
//! - the owner-only file `channel-secrets/<name>` of the data directory (the directory 0700, the
//!   file 0600, neither ever a symbolic link): where a server keeps it, and the CLI by default.
//!
//! No setting names a place, so no setting reaches another secret of this user (the receipts'
//! signing key, the session token, an engine's token, a model's key). Only the local admin sets or
//! removes one (`App::set_channel_secret`). Reading looks at the file first, then (where the
//! keyring is used) the keyring entry. Nothing here ever shows a value: errors name the channel.

use super::{ApiKey, SecretError};
use crate::domain::reach::SecretPlace;
use crate::domain::Error;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The data directory's folder of channel secrets.
pub const DIR: &str = "channel-secrets";
/// The keyring entries of channel secrets are `channel.<name>`.
pub const KEYRING_PREFIX: &str = "channel.";

/// Where the channels' secrets are, for one data directory. Cheap to clone.
#[derive(Clone, Debug)]
pub struct ChannelSecrets {
    data_dir: PathBuf,
    keyring: Arc<AtomicBool>,
}

/// The keyring entry of channel `name`'s secret.
pub fn keyring_entry(name: &str) -> String {
    format!("{KEYRING_PREFIX}{name}")
}

/// `name` if it is a channel's name (the settings' rule: 1–64 letters, digits, '.', '_', '-',
/// starting with a letter or digit — so never a path: no '/', no `..`).
fn channel_name(name: &str) -> Result<&str, Error> {
    if crate::domain::principal::valid_credential_name(name) {
        Ok(name)
    } else {
        Err(Error::InvalidRequest(format!(
            "channel name {:?}: 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit",
            crate::domain::text::visible(name)
        )))
    }
}

fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

impl ChannelSecrets {
    /// The channel secrets of `data_dir`: in files only, until [`ChannelSecrets::use_keyring`].
    pub fn new(data_dir: &Path) -> Self {
        Self { data_dir: data_dir.to_owned(), keyring: Arc::default() }
    }

    /// Keep new secrets in the OS keyring, and look there too (the desktop app, which has one).
    pub fn use_keyring(&self, yes: bool) {
        self.keyring.store(yes, Ordering::Relaxed);
    }

    fn keyring(&self) -> bool {
        self.keyring.load(Ordering::Relaxed)
    }

    fn dir(&self) -> PathBuf {
        self.data_dir.join(DIR)
    }

    /// The folder, checked: a directory of this user's (never a link), that nobody else may enter
    /// (narrowed to 0700 if it was wider). `None` when there is none yet.
    fn checked_dir(&self) -> Result<Option<PathBuf>, Error> {
        let dir = self.dir();
        let unsafe_dir = |why: String| Error::UnsafePermissions { path: dir.display().to_string(), why };
        let meta = match std::fs::symlink_metadata(&dir) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::Storage(format!("cannot read {}: {e}", dir.display()))),
        };
        if meta.file_type().is_symlink() || !meta.is_dir() {
            return Err(unsafe_dir("it is not a directory (a symbolic link?); remove it, and set the channels' secrets again".into()));
        }
        if meta.uid() != euid() {
            return Err(unsafe_dir(format!("it belongs to user id {}, not to this console's user", meta.uid())));
        }
        if meta.mode() & 0o077 != 0 {
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| Error::Storage(format!("cannot narrow the permissions of {}: {e}", dir.display())))?;
            tracing::info!(path = %dir.display(), "made owner-only (0700); it was {:04o}", meta.mode() & 0o7777);
        }
        Ok(Some(dir))
    }

    /// The file of channel `name`, if there is one (a link there is refused when read).
    fn file_of(&self, name: &str) -> Result<Option<PathBuf>, Error> {
        let name = channel_name(name)?;
        let Some(dir) = self.checked_dir()? else { return Ok(None) };
        let path = dir.join(name);
        Ok(std::fs::symlink_metadata(&path).is_ok().then_some(path))
    }

    /// Channel `name`'s secret, or `None` when none is set (a keyring without the entry, or no
    /// keyring at all, is none set).
    pub async fn read(&self, name: &str) -> Result<Option<ApiKey>, Error> {
        if let Some(path) = self.file_of(name)? {
            return Ok(Some(super::read_secret_file(&path)?));
        }
        if !self.keyring() {
            return Ok(None);
        }
        match super::get(&keyring_entry(name)).await {
            Ok(key) => Ok(Some(key)),
            Err(SecretError::NotFound { .. } | SecretError::Unavailable { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Where channel `name`'s secret is kept, if it has one (never its value).
    pub async fn place(&self, name: &str) -> Result<Option<SecretPlace>, Error> {
        if self.file_of(name)?.is_some() {
            return Ok(Some(SecretPlace::File));
        }
        if !self.keyring() {
            return Ok(None);
        }
        match super::get(&keyring_entry(name)).await {
            Ok(_) => Ok(Some(SecretPlace::Keyring)),
            Err(SecretError::NotFound { .. } | SecretError::Unavailable { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The channels with a secret file (whatever the settings hold now), by name.
    pub fn with_files(&self) -> Result<Vec<String>, Error> {
        let Some(dir) = self.checked_dir()? else { return Ok(vec![]) };
        let entries = std::fs::read_dir(&dir).map_err(|e| Error::Storage(format!("cannot read {}: {e}", dir.display())))?;
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            // A file being written is `<name>.tmp-<pid>` (`write_owner_only`).
            .filter(|n| crate::domain::principal::valid_credential_name(n) && !n.contains(".tmp-"))
            .collect();
        names.sort();
        Ok(names)
    }

    /// Keeps `value` as channel `name`'s secret, replacing the one it had: in the keyring where it is
    /// used (its file, if any, removed), else — or when the keyring refuses — in the channel's file
    /// (0600, written through a new file renamed over the old: a link there is replaced, never
    /// followed). Answers where it went. An empty value, or one of several lines, is refused.
    pub async fn set(&self, name: &str, value: &ApiKey) -> Result<SecretPlace, Error> {
        let name = channel_name(name)?;
        let text = value.expose();
        if text.is_empty() || text.contains(['\n', '\r']) {
            return Err(Error::InvalidRequest(format!("the secret of channel {name} must be one line, not empty")));
        }
        if text.len() as u64 > super::MAX_SECRET_FILE_BYTES {
            return Err(Error::InvalidRequest(format!(
                "the secret of channel {name} is larger than {} bytes",
                super::MAX_SECRET_FILE_BYTES
            )));
        }
        if self.keyring() {
            match super::set(&keyring_entry(name), value).await {
                Ok(()) => {
                    if let Some(path) = self.file_of(name)? {
                        std::fs::remove_file(&path).map_err(|e| Error::Storage(format!("cannot remove {}: {e}", path.display())))?;
                    }
                    return Ok(SecretPlace::Keyring);
                }
                Err(e) => tracing::warn!(
                    channel = name,
                    "the OS keyring cannot keep the channel's secret ({e}); keeping it in an owner-only file"
                ),
            }
        }
        let dir = match self.checked_dir()? {
            Some(dir) => dir,
            None => {
                let dir = self.dir();
                match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(Error::Storage(format!("cannot create {}: {e}", dir.display()))),
                }
                self.checked_dir()?.ok_or_else(|| Error::Storage(format!("{} vanished", dir.display())))?
            }
        };
        super::write_owner_only(&dir.join(name), &format!("{text}\n"))?;
        Ok(SecretPlace::File)
    }

    /// Removes channel `name`'s secret from its file and (where the keyring is used) its keyring
    /// entry. Answers where it was; `not_found` where it was nowhere.
    pub async fn remove(&self, name: &str) -> Result<Vec<SecretPlace>, Error> {
        let name = channel_name(name)?;
        let mut removed = vec![];
        if let Some(path) = self.file_of(name)? {
            std::fs::remove_file(&path).map_err(|e| Error::Storage(format!("cannot remove {}: {e}", path.display())))?;
            removed.push(SecretPlace::File);
        }
        if self.keyring() {
            match super::delete(&keyring_entry(name)).await {
                Ok(()) => removed.push(SecretPlace::Keyring),
                Err(SecretError::NotFound { .. }) => {}
                Err(SecretError::Unavailable { .. }) if !removed.is_empty() => {}
                Err(e) => return Err(e.into()),
            }
        }
        if removed.is_empty() {
            return Err(Error::not_found(format!("a secret of channel {name}")));
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().mode() & 0o777
    }

    #[tokio::test]
    async fn a_channel_secret_is_kept_owner_only_in_its_own_folder_and_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let secrets = ChannelSecrets::new(tmp.path());
        assert!(secrets.read("ops-hook").await.unwrap().is_none(), "none set");
        assert_eq!(secrets.set("ops-hook", &ApiKey::new("k-1")).await.unwrap(), SecretPlace::File);
        let dir = tmp.path().join(DIR);
        assert_eq!((mode(&dir), mode(&dir.join("ops-hook"))), (0o700, 0o600));
        assert_eq!(secrets.read("ops-hook").await.unwrap().unwrap().expose(), "k-1");
        assert_eq!(secrets.place("ops-hook").await.unwrap(), Some(SecretPlace::File));
        secrets.set("ops-hook", &ApiKey::new("k-2")).await.unwrap();
        assert_eq!(secrets.read("ops-hook").await.unwrap().unwrap().expose(), "k-2", "replaced");
        assert_eq!(secrets.with_files().unwrap(), ["ops-hook"]);
        assert_eq!(secrets.remove("ops-hook").await.unwrap(), [SecretPlace::File]);
        assert!(secrets.read("ops-hook").await.unwrap().is_none());
        assert_eq!(secrets.remove("ops-hook").await.unwrap_err().code(), "not_found");
    }

    #[tokio::test]
    async fn a_name_that_is_not_a_channels_reaches_no_other_file() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("session-token"), "tok\n").unwrap();
        let secrets = ChannelSecrets::new(tmp.path());
        for name in ["../session-token", "..", ".", "/etc/passwd", "a/b", "", ".hidden"] {
            assert_eq!(secrets.read(name).await.unwrap_err().code(), "invalid_request", "{name:?}");
            assert_eq!(secrets.set(name, &ApiKey::new("x")).await.unwrap_err().code(), "invalid_request", "{name:?}");
        }
        assert_eq!(std::fs::read_to_string(tmp.path().join("session-token")).unwrap(), "tok\n", "untouched");
        for bad in ["", "two\nlines"] {
            assert_eq!(secrets.set("ops", &ApiKey::new(bad)).await.unwrap_err().code(), "invalid_request", "{bad:?}");
        }
    }

    #[tokio::test]
    async fn the_folder_or_a_file_that_is_a_link_is_never_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o700)).unwrap();
        let target = elsewhere.join("ops");
        std::fs::write(&target, "someone else's\n").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        let data = tmp.path().join("data");
        std::fs::create_dir(&data).unwrap();
        let secrets = ChannelSecrets::new(&data);

        // The folder a link: neither read nor written through.
        std::os::unix::fs::symlink(&elsewhere, data.join(DIR)).unwrap();
        assert_eq!(secrets.read("ops").await.unwrap_err().code(), "unsafe_permissions");
        assert_eq!(secrets.set("ops", &ApiKey::new("new")).await.unwrap_err().code(), "unsafe_permissions");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "someone else's\n");

        // A file a link: not read; a new secret replaces the link, and the target stays as it was.
        std::fs::remove_file(data.join(DIR)).unwrap();
        secrets.set("other", &ApiKey::new("x")).await.unwrap();
        std::os::unix::fs::symlink(&target, data.join(DIR).join("ops")).unwrap();
        assert_eq!(secrets.read("ops").await.unwrap_err().code(), "unsafe_permissions");
        secrets.set("ops", &ApiKey::new("mine")).await.unwrap();
        assert!(!std::fs::symlink_metadata(data.join(DIR).join("ops")).unwrap().file_type().is_symlink());
        assert_eq!(secrets.read("ops").await.unwrap().unwrap().expose(), "mine");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "someone else's\n");

        // A folder others may enter is narrowed.
        std::fs::set_permissions(data.join(DIR), std::fs::Permissions::from_mode(0o755)).unwrap();
        secrets.read("ops").await.unwrap();
        assert_eq!(mode(&data.join(DIR)), 0o700);
    }
}
