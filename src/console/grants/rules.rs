//! Rules a grant wrote back, on revoking it (issue 47): for each, what became of it
//! ([`Removal`]). A session rule stays until the agent's session ends. The console removes a rule
//! from a file itself only where that is safe and the format allows it, after a backup
//! (`<file>.bak`, owner-only), audited (`grant.rule_removed`: file and rule, never contents):
//!
//! - Gemini CLI's `approval-console.toml` (this console's own format): the grant's tagged rules,
//!   only in the file under the console user's own Gemini home ([`AgentHomes`]), never a path an
//!   agent sent;
//! - Claude Code's settings (`permissions.allow`, the exact string, every other key kept): the
//!   console user's `~/.claude/settings.json`, or a project's `<cwd>/.claude/settings.json` when the
//!   recorded cwd is an absolute path without `..`;
//!
//! each only when the file is a regular file (not a link) owned by the console's user and holds
//! that grant's rule. Codex's rules files are left to the operator (which file, which line). A file
//! the grant wrote nothing to is never touched; nothing here fails the revocation.

use super::Console;
use crate::domain::audit::GrantRuleRemoved;
use crate::domain::session_rule::gemini_policy;
use crate::domain::session_rule::written::{self, Removal, RemovalOutcome, WrittenRule};
use crate::domain::session_rule::AgentRule;
use crate::domain::{Error, GrantId};
use std::path::{Component, Path, PathBuf};

/// The homes whose agent files the console may edit: its own user's (`$HOME`), and Gemini CLI's
/// (`$GEMINI_CLI_HOME`, else `$HOME`, as Gemini reads it). Read from the console's environment at
/// start; tests set them ([`crate::app::testing`]).
#[derive(Clone, Debug, Default)]
pub struct AgentHomes {
    pub home: Option<PathBuf>,
    pub gemini: Option<PathBuf>,
}

impl AgentHomes {
    pub fn of_process() -> Self {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = var("HOME");
        Self { gemini: var("GEMINI_CLI_HOME").or_else(|| home.clone()), home }
    }
}

const CLAUDE_FILE: &str = ".claude/settings.json";

/// Which file of the console's machine a recorded rule names, and in which format; or why the
/// console leaves it to the operator.
enum Target {
    Gemini(PathBuf),
    Claude(PathBuf),
}

fn target(rule: &AgentRule, homes: &AgentHomes) -> Result<Target, String> {
    let location = rule.location.as_deref().unwrap_or_default();
    let in_home = |home: &Option<PathBuf>, file: &str| {
        home.as_ref().filter(|h| h.is_absolute()).map(|h| h.join(file)).ok_or_else(|| "the console has no home directory".to_owned())
    };
    match rule.agent.as_str() {
        "gemini" if location == format!("~/{}", gemini_policy::FILE) => Ok(Target::Gemini(in_home(&homes.gemini, gemini_policy::FILE)?)),
        "claude-code" if location == format!("~/{CLAUDE_FILE}") => Ok(Target::Claude(in_home(&homes.home, CLAUDE_FILE)?)),
        "claude-code" => {
            let path = Path::new(location);
            let plain = path.is_absolute() && path.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
            if plain && location.ends_with(&format!("/{CLAUDE_FILE}")) {
                Ok(Target::Claude(path.to_owned()))
            } else {
                Err("its project directory is not a plain absolute path".into())
            }
        }
        "codex" => Err("the console does not edit Codex's rules files: remove the line holding this prefix_rule".into()),
        _ => Err("the console does not edit this agent's files".into()),
    }
}

/// Whether the console may edit `file`: a regular file (not a link) its own user owns.
fn editable(file: &Path) -> Result<std::fs::Metadata, String> {
    let meta = std::fs::symlink_metadata(file).map_err(|e| format!("not found on the console's machine ({e})"))?;
    if !meta.file_type().is_file() {
        return Err("not a regular file (a link or something else): left as it is".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: getuid has no preconditions and cannot fail.
        if meta.uid() != unsafe { libc::getuid() } {
            return Err("owned by another user than the console's: left as it is".into());
        }
    }
    #[cfg(not(unix))]
    return Err("the console edits agents' files on Unix only".into());
    #[allow(unreachable_code)]
    Ok(meta)
}

/// Writes `bytes` to `to` through a new owner-only file beside it, renamed over it (a link at `to`
/// is replaced, never followed); `mode`: the permissions the file gets.
fn replace(to: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    use std::io::Write;
    let dir = to.parent().unwrap_or(Path::new("."));
    let part =
        dir.join(format!(".{}.approval-console-{}", to.file_name().unwrap_or_default().to_string_lossy(), uuid::Uuid::new_v4().simple()));
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, mode);
    let written = open.open(&part).and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()));
    #[cfg(unix)]
    let written = written.and_then(|()| std::fs::set_permissions(&part, std::os::unix::fs::PermissionsExt::from_mode(mode)));
    match written.and_then(|()| std::fs::rename(&part, to)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&part);
            Err(e)
        }
    }
}

/// `file` edited: the text it holds now handed to `edit`, which answers the new text (`None`:
/// nothing of the grant there, the file untouched); a backup `<file>.bak` (owner-only) first.
/// Answers the backup's path.
fn edit_file(file: &Path, edit: impl FnOnce(&str) -> Option<String>) -> Result<Option<PathBuf>, String> {
    let meta = editable(file)?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("unreadable: {e}"))?;
    let Some(new) = edit(&text) else { return Ok(None) };
    let backup = PathBuf::from(format!("{}.bak", file.display()));
    replace(&backup, text.as_bytes(), 0o600).map_err(|e| format!("no backup could be made at {}: {e}", backup.display()))?;
    #[cfg(unix)]
    let mode = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o7777;
    #[cfg(not(unix))]
    let mode = 0o600;
    replace(file, new.as_bytes(), mode).map_err(|e| format!("not written: {e}"))?;
    Ok(Some(backup))
}

fn removal(rule: WrittenRule, outcome: RemovalOutcome, backup: Option<String>, why: Option<String>) -> Removal {
    Removal { rule, outcome, backup, why }
}

impl Console {
    /// What revoking `grant` did about each rule it wrote back (see the module's comment); audits
    /// each removal as `operator`.
    pub(super) async fn remove_written(&self, grant: &GrantId, operator: &str) -> Result<Vec<Removal>, Error> {
        let homes = self.agent_homes();
        let mut out = Vec::new();
        for rule in crate::store::grant_rules::of_grant(&self.db, grant).await? {
            let shown = written::shown(&rule);
            if rule.location.is_none() {
                out.extend(shown.into_iter().map(|w| removal(w, RemovalOutcome::Session, None, None)));
                continue;
            }
            let file = match target(&rule, &homes) {
                Ok(file) => file,
                Err(why) => {
                    out.extend(shown.into_iter().map(|w| removal(w, RemovalOutcome::ByHand, None, Some(why.clone()))));
                    continue;
                }
            };
            for w in shown {
                let (path, done) = match &file {
                    Target::Gemini(path) => (
                        path,
                        edit_file(path, |text| {
                            let (new, n) = gemini_policy::remove(text, grant.as_str());
                            (n > 0).then_some(new)
                        }),
                    ),
                    Target::Claude(path) => (path, edit_file(path, |text| written::without_claude_rule(text, &w.rule))),
                };
                let shown_path = path.display().to_string();
                let gone_already = matches!(file, Target::Gemini(_))
                    && out.iter().any(|r| r.rule.location == w.location && r.outcome == RemovalOutcome::Removed);
                let done = match done {
                    // Gemini's file loses all the grant's rules at once: a later one of it is gone already.
                    Ok(None) if gone_already => {
                        Ok(out.iter().rev().find(|r| r.rule.location == w.location).and_then(|r| r.backup.clone()).map(PathBuf::from))
                    }
                    done => done,
                };
                out.push(match done {
                    Ok(Some(backup)) => {
                        let backup = backup.display().to_string();
                        let details = GrantRuleRemoved {
                            grant_id: grant.as_str(),
                            agent: &w.agent,
                            rule: &w.rule,
                            file: &shown_path,
                            backup: &backup,
                        };
                        self.db
                            .write(async |uow| {
                                uow.audit(operator, None, &details);
                                Ok(())
                            })
                            .await?;
                        removal(w, RemovalOutcome::Removed, Some(backup), None)
                    }
                    Ok(None) => {
                        removal(w, RemovalOutcome::ByHand, None, Some(format!("{shown_path} does not hold it on the console's machine")))
                    }
                    Err(why) => removal(w, RemovalOutcome::ByHand, None, Some(format!("{shown_path}: {why}"))),
                });
            }
        }
        Ok(out)
    }
}
