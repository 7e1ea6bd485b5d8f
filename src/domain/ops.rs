//! The operations of the console, from the one catalog (`src/domain/catalog.rs`): their names, HTTP routes,
//! roles and whether the desktop window has a command of that name. The HTTP guard's role table, the
//! core's role checks ([`crate::domain::Actor::may`]), `approval-console manifest` (`app::operation`)
//! and the desktop app's command list all read it, so an operation's role is written once.

use super::Role;
use serde::Serialize;

/// Who may call an operation; in the manifest `public`, `any` or the role's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// No credential needed (`/api/health` alone).
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
}

macro_rules! access {
    (Public) => {
        Access::Public
    };
    (Any) => {
        Access::Any
    };
    ($role:ident) => {
        Access::Role(Role::$role)
    };
}

macro_rules! method {
    (LOCAL) => {
        None
    };
    ($m:ident) => {
        Some(stringify!($m))
    };
}

macro_rules! operations {
    ($($variant:ident $name:ident : $method:ident $($path:literal)? => $access:ident $(, $window:ident)? ;)*) => {
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
                        access: access!($access),
                        window: false $(|| { let _ = stringify!($window); true })?,
                    }),*
                }
            }
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
}
