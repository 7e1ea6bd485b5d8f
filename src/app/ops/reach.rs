//! Operators' channels and escalation (issue 28): the settings, claims, a call's messages, and the
//! time to decision per channel, person and rule.

use crate::app::reach::{CallReach, ReachStats};
use crate::domain::reach::ReachSettings;
use serde::Deserialize;

/// `?days=` (default 14).
#[derive(Clone, Debug, Default, Deserialize, utoipa::IntoParams, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StatsQuery {
    #[serde(default)]
    pub days: Option<u32>,
}

crate::declare_operations! {
    ReachSettings(Nothing, none) -> ReachSettings, 200 "Channels, escalation rules and the on-call schedule (secrets are keyring entries or files, never here)";
        errors []
        |app, _, _, by| { Ok(app.reach_settings(by).await?.into()) }

    SaveReachSettings(Nothing, body ReachSettings, window "settings") -> ReachSettings, 200 "Stored and audited; calls pausing from now on are planned by it";
        errors [400 "invalid_request: a name twice, a channel without its address or secret, a bad time"]
        |app, _, s, by| { Ok(app.save_reach_settings(s, by).await?.into()) }

    ClaimCall(Id, none) -> CallReach, 200 "Claimed: shown to everyone; its escalation stops";
        errors [404 "not_found", 409 "already_decided"]
        |app, p, _, by| { Ok(app.claim_call(&p.id, by).await?.into()) }

    CallReach(Id, none) -> CallReach, 200 "Who claimed the call, and its channels' messages";
        errors [404 "not_found"]
        |app, p, _, by| { Ok(app.call_reach(&p.id, by).await?.into()) }

    ReachStats(Nothing, query StatsQuery, window "query") -> ReachStats, 200 "Time to decision per channel, person, rule and day (p50, p90)";
        errors []
        |app, _, q, by| { Ok(app.reach_stats(q.days.unwrap_or(14), by).await?.into()) }
}
