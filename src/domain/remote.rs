//! The remote listener's settings (issue 28): where it listens and the name phones reach it by.

use super::Error;
use serde::{Deserialize, Serialize};

/// The remote listener as configured in the settings (the desktop app's Settings → Devices, or
/// `PUT /api/settings/remote`): where it listens and the name phones reach it by. Applied when the
/// console starts (`serve --listen` overrides it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RemoteSettings {
    /// `ADDR:PORT` (e.g. `0.0.0.0:8443`); none: off.
    #[serde(default)]
    pub listen: Option<String>,
    /// The DNS name phones use (default: the address).
    #[serde(default)]
    pub public_name: Option<String>,
}

impl RemoteSettings {
    /// Refuses an address that is not `ADDR:PORT`, or a name that is not a host name.
    pub fn check(&self) -> Result<(), Error> {
        if let Some(l) = &self.listen {
            l.parse::<std::net::SocketAddr>().map_err(|_| Error::InvalidRequest(format!("{l:?} is not ADDR:PORT (e.g. 0.0.0.0:8443)")))?;
        }
        if let Some(n) = &self.public_name {
            let ok = !n.is_empty()
                && n.len() <= 253
                && n.split('.').all(|l| !l.is_empty() && l.len() <= 63 && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
            if !ok {
                return Err(Error::InvalidRequest(format!("{n:?} is not a host name")));
            }
        }
        Ok(())
    }

    /// Where to listen, if anywhere.
    pub fn address(&self) -> Option<std::net::SocketAddr> {
        self.listen.as_deref().and_then(|l| l.parse().ok())
    }
}

/// What one caller at `ip` is counted as by every per-address limit (connections, the remote
/// listener's ceremonies and pairing tries): an IPv4 address itself (an IPv4-mapped IPv6 one too),
/// an IPv6 address's /64 (what one subscriber is usually given, so that one host cannot count as
/// 2^64 peers).
pub fn share(ip: std::net::IpAddr) -> std::net::IpAddr {
    use std::net::IpAddr;
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        },
    }
}
