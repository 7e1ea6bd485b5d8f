//! The window's commands. Every operation of the catalog that is one request and one answer is
//! declared once in the core (`approval_console::app::ops`) and dispatched here by name
//! ([`dispatch`]): the core checks the role and runs it as the local admin acting through the window
//! (`desktop`). Written here are only the commands that belong to the window: its exports to a file,
//! its language, its autostart.

use approval_console::app::audit::ExportFormat;
use approval_console::app::operation;
use approval_console::app::App;
use approval_console::domain::{Error, ErrorCode};
use serde::Serialize;
use serde_json::Value;
use tauri::ipc::{Invoke, InvokeBody};
use tauri::{Manager, Runtime, State};

/// The one error shape of the window, as of the HTTP API.
#[derive(Debug, Serialize)]
pub struct CommandError {
    pub code: ErrorCode,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl From<Error> for CommandError {
    fn from(e: Error) -> Self {
        Self { code: e.error_code(), message: e.to_string(), details: e.details() }
    }
}

type Answer<T> = Result<T, CommandError>;

/// The audit name of decisions taken in the window.
const CHANNEL: &str = "desktop";

/// The commands written here, beside the core's operations.
pub const OWN: &[&str] = &["export_audit", "save_audit_export", "set_language", "autostart", "set_autostart"];

/// Runs `invoke` if it names an operation declared in the core, else hands it to `own` (the
/// window's own commands, which answers whether it knew it). Its arguments are one JSON object (a malformed one is
/// `invalid_request`, as the HTTP API answers); Tauri has checked the window may call it (the
/// capability grants each command by name).
pub fn dispatch<R: Runtime>(invoke: Invoke<R>, own: fn(Invoke<R>) -> bool) -> bool {
    let Some(command) = operation::window(invoke.message.command()) else { return own(invoke) };
    let app = invoke.message.webview().state::<App>().inner().clone();
    let args = match invoke.message.payload() {
        InvokeBody::Json(value) => Ok(value.clone()),
        InvokeBody::Raw(_) => Err(Error::InvalidRequest("a command's arguments are JSON".into())),
    };
    let by = app.local_actor(CHANNEL);
    invoke.resolver.respond_async(async move {
        let answer = match args {
            Ok(args) => command(app, args, by).await,
            Err(e) => Err(e),
        };
        answer.map_err(|e| tauri::ipc::InvokeError::from(CommandError::from(e)))
    });
    true
}

#[tauri::command]
pub async fn export_audit(app: State<'_, App>, format: String) -> Answer<String> {
    Ok(app.export_audit_text(ExportFormat::parse(&format)?, &app.local_admin(CHANNEL)).await?)
}

/// The language chosen in the window (`en`, `ja`, or `system`: the desktop's locale): the app's
/// notifications and tray speak it too.
#[tauri::command]
pub async fn set_language<R: Runtime>(handle: tauri::AppHandle<R>, language: String) -> Answer<()> {
    let choice = approval_console::notify::Lang::parse_choice(&language).ok_or_else(|| CommandError {
        code: ErrorCode::InvalidRequest,
        message: format!("unknown language {language:?}: en, ja or system"),
        details: None,
    })?;
    approval_console::notify::Lang::choose(choice);
    crate::tray::relabel(&handle).await;
    Ok(())
}

/// `{path}`: where the window's audit export was saved.
#[derive(Debug, serde::Serialize)]
pub struct SavedFile {
    path: String,
}

/// Saves the whole audit log as a new file in the user's Downloads folder (the home folder where
/// there is none) and answers its path: the window's export buttons. The folder is not the
/// window's to choose.
#[tauri::command]
pub async fn save_audit_export<R: Runtime>(handle: tauri::AppHandle<R>, app: State<'_, App>, format: String) -> Answer<SavedFile> {
    let format = ExportFormat::parse(&format)?;
    let dir = handle.path().download_dir().or_else(|_| handle.path().home_dir()).map_err(|e| CommandError {
        code: ErrorCode::Internal,
        message: format!("no Downloads or home folder to save the export in: {e}"),
        details: None,
    })?;
    let path = app.export_audit_to(&dir, format, &app.local_admin(CHANNEL)).await?;
    Ok(SavedFile { path: path.display().to_string() })
}

/// Whether the app starts at login (an XDG autostart entry on Linux).
#[tauri::command]
pub fn autostart<R: Runtime>(app: tauri::AppHandle<R>) -> Answer<bool> {
    use tauri_plugin_autostart::ManagerExt;
    app.autolaunch().is_enabled().map_err(|e| CommandError {
        code: ErrorCode::Internal,
        message: format!("cannot read the autostart setting: {e}"),
        details: None,
    })
}

/// Starts the app at login, or stops doing so.
#[tauri::command]
pub fn set_autostart<R: Runtime>(app: tauri::AppHandle<R>, enabled: bool) -> Answer<bool> {
    use tauri_plugin_autostart::ManagerExt;
    let launcher = app.autolaunch();
    let done = if enabled { launcher.enable() } else { launcher.disable() };
    done.map_err(|e| CommandError {
        code: ErrorCode::Internal,
        message: format!("cannot change the autostart setting: {e}"),
        details: None,
    })?;
    Ok(enabled)
}
