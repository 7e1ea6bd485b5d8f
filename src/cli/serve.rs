//! `serve`: the HTTP API, the web UI and the local engine on 127.0.0.1, and with `--listen` the
//! remote listener for paired phones (TLS only), until a signal.

use super::args::RemoteArgs;
use anyhow::{Context, Result};
use approval_console::api;
use approval_console::app::remote::devices::{Listening, LISTENING_FILE};
use approval_console::app::remote::RemoteConfig;
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
    let remote = match o.remote.listen {
        Some(addr) => Some(listen(app, data_dir, addr, &o.remote, &token, o.limits).await?),
        None => None,
    };
    // Channels' links open the call: on the remote listener when it is on, else on this machine.
    let base = app.remote().map(|r| r.config.origin()).unwrap_or_else(|| format!("http://{}", server.addr));
    app.set_link_base(&base);
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
    if let Some((remote, tls)) = &remote {
        let origin = app.remote().map(|r| r.config.origin()).unwrap_or_default();
        let _ = writeln!(
            out,
            "Remote listener: {origin} (TLS on {}; certificate {}, pin sha256/{}). Pair a phone: approval-console devices pair",
            remote.addr,
            tls.cert_file.display(),
            tls.pin
        );
    }
    let _ = out.flush();
    drop(out);
    match remote {
        Some((remote, _)) => {
            server.run_until_signal_with(remote).await;
            let _ = std::fs::remove_file(data_dir.join(LISTENING_FILE));
        }
        None => server.run_until_signal().await,
    }
    Ok(())
}

async fn listen(
    app: &App,
    data_dir: &Path,
    addr: std::net::SocketAddr,
    args: &RemoteArgs,
    token: &str,
    limits: api::Limits,
) -> Result<(api::Server, api::tls::Tls)> {
    let public_name = args.public_name.clone().unwrap_or_else(|| addr.ip().to_string());
    let source = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => api::tls::Source::Given { cert: cert.clone(), key: key.clone() },
        _ => api::tls::Source::Made { dir: data_dir.join("tls") },
    };
    let tls = api::tls::load(&source, &public_name, addr.ip())?;
    // The port the listener gets (0: any free one) is known after binding; the relying party needs
    // it, so a port 0 is bound once to learn a free port.
    let port = if addr.port() == 0 { std::net::TcpListener::bind(addr)?.local_addr()?.port() } else { addr.port() };
    app.enable_remote(RemoteConfig { public_name, port, pin: tls.pin.clone() })?;
    let server = api::serve_remote(app.clone(), std::net::SocketAddr::new(addr.ip(), port), &tls, token, limits)
        .await
        .with_context(|| format!("cannot listen on {addr} for the remote listener"))?;
    let listening = Listening { origin: app.remote().map(|r| r.config.origin()).unwrap_or_default(), pin: tls.pin.clone() };
    approval_console::app::serving::write_owner_only(&data_dir.join(LISTENING_FILE), &serde_json::to_string(&listening)?)?;
    Ok((server, tls))
}
