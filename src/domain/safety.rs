//! Safety settings: what needs more care than an ordinary call, whoever or whatever would decide it.

use serde::{Deserialize, Serialize};

/// The high-risk tools: every call of one needs the console's confirm step; it is never approved
/// from a notification, through a Mastra-shaped route or by a grant (and a grant stops applying
/// when its tool becomes high-risk). Stored under the settings key `safety`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SafetySettings {
    #[serde(default)]
    pub high_risk_tools: Vec<String>,
}

impl SafetySettings {
    pub fn high_risk(&self, tool: &str) -> bool {
        self.high_risk_tools.iter().any(|t| t == tool)
    }
}
