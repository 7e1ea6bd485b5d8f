//! What the operator wants to be told about, stored under the settings key `notifications`.

use crate::domain::safety::SafetySettings;
use crate::domain::{Error, QueuedCall};
use crate::store::{settings, Db};
use chrono::{NaiveTime, Timelike};
use serde::{Deserialize, Serialize};

/// Notification settings. Absent lists mean "all".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NotificationSettings {
    pub enabled: bool,
    /// No notifications between these local times (`"22:00"`–`"07:00"`; may wrap midnight).
    #[serde(default)]
    pub quiet_hours: Option<QuietHours>,
    /// Only calls of these engines (`local`, or a remote engine's name); `null`: all.
    #[serde(default)]
    pub engines: Option<Vec<String>>,
    /// Only calls of these agents; `null`: all.
    #[serde(default)]
    pub agents: Option<Vec<String>>,
    /// The high-risk tools (never offered an Approve action from a notification). Kept in the
    /// safety settings (`SafetySettings`, `/api/settings/safety`); answered and accepted here too so
    /// that one form saves both.
    #[serde(default)]
    pub high_risk_tools: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QuietHours {
    /// `HH:MM`, local time.
    pub start: String,
    /// `HH:MM`, local time.
    pub end: String,
}

impl Default for NotificationSettings {
    fn default() -> Self {
        Self { enabled: true, quiet_hours: None, engines: None, agents: None, high_risk_tools: vec![] }
    }
}

impl NotificationSettings {
    /// Checks the quiet hours' times.
    pub fn check(&self) -> Result<(), Error> {
        if let Some(q) = &self.quiet_hours {
            parse_time(&q.start)?;
            parse_time(&q.end)?;
        }
        Ok(())
    }

    /// Whether a new call of `item` should raise a notification at local time `now`.
    pub fn wants(&self, item: &QueuedCall, now: NaiveTime) -> bool {
        if !self.enabled || self.in_quiet_hours(now) {
            return false;
        }
        let listed = |list: &Option<Vec<String>>, value: &str| list.as_ref().is_none_or(|l| l.iter().any(|v| v == value));
        listed(&self.engines, item.call.engine.as_str()) && listed(&self.agents, item.call.agent_id.as_str())
    }

    pub fn high_risk(&self, tool: &str) -> bool {
        self.high_risk_tools.iter().any(|t| t == tool)
    }

    fn in_quiet_hours(&self, now: NaiveTime) -> bool {
        let Some(q) = &self.quiet_hours else { return false };
        let (Ok(start), Ok(end)) = (parse_time(&q.start), parse_time(&q.end)) else { return false };
        let now = NaiveTime::from_hms_opt(now.hour(), now.minute(), 0).unwrap_or(now);
        if start <= end {
            start <= now && now < end
        } else {
            now >= start || now < end
        }
    }

    /// The stored settings, with the high-risk tools of the safety settings.
    pub async fn load(db: &Db) -> Result<Self, Error> {
        let mut stored: Self = settings::load(db).await?;
        stored.high_risk_tools = settings::safety(db).await?.high_risk_tools;
        Ok(stored)
    }

    /// Stores them, the high-risk tools in the safety settings (one transaction, `judge`d against
    /// the safety settings stored: `store::settings::Judge`), each change audited as made by `by`
    /// (an actor's audit name).
    pub async fn save(&self, db: &Db, by: &str, judge: impl settings::Judge<SafetySettings>) -> Result<(), Error> {
        // The rest of the safety settings as stored (the notification form knows only its tools).
        let edit = |stored: &SafetySettings| Ok(SafetySettings { high_risk_tools: self.high_risk_tools.clone(), ..stored.clone() });
        settings::save_with_judged(db, &Self { high_risk_tools: vec![], ..self.clone() }, by, edit, judge).await.map(drop)
    }
}

impl settings::Document for NotificationSettings {
    const KEY: &'static str = "notifications";
    const NAME: &'static str = "notification settings";

    fn check(&self) -> Result<(), Error> {
        NotificationSettings::check(self)
    }
}

fn parse_time(text: &str) -> Result<NaiveTime, Error> {
    NaiveTime::parse_from_str(text, "%H:%M").map_err(|_| Error::InvalidRequest(format!("quiet hours: {text:?} is not a HH:MM time")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(h: u32, m: u32) -> NaiveTime {
        NaiveTime::from_hms_opt(h, m, 0).unwrap()
    }

    #[test]
    fn quiet_hours_wrap_midnight() {
        let s = NotificationSettings { quiet_hours: Some(QuietHours { start: "22:00".into(), end: "07:00".into() }), ..Default::default() };
        assert!(s.in_quiet_hours(at(23, 0)) && s.in_quiet_hours(at(3, 0)) && s.in_quiet_hours(at(22, 0)));
        assert!(!s.in_quiet_hours(at(7, 0)) && !s.in_quiet_hours(at(12, 0)));
        let day =
            NotificationSettings { quiet_hours: Some(QuietHours { start: "12:00".into(), end: "13:30".into() }), ..Default::default() };
        assert!(day.in_quiet_hours(at(12, 45)) && !day.in_quiet_hours(at(13, 30)));
        let bad =
            NotificationSettings { quiet_hours: Some(QuietHours { start: "25:00".into(), end: "07:00".into() }), ..Default::default() };
        assert!(bad.check().is_err());
    }
}
