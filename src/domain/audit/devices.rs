//! The details of the remote listener's audit entries (issue 28): pairing, devices, sign-ins and
//! what that listener refused. Never a code, a cookie or a passkey's key: names, reasons, addresses.

use super::{AuditAction, Details};
use serde::Serialize;

/// `device.pairing_started`, `device.pairing_ended`, `device.paired`, `device.renamed`,
/// `device.revoked`, `device.signed_in`: which device, whose.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum DeviceChanged<'a> {
    PairingStarted {
        pairing_id: &'a str,
        name: &'a str,
        person: &'a str,
        expires_at: &'a str,
    },
    /// A live pairing saw too many wrong codes (guessing): its code is dead.
    PairingEnded {
        pairing_id: &'a str,
        name: &'a str,
        person: &'a str,
        wrong_tries: i64,
    },
    Paired {
        pairing_id: &'a str,
        device_id: &'a str,
        name: &'a str,
        person: &'a str,
        address: &'a str,
    },
    Renamed {
        device_id: &'a str,
        before: &'a str,
        after: &'a str,
    },
    Revoked {
        device_id: &'a str,
        name: &'a str,
        person: &'a str,
        sessions_ended: u64,
    },
    SignedIn {
        device_id: &'a str,
        name: &'a str,
        address: &'a str,
    },
}

impl Details for DeviceChanged<'_> {
    fn action(&self) -> AuditAction {
        match self {
            Self::PairingStarted { .. } => AuditAction::DevicePairingStarted,
            Self::PairingEnded { .. } => AuditAction::DevicePairingEnded,
            Self::Paired { .. } => AuditAction::DevicePaired,
            Self::Renamed { .. } => AuditAction::DeviceRenamed,
            Self::Revoked { .. } => AuditAction::DeviceRevoked,
            Self::SignedIn { .. } => AuditAction::DeviceSignedIn,
        }
    }
}

/// `device.pairing_failed` or `remote.refused`: why, from where, and for what (a call's id on a
/// refused step-up). `suppressed`: refusals of the last minute not written one by one (a flood).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteRefusal<'a> {
    #[serde(skip)]
    pub pairing: bool,
    pub reason: &'a str,
    pub address: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_id: Option<&'a str>,
    #[serde(skip_serializing_if = "is_zero")]
    pub suppressed: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Details for RemoteRefusal<'_> {
    fn action(&self) -> AuditAction {
        if self.pairing {
            AuditAction::DevicePairingFailed
        } else {
            AuditAction::RemoteRefused
        }
    }
}
