//! Settings: notifications, safety (high-risk tools and quorums), time limits. Every operator reads
//! them, an admin changes them (the catalog's roles).

use crate::app::policy::PolicyView;
use crate::console::expiry::ExpirySettings;
use crate::domain::safety::{QuorumSettings, SafetySettings};
use crate::notify::{NotificationSettings, NotifyStatus};

crate::declare_operations! {
    NotificationStatus(Nothing, none) -> NotifyStatus, 200 "Whether this process shows desktop notifications and whether they work";
        errors []
        |app, _, _, by| { Ok(app.notification_status(by)?.into()) }

    NotificationSettings(Nothing, none) -> NotificationSettings, 200 "What to be told about";
        errors []
        |app, _, _, by| { Ok(app.notification_settings(by).await?.into()) }

    SaveNotificationSettings(Nothing, body NotificationSettings, window "settings") -> NotificationSettings, 200 "Stored; applies to the next new call";
        errors []
        |app, _, s, by| { Ok(app.save_notification_settings(s, by).await?.into()) }

    SafetySettings(Nothing, none) -> SafetySettings, 200 "The high-risk tools";
        errors []
        |app, _, _, by| { Ok(app.safety_settings(by).await?.into()) }

    SaveSafetySettings(Nothing, body SafetySettings) -> SafetySettings, 200 "Stored; applies at once (confirm steps, notifications, grants, the Mastra-shaped routes)";
        errors []
        |app, _, s, by| { Ok(app.save_safety_settings(s, by).await?.into()) }

    QuorumSettings(Nothing, none) -> QuorumSettings, 200 "The two-person rule: approvals needed per tool";
        errors []
        |app, _, _, by| { Ok(app.quorum_settings(by).await?.into()) }

    PolicyView(Nothing, none) -> PolicyView, 200 "The policy in force: its version, its file (`policy export`) and the policy files applied before";
        errors []
        |app, _, _, by| { Ok(app.policy_view(by).await?.into()) }

    SaveQuorumSettings(Nothing, body QuorumSettings, window "settings") -> QuorumSettings, 200 "Stored; applies at once, to waiting calls too (their approvals so far count), and to grants (a grant of a tool with a quorum is not used)";
        errors [400 "invalid_request: a rule without a tool, a tool named twice, approvals outside 2–10"]
        |app, _, s, by| { Ok(app.save_quorum_settings(s, by).await?.into()) }

    ExpirySettings(Nothing, none) -> ExpirySettings, 200 "Time limits of undecided calls";
        errors []
        |app, _, _, by| { Ok(app.expiry_settings(by).await?.into()) }

    SaveExpirySettings(Nothing, body ExpirySettings, window "settings") -> ExpirySettings, 200 "Stored; the expiry worker applies it within seconds, also to calls already waiting";
        errors []
        |app, _, s, by| { Ok(app.save_expiry_settings(&s, by).await?.into()) }
}
