//! `approval-console-desktop`: the console in a desktop window, with notifications and a tray icon.

// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use anyhow::Context;
use approval_console::api;
use approval_console::app::{default_data_dir, App};
use approval_console::notify::{desktop::DesktopNotifier, Notifier};
use std::sync::Arc;

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("APPROVAL_CONSOLE_LOG").unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .init();
    let data_dir = std::env::var_os("APPROVAL_CONSOLE_DATA_DIR").map(Into::into).unwrap_or_else(default_data_dir);
    let agents_file = std::env::var_os("APPROVAL_CONSOLE_AGENTS").map(std::path::PathBuf::from).unwrap_or_else(|| data_dir.join(approval_console::config::AGENTS_FILE));

    // The core first, on Tauri's async runtime: open, recover what the last run left, start the
    // background work (remote sync, outbox, notifications).
    let port: u16 = std::env::var("APPROVAL_CONSOLE_PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(4319);
    let token = std::env::var("APPROVAL_CONSOLE_TOKEN").ok().filter(|t| !t.is_empty()).unwrap_or_else(api::random_token);
    let (core, background, server) = tauri::async_runtime::block_on(async {
        let agents = approval_console::config::load_agents(&agents_file).await?;
        let core = App::open(&data_dir, agents).await.with_context(|| format!("opening data directory {}", data_dir.display()))?;
        core.recover().await?;
        let background = core.start(Some(Arc::new(DesktopNotifier) as Arc<dyn Notifier>));
        // The same HTTP API as `serve` on 127.0.0.1 (agents reach the local engine there; a browser
        // may open the console too). A port in use (a `serve` already running) is not fatal.
        let server = match api::serve(core.clone(), port, &token).await {
            Ok(server) => {
                println!("Approval Console is running. Local engine API: http://{}/api/agents   Browser: {}", server.addr, server.ui_url(&token));
                Some(server)
            }
            Err(e) => {
                tracing::warn!("the HTTP API is not served (127.0.0.1:{port}: {e}); the window works without it");
                None
            }
        };
        anyhow::Ok((core, background, server))
    })?;

    let builder = tauri::Builder::default()
        // A second launch focuses the first instance's window instead.
        .plugin(tauri_plugin_single_instance::init(|app, _args, _cwd| approval_console_desktop::show_main_window(app)));
    let app = approval_console_desktop::build(builder, core, |handle| {
        approval_console_desktop::tray::create(handle)?;
        approval_console_desktop::create_main_window(handle)?;
        let handle = handle.clone();
        tauri::async_runtime::spawn(async move { approval_console_desktop::tray::refresh(&handle).await });
        Ok(())
    })
    .build(tauri::generate_context!("../tauri.conf.json"))
        .context("starting the desktop app")?;
    app.run(move |_, event| {
        if let tauri::RunEvent::Exit = event {
            // Stops remote sync, the outbox worker, notifications and the HTTP API.
            let _ = (&background, &server);
        }
    });
    Ok(())
}
