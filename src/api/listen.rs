//! Starting the remote listener, for `serve` and the desktop app alike: its certificate (given, or
//! made on first use), the core's remote part, the TLS server, and the record of where it listens
//! that `devices pair` reads.

use super::{tls, Limits, Server};
use crate::app::remote::devices::{Listening, LISTENING_FILE};
use crate::app::remote::RemoteConfig;
use crate::app::App;
use crate::domain::Error;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// Where and how to listen.
pub struct Listen {
    pub addr: SocketAddr,
    /// The name phones reach it by (default: the address).
    pub public_name: Option<String>,
    /// A certificate chain and key given (PEM); none: made in `<data dir>/tls/`.
    pub certificate: Option<(PathBuf, PathBuf)>,
}

/// A running remote listener.
pub struct Running {
    pub server: Server,
    pub tls: tls::Tls,
    pub origin: String,
    /// Its record for `devices pair`, removed when dropped.
    pub record: Record,
}

/// The record of where the remote listener listens; removed when dropped.
pub struct Record(PathBuf);

impl Drop for Record {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Starts the remote listener for `app` (its core's remote part turned on), beside 127.0.0.1.
pub async fn start(app: &App, data_dir: &Path, listen: Listen, token: &str, limits: Limits) -> Result<Running, Error> {
    let public_name = listen.public_name.unwrap_or_else(|| listen.addr.ip().to_string());
    let source = match listen.certificate {
        Some((cert, key)) => tls::Source::Given { cert, key },
        None => tls::Source::Made { dir: data_dir.join("tls") },
    };
    let tls = tls::load(&source, &public_name, listen.addr.ip())?;
    let cannot = |e: std::io::Error| Error::InvalidRequest(format!("cannot listen on {} for the remote listener: {e}", listen.addr));
    // Bound first: the relying party needs the port (port 0: the one the system gave), and nothing
    // can take it between.
    let listener = tokio::net::TcpListener::bind(listen.addr).await.map_err(cannot)?;
    let port = listener.local_addr().map_err(cannot)?.port();
    let remote = app.enable_remote(RemoteConfig { public_name, port, pin: tls.pin.clone() })?;
    let server = super::serve_remote(app.clone(), listener, &tls, token, limits).await.map_err(cannot)?;
    let origin = remote.config.origin();
    let record = data_dir.join(LISTENING_FILE);
    crate::app::serving::write_owner_only(
        &record,
        &serde_json::to_string(&Listening { origin: origin.clone(), pin: tls.pin.clone() }).expect("JSON"),
    )?;
    app.set_link_base(&origin);
    Ok(Running { server, tls, origin, record: Record(record) })
}
