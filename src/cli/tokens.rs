//! `tokens add|list|revoke`, as the local admin.

use super::args::TokensCommand;
use anyhow::Result;
use approval_console::app::tokens::Claims;
use approval_console::app::App;
use approval_console::domain::grade;
use approval_console::domain::text::visible;

/// `tokens add|list|revoke`, as the local admin.
pub async fn run(app: &App, command: TokensCommand) -> Result<()> {
    let by = app.local_admin::<grade::Local>("cli");
    match command {
        TokensCommand::Add { name, role, agents, sources, person } => {
            let role = approval_console::domain::Role::parse(&role).expect("clap checked it");
            let claims =
                Claims { person, agents: (!agents.is_empty()).then_some(agents), sources: (!sources.is_empty()).then_some(sources) };
            let made = app.add_token_with(&name, role, claims, &by.narrow()).await?;
            let c = &made.credential;
            let agents = c.agents.as_ref().map(|a| a.iter().map(|a| visible(a)).collect::<Vec<_>>().join(", "));
            let claims = match (&agents, &c.sources) {
                (None, None) => format!("its calls are queued as agent {}", visible(&c.name)),
                (Some(a), None) => format!("its calls may be of agent {a}"),
                (None, Some(s)) => format!("its calls are queued as agent {}, from {}", visible(&c.name), s.join(", ")),
                (Some(a), Some(s)) => format!("its calls may be of agent {a}, from {}", s.join(", ")),
            };
            println!(
                "made credential {} with role {role} (person {}; {claims}); its token (shown only now):",
                visible(&c.name),
                visible(&c.person)
            );
            println!("{}", made.secret);
        }
        TokensCommand::List { json } => {
            let list = app.tokens(&by.narrow()).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&list)?);
            } else if list.is_empty() {
                println!("No credentials. Make one: approval-console tokens add <name> --role agent|viewer|operator|admin");
            } else {
                let rows: Vec<[String; 6]> = list
                    .iter()
                    .map(|c| {
                        let used =
                            c.last_used_at.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)).unwrap_or_else(|| "never".into());
                        let agents = match &c.agents {
                            Some(a) => format!("agents {}", a.iter().map(|a| visible(a)).collect::<Vec<_>>().join(",")),
                            None => "agent: its name".into(),
                        };
                        let sources = c.sources.as_ref().map(|s| format!("; sources {}", s.join(","))).unwrap_or_default();
                        [
                            visible(&c.name),
                            c.role.to_string(),
                            visible(&c.person),
                            c.created_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                            used,
                            format!("{agents}{sources}"),
                        ]
                    })
                    .collect();
                print_table(["NAME", "ROLE", "PERSON", "CREATED", "LAST USED", "CLAIMS"], &rows);
            }
        }
        TokensCommand::Revoke { name } => {
            let role = app.revoke_token(&name, &by.narrow()).await?;
            println!("revoked credential {} ({role}): its token no longer works", visible(&name));
        }
    }
    Ok(())
}

/// Prints `rows` under `head`, each column as wide as its widest cell (in characters), the last unpadded.
fn print_table<const N: usize>(head: [&str; N], rows: &[[String; N]]) {
    let mut widths: [usize; N] = head.map(|h| h.chars().count());
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut out = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == N {
                out.push_str(cell);
            } else {
                out.push_str(cell);
                out.push_str(&" ".repeat(widths[i] - cell.chars().count() + 2));
            }
        }
        println!("{}", out.trim_end());
    };
    line(head.to_vec());
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
}
