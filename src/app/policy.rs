//! Policy as code (issue 27): one TOML file holds what decides which calls need an operator — the
//! high-risk tools, the operators' risk rules, the quorums (per tool and for calls rated critical)
//! and the time limits. `approval-console policy check|diff|apply|export`; every decision records
//! the version it was taken under ([`crate::console::policy`]). Grants are made from calls and stay
//! out of the file.

use super::widening::Widening;
use super::App;
use crate::console::expiry::{ExpiryRule, ExpirySettings};
use crate::domain::risk::custom::{RiskRule, RiskRules};
use crate::domain::safety::{QuorumRule, QuorumSettings, SafetySettings};
use crate::domain::Error;
use crate::domain::{grade, Cx};
use serde::{Deserialize, Serialize};

/// The policy file, as written and read (`policy export` prints it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyFile {
    /// Tools this file names on purpose before any call of them came: a rule of one of these passes
    /// `policy check` and `policy apply` although no agent, engine or queued call has named it yet
    /// (any other name this console has not seen is still refused as a likely misspelling). Not a
    /// setting: it changes nothing in force, nor the policy's version. `policy export` lists here
    /// the tools of the policy in force that this console has not seen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expected_tools: Vec<String>,
    /// Every call of these tools needs an operator in the console: no grant, no notification
    /// Approve, no engine-client approval.
    #[serde(default)]
    pub high_risk_tools: Vec<String>,
    /// Every approval of a high-risk call needs a paired device's passkey (`serve --listen`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub high_risk_passkey: bool,
    /// How long a decision's signed receipt may be acted on, in seconds (60 to 604,800; an hour
    /// when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt_ttl_secs: Option<u64>,
    /// How many operators must approve each call rated critical by its arguments (2–10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical_approvals: Option<u32>,
    /// How long before its deadline a call is announced as about to expire (seconds).
    #[serde(default = "default_warn")]
    pub expiry_warn_before_secs: u64,
    /// `[[quorum]]`: a tool whose every call needs several operators' approvals.
    #[serde(default, rename = "quorum", skip_serializing_if = "Vec::is_empty")]
    pub quorums: Vec<QuorumRule>,
    /// `[[time_limit]]`: a tool (or `"*"`) whose calls are declined as expired after a while.
    #[serde(default, rename = "time_limit", skip_serializing_if = "Vec::is_empty")]
    pub time_limits: Vec<TimeLimit>,
    /// `[[risk_rule]]`: an operator's rule, beside the built-in ones.
    #[serde(default, rename = "risk_rule", skip_serializing_if = "Vec::is_empty")]
    pub risk_rules: Vec<RiskRule>,
}

fn default_warn() -> u64 {
    ExpirySettings::default().warn_before_secs
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeLimit {
    pub tool: String,
    pub after_secs: u64,
}

/// The settings documents a policy file stands for.
#[derive(Default)]
pub struct Documents {
    pub safety: SafetySettings,
    pub quorum: QuorumSettings,
    pub expiry: ExpirySettings,
    pub risk: RiskRules,
}

impl PolicyFile {
    /// Reads a policy file's text; a syntax error or an unknown key says where.
    pub fn parse(text: &str) -> Result<Self, Error> {
        toml::from_str(text).map_err(|e| Error::InvalidRequest(format!("the policy file cannot be read: {e}")))
    }

    /// The file's text, with a header saying how to use it.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string_pretty(self).expect("a policy serializes");
        format!(
            "# Approval Console policy. Check it with `approval-console policy check FILE`, see what it\n\
             # changes with `policy diff FILE`, put it in force with `policy apply FILE`.\n\n{body}"
        )
    }

    pub fn documents(&self) -> Documents {
        Documents {
            safety: SafetySettings {
                high_risk_tools: self.high_risk_tools.clone(),
                high_risk_passkey: self.high_risk_passkey,
                receipt_ttl_secs: self.receipt_ttl_secs,
            },
            quorum: QuorumSettings { rules: self.quorums.clone(), critical: self.critical_approvals },
            expiry: ExpirySettings {
                rules: self.time_limits.iter().map(|t| ExpiryRule { tool: t.tool.clone(), after_secs: t.after_secs }).collect(),
                warn_before_secs: self.expiry_warn_before_secs,
            },
            risk: RiskRules { rules: self.risk_rules.clone() },
        }
    }

    pub fn of(d: &Documents) -> Self {
        Self {
            high_risk_tools: d.safety.high_risk_tools.clone(),
            high_risk_passkey: d.safety.high_risk_passkey,
            receipt_ttl_secs: d.safety.receipt_ttl_secs,
            critical_approvals: d.quorum.critical,
            expiry_warn_before_secs: d.expiry.warn_before_secs,
            quorums: d.quorum.rules.clone(),
            time_limits: d.expiry.rules.iter().map(|r| TimeLimit { tool: r.tool.clone(), after_secs: r.after_secs }).collect(),
            risk_rules: d.risk.rules.clone(),
            expected_tools: vec![],
        }
    }

    /// The version this policy would have in force.
    pub fn version(&self) -> Result<String, Error> {
        let d = self.documents();
        crate::console::policy::version_of(crate::console::policy::documents_of(&d.expiry, &d.quorum, &d.risk, &d.safety))
    }

    /// Every tool its rules name (not `"*"`).
    fn tools(&self) -> std::collections::BTreeSet<&str> {
        let named = self.high_risk_tools.iter().chain(self.quorums.iter().map(|q| &q.tool));
        let named = named.chain(self.time_limits.iter().map(|t| &t.tool)).chain(self.risk_rules.iter().map(|r| &r.tool));
        named.map(String::as_str).filter(|t| *t != "*").collect()
    }
}

/// The policy in force for the console's screens (`GET /api/policy`): its version, its file, and
/// the policy files applied before, newest first.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyView {
    pub version: String,
    /// The policy as its file (`policy export`).
    pub file: String,
    /// The last policy files applied (`policy.applied`), newest first: who, when, versions.
    pub applied: Vec<PolicyApplication>,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyApplication {
    #[schema(format = DateTime)]
    pub at: String,
    pub by: String,
    pub before: String,
    pub after: String,
}

/// What a policy check does with a tool that no agent, engine or queued call has named yet and the
/// file does not expect (`expected_tools`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unseen {
    /// A problem: it may be a misspelling that leaves the real tool unprotected.
    Refuse,
    /// A note (`--yes`): the rule applies once a call of that exact name comes.
    Accept,
}

/// What `policy check` found: problems that stop an apply, and notes that do not (said as warnings).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Findings {
    pub errors: Vec<String>,
    pub notes: Vec<String>,
}

impl App {
    /// The policy in force, as its file.
    pub async fn policy_in_force(&self, _by: &Cx<grade::Operator>) -> Result<(PolicyFile, String), Error> {
        let s = crate::store::settings::snapshot(&self.db).await?;
        let file = PolicyFile::of(&Documents { safety: s.get()?, quorum: s.get()?, expiry: s.get()?, risk: s.get()? });
        Ok((file, crate::console::policy::version(&s)?))
    }

    /// The policy in force, its file and the last 20 applied (`GET /api/policy`).
    pub async fn policy_view(&self, by: &Cx<grade::Operator>) -> Result<PolicyView, Error> {
        let (file, version) = self.export_policy(by).await?;
        let entries = crate::store::audit::of_action(&self.db, crate::domain::audit::PolicyApplied::action_name(), 20).await?;
        let text = |v: &serde_json::Value, k: &str| v[k].as_str().unwrap_or_default().to_owned();
        let applied = entries
            .into_iter()
            .map(|e| PolicyApplication { before: text(&e.details, "before"), after: text(&e.details, "after"), at: e.at, by: e.actor })
            .collect();
        Ok(PolicyView { version, file: file.to_toml(), applied })
    }

    /// `policy check`: every rule compiles and is in range, every tool it names is one this console
    /// knows or one the file expects (`expected_tools`) — a misspelt tool would leave the real one
    /// unprotected — and no risk rule of a high-risk tool rates it below high (rules only add: such a
    /// rule would read as if it lowered it). With `unseen` [`Unseen::Accept`] (`--yes`), a tool
    /// nothing has named yet is a note, not a problem.
    pub async fn check_policy(&self, file: &PolicyFile, unseen: Unseen, by: &Cx<grade::Operator>) -> Result<Findings, Error> {
        let mut f = Findings::default();
        let d = file.documents();
        use crate::store::settings::Document;
        for r in [Document::check(&d.safety), Document::check(&d.quorum), Document::check(&d.expiry), Document::check(&d.risk)] {
            if let Err(e) = r {
                f.errors.push(e.to_string());
            }
        }
        let known = self.known_tools(by).await?;
        let visible = crate::domain::text::visible;
        for tool in file.tools() {
            if known.contains(tool) || file.expected_tools.iter().any(|e| e == tool) {
                continue;
            }
            let what = format!("no agent, engine or queued call has named a tool {}", visible(tool));
            match unseen {
                Unseen::Refuse => f.errors.push(format!(
                    "{what}: check its spelling; a tool that has not called yet goes in expected_tools = [\"{}\"] (or check and apply with --yes)",
                    visible(tool)
                )),
                Unseen::Accept => f.notes.push(format!("{what}: its rules apply once a call of that exact name comes (--yes)")),
            }
        }
        let named = file.tools();
        for e in &file.expected_tools {
            if !named.contains(e.as_str()) {
                f.notes.push(format!("expected tool {} is named by no rule of this file", visible(e)));
            }
        }
        for r in &file.risk_rules {
            if file.high_risk_tools.contains(&r.tool) && r.level < crate::domain::risk::Level::High {
                f.errors.push(format!(
                    "the risk rule for {} rates it {}, but it is a high-risk tool: rules only add, so this one would mislead",
                    r.tool,
                    r.level.as_str()
                ));
            }
        }
        Ok(f)
    }

    /// `policy export`: the policy in force as its file, with the tools it names that this console
    /// has not seen in `expected_tools` (set with `--yes`), so that `policy check` of the file passes
    /// here and on a console that has seen none of them; and its version.
    pub async fn export_policy(&self, by: &Cx<grade::Operator>) -> Result<(PolicyFile, String), Error> {
        let (mut file, version) = self.policy_in_force(by).await?;
        let known = self.known_tools(by).await?;
        let unseen: Vec<String> = file.tools().into_iter().filter(|t| !known.contains(*t)).map(str::to_owned).collect();
        file.expected_tools = unseen;
        Ok((file, version))
    }

    /// `policy apply`: checked, then the four documents stored in one transaction (each change
    /// audited `settings.changed`) with a `policy.applied` entry naming the versions before and
    /// after and what widens; admins only; a widening only when confirmed (`--yes`), judged against
    /// the documents stored in that transaction. Answers the version now in force.
    pub async fn apply_policy(
        &self,
        file: &PolicyFile,
        widening: Widening,
        unseen: Unseen,
        by: &Cx<grade::Admin>,
    ) -> Result<String, Error> {
        let findings = self.check_policy(file, unseen, &by.narrow()).await?;
        if let Some(first) = findings.errors.first() {
            return Err(Error::InvalidRequest(format!("the policy has {} problem(s); the first: {first}", findings.errors.len())));
        }
        let (_, before) = self.policy_in_force(&by.narrow()).await?;
        let after = file.version()?;
        let d = file.documents();
        let docs = (&d.safety, &d.quorum, &d.expiry, &d.risk);
        crate::store::settings::save_policy(&self.db, docs, &before, &after, &by.audit_name(), widening.of_policy(file)).await?;
        Ok(after)
    }
}

/// One change of a policy ([`changes`]): its line, and whether it widens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub line: String,
    /// It lets more through without an operator (or lets an approval act longer): it needs a
    /// confirmation ([`super::widening::Widening`]).
    pub widens: bool,
}

/// What applying `new` over `old` changes, one line each ("+ high-risk tool Bash"); a change that
/// lets more through without an operator is marked "(widens)".
pub fn diff(old: &PolicyFile, new: &PolicyFile) -> Vec<String> {
    changes(old, new).into_iter().map(|c| c.line).collect()
}

/// The lines of [`diff`] that widen: the one rule of what needs a confirmation, for the CLI's
/// `--yes` and the settings' `confirmWidening` alike.
pub fn widenings(old: &PolicyFile, new: &PolicyFile) -> Vec<String> {
    changes(old, new).into_iter().filter(|c| c.widens).map(|c| c.line).collect()
}

/// Every change from `old` to `new`, each marked whether it widens — lets more through without an
/// operator: a high-risk tool removed, the passkey for high-risk approvals dropped, a quorum (of a
/// tool, or of critical calls) lowered or removed, a risk rule rating a call high or critical dropped
/// or lowered, a receipt's lifetime raised (an approval may be acted on longer after it was given).
/// Not a widening: a time limit removed or raised (an expiry is a decline: without a limit a call
/// waits for an operator instead of being declined), the expiry warning, anything added.
pub fn changes(old: &PolicyFile, new: &PolicyFile) -> Vec<Change> {
    let mut out = Vec::new();
    let mut push = |line: String, widens: bool| out.push(Change { line, widens });
    for t in new.high_risk_tools.iter().filter(|t| !old.high_risk_tools.contains(t)) {
        push(format!("+ high-risk tool {t}"), false);
    }
    for t in old.high_risk_tools.iter().filter(|t| !new.high_risk_tools.contains(t)) {
        push(format!("- high-risk tool {t} (widens: its calls may be granted and approved from notifications)"), true);
    }
    if old.high_risk_passkey != new.high_risk_passkey {
        if new.high_risk_passkey {
            push("+ high-risk approvals need a paired device's passkey".to_owned(), false);
        } else {
            push("- high-risk approvals need a paired device's passkey (widens: they may be approved on this machine)".to_owned(), true);
        }
    }
    if old.receipt_ttl_secs != new.receipt_ttl_secs {
        let ttl = |f: &PolicyFile| f.receipt_ttl_secs.unwrap_or(crate::domain::receipt::DEFAULT_TTL_SECS);
        let (a, b) = (ttl(old), ttl(new));
        push(format!("~ receipts valid for {a} s → {b} s{}", if b > a { " (widens)" } else { "" }), b > a);
    }
    let q = |f: &PolicyFile, tool: &str| f.quorums.iter().find(|r| r.tool == tool).map_or(1, |r| r.approvals);
    let mut tools: Vec<&str> = old.quorums.iter().chain(&new.quorums).map(|r| r.tool.as_str()).collect();
    tools.sort();
    tools.dedup();
    for t in tools {
        let (a, b) = (q(old, t), q(new, t));
        if a != b {
            push(format!("~ quorum {t}: {a} → {b} approvals{}", if b < a { " (widens)" } else { "" }), b < a);
        }
    }
    if old.critical_approvals != new.critical_approvals {
        let (a, b) = (old.critical_approvals.unwrap_or(1), new.critical_approvals.unwrap_or(1));
        push(format!("~ critical calls: {a} → {b} approvals{}", if b < a { " (widens)" } else { "" }), b < a);
    }
    let limit = |f: &PolicyFile, tool: &str| f.time_limits.iter().find(|r| r.tool == tool).map(|r| r.after_secs);
    let mut tools: Vec<&str> = old.time_limits.iter().chain(&new.time_limits).map(|r| r.tool.as_str()).collect();
    tools.sort();
    tools.dedup();
    for t in tools {
        match (limit(old, t), limit(new, t)) {
            (a, b) if a == b => {}
            (None, Some(b)) => push(format!("+ time limit {t}: {b} s"), false),
            (Some(_), None) => push(format!("- time limit {t}"), false),
            (Some(a), Some(b)) => push(format!("~ time limit {t}: {a} s → {b} s"), false),
            (None, None) => {}
        }
    }
    if old.expiry_warn_before_secs != new.expiry_warn_before_secs {
        push(format!("~ expiry warning: {} s → {} s before", old.expiry_warn_before_secs, new.expiry_warn_before_secs), false);
    }
    for r in new.risk_rules.iter().filter(|r| !old.risk_rules.contains(r)) {
        push(format!("+ risk rule {} on {} /{}/ → {}: {}", r.tool, r.on, r.regex, r.level.as_str(), r.reason), false);
    }
    for r in old.risk_rules.iter().filter(|r| !new.risk_rules.contains(r)) {
        // Dropped or lowered: a rule of the same match rating at least as high still stands for it
        // (a reworded reason is no widening).
        let kept = new.risk_rules.iter().any(|n| n.tool == r.tool && n.on == r.on && n.regex == r.regex && n.level >= r.level);
        let widens = r.level >= crate::domain::risk::Level::High && !kept;
        let mark = if widens { " (widens)" } else { "" };
        push(format!("- risk rule {} on {} /{}/ → {}: {}{mark}", r.tool, r.on, r.regex, r.level.as_str(), r.reason), widens);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
high_risk_tools = ["delete_record"]
critical_approvals = 2

[[quorum]]
tool = "transfer"
approvals = 2

[[time_limit]]
tool = "*"
after_secs = 3600

[[risk_rule]]
tool = "Bash"
on = "command"
regex = "kubectl .* apply .*"
level = "high"
reason = "applies to a cluster"
"#;

    #[test]
    fn a_policy_file_round_trips_through_its_documents_and_its_text() {
        let file = PolicyFile::parse(FILE).unwrap();
        assert_eq!(file.expiry_warn_before_secs, 300, "the default when left out");
        let again = PolicyFile::of(&file.documents());
        assert_eq!(again, file);
        assert_eq!(PolicyFile::parse(&file.to_toml()).unwrap(), file);
        assert_eq!(again.version().unwrap(), file.version().unwrap());
        let e = PolicyFile::parse("high_risk_tool = []").unwrap_err().to_string();
        assert!(e.contains("high_risk_tool"), "an unknown key is named: {e}");
    }

    #[test]
    fn expected_tools_round_trip_through_the_text_and_change_neither_the_version_nor_the_diff() {
        let plain = PolicyFile::parse(FILE).unwrap();
        let expecting = PolicyFile { expected_tools: vec!["transfer".into()], ..plain.clone() };
        let text = expecting.to_toml();
        assert!(text.contains("expected_tools = [\"transfer\"]"), "{text}");
        assert_eq!(PolicyFile::parse(&text).unwrap(), expecting);
        assert_eq!(expecting.version().unwrap(), plain.version().unwrap(), "not a setting");
        assert!(diff(&plain, &expecting).is_empty());
    }

    #[test]
    fn a_diff_names_each_change_and_marks_what_widens() {
        let old = PolicyFile::parse(FILE).unwrap();
        let mut new = old.clone();
        new.high_risk_tools = vec!["drop_table".into()];
        new.quorums[0].approvals = 3;
        new.critical_approvals = None;
        new.risk_rules.clear();
        let lines = diff(&old, &new);
        assert!(lines.contains(&"+ high-risk tool drop_table".to_owned()), "{lines:?}");
        assert!(lines.iter().any(|l| l.starts_with("- high-risk tool delete_record") && l.contains("(widens")), "{lines:?}");
        assert!(lines.contains(&"~ quorum transfer: 2 → 3 approvals".to_owned()), "{lines:?}");
        assert!(lines.contains(&"~ critical calls: 2 → 1 approvals (widens)".to_owned()), "{lines:?}");
        assert!(lines.iter().any(|l| l.starts_with("- risk rule Bash") && l.ends_with("(widens)")), "{lines:?}");
        assert!(diff(&old, &old).is_empty());
    }
}
