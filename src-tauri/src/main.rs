//! `approval-console-desktop`: the console in a desktop window, with notifications and a tray icon.

// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use anyhow::Context;
use approval_console::api;
use approval_console::app::{default_data_dir, serving, App};
use approval_console::notify::{desktop::DesktopNotifier, Notifier};
use clap::Parser;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tauri::Manager;

/// Approval Console's desktop window: the queue of tool calls AI agents wait on, desktop notifications
/// for new ones, a tray icon with the pending count.
///
/// Also serves the HTTP API on 127.0.0.1 (agents reach the local engine there; a browser may open the
/// console too). A second launch focuses the running window. Closing the window keeps the app in the
/// tray; quit from the tray menu.
#[derive(Parser)]
#[command(name = "approval-console-desktop", version)]
struct Options {
    /// Where the database lives [default: $XDG_DATA_HOME/approval-console or ~/.local/share/approval-console]
    #[arg(long, env = "APPROVAL_CONSOLE_DATA_DIR", value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// The local engine's agents [default: agents.toml in the data directory; without it, the demo agent]
    #[arg(long, env = "APPROVAL_CONSOLE_AGENTS", value_name = "FILE")]
    agents: Option<PathBuf>,
    /// Port of the HTTP API on 127.0.0.1 (0: any free port). A port in use is not fatal: the window works without it.
    #[arg(long, default_value_t = 4319, env = "APPROVAL_CONSOLE_PORT")]
    port: u16,
    /// Session token for the HTTP API [default: the one kept owner-only in the data directory, the same as `serve`'s]
    #[arg(long, env = "APPROVAL_CONSOLE_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Also print the browser URL with the session token in it. Off by default: an app started at
    /// login writes its standard output to the session's journal, which other programs may read.
    #[arg(long)]
    print_url: bool,
    /// Team mode: a PostgreSQL database several consoles share (`postgres://USER@HOST:PORT/DB`)
    /// [default: the SQLite file in the data directory]
    #[arg(long, env = "APPROVAL_CONSOLE_DATABASE_URL", value_name = "URL", hide_env_values = true)]
    database_url: Option<String>,
}

/// What runs beside the window for as long as the app does (dropped at exit).
struct Serving {
    _lock: approval_console::app::ServeLock,
    _background: approval_console::app::Background,
    _server: Option<(api::Server, serving::Registration)>,
    /// The remote listener for paired phones, when Settings → Devices turned it on.
    _remote: Option<api::listen::Running>,
}

fn main() -> anyhow::Result<()> {
    let options = Options::parse();
    approval_console::logging::init(false);
    let data_dir = options.data_dir.unwrap_or_else(default_data_dir);
    let agents_file = options.agents.unwrap_or_else(|| data_dir.join(approval_console::config::AGENTS_FILE));
    let (port, given_token, print_url) = (options.port, options.token.filter(|t| !t.is_empty()), options.print_url);

    // Open the core (no recovery yet: a second launch must not touch the first one's work).
    let core = tauri::async_runtime::block_on(async {
        let agents = approval_console::config::load_agents(&agents_file).await?;
        let location = approval_console::store::Location::new(&data_dir, options.database_url.as_deref())?;
        App::open_at(&data_dir, location.clone(), agents).await.with_context(|| format!("opening {}", location.describe()))
    })?;

    let builder = tauri::Builder::default()
        // A second launch focuses the first instance's window and exits here, before setup.
        .plugin(tauri_plugin_single_instance::init(|app, _args, _cwd| approval_console_desktop::show_main_window(app)));
    let app = approval_console_desktop::build(builder, core, move |handle| {
        // The only instance: recover what the last run left (under the data directory's lock) and
        // start the background work (remote sync, outbox, notifications) and the HTTP API.
        let core = handle.state::<App>().inner().clone();
        let serving = match tauri::async_runtime::block_on(start_serving(core, &data_dir, port, given_token.clone(), print_url)) {
            Ok(serving) => serving,
            Err(e) => {
                // E.g. a `serve` on the same data directory. Said on stderr and as a notification (a
                // launch from a menu has no terminal), then out: Tauri would panic on a setup error.
                eprintln!("approval-console-desktop: {e:#}");
                let _ = DesktopNotifier.tell("Approval Console cannot start", &format!("{e:#}"));
                std::process::exit(1);
            }
        };
        handle.manage(serving);
        approval_console_desktop::tray::create(handle)?;
        approval_console_desktop::create_main_window(handle)?;
        let handle = handle.clone();
        tauri::async_runtime::spawn(async move { approval_console_desktop::tray::refresh(&handle).await });
        Ok(())
    })
    .build(tauri::generate_context!("../tauri.conf.json"))
    .context("starting the desktop app")?;
    app.run(|handle, event| {
        if let tauri::RunEvent::Exit = event {
            // Decisions answered but still being delivered, and the runs they let go on: given a
            // moment to finish (one cut short is taken up at the next start).
            let core = handle.state::<App>().inner().clone();
            if !tauri::async_runtime::block_on(core.finish_deliveries(std::time::Duration::from_secs(10))) {
                tracing::warn!("quit with decisions still being delivered: the next start takes them up");
            }
        }
    });
    Ok(())
}

/// Recovers and serves under the data directory's lock, with the given session token or else the
/// one kept in the data directory (the same as `serve`'s), leaving a record of where it serves.
async fn start_serving(core: App, data_dir: &Path, port: u16, token: Option<String>, print_url: bool) -> anyhow::Result<Serving> {
    if let Some(token) = &token {
        core.check_session_token(token).await?;
    }
    // The receipts' signing key (made on the first start) goes to the OS keyring, as other secrets;
    // so do the channels' secrets the local admin sets in the window.
    core.keep_receipt_keys_in_keyring();
    core.keep_channel_secrets_in_keyring();
    let lock = core.recover().await?;
    let token = match token {
        Some(token) => token,
        None => serving::session_token(data_dir, false)?,
    };
    let token = token.as_str();
    let background = core.start(Some(Arc::new(DesktopNotifier) as Arc<dyn Notifier>));
    // The same HTTP API as `serve`. A port in use (another program) is not fatal.
    let server = match api::serve(core.clone(), port, token).await {
        Ok(server) => {
            // The API's address is no secret; the URL with the token only when asked (`--print-url`).
            let browser = if print_url { format!("   Browser: {}", server.ui_url(token)) } else { String::new() };
            println!("Approval Console is running. Local engine API: http://{}/api/agents{browser}", server.addr);
            // Channels' links open the call here, unless the remote listener below takes them.
            core.set_link_base(&format!("http://{}", server.addr));
            let record = serving::register(&serving::Serving {
                pid: std::process::id(),
                data_dir: std::path::absolute(data_dir).unwrap_or_else(|_| data_dir.to_owned()),
                database: core.data_location(),
                url: format!("http://{}", server.addr),
            });
            Some((server, record))
        }
        Err(e) => {
            tracing::warn!("the HTTP API is not served (127.0.0.1:{port}: {e}); the window works without it");
            None
        }
    };
    // The remote listener, as Settings → Devices set it (applied at start). Not fatal either: the
    // window works without it, and says why in the log.
    let stored = core.remote_settings_at_start().await?;
    let remote = match stored.address() {
        Some(addr) => {
            let public_name = stored.public_name;
            let listen = api::listen::Listen { addr, public_name, certificate: None };
            match api::listen::start(&core, data_dir, listen, token, api::Limits::default()).await {
                Ok(running) => {
                    println!("Remote listener: {} (pin sha256/{})", running.origin, running.tls.pin);
                    Some(running)
                }
                Err(e) => {
                    tracing::warn!("the remote listener is not served ({addr}: {e}); the window works without it");
                    None
                }
            }
        }
        None => None,
    };
    Ok(Serving { _lock: lock, _background: background, _server: server, _remote: remote })
}
