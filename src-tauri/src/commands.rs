//! The window's commands: thin adapters over the core's one surface (`approval_console::app::App`).
//! Each takes the core from state, calls it, and turns its error into `{code, message, details}`.

use approval_console::app::audit::AuditPage;
use approval_console::app::audit::{DecisionHistory, ExportFormat, HistoryQuery};
use approval_console::app::engines::{EngineChanges, EngineTest, EngineTestResult, EngineView, NewEngine, SyncAnswer};
use approval_console::app::presence::Presence;
use approval_console::app::query::{AuditQuery, QueueCountsQuery, QueueQuery};
use approval_console::app::queue::{PreviousCall, QueueCounts, QueueItem, QueuePage};
use approval_console::app::stats::{TeamStats, DEFAULT_DAYS};
use approval_console::app::App;
use approval_console::console::expiry::ExpirySettings;
use approval_console::console::grants::{CreatedGrant, Grant, GrantPreview, NewGrant};
use approval_console::domain::safety::QuorumSettings;
use approval_console::domain::{DecisionKind, Error, ErrorCode, Principal, Verdict};
use approval_console::notify::{NotificationSettings, NotifyStatus};
use approval_console::store::audit::Verification;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use tauri::State;

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

/// A structured argument the command reads itself: Tauri's own reading answers a malformed one with a
/// bare string, where the window expects `{code: "invalid_request", …}` as the HTTP API gives.
pub struct Checked<T>(Result<T, String>);

impl<'de, T: DeserializeOwned> Deserialize<'de> for Checked<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Ok(Self(serde_json::from_value(value).map_err(|e| e.to_string())))
    }
}

impl<T> Checked<T> {
    fn get(self) -> Answer<T> {
        self.0.map_err(|m| Error::InvalidRequest(m).into())
    }
}

/// The audit name of decisions taken in the window.
const CHANNEL: &str = "desktop";

#[tauri::command]
pub async fn queue_page(app: State<'_, App>, query: Checked<QueueQuery>) -> Answer<QueuePage> {
    Ok(app.queue_page(&query.get()?, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn queue_counts(app: State<'_, App>, query: Checked<QueueCountsQuery>) -> Answer<QueueCounts> {
    Ok(app.queue_counts(&query.get()?, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn queue_item(app: State<'_, App>, id: String) -> Answer<QueueItem> {
    Ok(app.queue_item(&id, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn previous_call(app: State<'_, App>, id: String) -> Answer<PreviousCall> {
    Ok(app.previous_call(&id, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn approve(app: State<'_, App>, id: String, fingerprint: String) -> Answer<QueueItem> {
    Ok(app.decide_shown(&id, Verdict::Approve, &fingerprint, &app.local_actor(CHANNEL)).await?)
}

/// Approve with edited arguments (local engine), bound to the fingerprint shown.
#[tauri::command]
pub async fn approve_edited(app: State<'_, App>, id: String, fingerprint: String, args: Value) -> Answer<QueueItem> {
    Ok(app.approve_edited(&id, &fingerprint, args, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn decline(app: State<'_, App>, id: String, fingerprint: String, reason: Option<String>) -> Answer<QueueItem> {
    Ok(app.decide_shown(&id, Verdict::Decline { reason }, &fingerprint, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn resume(app: State<'_, App>, id: String, fingerprint: String, data: Value) -> Answer<QueueItem> {
    Ok(app.decide_shown(&id, Verdict::Resume { data }, &fingerprint, &app.local_actor(CHANNEL)).await?)
}

/// Says what became of an interrupted call (`ran` with an optional result, `did_not_run`,
/// `run_again`), bound to the fingerprint shown.
#[tauri::command]
pub async fn resolve(
    app: State<'_, App>,
    id: String,
    resolution: Checked<DecisionKind>,
    fingerprint: String,
    result: Option<Value>,
) -> Answer<QueueItem> {
    Ok(app.resolve(&id, resolution.get()?, result, &fingerprint, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn audit_page(app: State<'_, App>, query: Checked<AuditQuery>) -> Answer<AuditPage> {
    Ok(app.audit_page(&query.get()?, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn verify_audit(app: State<'_, App>) -> Answer<Verification> {
    Ok(app.verify_audit(&app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn decision_history(app: State<'_, App>, query: Checked<HistoryQuery>) -> Answer<DecisionHistory> {
    Ok(app.decision_history(&query.get()?, &app.local_actor(CHANNEL)).await?)
}

/// The whole audit log as text (`jsonl` or `csv`); the window saves it as a download.
#[tauri::command]
pub async fn export_audit(app: State<'_, App>, format: String) -> Answer<String> {
    Ok(app.export_audit_text(ExportFormat::parse(&format)?, &app.local_actor(CHANNEL)).await?)
}

/// The language chosen in the window (`en`, `ja`, or `system`: the desktop's locale): the app's
/// notifications and tray speak it too.
#[tauri::command]
pub async fn set_language<R: tauri::Runtime>(handle: tauri::AppHandle<R>, language: String) -> Answer<()> {
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
pub async fn save_audit_export<R: tauri::Runtime>(handle: tauri::AppHandle<R>, app: State<'_, App>, format: String) -> Answer<SavedFile> {
    use tauri::Manager;
    let format = ExportFormat::parse(&format)?;
    let dir = handle.path().download_dir().or_else(|_| handle.path().home_dir()).map_err(|e| CommandError {
        code: ErrorCode::Internal,
        message: format!("no Downloads or home folder to save the export in: {e}"),
        details: None,
    })?;
    let path = app.export_audit_to(&dir, format, &app.local_actor(CHANNEL)).await?;
    Ok(SavedFile { path: path.display().to_string() })
}

#[tauri::command]
pub async fn engines(app: State<'_, App>) -> Answer<Vec<EngineView>> {
    Ok(app.engines(&app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn add_engine(app: State<'_, App>, engine: Checked<NewEngine>) -> Answer<EngineView> {
    Ok(app.add_engine(engine.get()?, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn edit_engine(app: State<'_, App>, name: String, changes: Checked<EngineChanges>) -> Answer<EngineView> {
    Ok(app.edit_engine(&name, changes.get()?, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn remove_engine(app: State<'_, App>, name: String) -> Answer<()> {
    Ok(app.remove_engine(&name, &app.local_actor(CHANNEL)).await?)
}

/// Tries a server before it is added; nothing is stored.
#[tauri::command]
pub async fn test_engine(app: State<'_, App>, test: Checked<EngineTest>) -> Answer<EngineTestResult> {
    Ok(app.test_engine(test.get()?, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn sync_engine(app: State<'_, App>, name: String) -> Answer<SyncAnswer> {
    Ok(app.sync_engine(&name, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn engine_agents(app: State<'_, App>, name: String) -> Answer<Value> {
    Ok(app.engine_agents(&name, &app.local_actor(CHANNEL))?)
}

#[tauri::command]
pub fn notification_status(app: State<'_, App>) -> Answer<NotifyStatus> {
    Ok(app.notification_status(&app.local_actor(CHANNEL))?)
}

#[tauri::command]
pub async fn notification_settings(app: State<'_, App>) -> Answer<NotificationSettings> {
    Ok(app.notification_settings(&app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn save_notification_settings(app: State<'_, App>, settings: Checked<NotificationSettings>) -> Answer<NotificationSettings> {
    Ok(app.save_notification_settings(settings.get()?, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn quorum_settings(app: State<'_, App>) -> Answer<QuorumSettings> {
    Ok(app.quorum_settings(&app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn save_quorum_settings(app: State<'_, App>, settings: Checked<QuorumSettings>) -> Answer<QuorumSettings> {
    Ok(app.save_quorum_settings(settings.get()?, &app.local_actor(CHANNEL)).await?)
}

/// Who the window acts as: the local admin, by name (so it can tell its own approvals of a call).
#[tauri::command]
pub fn session(app: State<'_, App>) -> Principal {
    app.local_actor(CHANNEL).principal
}

#[tauri::command]
pub async fn expiry_settings(app: State<'_, App>) -> Answer<ExpirySettings> {
    Ok(app.expiry_settings(&app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn save_expiry_settings(app: State<'_, App>, settings: Checked<ExpirySettings>) -> Answer<ExpirySettings> {
    Ok(app.save_expiry_settings(&settings.get()?, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn snooze(app: State<'_, App>, id: String, secs: u64) -> Answer<QueueItem> {
    Ok(app.snooze(&id, secs, &app.local_actor(CHANNEL)).await?)
}

/// The window has call `id` open (every `heartbeatSecs` while it does): who else has, on any console.
#[tauri::command]
pub async fn viewing(app: State<'_, App>, id: String) -> Answer<Presence> {
    Ok(app.viewing(&id, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn stop_viewing(app: State<'_, App>, id: String) -> Answer<()> {
    Ok(app.stop_viewing(&id, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn grants(app: State<'_, App>) -> Answer<Vec<Grant>> {
    Ok(app.grants(&app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn create_grant(app: State<'_, App>, grant: Checked<NewGrant>) -> Answer<CreatedGrant> {
    Ok(app.create_grant(&grant.get()?, &app.local_actor(CHANNEL)).await?)
}

/// How many waiting calls a grant would approve now; nothing is stored.
#[tauri::command]
pub async fn preview_grant(app: State<'_, App>, grant: Checked<NewGrant>) -> Answer<GrantPreview> {
    Ok(app.preview_grant(&grant.get()?, &app.local_actor(CHANNEL)).await?)
}

#[tauri::command]
pub async fn revoke_grant(app: State<'_, App>, id: String) -> Answer<Grant> {
    Ok(app.revoke_grant(&id, &app.local_actor(CHANNEL)).await?)
}

/// The team's figures over the last `days` days (1–90, default 7).
#[tauri::command]
pub async fn stats(app: State<'_, App>, days: Option<Checked<u32>>) -> Answer<TeamStats> {
    let days = days.map(Checked::get).transpose()?.unwrap_or(DEFAULT_DAYS);
    Ok(app.stats(days, &app.local_actor(CHANNEL)).await?)
}

/// Whether the app starts at login (an XDG autostart entry on Linux).
#[tauri::command]
pub fn autostart<R: tauri::Runtime>(app: tauri::AppHandle<R>) -> Answer<bool> {
    use tauri_plugin_autostart::ManagerExt;
    app.autolaunch().is_enabled().map_err(|e| CommandError {
        code: ErrorCode::Internal,
        message: format!("cannot read the autostart setting: {e}"),
        details: None,
    })
}

/// Starts the app at login, or stops doing so.
#[tauri::command]
pub fn set_autostart<R: tauri::Runtime>(app: tauri::AppHandle<R>, enabled: bool) -> Answer<bool> {
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
