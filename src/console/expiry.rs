//! Calls nobody decides in time (issue 6): a time limit per tool, after which the console declines
//! the call as *expired* — `decision.expire` in the audit, `expiredAfterSecs` on the decision, and a
//! tool result that tells the model it was not a refusal — with a warning some minutes before, and a
//! snooze that moves one call's deadline. Settings key `expiry`; no rule, no expiry.

use super::{Ask, Console, Decider, How, Target};
use crate::domain::{Error, ItemId, ItemState, QueuedCall, Verdict};
use crate::store::{deadlines, settings, Db};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How often the worker looks for calls past (or near) their deadline.
pub const EXPIRY_TICK: Duration = Duration::from_secs(2);
/// Calls expired per pass, at most (the rest in the next pass).
const BATCH: i64 = 200;
/// The longest limit, warning and snooze: 30 days.
const MAX_SECS: u64 = 30 * 86_400;
/// Who expires calls, in the audit log.
pub const EXPIRY_ACTOR: &str = "console (expiry)";

/// Time limits. `tool` `"*"` applies to every tool without a rule of its own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExpirySettings {
    #[serde(default)]
    pub rules: Vec<ExpiryRule>,
    /// How long before its deadline a call is announced as about to expire (seconds, default 300).
    #[serde(default = "default_warn")]
    pub warn_before_secs: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExpiryRule {
    /// A tool name, or `"*"` for every other tool.
    pub tool: String,
    /// Seconds from the pause after which the call expires (1 s – 30 days).
    pub after_secs: u64,
}

fn default_warn() -> u64 {
    300
}

impl Default for ExpirySettings {
    fn default() -> Self {
        Self { rules: vec![], warn_before_secs: default_warn() }
    }
}

/// A call about to expire, for whoever tells the operator (the desktop notifications).
#[derive(Clone, Debug)]
pub struct ExpiringSoon {
    pub item: QueuedCall,
    pub expires_at: DateTime<Utc>,
}

impl settings::Document for ExpirySettings {
    const KEY: &'static str = "expiry";
    const NAME: &'static str = "expiry settings";

    fn check(&self) -> Result<(), Error> {
        ExpirySettings::check(self)
    }
}

impl ExpirySettings {
    pub fn check(&self) -> Result<(), Error> {
        let bad = |m: String| Err(Error::InvalidRequest(format!("expiry: {m}")));
        for (i, r) in self.rules.iter().enumerate() {
            if r.tool.trim().is_empty() {
                return bad(format!("rule {} has no tool name (use \"*\" for every tool)", i + 1));
            }
            if !(1..=MAX_SECS).contains(&r.after_secs) {
                return bad(format!("{}: afterSecs must be 1 to {MAX_SECS} (30 days), not {}", r.tool, r.after_secs));
            }
            if self.rules[..i].iter().any(|o| o.tool == r.tool) {
                return bad(format!("{} has two rules", r.tool));
            }
        }
        if self.warn_before_secs > MAX_SECS {
            return bad(format!("warnBeforeSecs must be at most {MAX_SECS}"));
        }
        Ok(())
    }

    /// The limit of `tool`: its own rule, else `"*"`'s, else none.
    pub fn limit_for(&self, tool: &str) -> Option<u64> {
        let rule = |t: &str| self.rules.iter().find(|r| r.tool == t).map(|r| r.after_secs);
        rule(tool).or_else(|| rule("*"))
    }

    pub async fn load(db: &Db) -> Result<Self, Error> {
        settings::load(db).await
    }

    /// Stores them, audited as changed by `by` (an actor's audit name).
    pub async fn save(&self, db: &Db, by: &str) -> Result<(), Error> {
        settings::save(db, self, by).await
    }

    /// Cutoffs on `paused_at` for calls whose deadline (shifted by `ahead`) is at or before `now`.
    fn cutoffs(&self, now: DateTime<Utc>, ahead: chrono::Duration) -> Vec<deadlines::Cutoff<'_>> {
        self.rules
            .iter()
            .map(|r| deadlines::Cutoff {
                tool: (r.tool != "*").then_some(r.tool.as_str()),
                cutoff: now + ahead - chrono::Duration::seconds(r.after_secs as i64),
            })
            .collect()
    }

    fn named(&self) -> Vec<String> {
        self.rules.iter().filter(|r| r.tool != "*").map(|r| r.tool.clone()).collect()
    }
}

impl Console {
    /// When this call expires: a snoozed deadline, else its tool's limit from the pause; `None` if
    /// no limit applies to its tool (a snooze alone never makes a call expire), it cannot expire (its
    /// engine cannot decline it), or it is no longer pending.
    pub async fn deadline(&self, item: &QueuedCall, settings: &ExpirySettings) -> Result<Option<DateTime<Utc>>, Error> {
        // No limit (any more): no deadline, whatever a snooze once set.
        let Some(limit) = settings.limit_for(&item.call.tool_name) else { return Ok(None) };
        if item.state != ItemState::Pending {
            return Ok(None);
        }
        let stored = deadlines::stored_for(&self.db, &item.id).await?;
        if stored.never.is_some() {
            return Ok(None);
        }
        Ok(Some(stored.snoozed_until.unwrap_or(item.paused_at + chrono::Duration::seconds(limit as i64))))
    }

    /// Whether the call's engine can decline it (a Mastra suspend() call it cannot; nor a call of an
    /// engine no longer connected). If not, that is stored and the worker leaves the call alone.
    async fn can_expire(&self, item: &QueuedCall) -> Result<bool, Error> {
        if self.allowed(&item.call).contains(&crate::domain::DecisionKind::Decline) {
            return Ok(true);
        }
        let reason = if self.engine(&item.call.engine).is_ok() {
            format!("engine {} cannot decline this {:?} call", item.call.engine, item.call.kind)
        } else {
            format!("engine {} is not connected", item.call.engine)
        };
        tracing::info!(item = %item.id, "{reason}: it will not expire");
        deadlines::record_never(&self.db, &item.id, &reason).await?;
        Ok(false)
    }

    /// Moves a pending call's deadline to `secs` from now (never earlier than it was); audited.
    /// Refused for a call without a time limit: a snooze never makes a call expire.
    pub async fn snooze(&self, id: &ItemId, secs: u64, operator: &str) -> Result<DateTime<Utc>, Error> {
        if !(60..=MAX_SECS).contains(&secs) {
            return Err(Error::InvalidRequest(format!("a snooze lasts 60 s to {MAX_SECS} s (30 days), not {secs}")));
        }
        let entry = self.item(id).await?;
        let item = &entry.queued;
        if item.state != ItemState::Pending {
            return Err(Error::AlreadyDecided { state: item.state });
        }
        let settings = ExpirySettings::load(&self.db).await?;
        let Some(current) = self.deadline(item, &settings).await? else {
            return Err(Error::InvalidRequest(format!("{} has no time limit: there is nothing to snooze", item.call.tool_name)));
        };
        let until = current.max(crate::store::now() + chrono::Duration::seconds(secs as i64));
        deadlines::snooze_audited(&self.db, item, current, until, operator).await?;
        Ok(until)
    }

    /// One pass: every pending call past its deadline is declined as expired and delivered (a
    /// decision whose engine is unreachable waits in the outbox like any other). A call that changed
    /// at its engine meanwhile is left alone: its new entry has a deadline of its own. Returns how
    /// many were expired.
    pub async fn expire_due(&self) -> Result<usize, Error> {
        let settings = ExpirySettings::load(&self.db).await?;
        let now = crate::store::now();
        let cutoffs = settings.cutoffs(now, chrono::Duration::zero());
        let due = deadlines::past(&self.db, &cutoffs, &settings.named(), now, deadlines::Ask::Due, BATCH).await?;
        let mut expired = 0;
        for id in due {
            let Ok(entry) = self.item(&id).await else { continue };
            let call = &entry.queued.call;
            // The limit that ran out, as told to the model (a snoozed call: its tool's limit all the
            // same). A snoozed call whose tool has no limit any more does not expire.
            let Some(after_secs) = settings.limit_for(&call.tool_name) else { continue };
            if !self.can_expire(&entry.queued).await? {
                continue;
            }
            let ask = Ask::Verdict { verdict: Verdict::Expire { after_secs }, fingerprint: call.fingerprint.clone() };
            let decision = match self.decide_whole(&Decider::expiry(), Target::Entry(Box::new(entry.clone())), ask, How::Outbox).await {
                Ok(d) => d,
                Err(e @ (Error::AlreadyDecided { .. } | Error::FingerprintMismatch { .. } | Error::NotFound { .. })) => {
                    tracing::info!(item = %id, "not expired: {e}");
                    continue;
                }
                Err(e) => {
                    tracing::warn!(item = %id, "could not expire: {e}");
                    continue;
                }
            };
            expired += 1;
            match self.deliver(&decision, None).await {
                Ok(_) | Err(Error::Unreachable(_)) => {}
                Err(e) => tracing::warn!(item = %id, "expiry delivery failed: {e}"),
            }
        }
        Ok(expired)
    }

    /// One pass of warnings: pending calls within `warnBeforeSecs` of their deadline, not yet
    /// warned; each is marked warned and handed to `warn` once.
    pub async fn warn_expiring(&self) -> Result<Vec<ExpiringSoon>, Error> {
        let settings = ExpirySettings::load(&self.db).await?;
        if settings.rules.is_empty() || settings.warn_before_secs == 0 {
            return Ok(vec![]);
        }
        let now = crate::store::now();
        let ahead = chrono::Duration::seconds(settings.warn_before_secs as i64);
        let cutoffs = settings.cutoffs(now, ahead);
        let ids = deadlines::past(&self.db, &cutoffs, &settings.named(), now + ahead, deadlines::Ask::Unwarned, BATCH).await?;
        let mut soon = vec![];
        for id in ids {
            let Ok(entry) = self.item(&id).await else { continue };
            if !self.can_expire(&entry.queued).await? {
                continue;
            }
            let Some(expires_at) = self.deadline(&entry.queued, &settings).await? else { continue };
            deadlines::record_warned(&self.db, &id, now).await?;
            soon.push(ExpiringSoon { item: entry.queued, expires_at });
        }
        Ok(soon)
    }

    /// Expires and warns every [`EXPIRY_TICK`] until `stop` flips; warnings go to `expiring()`.
    pub fn spawn_expiry(&self, mut stop: tokio::sync::watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            loop {
                match this.warn_expiring().await {
                    Ok(soon) => soon.into_iter().for_each(|s| {
                        let _ = this.expiring.send(s);
                    }),
                    Err(e) => tracing::warn!("expiry warnings: {e}"),
                }
                if let Err(e) = this.expire_due().await {
                    tracing::warn!("expiry: {e}");
                }
                tokio::select! {
                    _ = tokio::time::sleep(EXPIRY_TICK) => {}
                    _ = stop.changed() => return,
                }
                if *stop.borrow() {
                    return;
                }
            }
        })
    }

    /// Calls about to expire, as the expiry worker finds them.
    pub fn expiring(&self) -> tokio::sync::broadcast::Receiver<ExpiringSoon> {
        self.expiring.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_rule_wins_over_the_star_rule_and_bad_rules_are_refused() {
        let s = ExpirySettings {
            rules: vec![ExpiryRule { tool: "*".into(), after_secs: 3600 }, ExpiryRule { tool: "delete_record".into(), after_secs: 60 }],
            ..Default::default()
        };
        assert_eq!(s.limit_for("delete_record"), Some(60));
        assert_eq!(s.limit_for("send_money"), Some(3600));
        assert_eq!(ExpirySettings::default().limit_for("x"), None);
        assert!(s.check().is_ok());
        let twice = ExpirySettings {
            rules: vec![ExpiryRule { tool: "a".into(), after_secs: 5 }, ExpiryRule { tool: "a".into(), after_secs: 6 }],
            ..Default::default()
        };
        assert!(twice.check().unwrap_err().to_string().contains("two rules"));
        let zero = ExpirySettings { rules: vec![ExpiryRule { tool: "a".into(), after_secs: 0 }], ..Default::default() };
        assert!(zero.check().is_err());
    }
}
