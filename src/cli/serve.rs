//! `serve`: the HTTP API, the web UI and the local engine on 127.0.0.1, until a signal.

use anyhow::{Context, Result};
use approval_console::api;
use approval_console::app::{serving, App};
use std::io::Write;
use std::path::Path;

/// Serves until Ctrl-C or SIGTERM, holding the data directory's lock, with `token` or else the one
/// kept in the data directory (`new_token`: a new one kept), and a record of where it serves for the
/// CLI to find (see [`serving`]).
pub async fn run(
    app: &App,
    data_dir: &Path,
    port: u16,
    token: Option<String>,
    new_token: bool,
    notify: bool,
    limits: api::Limits,
) -> Result<()> {
    let token = token.filter(|t| !t.is_empty());
    if let Some(token) = &token {
        app.check_session_token(token).await?;
    }
    // Held until the server stops: a second `serve` or the desktop app on this data directory is refused.
    let _serving = app.recover().await?;
    let notifier = notify.then(|| {
        std::sync::Arc::new(approval_console::notify::desktop::DesktopNotifier) as std::sync::Arc<dyn approval_console::notify::Notifier>
    });
    let _background = app.start(notifier);
    let token = match token {
        Some(token) => token,
        None => serving::session_token(data_dir, new_token)?,
    };
    let server = api::serve_with(app.clone(), port, &token, limits)
        .await
        .with_context(|| format!("cannot listen on 127.0.0.1:{port} (in use? try --port 0)"))?;
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
    let _ = out.flush();
    drop(out);
    server.run_until_signal().await;
    Ok(())
}
