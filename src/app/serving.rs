//! What a serving console (`serve`, the desktop app) keeps for later and leaves for others to find:
//!
//! - its **session token**, owner-only in the data directory ([`TOKEN_FILE`]), so the browser link
//!   and bookmarks survive a restart; `--new-token` makes a new one (the old one stops working);
//! - a **record of where it serves** (data directory, database, URL without the token) in the user's
//!   runtime directory ([`registry_dir`]), so a CLI command that names no data directory works on
//!   the console that is serving instead of silently opening another database.

use super::lock::LOCK_FILE;
use crate::domain::Error;
use serde::{Deserialize, Serialize};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// The session token's file in the data directory (owner-only, never a link).
pub const TOKEN_FILE: &str = "session-token";

/// The session token to serve with when none is given: the one kept in `data_dir`, made (and kept)
/// on the first start; with `rotate` a new one replaces it. A kept file that another user could read
/// or replace, or a link, is refused (`unsafe_permissions`), never silently replaced.
pub fn session_token(data_dir: &Path, rotate: bool) -> Result<String, Error> {
    let path = data_dir.join(TOKEN_FILE);
    if !rotate {
        match crate::secrets::read_secret_file(&path) {
            Ok(token) => return Ok(token.expose().to_owned()),
            Err(crate::secrets::SecretError::FileNotFound { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let token = crate::secrets::random_token();
    write_owner_only(&path, &format!("{token}\n"))?;
    Ok(token)
}

pub use crate::secrets::write_owner_only;

/// Where a console serves, as its record says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Serving {
    pub pid: u32,
    pub data_dir: PathBuf,
    /// The database it uses, as `Location::describe` says it (a password redacted).
    pub database: String,
    /// The console's address (`http://127.0.0.1:4319`), without the token.
    pub url: String,
}

/// The directory of the records: `$XDG_RUNTIME_DIR/approval-console/serving`, else
/// `$XDG_STATE_HOME` (or `~/.local/state`) `/approval-console/serving`.
pub fn registry_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = var("XDG_RUNTIME_DIR").or_else(|| var("XDG_STATE_HOME")).or_else(|| var("HOME").map(|h| h.join(".local/state")))?;
    Some(base.join("approval-console").join("serving"))
}

/// A console's record, removed when dropped (a process killed leaves it: readers check the holder).
#[derive(Debug)]
pub struct Registration {
    path: Option<PathBuf>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Leaves this process's record of where it serves. Best effort: a console that cannot write it
/// (no home, a read-only disk) still serves, and says so in its log; records of consoles that are
/// gone are cleared on the way.
pub fn register(serving: &Serving) -> Registration {
    let Some(dir) = registry_dir() else { return Registration { path: None } };
    let written = (|| -> Result<PathBuf, Error> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| Error::Storage(format!("cannot create {}: {e}", dir.display())))?;
        for (path, gone) in records(&dir) {
            if gone.as_ref().is_none_or(|s| !alive(s)) {
                let _ = std::fs::remove_file(path);
            }
        }
        let path = dir.join(format!("{}.json", serving.pid));
        write_owner_only(&path, &serde_json::to_string(serving).expect("a record serializes"))?;
        Ok(path)
    })();
    match written {
        Ok(path) => Registration { path: Some(path) },
        Err(e) => {
            tracing::warn!("could not leave a record of where this console serves (CLI commands will not find it): {e}");
            Registration { path: None }
        }
    }
}

/// The consoles serving now, by their records, in the order of their data directories.
pub fn serving_now() -> Vec<Serving> {
    let Some(dir) = registry_dir() else { return vec![] };
    let mut live: Vec<Serving> = records(&dir).into_iter().filter_map(|(_, s)| s).filter(alive).collect();
    live.sort_by(|a, b| a.data_dir.cmp(&b.data_dir));
    live.dedup_by(|a, b| a.data_dir == b.data_dir);
    live
}

/// The console a command that names no address talks to, found as every CLI command finds it:
/// with a data directory `named` (`--data-dir`, `APPROVAL_CONSOLE_DATA_DIR`), the console serving
/// that one; else the one serving the default data directory; else the only one serving.
/// `Ok(None)`: none is (the caller falls back on its default). Several, none of them the default
/// one, and none named: `invalid_request` listing them, to name one.
pub fn find(named: Option<&Path>) -> Result<Option<Serving>, Error> {
    let live = serving_now();
    let absolute = |dir: &Path| std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    if let Some(dir) = named {
        let dir = absolute(dir);
        return Ok(live.into_iter().find(|s| s.data_dir == dir));
    }
    let default = absolute(&super::default_data_dir());
    if let Some(s) = live.iter().find(|s| s.data_dir == default) {
        return Ok(Some(s.clone()));
    }
    match live.len() {
        0 | 1 => Ok(live.into_iter().next()),
        _ => {
            let list: Vec<String> = live.iter().map(|s| format!("{} at {}", s.data_dir.display(), s.url)).collect();
            Err(Error::InvalidRequest(format!("several consoles are serving ({}): name one with --data-dir DIR", list.join("; "))))
        }
    }
}

/// Whether some process serves `data_dir` now: the pid its lock file names is alive.
pub fn is_served(data_dir: &Path) -> bool {
    holder_pid(data_dir).is_some_and(pid_alive)
}

/// Every record file of `dir`, read (`None`: unreadable).
fn records(dir: &Path) -> Vec<(PathBuf, Option<Serving>)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return vec![] };
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let s = std::fs::read_to_string(&p).ok().and_then(|t| serde_json::from_str::<Serving>(&t).ok());
            (p, s)
        })
        .collect()
}

/// A record is live while its process is and still holds its data directory's lock (the lock
/// file names the holder's pid; a pid reused by an unrelated process after a crash would not
/// also be named there).
fn alive(s: &Serving) -> bool {
    holder_pid(&s.data_dir) == Some(s.pid) && pid_alive(s.pid)
}

/// The pid the data directory's lock file names (`pid 123 (…)`), read without taking the lock.
fn holder_pid(data_dir: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(data_dir.join(LOCK_FILE)).ok()?;
    text.strip_prefix("pid ")?.split_whitespace().next()?.parse().ok()
}

fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    // SAFETY: signal 0 only checks that the process exists; no signal is sent.
    pid > 0 && (unsafe { libc::kill(pid, 0) } == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_token_is_kept_owner_only_and_rotated_on_request() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let first = session_token(dir.path(), false).unwrap();
        assert_eq!(first.len(), 64);
        let mode = std::fs::metadata(dir.path().join(TOKEN_FILE)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(session_token(dir.path(), false).unwrap(), first, "kept across starts");
        let second = session_token(dir.path(), true).unwrap();
        assert_ne!(second, first, "rotated");
        assert_eq!(session_token(dir.path(), false).unwrap(), second);
    }

    #[test]
    fn a_token_file_others_may_read_is_refused_not_replaced() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(TOKEN_FILE);
        std::fs::write(&path, "abc\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = session_token(dir.path(), false).unwrap_err();
        assert_eq!(e.code(), "unsafe_permissions", "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "abc\n");
    }

    #[test]
    fn a_data_directory_is_served_while_the_pid_its_lock_names_is_alive() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!is_served(dir.path()), "no lock file");
        let lock = super::super::ServeLock::acquire(dir.path()).unwrap();
        assert!(is_served(dir.path()));
        let me = Serving { pid: std::process::id(), data_dir: dir.path().into(), database: "x".into(), url: "u".into() };
        assert!(alive(&me));
        assert!(!alive(&Serving { pid: me.pid + 1, ..me.clone() }), "another pid than the lock's holder");
        drop(lock);
        std::fs::write(dir.path().join(LOCK_FILE), "pid 999999999 (gone)").unwrap();
        assert!(!is_served(dir.path()), "a holder that is gone");
    }
}
