//! `engines list|add|edit|remove|sync`, as the local admin.

use super::args::EnginesCommand;
use super::secret::read_secret;
use anyhow::Result;
use approval_console::app::engines::{EngineChanges, NewEngine};
use approval_console::app::App;
use approval_console::domain::text::visible;
use approval_console::engine::kinds;
use std::process::ExitCode;

pub async fn run(app: &App, command: EnginesCommand) -> Result<ExitCode> {
    let by = app.local_actor("cli");
    match command {
        EnginesCommand::List { json } => list(app, json).await?,
        EnginesCommand::Add { name, url, kind, token, poll_ms } => {
            let kind = kinds::parse_remote(&kind)?;
            let token = if token { Some(read_secret(&format!("engine {name} token"))?.expose().to_owned()) } else { None };
            let new = NewEngine { name, kind, base_url: url, token, poll_ms: Some(poll_ms), session_only: false };
            let engine = app.add_engine(new, &by).await?;
            let where_token = if engine.has_token { " (token in the OS keyring)" } else { "" };
            println!("added {} engine {} at {}{where_token}", engine.kind.as_str(), visible(&engine.name), visible(&engine.base_url));
            let agents = kinds::remote(engine.kind)?.lists;
            eprintln!("checking that {} answers (an engine that does not is waited for until its timeout)…", visible(&engine.base_url));
            match app.sync_engine(&engine.name, &by).await {
                Ok(a) => println!("reachable: {} {agents}, {} waiting calls queued", a.report.agents, a.report.added + a.report.changed),
                Err(e) => println!("not synced yet: {e} (a running `serve` keeps trying)"),
            }
        }
        EnginesCommand::Edit { name, url, token, clear_token, keep_token, poll_ms } => {
            let token = if token { Some(read_secret(&format!("engine {name} token"))?.expose().to_owned()) } else { None };
            let changes = EngineChanges { base_url: url, token, clear_token, keep_token, poll_ms, session_only: false };
            let engine = app.edit_engine(&name, changes, &by).await?;
            let token = if engine.has_token { ", token in the OS keyring" } else { ", no token" };
            println!("changed engine {}: {} poll {} ms{token}", visible(&engine.name), visible(&engine.base_url), engine.poll_ms);
        }
        EnginesCommand::Remove { name } => {
            app.remove_engine(&name, &by).await?;
            println!("removed engine {}", visible(&name));
        }
        EnginesCommand::Sync { name } => match app.sync_engine(&name, &by).await {
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
    let engines = app.engines(&app.local_actor("cli")).await?;
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
