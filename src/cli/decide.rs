//! `approve`, `decline`, `resume`: shows the call, asks, decides with the fingerprint it showed (C3).

use super::{resolve_id, state_word};
use anyhow::{bail, Result};
use approval_console::app::App;
use approval_console::domain::text::visible;
use approval_console::domain::Verdict;
use serde_json::Value;
use std::io::{BufRead, IsTerminal, Write};

/// Shows the call on stderr, asks (unless `yes`), decides and delivers as the local admin.
pub async fn run(app: &App, id: &str, verdict: Verdict, yes: bool) -> Result<()> {
    let id = resolve_id(app, id).await?;
    let item = app.queue_item(id.as_str()).await?;
    let verb = verdict.kind().as_str();
    eprintln!("tool:        {}", visible(&item.tool_name));
    eprintln!("agent:       {}   run: {}   call: {}", visible(&item.agent_id), visible(&item.run_id), visible(&item.tool_call_id));
    eprintln!("arguments:   {}", visible(&serde_json::to_string_pretty(&item.args)?));
    if let Some(p) = &item.suspend_payload {
        eprintln!("payload:     {}", visible(&serde_json::to_string_pretty(p)?));
    }
    eprintln!("fingerprint: {}", item.fingerprint);
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
    let after = app.decide_shown(id.as_str(), verdict, item.fingerprint.as_str(), &app.local_actor("cli")).await?;
    let outcome = after.decision.as_ref().and_then(|d| d.outcome.clone()).unwrap_or(Value::Null);
    println!("{verb}d: {}; state {}; outcome {}", id, state_word(after.state), visible(&outcome.to_string()));
    Ok(())
}
