//! Secret files, for a machine without an OS keyring: [`read_secret_file`] reads one only when it is
//! the console user's own and owner-only.

use super::{ApiKey, SecretError};
use std::path::Path;

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
    let shown = crate::domain::text::visible(&path.display().to_string());
    let unreadable = |why: String| SecretError::FileUnreadable { path: shown.clone(), why };
    let mut text = read_owner_only(path)?;
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

/// The text of the file `path`, refused as [`read_secret_file`] refuses one — not the user's own,
/// not owner-only, a link, not a regular file, larger than [`MAX_SECRET_FILE_BYTES`], not UTF-8 —
/// but of any number of lines: for a file another user must not be able to write, which need not
/// be secret (a connector's pinned receipt keys, `APPROVAL_CONSOLE_JWKS`).
pub fn read_owner_only(path: &Path) -> Result<String, SecretError> {
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
    String::from_utf8(bytes).map_err(|_| unreadable("it is not UTF-8 text".into()))
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

/// Writes `text` to `path` through a new owner-only file renamed over it: a reader sees the old
/// content or the new, and a link at `path` is replaced, never followed.
pub fn write_owner_only(path: &Path, text: &str) -> Result<(), crate::domain::Error> {
    use crate::domain::Error;
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let io = |what: &str, p: &Path, e: std::io::Error| Error::Storage(format!("cannot {what} {}: {e}", p.display()));
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)
        .map_err(|e| io("create", &tmp, e))?;
    file.write_all(text.as_bytes()).and_then(|()| file.sync_all()).map_err(|e| io("write", &tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| io("replace", path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
