/// Every command the window may call; build.rs declares them and capabilities/ allows each by name.
pub const COMMANDS: &[&str] = &[
    "queue_page",
    "queue_item",
    "approve",
    "decline",
    "resume",
    "audit_page",
    "verify_audit",
    "engines",
    "add_engine",
    "edit_engine",
    "remove_engine",
    "sync_engine",
    "engine_agents",
    "notification_status",
    "notification_settings",
    "save_notification_settings",
];
