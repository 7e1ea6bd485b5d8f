//! `approval-console hooks install claude-code|codex|gemini`: merges the hook entry
//! ([`approval_console::hook::install`]) into the agent's settings file, or prints the result.

use super::args::{HookEventArg, HookTarget};
use anyhow::{bail, Context, Result};
use approval_console::app::serving;
use approval_console::connector;
use approval_console::hook::install::{self, HookSpec};
use approval_console::hook::Agent;
use std::path::{Path, PathBuf};

/// What `hooks install` was given.
pub struct Given<'a> {
    pub settings: Option<PathBuf>,
    pub print: bool,
    pub timeout: u64,
    /// `--url`, `APPROVAL_CONSOLE_URL`.
    pub url: Option<&'a str>,
    /// `--event`: the event the hook goes under (Claude Code, Codex).
    pub event: Option<HookEventArg>,
}

/// Merges the hook into the agent's settings (or prints them). The hook's command names the
/// console (`--url`) when it was given, or when the console serving now (found as every CLI command
/// finds it; `data_dir` names one) is not at the default address.
pub fn install(target: HookTarget, given: Given<'_>, data_dir: Option<&Path>) -> Result<()> {
    let Given { settings, print, timeout, url, event } = given;
    let agent = match target {
        HookTarget::ClaudeCode => Agent::ClaudeCode,
        HookTarget::Codex => Agent::Codex,
        HookTarget::Gemini => Agent::Gemini,
    };
    let event = match (agent, event) {
        (Agent::Gemini, Some(_)) => bail!("Gemini CLI's hook has one event, BeforeTool: leave out --event"),
        (_, event) => event.map(|e| match e {
            HookEventArg::PreToolUse => install::HookEvent::PreToolUse,
            HookEventArg::PermissionRequest => install::HookEvent::PermissionRequest,
        }),
    };
    let file = match settings {
        Some(f) => f,
        None => install::default_file(agent).context("HOME is not set: name the settings file with --settings")?,
    };
    // The running binary, resolved (a symbolic link on PATH names the file it points to).
    let program = std::env::current_exe().context("finding the path of this binary")?;
    let url = match url {
        Some(url) => Some(url.trim().to_owned()),
        None => serving::find(data_dir)
            .context("the hook would not know which console to ask: name it with --url (or --data-dir)")?
            .map(|s| s.url),
    };
    let url = url.filter(|u| u.trim_end_matches('/') != connector::DEFAULT_URL);
    let spec = HookSpec { program, timeout, url, event };
    let existing = match std::fs::read_to_string(&file) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("reading {}", file.display())),
    };
    let merged = install::merge(agent, existing.as_deref(), &spec)
        .with_context(|| format!("{}: not changed, fix it or name another file with --settings", file.display()))?;
    if print {
        print!("{merged}");
        return Ok(());
    }
    let name = match agent {
        Agent::ClaudeCode => "Claude Code",
        Agent::Codex => "Codex",
        Agent::Gemini => "Gemini CLI",
    };
    if existing.as_deref() == Some(merged.as_str()) {
        println!("{}: the {name} hook is already installed as it should be; nothing changed.", file.display());
    } else {
        let backup = existing.is_some().then(|| backup_of(&file)).transpose()?;
        write(&file, &merged)?;
        match backup {
            Some(b) => println!("{}: the {name} hook is installed (the file as it was: {}).", file.display(), b.display()),
            None => println!("{}: the {name} hook is installed.", file.display()),
        }
    }
    println!("It runs {} and reads the agent credential from APPROVAL_CONSOLE_AGENT_TOKEN.", spec.program.display());
    match &spec.url {
        Some(url) => println!("It asks the console at {url} (--url in the hook's command; install again if the console moves)."),
        None => println!("It asks the console serving when it runs (found as the CLI finds it), else {}.", connector::DEFAULT_URL),
    }
    if agent == Agent::Codex {
        println!("Codex asks you to trust a new or changed hook once. A Codex hook that runs past its timeout lets the call run (see the README).");
    }
    if agent == Agent::Gemini {
        println!("Gemini CLI runs its own confirmation after the hook allows: with --approval-mode yolo the console alone decides. A Gemini hook that runs past its timeout lets the call run (see the README).");
    }
    Ok(())
}

/// Copies `file` to the first free `FILE.bak.N`; its path.
fn backup_of(file: &Path) -> Result<PathBuf> {
    for n in 1..1000 {
        let backup = PathBuf::from(format!("{}.bak.{n}", file.display()));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&backup) {
            Ok(_) => {
                std::fs::copy(file, &backup).with_context(|| format!("keeping {} as {}", file.display(), backup.display()))?;
                return Ok(backup);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("keeping {} as {}", file.display(), backup.display())),
        }
    }
    bail!("{}.bak.1 … .bak.999 all exist: remove some", file.display())
}

/// Writes `text` to `file` whole or not at all (a temporary file beside it, renamed), with the
/// permissions the file had.
fn write(file: &Path, text: &str) -> Result<()> {
    let dir = file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("making {}", dir.display()))?;
    let name = file.file_name().context("the settings file has no name")?.to_string_lossy();
    let temp = dir.join(format!(".{name}.approval-console.tmp"));
    std::fs::write(&temp, text).with_context(|| format!("writing {}", temp.display()))?;
    if let Ok(meta) = std::fs::metadata(file) {
        std::fs::set_permissions(&temp, meta.permissions()).with_context(|| format!("setting the mode of {}", temp.display()))?;
    }
    std::fs::rename(&temp, file).with_context(|| format!("replacing {}", file.display()))
}
