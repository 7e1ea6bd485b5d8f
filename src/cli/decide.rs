//! `approve`, `decline`, `resume`, `resolve`: shows the call, asks, decides (or resolves an
//! interrupted call) with the fingerprint it showed (C3).

use super::{resolve_id, state_word};
use anyhow::{bail, Result};
use approval_console::app::queue::QueueItem;
use approval_console::app::App;
use approval_console::domain::text::visible;
use approval_console::domain::{DecisionKind, Verdict};
use serde_json::Value;
use std::io::{BufRead, IsTerminal, Write};

/// Shows the call on stderr, asks (unless `yes`), decides and delivers as the local admin.
pub async fn run(app: &App, id: &str, verdict: Verdict, yes: bool) -> Result<()> {
    let id = resolve_id(app, id).await?;
    let item = app.queue_item(id.as_str(), &app.local_admin("cli")).await?;
    let verb = verdict.kind().as_str();
    if !confirmed(&item, &format!("{verb} this call?"), verb, yes)? {
        return Ok(());
    }
    let decided = app.decide_shown(id.as_str(), verdict, item.fingerprint.as_str(), &app.local_admin("cli")).await?;
    let after = delivered(app, decided).await?;
    if after.decision.is_none() {
        // An approval short of its tool's quorum: recorded; the call waits for other operators.
        println!("approval recorded: {}; {}; it waits for another operator's approval", id, approvals_line(&after));
        return Ok(());
    }
    let outcome = after.decision.as_ref().and_then(|d| d.outcome.clone()).unwrap_or(Value::Null);
    println!("{verb}d: {}; state {}; outcome {}", id, state_word(after.state), visible(&outcome.to_string()));
    Ok(())
}

/// The entry `decided` once what this process set going is over: the console answers a decision
/// before delivering it, and this command's process must not exit before the delivery and the run
/// it lets go on have finished (or paused) — a run cut short by the exit would wait for the next
/// `serve` to start.
async fn delivered(app: &App, decided: QueueItem) -> Result<QueueItem> {
    if !app.finish_deliveries(DELIVERY_WAIT).await {
        eprintln!("still delivering after {} s; the next start of the console takes it up", DELIVERY_WAIT.as_secs());
    }
    Ok(app.queue_item(decided.id.as_str(), &app.local_admin("cli")).await?)
}

/// How long a deciding command waits for its delivery and the run it lets go on.
const DELIVERY_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// `1 of 2 approvals: alice (web)`: where a call of a tool with a quorum stands.
fn approvals_line(item: &QueueItem) -> String {
    let names: Vec<String> = item.approvals.iter().map(|a| visible(&a.operator)).collect();
    let count = format!("{} of {} approvals", item.approvals.len(), item.quorum);
    if names.is_empty() {
        count
    } else {
        format!("{count}: {}", names.join(", "))
    }
}

/// `resolve`: shows the interrupted call, asks (unless `yes`), resolves it as the local admin.
pub async fn resolve(app: &App, id: &str, how: super::args::ResolveHow, result: Option<Value>, yes: bool) -> Result<()> {
    use super::args::ResolveHow;
    let id = resolve_id(app, id).await?;
    let item = app.queue_item(id.as_str(), &app.local_admin("cli")).await?;
    let (kind, question) = match how {
        ResolveHow::Ran => (DecisionKind::Ran, "tell the agent this call ran?"),
        ResolveHow::DidNotRun => (DecisionKind::DidNotRun, "tell the agent this call did not run?"),
        ResolveHow::RunAgain => (DecisionKind::RunAgain, "run this call again?"),
    };
    if !confirmed(&item, question, "resolve", yes)? {
        return Ok(());
    }
    let resolved = app.resolve(id.as_str(), kind, result, item.fingerprint.as_str(), &app.local_admin("cli")).await?;
    let after = delivered(app, resolved).await?;
    match kind {
        DecisionKind::RunAgain => {
            let outcome = after.decision.as_ref().and_then(|d| d.outcome.clone()).unwrap_or(Value::Null);
            println!("ran again as {}; state {}; outcome {}", after.id, state_word(after.state), visible(&outcome.to_string()));
        }
        _ => println!("resolved {}: {}; the run went on", id, kind.as_str()),
    }
    Ok(())
}

/// Shows the call on stderr and asks `question` (unless `yes`); false when the answer is no.
fn confirmed(item: &QueueItem, question: &str, verb: &str, yes: bool) -> Result<bool> {
    eprintln!("tool:        {}", visible(&item.tool_name));
    eprintln!("agent:       {}   run: {}   call: {}", visible(&item.agent_id), visible(&item.run_id), visible(&item.tool_call_id));
    eprintln!("arguments:   {}", visible(&serde_json::to_string_pretty(&item.args)?));
    if let Some(p) = &item.suspend_payload {
        eprintln!("payload:     {}", visible(&serde_json::to_string_pretty(p)?));
    }
    eprintln!("fingerprint: {}", item.fingerprint);
    if item.quorum > 1 {
        eprintln!("quorum:      {} (each by a different operator)", approvals_line(item));
    }
    if yes {
        return Ok(true);
    }
    if !std::io::stdin().is_terminal() {
        bail!("not a terminal: pass --yes to {verb} without asking");
    }
    eprint!("{question} [y/N] ");
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    let yes = matches!(answer.trim(), "y" | "Y" | "yes");
    if !yes {
        eprintln!("nothing done");
    }
    Ok(yes)
}
