//! `devices pair|list|rename|revoke`, as the local admin.

use super::args::DevicesCommand;
use anyhow::Result;
use approval_console::app::remote::devices::{qr_text, PairingRequest};
use approval_console::app::App;
use approval_console::domain::grade;
use approval_console::domain::text::visible;
use approval_console::domain::Error;
use std::io::{BufRead, IsTerminal, Write};

/// Whose device a pairing without `--person` is, asked on a terminal: a person's name, or
/// `None` for the local admin's own (answered with Enter alone, as the question says). Off a
/// terminal, refused (`invalid_request`) naming `--person`: a script never pairs the local admin's
/// device by leaving it out.
fn whose_device() -> Result<Option<String>> {
    if !std::io::stdin().is_terminal() {
        return Err(Error::InvalidRequest(
            "whose device is it? Not asked, as this is not a terminal: name the person with --person NAME \
             (the two-person rule counts the device's approvals as that person's)"
                .into(),
        )
        .into());
    }
    let me = approval_console::app::account::os_account();
    eprint!(
        "Whose device is it? A person's name (the two-person rule counts its approvals as theirs), or Enter for yours ({}): ",
        visible(&me)
    );
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    let answer = answer.trim();
    Ok((!answer.is_empty()).then(|| answer.to_owned()))
}

pub async fn run(app: &App, command: DevicesCommand) -> Result<()> {
    let by = app.local_admin::<grade::Local>("cli");
    match command {
        DevicesCommand::Pair { name, person } => {
            let person = match person {
                Some(p) => Some(p),
                None => whose_device()?,
            };
            let p = app.start_pairing(PairingRequest { name, person }, &by.narrow()).await?;
            println!("{}", qr_text(&p.url)?);
            println!("Pair {} (an operator credential of {}): open on the phone", visible(&p.name), visible(&p.person));
            println!("  {}", p.url);
            println!("or open the listener's page and type the code  {}", p.code);
            println!("The phone should show the certificate pin  {}", p.pin);
            println!("The code works once, until {} (UTC).", p.expires_at.format("%H:%M:%S"));
        }
        DevicesCommand::List { json } => {
            let list = app.devices(&by.narrow()).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&list)?);
            } else if list.is_empty() {
                println!("No paired devices. Pair one: approval-console devices pair (with serve --listen running)");
            } else {
                println!("{:<24} {:<16} {:<20} {:<20} SESSIONS", "NAME", "PERSON", "PAIRED", "LAST USED");
                for d in list {
                    let last = d.last_used_at.map(|t| t.format("%Y-%m-%d %H:%M").to_string()).unwrap_or_else(|| "-".into());
                    println!(
                        "{:<24} {:<16} {:<20} {:<20} {}",
                        visible(&d.name),
                        visible(&d.person),
                        d.created_at.format("%Y-%m-%d %H:%M"),
                        last,
                        d.sessions
                    );
                }
            }
        }
        DevicesCommand::Rename { name, new_name } => {
            let d = app.rename_device(&name, &new_name, &by.narrow()).await?;
            println!("renamed device {} to {}", visible(&name), visible(&d.name));
        }
        DevicesCommand::Revoke { name } => {
            let ended = app.revoke_device(&name, &by.narrow()).await?;
            println!("revoked device {}; {ended} session(s) ended", visible(&name));
        }
    }
    Ok(())
}
