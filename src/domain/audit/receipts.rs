//! The details of the receipts' key changes (issue 29): which key, whose, why. Never the secret:
//! the public key's id and where the secret is kept (a keyring entry's name or a file's).

use super::{AuditAction, Details};
use serde::Serialize;

/// `receipt_key.created` or `receipt_key.rotated`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptKeyChanged<'a> {
    #[serde(skip)]
    pub rotated: bool,
    pub kid: &'a str,
    /// The console whose key it is (its local engine's id).
    pub instance: &'a str,
    /// Where the secret half is kept: `keyring:<entry>` or `file:<name>` in the data directory.
    pub kept: &'a str,
    /// The key it replaces, now retired.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retired: Option<&'a str>,
    pub reason: &'a str,
}

impl Details for ReceiptKeyChanged<'_> {
    fn action(&self) -> AuditAction {
        if self.rotated {
            AuditAction::ReceiptKeyRotated
        } else {
            AuditAction::ReceiptKeyCreated
        }
    }
}
