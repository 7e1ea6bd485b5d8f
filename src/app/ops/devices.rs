//! Paired devices (issue 28), by an admin: pairing started from the Settings, the window or the CLI
//! (`approval-console devices pair`); the devices listed, renamed and revoked.

use crate::app::remote::devices::{PairingRequest, PairingStarted};
use crate::app::remote::{RemoteSettings, RemoteView};
use crate::store::devices::Device;
use serde::{Deserialize, Serialize};

/// A device's new name (`PATCH /api/devices/{name}`).
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeviceRename {
    pub name: String,
}

/// A device just revoked.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevokedDevice {
    pub name: String,
    /// Its sessions ended by the revocation.
    pub sessions_ended: u64,
}

crate::declare_operations! {
    RemoteSettings(Nothing, none) -> RemoteView, 200 "Where the remote listener listens and its public name, and whether it runs here";
        errors []
        |app, _, _, by| { Ok(app.remote_settings(by).await?.into()) }

    SaveRemoteSettings(Nothing, body RemoteSettings, window "settings") -> RemoteView, 200 "Stored and audited; applied at the console's next start";
        errors [400 "invalid_request: not ADDR:PORT, or not a host name"]
        |app, _, s, by| { Ok(app.save_remote_settings(s, by).await?.into()) }

    ListDevices(Nothing, none) -> [Device], 200 "The paired devices that are not revoked, by name";
        errors []
        |app, _, _, by| { Ok(app.devices(by).await?.into()) }

    StartPairing(Nothing, body PairingRequest, window "request") -> PairingStarted, 201 "A pairing code for the phone (shown only now), its link and QR code";
        errors [400 "invalid_request: the remote listener is off, or the name is taken or not allowed"]
        |app, _, r, by| { Ok(app.start_pairing(r, by).await?.into()) }

    RenameDevice(Name, body DeviceRename, window "rename") -> Device, 200 "Renamed";
        errors [404 "not_found: no live device of that name", 400 "invalid_request: the new name is taken or not allowed"]
        |app, p, r, by| { Ok(app.rename_device(&p.name, &r.name, by).await?.into()) }

    RevokeDevice(Name, none) -> RevokedDevice, 200 "Revoked: its sessions end at once";
        errors [404 "not_found: no live device of that name"]
        |app, p, _, by| {
            let sessions_ended = app.revoke_device(&p.name, by).await?;
            Ok(RevokedDevice { name: p.name, sessions_ended }.into())
        }
}
