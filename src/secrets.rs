//! Secrets in the OS keyring (SPEC C7): model API keys and tokens live there, never in SQLite, a
//! config file or a log line. A config file names a secret (`openai`, `ollama`); this module fetches
//! it as an [`ApiKey`], whose `Debug`/`Display` print `***`.
//!
//! One entry per secret: service [`SERVICE`], user = the secret's name. On Linux that is a Secret
//! Service item (gnome-keyring, KWallet, KeePassXC) with the attributes `service=approval-console`,
//! `username=<name>` (and keyring's own `target=default`), so
//! `secret-tool lookup service approval-console username openai` finds it too. The value travels
//! encrypted over D-Bus (keyring's `crypto-rust` session).
//!
//! Where there is no keyring (a headless server), a secret can instead come from a file the
//! configuration names ([`read_secret_file`]: `serve --token-file`, `api_key_file` in
//! `agents.toml`), which must be the console user's own and owner-only. Never from the database.
//!
//! Operators' channels' secrets have a namespace of their own ([`channel`]): the keyring entry
//! `channel.<name>` or the owner-only file `channel-secrets/<name>`, found by the channel's name,
//! never by a place a setting names.
//!
//! No error of this module ever carries the secret: [`SecretError`] holds only the name (or the
//! file's path) and the keyring's or the file system's own description of what failed.

pub mod channel;
mod file;
mod os_keyring;
mod strength;

pub use channel::ChannelSecrets;
pub use file::{read_owner_only, read_secret_file, write_owner_only, MAX_SECRET_FILE_BYTES};
pub use os_keyring::{delete, get, set};
use std::fmt;
pub use strength::{check_session_token_strength, MIN_BITS as SESSION_TOKEN_MIN_BITS};

/// An API key. Its `Debug` and `Display` print `***`; the only way to the value is
/// [`ApiKey::expose`], used where the key goes on the wire (the `Authorization` header).
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself: for the request header only, never for a message or a log line.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced by `***` (provider answers may echo it).
    pub fn redact(&self, text: &str) -> String {
        if self.0.is_empty() {
            text.to_owned()
        } else {
            text.replace(&self.0, "***")
        }
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// A random token: 32 bytes from the OS, hex (64 characters).
pub fn random_token() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// The keyring service every entry of Approval Console is stored under.
pub const SERVICE: &str = "approval-console";

/// The longest secret name accepted, in characters.
pub const MAX_NAME_CHARS: usize = 100;

/// Why a secret could not be read, stored or deleted. Messages say what to do; none contains the
/// secret's value (only its name, which is validated: printable, at most [`MAX_NAME_CHARS`]).
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("invalid secret name {shown}: {reason}")]
    InvalidName { shown: String, reason: &'static str },
    #[error("the secret for {name} is empty: nothing stored")]
    EmptyValue { name: String },
    #[error("no secret named {name} in the OS keyring: store it with `approval-console secret set {name}`")]
    NotFound { name: String },
    #[error("the OS keyring (Secret Service) is not available: {detail}; start a keyring (e.g. gnome-keyring) in your session")]
    Unavailable { detail: String },
    #[error("the OS keyring is locked or refused access: {detail}; unlock it (log in to your desktop session, or run `gnome-keyring-daemon --unlock`) and try again")]
    Locked { detail: String },
    #[error("the OS keyring failed for {name}: {detail}")]
    Other { name: String, detail: String },
    /// A secret file ([`read_secret_file`]) that is not there.
    #[error("the secret file {path} does not exist: write the secret alone on one line into it, then `chmod 600` it")]
    FileNotFound { path: String },
    /// A secret file someone else could read or replace: another user's, readable by its group or
    /// others, or a symbolic link.
    #[error("the secret file {path} is not safe to use: {why}")]
    FileUnsafe { path: String, why: String },
    /// A secret file that holds no usable secret: not a regular file, unreadable, too large, not
    /// UTF-8, empty, or more than one line.
    #[error("cannot use the secret file {path}: {why}")]
    FileUnreadable { path: String, why: String },
}

impl SecretError {
    /// A stable code for IPC and HTTP answers (the UI branches on it, never on the message).
    pub fn code(&self) -> &'static str {
        self.error_code().as_str()
    }

    pub fn error_code(&self) -> crate::domain::ErrorCode {
        use crate::domain::ErrorCode;
        match self {
            SecretError::InvalidName { .. } | SecretError::EmptyValue { .. } | SecretError::FileUnreadable { .. } => {
                ErrorCode::InvalidRequest
            }
            SecretError::NotFound { .. } | SecretError::FileNotFound { .. } => ErrorCode::SecretNotFound,
            // The code `agents.toml` and the data directory get for the same fault.
            SecretError::FileUnsafe { .. } => ErrorCode::UnsafePermissions,
            SecretError::Unavailable { .. } => ErrorCode::KeyringUnavailable,
            SecretError::Locked { .. } => ErrorCode::KeyringLocked,
            SecretError::Other { .. } => ErrorCode::KeyringError,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_api_key_never_shows_in_debug_or_display() {
        let key = super::ApiKey::new("sk-live-secret");
        assert_eq!(format!("{key:?} {key} {:?}", Some(key.clone())), "*** *** Some(***)");
        assert_eq!(key.redact("bad key sk-live-secret!"), "bad key ***!");
    }
}
