//! Codex's `apply_patch` format, read into [`FileChange`]s:
//!
//! ```text
//! *** Begin Patch
//! *** Add File: path        (then its lines, each starting with '+')
//! *** Delete File: path
//! *** Update File: path
//! *** Move to: new/path     (optional, right after Update)
//! @@ optional context       (then lines starting with ' ', '-' or '+')
//! *** End of File           (optional)
//! *** End Patch
//! ```
//!
//! It arrives as Codex's exec argv (`["apply_patch", "<patch>"]` in `command`) or as a tool's
//! `input` / `patch` text. A line this format does not know is kept as context, never dropped: the
//! operator sees everything the patch holds.

use super::{cut, FileAction, FileChange};
use serde_json::Value;

const BEGIN: &str = "*** Begin Patch";

/// The patch `args` carry, read; `None` when they carry none.
pub(super) fn of_args(args: &Value) -> Option<Vec<FileChange>> {
    let text = ["command", "input", "patch"].iter().find_map(|k| match args.get(*k) {
        Some(Value::String(s)) if s.trim_start().starts_with(BEGIN) => Some(s.as_str()),
        Some(Value::Array(argv)) => {
            let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            let named = words.first().is_some_and(|w| w.rsplit('/').next() == Some("apply_patch"));
            words.iter().skip(1).find(|w| named && w.trim_start().starts_with(BEGIN)).copied()
        }
        _ => None,
    })?;
    Some(read(text))
}

fn read(text: &str) -> Vec<FileChange> {
    let mut files: Vec<FileChange> = Vec::new();
    let new = |path: &str, action| FileChange {
        path: path.trim().to_owned(),
        moved_to: None,
        action,
        diff: String::new(),
        added: 0,
        removed: 0,
        against_disk: false,
        cut: false,
        note: None,
    };
    for line in text.lines() {
        if line.starts_with(BEGIN) || line.starts_with("*** End Patch") || line.starts_with("*** End of File") {
            continue;
        }
        if let Some(p) = line.strip_prefix("*** Add File: ") {
            files.push(new(p, FileAction::Create));
            continue;
        }
        if let Some(p) = line.strip_prefix("*** Delete File: ") {
            files.push(new(p, FileAction::Delete));
            continue;
        }
        if let Some(p) = line.strip_prefix("*** Update File: ") {
            files.push(new(p, FileAction::Edit));
            continue;
        }
        let Some(f) = files.last_mut() else { continue };
        if let Some(p) = line.strip_prefix("*** Move to: ") {
            f.moved_to = Some(p.trim().to_owned());
            continue;
        }
        if let Some(ctx) = line.strip_prefix("@@") {
            let ctx = ctx.trim();
            f.diff.push_str(&if ctx.is_empty() { "@@\n".to_owned() } else { format!("@@ {ctx}\n") });
            continue;
        }
        if f.action == FileAction::Create {
            // Every line of a new file is added, with its '+' or without.
            f.added += 1;
            f.diff.push('+');
            f.diff.push_str(line.strip_prefix('+').unwrap_or(line));
            f.diff.push('\n');
            continue;
        }
        match line.chars().next() {
            Some('+') => f.added += 1,
            Some('-') => f.removed += 1,
            _ => {}
        }
        if line.is_empty() || line.starts_with(['+', '-', ' ']) {
            f.diff.push_str(line);
        } else {
            // Not this format: shown as context, whole.
            f.diff.push(' ');
            f.diff.push_str(line);
        }
        f.diff.push('\n');
    }
    for f in &mut files {
        cut(f);
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_patch_is_read_file_by_file_from_codex_argv_or_an_input() {
        let patch = "*** Begin Patch\n*** Update File: src/pay.py\n*** Move to: src/payment.py\n@@ def transfer(amount):\n-    limit = 100\n+    limit = 10_000\n     return limit\n*** Add File: notes.md\n+hello\n+world\n*** Delete File: old.txt\n*** End Patch\n";
        let files = of_args(&json!({ "command": ["apply_patch", patch] })).unwrap();
        assert_eq!(files.len(), 3);
        let (up, add, del) = (&files[0], &files[1], &files[2]);
        assert_eq!((up.path.as_str(), up.moved_to.as_deref(), up.action), ("src/pay.py", Some("src/payment.py"), FileAction::Edit));
        assert_eq!(up.diff, "@@ def transfer(amount):\n-    limit = 100\n+    limit = 10_000\n     return limit\n");
        assert_eq!((up.added, up.removed), (1, 1));
        assert_eq!((add.action, add.added, add.diff.as_str()), (FileAction::Create, 2, "+hello\n+world\n"));
        assert_eq!((del.action, del.path.as_str()), (FileAction::Delete, "old.txt"));
        assert_eq!(of_args(&json!({ "input": patch })).unwrap(), files);
        // Not a patch, or not apply_patch's argv: nothing.
        assert_eq!(of_args(&json!({ "command": ["bash", "-lc", patch] })), None);
        assert_eq!(of_args(&json!({ "command": "ls" })), None);
    }

    #[test]
    fn lines_the_format_does_not_know_are_kept_as_context() {
        let files = read("*** Begin Patch\n*** Update File: a\n@@\nstray text\n-x\n+y\n*** End Patch");
        assert_eq!(files[0].diff, "@@\n stray text\n-x\n+y\n");
    }
}
