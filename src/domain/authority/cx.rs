//! Contexts typed by grade ([`Cx`]): what a shell hands an operation once it was admitted, and the
//! only thing an `App` method accepts as its caller.

use super::{Actor, Admitted, Error, Grade, Kind, Principal};
use std::marker::PhantomData;

impl Admitted {
    /// The typed context of an operation of grade `G` (its catalog line's): a shell that asks for
    /// another grade than the operation's is a bug, refused as one.
    pub fn cx<G: Graded>(&self) -> Result<Cx<G>, Error> {
        if self.op.info().grade != G::GRADE {
            return Err(Error::Storage(format!(
                "operation {} is of grade {}, not {}: the shell asked for the wrong context",
                self.op.name(),
                self.op.info().grade.as_str(),
                G::GRADE.as_str()
            )));
        }
        Ok(Cx { actor: self.actor.clone(), _grade: PhantomData })
    }
}

/// The grades as types, for [`Cx`].
pub mod grade {
    macro_rules! grades {
        ($($name:ident),*) => {$(
            #[derive(Clone, Copy, Debug)]
            pub struct $name;
            impl super::Graded for $name {
                const GRADE: super::Grade = super::Grade::$name;
            }
        )*};
    }
    grades!(Public, Any, Agent, Viewer, Watch, Operator, Decide, Admin, Local, Device);
}

/// A grade as a type ([`grade`]).
pub trait Graded: Copy + Send + Sync + 'static {
    const GRADE: Grade;
}

/// A grade the local admin holds in this process (every grade but a device's).
pub trait LocalHeld: Graded {}
impl LocalHeld for grade::Any {}
impl LocalHeld for grade::Agent {}
impl LocalHeld for grade::Viewer {}
impl LocalHeld for grade::Watch {}
impl LocalHeld for grade::Operator {}
impl LocalHeld for grade::Decide {}
impl LocalHeld for grade::Admin {}
impl LocalHeld for grade::Local {}

/// `Self` admits no kind of caller that `H` does not admit, on the same terms: a context of grade
/// `Self` may be used where `H` is wanted (an admin's where an operator's is). A device's reading
/// context never becomes a deciding or an operator's one.
pub trait Within<H: Graded>: Graded {}
macro_rules! within {
    ($($from:ident => [$($to:ident),*]);* $(;)?) => {$($(impl Within<grade::$to> for grade::$from {})*)*};
}
within! {
    Public => [Public];
    Any => [Any];
    Agent => [Agent, Any];
    Viewer => [Viewer, Any];
    Watch => [Watch, Any];
    Operator => [Operator, Watch, Decide, Agent, Viewer, Any];
    Decide => [Decide, Watch, Any];
    Admin => [Admin, Operator, Watch, Decide, Agent, Viewer, Any];
    Local => [Local, Admin, Operator, Watch, Decide, Agent, Viewer, Any];
    Device => [Device, Any];
}

/// An admitted caller, of grade `G` (a type of [`grade`]): what every `App` operation takes. Made
/// only by [`Admitted::cx`] (a shell's admission) or [`Cx::local`] (the local admin in this process).
#[derive(Clone, Debug)]
pub struct Cx<G> {
    actor: Actor,
    _grade: PhantomData<fn() -> G>,
}

impl<G: Graded> Cx<G> {
    /// The local admin (the OS user `user`) acting through this process's `channel` (`cli`,
    /// `desktop`, `notification`): admitted to every grade but a device's.
    pub fn local(user: &str, channel: &'static str) -> Self
    where
        G: LocalHeld,
    {
        Self { actor: Actor::new(Principal::local(user), channel), _grade: PhantomData }
    }

    /// This context where a grade it includes is wanted ([`Within`]).
    pub fn narrow<H: Graded>(&self) -> Cx<H>
    where
        G: Within<H>,
    {
        Cx { actor: self.actor.clone(), _grade: PhantomData }
    }

    /// The same caller, named through another channel in the audit log (`mastra-api`).
    pub fn via(&self, channel: &'static str) -> Self {
        Self { actor: Actor { channel, ..self.actor.clone() }, _grade: PhantomData }
    }

    pub fn actor(&self) -> &Actor {
        &self.actor
    }

    /// The stored credential's name when the caller is one (`tokens add`), for what it was made with
    /// (the agent names and sources it may claim); `None` for the local admin and a device.
    pub fn token_name(&self) -> Option<&str> {
        (self.actor.principal.kind == super::super::PrincipalKind::Token).then_some(self.actor.principal.name.as_str())
    }

    /// What of the agents' work this caller sees: an agent token only what it asked for itself;
    /// operators, admins and the local admin all of it.
    pub fn scope(&self) -> Scope {
        match Kind::of(Some(&self.actor.principal)) {
            Kind::AgentToken => Scope::Own(self.actor.principal.key()),
            _ => Scope::All,
        }
    }
}

impl<G> std::ops::Deref for Cx<G> {
    type Target = Actor;
    fn deref(&self) -> &Actor {
        &self.actor
    }
}

/// What of the agents' runs and calls a caller sees ([`Cx::scope`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every run and call.
    All,
    /// Only what the principal with this key started or submitted.
    Own(String),
}

impl Scope {
    /// Whether something asked for by `by` (a principal's key) is in this scope.
    pub fn covers(&self, by: Option<&str>) -> bool {
        match self {
            Scope::All => true,
            Scope::Own(key) => by == Some(key.as_str()),
        }
    }
}
