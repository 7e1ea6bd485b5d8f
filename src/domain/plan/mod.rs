//! The decision planner (issue 46, "rules above the store"): what a decision comes to, decided by
//! a pure function from what it depends on — the call, its state and its approvals so far (as read
//! in the decision's own unit of work), who decides, the call's care (risk and quorum). It reads
//! nothing and writes nothing: the decision kernel (`console::decide`) reads its input inside the
//! store's unit of work (`Db::write`) and carries out the [`Plan`] there, so two approvals at once
//! are counted one after the other, each seeing the other.
//!
//! The rules it holds: who may let a high-risk call run ([`risk`]); the two-person rule — a quorum of
//! N approvals by N different people, one person counting once whichever of their credentials
//! approved, never the person who asked for the call, never an approval with edited arguments, a
//! grant's, or one from a route that cannot count; the call still pending; and the receipt's terms
//! (who it names as approvers). The store never imports this module (tests/layers.rs).

use crate::domain::safety::Care;
use crate::domain::{Approval, CallKind, DecisionKind, Error, GrantId, ItemState, Verdict};

#[cfg(test)]
mod tests;

/// Through what a decider decides, as far as the rules care.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A person through one of their credentials. `confirm_step`: the shell showed a high-risk
    /// call's confirm step (the page, the window, the CLI — not a notification's button nor an engine
    /// client's route); `in_quorum`: its approval may be one of a quorum's (not an engine client's
    /// route); `device`: a paired device, with its passkey step-up.
    Person { confirm_step: bool, in_quorum: bool, device: bool },
    /// An agent's model answering a `suspend()` (S10).
    Agent,
    /// An "always allow" grant's approval.
    Grant(GrantId),
    /// A call's time limit.
    Expiry,
    /// A decision a test stores under a name (`App::testing`).
    Named,
}

/// Who decides, as the planner sees them.
#[derive(Clone, Debug)]
pub struct Decider {
    /// As the audit log names them: `alice (web)`.
    pub operator: String,
    /// The principal's key (`token:alice`); `None` for the console's own decisions.
    pub key: Option<String>,
    pub source: Source,
}

/// A principal key and the person it stands for (`credentials::person_of`, read in the unit of work).
#[derive(Clone, Copy, Debug)]
pub struct Person<'a> {
    pub key: &'a str,
    pub person: &'a str,
}

/// An approval given so far, with the person who gave it.
#[derive(Clone, Copy, Debug)]
pub struct Counted<'a> {
    pub approval: &'a Approval,
    pub person: &'a str,
}

/// What a decision depends on, as read in its unit of work.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    /// The call's tool and kind.
    pub tool: &'a str,
    pub call_kind: CallKind,
    /// The call's state, read in the unit of work.
    pub state: ItemState,
    pub verdict: &'a Verdict,
    pub decider: &'a Decider,
    /// The decider's person (needed under a quorum only).
    pub person: Option<&'a str>,
    /// The call's care: needed when the decision lets it run ([`lets_run`]).
    pub care: Option<&'a Care>,
    /// The policy `high_risk_passkey`: high-risk calls are approved from paired devices only.
    pub passkey_only: bool,
    /// Who asked for the call (its submitter or its run's starter), and their person.
    pub requester: Option<Person<'a>>,
    /// The call's approvals so far, oldest first, each with its person.
    pub approvals: &'a [Counted<'a>],
    /// An approval below the quorum is recorded (the operators' shells), not refused.
    pub partial: bool,
}

/// What a decision comes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// Record this approval, one of the quorum's: the call still waits, with `approvals` approvals
    /// (this one included) of `quorum`.
    Approval { approvals: usize, quorum: u32 },
    /// Record the decision. Its receipt names `approvers` (principal keys, or the console's own
    /// name for a grant or a time limit); `quorum`: the quorum it completed, if any.
    Decision { approvers: Vec<String>, quorum: Option<u32> },
}

/// Whether a decision of this kind lets the call run (an approval, an edit, a resolution that runs
/// it again): only then do its care and [`risk`] matter.
pub fn lets_run(kind: DecisionKind) -> bool {
    matches!(kind, DecisionKind::Approve | DecisionKind::Edit | DecisionKind::RunAgain)
}

/// Who may let a call of this care run: a high-risk call only a person after the console's confirm
/// step (never a grant, `high_risk_tool`; never a notification's button or an engine client's route,
/// `high_risk_needs_console`), and under `passkey_only` from a paired device only (`step_up_required`).
pub fn risk(decider: &Decider, tool: &str, care: &Care, passkey_only: bool) -> Result<(), Error> {
    if !care.risk.needs_operator() {
        return Ok(());
    }
    let (tool, why) = (tool.to_owned(), care.risk.first_reason().to_owned());
    match decider.source {
        Source::Grant(_) => Err(Error::HighRiskTool { tool, why }),
        Source::Person { confirm_step: false, .. } => Err(Error::HighRiskNeedsConsole { tool, why }),
        Source::Person { device: false, .. } | Source::Named if passkey_only => Err(Error::StepUpRequired {
            why: "this console's policy wants every high-risk call approved from a paired device, with its passkey (devices pair; serve --listen)".into(),
        }),
        _ => Ok(()),
    }
}

/// The quorum an approval must be counted towards: `Some(N)` for an approval of an approval call
/// whose care asks for N > 1 approvals, else `None` (the decision stands alone).
pub fn quorum(call_kind: CallKind, verdict: &Verdict, care: Option<&Care>) -> Option<u32> {
    let approving = matches!(verdict, Verdict::Approve | Verdict::ApproveEdited { .. });
    let n = care.map_or(1, |c| c.quorum);
    (call_kind == CallKind::Approval && approving && n > 1).then_some(n)
}

/// What the decision `input` describes comes to, or the domain error that refuses it (nothing is
/// written then). In order: who may let it run ([`risk`]); under a quorum, what cannot count
/// (`quorum_tool`: edited arguments, a route that cannot count, no person), the person who asked
/// for the call (`own_run`), a person who approved already (`already_approved`), an approval short
/// of the quorum where none may be recorded (`quorum_tool`); the call no longer pending
/// (`already_decided`).
pub fn plan(input: &Input<'_>) -> Result<Plan, Error> {
    let kind = input.verdict.kind();
    if lets_run(kind) {
        let care = input.care.ok_or_else(|| Error::Storage("a decision that lets a call run was planned without its care".into()))?;
        risk(input.decider, input.tool, care, input.passkey_only)?;
    }
    let Some(n) = quorum(input.call_kind, input.verdict, input.care) else {
        pending(input.state)?;
        return Ok(Plan::Decision { approvers: vec![approver(input.decider, input.verdict)], quorum: None });
    };
    let refuse = |why| Err(Error::QuorumTool { tool: input.tool.to_owned(), quorum: n, why });
    if matches!(input.verdict, Verdict::ApproveEdited { .. }) {
        return refuse(
            "each operator approves the same arguments, so it cannot be approved with edited ones; approve it as it is, or decline it",
        );
    }
    if matches!(input.decider.source, Source::Person { in_quorum: false, .. }) {
        return refuse("approve it in the console, where each operator's approval is counted");
    }
    let (Some(key), Some(person)) = (input.decider.key.as_deref(), input.person) else {
        return refuse("an approval of it must name its operator, and no grant or automation can stand in for one");
    };
    if let Some(requester) = input.requester.filter(|r| r.person == person) {
        return Err(Error::OwnRun { principal: requester.key.to_owned() });
    }
    let so_far = input.approvals.len() as u32;
    if input.approvals.iter().any(|a| a.person == person) {
        return Err(Error::AlreadyApproved { operator: input.decider.operator.clone(), approvals: so_far, quorum: n });
    }
    let complete = so_far + 1 >= n;
    if !complete && !input.partial {
        return refuse("approve it in the console, where each operator's approval is counted");
    }
    pending(input.state)?;
    if !complete {
        return Ok(Plan::Approval { approvals: input.approvals.len() + 1, quorum: n });
    }
    let mut approvers: Vec<String> = input.approvals.iter().map(|a| a.approval.operator_key.clone()).collect();
    approvers.push(key.to_owned());
    Ok(Plan::Decision { approvers, quorum: Some(n) })
}

fn pending(state: ItemState) -> Result<(), Error> {
    match state {
        ItemState::Pending => Ok(()),
        state => Err(Error::AlreadyDecided { state }),
    }
}

/// Whom a decision's receipt names when no quorum lists its approvers: the deciding principal; for
/// the console's own decisions, the grant (`console:grant:ID`) or the time limit (`console:expiry`);
/// else the name the decider gave (`named:mastra-api`).
pub fn approver(decider: &Decider, verdict: &Verdict) -> String {
    match (&decider.key, &decider.source, verdict) {
        (Some(key), _, _) => key.clone(),
        (None, Source::Grant(grant), _) => crate::domain::receipt::grant_approver(grant),
        (None, _, Verdict::Expire { .. }) => "console:expiry".into(),
        (None, _, _) => format!("named:{}", decider.operator),
    }
}
