//! The file a coding agent's edit changes, read by its hook for the console to show the change against
//! it — and only where that is harmless (issue 44, least data): a file in the session's working
//! directory (links and `..` resolved first), that its group or others may read too, and whose name
//! does not say it holds secrets ([`crate::domain::risk::looks_secret`]). Otherwise the hook sends
//! why it did not read it, and the console's diff says so.

use crate::domain::CallSource;
use serde_json::{json, Value};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The most bytes of a file the hook reads for the console to show an edit against it.
pub const MAX_FILE: u64 = 256 * 1024;
/// The most bytes of that file's text as a JSON string (escapes included) the hook sends.
pub const MAX_FILE_JSON: usize = 384 * 1024;

const OUTSIDE: &str = "outside the session's working directory: the hook reads only files in it";

/// The file a coding agent's edit (Claude Code's `Edit`, `MultiEdit`, `Write`, Gemini CLI's
/// `replace`, `write_file`: [`crate::domain::change::writes_named_file`]) changes, as it is on disk
/// now, for the console to show the change against it ([`crate::domain::change::Disk`]): `{path,
/// exists, text}`, `{path, exists: false}`, or `{path, unread}` saying why its text is not sent — its
/// name looks like a secret's, it is outside `cwd` (or no `cwd` is known), only its owner may read
/// it, it is too large, not UTF-8 text or not a file. `None` for another tool, or an input without a
/// path.
pub fn file_on_disk(source: CallSource, tool: &str, input: &Value, cwd: Option<&str>) -> Option<Value> {
    if !crate::domain::change::writes_named_file(source, tool) {
        return None;
    }
    let named = input.get("file_path")?.as_str()?;
    let unread = |why: String| Some(json!({ "path": named, "unread": why }));
    if crate::domain::risk::looks_secret(named) {
        return unread("its name says it may hold secrets: the hook does not read such files".into());
    }
    let Some(cwd) = cwd.filter(|c| Path::new(c).is_absolute()) else {
        return unread("no working directory was given: the hook reads only files in it".into());
    };
    let root = match std::fs::canonicalize(cwd) {
        Ok(root) => root,
        Err(e) => return unread(format!("the working directory cannot be resolved: {e}")),
    };
    // Joined with an absolute path, the path alone.
    let path = Path::new(cwd).join(named);
    let real = match std::fs::canonicalize(&path) {
        Ok(real) => real,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return match would_be(&path) {
                Some(at) if at.starts_with(&root) && std::fs::symlink_metadata(&path).is_err() => {
                    Some(json!({ "path": named, "exists": false }))
                }
                Some(at) if at.starts_with(&root) => unread("a link to a file that does not exist".into()),
                _ => unread(OUTSIDE.into()),
            };
        }
        Err(e) => return unread(e.to_string()),
    };
    if !real.starts_with(&root) {
        return unread(OUTSIDE.into());
    }
    // A link with an ordinary name to a file with a secret's.
    if crate::domain::risk::looks_secret(&real.to_string_lossy()) {
        return unread("it leads to a file whose name says it may hold secrets: the hook does not read such files".into());
    }
    // What is checked (kind, mode, size) is the file opened, then read.
    let file = match std::fs::File::open(&real) {
        Ok(f) => f,
        Err(e) => return unread(e.to_string()),
    };
    let meta = match file.metadata() {
        Ok(m) => m,
        Err(e) => return unread(e.to_string()),
    };
    if !meta.is_file() {
        return unread("not a regular file".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o044 == 0 {
            return unread(format!("only its owner may read it (mode {mode:o}): the hook does not read private files"));
        }
    }
    if meta.len() > MAX_FILE {
        return unread(format!("{} bytes, more than the hook sends ({MAX_FILE})", meta.len()));
    }
    let mut bytes = Vec::new();
    if let Err(e) = file.take(MAX_FILE + 1).read_to_end(&mut bytes) {
        return unread(e.to_string());
    }
    if bytes.len() as u64 > MAX_FILE {
        return unread(format!("more than the hook sends ({MAX_FILE} bytes)"));
    }
    match String::from_utf8(bytes) {
        Ok(text) if Value::String(text.clone()).to_string().len() > MAX_FILE_JSON => {
            unread(format!("its text as JSON is more than the hook sends ({MAX_FILE_JSON} bytes)"))
        }
        Ok(text) => Some(json!({ "path": named, "exists": true, "text": text })),
        Err(_) => unread("not UTF-8 text".into()),
    }
}

/// Where `path`, which does not exist, would be: its nearest existing directory resolved, and the
/// names below it as given — `None` when a name on the way is `..` or a directory cannot be resolved.
fn would_be(path: &Path) -> Option<PathBuf> {
    let mut base = path;
    let mut rest = Vec::new();
    loop {
        rest.push(base.file_name()?);
        base = base.parent()?;
        match std::fs::canonicalize(base) {
            Ok(mut at) => {
                // Names only: a path that ends in `..` has no file name, and is `None` above.
                at.push(rest.iter().rev().collect::<PathBuf>());
                return Some(at);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return None,
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn write(path: &Path, text: &str, mode: u32) {
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    const AWS: &str = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n";

    #[test]
    fn an_edit_sends_its_file_as_on_disk_or_why_not_and_other_tools_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_str().unwrap();
        write(&dir.path().join("pay.py"), "limit = 100\n", 0o644);
        let read = file_on_disk(CallSource::ClaudeCode, "Edit", &json!({ "file_path": "pay.py" }), Some(cwd)).unwrap();
        assert_eq!(read, json!({ "path": "pay.py", "exists": true, "text": "limit = 100\n" }));
        let absent = file_on_disk(CallSource::ClaudeCode, "Write", &json!({ "file_path": format!("{cwd}/new.md") }), Some(cwd)).unwrap();
        assert_eq!(absent, json!({ "path": format!("{cwd}/new.md"), "exists": false }));
        let deeper = file_on_disk(CallSource::ClaudeCode, "Write", &json!({ "file_path": "docs/new/x.md" }), Some(cwd)).unwrap();
        assert_eq!(deeper, json!({ "path": "docs/new/x.md", "exists": false }));
        write(&dir.path().join("bin"), "", 0o644);
        std::fs::write(dir.path().join("bin"), [0xff, 0xfe, 0]).unwrap();
        assert_eq!(
            file_on_disk(CallSource::ClaudeCode, "Edit", &json!({ "file_path": "bin" }), Some(cwd)).unwrap()["unread"],
            "not UTF-8 text"
        );
        write(&dir.path().join("big"), &"a".repeat(MAX_FILE as usize + 1), 0o644);
        let big = file_on_disk(CallSource::ClaudeCode, "Write", &json!({ "file_path": "big" }), Some(cwd)).unwrap();
        assert!(big["unread"].as_str().unwrap().contains("more than"), "{big}");
        assert_eq!(big.get("text"), None);
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        assert_eq!(
            file_on_disk(CallSource::ClaudeCode, "Edit", &json!({ "file_path": "sub" }), Some(cwd)).unwrap()["unread"],
            "not a regular file"
        );
        assert_eq!(file_on_disk(CallSource::ClaudeCode, "Bash", &json!({ "command": "ls" }), Some(cwd)), None);
        // Gemini CLI's edit reads the file as Claude Code's does; the same name from Claude Code reads nothing.
        let gemini = file_on_disk(CallSource::Gemini, "replace", &json!({ "file_path": "pay.py" }), Some(cwd)).unwrap();
        assert_eq!(gemini, json!({ "path": "pay.py", "exists": true, "text": "limit = 100\n" }));
        assert_eq!(file_on_disk(CallSource::ClaudeCode, "replace", &json!({ "file_path": "pay.py" }), Some(cwd)), None);
    }

    #[test]
    fn an_owner_only_env_file_holding_a_key_is_not_read_by_its_name_nor_by_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_str().unwrap();
        write(&dir.path().join(".env"), AWS, 0o600);
        let env = file_on_disk(CallSource::ClaudeCode, "Edit", &json!({ "file_path": ".env" }), Some(cwd)).unwrap();
        assert_eq!(env.get("text"), None, "{env}");
        // Known by its name alone, before anything on disk is looked at.
        assert!(env["unread"].as_str().unwrap().starts_with("its name says it may hold secrets"), "{env}");
        assert!(!env.to_string().contains("wJalrXUtnFEMI"));
        // The mode alone: an ordinary name, readable by its owner only.
        write(&dir.path().join("settings.ini"), AWS, 0o600);
        let private = file_on_disk(CallSource::ClaudeCode, "Edit", &json!({ "file_path": "settings.ini" }), Some(cwd)).unwrap();
        assert_eq!(private.get("text"), None, "{private}");
        assert!(private["unread"].as_str().unwrap().contains("only its owner may read it (mode 600)"), "{private}");
        // The name alone: a key file others may read.
        write(&dir.path().join("deploy.pem"), "-----BEGIN PRIVATE KEY-----\n", 0o644);
        assert_eq!(
            file_on_disk(CallSource::ClaudeCode, "Write", &json!({ "file_path": "deploy.pem" }), Some(cwd)).unwrap().get("text"),
            None
        );
        // A link with an ordinary name to it.
        write(&dir.path().join(".env.local"), AWS, 0o644);
        std::os::unix::fs::symlink(dir.path().join(".env.local"), dir.path().join("config.txt")).unwrap();
        let linked = file_on_disk(CallSource::ClaudeCode, "Edit", &json!({ "file_path": "config.txt" }), Some(cwd)).unwrap();
        assert_eq!(linked.get("text"), None, "{linked}");
        assert!(linked["unread"].as_str().unwrap().contains("leads to a file"), "{linked}");
    }

    #[test]
    fn a_file_outside_the_working_directory_is_not_read_however_it_is_reached() {
        let outside = tempfile::tempdir().unwrap();
        write(&outside.path().join("notes.txt"), "elsewhere\n", 0o644);
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_str().unwrap();
        let not_read = |path: String| {
            let sent = file_on_disk(CallSource::ClaudeCode, "Edit", &json!({ "file_path": path }), Some(cwd)).unwrap();
            assert_eq!(sent.get("text"), None, "{path}: {sent}");
            assert_eq!(sent["unread"], OUTSIDE, "{path}: {sent}");
        };
        not_read(outside.path().join("notes.txt").to_str().unwrap().to_owned());
        // `..` out of it, lexically and through a directory that does not exist.
        let name = outside.path().file_name().unwrap().to_str().unwrap();
        not_read(format!("../{name}/notes.txt"));
        not_read(format!("nowhere/../../{name}/notes.txt"));
        // A link inside it to a file, or a directory, outside.
        std::os::unix::fs::symlink(outside.path().join("notes.txt"), dir.path().join("notes.txt")).unwrap();
        not_read("notes.txt".into());
        std::os::unix::fs::symlink(outside.path(), dir.path().join("shared")).unwrap();
        not_read("shared/notes.txt".into());
        not_read("shared/new.txt".into());
        // No working directory: nothing is read.
        let none = file_on_disk(CallSource::ClaudeCode, "Edit", &json!({ "file_path": outside.path().join("notes.txt") }), None).unwrap();
        assert_eq!(none.get("text"), None, "{none}");
        // A link inside it to a file inside it is read.
        write(&dir.path().join("real.md"), "here\n", 0o644);
        std::os::unix::fs::symlink(dir.path().join("real.md"), dir.path().join("alias.md")).unwrap();
        assert_eq!(file_on_disk(CallSource::ClaudeCode, "Edit", &json!({ "file_path": "alias.md" }), Some(cwd)).unwrap()["text"], "here\n");
    }
}
