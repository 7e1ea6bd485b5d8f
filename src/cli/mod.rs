//! The CLI's commands, one function each; they call the core's one surface ([`App`]) and print.

mod acp;
mod args;
mod audit;
mod channels;
mod codex;
mod decide;
mod devices;
mod engines;
mod gate;
mod hook;
mod hooks;
mod policy;
mod queue;
mod receipt;
mod secret;
mod serve;
mod tokens;

use anyhow::{bail, Context, Result};
use approval_console::app::{default_data_dir, serving, App};
use approval_console::domain::text::visible;
use approval_console::domain::{Error, ItemId, Verdict};
use approval_console::secrets;
use approval_console::store::Location;
use args::{AgentsFile, AuditCommand, HooksCommand};
pub use args::{Cli, Command};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The documented exit codes (see `--help`): 3 not found, 4 unavailable, 2 any other error. Every
/// code is named: a new one does not compile until it is given its exit code.
pub fn exit_code(e: &Error) -> u8 {
    use approval_console::domain::ErrorCode::*;
    match e.error_code() {
        NotFound | SecretNotFound | SnapshotNotFound => 3,
        EngineUnreachable | KeyringUnavailable | KeyringLocked | StorageBusy | StorageUnavailable => 4,
        Unauthorized | Forbidden | FingerprintMismatch | AlreadyDecided | DecisionNotAllowed | HighRiskTool | AlreadyApproved | OwnRun
        | QuorumTool | GrantTooBroad | AlreadyServing | RunExists | IdempotencyKeyReused | ClaimNotAllowed | MissingArguments
        | AmbiguousArguments | TokenRequired | InvalidResumeData | InvalidArguments | InvalidRequest | PayloadTooLarge | RateLimited
        | EngineError | KeyringError | UnsafePermissions | StepUpRequired | ReceiptExpired | WideningUnconfirmed | Internal => 2,
    }
}

/// The agents a command runs: `--agents FILE` (which must exist), else `agents.toml` in the data
/// directory if there is one, else none (the demo agent).
async fn agents_of(given: &AgentsFile, data_dir: &Path) -> Result<(Vec<approval_console::engine::local::agent::Agent>, PathBuf)> {
    let file = given.agents.clone().unwrap_or_else(|| data_dir.join(approval_console::config::AGENTS_FILE));
    if given.agents.is_some() && !file.exists() {
        bail!(
            "--agents {}: no such file (without --agents, agents.toml in the data directory is used if it exists, else the demo agent)",
            file.display()
        );
    }
    let agents = approval_console::config::load_agents(&file).await?;
    if !agents.is_empty() {
        tracing::info!(file = %file.display(), count = agents.len(), "loaded agents");
    }
    Ok((agents, file))
}

/// The data directory a command works on: the one named (`--data-dir`, `APPROVAL_CONSOLE_DATA_DIR`),
/// else — for a command on the queue, not `serve` — the one a console serves (said on stderr)
/// when the default one is not served, else the default one. Several consoles serving other data
/// directories: name one (`invalid_request`, listing them).
fn data_dir_of(cli: &Cli) -> Result<PathBuf> {
    if let Some(dir) = &cli.data_dir {
        return Ok(dir.clone());
    }
    let default = default_data_dir();
    let discovers = !matches!(
        cli.command,
        Command::Serve { .. }
            | Command::Openapi
            | Command::Manifest { .. }
            | Command::Secret { .. }
            | Command::Hook { .. }
            | Command::Hooks { .. }
            | Command::McpGate { .. }
            | Command::Channel { .. }
            | Command::Codex { .. }
            | Command::Acp { .. }
            | Command::Receipt { command: Some(args::ReceiptCommand::Verify(_)), .. }
    );
    if !discovers || cli.database_url.is_some() || serving::is_served(&default) {
        return Ok(default);
    }
    match serving::find(None)? {
        None => Ok(default),
        Some(one) => {
            eprintln!(
                "note: using the console serving at {} (data directory {}, database {}); name another with --data-dir",
                one.url,
                one.data_dir.display(),
                one.database
            );
            Ok(one.data_dir)
        }
    }
}

/// Whether the command only reads: it must not create a data directory or a database as a side effect.
fn only_reads(command: &Command) -> bool {
    use args::{EnginesCommand, PolicyCommand, TokensCommand};
    match command {
        Command::Queue { .. } | Command::Show { .. } | Command::Audit { .. } => true,
        Command::Receipt { command: None | Some(args::ReceiptCommand::Keys), .. } => true,
        Command::Engines { command: EnginesCommand::List { .. } }
        | Command::Tokens { command: TokensCommand::List { .. } }
        | Command::Devices { command: args::DevicesCommand::List { .. } }
        | Command::Channels { command: args::ChannelsCommand::Secret { command: args::ChannelSecretCommand::List { .. } } } => true,
        Command::Policy { command: PolicyCommand::Quorum { approvals, off, critical, .. } } => {
            approvals.is_none() && !off && critical.is_none()
        }
        Command::Policy {
            command: PolicyCommand::Check { .. } | PolicyCommand::Diff { .. } | PolicyCommand::Export | PolicyCommand::ShadowReport { .. },
        } => true,
        _ => false,
    }
}

/// Runs the command `cli` names; the exit code it ends with.
pub async fn run(cli: Cli) -> Result<ExitCode> {
    let data_dir = data_dir_of(&cli)?;
    match &cli.command {
        Command::Openapi => {
            println!("{}", serde_json::to_string_pretty(&approval_console::api::openapi_document())?);
            return Ok(ExitCode::SUCCESS);
        }
        Command::Manifest { typescript: true, .. } => {
            print!("{}", approval_console::app::operation::typescript());
            return Ok(ExitCode::SUCCESS);
        }
        Command::Manifest { authorization: true, .. } => {
            print!("{}", approval_console::domain::authority::table());
            return Ok(ExitCode::SUCCESS);
        }
        Command::Manifest { .. } => {
            println!("{}", serde_json::to_string_pretty(&approval_console::app::operation::manifest())?);
            return Ok(ExitCode::SUCCESS);
        }
        Command::Secret { command } => return secret::run(command).await.map(|()| ExitCode::SUCCESS),
        Command::Hook { agent } => return Ok(hook::run(agent, cli.data_dir.as_deref()).await),
        Command::Hooks { command: HooksCommand::Install { agent, settings, print, timeout, url, event } } => {
            let given = hooks::Given { settings: settings.clone(), print: *print, timeout: *timeout, url: url.as_deref(), event: *event };
            return hooks::install(*agent, given, cli.data_dir.as_deref()).map(|()| ExitCode::SUCCESS);
        }
        Command::Codex { url, timeout, jwks, codex, codex_args } => {
            let given = codex::CodexArgs {
                url: url.as_deref(),
                data_dir: cli.data_dir.as_deref(),
                timeout: *timeout,
                jwks: jwks.as_deref(),
                program: codex,
                args: codex_args,
            };
            return codex::run(given).await;
        }
        Command::McpGate { ask, pass, trust_annotations, url, timeout, hold, agent, upstream, jwks } => {
            let policy = approval_console::gate::Policy {
                ask: ask.iter().cloned().collect(),
                pass: pass.iter().cloned().collect(),
                trust_annotations: *trust_annotations,
            };
            let given = gate::GateArgs {
                policy,
                url: url.as_deref(),
                data_dir: cli.data_dir.as_deref(),
                timeout: *timeout,
                hold: *hold,
                agent: agent.as_deref(),
                upstream,
                jwks: jwks.as_deref(),
            };
            return gate::run(given).await;
        }
        Command::Channel { agent: args::ChannelAgent::ClaudeCode, url, timeout, jwks } => {
            return gate::channel(url.as_deref(), cli.data_dir.as_deref(), *timeout, jwks.as_deref()).await;
        }
        Command::Acp { editor_decides_too, url, timeout, agent, jwks, command } => {
            let given = acp::AcpArgs {
                url: url.as_deref(),
                data_dir: cli.data_dir.as_deref(),
                timeout: *timeout,
                agent: agent.as_deref(),
                jwks: jwks.as_deref(),
                editor_decides_too: *editor_decides_too,
                command,
            };
            return acp::run(given).await;
        }
        Command::Agents { agents } => return list_agents(agents, &data_dir).await.map(|()| ExitCode::SUCCESS),
        Command::Receipt { command: Some(command @ args::ReceiptCommand::Verify(_)), .. } => return receipt::verify(command.clone()),
        _ => {}
    }
    // Read before anything starts, so a bad token file stops `serve` with nothing opened or run.
    let session_token = match &cli.command {
        Command::Serve { token_file: Some(file), .. } => Some(secrets::read_secret_file(file).map_err(Error::from)?.expose().to_owned()),
        Command::Serve { token, .. } => token.clone(),
        _ => None,
    };
    // Only commands that run agents load them (and start their MCP servers): serve, and the decisions,
    // which deliver, i.e. run the tool, in this process.
    let agents = match &cli.command {
        Command::Serve { agents, .. }
        | Command::Approve { agents, .. }
        | Command::Decline { agents, .. }
        | Command::Resume { agents, .. }
        | Command::Resolve { agents, .. } => agents_of(agents, &data_dir).await?.0,
        // A quorum is checked against the tools the agents name (see `policy::check_known`), and an
        // export lists the tools its rules name that nothing has named yet.
        Command::Policy {
            command:
                args::PolicyCommand::Quorum { approvals: Some(2..), .. }
                | args::PolicyCommand::Check { .. }
                | args::PolicyCommand::Apply { .. }
                | args::PolicyCommand::Export,
        } => {
            let given = AgentsFile { agents: std::env::var_os("APPROVAL_CONSOLE_AGENTS").map(PathBuf::from) };
            agents_of(&given, &data_dir).await?.0
        }
        _ => vec![],
    };
    let location = Location::new(&data_dir, cli.database_url.as_deref())?;
    if let Location::Sqlite(file) = &location {
        if only_reads(&cli.command) && !file.exists() {
            return Err(anyhow::Error::from(Error::not_found(format!("the console database {}", file.display()))).context(
                "nothing has run with this data directory (start a console: `approval-console serve`; another one: --data-dir DIR)",
            ));
        }
    }
    let app = App::open_at(&data_dir, location.clone(), agents).await.with_context(|| format!("opening {}", location.describe()))?;
    match cli.command {
        Command::Serve { port, notify, quotas, new_token, remote, .. } => {
            let options = serve::Options { port, token: session_token, new_token, notify, limits: quotas.limits(), remote };
            serve::run(&app, &data_dir, options).await?
        }
        Command::Queue { all, agent, tool, limit, json } => queue::list(&app, all, agent, tool, limit, json).await?,
        Command::Show { id } => queue::show(&app, &id).await?,
        Command::Approve { id, yes, .. } => decide::run(&app, &id, Verdict::Approve, yes).await?,
        Command::Decline { id, reason, yes, .. } => decide::run(&app, &id, Verdict::Decline { reason }, yes).await?,
        Command::Resume { id, data, yes, .. } => {
            let data = serde_json::from_str(&data).context("--data is not valid JSON")?;
            decide::run(&app, &id, Verdict::Resume { data }, yes).await?
        }
        Command::Resolve { id, how, result, yes, .. } => {
            let result = result.map(|r| serde_json::from_str(&r)).transpose().context("--result is not valid JSON")?;
            decide::resolve(&app, &id, how, result, yes).await?
        }
        Command::Audit { command: AuditCommand::Verify } => return audit::verify(&app).await,
        Command::Audit { command: AuditCommand::List { limit } } => audit::list(&app, limit).await?,
        Command::Audit { command: AuditCommand::Export { format } } => audit::export(&app, &format).await?,
        Command::Engines { command } => return engines::run(&app, command).await,
        Command::Tokens { command } => tokens::run(&app, command).await?,
        Command::Channels { command } => channels::run(&app, command).await?,
        Command::Devices { command } => devices::run(&app, command).await?,
        Command::Policy { command } => return policy::run(&app, command).await,
        Command::Receipt { command: Some(command), .. } => receipt::run(&app, command).await?,
        Command::Receipt { command: None, id: Some(id), json, jws } => receipt::show(&app, &id, json, jws).await?,
        Command::Receipt { command: None, id: None, .. } => {
            anyhow::bail!("say whose receipt: `approval-console receipt ID` (a call's id), or see `receipt --help`")
        }
        Command::Openapi
        | Command::Manifest { .. }
        | Command::Agents { .. }
        | Command::Secret { .. }
        | Command::Hook { .. }
        | Command::Hooks { .. }
        | Command::McpGate { .. }
        | Command::Channel { .. }
        | Command::Codex { .. }
        | Command::Acp { .. } => {
            unreachable!("handled above")
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `agents`: checks agents.toml and lists the agents, their tools and approval settings.
async fn list_agents(given: &AgentsFile, data_dir: &Path) -> Result<()> {
    let (agents, file) = agents_of(given, data_dir).await?;
    if agents.is_empty() && file.exists() {
        println!("{} defines no agents: the demo agent runs.", file.display());
    } else if agents.is_empty() {
        println!("No {} (looked for {}): the demo agent runs.", approval_console::config::AGENTS_FILE, file.display());
    }
    for a in &agents {
        println!("{}  ({})  model {}", visible(a.id.as_str()), visible(&a.name), visible(&a.model.id()));
        for t in &a.tools {
            println!("    {:<32} {}", visible(t.name()), if t.require_approval() { "requires approval" } else { "" });
        }
        if let Some(rules) = &a.approval_rules {
            println!("    approval rules: {}", visible(&rules.to_json().to_string()));
        }
    }
    Ok(())
}

/// The id of the call `given` names: the id itself, or the one id that starts with it. Several →
/// `invalid_request` listing them; none → `not_found`.
pub(crate) async fn resolve_id(app: &App, given: &str) -> Result<ItemId, Error> {
    let found = app.ids_starting_with(given, 11, &app.local_admin("cli")).await?;
    match found.as_slice() {
        [] => Err(Error::not_found(format!("queue item {given}"))),
        [one] => Ok(one.clone()),
        _ if found.iter().any(|id| id.as_str() == given) => Ok(ItemId::new(given)),
        many => {
            let shown: Vec<&str> = many.iter().take(10).map(|id| id.as_str()).collect();
            let more = if many.len() > 10 { ", …" } else { "" };
            Err(Error::InvalidRequest(format!("{given:?} is the start of several ids: {}{more}; give more of it", shown.join(", "))))
        }
    }
}

/// A state as the API spells it (`delivered`).
pub(crate) fn state_word(s: approval_console::domain::ItemState) -> String {
    serde_json::to_value(s).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}
