//! `queue` and `show`: the calls as the API shows them.

use super::{resolve_id, state_word};
use anyhow::Result;
use approval_console::app::query::{QueueQuery, StateFilter};
use approval_console::app::queue::QueueItem;
use approval_console::app::App;
use approval_console::domain::text::visible;
use approval_console::domain::{DecisionKind, Delivery};

/// `queue`: pending calls (or every call with `all`), newest first, as a table or as JSON.
pub async fn list(app: &App, all: bool, agent: Option<String>, tool: Option<String>, limit: u32, json: bool) -> Result<()> {
    let query = QueueQuery {
        state: Some(if all { StateFilter::All } else { StateFilter::Pending }),
        agent,
        tool,
        limit: Some(limit.clamp(1, 500)),
        ..Default::default()
    };
    let page = app.queue_page(&query, &app.local_admin("cli")).await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&page.items)?);
        return Ok(());
    }
    if page.items.is_empty() {
        let what = if all { "The queue is empty" } else { "No call is waiting" };
        println!("{what}. Database: {}", app.data_location());
        return Ok(());
    }
    println!("{:<35} {:<11} {:<9} {:<16} {:<20} {:<12} ARGS", "ID", "STATE", "KIND", "AGENT", "TOOL", "FINGERPRINT");
    for item in &page.items {
        let args: String = visible(&item.args.to_string()).chars().take(48).collect();
        println!(
            "{:<35} {:<11} {:<9} {:<16} {:<20} {:<12} {args}",
            item.id,
            state_word(item.state),
            format!("{:?}", item.kind).to_lowercase(),
            visible(&item.agent_id),
            visible(&item.tool_name),
            item.fingerprint.short(),
        );
        let outcome = outcome_of(item);
        if !outcome.is_empty() {
            println!("{:<35} {outcome}", "");
        }
    }
    if page.next_cursor.is_some() {
        println!("(more: use --limit)");
    }
    Ok(())
}

/// `show`: one call in full, as the API answers it.
pub async fn show(app: &App, id: &str) -> Result<()> {
    let item = app.queue_item(resolve_id(app, id).await?.as_str(), &app.local_admin("cli")).await?;
    println!("{}", serde_json::to_string_pretty(&item)?);
    Ok(())
}

/// A call's outcome in a few words: `approved by alice (cli), delivered`, `declined …`, `expired`, `gone`.
fn outcome_of(item: &QueueItem) -> String {
    let Some(d) = &item.decision else {
        return match item.state {
            approval_console::domain::ItemState::Gone => "gone (ended at the engine)".into(),
            _ => String::new(),
        };
    };
    if d.expired_after_secs.is_some() {
        return format!("expired, {}", delivery_word(d.delivery));
    }
    let what = match d.kind {
        DecisionKind::Approve => "approved",
        DecisionKind::Edit => "approved with edits",
        DecisionKind::Decline => "declined",
        DecisionKind::Resume => "answered",
        DecisionKind::Ran | DecisionKind::DidNotRun | DecisionKind::RunAgain => "resolved",
    };
    let decided = format!("{what} by {}, {}", visible(&d.operator), delivery_word(d.delivery));
    if item.state != approval_console::domain::ItemState::Interrupted {
        return decided;
    }
    // Cut by a stop while the tool ran: say what became of it, or what the operator can say.
    match &item.resolution {
        Some(r) => {
            let said = match r.kind {
                DecisionKind::Ran => "it ran",
                DecisionKind::DidNotRun => "it did not run",
                _ => "run again",
            };
            format!("{decided}; interrupted, resolved by {}: {said}", visible(&r.operator))
        }
        None => {
            let choices: Vec<&str> = item.allowed.iter().map(|k| k.as_str()).collect();
            format!("{decided}; interrupted: did it run? `resolve {} {}`", item.id, choices.join("|").replace('_', "-"))
        }
    }
}

fn delivery_word(d: Delivery) -> &'static str {
    match d {
        Delivery::Pending => "to deliver",
        Delivery::Delivering => "delivering",
        Delivery::Delivered => "delivered",
        Delivery::Failed => "delivery failed",
    }
}
