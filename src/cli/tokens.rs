//! `tokens add|list|revoke`, as the local admin.

use super::args::TokensCommand;
use anyhow::Result;
use approval_console::app::App;
use approval_console::domain::text::visible;

/// `tokens add|list|revoke`, as the local admin.
pub async fn run(app: &App, command: TokensCommand) -> Result<()> {
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
                println!("No credentials. Make one: approval-console tokens add <name> --role agent|viewer|operator|admin");
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
