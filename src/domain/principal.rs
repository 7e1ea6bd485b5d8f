//! Who is asking: the principals of the console and what each may do.
//!
//! Four roles; what each may do is [`Role::includes`], never an order:
//! - `agent`: the engine API — start runs, stream them, list the suspended runs it started. It can
//!   never decide: the agent being reviewed must not approve its own call.
//! - `viewer`: reads the metrics and the team's figures (dashboards), nothing else: no queue, no
//!   decisions, no runs, no submitted calls. Beside `agent`: neither includes the other.
//! - `operator`: the console API and decisions (the queue, the audit log, approving, declining,
//!   answering, also through the Mastra-shaped routes), and everything an agent or a viewer may do.
//! - `admin`: an operator who may also change grants, settings, engines and tokens.
//!
//! A principal is the local user (the token `serve` prints, the desktop window, the CLI run by the
//! owner of the data directory: always `admin`) or a stored credential (`tokens add`).

use serde::{Deserialize, Serialize};
use std::fmt;

/// What a principal may do. Not ordered: `agent` and `viewer` stand beside each other, and what a
/// role may do is [`Role::includes`] (deliberately no `Ord`, so nothing compares roles by rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Agent,
    Viewer,
    Operator,
    Admin,
}

impl Role {
    /// Every role.
    pub const ALL: [Self; 4] = [Self::Agent, Self::Viewer, Self::Operator, Self::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::Viewer => "viewer",
            Self::Operator => "operator",
            Self::Admin => "admin",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "agent" => Some(Self::Agent),
            "viewer" => Some(Self::Viewer),
            "operator" => Some(Self::Operator),
            "admin" => Some(Self::Admin),
            _ => None,
        }
    }

    /// Whether this role may do what `needed` may: itself; an operator also an agent's and a
    /// viewer's; an admin everything. An agent never a viewer's, a viewer never an agent's.
    pub fn includes(self, needed: Role) -> bool {
        match self {
            Self::Admin => true,
            Self::Operator => matches!(needed, Self::Operator | Self::Agent | Self::Viewer),
            Self::Agent => needed == Self::Agent,
            Self::Viewer => needed == Self::Viewer,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a principal comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PrincipalKind {
    /// The local user: the session token `serve` printed (or `--token`), the desktop window, the CLI.
    Local,
    /// A stored credential (`approval-console tokens add`).
    Token,
    /// A paired device's session on the remote listener (`serve --listen`): an operator whose every
    /// decision needs the device's passkey, asked for that call and that decision.
    Device,
}

/// An authenticated caller.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Principal {
    /// The credential's name, or the OS user for the local admin.
    pub name: String,
    pub role: Role,
    pub kind: PrincipalKind,
}

impl Principal {
    /// The local admin, named after the OS user.
    pub fn local(user: &str) -> Self {
        Self { name: user.to_owned(), role: Role::Admin, kind: PrincipalKind::Local }
    }

    /// A stored credential.
    pub fn token(name: &str, role: Role) -> Self {
        Self { name: name.to_owned(), role, kind: PrincipalKind::Token }
    }

    /// A paired device (its session cookie on the remote listener): always an operator.
    pub fn device(name: &str) -> Self {
        Self { name: name.to_owned(), role: Role::Operator, kind: PrincipalKind::Device }
    }

    /// Stable and unique across kinds (`local:alice`, `token:ci-bot`): what a run records as the
    /// principal that started it.
    pub fn key(&self) -> String {
        let kind = match self.kind {
            PrincipalKind::Local => "local",
            PrincipalKind::Token => "token",
            PrincipalKind::Device => "device",
        };
        format!("{kind}:{}", self.name)
    }
}

/// A principal acting through one shell (`web`, `cli`, `desktop`, `mastra-api`, `notification`):
/// what the audit log names as the actor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    pub principal: Principal,
    pub channel: &'static str,
    /// A paired device's passkey step-up presented with this request (the remote listener).
    pub proof: Option<StepUpProof>,
    /// Where the request came from, when a shell knows (the remote listener: the peer's address).
    pub address: Option<String>,
    /// The listener the request came through ([`Actor::new`]: this process's own shells; the HTTP
    /// shell sets its listener).
    pub listener: super::authority::Listener,
}

/// What a decision's request on the remote listener presents: the step-up's id and the browser's
/// passkey assertion (WebAuthn JSON), checked by the core against what that step-up was asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepUpProof {
    pub ceremony: String,
    pub assertion: String,
}

impl Actor {
    pub fn new(principal: Principal, channel: &'static str) -> Self {
        Self { principal, channel, proof: None, address: None, listener: super::authority::Listener::InProcess }
    }

    /// `alice (web)`: the actor as the audit log and the decision record it.
    pub fn audit_name(&self) -> String {
        format!("{} ({})", self.principal.name, self.channel)
    }
}

/// A credential name: 1–64 letters, digits, `.`, `_`, `-`, starting with a letter or digit.
pub fn valid_credential_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A token's admission, on 127.0.0.1, to an operation whose grade wants `needed` of a token.
    fn require(p: &Principal, needed: Role) -> Result<(), super::super::Error> {
        use super::super::{authority, Op};
        let op = match needed {
            Role::Agent => Op::Generate,
            Role::Viewer => Op::Metrics,
            Role::Operator => Op::ClaimCall,
            Role::Admin => Op::CreateGrant,
        };
        let actor = Actor { listener: authority::Listener::Loopback, ..Actor::new(p.clone(), "web") };
        authority::admit(op, actor).map(|_| ())
    }

    #[test]
    fn each_role_includes_the_ones_before_it_and_no_more() {
        let p = |role| Principal::token("t", role);
        assert!(require(&p(Role::Admin), Role::Operator).is_ok());
        assert!(require(&p(Role::Operator), Role::Agent).is_ok());
        assert!(require(&p(Role::Operator), Role::Operator).is_ok());
        let e = require(&p(Role::Agent), Role::Operator).unwrap_err();
        assert_eq!(e.code(), "forbidden");
        assert!(require(&p(Role::Operator), Role::Admin).is_err());
        assert_eq!(Principal::local("alice").role, Role::Admin);
    }

    #[test]
    fn a_viewer_and_an_agent_stand_beside_each_other() {
        let p = |role| Principal::token("t", role);
        assert!(require(&p(Role::Viewer), Role::Viewer).is_ok());
        assert!(require(&p(Role::Viewer), Role::Agent).is_err(), "a viewer starts no run, submits no call");
        assert!(require(&p(Role::Agent), Role::Viewer).is_err(), "an agent reads no metrics");
        for above in [Role::Operator, Role::Admin] {
            assert!(require(&p(Role::Viewer), above).is_err());
            assert!(require(&p(above), Role::Viewer).is_ok() && require(&p(above), Role::Agent).is_ok());
        }
        for role in Role::ALL {
            assert!(role.includes(role) && Role::Admin.includes(role));
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
    }

    #[test]
    fn keys_tell_a_token_from_the_local_user_of_the_same_name() {
        assert_ne!(Principal::local("alice").key(), Principal::token("alice", Role::Admin).key());
    }

    #[test]
    fn credential_names_are_short_plain_words() {
        for ok in ["ci-bot", "alice", "a.b_c-1", "9"] {
            assert!(valid_credential_name(ok), "{ok}");
        }
        for bad in ["", "-x", "a b", "alice (web)", "ä", &"x".repeat(65)] {
            assert!(!valid_credential_name(bad), "{bad}");
        }
    }
}
