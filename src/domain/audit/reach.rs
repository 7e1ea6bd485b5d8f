//! The details of the channels' audit entries (issue 28): claims, and messages given up on. Never
//! a channel's secret or a message's text.

use super::{AuditAction, Details};
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
