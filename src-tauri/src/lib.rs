//! The desktop shell: the core (`approval_console`) in-process, its queue in a Tauri window through
//! commands and events, desktop notifications, a tray icon. Wiring only: decisions, storage and
//! engines are the core's.

mod command_names;
pub mod commands;
pub mod tray;

pub use command_names::COMMANDS;

use approval_console::app::App;
use approval_console::console::QueueEvent;
use tauri::{Emitter, Manager, Runtime, WebviewUrl, WebviewWindowBuilder};

/// The main window's label (capabilities/ grants its commands to this label only).
pub const MAIN_WINDOW: &str = "main";

/// Events the window listens to: `queue` (a [`QueueEvent`]), `resync` (reload), `open` (show a call:
/// `{item, reason}` from a notification).
pub const QUEUE_EVENT: &str = "queue";
pub const RESYNC_EVENT: &str = "resync";
pub const OPEN_EVENT: &str = "open";

/// Everything but the platform bits: the core as state, the commands, and the core's events
/// forwarded to the window; `platform` runs at setup after that (the app creates its tray and
/// window there; tests pass nothing). Tests drive it with `tauri::test::mock_builder()`.
pub fn build<R: Runtime>(
    builder: tauri::Builder<R>,
    core: App,
    platform: impl FnOnce(&tauri::AppHandle<R>) -> tauri::Result<()> + Send + 'static,
) -> tauri::Builder<R> {
    builder
        // Start at login: an XDG autostart entry (~/.config/autostart) on Linux.
        .plugin(tauri_plugin_autostart::init(tauri_plugin_autostart::MacosLauncher::LaunchAgent, None))
        .manage(core)
        .invoke_handler({
            // The core's operations by name, then the window's own commands.
            let own: fn(tauri::ipc::Invoke<R>) -> bool = tauri::generate_handler![
                commands::export_audit,
                commands::save_audit_export,
                commands::set_language,
                commands::autostart,
                commands::set_autostart
            ];
            move |invoke| commands::dispatch(invoke, own)
        })
        .setup(move |app| {
            forward_events(app.handle().clone());
            platform(app.handle())?;
            Ok(())
        })
}

/// Forwards the core's queue changes and notification "open" requests to the window.
fn forward_events<R: Runtime>(handle: tauri::AppHandle<R>) {
    let core = handle.state::<App>().inner().clone();
    let mut queue = core.subscribe(&core.local_admin("desktop"));
    let h = handle.clone();
    tauri::async_runtime::spawn(async move {
        loop {
            match queue.recv().await {
                Ok(event) => {
                    let _ = h.emit(QUEUE_EVENT, &event as &QueueEvent);
                    tray::refresh(&h).await;
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    let _ = h.emit(RESYNC_EVENT, ());
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            }
        }
    });
    let mut open = core.open_requests();
    tauri::async_runtime::spawn(async move {
        while let Ok(request) = open.recv().await {
            show_main_window(&handle);
            let _ = handle.emit(OPEN_EVENT, &request);
        }
    });
}

/// Shows, unminimizes and focuses the main window, creating it if needed.
pub fn show_main_window<R: Runtime>(handle: &tauri::AppHandle<R>) {
    let window = match handle.get_webview_window(MAIN_WINDOW) {
        Some(w) => w,
        None => match create_main_window(handle) {
            Ok(w) => w,
            Err(e) => return tracing::error!("cannot open the window: {e}"),
        },
    };
    let _ = window.show();
    let _ = window.unminimize();
    let _ = window.set_focus();
}

/// The window, showing the embedded UI. Closing it hides it: the app stays in the tray.
pub fn create_main_window<R: Runtime>(handle: &tauri::AppHandle<R>) -> tauri::Result<tauri::WebviewWindow<R>> {
    let window = WebviewWindowBuilder::new(handle, MAIN_WINDOW, WebviewUrl::App("index.html".into()))
        .title("Approval Console")
        .inner_size(1200.0, 800.0)
        .min_inner_size(640.0, 420.0)
        .build()?;
    let w = window.clone();
    window.on_window_event(move |event| {
        if let tauri::WindowEvent::CloseRequested { api, .. } = event {
            api.prevent_close();
            let _ = w.hide();
        }
    });
    Ok(window)
}
