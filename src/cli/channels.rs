//! `channels secret set|remove|list`, as the local admin: the channel's name and where its secret
//! is kept, never the value.

use super::args::{ChannelSecretCommand, ChannelsCommand};
use anyhow::Result;
use approval_console::app::channel_secrets::SecretValue;
use approval_console::app::App;
use approval_console::domain::reach::SecretPlace;
use approval_console::domain::text::visible;
use approval_console::domain::Error;

fn place(p: SecretPlace) -> &'static str {
    match p {
        SecretPlace::File => "an owner-only file of the data directory",
        SecretPlace::Keyring => "the OS keyring",
    }
}

/// `channels secret set|remove|list`, as the local admin.
pub async fn run(app: &App, command: ChannelsCommand) -> Result<()> {
    let by = app.local_admin::<approval_console::domain::grade::Local>("cli");
    let ChannelsCommand::Secret { command } = command;
    match command {
        ChannelSecretCommand::Set { name, file, keyring } => {
            if keyring {
                app.keep_channel_secrets_in_keyring();
            }
            let value = match &file {
                Some(file) => approval_console::secrets::read_secret_file(file).map_err(Error::from)?,
                None => super::secret::read_secret(&format!("channel {name}"))?,
            };
            let set = app.set_channel_secret(&name, SecretValue { value: value.expose().to_owned() }, &by.narrow()).await?;
            println!("set the secret of channel {} in {} (audited; never shown)", visible(&set.channel), place(set.kept));
        }
        ChannelSecretCommand::Remove { name, keyring } => {
            if keyring {
                app.keep_channel_secrets_in_keyring();
            }
            let removed = app.remove_channel_secret(&name, &by).await?;
            let from: Vec<&str> = removed.removed_from.iter().map(|p| place(*p)).collect();
            println!("removed the secret of channel {} from {}", visible(&removed.channel), from.join(" and "));
        }
        ChannelSecretCommand::List { keyring } => {
            if keyring {
                app.keep_channel_secrets_in_keyring();
            }
            let list = app.channel_secrets(&by.narrow()).await?;
            if list.is_empty() {
                println!("No channel has a secret set. Set one: approval-console channels secret set NAME");
            }
            for s in list {
                println!("{:<24} {}", visible(&s.channel), place(s.kept));
            }
        }
    }
    Ok(())
}
