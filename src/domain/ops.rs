//! The operations of the console, from the one catalog (`src/domain/catalog.rs`): their names, HTTP routes,
//! grades, the listeners that serve them, and whether the desktop window has a command of that name.
//! The HTTP guard's admission, the shells' typed contexts ([`crate::domain::authority`]),
//! `approval-console manifest` (`app::operation`) and the desktop app's command list all read it, so an
//! operation's grade is written once.

use super::authority::{grade, Grade, Graded, Served};
use super::Role;
use serde::Serialize;

/// Who may call an operation as a role (the manifest's `access`: `public`, `any` or the role's name):
/// the least role a stored token needs ([`Grade::token_role`]). What truly decides is the grade.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// No credential needed.
    Public,
    /// Any valid credential.
    Any,
    /// A principal whose role includes this one.
    Role(Role),
}

impl Serialize for Access {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Access::Public => "public",
            Access::Any => "any",
            Access::Role(r) => r.as_str(),
        })
    }
}

impl Access {
    /// The role needed, if any.
    pub fn role(self) -> Option<Role> {
        match self {
            Access::Role(r) => Some(r),
            Access::Public | Access::Any => None,
        }
    }

    fn of(grade: Grade) -> Self {
        match (grade, grade.token_role()) {
            (Grade::Public, _) => Access::Public,
            (_, Some(role)) => Access::Role(role),
            // A device's own operations: no token's, and no anonymous caller's.
            (Grade::Device, None) => Access::Role(Role::Operator),
            (_, None) => Access::Any,
        }
    }
}

/// One operation as the catalog declares it.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct OpInfo {
    pub name: &'static str,
    /// `GET`, `POST`, … or `None` for an operation without an HTTP route.
    pub method: Option<&'static str>,
    pub path: Option<&'static str>,
    pub access: Access,
    /// The desktop window has a command named [`OpInfo::name`].
    pub window: bool,
    /// Who it admits.
    #[serde(skip)]
    pub grade: Grade,
    /// The listeners that serve its route.
    #[serde(skip)]
    pub served: Served,
}

/// An operation of the catalog as a type, with its grade as a type: what a declared operation's
/// context is ([`graded`]).
pub trait Catalogued {
    const OP: Op;
    type Grade: Graded;
}

macro_rules! method {
    (LOCAL) => {
        None
    };
    ($m:ident) => {
        Some(stringify!($m))
    };
}

macro_rules! served {
    () => {
        Served::InProcess
    };
    (local) => {
        Served::Local
    };
    (remote) => {
        Served::Remote
    };
    (both) => {
        Served::Both
    };
}

macro_rules! operations {
    ($($variant:ident $name:ident : $method:ident $($path:literal)? => $grade:ident $(@ $served:ident)? $(, $window:ident)? ;)*) => {
        /// Every operation of the catalog.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Op {
            $($variant),*
        }

        impl Op {
            /// Every operation, in the catalog's order.
            pub const ALL: &'static [Op] = &[$(Op::$variant),*];

            /// What the catalog says of this operation.
            pub fn info(self) -> OpInfo {
                match self {
                    $(Op::$variant => OpInfo {
                        name: stringify!($name),
                        method: method!($method),
                        path: None $(.or(Some($path)))?,
                        access: Access::of(Grade::$grade),
                        window: false $(|| { let _ = stringify!($window); true })?,
                        grade: Grade::$grade,
                        served: served!($($served)?),
                    }),*
                }
            }
        }

        /// Each operation of the catalog as a type carrying its grade ([`Catalogued`]).
        pub mod graded {
            $(
                pub struct $variant;
                impl super::Catalogued for $variant {
                    const OP: super::Op = super::Op::$variant;
                    type Grade = super::grade::$grade;
                }
            )*
        }
    };
}

include!("catalog.rs");

impl Op {
    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn access(self) -> Access {
        self.info().access
    }

    /// The operation served at `method` `route` (axum's matched path, `/api/queue/{id}`).
    pub fn of_route(method: &str, route: &str) -> Option<Op> {
        Op::ALL.iter().copied().find(|op| {
            let info = op.info();
            info.method == Some(method) && info.path == Some(route)
        })
    }

    /// The desktop window's commands, in the catalog's order.
    pub fn window_commands() -> impl Iterator<Item = &'static str> {
        Op::ALL.iter().map(|op| op.info()).filter(|i| i.window).map(|i| i.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_and_routes_are_each_declared_once() {
        let names: HashSet<_> = Op::ALL.iter().map(|op| op.name()).collect();
        assert_eq!(names.len(), Op::ALL.len());
        let routes: HashSet<_> = Op::ALL.iter().filter_map(|op| Some((op.info().method?, op.info().path?))).collect();
        assert_eq!(routes.len(), Op::ALL.iter().filter(|op| op.info().method.is_some()).count());
    }

    #[test]
    fn a_route_finds_its_operation_and_an_unknown_one_none() {
        assert_eq!(Op::of_route("POST", "/api/queue/{id}/approve"), Some(Op::Approve));
        assert_eq!(Op::of_route("GET", "/api/queue/{id}/approve"), None);
        assert_eq!(Op::of_route("GET", "/api/nothing"), None);
        assert_eq!(Op::Approve.access(), Access::Role(Role::Operator));
        assert_eq!(Op::Health.access(), Access::Public);
        assert_eq!(Op::SetLanguage.info().method, None);
    }

    #[test]
    fn only_health_the_receipt_keys_pairing_and_sign_in_are_public_and_every_change_of_settings_needs_an_admin() {
        // Public: health, the receipts' public keys (anyone checks a receipt), and the remote
        // listener's pairing and sign-in (a phone with no session yet proves a pairing code or a
        // passkey there; both are audited when they fail).
        let public: Vec<_> = Op::ALL.iter().filter(|op| op.access() == Access::Public).collect();
        assert_eq!(public, [&Op::Health, &Op::ReceiptKeys, &Op::PairDevice, &Op::PairDeviceFinish, &Op::SignIn, &Op::SignInFinish]);
        for op in Op::ALL {
            let info = op.info();
            if matches!(info.method, Some("PUT")) {
                assert_eq!(info.access, Access::Role(Role::Admin), "{}", info.name);
            }
        }
    }

    #[test]
    fn every_route_is_served_somewhere_and_only_the_remote_listeners_own_are_served_there_alone() {
        use crate::domain::authority::{admission, Admission, Kind, Listener};
        for op in Op::ALL {
            let info = op.info();
            assert_eq!(info.method.is_none(), info.served == Served::InProcess, "{}: a route has listeners, and only a route", info.name);
            // What a listener serves, some kind of caller heard there may call.
            for listener in Listener::HTTP {
                if info.served.on(listener) {
                    assert!(
                        Kind::ALL.iter().any(|k| matches!(admission(*op, *k, listener), Admission::Allowed | Admission::StepUp)),
                        "{} is served on {listener:?} to nobody",
                        info.name
                    );
                }
            }
            if info.served == Served::Remote {
                assert!(info.path.is_some_and(|p| p.starts_with("/api/remote/")), "{}", info.name);
            }
            // The local admin's own grade never travels over the network to another machine.
            if info.grade == Grade::Local {
                assert!(!info.served.on(Listener::Remote), "{}", info.name);
            }
        }
    }
}
