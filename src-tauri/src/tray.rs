//! The tray icon: the pending count, and a menu to open the window, pause notifications, or quit.

use approval_console::app::App;
use approval_console::notify::Lang;
use tauri::menu::{CheckMenuItem, Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::{TrayIcon, TrayIconBuilder};
use tauri::{Manager, Runtime};

const TRAY: &str = "main";

/// Creates the tray icon with its menu.
pub fn create<R: Runtime>(app: &tauri::AppHandle<R>) -> tauri::Result<TrayIcon<R>> {
    // In the desktop locale's language, like the notifications.
    let lang = Lang::current();
    let open = MenuItem::with_id(app, "open", lang.tray_open(), true, None::<&str>)?;
    let pause = CheckMenuItem::with_id(app, "pause", lang.tray_pause(), true, false, None::<&str>)?;
    let quit = MenuItem::with_id(app, "quit", lang.tray_quit(), true, None::<&str>)?;
    let menu = Menu::with_items(app, &[&open, &pause, &PredefinedMenuItem::separator(app)?, &quit])?;
    app.manage(TrayItems { open: open.clone(), pause: pause.clone(), quit: quit.clone() });
    let mut builder = TrayIconBuilder::with_id(TRAY).menu(&menu).tooltip("Approval Console");
    if let Some(icon) = app.default_window_icon() {
        builder = builder.icon(icon.clone());
    }
    builder
        .on_menu_event(move |app, event| match event.id().as_ref() {
            "open" => crate::show_main_window(app),
            "pause" => {
                let core = app.state::<App>();
                let paused = !core.notifications_paused();
                core.set_notifications_paused(paused);
                let _ = pause.set_checked(paused);
            }
            "quit" => app.exit(0),
            _ => {}
        })
        .build(app)
}

/// The tray menu's items, to say them again in another language.
struct TrayItems<R: Runtime> {
    open: MenuItem<R>,
    pause: CheckMenuItem<R>,
    quit: MenuItem<R>,
}

/// Says the tray's menu and tooltip in the language now current (after a choice in the window).
pub async fn relabel<R: Runtime>(app: &tauri::AppHandle<R>) {
    if let Some(items) = app.try_state::<TrayItems<R>>() {
        let lang = Lang::current();
        let _ = items.open.set_text(lang.tray_open());
        let _ = items.pause.set_text(lang.tray_pause());
        let _ = items.quit.set_text(lang.tray_quit());
    }
    refresh(app).await;
}

/// Shows the pending count on the tray icon (title where the desktop shows one, and the tooltip).
pub async fn refresh<R: Runtime>(app: &tauri::AppHandle<R>) {
    let Some(tray) = app.tray_by_id(TRAY) else { return };
    let core = app.state::<App>().inner().clone();
    let Ok(count) = core.pending_count().await else { return };
    let text = Lang::current().tray_waiting(usize::try_from(count).unwrap_or(0));
    let _ = tray.set_tooltip(Some(&text));
    let _ = tray.set_title(Some(if count == 0 { String::new() } else { count.to_string() }));
}
