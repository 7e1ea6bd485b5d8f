use super::*;
use crate::domain::risk::{Level, Risk};
use crate::domain::Fingerprint;
use proptest::prelude::*;

fn fp() -> Fingerprint {
    Fingerprint::of("deploy", &serde_json::json!({})).unwrap()
}

fn care(quorum: u32, high: bool) -> Care {
    let mut risk = Risk::default();
    if high {
        risk.add(Level::High, "deploys to production");
    }
    Care { risk, quorum }
}

fn person(device: bool) -> Source {
    Source::Person { confirm_step: true, in_quorum: true, device }
}

fn approval(key: &str) -> Approval {
    Approval { operator: key.into(), operator_key: key.into(), fingerprint: fp(), approved_at: chrono::Utc::now() }
}

/// A person approving through `key` on the page.
fn by(key: &str) -> Decider {
    Decider { operator: key.into(), key: Some(key.into()), source: person(false) }
}

/// An input for an approval of `deploy` by `decider` (person `person`), with these approvals so far.
fn input<'a>(care: &'a Care, decider: &'a Decider, person: &'a str, approvals: &'a [Counted<'a>]) -> Input<'a> {
    Input {
        tool: "deploy",
        call_kind: CallKind::Approval,
        state: ItemState::Pending,
        verdict: &Verdict::Approve,
        decider,
        person: Some(person),
        care: Some(care),
        passkey_only: false,
        requester: None,
        approvals,
        partial: true,
    }
}

#[test]
fn an_approval_without_a_quorum_is_the_decision_and_names_its_decider_in_the_receipt() {
    let (care, alice) = (care(1, false), by("token:alice"));
    let plan = plan(&input(&care, &alice, "alice", &[])).unwrap();
    assert_eq!(plan, Plan::Decision { approvers: vec!["token:alice".into()], quorum: None });
}

#[test]
fn a_call_no_longer_pending_is_already_decided() {
    let (care, alice) = (care(1, false), by("token:alice"));
    let mut i = input(&care, &alice, "alice", &[]);
    i.state = ItemState::Decided;
    assert!(matches!(plan(&i), Err(Error::AlreadyDecided { state: ItemState::Decided })));
}

#[test]
fn a_high_risk_call_is_refused_to_a_grant_a_button_and_without_a_device_under_the_passkey_policy() {
    let care = care(1, true);
    let grant = Decider { operator: "grant".into(), key: None, source: Source::Grant(GrantId::new("g1")) };
    assert!(matches!(risk(&grant, "deploy", &care, false), Err(Error::HighRiskTool { .. })));
    let button = Decider {
        operator: "alice".into(),
        key: Some("token:alice".into()),
        source: Source::Person { confirm_step: false, in_quorum: true, device: false },
    };
    assert!(matches!(risk(&button, "deploy", &care, false), Err(Error::HighRiskNeedsConsole { .. })));
    let page = Decider { operator: "alice".into(), key: Some("token:alice".into()), source: person(false) };
    assert!(risk(&page, "deploy", &care, false).is_ok());
    assert!(matches!(risk(&page, "deploy", &care, true), Err(Error::StepUpRequired { .. })));
    let phone = Decider { operator: "alice".into(), key: Some("device:alice-phone".into()), source: person(true) };
    assert!(risk(&phone, "deploy", &care, true).is_ok());
    assert!(risk(&grant, "deploy", &self::care(1, false), true).is_ok(), "a call that is not high-risk: anyone");
}

#[test]
fn a_decline_lets_nothing_run_and_needs_neither_care_nor_quorum() {
    let alice = by("token:alice");
    let care = Care::default();
    let mut i = input(&care, &alice, "alice", &[]);
    let decline = Verdict::Decline { reason: None };
    i.verdict = &decline;
    i.care = None;
    assert_eq!(plan(&i).unwrap(), Plan::Decision { approvers: vec!["token:alice".into()], quorum: None });
}

#[test]
fn under_a_quorum_edited_arguments_an_engine_clients_route_and_a_nameless_approval_cannot_count() {
    let (care, alice) = (care(2, false), by("token:alice"));
    let edited = Verdict::ApproveEdited { args: serde_json::json!({}), fingerprint: fp() };
    let mut i = input(&care, &alice, "alice", &[]);
    i.verdict = &edited;
    assert!(matches!(plan(&i), Err(Error::QuorumTool { quorum: 2, .. })));
    let route = Decider { source: Source::Person { confirm_step: false, in_quorum: false, device: false }, ..by("token:alice") };
    let i = input(&care, &route, "alice", &[]);
    assert!(matches!(plan(&i), Err(Error::QuorumTool { .. })));
    let grant = Decider { operator: "grant".into(), key: None, source: Source::Grant(GrantId::new("g1")) };
    let mut i = input(&care, &grant, "alice", &[]);
    i.person = None;
    assert!(matches!(plan(&i), Err(Error::QuorumTool { .. })));
}

#[test]
fn below_the_quorum_an_approval_is_refused_where_none_may_be_recorded() {
    let (care, alice) = (care(2, false), by("token:alice"));
    let mut i = input(&care, &alice, "alice", &[]);
    i.partial = false;
    assert!(matches!(plan(&i), Err(Error::QuorumTool { .. })));
    i.partial = true;
    assert_eq!(plan(&i).unwrap(), Plan::Approval { approvals: 1, quorum: 2 });
}

#[test]
fn the_receipt_of_a_grant_or_an_expiry_names_the_console() {
    let grant = Decider { operator: "grant g1".into(), key: None, source: Source::Grant(GrantId::new("g1")) };
    assert_eq!(approver(&grant, &Verdict::Approve), "console:grant:g1");
    let expiry = Decider { operator: "console".into(), key: None, source: Source::Expiry };
    assert_eq!(approver(&expiry, &Verdict::Expire { after_secs: 5 }), "console:expiry");
    let named = Decider { operator: "mastra-api".into(), key: None, source: Source::Named };
    assert_eq!(approver(&named, &Verdict::Approve), "named:mastra-api");
}

/// Who approves, step by step: a person (0..5) through one of their credentials (0..3). Person 0
/// asked for the call.
fn deciders() -> impl Strategy<Value = Vec<(u8, u8)>> {
    proptest::collection::vec((0u8..5, 0u8..3), 0..16)
}

proptest! {
    /// The two-person rule, over any sequence of approvals: the decision is the approval of the N-th
    /// different person, the one who asked for the call never counts (`own_run`), a person who
    /// approved through any credential counts once (`already_approved`), and after the decision
    /// everything is `already_decided`. The receipt names every counted approval.
    #[test]
    fn the_decision_is_the_approval_of_the_nth_different_person_and_the_requester_never_counts(n in 2u32..5, steps in deciders()) {
        let care = care(n, false);
        let requester_key = "token:p0-c0";
        let mut approvals: Vec<(Approval, String)> = vec![];
        let mut state = ItemState::Pending;
        let mut people: Vec<String> = vec![];
        for (p, c) in steps {
            let key = format!("token:p{p}-c{c}");
            let person = format!("p{p}");
            let decider = by(&key);
            let counted: Vec<Counted<'_>> = approvals.iter().map(|(a, person)| Counted { approval: a, person }).collect();
            let mut i = input(&care, &decider, &person, &counted);
            i.state = state;
            i.requester = Some(Person { key: requester_key, person: "p0" });
            let planned = plan(&i);
            if p == 0 {
                prop_assert!(matches!(planned, Err(Error::OwnRun { .. })), "the requester: {planned:?}");
                continue;
            }
            if people.contains(&person) {
                prop_assert!(matches!(planned, Err(Error::AlreadyApproved { .. })), "again: {planned:?}");
                continue;
            }
            if state != ItemState::Pending {
                prop_assert!(matches!(planned, Err(Error::AlreadyDecided { .. })), "after the decision: {planned:?}");
                continue;
            }
            people.push(person.clone());
            let mine = approval(&key);
            if (people.len() as u32) < n {
                prop_assert_eq!(planned.unwrap(), Plan::Approval { approvals: people.len(), quorum: n });
                approvals.push((mine, person));
            } else {
                prop_assert_eq!(people.len() as u32, n);
                let mut keys: Vec<String> = approvals.iter().map(|(a, _)| a.operator_key.clone()).collect();
                keys.push(key.clone());
                prop_assert_eq!(planned.unwrap(), Plan::Decision { approvers: keys, quorum: Some(n) });
                // The approval that completes the quorum is stored with the decision.
                approvals.push((mine, person));
                state = ItemState::Decided;
            }
        }
        prop_assert_eq!(state == ItemState::Decided, people.len() as u32 >= n);
    }
}
