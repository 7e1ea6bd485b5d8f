//! `secret set|check|delete`: needs no data directory. Prints names and lengths, never a value.

use super::args::SecretCommand;
use anyhow::{Context, Result};
use approval_console::domain::text::visible;
use approval_console::domain::Error;
use approval_console::engine::local::model::ApiKey;
use approval_console::secrets;
use std::io::{BufRead, IsTerminal, Write};

/// `secret set|check|delete`: needs no data directory. Prints names and lengths, never a value.
pub async fn run(command: &SecretCommand) -> Result<()> {
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
pub fn read_secret(name: &str) -> Result<ApiKey> {
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
