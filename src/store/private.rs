//! Files only their owner may touch: the data directory (0700), the database and lock files (0600),
//! created so — never opened to others first and narrowed later — and refused when someone else could
//! write them.

use crate::domain::Error;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

fn unsafe_path(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::UnsafePermissions { path: path.display().to_string(), why: why.to_string() }
}

fn io(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::Storage(format!("cannot {what} {}: {e}", path.display()))
}

/// The effective user id of this process.
fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Why another user could change `path` (itself, not what it points to), if one could: it belongs to
/// another user (who may chmod it), or its group or others may write it.
fn writable_by_others(meta: &std::fs::Metadata) -> Option<String> {
    let mode = meta.mode() & 0o7777;
    if meta.uid() != euid() && meta.uid() != 0 {
        return Some(format!("it belongs to user id {} (this process runs as {})", meta.uid(), euid()));
    }
    if mode & 0o022 != 0 {
        return Some(format!("its mode is {mode:04o}: its group or other users may write it"));
    }
    None
}

/// Creates `dir` (and missing parents) with the last component owner-only (0700), or checks that an
/// existing one cannot be written by another user (`unsafe_permissions`).
pub fn data_dir(dir: &Path) -> Result<(), Error> {
    match std::fs::symlink_metadata(dir) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(|e| io(parent, "create", e))?;
            }
            match std::fs::DirBuilder::new().mode(0o700).create(dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(io(dir, "create data directory", e)),
            }
        }
        Err(e) => return Err(io(dir, "read", e)),
    }
    let meta = std::fs::metadata(dir).map_err(|e| io(dir, "read", e))?;
    if !meta.is_dir() {
        return Err(unsafe_path(dir, "it is not a directory"));
    }
    if let Some(why) = writable_by_others(&meta) {
        return Err(unsafe_path(
            dir,
            format!("the data directory can be changed by another user: {why}; run `chmod 700 {}`", dir.display()),
        ));
    }
    Ok(())
}

/// Creates `path` empty and owner-only (0600) unless it exists; an existing file that others may read
/// or write (left by an older version) is narrowed to 0600. Never follows a symlink.
pub fn owner_only_file(path: &Path) -> Result<(), Error> {
    match OpenOptions::new().write(true).create_new(true).mode(0o600).custom_flags(libc::O_NOFOLLOW).open(path) {
        Ok(_) => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io(path, "create", e)),
    }
    let meta = std::fs::symlink_metadata(path).map_err(|e| io(path, "read", e))?;
    if meta.file_type().is_symlink() {
        return Err(unsafe_path(path, "it is a symbolic link; the console's files are never links"));
    }
    if meta.uid() != euid() && euid() != 0 {
        return Err(unsafe_path(path, format!("it belongs to user id {}", meta.uid())));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(|e| io(path, "narrow the permissions of", e))?;
        tracing::info!(path = %path.display(), "made owner-only (0600); it was {:04o}", meta.mode() & 0o7777);
    }
    Ok(())
}

/// Opens (creating it 0600) a file to lock and write, refusing to follow a symlink.
pub fn open_lock_file(path: &Path) -> Result<File, Error> {
    OpenOptions::new().read(true).write(true).create(true).truncate(false).mode(0o600).custom_flags(libc::O_NOFOLLOW).open(path).map_err(
        |e| match e.raw_os_error() {
            Some(libc::ELOOP) => unsafe_path(path, "it is a symbolic link; the lock file is never followed"),
            _ => io(path, "open", e),
        },
    )
}

/// Refuses a file that another user could have written (a config that starts programs), or that
/// lies in a directory another user could write (who could replace it), unless that directory is
/// sticky (like /tmp) and the file is this user's.
pub fn trusted_config(path: &Path) -> Result<(), Error> {
    let meta = std::fs::metadata(path).map_err(|e| io(path, "read", e))?;
    if let Some(why) = writable_by_others(&meta) {
        return Err(unsafe_path(
            path,
            format!(
                "another user could have changed it ({why}); it starts programs with your secrets, so it is not read. Run `chmod go-w {}`",
                path.display()
            ),
        ));
    }
    let real = std::fs::canonicalize(path).map_err(|e| io(path, "resolve", e))?;
    if let Some(dir) = real.parent() {
        let d = std::fs::metadata(dir).map_err(|e| io(dir, "read", e))?;
        let sticky = d.mode() & 0o1000 != 0;
        if let Some(why) = writable_by_others(&d).filter(|_| !sticky) {
            return Err(unsafe_path(
                path,
                format!("its directory {} could be changed by another user ({why}), who could replace the file", dir.display()),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_data_directory_is_owner_only_and_a_group_writable_one_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b/data");
        data_dir(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o770)).unwrap();
        let e = data_dir(&dir).unwrap_err();
        assert_eq!(e.code(), "unsafe_permissions");
        assert!(e.to_string().contains(&dir.display().to_string()), "{e}");
    }

    #[test]
    fn files_are_created_owner_only_and_never_through_a_symlink() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("x.db");
        owner_only_file(&file).unwrap();
        assert_eq!(std::fs::metadata(&file).unwrap().mode() & 0o777, 0o600);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        owner_only_file(&file).unwrap();
        assert_eq!(std::fs::metadata(&file).unwrap().mode() & 0o777, 0o600, "an old world-readable file is narrowed");

        let target = tmp.path().join("elsewhere");
        let link = tmp.path().join("serve.lock");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(open_lock_file(&link).unwrap_err().code(), "unsafe_permissions");
        assert!(!target.exists(), "nothing was created through the link");
        assert_eq!(owner_only_file(&link).unwrap_err().code(), "unsafe_permissions");
    }

    #[test]
    fn a_config_others_may_write_is_not_trusted() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("agents.toml");
        std::fs::write(&file, "").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        trusted_config(&file).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert_eq!(trusted_config(&file).unwrap_err().code(), "unsafe_permissions");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(trusted_config(&file).unwrap_err().code(), "unsafe_permissions", "a directory anyone may write");
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        trusted_config(&file).unwrap();
    }
}
