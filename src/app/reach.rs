//! Operators' channels and escalation (issue 28): the `reach` settings, claims ("I'm on it"), a
//! call's messages, and the time to decision per channel, person and rule. The worker that sends
//! is `notify::reach`.

use super::App;
use crate::domain::reach::ReachSettings;
use crate::domain::{grade, Cx};
use crate::domain::{Error, ItemId};
use crate::store::reach::{self, Claim, Message};
use serde::Serialize;
use std::collections::BTreeMap;

/// The reach settings as stored, and what the console warns about them (nothing it refused).
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SavedReach {
    #[serde(flatten)]
    pub settings: ReachSettings,
    /// Sentences, each naming what may not work as saved (also in the log): a mail channel with no
    /// password to log in with, calls already waiting that the channels are about to be sent.
    pub warnings: Vec<String>,
}

/// A call's reach: who claimed it, and its channels' messages.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallReach {
    #[schema(required = true)]
    pub claim: Option<Claim>,
    pub messages: Vec<Message>,
}

/// Time to decision of one group (seconds): how many calls, the median and the 90th percentile.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Timing {
    pub key: String,
    pub calls: u64,
    pub p50_secs: f64,
    pub p90_secs: f64,
}

/// Time to decision of calls that went to channels, over `days` days: from each channel's message
/// to the decision (by channel), from the pause to the decision by whoever decided (by person) and
/// under each rule (by rule), and by day (the chart).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReachStats {
    pub days: u32,
    pub by_channel: Vec<Timing>,
    pub by_person: Vec<Timing>,
    pub by_rule: Vec<Timing>,
    /// `key`: the day (UTC, YYYY-MM-DD); pause to decision.
    pub by_day: Vec<Timing>,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn timings(groups: BTreeMap<String, Vec<f64>>) -> Vec<Timing> {
    groups
        .into_iter()
        .map(|(key, mut v)| {
            v.sort_by(|a, b| a.total_cmp(b));
            Timing { key, calls: v.len() as u64, p50_secs: percentile(&v, 0.5), p90_secs: percentile(&v, 0.9) }
        })
        .collect()
}

/// What a test message on a channel did.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChannelTest {
    pub channel: String,
    /// The channel's server took it.
    pub sent: bool,
    /// Why not, as the channel answered (never its URL nor its secret).
    #[schema(required = true)]
    pub error: Option<String>,
}

/// `alice (remote)` → `alice`: the person part of an audit name.
fn person_of(operator: &str) -> String {
    operator.rsplit_once(" (").map_or(operator, |(name, _)| name).to_owned()
}

impl App {
    /// Sends a test message on the stored channel `name` (admins): what a message of it would go
    /// through — its kind, address, server and secret as stored — now, whether it is turned on or in
    /// its quiet hours, naming no call. `not_found` when no channel of that name is stored (a channel
    /// not saved yet is tested once saved).
    pub async fn test_channel(&self, name: &str, by: &Cx<grade::Admin>) -> Result<ChannelTest, Error> {
        let settings: ReachSettings = crate::store::settings::load(&self.db).await?;
        let channel = settings.channels.iter().find(|c| c.name == name).ok_or_else(|| Error::not_found(format!("channel {name}")))?;
        let txn = format!("test-{}", uuid::Uuid::now_v7());
        let about = crate::notify::reach::send::About::test();
        let sent = match self.channel_secrets.read(&channel.name).await {
            Ok(secret) => crate::notify::reach::send::send(channel, &about, &txn, secret).await,
            Err(e) => Err(format!("the secret of channel {} cannot be read: {e}", channel.name)),
        };
        tracing::info!(channel = name, by = %by.audit_name(), ok = sent.is_ok(), "reach: test message");
        Ok(ChannelTest { channel: name.to_owned(), sent: sent.is_ok(), error: sent.err() })
    }

    /// The channels, rules and on-call schedule (every operator reads them: no secret is in them,
    /// nor where one is kept).
    pub async fn reach_settings(&self, _by: &Cx<grade::Operator>) -> Result<ReachSettings, Error> {
        crate::store::settings::load(&self.db).await
    }

    /// Stores them (admins), audited with before and after (`settings.changed`). Refused
    /// (`invalid_request`) when they cannot work (`ReachSettings::check`: a secret named by place,
    /// plain SMTP to another machine, …) or a channel that needs a secret has none set. Warned
    /// about, in the answer and the log: a mail channel with no password to log in with; and,
    /// when the first channel is saved, the calls already waiting, which it is sent at once (each
    /// rule's steps whose time has passed since the call paused).
    pub async fn save_reach_settings(&self, settings: ReachSettings, by: &Cx<grade::Admin>) -> Result<SavedReach, Error> {
        self.check_channel_secrets(&settings).await?;
        let mut warnings = self.channel_secret_warnings(&settings).await?;
        if !settings.channels.is_empty() {
            let before: ReachSettings = crate::store::settings::load(&self.db).await?;
            let waiting = reach::unplanned(&self.db, 1000).await?.len();
            if before.channels.is_empty() && waiting > 0 {
                let count = match waiting {
                    1 => "1 call".to_owned(),
                    1000 => "1000 or more calls".to_owned(),
                    n => format!("{n} calls"),
                };
                warnings.push(format!(
                    "{count} waiting now had no channel to go to: they are sent now, each with every step of its rule \
                     whose time has passed since it paused"
                ));
            }
        }
        crate::store::settings::save(&self.db, &settings, &by.audit_name()).await?;
        for w in &warnings {
            tracing::warn!("reach settings saved: {w}");
        }
        Ok(SavedReach { settings, warnings })
    }

    /// "I'm on it": the call is `by`'s person's now; shown to everyone, its escalation stops.
    pub async fn claim_call(&self, id: &str, by: &Cx<grade::Operator>) -> Result<CallReach, Error> {
        let entry = self.console.item(&ItemId::new(id)).await?;
        let key = by.principal.key();
        let person = crate::store::credentials::person_of_key(&self.db, &key).await?;
        let call = &entry.queued.call;
        let item = (id, call.tool_name.as_str(), call.fingerprint.as_str());
        if !reach::claim(&self.db, item, &key, &person, &by.audit_name(), crate::store::now()).await? {
            return Err(Error::AlreadyDecided { state: entry.queued.state });
        }
        self.call_reach(id, &by.narrow()).await
    }

    /// Who claimed the call and its channels' messages.
    pub async fn call_reach(&self, id: &str, _by: &Cx<grade::Watch>) -> Result<CallReach, Error> {
        self.console.item(&ItemId::new(id)).await?;
        Ok(CallReach { claim: reach::claim_of(&self.db, id).await?, messages: reach::messages_of(&self.db, id).await? })
    }

    /// Time to decision per channel, person, rule and day, over the last `days` days (1–90).
    pub async fn reach_stats(&self, days: u32, _by: &Cx<grade::Viewer>) -> Result<ReachStats, Error> {
        let days = days.clamp(1, 90);
        let since = crate::store::now() - chrono::Duration::days(i64::from(days));
        let decided = reach::decided_since(&self.db, since, 20_000).await?;
        let (mut channel, mut person, mut rule, mut day) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
        let secs = |d: chrono::Duration| d.num_milliseconds().max(0) as f64 / 1000.0;
        for d in &decided {
            let whole = secs(d.decided_at - d.paused_at);
            person.entry(person_of(&d.operator)).or_insert_with(Vec::new).push(whole);
            rule.entry(d.rule.clone()).or_insert_with(Vec::new).push(whole);
            day.entry(d.paused_at.format("%Y-%m-%d").to_string()).or_insert_with(Vec::new).push(whole);
            for (name, _, sent_at) in &d.sent {
                channel.entry(name.clone()).or_insert_with(Vec::new).push(secs(d.decided_at - *sent_at));
            }
        }
        Ok(ReachStats { days, by_channel: timings(channel), by_person: timings(person), by_rule: timings(rule), by_day: timings(day) })
    }

    /// Where the channels' links point: the remote listener's origin, else this console's address.
    pub fn set_link_base(&self, base: &str) {
        self.links.set(base.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!((percentile(&v, 0.5), percentile(&v, 0.9)), (5.0, 9.0));
        assert_eq!(percentile(&[7.0], 0.9), 7.0);
        assert_eq!(person_of("alice-phone (remote)"), "alice-phone");
    }
}
