//! `channels secret set|remove|list`: the channels' secrets, by the local admin.

use clap::Subcommand;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum ChannelsCommand {
    /// A channel's secret: its webhook's signing key, its Slack webhook URL, its SMTP password or
    /// its Matrix access token. Kept apart from every other secret, found by the channel's name
    /// alone: an owner-only file of the data directory (channel-secrets/NAME), or with --keyring
    /// the OS keyring's entry channel.NAME (where the desktop app keeps them). Never in the
    /// settings, the database or the audit log (which records who set it and where).
    Secret {
        #[command(subcommand)]
        command: ChannelSecretCommand,
    },
}

#[derive(Subcommand)]
pub enum ChannelSecretCommand {
    /// Set a channel's secret, replacing any it had: read from --file, else one line of standard
    /// input (on a terminal: asked for, without echo). The channel need not be in the settings yet.
    Set {
        /// The channel's name (as in Settings → Channels).
        name: String,
        /// Read it from this owner-only file (the secret alone, on one line).
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
        /// Keep it in the OS keyring (entry channel.NAME) rather than in a file: for the desktop
        /// app, which looks there; `serve` reads the file.
        #[arg(long)]
        keyring: bool,
    },
    /// Remove a channel's secret (from its file, and with --keyring from the OS keyring too).
    Remove {
        /// The channel's name.
        name: String,
        /// Also from the OS keyring.
        #[arg(long)]
        keyring: bool,
    },
    /// List the channels whose secret is set, and where (never a value).
    List {
        /// Also look in the OS keyring.
        #[arg(long)]
        keyring: bool,
    },
}
