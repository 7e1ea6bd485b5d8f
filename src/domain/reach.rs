//! Reaching operators beyond this machine (issue 28): channels (a webhook, Slack/Mattermost
//! incoming webhooks, email, a Matrix room), escalation rules and who is on call — one settings
//! document (`reach`), pure: what to send to whom, and when. Sending is `notify::reach`.
//!
//! A rule matches a call by tool, agent, source and risk; its steps say whom to tell after how
//! long (`0`: at once) while the call is still pending and nobody claimed it. Without a matching
//! rule, every enabled channel is told at once. A channel is one person's (or a team's); its quiet
//! hours hold its messages until they end. No link decides anything: it opens the call, and a
//! decision from a phone asks for its passkey.

use super::risk::Level;
use super::CallSource;
use chrono::{DateTime, Datelike, NaiveTime, Timelike, Utc};
use serde::{Deserialize, Serialize};

/// How a channel sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChannelKind {
    /// JSON `POST` to `target`, signed with HMAC-SHA256 of the body under the channel's secret
    /// (`X-Approval-Console-Signature: sha256=<hex>`).
    Webhook,
    /// A Slack- or Mattermost-compatible incoming webhook (Block Kit): its URL is the secret.
    Slack,
    /// Mail over SMTP to `target` through `server` (`host:port`), STARTTLS unless `tls` says
    /// otherwise; the password (if any) is the secret.
    Email,
    /// A message in the Matrix room `target` on the homeserver `server`; the access token is the secret.
    Matrix,
}

impl ChannelKind {
    /// What its secret is, where it cannot send without one (every kind but email, whose password
    /// is optional).
    pub fn secret_needed(self) -> Option<&'static str> {
        match self {
            Self::Webhook => Some("a secret to sign with"),
            Self::Slack => Some("its webhook URL as a secret"),
            Self::Matrix => Some("its access token as a secret"),
            Self::Email => None,
        }
    }
}

/// Where a channel's secret is kept: never in the settings, only in the channels' own namespace —
/// the OS keyring's entry `channel.<name>`, or the owner-only file `channel-secrets/<name>` of the
/// data directory (`secrets::channel`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = ChannelSecretPlace)]
#[serde(rename_all = "lowercase")]
pub enum SecretPlace {
    Keyring,
    File,
}

/// SMTP's transport security.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum MailTls {
    /// STARTTLS, required (the default).
    #[default]
    Starttls,
    /// TLS from the first byte (port 465).
    Tls,
    /// None: only for a relay on this machine (a loopback host: 127.0.0.0/8, ::1, localhost).
    None,
}

/// Whether mail may go in plain text to `server` (`host:port`): only to a relay on this machine —
/// `localhost`, an address of 127.0.0.0/8, or `::1` (`[::1]:25`).
pub fn plain_smtp_allowed(server: &str) -> bool {
    let Some((host, port)) = server.trim().rsplit_once(':') else { return false };
    if port.parse::<u16>().is_err() {
        return false;
    }
    let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Hours (UTC, `HH:MM`) during which a channel's messages wait; `from` after `to` spans midnight.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = ChannelQuietHours)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QuietHours {
    pub from: String,
    pub to: String,
}

/// One channel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Channel {
    /// Its name (1–64 letters, digits, '.', '_', '-'): what rules and the statistics call it.
    pub name: String,
    pub kind: ChannelKind,
    /// Whose channel it is: a person (or a team's name) that rules and the on-call schedule name.
    pub person: String,
    /// Webhook: its URL; email: the address; Matrix: the room id (`!room:server`); Slack: unused.
    #[serde(default)]
    pub target: String,
    /// Email: `host:port` of the SMTP server; Matrix: the homeserver's URL.
    #[serde(default)]
    pub server: Option<String>,
    /// Email: the sender address (and the SMTP user, unless `username`).
    #[serde(default)]
    pub from: Option<String>,
    #[serde(default)]
    pub username: Option<String>,
    #[serde(default)]
    pub tls: MailTls,
    /// Email: a PEM file of the certificate (or CA) to trust for this server beside the usual roots.
    #[serde(default)]
    pub ca_file: Option<String>,
    /// Removed (issue 44): the keyring entry a channel once named for its secret. Any entry could be
    /// named (an engine's token, a model's key), so whoever may change the settings could have it
    /// sent away. Read so that a document stored before still loads — the secret is never taken from
    /// it, so its channel sends nothing that needs one until the local admin sets the channel's own
    /// ([`SecretPlace`]); a document carrying it is refused on save.
    #[serde(default, rename = "secretRef", skip_serializing_if = "Option::is_none")]
    #[schema(ignore)]
    pub removed_secret_ref: Option<serde_json::Value>,
    /// Removed (issue 44) as `secretRef`: the file a channel once named for its secret (any path:
    /// the receipts' signing key, the session token).
    #[serde(default, rename = "secretFile", skip_serializing_if = "Option::is_none")]
    #[schema(ignore)]
    pub removed_secret_file: Option<serde_json::Value>,
    #[serde(default)]
    pub quiet_hours: Option<QuietHours>,
    /// Whether messages carry the call's whole arguments (default: only what the call does).
    #[serde(default)]
    pub include_args: bool,
    #[serde(default = "yes")]
    pub enabled: bool,
}

fn yes() -> bool {
    true
}

/// Whom a step tells: these persons, whoever is on call then, or every channel.
pub const ON_CALL: &str = "on-call";
pub const EVERYONE: &str = "everyone";

/// One step of a rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Step {
    /// Seconds after the call paused (0: at once).
    pub after_secs: u64,
    /// Persons, `on-call` or `everyone`.
    pub notify: Vec<String>,
}

/// An escalation rule: which calls (every filter given must match; none given: every call) and its steps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Rule {
    pub name: String,
    #[serde(default)]
    pub tools: Vec<String>,
    #[serde(default)]
    pub agents: Vec<String>,
    #[serde(default)]
    pub sources: Vec<CallSource>,
    /// Calls of at least this risk.
    #[serde(default)]
    pub min_risk: Option<Level>,
    pub steps: Vec<Step>,
}

/// A shift: `person` is on call on these weekdays (0 Monday … 6 Sunday; none: every day) between
/// `from` and `to` (UTC, `HH:MM`; `from` after `to` spans midnight).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Shift {
    pub person: String,
    #[serde(default)]
    pub days: Vec<u8>,
    pub from: String,
    pub to: String,
}

/// The `reach` settings document.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReachSettings {
    #[serde(default)]
    pub channels: Vec<Channel>,
    #[serde(default)]
    pub rules: Vec<Rule>,
    #[serde(default)]
    pub on_call: Vec<Shift>,
}

/// What a rule is matched on.
pub struct Facts<'a> {
    pub tool: &'a str,
    pub agent: &'a str,
    pub source: CallSource,
    pub risk: Level,
}

/// One message to send: by which channel, for which rule and step, and when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planned {
    pub channel: String,
    pub person: String,
    /// The rule's name (`default`: no rule matched).
    pub rule: String,
    pub step: u32,
    pub after_secs: u64,
}

fn time(text: &str) -> Option<NaiveTime> {
    NaiveTime::parse_from_str(text, "%H:%M").ok()
}

fn within(from: NaiveTime, to: NaiveTime, now: NaiveTime) -> bool {
    if from <= to {
        from <= now && now < to
    } else {
        now >= from || now < to
    }
}

fn name_ok(name: &str) -> bool {
    super::principal::valid_credential_name(name)
}

impl QuietHours {
    /// When the quiet hours around `now` end; `None` if `now` is outside them.
    pub fn ends_after(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let (from, to) = (time(&self.from)?, time(&self.to)?);
        let t = now.time().with_nanosecond(0)?;
        if !within(from, to, t) {
            return None;
        }
        let today_end = now.date_naive().and_time(to).and_utc();
        Some(if today_end > now { today_end } else { today_end + chrono::Duration::days(1) })
    }
}

impl ReachSettings {
    /// Refuses what cannot work or must not be: names, times, kinds without their address, unknown
    /// persons in steps, a secret named by place (`secretRef`, `secretFile`: removed), plain SMTP to
    /// another machine. Whether each channel that needs a secret has one is the app's to check (the
    /// secrets are not in the document).
    pub fn check(&self) -> Result<(), String> {
        let mut names = std::collections::HashSet::new();
        for c in &self.channels {
            if !name_ok(&c.name) || !names.insert(c.name.as_str()) {
                return Err(format!("channel name {:?}: 1–64 letters, digits, '.', '_' or '-', each channel its own", c.name));
            }
            if !name_ok(&c.person) {
                return Err(format!("channel {}: {:?} is not a person's name", c.name, c.person));
            }
            if c.removed_secret_ref.is_some() || c.removed_secret_file.is_some() {
                return Err(format!(
                    "channel {0}: secretRef and secretFile are no longer taken (they could name any secret of this machine); \
                     remove them, and have the local admin set the channel's own secret: `approval-console channels secret set {0}`, \
                     or Settings → Channels in the desktop app",
                    c.name
                ));
            }
            let needs = |what: &str, ok: bool| if ok { Ok(()) } else { Err(format!("channel {} ({:?}) needs {what}", c.name, c.kind)) };
            match c.kind {
                ChannelKind::Webhook => {
                    needs("an http(s) target URL", c.target.starts_with("https://") || c.target.starts_with("http://"))?
                }
                ChannelKind::Slack => {}
                ChannelKind::Email => needs(
                    "a target address and a server host:port",
                    c.target.contains('@') && c.server.as_deref().is_some_and(|s| s.contains(':')),
                )?,
                ChannelKind::Matrix => {
                    needs("a room id (!room:server) and the homeserver URL", c.target.starts_with('!') && c.server.is_some())?
                }
            }
            if c.kind == ChannelKind::Email && c.tls == MailTls::None && !c.server.as_deref().is_some_and(plain_smtp_allowed) {
                return Err(format!(
                    "channel {}: plain SMTP (tls none) goes only to a relay on this machine (localhost, 127.0.0.1 or ::1), \
                     not to {:?}: use starttls or tls",
                    c.name,
                    c.server.as_deref().unwrap_or_default()
                ));
            }
            if let Some(q) = &c.quiet_hours {
                if time(&q.from).is_none() || time(&q.to).is_none() {
                    return Err(format!("channel {}: quiet hours are HH:MM (UTC)", c.name));
                }
            }
        }
        for r in &self.rules {
            if !name_ok(&r.name) || r.name == "default" {
                return Err(format!("rule name {:?}: a plain word other than \"default\"", r.name));
            }
            if r.steps.is_empty() {
                return Err(format!("rule {} has no step", r.name));
            }
            for s in &r.steps {
                if s.notify.is_empty() || s.after_secs > 7 * 24 * 3600 {
                    return Err(format!("rule {}: each step tells someone, within a week", r.name));
                }
            }
        }
        for s in &self.on_call {
            if time(&s.from).is_none() || time(&s.to).is_none() || s.days.iter().any(|d| *d > 6) || !name_ok(&s.person) {
                return Err(format!("on-call shift of {:?}: a person, days 0–6, HH:MM times", s.person));
            }
        }
        Ok(())
    }

    /// The first rule that matches `facts`, if any.
    pub fn rule_for(&self, f: &Facts) -> Option<&Rule> {
        self.rules.iter().find(|r| {
            (r.tools.is_empty() || r.tools.iter().any(|t| t == f.tool))
                && (r.agents.is_empty() || r.agents.iter().any(|a| a == f.agent))
                && (r.sources.is_empty() || r.sources.contains(&f.source))
                && r.min_risk.is_none_or(|m| f.risk >= m)
        })
    }

    /// Who is on call at `now`.
    pub fn on_call_at(&self, now: DateTime<Utc>) -> Vec<String> {
        let day = now.weekday().num_days_from_monday() as u8;
        let t = now.time();
        self.on_call
            .iter()
            .filter(|s| s.days.is_empty() || s.days.contains(&day))
            .filter(|s| time(&s.from).zip(time(&s.to)).is_some_and(|(from, to)| within(from, to, t)))
            .map(|s| s.person.clone())
            .collect()
    }

    /// Every message a call with `facts` gets, step by step (`on-call` resolved when the step is
    /// due, so it is kept as such here). A person told by an earlier step is not told again.
    pub fn plan(&self, f: &Facts) -> Vec<Planned> {
        let enabled = || self.channels.iter().filter(|c| c.enabled);
        let Some(rule) = self.rule_for(f) else {
            return enabled()
                .map(|c| Planned { channel: c.name.clone(), person: c.person.clone(), rule: "default".into(), step: 0, after_secs: 0 })
                .collect();
        };
        let mut out: Vec<Planned> = vec![];
        // Told for sure by an earlier step (by name or as everyone; an `on-call` step may not tell them).
        let surely = |step: &Step, person: &str| step.notify.iter().any(|n| n == EVERYONE || n == person);
        for (i, step) in rule.steps.iter().enumerate() {
            for c in enabled() {
                let named = surely(step, &c.person) || step.notify.iter().any(|n| n == ON_CALL);
                let told = rule.steps[..i].iter().any(|earlier| surely(earlier, &c.person));
                if named && !told {
                    out.push(Planned {
                        channel: c.name.clone(),
                        person: c.person.clone(),
                        rule: rule.name.clone(),
                        step: i as u32,
                        after_secs: step.after_secs,
                    });
                }
            }
        }
        out
    }

    /// Whether the step `step` of rule `rule` tells `person` at `now` (its `on-call` resolved now).
    pub fn step_tells(&self, rule: &str, step: u32, person: &str, now: DateTime<Utc>) -> bool {
        let Some(r) = self.rules.iter().find(|r| r.name == rule) else { return rule == "default" };
        let Some(s) = r.steps.get(step as usize) else { return false };
        s.notify.iter().any(|n| n == EVERYONE || n == person)
            || (s.notify.iter().any(|n| n == ON_CALL) && self.on_call_at(now).iter().any(|p| p == person))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(name: &str, person: &str) -> Channel {
        Channel {
            name: name.into(),
            kind: ChannelKind::Webhook,
            person: person.into(),
            target: "http://127.0.0.1:9/hook".into(),
            server: None,
            from: None,
            username: None,
            tls: MailTls::Starttls,
            ca_file: None,
            removed_secret_ref: None,
            removed_secret_file: None,
            quiet_hours: None,
            include_args: false,
            enabled: true,
        }
    }

    fn facts(tool: &str, risk: Level) -> Facts<'_> {
        Facts { tool, agent: "demo", source: CallSource::Local, risk }
    }

    #[test]
    fn without_a_rule_every_enabled_channel_is_told_at_once() {
        let mut s = ReachSettings { channels: vec![channel("a", "alice"), channel("b", "bob")], ..Default::default() };
        s.channels[1].enabled = false;
        let plan = s.plan(&facts("delete_record", Level::Low));
        assert_eq!(plan.iter().map(|p| (p.channel.as_str(), p.after_secs)).collect::<Vec<_>>(), [("a", 0)]);
    }

    #[test]
    fn a_rule_tells_each_person_at_their_step_and_others_never() {
        let s = ReachSettings {
            channels: vec![channel("a", "alice"), channel("b", "bob"), channel("c", "carol")],
            rules: vec![Rule {
                name: "payments".into(),
                tools: vec!["send_money".into()],
                agents: vec![],
                sources: vec![],
                min_risk: Some(Level::Medium),
                steps: vec![
                    Step { after_secs: 0, notify: vec!["alice".into()] },
                    Step { after_secs: 300, notify: vec!["everyone".into()] },
                ],
            }],
            on_call: vec![],
        };
        let plan = s.plan(&facts("send_money", Level::High));
        let got: Vec<_> = plan.iter().map(|p| (p.channel.as_str(), p.step, p.after_secs)).collect();
        assert_eq!(got, [("a", 0, 0), ("b", 1, 300), ("c", 1, 300)], "alice once, the others after 5 minutes");
        // Below its risk, or another tool: the default (everyone at once).
        assert!(s.plan(&facts("send_money", Level::Low)).iter().all(|p| p.rule == "default" && p.after_secs == 0));
        assert!(s.rule_for(&facts("delete_record", Level::Critical)).is_none());
    }

    #[test]
    fn quiet_hours_and_shifts_span_midnight() {
        let at = |h: u32, m: u32| chrono::NaiveDate::from_ymd_opt(2026, 12, 7).unwrap().and_hms_opt(h, m, 0).unwrap().and_utc();
        let q = QuietHours { from: "22:00".into(), to: "07:00".into() };
        assert_eq!(q.ends_after(at(23, 0)), Some(at(7, 0) + chrono::Duration::days(1)));
        assert_eq!(q.ends_after(at(6, 59)), Some(at(7, 0)));
        assert_eq!(q.ends_after(at(7, 0)), None);
        assert_eq!(q.ends_after(at(12, 0)), None);
        // 2026-12-07 is a Monday (0).
        let s = ReachSettings {
            on_call: vec![
                Shift { person: "night".into(), days: vec![], from: "20:00".into(), to: "08:00".into() },
                Shift { person: "weekday".into(), days: vec![0, 1, 2, 3, 4], from: "08:00".into(), to: "20:00".into() },
            ],
            ..Default::default()
        };
        assert_eq!(s.on_call_at(at(3, 0)), ["night"]);
        assert_eq!(s.on_call_at(at(9, 0)), ["weekday"]);
        assert!(s.on_call_at(at(9, 0) + chrono::Duration::days(5)).is_empty(), "Saturday day: nobody");
    }

    #[test]
    fn settings_that_cannot_work_are_refused() {
        let ok = ReachSettings { channels: vec![channel("a", "alice")], ..Default::default() };
        assert!(ok.check().is_ok());
        let mut twice = ok.clone();
        twice.channels.push(channel("a", "bob"));
        assert!(twice.check().is_err());
        // Whether a Slack channel has its URL (a secret) is the app's to check: never in the settings
        // (`tests/api/channel_secrets.rs`); naming one by place is refused here.
        let mut named = ok.clone();
        named.channels[0].kind = ChannelKind::Slack;
        named.channels[0].removed_secret_file = Some("/home/me/.local/share/approval-console/session-token".into());
        assert!(named.check().unwrap_err().contains("channels secret set a"), "says how to set it instead");
        let mut named = ok.clone();
        named.channels[0].removed_secret_ref = Some("engine.prod.token".into());
        assert!(named.check().is_err());
        let mut quiet = ok.clone();
        quiet.channels[0].quiet_hours = Some(QuietHours { from: "25:00".into(), to: "07:00".into() });
        assert!(quiet.check().is_err());
    }

    #[test]
    fn plain_smtp_goes_only_to_a_relay_on_this_machine() {
        for ok in ["127.0.0.1:25", "127.8.9.10:2525", "localhost:25", "LocalHost:25", "[::1]:25"] {
            assert!(plain_smtp_allowed(ok), "{ok}");
        }
        for no in ["smtp.example.com:25", "10.0.0.1:25", "127.0.0.1.example.com:25", "[::2]:25", "127.0.0.1", "127.0.0.1:x", ""] {
            assert!(!plain_smtp_allowed(no), "{no}");
        }
        let mut mail = channel("m", "alice");
        mail.kind = ChannelKind::Email;
        mail.target = "alice@example.com".into();
        mail.tls = MailTls::None;
        mail.server = Some("smtp.example.com:25".into());
        let s = ReachSettings { channels: vec![mail.clone()], ..Default::default() };
        assert!(s.check().unwrap_err().contains("plain SMTP"), "refused to another machine");
        mail.server = Some("127.0.0.1:25".into());
        assert!(ReachSettings { channels: vec![mail.clone()], ..Default::default() }.check().is_ok());
        mail.tls = MailTls::Starttls;
        mail.server = Some("smtp.example.com:25".into());
        assert!(ReachSettings { channels: vec![mail], ..Default::default() }.check().is_ok(), "STARTTLS goes anywhere");
    }
}
