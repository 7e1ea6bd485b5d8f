//! Who may call what, decided in one place (issue 44).
//!
//! Each operation of the catalog (`src/domain/catalog.rs`) names a [`Grade`] — the kinds of principal
//! it admits — and the listeners it is served on ([`Served`]). [`admission`] is the whole rule: for an
//! operation, a [`Kind`] of caller and the [`Listener`] the request came through, it answers
//! [`Admission::Allowed`], [`Admission::StepUp`] (a paired device, whose decision then needs its
//! passkey for that very call: the decision kernel, `console::decide`, checks it), `Refused` or
//! `NotServed`. The authorization table in docs/security.md is printed from it
//! (`approval-console manifest --authorization`), and `tests/api/authorization.rs` walks every cell
//! against a running server on both listeners.
//!
//! A shell checks it once ([`admit`]) and hands the operation a typed context, [`Cx<G>`], whose grade
//! is a type: an `App` method that needs an operator takes `&Cx<grade::Operator>`, and nothing else
//! compiles. Nothing below the shells compares roles: what a context may see (an agent only its own
//! runs and calls) is [`Cx::scope`], decided here too.

use super::{Actor, Error, Op, Principal, PrincipalKind, Role};
use serde::Serialize;

/// What an operation admits (its catalog line's `=> Grade`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grade {
    /// Anyone, no credential (health, the receipts' public keys, a phone's pairing and sign-in).
    Public,
    /// Any credential.
    Any,
    /// What agents do: start and read runs, submit calls. Agent, operator and admin tokens and the
    /// local admin; never a paired device.
    Agent,
    /// The team's figures: viewer, operator and admin tokens and the local admin.
    Viewer,
    /// Reading the queue: operator and admin tokens, the local admin, and a paired device.
    Watch,
    /// Working the queue besides deciding (claims, snoozes, grants revoked, settings read): operator
    /// and admin tokens and the local admin; never a device.
    Operator,
    /// Deciding a call: operator and admin tokens and the local admin; a paired device with a
    /// step-up bound to the call, its fingerprint and the decision.
    Decide,
    /// Changing rules, engines, tokens and devices: admin tokens and the local admin.
    Admin,
    /// The local admin alone (the OS user: the desktop window, the CLI, the session token of
    /// `serve`): secrets of the console's own, never set by a token.
    Local,
    /// A paired device's session alone (its step-up ceremony, its sign-out).
    Device,
}

impl Grade {
    pub const ALL: [Grade; 10] = [
        Grade::Public,
        Grade::Any,
        Grade::Agent,
        Grade::Viewer,
        Grade::Watch,
        Grade::Operator,
        Grade::Decide,
        Grade::Admin,
        Grade::Local,
        Grade::Device,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Grade::Public => "public",
            Grade::Any => "any",
            Grade::Agent => "agent",
            Grade::Viewer => "viewer",
            Grade::Watch => "watch",
            Grade::Operator => "operator",
            Grade::Decide => "decide",
            Grade::Admin => "admin",
            Grade::Local => "local",
            Grade::Device => "device",
        }
    }

    /// Whom it is for, in words (the `forbidden` answer's message).
    pub fn who(self) -> &'static str {
        match self {
            Grade::Public => "open to anyone",
            Grade::Any => "for any credential",
            Grade::Agent => "for agents, operators and admins (never a paired device)",
            Grade::Viewer => "for viewers, operators and admins",
            Grade::Watch => "for operators, admins and paired devices",
            Grade::Operator => "for operators and admins (never a paired device)",
            Grade::Decide => "for operators and admins, and paired devices with their passkey",
            Grade::Admin => "for admins",
            Grade::Local => {
                "only the local admin's (the OS user: the desktop window, the CLI, or serve's session token on 127.0.0.1), never a stored credential's"
            }
            Grade::Device => "a paired device's own",
        }
    }

    /// The least role a stored token needs for it (`None`: no token is admitted, or none is needed),
    /// what `forbidden`'s details name as `needed`.
    pub fn token_role(self) -> Option<Role> {
        match self {
            Grade::Public | Grade::Any | Grade::Device => None,
            Grade::Agent => Some(Role::Agent),
            Grade::Viewer => Some(Role::Viewer),
            Grade::Watch | Grade::Operator | Grade::Decide => Some(Role::Operator),
            Grade::Admin | Grade::Local => Some(Role::Admin),
        }
    }
}

/// Where a request came in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Listener {
    /// The HTTP API on 127.0.0.1 (`serve`, the desktop app's port).
    Loopback,
    /// The remote listener (`serve --listen`: TLS, a paired phone, agents on other machines).
    Remote,
    /// This process's own shells: the desktop window, the CLI, a desktop notification's buttons.
    InProcess,
}

impl Listener {
    pub const HTTP: [Listener; 2] = [Listener::Loopback, Listener::Remote];
}

/// Which listeners serve an operation (the catalog's `@ local`, `@ remote`, `@ both`; an operation
/// without a route is in-process only). Every operation is also callable in-process by the local
/// admin (the CLI, the window), but the remote listener's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Served {
    Local,
    Remote,
    Both,
    InProcess,
}

impl Served {
    pub fn on(self, listener: Listener) -> bool {
        matches!(
            (self, listener),
            (Served::Both, _)
                | (Served::Local, Listener::Loopback)
                | (Served::Remote, Listener::Remote)
                | (Served::InProcess | Served::Local, Listener::InProcess)
        )
    }
}

/// The kinds of caller the authorization table tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// No credential.
    Anonymous,
    /// Stored tokens, by role.
    AgentToken,
    ViewerToken,
    OperatorToken,
    AdminToken,
    /// The OS user: the session token `serve` prints, the desktop window, the CLI.
    LocalAdmin,
    /// A paired device's session cookie (the remote listener).
    Device,
}

impl Kind {
    pub const ALL: [Kind; 7] =
        [Kind::Anonymous, Kind::AgentToken, Kind::ViewerToken, Kind::OperatorToken, Kind::AdminToken, Kind::LocalAdmin, Kind::Device];

    pub fn of(principal: Option<&Principal>) -> Kind {
        let Some(p) = principal else { return Kind::Anonymous };
        match (p.kind, p.role) {
            (PrincipalKind::Local, _) => Kind::LocalAdmin,
            (PrincipalKind::Device, _) => Kind::Device,
            (PrincipalKind::Token, Role::Agent) => Kind::AgentToken,
            (PrincipalKind::Token, Role::Viewer) => Kind::ViewerToken,
            (PrincipalKind::Token, Role::Operator) => Kind::OperatorToken,
            (PrincipalKind::Token, Role::Admin) => Kind::AdminToken,
        }
    }

    /// The kind with its article, for a message: `an admin token`.
    pub fn named(self) -> &'static str {
        match self {
            Kind::Anonymous => "no credential",
            Kind::AgentToken => "an agent token",
            Kind::ViewerToken => "a viewer token",
            Kind::OperatorToken => "an operator token",
            Kind::AdminToken => "an admin token",
            Kind::LocalAdmin => "the local admin",
            Kind::Device => "a paired device",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Anonymous => "anonymous",
            Kind::AgentToken => "agent token",
            Kind::ViewerToken => "viewer token",
            Kind::OperatorToken => "operator token",
            Kind::AdminToken => "admin token",
            Kind::LocalAdmin => "local admin",
            Kind::Device => "device",
        }
    }

    /// Whether this kind of caller can be authenticated on `listener` at all: the loopback listener
    /// takes bearer tokens (the session token, stored tokens), the remote listener a device's session
    /// cookie or an agent's token, this process's shells the local admin (and tokens handed to them).
    pub fn on(self, listener: Listener) -> bool {
        match listener {
            Listener::Loopback => self != Kind::Device,
            Listener::Remote => matches!(self, Kind::Anonymous | Kind::AgentToken | Kind::Device),
            Listener::InProcess => !matches!(self, Kind::Anonymous | Kind::Device),
        }
    }
}

/// One cell of the authorization table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Admission {
    Allowed,
    /// A paired device, admitted to decide with its passkey asked for that call and that decision.
    StepUp,
    Refused,
    /// The kind is admitted, but not on this listener (the route answers 404 there).
    NotServed,
}

impl Admission {
    pub fn as_str(self) -> &'static str {
        match self {
            Admission::Allowed => "allowed",
            Admission::StepUp => "step-up",
            Admission::Refused => "refused",
            Admission::NotServed => "not served",
        }
    }
}

/// Whether `kind` may call `op` through `listener`: the grade first (a role short of it is refused
/// wherever it asks), then whether that kind is heard on the listener at all, then whether the
/// listener serves the operation.
pub fn admission(op: Op, kind: Kind, listener: Listener) -> Admission {
    // A public operation reads no credential: whoever calls is anonymous to it.
    let kind = if op.info().grade == Grade::Public { Kind::Anonymous } else { kind };
    let by_grade = grade_admits(op.info().grade, kind);
    if by_grade == Admission::Refused || !kind.on(listener) {
        return Admission::Refused;
    }
    if !op.info().served.on(listener) {
        return Admission::NotServed;
    }
    by_grade
}

fn grade_admits(grade: Grade, kind: Kind) -> Admission {
    use Kind::*;
    let yes = match grade {
        Grade::Public => true,
        Grade::Any => kind != Anonymous,
        Grade::Agent => matches!(kind, AgentToken | OperatorToken | AdminToken | LocalAdmin),
        Grade::Viewer => matches!(kind, ViewerToken | OperatorToken | AdminToken | LocalAdmin),
        Grade::Watch => matches!(kind, OperatorToken | AdminToken | LocalAdmin | Device),
        Grade::Operator => matches!(kind, OperatorToken | AdminToken | LocalAdmin),
        Grade::Decide if kind == Device => return Admission::StepUp,
        Grade::Decide => matches!(kind, OperatorToken | AdminToken | LocalAdmin),
        Grade::Admin => matches!(kind, AdminToken | LocalAdmin),
        Grade::Local => kind == LocalAdmin,
        Grade::Device => kind == Device,
    };
    if yes {
        Admission::Allowed
    } else {
        Admission::Refused
    }
}

/// The authorization table (docs/security.md, `approval-console manifest --authorization`): every
/// operation of the catalog, and for each kind of caller on each HTTP listener what [`admission`]
/// answers — `✓` allowed, `S` allowed on condition of a step-up bound to the call, `✗` refused,
/// `–` not served there. In-process (the window, the CLI) only the local admin calls, and may call
/// every operation but a paired device's own.
pub fn table() -> String {
    let cell = |a: Admission| match a {
        Admission::Allowed => "✓",
        Admission::StepUp => "S",
        Admission::Refused => "✗",
        Admission::NotServed => "–",
    };
    let mut out = String::from("| operation | route | grade |");
    let mut rule = String::from("|---|---|---|");
    for listener in Listener::HTTP {
        for kind in Kind::ALL {
            let on = if listener == Listener::Loopback { "127.0.0.1" } else { "remote" };
            out += &format!(" {} ({on}) |", kind.as_str());
            rule += ":-:|";
        }
    }
    out += &format!("\n{rule}\n");
    for op in Op::ALL {
        let info = op.info();
        let route = match (info.method, info.path) {
            (Some(m), Some(p)) => format!("`{m} {p}`"),
            _ => "window".into(),
        };
        out += &format!("| {} | {route} | {} |", info.name, info.grade.as_str());
        for listener in Listener::HTTP {
            for kind in Kind::ALL {
                out += &format!(" {} |", cell(admission(*op, kind, listener)));
            }
        }
        out.push('\n');
    }
    out
}

/// A caller the shell admitted to `op` ([`admit`]): the only way to a [`Cx`] besides the local
/// admin's own ([`Cx::local`]).
#[derive(Clone, Debug)]
pub struct Admitted {
    op: Op,
    actor: Actor,
    admission: Admission,
}

impl Admitted {
    pub fn op(&self) -> Op {
        self.op
    }

    pub fn actor(&self) -> &Actor {
        &self.actor
    }

    /// Whether it was admitted on condition of a step-up (a paired device deciding).
    pub fn needs_step_up(&self) -> bool {
        self.admission == Admission::StepUp
    }
}

/// Admits `actor` to `op` on the listener its request came through, or refuses: `forbidden` naming
/// the role needed when a token's role falls short (or the kind is not admitted); `not_found` when the
/// listener does not serve it.
pub fn admit(op: Op, actor: Actor) -> Result<Admitted, Error> {
    let kind = Kind::of(Some(&actor.principal));
    let grade = op.info().grade;
    match admission(op, kind, actor.listener) {
        a @ (Admission::Allowed | Admission::StepUp) => Ok(Admitted { op, actor, admission: a }),
        Admission::NotServed => Err(Error::not_found(format!("{} on this listener", op.name()))),
        Admission::Refused => Err(match (actor.principal.kind, grade.token_role()) {
            (PrincipalKind::Token | PrincipalKind::Local, Some(needed)) if !actor.principal.role.includes(needed) => {
                Error::Forbidden { needed, principal: actor.principal.name.clone(), role: actor.principal.role }
            }
            _ => Error::NotAdmitted { op: op.name(), principal: actor.principal.name.clone(), kind: kind.named(), grade: grade.who() },
        }),
    }
}

mod cx;
pub use cx::{grade, Cx, Graded, LocalHeld, Scope, Within};

#[cfg(test)]
mod tests {
    use super::*;

    fn every_kind_admitted_by(grade: Grade) -> Vec<Kind> {
        Kind::ALL.into_iter().filter(|k| grade_admits(grade, *k) != Admission::Refused).collect()
    }

    #[test]
    fn a_device_reads_the_queue_and_decides_with_a_step_up_and_does_nothing_an_agent_does() {
        assert_eq!(grade_admits(Grade::Watch, Kind::Device), Admission::Allowed);
        assert_eq!(grade_admits(Grade::Decide, Kind::Device), Admission::StepUp);
        for grade in [Grade::Agent, Grade::Viewer, Grade::Operator, Grade::Admin, Grade::Local] {
            assert_eq!(grade_admits(grade, Kind::Device), Admission::Refused, "{grade:?}");
        }
        assert_eq!(admission(Op::Generate, Kind::Device, Listener::Remote), Admission::Refused);
        assert_eq!(admission(Op::SubmitCall, Kind::Device, Listener::Remote), Admission::Refused);
        assert_eq!(admission(Op::ClaimCall, Kind::Device, Listener::Remote), Admission::Refused);
        assert_eq!(admission(Op::Snooze, Kind::Device, Listener::Remote), Admission::Refused);
        assert_eq!(admission(Op::RevokeGrant, Kind::Device, Listener::Remote), Admission::Refused);
        assert_eq!(admission(Op::Approve, Kind::Device, Listener::Remote), Admission::StepUp);
        assert_eq!(admission(Op::QueuePage, Kind::Device, Listener::Remote), Admission::Allowed);
    }

    #[test]
    fn the_table_has_a_row_per_operation_and_a_cell_per_kind_and_listener() {
        let table = table();
        let rows: Vec<&str> = table.lines().skip(2).collect();
        assert_eq!(rows.len(), Op::ALL.len());
        for row in rows {
            assert_eq!(row.matches('|').count(), 3 + 1 + Kind::ALL.len() * Listener::HTTP.len(), "{row}");
        }
        assert!(
            table.contains("| approve | `POST /api/queue/{id}/approve` | decide | ✗ | ✗ | ✗ | ✓ | ✓ | ✓ | ✗ | ✗ | ✗ | ✗ | ✗ | ✗ | ✗ | S |"),
            "{table}"
        );
    }

    #[test]
    fn only_the_local_admin_holds_the_local_grade_and_an_admin_token_never_does() {
        assert_eq!(every_kind_admitted_by(Grade::Local), [Kind::LocalAdmin]);
        assert_eq!(every_kind_admitted_by(Grade::Admin), [Kind::AdminToken, Kind::LocalAdmin]);
    }

    #[test]
    fn the_remote_listener_hears_only_anonymous_callers_agents_and_devices() {
        // A public operation reads no credential: every caller is anonymous to it.
        for op in Op::ALL.iter().filter(|op| op.info().grade != Grade::Public) {
            for kind in [Kind::ViewerToken, Kind::OperatorToken, Kind::AdminToken, Kind::LocalAdmin] {
                assert_eq!(admission(*op, kind, Listener::Remote), Admission::Refused, "{op:?} {kind:?}");
            }
            assert_eq!(admission(*op, Kind::Device, Listener::Loopback), Admission::Refused, "{op:?}");
        }
    }

    /// `Within` is what the compiler trusts: every pair it allows must admit no more on the way.
    #[test]
    fn a_narrowed_context_admits_no_kind_the_wider_grade_did_not() {
        fn check<F: Within<T>, T: Graded>() {
            for kind in Kind::ALL {
                let from = grade_admits(F::GRADE, kind);
                let to = grade_admits(T::GRADE, kind);
                assert!(from == Admission::Refused || to != Admission::Refused, "{:?} → {:?} lets {kind:?} in", F::GRADE, T::GRADE);
                assert!(!(from == Admission::Allowed && F::GRADE != T::GRADE && to == Admission::StepUp && kind == Kind::Device));
                // A device admitted to read never becomes one admitted to decide without its step-up.
                assert!(!(from == Admission::Allowed && kind == Kind::Device && to == Admission::StepUp));
            }
        }
        use grade::*;
        check::<Operator, Decide>();
        check::<Operator, Watch>();
        check::<Operator, Agent>();
        check::<Operator, Viewer>();
        check::<Decide, Watch>();
        check::<Admin, Operator>();
        check::<Admin, Decide>();
        check::<Local, Admin>();
        check::<Local, Decide>();
        check::<Agent, Any>();
        check::<Device, Any>();
    }

    #[test]
    fn an_agent_token_sees_only_its_own_and_everyone_else_all() {
        let agent =
            Admitted { op: Op::Generate, actor: Actor::new(Principal::token("bot", Role::Agent), "web"), admission: Admission::Allowed };
        let cx = agent.cx::<grade::Agent>().unwrap();
        assert_eq!(cx.scope(), Scope::Own("token:bot".into()));
        assert!(cx.scope().covers(Some("token:bot")) && !cx.scope().covers(Some("token:other")) && !cx.scope().covers(None));
        assert_eq!(Cx::<grade::Agent>::local("alice", "cli").scope(), Scope::All);
        assert!(agent.cx::<grade::Operator>().is_err(), "a context of another grade than the operation's is refused");
    }
}
