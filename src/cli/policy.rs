//! `policy quorum`: the two-person rule's quorums, as the local admin.

use super::args::PolicyCommand;
use anyhow::Result;
use approval_console::app::App;
use approval_console::domain::safety::QuorumSettings;
use approval_console::domain::text::visible;

/// `policy quorum [TOOL [N | --off]] [--json]`.
pub async fn run(app: &App, command: PolicyCommand) -> Result<()> {
    let by = app.local_actor("cli");
    let PolicyCommand::Quorum { tool, approvals, off, json } = command;
    let settings = match (&tool, approvals, off) {
        (Some(tool), _, true) => Some(app.set_quorum(tool, 1, &by).await?),
        (Some(tool), Some(n), false) => Some(app.set_quorum(tool, n, &by).await?),
        _ => None,
    };
    let changed = settings.is_some();
    let settings = match settings {
        Some(s) => s,
        None => app.quorum_settings(&by).await?,
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&settings)?);
        return Ok(());
    }
    let Some(tool) = tool else {
        list(&settings);
        return Ok(());
    };
    let needs = if changed { "now needs" } else { "needs" };
    match settings.quorum(&tool) {
        1 => println!("{} {needs} one approval (no quorum)", visible(&tool)),
        n => println!("{} {needs} {n} approvals by different operators", visible(&tool)),
    }
    Ok(())
}

fn list(settings: &QuorumSettings) {
    if settings.rules.is_empty() {
        println!("No quorums: every call needs one approval. Set one: approval-console policy quorum <tool> 2");
        return;
    }
    let mut rules = settings.rules.clone();
    rules.sort_by(|a, b| a.tool.cmp(&b.tool));
    println!("{:<40} APPROVALS", "TOOL");
    for r in &rules {
        println!("{:<40} {}", visible(&r.tool), r.approvals);
    }
}
