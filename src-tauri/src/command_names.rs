// The window's commands, declared once. `build.rs` includes this file: it declares them to Tauri
// (so the ACL applies) and writes the permission set that `capabilities/main-window.json` grants;
// `lib.rs` registers a handler for each from the same list (`commands::<name>`); a Vitest test
// checks the UI's `TAURI_COMMANDS` against it.

/// Calls `$then!` with the name of every command.
#[macro_export]
macro_rules! with_commands {
    ($then:ident) => {
        $then!(
            queue_page,
            queue_counts,
            queue_item,
            previous_call,
            viewing,
            stop_viewing,
            approve,
            approve_edited,
            decline,
            resume,
            resolve,
            audit_page,
            verify_audit,
            decision_history,
            export_audit,
            save_audit_export,
            set_language,
            engines,
            add_engine,
            edit_engine,
            remove_engine,
            test_engine,
            sync_engine,
            engine_agents,
            notification_status,
            notification_settings,
            save_notification_settings,
            quorum_settings,
            save_quorum_settings,
            session,
            expiry_settings,
            save_expiry_settings,
            snooze,
            grants,
            create_grant,
            preview_grant,
            revoke_grant,
            stats,
            autostart,
            set_autostart,
        )
    };
}

macro_rules! names {
    ($($name:ident),* $(,)?) => {
        &[$(stringify!($name)),*]
    };
}

/// Every command the window may call.
pub const COMMANDS: &[&str] = with_commands!(names);
