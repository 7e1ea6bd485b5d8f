//! `approval-console acp -- AGENT_COMMAND…`: starts the ACP agent, then relays between the editor
//! (stdin, stdout) and the agent ([`approval_console::connector::acp::relay`]) until the agent's
//! output ends; exits with the agent's exit code. Stdout is the ACP channel: everything else goes
//! to stderr (as the agent's own stderr does).

use anyhow::{Context, Result};
use approval_console::connector::acp::{self, Options};
use approval_console::connector::{self, ConsoleClient};
use std::process::{ExitCode, Stdio};
use std::time::Duration;

/// How long the agent may take to end once its output has ended, before it is killed.
const AGENT_EXIT: Duration = Duration::from_secs(5);

/// What `acp` was given on its command line.
pub struct AcpArgs<'a> {
    /// `--url`, `APPROVAL_CONSOLE_URL`; else the serving console ([`connector::console_url`]).
    pub url: Option<&'a str>,
    /// `--data-dir`, `APPROVAL_CONSOLE_DATA_DIR`: the serving console looked for is that directory's.
    pub data_dir: Option<&'a std::path::Path>,
    pub timeout: u64,
    pub agent: Option<&'a str>,
    /// The pinned receipt keys' file (`--jwks`, `APPROVAL_CONSOLE_JWKS`).
    pub jwks: Option<&'a std::path::Path>,
    pub editor_decides_too: bool,
    pub command: &'a [String],
}

/// Runs the relay; never returns but with an error before the agent started.
pub async fn run(given: AcpArgs<'_>) -> Result<ExitCode> {
    let (program, args) = given.command.split_first().context("name the ACP agent's command after `--`")?;
    // Read (and wiped from this process's environment) before the agent starts: the agent, or
    // anything it runs, must not find the credential in /proc/<pid>/environ of the relay.
    let found = connector::console_url(given.url, given.data_dir);
    let console = found.clone().and(ConsoleClient::from_env_hidden(found.as_deref().unwrap_or(connector::DEFAULT_URL), given.jwks));
    if let Err(e) = &console {
        tracing::warn!(
            "every permission request will be rejected{}: {e}",
            if given.editor_decides_too { " or left to the editor" } else { "" }
        );
    }
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .env_clear()
        .envs(std::env::vars().filter(|(k, _)| !k.starts_with("APPROVAL_CONSOLE_")))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("starting the ACP agent {program:?}"))?;
    let agent = given.agent.map(str::to_owned).unwrap_or_else(|| {
        let base = std::path::Path::new(program).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // `npx -y @zed-industries/claude-code-acp` names its package, not npx.
        args.iter().find(|a| !a.starts_with('-')).filter(|_| base == "npx").cloned().unwrap_or(base)
    });
    let options = Options {
        console,
        agent,
        command: given.command.join(" "),
        timeout: Duration::from_secs(given.timeout),
        editor_decides_too: given.editor_decides_too,
    };
    let (agent_in, agent_out) = (child.stdin.take().expect("piped"), child.stdout.take().expect("piped"));
    acp::relay(options, tokio::io::stdin(), tokio::io::stdout(), agent_in, agent_out).await.context("relaying ACP")?;
    let status = match tokio::time::timeout(AGENT_EXIT, child.wait()).await {
        Ok(status) => status.context("waiting for the ACP agent")?,
        Err(_) => {
            child.kill().await.context("stopping the ACP agent")?;
            child.wait().await.context("waiting for the ACP agent")?
        }
    };
    // The editor's stdin may still be open, read on a thread the runtime would wait for at the end;
    // everything for the editor is written and flushed (the relay's writer ended), so end here.
    std::process::exit(status.code().map_or(1, |c| c.clamp(0, 255)))
}
