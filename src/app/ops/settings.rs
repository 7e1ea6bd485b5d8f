//! Settings: notifications, safety (high-risk tools and quorums), time limits. Every operator reads
//! them, an admin changes them (the catalog's roles); a change that widens what runs without an
//! operator only with `"confirmWidening": true` (`app::widening`). A time limit removed is no
//! widening: an expiry is a decline, so without one a call waits for an operator.

use crate::app::policy::PolicyView;
use crate::app::widening::Confirmable;
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

    /// A high-risk tool removed is a widening: it needs `"confirmWidening": true`.
    SaveNotificationSettings(Nothing, body Confirmable<NotificationSettings>, window "settings") -> NotificationSettings, 200 "Stored; applies to the next new call";
        errors [409 "widening_unconfirmed: a high-risk tool removed without confirmWidening (details.widens); nothing was stored"]
        |app, _, s, by| { let (s, widening) = s.parts(); Ok(app.save_notification_settings(s, widening, by).await?.into()) }

    SafetySettings(Nothing, none) -> SafetySettings, 200 "The high-risk tools";
        errors []
        |app, _, _, by| { Ok(app.safety_settings(by).await?.into()) }

    /// A widening — a high-risk tool removed, `highRiskPasskey` turned off, a receipt's lifetime
    /// raised — needs `"confirmWidening": true`.
    SaveSafetySettings(Nothing, body Confirmable<SafetySettings>) -> SafetySettings, 200 "Stored; applies at once (confirm steps, notifications, grants, the Mastra-shaped routes)";
        errors [409 "widening_unconfirmed: a widening without confirmWidening (details.widens); nothing was stored"]
        |app, _, s, by| { let (s, widening) = s.parts(); Ok(app.save_safety_settings(s, widening, by).await?.into()) }

    QuorumSettings(Nothing, none) -> QuorumSettings, 200 "The two-person rule: approvals needed per tool";
        errors []
        |app, _, _, by| { Ok(app.quorum_settings(by).await?.into()) }

    PolicyView(Nothing, none) -> PolicyView, 200 "The policy in force: its version, its file (`policy export`) and the policy files applied before";
        errors []
        |app, _, _, by| { Ok(app.policy_view(by).await?.into()) }

    /// A quorum lowered or removed (of a tool, or of critical calls) is a widening: it needs
    /// `"confirmWidening": true`.
    SaveQuorumSettings(Nothing, body Confirmable<QuorumSettings>, window "settings") -> QuorumSettings, 200 "Stored; applies at once, to waiting calls too (their approvals so far count), and to grants (a grant of a tool with a quorum is not used)";
        errors [400 "invalid_request: a rule without a tool, a tool named twice, approvals outside 2–10", 409 "widening_unconfirmed: a quorum lowered or removed without confirmWidening (details.widens); nothing was stored"]
        |app, _, s, by| { let (s, widening) = s.parts(); Ok(app.save_quorum_settings(s, widening, by).await?.into()) }

    ExpirySettings(Nothing, none) -> ExpirySettings, 200 "Time limits of undecided calls";
        errors []
        |app, _, _, by| { Ok(app.expiry_settings(by).await?.into()) }

    SaveExpirySettings(Nothing, body ExpirySettings, window "settings") -> ExpirySettings, 200 "Stored; the expiry worker applies it within seconds, also to calls already waiting";
        errors []
        |app, _, s, by| { Ok(app.save_expiry_settings(&s, by).await?.into()) }
}
