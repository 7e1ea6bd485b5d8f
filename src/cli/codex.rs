//! `approval-console codex [-- CODEX_ARGS…]`: starts `codex app-server`, then bridges its client's
//! stdin/stdout and the server's ([`approval_console::connector::codex_app::bridge`]) until the
//! server's output ends; exits as the server did. Stdout is the JSON-RPC channel: everything else
//! goes to stderr.

use anyhow::{Context, Result};
use approval_console::connector::{self, codex_app, ConsoleClient};
use std::path::Path;
use std::process::{ExitCode, Stdio};
use std::time::Duration;

/// What `codex` was given on its command line.
pub struct CodexArgs<'a> {
    /// `--url`, `APPROVAL_CONSOLE_URL`; else the serving console ([`connector::console_url`]).
    pub url: Option<&'a str>,
    /// `--data-dir`, `APPROVAL_CONSOLE_DATA_DIR`: the serving console looked for is that directory's.
    pub data_dir: Option<&'a Path>,
    pub timeout: u64,
    /// The pinned receipt keys' file (`--jwks`, `APPROVAL_CONSOLE_JWKS`).
    pub jwks: Option<&'a Path>,
    /// The Codex program.
    pub program: &'a Path,
    /// More arguments for `codex app-server`.
    pub args: &'a [String],
}

pub async fn run(given: CodexArgs<'_>) -> Result<ExitCode> {
    let CodexArgs { url, data_dir, timeout, jwks, program, args } = given;
    // Read, then wiped from this process's environment, before Codex starts: the commands Codex
    // runs must not find the agent credential. Without a console every approval is declined.
    let found = connector::console_url(url, data_dir);
    let console = found.clone().and(ConsoleClient::from_env_hidden(found.as_deref().unwrap_or(connector::DEFAULT_URL), jwks));
    if let Err(e) = &console {
        tracing::warn!("every approval Codex asks for will be declined: {e}");
    }
    let mut command = tokio::process::Command::new(program);
    command.arg("app-server").args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).kill_on_drop(true);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("APPROVAL_CONSOLE_") {
            command.env_remove(name);
        }
    }
    let mut server = command.spawn().with_context(|| format!("starting `{} app-server`", program.display()))?;
    let (server_in, server_out) = (server.stdin.take().context("the app-server's stdin")?, server.stdout.take().context("its stdout")?);
    codex_app::bridge(console, Duration::from_secs(timeout), tokio::io::stdin(), tokio::io::stdout(), server_in, server_out)
        .await
        .context("passing the app-server's messages")?;
    let status = server.wait().await.context("waiting for the app-server")?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::from(1),
    })
}
