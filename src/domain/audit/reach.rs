//! The details of the channels' audit entries (issue 28): claims, messages given up on, and the
//! local admin's changes of a channel's secret. Never a channel's secret or a message's text.

use super::{AuditAction, Details};
use crate::domain::reach::SecretPlace;
use serde::Serialize;

/// `call.claimed`: whose it is now.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallClaimed<'a> {
    pub person: &'a str,
}

impl Details for CallClaimed<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::CallClaimed
    }
}

/// `reach.failed`: which channel, whose, after how many attempts, and the last error.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReachFailed<'a> {
    pub channel: &'a str,
    pub person: &'a str,
    pub attempts: i64,
    pub error: &'a str,
}

impl Details for ReachFailed<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::ReachFailed
    }
}

/// `channel_secret.set` and `channel_secret.removed`: which channel, and where its secret is kept
/// (set) or was (removed). Never the value.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum ChannelSecretChanged<'a> {
    Set { channel: &'a str, kept: SecretPlace },
    Removed { channel: &'a str, removed_from: &'a [SecretPlace] },
}

impl Details for ChannelSecretChanged<'_> {
    fn action(&self) -> AuditAction {
        match self {
            Self::Set { .. } => AuditAction::ChannelSecretSet,
            Self::Removed { .. } => AuditAction::ChannelSecretRemoved,
        }
    }
}
