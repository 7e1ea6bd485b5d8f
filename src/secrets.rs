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
//! No error of this module ever carries the secret: [`SecretError`] holds only the name (or the
//! file's path) and the keyring's or the file system's own description of what failed.

use std::fmt;
use std::path::Path;
use std::time::Duration;

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

/// How long one keyring call may take. A keyring that asks the user to unlock it waits for them; a
/// keyring that never answers must not hang a CLI command or a start-up for ever.
const KEYRING_TIMEOUT: Duration = Duration::from_secs(60);

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

/// The secret `name` from the OS keyring.
///
/// Errors: [`SecretError::NotFound`] if there is none, [`SecretError::Unavailable`] without a
/// keyring (no D-Bus session, no Secret Service on it), [`SecretError::Locked`] if the keyring
/// stays locked. Blocks a separate thread, never the async runtime, for at most 60 s.
pub async fn get(name: &str) -> Result<ApiKey, SecretError> {
    on_keyring(name, |entry| entry.get_password().map(ApiKey::new)).await
}

/// Stores `value` as the secret `name`, replacing any value it had. An empty value is refused.
pub async fn set(name: &str, value: &ApiKey) -> Result<(), SecretError> {
    let name = checked_name(name)?;
    if value.expose().is_empty() {
        return Err(SecretError::EmptyValue { name: name.to_owned() });
    }
    let value = value.clone();
    on_keyring(name, move |entry| entry.set_password(value.expose())).await
}

/// Removes the secret `name`; [`SecretError::NotFound`] if there is none.
pub async fn delete(name: &str) -> Result<(), SecretError> {
    on_keyring(name, |entry| entry.delete_credential()).await
}

/// Runs `call` on the keyring entry for `name` on a thread of its own.
///
/// keyring's Secret Service calls are blocking and drive zbus on zbus's own tokio runtime: called from
/// inside a runtime they panic ("Cannot start a runtime from within a runtime"), so they must leave
/// the async context. A plain thread rather than `spawn_blocking`: if the keyring never answers, the
/// timeout below gives the caller an error, and a detached thread — unlike a blocking-pool task,
/// which the runtime waits for when it shuts down — does not then hold the process open.
async fn on_keyring<T, F>(name: &str, call: F) -> Result<T, SecretError>
where
    T: Send + 'static,
    F: FnOnce(&keyring::Entry) -> keyring::Result<T> + Send + 'static,
{
    let name = checked_name(name)?.to_owned();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let thread_name = name.clone();
    std::thread::Builder::new()
        .name("keyring".into())
        .spawn(move || {
            let result = keyring::Entry::new(SERVICE, &thread_name).and_then(|entry| call(&entry));
            let _ = tx.send(result.map_err(|e| classify(&thread_name, e)));
        })
        .map_err(|e| SecretError::Other { name: name.clone(), detail: format!("cannot start a thread for the keyring call: {e}") })?;
    match tokio::time::timeout(KEYRING_TIMEOUT, rx).await {
        Ok(Ok(result)) => result,
        Ok(Err(_)) => Err(SecretError::Other { name, detail: "the keyring call panicked".into() }),
        Err(_) => Err(SecretError::Unavailable {
            detail: format!("no answer within {} s (is it waiting for an unlock prompt?)", KEYRING_TIMEOUT.as_secs()),
        }),
    }
}

/// The largest secret file [`read_secret_file`] reads, in bytes.
pub const MAX_SECRET_FILE_BYTES: u64 = 64 * 1024;

/// The secret held in the file `path`, for a machine without an OS keyring (a headless server):
/// the file's text without one final line ending (`\n` or `\r\n`), as `echo "$TOKEN" > FILE` or an
/// editor leaves it.
///
/// Refused, naming the path and never the content: a file that does not exist
/// ([`SecretError::FileNotFound`]); one another user could read or replace — owned by another user,
/// or with any group or other permission bit (`mode & 0o077 != 0`; the message says `chmod 600
/// PATH`) — and a symbolic link ([`SecretError::FileUnsafe`]); a directory or other non-regular
/// file, more than [`MAX_SECRET_FILE_BYTES`], not UTF-8, empty, or holding a line break besides the
/// final one ([`SecretError::FileUnreadable`]: a token with a line break would never match).
///
/// A symbolic link is refused rather than followed (`O_NOFOLLOW`), like every file of the data
/// directory: whoever could replace a link could point it at another owner-only file of this user
/// (an SSH key), which would then be sent as a bearer token. Name the file itself. The checks are
/// made on the opened file (`fstat`), so the file checked is the file read.
///
/// Blocking, but short: one small file.
pub fn read_secret_file(path: &Path) -> Result<ApiKey, SecretError> {
    use std::io::Read;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let shown = crate::domain::text::visible(&path.display().to_string());
    let unreadable = |why: String| SecretError::FileUnreadable { path: shown.clone(), why };
    let unsafe_file = |why: String| SecretError::FileUnsafe { path: shown.clone(), why };
    // O_NONBLOCK: a FIFO named by mistake must not hang the start waiting for a writer (it is
    // refused below, as not a regular file); reads of a regular file do not care.
    let file = match std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(SecretError::FileNotFound { path: shown }),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) => {
            let target = std::fs::read_link(path).map(|t| format!(" to {}", crate::domain::text::visible(&t.display().to_string())));
            return Err(unsafe_file(format!(
                "it is a symbolic link{}; secret files are never read through a link: name the file itself",
                target.unwrap_or_default()
            )));
        }
        Err(e) => return Err(unreadable(e.to_string())),
    };
    let meta = file.metadata().map_err(|e| unreadable(e.to_string()))?;
    if !meta.is_file() {
        let kind = if meta.is_dir() { "a directory" } else { "not a regular file" };
        return Err(unreadable(format!("it is {kind}; name a file holding the secret alone")));
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let mode = meta.mode() & 0o7777;
    if meta.uid() != me {
        return Err(unsafe_file(format!(
            "it belongs to user id {} and this console runs as user id {me}: a secret file must be the console user's own (`chown` it to that user, then `chmod 600 {}`)",
            meta.uid(),
            shell_word(&shown)
        )));
    }
    if mode & 0o077 != 0 {
        return Err(unsafe_file(format!(
            "its mode is {mode:04o}: its group or other users may read it; run `chmod 600 {}`",
            shell_word(&shown)
        )));
    }
    let too_large = || unreadable(format!("it is larger than {MAX_SECRET_FILE_BYTES} bytes; a secret file holds the secret alone"));
    if meta.len() > MAX_SECRET_FILE_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(MAX_SECRET_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| unreadable(e.to_string()))?;
    if bytes.len() as u64 > MAX_SECRET_FILE_BYTES {
        return Err(too_large());
    }
    // The error of `from_utf8` holds the bytes, i.e. the secret: only its kind is kept.
    let mut text = String::from_utf8(bytes).map_err(|_| unreadable("it is not UTF-8 text".into()))?;
    if text.ends_with("\r\n") {
        text.truncate(text.len() - 2);
    } else if text.ends_with('\n') {
        text.truncate(text.len() - 1);
    }
    if text.is_empty() {
        return Err(unreadable("it is empty".into()));
    }
    if text.contains(['\n', '\r']) {
        return Err(unreadable("it holds more than one line; it must hold the secret alone, on one line".into()));
    }
    Ok(ApiKey::new(text))
}

/// `text` as one shell word, for a command the user is told to run: as it is when it holds only
/// characters the shell takes literally, else in single quotes.
fn shell_word(text: &str) -> String {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c)) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// A secret name: not empty, at most [`MAX_NAME_CHARS`] characters, no control characters, no
/// leading or trailing whitespace (it would make `openai` and `openai ` two different secrets).
fn checked_name(name: &str) -> Result<&str, SecretError> {
    let invalid = |reason| {
        let mut shown: String = name.chars().take(40).collect::<String>();
        if name.chars().count() > 40 {
            shown.push('…');
        }
        // `{:?}` escapes control characters, so the message cannot drive the terminal.
        Err(SecretError::InvalidName { shown: format!("{shown:?}"), reason })
    };
    if name.is_empty() {
        invalid("it is empty")
    } else if name.chars().count() > MAX_NAME_CHARS {
        invalid("it is longer than 100 characters")
    } else if name.chars().any(char::is_control) {
        invalid("it contains control characters")
    } else if name.trim() != name {
        invalid("it starts or ends with whitespace")
    } else {
        Ok(name)
    }
}

/// keyring's error as ours. Built from the error's kind and the platform's description, never from
/// `BadEncoding`'s bytes (that is the stored value).
fn classify(name: &str, error: keyring::Error) -> SecretError {
    let name = name.to_owned();
    match error {
        keyring::Error::NoEntry => SecretError::NotFound { name },
        keyring::Error::NoStorageAccess(e) => {
            let detail = chain(&*e);
            // secret-service's `NoResult`: the service has no default collection (no login keyring yet).
            let detail =
                if detail.contains("result not returned") { format!("it has no default keyring to use ({detail})") } else { detail };
            SecretError::Locked { detail }
        }
        keyring::Error::PlatformFailure(e) => {
            let detail = chain(&*e);
            if means_no_keyring(&detail) {
                SecretError::Unavailable { detail }
            } else {
                SecretError::Other { name, detail }
            }
        }
        keyring::Error::BadEncoding(_) => SecretError::Other { name, detail: "the stored value is not UTF-8 text".into() },
        keyring::Error::Ambiguous(items) => SecretError::Other {
            detail: format!(
                "{} entries match it; remove the extra ones (e.g. `secret-tool clear service {SERVICE} username {name}`) and set it again",
                items.len()
            ),
            name,
        },
        keyring::Error::TooLong(attribute, limit) => {
            SecretError::Other { name, detail: format!("{attribute} is longer than the keyring's limit of {limit}") }
        }
        keyring::Error::Invalid(attribute, reason) => SecretError::Other { name, detail: format!("{attribute} is invalid: {reason}") },
        other => SecretError::Other { name, detail: other.to_string() },
    }
}

/// Platform failures that mean "there is no keyring to talk to": no session bus
/// (`DBUS_SESSION_BUS_ADDRESS` unset or pointing nowhere), or a bus on which nobody owns
/// `org.freedesktop.secrets` and nothing can be activated.
fn means_no_keyring(detail: &str) -> bool {
    [
        "no secret service provider or dbus session found", // secret-service's `Unavailable`
        "ServiceUnknown",
        "org.freedesktop.secrets",
        "Connection refused",
        "No such file or directory",
    ]
    .iter()
    .any(|needle| detail.contains(needle))
}

/// `error: source: source…`, each level once (wrappers often repeat their source's text).
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let s = e.to_string();
        if !text.contains(&s) {
            text.push_str(": ");
            text.push_str(&s);
        }
        source = e.source();
    }
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_api_key_never_shows_in_debug_or_display() {
        let key = super::ApiKey::new("sk-live-secret");
        assert_eq!(format!("{key:?} {key} {:?}", Some(key.clone())), "*** *** Some(***)");
        assert_eq!(key.redact("bad key sk-live-secret!"), "bad key ***!");
    }

    use super::*;

    #[test]
    fn names_are_checked_before_the_keyring_is_asked() {
        assert!(checked_name("openai").is_ok());
        assert!(checked_name("ollama local").is_ok());
        assert!(checked_name(&"x".repeat(100)).is_ok());
        for (bad, reason) in [
            ("", "empty"),
            (&*"x".repeat(101), "longer than 100"),
            ("open\u{1b}[2Jai", "control characters"),
            ("line\nbreak", "control characters"),
            (" openai", "whitespace"),
        ] {
            let e = checked_name(bad).unwrap_err();
            assert!(e.to_string().contains(reason), "{bad:?}: {e}");
            assert!(!e.to_string().contains('\u{1b}'), "control character printed: {e:?}");
            assert_eq!(e.code(), "invalid_request");
        }
    }

    #[test]
    fn keyring_errors_become_messages_that_say_what_to_do_and_never_the_value() {
        let not_found = classify("openai", keyring::Error::NoEntry);
        assert_eq!(not_found.to_string(), "no secret named openai in the OS keyring: store it with `approval-console secret set openai`");
        let bad = classify("openai", keyring::Error::BadEncoding(b"sk-\xff-very-secret".to_vec()));
        assert!(!format!("{bad} {bad:?}").contains("very-secret"));
        let io = std::io::Error::other("no secret service provider or dbus session found");
        let unavailable = classify("openai", keyring::Error::PlatformFailure(Box::new(io)));
        assert!(matches!(unavailable, SecretError::Unavailable { .. }));
        assert!(unavailable.to_string().starts_with("the OS keyring (Secret Service) is not available"));
        let locked = classify("openai", keyring::Error::NoStorageAccess(Box::new(std::io::Error::other("object locked"))));
        assert_eq!(locked.code(), "keyring_locked");
    }

    /// `content` in a new file `name` of `dir` with `mode`.
    fn secret_file(dir: &Path, name: &str, content: &[u8], mode: u32) -> std::path::PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    /// The error, after checking that it never shows `value`.
    fn refused(path: &Path, value: &str) -> SecretError {
        let e = read_secret_file(path).expect_err("refused");
        assert!(!format!("{e} {e:?}").contains(value), "the value leaked: {e}");
        assert!(e.to_string().contains(&path.display().to_string()), "names the path: {e}");
        e
    }

    #[test]
    fn an_owner_only_secret_file_is_read_without_one_final_line_ending() {
        let dir = tempfile::tempdir().unwrap();
        for (content, value) in [
            (&b"tok-1\n"[..], "tok-1"),
            (b"tok-2\r\n", "tok-2"),
            (b"tok-3", "tok-3"),
            (b" spaced key ", " spaced key "),
            ("clé-ü\n".as_bytes(), "clé-ü"),
        ] {
            let path = secret_file(dir.path(), "key", content, 0o600);
            assert_eq!(read_secret_file(&path).unwrap().expose(), value, "{content:?}");
        }
        let read_only = secret_file(dir.path(), "ro", b"tok-ro\n", 0o400);
        assert_eq!(read_secret_file(&read_only).unwrap().expose(), "tok-ro", "0400 is owner-only too");
        let largest = secret_file(dir.path(), "large", &vec![b'k'; MAX_SECRET_FILE_BYTES as usize], 0o600);
        assert_eq!(read_secret_file(&largest).unwrap().expose().len(), MAX_SECRET_FILE_BYTES as usize);
    }

    #[test]
    fn a_secret_file_its_group_or_others_may_read_is_refused_with_the_mode_and_the_chmod_to_run() {
        let dir = tempfile::tempdir().unwrap();
        for mode in [0o644, 0o640, 0o604, 0o610, 0o601, 0o666] {
            let path = secret_file(dir.path(), "token", b"tok-shared\n", mode);
            let e = refused(&path, "tok-shared");
            assert!(matches!(e, SecretError::FileUnsafe { .. }), "{mode:o}: {e}");
            assert_eq!(e.code(), "unsafe_permissions");
            let said = e.to_string();
            assert!(said.contains(&format!("its mode is {mode:04o}")), "{said}");
            assert!(said.contains(&format!("run `chmod 600 {}`", path.display())), "{said}");
        }
        let spaced = secret_file(dir.path(), "my token", b"tok-shared\n", 0o644);
        assert!(
            refused(&spaced, "tok-shared").to_string().contains(&format!("`chmod 600 '{}'`", spaced.display())),
            "quoted for the shell"
        );
    }

    #[test]
    fn a_symlink_to_an_owner_only_secret_file_is_refused_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = secret_file(dir.path(), "real", b"tok-linked\n", 0o600);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = refused(&link, "tok-linked");
        assert_eq!(e.code(), "unsafe_permissions", "{e}");
        assert!(e.to_string().contains("symbolic link") && e.to_string().contains(&target.display().to_string()), "{e}");
        assert_eq!(read_secret_file(&target).unwrap().expose(), "tok-linked", "the file itself is fine");
    }

    #[test]
    fn a_missing_empty_or_unusable_secret_file_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        let e = refused(&missing, "\0");
        assert!(matches!(e, SecretError::FileNotFound { .. }), "{e}");
        assert_eq!(e.code(), "secret_not_found", "exit code 3 in the CLI, like a missing keyring entry");

        for (name, content, why) in [
            ("empty", &b""[..], "it is empty"),
            ("newline", b"\n", "it is empty"),
            ("crlf", b"\r\n", "it is empty"),
            ("two-lines", b"tok-a\ntok-b\n", "more than one line"),
            ("blank-line", b"tok-a\n\n", "more than one line"),
            ("stray-cr", b"tok-a\r", "more than one line"),
            ("binary", b"tok-\xff\xfe\n", "not UTF-8"),
        ] {
            let path = secret_file(dir.path(), name, content, 0o600);
            let e = refused(&path, "tok-");
            assert!(matches!(e, SecretError::FileUnreadable { .. }), "{name}: {e}");
            assert_eq!(e.code(), "invalid_request");
            assert!(e.to_string().contains(why), "{name}: {e}");
        }
        let too_large = secret_file(dir.path(), "large", &vec![b'k'; MAX_SECRET_FILE_BYTES as usize + 1], 0o600);
        assert!(refused(&too_large, "kkkk").to_string().contains("larger than 65536 bytes"));

        let sub = dir.path().join("a-directory");
        std::fs::create_dir(&sub).unwrap();
        assert!(refused(&sub, "\0").to_string().contains("it is a directory"));
        let fifo = dir.path().join("fifo");
        let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let e = refused(&fifo, "\0");
        assert!(e.to_string().contains("not a regular file"), "refused at once, without waiting for a writer: {e}");
    }

    #[tokio::test]
    async fn an_empty_value_is_refused_without_asking_the_keyring() {
        let e = set("openai", &ApiKey::new("")).await.unwrap_err();
        assert!(matches!(e, SecretError::EmptyValue { .. }), "{e}");
    }
}
