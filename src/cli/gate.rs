//! `approval-console mcp-gate -- COMMAND…`: starts the upstream MCP server, then serves the gate
//! ([`approval_console::gate::Gate`]) on stdin/stdout until the client goes. Stdout is the MCP
//! channel: everything else goes to stderr.

use anyhow::{Context, Result};
use approval_console::connector::{self, ConsoleClient};
use approval_console::engine::local::mcp::{McpServer, ServerConfig};
use approval_console::gate::{Gate, Policy};
use rmcp::ServiceExt;
use std::process::ExitCode;
use std::time::Duration;

/// What `mcp-gate` was given on its command line.
pub struct GateArgs<'a> {
    pub policy: Policy,
    /// `--url`, `APPROVAL_CONSOLE_URL`; else the serving console ([`connector::console_url`]).
    pub url: Option<&'a str>,
    /// `--data-dir`, `APPROVAL_CONSOLE_DATA_DIR`: the serving console looked for is that directory's.
    pub data_dir: Option<&'a std::path::Path>,
    pub timeout: u64,
    /// `--hold`: seconds a 2026-07-28 client's call is held before `input_required`.
    pub hold: u64,
    pub agent: Option<&'a str>,
    pub upstream: &'a [String],
    /// The pinned receipt keys' file (`--jwks`, `APPROVAL_CONSOLE_JWKS`).
    pub jwks: Option<&'a std::path::Path>,
}

pub async fn run(given: GateArgs<'_>) -> Result<ExitCode> {
    let GateArgs { policy, url, data_dir, timeout, hold, agent, upstream, jwks } = given;
    let (command, args) = upstream.split_first().context("name the upstream MCP server after `--`")?;
    // Read (and wiped from this process's environment) before the upstream starts: the upstream, or
    // anything it runs, must not find the credential in /proc/<pid>/environ of the gate.
    // The credential is wiped even when no console is found, and then every call fails.
    let found = connector::console_url(url, data_dir);
    let console = found.clone().and(ConsoleClient::from_env_hidden(found.as_deref().unwrap_or(connector::DEFAULT_URL), jwks));
    if let Err(e) = &console {
        tracing::warn!("every call that needs an approval will fail: {e}");
    }
    let mut config = ServerConfig::new("upstream", command.clone(), args.iter().cloned());
    // The upstream gets the gate's environment (its keys and settings), but nothing of the console's.
    config.env = std::env::vars().filter(|(k, _)| !k.starts_with("APPROVAL_CONSOLE_")).collect();
    // The upstream's own questions are asked in the console (`gate::questions`).
    config.answers_forms = true;
    let shown = upstream.join(" ");
    let (server, tools) =
        McpServer::start("mcp-gate", config).await.map_err(anyhow::Error::msg).context("starting the upstream MCP server")?;
    let agent = agent.map(str::to_owned).unwrap_or_else(|| {
        let base = std::path::Path::new(command).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // `npx -y @scope/server-x@1.2` names its package, not npx.
        args.iter().find(|a| !a.starts_with('-')).filter(|_| base == "npx").cloned().unwrap_or(base)
    });
    let gate = Gate::new(server, tools, policy, console, agent, shown, Duration::from_secs(timeout)).with_hold(Duration::from_secs(hold));
    for (tool, asks) in gate.tools() {
        tracing::info!(tool, "{}", if asks { "waits for an approval" } else { "passes through" });
    }
    let running = gate.serve(rmcp::transport::stdio()).await.context("talking MCP on stdin/stdout")?;
    running.waiting().await.context("serving MCP")?;
    Ok(ExitCode::SUCCESS)
}

/// `approval-console channel claude-code`: serves the permission relay
/// ([`approval_console::connector::relay::Relay`]) on stdin/stdout until the agent goes.
pub async fn channel(
    url: Option<&str>,
    data_dir: Option<&std::path::Path>,
    timeout: u64,
    jwks: Option<&std::path::Path>,
) -> Result<ExitCode> {
    let found = connector::console_url(url, data_dir);
    let console = found.clone().and_then(|url| ConsoleClient::from_env(&url, jwks));
    if let Err(e) = &console {
        tracing::warn!("no prompt will be relayed, Claude Code's own dialog decides: {e}");
    }
    use approval_console::connector::relay::{session_from_env, Relay};
    let relay = Relay::new(console, "claude-code".into(), Duration::from_secs(timeout)).in_session(session_from_env());
    let running = relay.serve(rmcp::transport::stdio()).await.context("talking MCP on stdin/stdout")?;
    running.waiting().await.context("serving MCP")?;
    Ok(ExitCode::SUCCESS)
}
