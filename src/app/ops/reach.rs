//! Operators' channels and escalation (issue 28): the settings, claims, a call's messages, and the
//! time to decision per channel, person and rule.

use crate::app::channel_secrets::{ChannelSecret, RemovedChannelSecret, SecretValue};
use crate::app::reach::{CallReach, ChannelTest, ReachStats, SavedReach};
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
    ReachSettings(Nothing, none) -> ReachSettings, 200 "Channels, escalation rules and the on-call schedule (never a secret, nor where one is kept)";
        errors []
        |app, _, _, by| { Ok(app.reach_settings(by).await?.into()) }

    SaveReachSettings(Nothing, body ReachSettings, window "settings") -> SavedReach, 200 "Stored and audited; calls pausing from now on are planned by it, and when it is the first channel, the calls already waiting are sent at once; `warnings` says what may not work as saved (a mail channel with no password to log in with) and how many waiting calls go out now";
        errors [400 "invalid_request: a name twice, a channel without its address, a channel that needs a secret without one set, secretRef or secretFile (removed), plain SMTP to another machine, a bad time"]
        |app, _, s, by| { Ok(app.save_reach_settings(s, by).await?.into()) }

    ChannelSecrets(Nothing, none) -> [ChannelSecret], 200 "The channels whose secret is set, and where each is kept (never a value)";
        errors []
        |app, _, _, by| { Ok(app.channel_secrets(by).await?.into()) }

    SetChannelSecret(Name, body SecretValue, window "secret") -> ChannelSecret, 200 "Kept in the channel's own place (the OS keyring in the desktop app, else an owner-only file of the data directory) and audited; never shown again";
        errors [400 "invalid_request: not a channel's name, or a value empty or of several lines", 403 "forbidden: not the local admin (a stored credential may not, whatever its role)"]
        |app, p, v, by| { Ok(app.set_channel_secret(&p.name, v, by).await?.into()) }

    RemoveChannelSecret(Name, none) -> RemovedChannelSecret, 200 "Removed and audited: the channel sends nothing that needs it until one is set again";
        errors [403 "forbidden: not the local admin", 404 "not_found: the channel has no secret"]
        |app, p, _, by| { Ok(app.remove_channel_secret(&p.name, by).await?.into()) }

    /// Sends a test message on a stored channel now (turned on or not, in its quiet hours or not),
    /// naming no call: whether its server took it, or why not.
    TestChannel(Name, none) -> ChannelTest, 200 "Tried: `sent`, or the channel's `error` (never its URL nor its secret)";
        errors [404 "not_found: no channel of that name is stored"]
        |app, p, _, by| { Ok(app.test_channel(&p.name, by).await?.into()) }

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
