//! One serving process per data directory.
//!
//! A serving console recovers at start (interrupted deliveries, half-advanced runs) as if no other
//! process were working on the same database. Two of them — the desktop app and `serve`, or two
//! `serve`s — would each take the other's in-flight work for interrupted and run it again. So the
//! process that recovers holds an exclusive lock on `<data dir>/serve.lock` for as long as it serves;
//! the OS drops it when the process ends, even on `kill -9`, so a crash never leaves a stale lock.
//! One-shot CLI commands (`approve`, `queue`, …) do not take it: their decisions are claimed through
//! the database like any other.

use crate::domain::Error;
use std::fs::{File, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

pub const LOCK_FILE: &str = "serve.lock";

/// Held while this process serves a data directory; released when dropped or when the process ends.
#[derive(Debug)]
pub struct ServeLock {
    _file: File,
    path: PathBuf,
}

impl ServeLock {
    /// Takes the lock of `data_dir`, or says which process holds it (`already_serving`).
    pub fn acquire(data_dir: &Path) -> Result<Self, Error> {
        let path = data_dir.join(LOCK_FILE);
        let storage = |e: std::io::Error| Error::Storage(format!("cannot lock {}: {e}", path.display()));
        let mut file = crate::store::private::open_lock_file(&path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                return Err(Error::AlreadyServing { data_dir: data_dir.display().to_string(), holder: holder.trim().to_owned() });
            }
            Err(TryLockError::Error(e)) => return Err(storage(e)),
        }
        // Who holds it, for the message a second process prints.
        let holder = format!("pid {} ({})", std::process::id(), std::env::args().next().unwrap_or_default());
        file.set_len(0).and_then(|()| file.seek(SeekFrom::Start(0))).and_then(|_| file.write_all(holder.as_bytes())).map_err(storage)?;
        Ok(Self { _file: file, path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused_with_the_holder_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = ServeLock::acquire(dir.path()).unwrap();
        match ServeLock::acquire(dir.path()) {
            Err(e @ Error::AlreadyServing { .. }) => {
                assert_eq!(e.code(), "already_serving");
                assert!(e.to_string().contains(&format!("pid {}", std::process::id())), "{e}");
            }
            other => panic!("expected already_serving, got {other:?}"),
        }
        drop(first);
        ServeLock::acquire(dir.path()).expect("free again once the holder is gone");
    }
}
