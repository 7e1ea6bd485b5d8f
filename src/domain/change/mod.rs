//! What a file-editing call would change (issue 27): a unified diff per file and one line a row can
//! show ("edits 3 lines in src/pay.py"). Claude Code's `Edit`, `MultiEdit` and `Write` and Gemini
//! CLI's `replace` and `write_file` — against the file as the hook read it on disk when it did
//! ([`Disk`]), else from the call's own text — and Codex's `apply_patch` ([`patch`]). Pure: no I/O; the text shown is the call's (and the file's),
//! never interpreted: the UI marks its hidden characters like any other text.

mod patch;

use super::CallSource;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

/// The most characters of one file's diff kept; the rest is cut, and says so.
pub const MAX_DIFF: usize = 64 * 1024;
/// The most files of one call shown.
pub const MAX_FILES: usize = 50;
/// Lines of unchanged context around each change.
const CONTEXT: usize = 3;

/// What a call would change, file by file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Changes {
    /// One line for a row: "edits 3 lines in src/pay.py", "creates notes.md (12 lines)",
    /// "edits 3 files (+12 −4)".
    pub summary: String,
    pub files: Vec<FileChange>,
    /// More files than [`MAX_FILES`]: the rest are not listed.
    pub more_files: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum FileAction {
    /// Changes part of an existing file.
    Edit,
    /// Writes a file that does not exist.
    Create,
    /// Writes a whole file over what it held (or over what was not read).
    Write,
    Delete,
}

/// One file's change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileChange {
    /// As the call names it (relative to the working directory when it is under it).
    pub path: String,
    /// Where a patch moves it to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<String>,
    pub action: FileAction,
    /// Unified diff hunks: `@@ -a,b +c,d @@` headers, then lines starting with ' ', '-' or '+'.
    pub diff: String,
    pub added: u32,
    pub removed: u32,
    /// Compared with the file as read on disk (its line numbers are the file's); false: from the
    /// call's own text only (line numbers count from the edit).
    pub against_disk: bool,
    /// The diff was longer than [`MAX_DIFF`] and is cut.
    pub cut: bool,
    /// What the comparison found wrong ("old_string is not in the file as read: the edit would fail").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The file a call writes, as its hook read it before asking (`context.file` of a submitted call).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Disk {
    pub path: String,
    /// Its text; absent when it does not exist or could not be read (`unread` says why).
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub exists: bool,
    #[serde(default)]
    pub unread: Option<String>,
    /// Its size in bytes and `sha256:` hash, as the console computed them from the text it received
    /// ([`crate::domain::context::seal`]); they stay when the text is no longer kept.
    #[serde(default)]
    pub size: Option<u64>,
    #[serde(default)]
    pub sha256: Option<String>,
}

/// The shapes of file-writing calls this module reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// `{file_path, old_string, new_string}` and the key that makes it replace every occurrence.
    Edit { all: &'static str },
    /// `{file_path, edits: [{old_string, new_string, replace_all}]}`.
    MultiEdit,
    /// `{file_path, content}`: the whole file.
    Write,
}

/// How `source` names its file-writing tools: Claude Code's names from any source (as before the
/// sources were told apart), Gemini CLI's only from Gemini CLI — `replace` and `write_file` are
/// common names another agent's tools may give other meanings.
fn shape(source: CallSource, tool: &str) -> Option<Shape> {
    match (source, tool) {
        (_, "Edit") => Some(Shape::Edit { all: "replace_all" }),
        (_, "MultiEdit") => Some(Shape::MultiEdit),
        (_, "Write") => Some(Shape::Write),
        (CallSource::Gemini, "replace") => Some(Shape::Edit { all: "allow_multiple" }),
        (CallSource::Gemini, "write_file") => Some(Shape::Write),
        _ => None,
    }
}

/// Whether `tool` of `source` writes the one file its `file_path` names (what a hook reads from
/// disk for [`of_call`] to compare with).
pub fn writes_named_file(source: CallSource, tool: &str) -> bool {
    shape(source, tool).is_some()
}

/// What `tool` of `source` with `args` would change; `None` for a call that edits no file. `disk`:
/// the file as its hook read it; `cwd`: the working directory (paths under it are shown relative).
pub fn of_call(source: CallSource, tool: &str, args: &Value, disk: Option<&Disk>, cwd: Option<&str>) -> Option<Changes> {
    let text = |k: &str| args.get(k).and_then(Value::as_str);
    let files = match shape(source, tool) {
        Some(Shape::Edit { all }) => vec![edit(text("file_path")?, &[one_edit(args, all)?], disk)],
        Some(Shape::MultiEdit) => {
            let edits: Vec<Replace> = args.get("edits")?.as_array()?.iter().map(|e| one_edit(e, "replace_all")).collect::<Option<_>>()?;
            vec![edit(text("file_path")?, &edits, disk)]
        }
        Some(Shape::Write) => vec![write(text("file_path")?, text("content")?, disk)],
        None => patch::of_args(args)?,
    };
    Some(changes(files, cwd))
}

/// One `old_string` → `new_string` replacement.
struct Replace<'a> {
    old: &'a str,
    new: &'a str,
    all: bool,
}

/// One replacement; `all_key` names the flag that makes it replace every occurrence.
fn one_edit<'a>(v: &'a Value, all_key: &str) -> Option<Replace<'a>> {
    Some(Replace {
        old: v.get("old_string")?.as_str()?,
        new: v.get("new_string")?.as_str()?,
        all: v.get(all_key).and_then(Value::as_bool).unwrap_or(false),
    })
}

/// `edits` applied to the file as read, in order, as Claude Code would: each `old_string` must be
/// there, once unless it replaces all. Otherwise (or unread) each edit's own text, and why.
fn edit(path: &str, edits: &[Replace<'_>], disk: Option<&Disk>) -> FileChange {
    let on_disk = disk.filter(|d| d.path == path || d.path.ends_with(&format!("/{path}")));
    let read = on_disk.and_then(|d| d.text.as_deref());
    let mut note = None;
    if let Some(before) = read {
        match apply(before, edits) {
            Ok(after) => return file(path, FileAction::Edit, before, &after, true, None),
            Err(why) => note = Some(why),
        }
    } else if let Some(d) = on_disk {
        note = Some(if d.exists || d.unread.is_some() { unread(d) } else { "the file does not exist: the edit would fail".to_owned() });
    }
    let mut out = FileChange { note, ..file(path, FileAction::Edit, "", "", false, None) };
    for e in edits {
        let one = file(path, FileAction::Edit, e.old, e.new, false, None);
        out.diff.push_str(&one.diff);
        out.added += one.added;
        out.removed += one.removed;
    }
    cut(&mut out);
    out
}

/// Why the file's text is not there: the hook's reason for not reading it, or (read, hashed, then
/// let go once the call left the queue) that it is no longer kept.
fn unread(d: &Disk) -> String {
    match (&d.unread, &d.sha256) {
        (Some(why), _) => format!("the file was not read ({why}): shown from the call's own text"),
        (None, Some(_)) => "the file's text as read is no longer kept (the call left the queue): shown from the call's own text".into(),
        (None, None) => "the file was not read (no reason given): shown from the call's own text".into(),
    }
}

fn apply(before: &str, edits: &[Replace<'_>]) -> Result<String, String> {
    let mut text = before.to_owned();
    for (i, e) in edits.iter().enumerate() {
        let which = if edits.len() > 1 { format!("edit {}: ", i + 1) } else { String::new() };
        if e.old.is_empty() {
            return Err(format!("{which}old_string is empty: the edit would fail"));
        }
        let n = text.matches(e.old).count();
        if n == 0 {
            return Err(format!("{which}old_string is not in the file as read: the edit would fail"));
        }
        if n > 1 && !e.all {
            return Err(format!("{which}old_string is in the file {n} times and replace_all is not set: the edit would fail"));
        }
        text = if e.all { text.replace(e.old, e.new) } else { text.replacen(e.old, e.new, 1) };
    }
    Ok(text)
}

fn write(path: &str, content: &str, disk: Option<&Disk>) -> FileChange {
    match disk.filter(|d| d.path == path || d.path.ends_with(&format!("/{path}"))) {
        Some(Disk { text: Some(before), .. }) => file(path, FileAction::Write, before, content, true, None),
        Some(d) if !d.exists && d.unread.is_none() => file(path, FileAction::Create, "", content, true, None),
        Some(d) => file(path, FileAction::Write, "", content, false, Some(unread(d))),
        None => {
            file(path, FileAction::Write, "", content, false, Some("the file on disk was not read: its whole new text is shown".into()))
        }
    }
}

/// The diff of `before` → `after`.
fn file(path: &str, action: FileAction, before: &str, after: &str, against_disk: bool, note: Option<String>) -> FileChange {
    // A bound on the work (a page of items is diffed on each read): past it the diff is still
    // correct, only less minimal.
    let diff = TextDiff::configure().timeout(std::time::Duration::from_millis(100)).diff_lines(before, after);
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    let mut text = String::new();
    for hunk in diff.unified_diff().context_radius(CONTEXT).iter_hunks() {
        text.push_str(&hunk.to_string());
    }
    let mut out = FileChange { path: path.to_owned(), moved_to: None, action, diff: text, added, removed, against_disk, cut: false, note };
    cut(&mut out);
    out
}

fn cut(f: &mut FileChange) {
    if f.diff.len() > MAX_DIFF {
        let mut end = MAX_DIFF;
        while !f.diff.is_char_boundary(end) {
            end -= 1;
        }
        // Whole lines only.
        end = f.diff[..end].rfind('\n').map_or(end, |i| i + 1);
        f.diff.truncate(end);
        f.cut = true;
    }
}

fn changes(mut files: Vec<FileChange>, cwd: Option<&str>) -> Changes {
    let more_files = files.len() > MAX_FILES;
    files.truncate(MAX_FILES);
    for f in &mut files {
        f.path = shown_path(&f.path, cwd);
        f.moved_to = f.moved_to.as_deref().map(|p| shown_path(p, cwd));
    }
    Changes { summary: summary(&files, more_files), files, more_files }
}

/// `path` relative to `cwd` when it is under it.
fn shown_path(path: &str, cwd: Option<&str>) -> String {
    cwd.map(|c| c.trim_end_matches('/'))
        .filter(|c| !c.is_empty())
        .and_then(|c| path.strip_prefix(c)?.strip_prefix('/'))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(path)
        .to_owned()
}

fn lines(n: u32) -> String {
    if n == 1 {
        "1 line".into()
    } else {
        format!("{n} lines")
    }
}

fn summary(files: &[FileChange], more: bool) -> String {
    match files {
        [] => "changes no file".into(),
        [f] if !more => {
            let p = &f.path;
            match (f.action, f.added, f.removed) {
                (FileAction::Delete, ..) => format!("deletes {p}"),
                (FileAction::Create, a, _) => format!("creates {p} ({})", lines(a)),
                (_, 0, 0) => match &f.moved_to {
                    Some(to) => format!("moves {p} to {to}"),
                    None => format!("changes nothing in {p}"),
                },
                (FileAction::Write, a, r) if !f.against_disk => format!("writes {p} ({}, not compared with the file)", lines(a.max(r))),
                (_, a, 0) => format!("adds {} to {p}", lines(a)),
                (_, 0, r) => format!("removes {} from {p}", lines(r)),
                (_, a, r) => format!("edits {} in {p}", lines(a.max(r))),
            }
        }
        _ => {
            let (a, r) = files.iter().fold((0, 0), |(a, r), f| (a + f.added, r + f.removed));
            let n = if more { format!("more than {}", files.len()) } else { files.len().to_string() };
            format!("edits {n} files (+{a} −{r})")
        }
    }
}

#[cfg(test)]
mod tests;
