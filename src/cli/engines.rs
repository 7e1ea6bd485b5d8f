//! `engines list|add|edit|remove|sync`, as the local admin.

use super::args::EnginesCommand;
use super::secret::read_secret;
use anyhow::Result;
use approval_console::app::engines::{EngineChanges, EngineTest, NewEngine};
use approval_console::app::App;
use approval_console::domain::text::visible;
use approval_console::domain::{grade, Cx};
use approval_console::domain::{CallSource, Error};
use approval_console::engine::kinds;
use approval_console::store::engines::Health;
use std::process::ExitCode;

/// How long `engines add` waits for the server before it adds nothing.
const ADD_CHECK: std::time::Duration = std::time::Duration::from_secs(10);

/// `engines add` without `--no-check`: the server at `url` must answer as a server of `kind` within
/// [`ADD_CHECK`], else nothing is added — `engine_unreachable` (no answer, a timeout, a server
/// error) or `engine_error` (it answers, but not as that kind). A refused token passes: the server
/// is there, and its token is edited later.
async fn check_before_adding(app: &App, by: &Cx<grade::Local>, kind: CallSource, url: &str, token: Option<String>) -> Result<(), Error> {
    eprintln!("checking that {} answers as a {} server (at most {} s)…", visible(url), kind.as_str(), ADD_CHECK.as_secs());
    let test = EngineTest { kind, base_url: url.to_owned(), token };
    let no_check =
        "Nothing was added. Check the URL (and --kind), or add it anyway with --no-check: a running console keeps trying to reach it";
    let tried = match tokio::time::timeout(ADD_CHECK, app.test_engine(test, &by.narrow())).await {
        Err(_) => return Err(Error::Unreachable(format!("{} did not answer within {} s. {no_check}", visible(url), ADD_CHECK.as_secs()))),
        Ok(tried) => tried?,
    };
    match tried.result {
        Health::Unreachable => Err(Error::Unreachable(format!("{}: {}. {no_check}", visible(url), tried.message))),
        Health::Incompatible => {
            Err(Error::Engine(format!("{} answers, but not as a {} server: {}. {no_check}", visible(url), kind.as_str(), tried.message)))
        }
        _ => Ok(()),
    }
}

pub async fn run(app: &App, command: EnginesCommand) -> Result<ExitCode> {
    let by = app.local_admin::<grade::Local>("cli");
    match command {
        EnginesCommand::List { json } => list(app, json).await?,
        EnginesCommand::Add { name, url, kind, token, poll_ms, no_check } => {
            let kind = kinds::parse_remote(&kind)?;
            let token = if token { Some(read_secret(&format!("engine {name} token"))?.expose().to_owned()) } else { None };
            if !no_check {
                check_before_adding(app, &by, kind, &url, token.clone()).await?;
            }
            let new = NewEngine { name, kind, base_url: url, token, poll_ms: Some(poll_ms), session_only: false };
            let engine = app.add_engine(new, &by.narrow()).await?;
            let where_token = if engine.has_token { " (token in the OS keyring)" } else { "" };
            println!("added {} engine {} at {}{where_token}", engine.kind.as_str(), visible(&engine.name), visible(&engine.base_url));
            let agents = kinds::remote(engine.kind)?.lists;
            match app.sync_engine(&engine.name, &by.narrow()).await {
                Ok(a) => println!("reachable: {} {agents}, {} waiting calls queued", a.report.agents, a.report.added + a.report.changed),
                Err(e) => println!("not synced yet: {e} (a running `serve` keeps trying)"),
            }
        }
        EnginesCommand::Edit { name, url, token, clear_token, keep_token, poll_ms } => {
            let token = if token { Some(read_secret(&format!("engine {name} token"))?.expose().to_owned()) } else { None };
            let changes = EngineChanges { base_url: url, token, clear_token, keep_token, poll_ms, session_only: false };
            let engine = app.edit_engine(&name, changes, &by.narrow()).await?;
            let token = if engine.has_token { ", token in the OS keyring" } else { ", no token" };
            println!("changed engine {}: {} poll {} ms{token}", visible(&engine.name), visible(&engine.base_url), engine.poll_ms);
        }
        EnginesCommand::Remove { name } => {
            app.remove_engine(&name, &by.narrow()).await?;
            println!("removed engine {}", visible(&name));
        }
        EnginesCommand::Sync { name } => match app.sync_engine(&name, &by.narrow()).await {
            Ok(a) => {
                let r = a.report;
                println!(
                    "{}: {} agents, {} calls waiting there; {} added, {} changed, {} gone, {} skipped",
                    visible(&name),
                    r.agents,
                    r.listed,
                    r.added,
                    r.changed,
                    r.gone,
                    r.skipped
                );
            }
            Err(e) => {
                eprintln!("error [{}]: {e}", e.code());
                return Ok(ExitCode::from(1));
            }
        },
    }
    Ok(ExitCode::SUCCESS)
}

/// The remote engines with their health and queue counts; an earlier error dated.
async fn list(app: &App, json: bool) -> Result<()> {
    let engines = app.engines(&app.local_admin("cli")).await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&engines)?);
        return Ok(());
    }
    if engines.is_empty() {
        println!("No remote engines. Add one: approval-console engines add <name> <url> [--kind langgraph] [--token]");
        return Ok(());
    }
    for e in &engines {
        let health = serde_json::to_value(e.health.state)?.as_str().unwrap_or_default().to_owned();
        println!(
            "{:<20} {:<9} {:<40} {:<12} token:{:<3} pending:{} awaiting delivery:{}",
            visible(&e.name),
            e.kind.as_str(),
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
    Ok(())
}
