//! `serve`: the HTTP API, the web UI and the local engine on 127.0.0.1, and with `--listen` the
//! remote listener for paired phones (TLS only), until a signal.

use super::args::RemoteArgs;
use anyhow::{Context, Result};
use approval_console::api;
use approval_console::app::{serving, App};
use std::io::Write;
use std::path::Path;

/// What `serve` was asked for.
pub struct Options {
    pub port: u16,
    /// The session token given (`--token`, `--token-file`), else the kept one.
    pub token: Option<String>,
    pub new_token: bool,
    pub notify: bool,
    pub limits: api::Limits,
    pub remote: RemoteArgs,
}

/// Serves until Ctrl-C or SIGTERM, holding the data directory's lock, with the token given or else
/// the one kept in the data directory (`new_token`: a new one kept), and a record of where it serves
/// for the CLI to find (see [`serving`]).
pub async fn run(app: &App, data_dir: &Path, o: Options) -> Result<()> {
    let token = o.token.filter(|t| !t.is_empty());
    if let Some(token) = &token {
        app.check_session_token(token).await?;
    }
    // Held until the server stops: a second `serve` or the desktop app on this data directory is refused.
    let _serving = app.recover().await?;
    let notifier = o.notify.then(|| {
        std::sync::Arc::new(approval_console::notify::desktop::DesktopNotifier) as std::sync::Arc<dyn approval_console::notify::Notifier>
    });
    let _background = app.start(notifier);
    let token = match token {
        Some(token) => token,
        None => serving::session_token(data_dir, o.new_token)?,
    };
    let server = api::serve_with(app.clone(), o.port, &token, o.limits.clone())
        .await
        .with_context(|| format!("cannot listen on 127.0.0.1:{} (in use? try --port 0)", o.port))?;
    // The remote listener: `--listen`, else the settings (Settings → Devices in the desktop app).
    let stored = app.remote_settings_at_start().await?;
    let listen = match o.remote.listen.or_else(|| stored.address()) {
        Some(addr) => Some(api::listen::Listen {
            addr,
            public_name: o.remote.public_name.clone().or_else(|| if o.remote.listen.is_some() { None } else { stored.public_name.clone() }),
            certificate: o.remote.tls_cert.clone().zip(o.remote.tls_key.clone()),
        }),
        None => None,
    };
    let remote = match listen {
        Some(listen) => Some(api::listen::start(app, data_dir, listen, &token, o.limits).await?),
        None => None,
    };
    if remote.is_none() {
        // Channels' links open the call on this machine.
        app.set_link_base(&format!("http://{}", server.addr));
    }
    let _record = serving::register(&serving::Serving {
        pid: std::process::id(),
        data_dir: std::path::absolute(data_dir).unwrap_or_else(|_| data_dir.to_owned()),
        database: app.data_location(),
        url: format!("http://{}", server.addr),
    });
    // Printed once; a closed stdout (`serve | head -1`) must not stop the server.
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "Approval Console is serving. Open: {}", server.ui_url(&token));
    let _ = writeln!(out, "Data: {}   Local engine API: http://{}/api/agents", app.data_location(), server.addr);
    if let Some(r) = &remote {
        let _ = writeln!(
            out,
            "Remote listener: {} (TLS on {}; certificate {}, pin sha256/{}). Pair a phone: approval-console devices pair",
            r.origin,
            r.server.addr,
            r.tls.cert_file.display(),
            r.tls.pin
        );
    }
    let _ = out.flush();
    drop(out);
    match remote {
        Some(r) => {
            let api::listen::Running { server: remote_server, record, .. } = r;
            server.run_until_signal_with(remote_server).await;
            drop(record);
        }
        None => server.run_until_signal().await,
    }
    if !app.finish_deliveries(std::time::Duration::from_secs(10)).await {
        tracing::warn!("stopped with decisions still being delivered: the next start takes them up (a local tool cut short is `interrupted`, for an operator to resolve)");
    }
    Ok(())
}
