//! `approval-console`: serve the console, or work the queue from a terminal. Thin: parse, call the
//! core, print.

use anyhow::{bail, Context, Result};
use approval_console::app::{default_data_dir, App};
use approval_console::domain::text::visible;
use approval_console::domain::{DecisionRequest, Error, ItemId, Verdict};
use approval_console::engine::local::model::ApiKey;
use approval_console::store::{audit, queue};
use approval_console::{api, domain, secrets};
use clap::{Parser, Subcommand};
use serde_json::Value;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

/// One inbox for the sensitive tool calls that AI agents want to make.
///
/// Agents pause before sensitive tool calls; each paused call waits in a queue (SQLite, in the data
/// directory) with its arguments and fingerprint until an operator approves, declines or answers it.
/// Start with `approval-console serve` and open the printed URL.
#[derive(Parser)]
#[command(
    name = "approval-console",
    version,
    propagate_version = true,
    after_help = "Exit codes: 0 done; 1 a check failed (audit verify, engines sync); 2 an error (bad input, refused,                   already decided, …); 3 not found (a call, a secret, a credential); 4 unavailable (the keyring, an engine,                   a busy database): try again later."
)]
struct Cli {
    /// Where the database lives [default: $XDG_DATA_HOME/approval-console or ~/.local/share/approval-console]
    #[arg(long, global = true, env = "APPROVAL_CONSOLE_DATA_DIR", value_name = "DIR")]
    data_dir: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

/// `--agents`, for the commands that run agents (and so start their MCP servers).
#[derive(clap::Args, Clone, Default)]
struct AgentsFile {
    /// The local engine's agents [default: agents.toml in the data directory; without it, the demo
    /// agent]. A file named here must exist.
    #[arg(long, env = "APPROVAL_CONSOLE_AGENTS", value_name = "FILE")]
    agents: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the web UI, the console API and the local engine's API on 127.0.0.1.
    ///
    /// Prints the UI's URL once, with the session token (the local admin's) in the URL fragment.
    /// Every /api route but /api/health needs `Authorization: Bearer <token>`; give agents and
    /// other people tokens of their own (`approval-console tokens add`).
    Serve {
        #[command(flatten)]
        agents: AgentsFile,
        /// Port on 127.0.0.1 (0: any free port).
        #[arg(long, default_value_t = 4319, env = "APPROVAL_CONSOLE_PORT")]
        port: u16,
        /// Session token for the API [default: a new random one]
        #[arg(long, env = "APPROVAL_CONSOLE_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// Raise a desktop notification for each new pending call (needs a notification service on
        /// the session bus; without one the console keeps working and says so once).
        #[arg(long, env = "APPROVAL_CONSOLE_NOTIFY")]
        notify: bool,
    },
    /// List the queue, newest first: pending calls, or every call with its outcome (--all).
    Queue {
        /// Show every call (decided, delivered, expired, gone…), not only the pending ones.
        #[arg(long)]
        all: bool,
        /// Only calls of this agent (its id).
        #[arg(long, value_name = "AGENT_ID")]
        agent: Option<String>,
        /// Only calls of this tool.
        #[arg(long, value_name = "TOOL")]
        tool: Option<String>,
        /// Most rows shown.
        #[arg(long, default_value_t = 50)]
        limit: u32,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Show one call in full (JSON).
    Show {
        /// The call's id as `queue` lists it, or any unique start of it.
        id: String,
    },
    /// Approve a call: shows tool, arguments and fingerprint, and asks.
    Approve {
        /// The call's id as `queue` lists it, or any unique start of it.
        id: String,
        /// Do not ask (for scripts; needed when standard input is not a terminal).
        #[arg(long, short)]
        yes: bool,
        #[command(flatten)]
        agents: AgentsFile,
    },
    /// Decline a call, optionally with a reason the agent is told: shows the call, and asks.
    Decline {
        /// The call's id as `queue` lists it, or any unique start of it.
        id: String,
        /// Told to the agent (and kept in the audit log), e.g. "wrong customer".
        #[arg(long, short)]
        reason: Option<String>,
        /// Do not ask (for scripts; needed when standard input is not a terminal).
        #[arg(long, short)]
        yes: bool,
        #[command(flatten)]
        agents: AgentsFile,
    },
    /// Answer a suspended call with resume data (JSON, checked against the tool's resume schema):
    /// shows the call and its question, and asks.
    Resume {
        /// The call's id as `queue` lists it, or any unique start of it.
        id: String,
        /// The resume data, e.g. '{"answer":"blue"}'.
        #[arg(long, short)]
        data: String,
        /// Do not ask (for scripts; needed when standard input is not a terminal).
        #[arg(long, short)]
        yes: bool,
        #[command(flatten)]
        agents: AgentsFile,
    },
    /// The audit log: verify its hash chain, list or export it.
    Audit {
        #[command(subcommand)]
        command: AuditCommand,
    },
    /// Check agents.toml and list the local engine's agents, their tools and approval settings.
    Agents {
        #[command(flatten)]
        agents: AgentsFile,
    },
    /// Print the console API's OpenAPI document (JSON).
    Openapi,
    /// Remote engines: Mastra servers whose suspended runs are queued here.
    ///
    /// A running `serve` picks up changes within two seconds. Tokens go to the OS keyring only.
    Engines {
        #[command(subcommand)]
        command: EnginesCommand,
    },
    /// Secrets (model API keys) in the OS keyring: never in the database, a config file or a log.
    Secret {
        #[command(subcommand)]
        command: SecretCommand,
    },
    /// Credentials for the HTTP API, each with a role: `agent` (start runs, list its own suspended
    /// runs; never decide), `operator` (the console and decisions), `admin` (also grants, settings,
    /// engines).
    ///
    /// Only a hash of each token is stored: a token is shown once, when it is made. The token that
    /// `serve` prints (or `--token`) is the local admin's and is not listed here.
    Tokens {
        #[command(subcommand)]
        command: TokensCommand,
    },
}

#[derive(Subcommand)]
enum TokensCommand {
    /// Make a credential and print its token, alone, on the last line of standard output.
    ///
    /// E.g. `TOKEN=$(approval-console tokens add ci-bot --role agent | tail -1)`.
    Add {
        /// A name for the audit log: 1–64 letters, digits, '.', '_', '-'.
        name: String,
        /// What the token may do.
        #[arg(long, value_parser = ["agent", "operator", "admin"])]
        role: String,
    },
    /// The credentials: name, role, when made and last used (never a token).
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a credential: its token stops working at once, also in a running `serve`.
    Revoke {
        /// The credential's name.
        name: String,
    },
}

#[derive(Subcommand)]
enum AuditCommand {
    /// Walk the hash chain; name the first entry edited, removed or reordered. Exit code 1 if broken.
    Verify,
    /// The newest entries, newest first.
    List {
        /// How many entries.
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// Print the whole log, oldest first: JSON Lines (the entries as the API answers them, hashes
    /// checkable) or CSV (cells a spreadsheet would run as formulas are prefixed with ').
    Export {
        /// `jsonl` (JSON Lines) or `csv`.
        #[arg(long, value_parser = ["jsonl", "csv"], default_value = "jsonl")]
        format: String,
    },
}

#[derive(Subcommand)]
enum EnginesCommand {
    /// List remote engines with their health and queue counts.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Add a Mastra server, e.g. `approval-console engines add prod http://127.0.0.1:4111`.
    ///
    /// With --token, the bearer token is read from standard input (on a terminal: asked, without
    /// echo) and stored in the OS keyring; it never appears in the database, a file or a log.
    Add {
        /// A name (letters, digits, '.', '_', '-'): the engine's id in the queue.
        name: String,
        /// The server's base URL (its API is under /api).
        url: String,
        /// Ask for a bearer token (or read one line from standard input).
        #[arg(long)]
        token: bool,
        /// How often to look for suspended runs, in milliseconds.
        #[arg(long, default_value_t = approval_console::console::remotes::DEFAULT_POLL_MS)]
        poll_ms: u32,
    },
    /// Change an engine's URL, token or poll interval.
    Edit {
        /// The engine's name, as `engines list` shows it.
        name: String,
        /// A new base URL. An engine with a token needs --token (or --keep-token, or --clear-token) too.
        #[arg(long)]
        url: Option<String>,
        /// Ask for a new bearer token (or read one line from standard input).
        #[arg(long, conflicts_with = "clear_token")]
        token: bool,
        /// Forget the stored token.
        #[arg(long)]
        clear_token: bool,
        /// With --url: send the stored token to the new URL too. Without it, changing the URL of an
        /// engine that has a token needs --token or --clear-token.
        #[arg(long, requires = "url", conflicts_with_all = ["token", "clear_token"])]
        keep_token: bool,
        /// How often to look for suspended runs, in milliseconds.
        #[arg(long)]
        poll_ms: Option<u32>,
    },
    /// Remove an engine and its token. Its queue entries stay as history.
    Remove {
        /// The engine's name, as `engines list` shows it.
        name: String,
    },
    /// Sync an engine now (complete listing) and print what changed. Exit code 1 if it failed.
    Sync {
        /// The engine's name, as `engines list` shows it.
        name: String,
    },
}

#[derive(Subcommand)]
enum SecretCommand {
    /// Store a secret: reads one line from standard input (on a terminal: asks, without echo).
    ///
    /// E.g. `approval-console secret set openai < key.txt`; replaces any value it had.
    Set {
        /// The secret's name, as an agent's `api_key_ref` or an MCP server's `env_refs` names it.
        name: String,
    },
    /// Say whether a secret is stored, and its length (never its value). Exit code 3 if it is not
    /// stored, 4 if the keyring is not available.
    Check {
        /// The secret's name.
        name: String,
    },
    /// Remove a secret from the OS keyring.
    Delete {
        /// The secret's name.
        name: String,
    },
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Serve { .. }) {
        // A one-shot command whose output is cut (`openapi | head`) ends quietly, as Unix tools do,
        // instead of panicking on the closed pipe. `serve` keeps serving when its stdout goes away.
        // SAFETY: restoring the default action of SIGPIPE; nothing else handles it in this process.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    }
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("APPROVAL_CONSOLE_LOG").unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    match run(cli).await {
        Ok(code) => code,
        Err(e) => {
            let domain = e.downcast_ref::<Error>();
            let code = domain.map(|e| format!(" [{}]", e.code())).unwrap_or_default();
            eprintln!("error{code}: {e:#}");
            std::process::ExitCode::from(domain.map_or(2, exit_code))
        }
    }
}

/// The documented exit codes (see `--help`): 3 not found, 4 unavailable, 2 any other error.
fn exit_code(e: &Error) -> u8 {
    match e.code() {
        "not_found" | "secret_not_found" | "snapshot_not_found" => 3,
        "engine_unreachable" | "keyring_unavailable" | "keyring_locked" | "storage_busy" => 4,
        _ => 2,
    }
}

/// The agents a command runs: `--agents FILE` (which must exist), else `agents.toml` in the data
/// directory if there is one, else none (the demo agent).
async fn agents_of(
    given: &AgentsFile,
    data_dir: &std::path::Path,
) -> Result<(Vec<approval_console::engine::local::agent::Agent>, PathBuf)> {
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

async fn run(cli: Cli) -> Result<std::process::ExitCode> {
    let data_dir = cli.data_dir.unwrap_or_else(default_data_dir);
    if let Command::Openapi = cli.command {
        println!("{}", serde_json::to_string_pretty(&api::openapi_document())?);
        return Ok(std::process::ExitCode::SUCCESS);
    }
    if let Command::Secret { command } = &cli.command {
        secret(command).await?;
        return Ok(std::process::ExitCode::SUCCESS);
    }
    // Only commands that run agents load them (and start their MCP servers): serve, and the decisions,
    // which deliver, i.e. run the tool, in this process.
    let (agents, agents_file) = match &cli.command {
        Command::Serve { agents, .. }
        | Command::Approve { agents, .. }
        | Command::Decline { agents, .. }
        | Command::Resume { agents, .. }
        | Command::Agents { agents } => agents_of(agents, &data_dir).await?,
        _ => (vec![], PathBuf::new()),
    };
    if let Command::Agents { .. } = cli.command {
        if agents.is_empty() {
            println!("No {} (looked for {}): the demo agent runs.", approval_console::config::AGENTS_FILE, agents_file.display());
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
        return Ok(std::process::ExitCode::SUCCESS);
    }
    let app = App::open(&data_dir, agents).await.with_context(|| format!("opening data directory {}", data_dir.display()))?;
    match cli.command {
        Command::Serve { port, token, notify, .. } => {
            // Held until the server stops: a second `serve` or the desktop app on this data directory is refused.
            let _serving = app.recover().await?;
            let notifier = notify.then(|| {
                std::sync::Arc::new(approval_console::notify::desktop::DesktopNotifier)
                    as std::sync::Arc<dyn approval_console::notify::Notifier>
            });
            let _background = app.start(notifier);
            let token = token.filter(|t| !t.is_empty()).unwrap_or_else(api::random_token);
            let server = api::serve(app.clone(), port, &token)
                .await
                .with_context(|| format!("cannot listen on 127.0.0.1:{port} (in use? try --port 0)"))?;
            // Printed once; a closed stdout (`serve | head -1`) must not stop the server.
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "Approval Console is serving. Open: {}", server.ui_url(&token));
            let _ = writeln!(out, "Data: {}   Local engine API: http://{}/api/agents", app.db.path().display(), server.addr);
            let _ = out.flush();
            drop(out);
            server.run_until_signal().await;
        }
        Command::Queue { all, agent, tool, limit, json } => {
            let filter = queue::Filter { state: (!all).then_some(domain::ItemState::Pending), agent, tool, ..Default::default() };
            let mut conn = app.db.pool().acquire().await.map_err(Error::from)?;
            let page = queue::list(&mut conn, &filter, None, limit).await?;
            if json {
                let items: Vec<Value> = page.entries.iter().map(entry_json).collect();
                println!("{}", serde_json::to_string_pretty(&items)?);
            } else if page.entries.is_empty() {
                println!("The queue is empty.");
            } else {
                println!("{:<35} {:<11} {:<9} {:<16} {:<20} {:<12} ARGS", "ID", "STATE", "KIND", "AGENT", "TOOL", "FINGERPRINT");
                for e in &page.entries {
                    let c = &e.queued.call;
                    let args = visible(&c.args.to_string());
                    let args: String = args.chars().take(48).collect();
                    println!(
                        "{:<35} {:<11} {:<9} {:<16} {:<20} {:<12} {args}",
                        e.queued.id.as_str(),
                        state_word(e.queued.state),
                        format!("{:?}", c.kind).to_lowercase(),
                        visible(c.agent_id.as_str()),
                        visible(&c.tool_name),
                        c.fingerprint.short(),
                    );
                    let outcome = outcome_of(e);
                    if !outcome.is_empty() {
                        println!("{:<35} {outcome}", "");
                    }
                }
                if page.next_cursor.is_some() {
                    println!("(more: use --limit)");
                }
            }
        }
        Command::Show { id } => {
            let entry = app.console.item(&resolve_id(&app, &id).await?).await?;
            println!("{}", serde_json::to_string_pretty(&entry_json(&entry))?);
        }
        Command::Approve { id, yes, .. } => decide(&app, &id, Verdict::Approve, yes).await?,
        Command::Decline { id, reason, yes, .. } => decide(&app, &id, Verdict::Decline { reason }, yes).await?,
        Command::Resume { id, data, yes, .. } => {
            let data: Value = serde_json::from_str(&data).context("--data is not valid JSON")?;
            decide(&app, &id, Verdict::Resume { data }, yes).await?
        }
        Command::Audit { command: AuditCommand::Verify } => {
            let mut conn = app.db.pool().acquire().await.map_err(Error::from)?;
            let v = audit::verify(&mut conn).await?;
            match v.first_bad {
                None => println!("audit log intact: {} entries checked", v.checked),
                Some(bad) => {
                    println!("audit log BROKEN at entry {}: {} ({} entries before it are intact)", bad.seq, bad.problem, v.checked);
                    return Ok(std::process::ExitCode::from(1));
                }
            }
        }
        Command::Audit { command: AuditCommand::List { limit } } => {
            let mut conn = app.db.pool().acquire().await.map_err(Error::from)?;
            let (entries, _) = audit::list(&mut conn, None, None, limit).await?;
            for e in entries {
                println!(
                    "{:>6} {} {:<22} {:<24} {:<20} {}",
                    e.seq,
                    e.at,
                    e.action,
                    visible(&e.actor),
                    visible(e.tool_name.as_deref().unwrap_or("-")),
                    e.fingerprint.as_deref().map(|f| &f[..f.len().min(19)]).unwrap_or("-")
                );
            }
        }
        Command::Audit { command: AuditCommand::Export { format } } => {
            use futures::StreamExt;
            let format = approval_console::app::audit::ExportFormat::parse(&format)?;
            let mut out = std::io::stdout().lock();
            let mut chunks = std::pin::pin!(app.export_audit(format));
            while let Some(chunk) = chunks.next().await {
                out.write_all(chunk?.as_bytes())?;
            }
            out.flush()?;
        }
        Command::Engines { command } => return engines(&app, command).await,
        Command::Tokens { command } => tokens(&app, command).await?,
        Command::Openapi | Command::Agents { .. } | Command::Secret { .. } => unreachable!("handled above"),
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// The id of the call `given` names: the id itself, or the one id that starts with it. Several →
/// `invalid_request` listing them; none → `not_found`.
async fn resolve_id(app: &App, given: &str) -> Result<ItemId, Error> {
    let mut conn = app.db.pool().acquire().await?;
    let found = queue::ids_starting_with(&mut conn, given, 11).await?;
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

/// A call's outcome in a few words: `approved by alice (cli), delivered`, `declined …`, `expired`, `gone`.
fn outcome_of(e: &queue::Entry) -> String {
    let Some(d) = &e.decision else {
        return match e.queued.state {
            domain::ItemState::Gone => "gone (ended at the engine)".into(),
            _ => String::new(),
        };
    };
    let what = match &d.verdict {
        Verdict::Approve => "approved",
        Verdict::ApproveEdited { .. } => "approved with edits",
        Verdict::Decline { .. } => "declined",
        Verdict::Resume { .. } => "answered",
        Verdict::Expire { .. } => return format!("expired, {}", delivery_word(d.delivery)),
    };
    format!("{what} by {}, {}", visible(&d.operator), delivery_word(d.delivery))
}

fn delivery_word(d: domain::Delivery) -> &'static str {
    match d {
        domain::Delivery::Pending => "to deliver",
        domain::Delivery::Delivering => "delivering",
        domain::Delivery::Delivered => "delivered",
        domain::Delivery::Failed => "delivery failed",
    }
}

/// A state as the API spells it (`delivered`).
fn state_word(s: domain::ItemState) -> String {
    serde_json::to_value(s).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// Shows a call, asks, and decides with the fingerprint that was shown (C3).
async fn decide(app: &App, id: &str, verdict: Verdict, yes: bool) -> Result<()> {
    let id = resolve_id(app, id).await?;
    let entry = app.console.item(&id).await?;
    let call = &entry.queued.call;
    let verb = verdict.kind().as_str();
    eprintln!("tool:        {}", visible(&call.tool_name));
    eprintln!("agent:       {}   run: {}   call: {}", visible(call.agent_id.as_str()), call.run_id, visible(call.tool_call_id.as_str()));
    eprintln!("arguments:   {}", visible(&serde_json::to_string_pretty(&call.args)?));
    if let Some(p) = &call.suspend_payload {
        eprintln!("payload:     {}", visible(&serde_json::to_string_pretty(p)?));
    }
    eprintln!("fingerprint: {}", call.fingerprint);
    if !yes {
        if !std::io::stdin().is_terminal() {
            bail!("not a terminal: pass --yes to {verb} without asking");
        }
        eprint!("{verb} this call? [y/N] ");
        std::io::stderr().flush()?;
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            eprintln!("nothing done");
            return Ok(());
        }
    }
    let request = DecisionRequest { verdict, fingerprint: call.fingerprint.clone(), operator: app.local_actor("cli").audit_name() };
    let after = app.console.decide_and_deliver(&id, request).await?;
    let outcome = after.decision.as_ref().and_then(|d| d.outcome.clone()).unwrap_or(Value::Null);
    println!("{verb}d: {}; state {}; outcome {}", id, state_word(after.queued.state), visible(&outcome.to_string()));
    Ok(())
}

/// `engines list|add|edit|remove|sync`.
async fn engines(app: &App, command: EnginesCommand) -> Result<std::process::ExitCode> {
    use approval_console::console::remotes::EngineSettings;
    let ok = std::process::ExitCode::SUCCESS;
    match command {
        EnginesCommand::List { json } => {
            let engines = app.engines().await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&engines)?);
            } else if engines.is_empty() {
                println!("No remote engines. Add one: approval-console engines add <name> <url> [--token]");
            } else {
                for e in &engines {
                    let health = serde_json::to_value(e.health.state)?.as_str().unwrap_or_default().to_owned();
                    println!(
                        "{:<20} {:<40} {:<12} token:{:<3} pending:{} awaiting delivery:{}",
                        visible(&e.name),
                        visible(&e.base_url),
                        health,
                        if e.has_token { "yes" } else { "no" },
                        e.pending,
                        e.awaiting_delivery
                    );
                    if let Some(err) = &e.health.last_error {
                        let at = e.health.last_error_at.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)).unwrap_or_default();
                        // A reachable engine's error is history: dated, and said to be earlier.
                        let when = if health == "reachable" { format!("earlier error, at {at}") } else { format!("last error, at {at}") };
                        println!("{:<20} {when}: {}", "", visible(err));
                    }
                }
            }
        }
        EnginesCommand::Add { name, url, token, poll_ms } => {
            let token = if token { Some(read_secret(&format!("engine {name} token"))?) } else { None };
            let row = app
                .remotes
                .add(EngineSettings {
                    name,
                    base_url: url,
                    token,
                    clear_token: false,
                    keep_token: false,
                    session_only: false,
                    poll_ms: Some(poll_ms),
                })
                .await?;
            println!(
                "added engine {} at {}{}",
                visible(&row.name),
                visible(&row.base_url),
                if row.token_ref.is_some() { " (token in the OS keyring)" } else { "" }
            );
            match app.remotes.sync_now(&row.name).await {
                Ok(r) => println!("reachable: {} agents, {} waiting calls queued", r.agents, r.added + r.changed),
                Err(e) => println!("not synced yet: {e} (a running `serve` keeps trying)"),
            }
        }
        EnginesCommand::Edit { name, url, token, clear_token, keep_token, poll_ms } => {
            let token = if token { Some(read_secret(&format!("engine {name} token"))?) } else { None };
            let row = app
                .remotes
                .edit(EngineSettings {
                    name,
                    base_url: url.unwrap_or_default(),
                    token,
                    clear_token,
                    keep_token,
                    session_only: false,
                    poll_ms,
                })
                .await?;
            println!(
                "changed engine {}: {} poll {} ms{}",
                visible(&row.name),
                visible(&row.base_url),
                row.poll_ms,
                if row.token_ref.is_some() { ", token in the OS keyring" } else { ", no token" }
            );
        }
        EnginesCommand::Remove { name } => {
            app.remotes.remove(&name).await?;
            println!("removed engine {}", visible(&name));
        }
        EnginesCommand::Sync { name } => match app.remotes.sync_now(&name).await {
            Ok(r) => println!(
                "{}: {} agents, {} calls waiting there; {} added, {} changed, {} gone, {} skipped",
                visible(&name),
                r.agents,
                r.listed,
                r.added,
                r.changed,
                r.gone,
                r.skipped
            ),
            Err(e) => {
                eprintln!("error[{}]: {e}", e.code());
                return Ok(std::process::ExitCode::from(1));
            }
        },
    }
    Ok(ok)
}

/// `tokens add|list|revoke`, as the local admin.
async fn tokens(app: &App, command: TokensCommand) -> Result<()> {
    let by = app.local_actor("cli");
    match command {
        TokensCommand::Add { name, role } => {
            let role = approval_console::domain::Role::parse(&role).expect("clap checked it");
            let made = app.add_token(&name, role, &by).await?;
            println!("made credential {} with role {role}; its token (shown only now):", visible(&made.credential.name));
            println!("{}", made.secret);
        }
        TokensCommand::List { json } => {
            let list = app.tokens(&by).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&list)?);
            } else if list.is_empty() {
                println!("No credentials. Make one: approval-console tokens add <name> --role agent|operator|admin");
            } else {
                println!("{:<24} {:<9} {:<26} LAST USED", "NAME", "ROLE", "CREATED");
                for c in &list {
                    let used =
                        c.last_used_at.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)).unwrap_or_else(|| "never".into());
                    println!(
                        "{:<24} {:<9} {:<26} {used}",
                        visible(&c.name),
                        c.role,
                        c.created_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                    );
                }
            }
        }
        TokensCommand::Revoke { name } => {
            let role = app.revoke_token(&name, &by).await?;
            println!("revoked credential {} ({role}): its token no longer works", visible(&name));
        }
    }
    Ok(())
}

/// `secret set|check|delete`: needs no data directory. Prints names and lengths, never a value.
async fn secret(command: &SecretCommand) -> Result<()> {
    match command {
        SecretCommand::Set { name } => {
            let value = read_secret(name)?;
            secrets::set(name, &value).await.map_err(Error::from)?;
            println!("stored secret {name} in the OS keyring ({} characters)", value.expose().chars().count());
        }
        SecretCommand::Check { name } => {
            let value = secrets::get(name).await.map_err(Error::from)?;
            println!("secret {name} is in the OS keyring ({} characters)", value.expose().chars().count());
        }
        SecretCommand::Delete { name } => {
            secrets::delete(name).await.map_err(Error::from)?;
            println!("deleted secret {name} from the OS keyring");
        }
    }
    Ok(())
}

/// The secret's value: one line of standard input without its line ending, or, on a terminal, typed
/// without echo after a prompt on stderr (rpassword reads the terminal with echo off).
fn read_secret(name: &str) -> Result<ApiKey> {
    let mut line = if std::io::stdin().is_terminal() {
        eprint!("value of secret {} (input hidden): ", visible(name));
        std::io::stderr().flush()?;
        rpassword::read_password().context("cannot read the secret from the terminal")?
    } else {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).context("cannot read the secret from standard input")?;
        line
    };
    if line.ends_with('\n') {
        line.pop();
        if line.ends_with('\r') {
            line.pop();
        }
    }
    Ok(ApiKey::new(line))
}

fn entry_json(e: &queue::Entry) -> Value {
    let c = &e.queued.call;
    serde_json::json!({
        "id": e.queued.id, "state": e.queued.state, "kind": c.kind, "engine": c.engine, "agentId": c.agent_id,
        "runId": c.run_id, "toolCallId": c.tool_call_id, "toolName": c.tool_name, "args": c.args,
        "fingerprint": c.fingerprint, "suspendPayload": c.suspend_payload, "resumeSchema": c.resume_schema,
        "pausedAt": e.queued.paused_at,
        "decision": e.decision.as_ref().map(|d| serde_json::json!({
            "kind": d.verdict.kind(), "operator": d.operator, "decidedAt": d.decided_at, "delivery": d.delivery, "outcome": d.outcome,
        })),
    })
}
