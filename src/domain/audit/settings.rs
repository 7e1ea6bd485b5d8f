//! The details of the settings' changes: a document changed (`settings.changed`), a policy file put
//! in force (`policy.applied`) — each with what of it widened, when anything did (confirmed by its
//! author: `confirmWidening`, `--yes`). Entries written before widenings were noted have no `widens`.

use super::{AuditAction, Details};
use serde::Serialize;
use serde_json::Value;

/// `settings.changed`: which settings document, before (its default if none was stored) and after,
/// and what of the change widens what runs without an operator (`app::policy::widenings`), when
/// anything does.
#[derive(Clone, Debug, Serialize)]
pub struct SettingsChanged<'a> {
    pub setting: &'a str,
    pub before: &'a Value,
    pub after: &'a Value,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub widens: &'a [String],
}

impl Details for SettingsChanged<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::SettingsChanged
    }
}

/// `policy.applied`: a policy file put in force, by its versions before and after, and what of it
/// widens, when anything does (its documents' changes are the `settings.changed` entries beside it).
#[derive(Clone, Debug, Serialize)]
pub struct PolicyApplied<'a> {
    pub before: &'a str,
    pub after: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub widens: &'a [String],
}

impl PolicyApplied<'_> {
    /// Its action's name, to find its entries.
    pub fn action_name() -> &'static str {
        AuditAction::PolicyApplied.as_str()
    }
}

impl Details for PolicyApplied<'_> {
    fn action(&self) -> AuditAction {
        AuditAction::PolicyApplied
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Entries of a change that widened nothing keep the shape they always had.
    #[test]
    fn a_settings_change_notes_widens_only_when_something_widened() {
        let (before, after) = (json!({}), json!({ "highRiskTools": ["a"] }));
        let plain = SettingsChanged { setting: "safety", before: &before, after: &after, widens: &[] };
        assert_eq!(serde_json::to_value(plain).unwrap(), json!({ "setting": "safety", "before": {}, "after": { "highRiskTools": ["a"] } }));
        let widened = ["- high-risk tool a (widens)".to_owned()];
        let noted = SettingsChanged { setting: "safety", before: &after, after: &before, widens: &widened };
        assert_eq!(serde_json::to_value(noted).unwrap()["widens"], json!(["- high-risk tool a (widens)"]));
        let applied = PolicyApplied { before: "p-1", after: "p-2", widens: &[] };
        assert_eq!(serde_json::to_value(applied).unwrap(), json!({ "before": "p-1", "after": "p-2" }));
    }
}
