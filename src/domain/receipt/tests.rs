use super::*;
use serde_json::json;

fn claims(args: &serde_json::Value) -> Claims {
    let fp = Fingerprint::of("delete_record", args).unwrap();
    Claims {
        version: VERSION,
        id: Claims::new_id(),
        decision: Outcome::Approved,
        edited: false,
        fingerprint: fp.clone(),
        executed_fingerprint: Some(fp),
        tool: "delete_record".into(),
        source: "local".into(),
        engine: "local".into(),
        agent: Some("ops".into()),
        run_id: Some("run-1".into()),
        tool_call_id: Some("call-1".into()),
        call_id: "itm_1".into(),
        approvers: vec!["local:alice".into()],
        policy_version: "pv".into(),
        issued_at: 1_000,
        expires_at: 4_600,
        rule_scope: None,
    }
}

fn expect(args: &serde_json::Value) -> Expect<'_> {
    Expect { tool: "delete_record", args, run_id: Some("run-1"), tool_call_id: Some("call-1") }
}

fn set(signer: &Signer) -> Jwks {
    Jwks { keys: vec![signer.jwk(900)] }
}

#[test]
fn a_signed_receipt_verifies_and_says_its_claims() {
    let signer = Signer::generate();
    let args = json!({"id": "rec-1"});
    let receipt = signer.sign(&claims(&args));
    let got = verify(&receipt, &set(&signer), 2_000, &expect(&args)).unwrap();
    assert_eq!(got, claims(&args).clone_with_id(&got.id));
    // The payload is the canonical JSON of the claims: sorted keys, no spaces.
    let payload = B64.decode(receipt.split('.').nth(1).unwrap()).unwrap();
    assert_eq!(String::from_utf8(payload).unwrap(), canonical_json(&serde_json::to_value(&got).unwrap()).unwrap());
    assert_eq!(decode(&receipt).unwrap().0.kid, signer.kid());
}

impl Claims {
    fn clone_with_id(mut self, id: &str) -> Self {
        self.id = id.into();
        self
    }
}

#[test]
fn every_check_refuses_with_its_code() {
    let signer = Signer::generate();
    let args = json!({"id": "rec-1"});
    let keys = set(&signer);
    let good = claims(&args);
    let code =
        |receipt: &str, keys: &Jwks, now: i64, args: &serde_json::Value| verify(receipt, keys, now, &expect(args)).unwrap_err().code();

    assert_eq!(code("a.b", &keys, 2_000, &args), "malformed");
    assert_eq!(code(&signer.sign(&good), &set(&Signer::generate()), 2_000, &args), "unknown_key");
    // A changed payload (the id) keeps its signature: it no longer verifies.
    let receipt = signer.sign(&good);
    let mut parts: Vec<String> = receipt.split('.').map(str::to_owned).collect();
    let mut forged = good.clone();
    forged.approvers = vec!["local:mallory".into()];
    parts[1] = B64.encode(canonical_json(&serde_json::to_value(&forged).unwrap()).unwrap());
    assert_eq!(code(&parts.join("."), &keys, 2_000, &args), "bad_signature");
    // Signed by another key under this key's id.
    let other = Signer::generate();
    let mut theirs: Vec<String> = other.sign(&good).split('.').map(str::to_owned).collect();
    theirs[0] = receipt.split('.').next().unwrap().to_owned();
    assert_eq!(code(&theirs.join("."), &keys, 2_000, &args), "bad_signature");

    assert_eq!(code(&receipt, &keys, 4_600, &args), "expired");
    assert!(verify(&receipt, &keys, 4_599, &expect(&args)).is_ok());
    let declined = Claims { decision: Outcome::Declined, executed_fingerprint: None, ..good.clone() };
    assert_eq!(code(&signer.sign(&declined), &keys, 2_000, &args), "not_approved");
    assert_eq!(code(&receipt, &keys, 2_000, &json!({"id": "rec-2"})), "fingerprint_mismatch");
    assert_eq!(code(&receipt, &keys, 2_000, &json!({"id": "rec-1", "cascade": true})), "fingerprint_mismatch");
    let other_tool = Expect { tool: "lookup_record", ..expect(&args) };
    assert_eq!(verify(&receipt, &keys, 2_000, &other_tool).unwrap_err().code(), "tool_mismatch");
    let other_call = Expect { tool_call_id: Some("call-2"), ..expect(&args) };
    assert_eq!(verify(&receipt, &keys, 2_000, &other_call).unwrap_err().code(), "call_mismatch");
}

/// Exact fingerprints: 2^60 + 1 has 2^60's fingerprint, so the receipt of 2^60 would hold for it
/// (and for every integer up to 2^60 + 128): it is refused as `ambiguous_arguments`, before the
/// fingerprints are compared; 2^60 itself, exactly a double, verifies.
#[test]
fn a_receipt_for_two_to_the_sixty_does_not_hold_for_two_to_the_sixty_plus_one() {
    let signer = Signer::generate();
    let approved = json!({"user_id": 1u64 << 60});
    let receipt = signer.sign(&claims(&approved));
    let neighbour = json!({"user_id": (1u64 << 60) + 1});
    assert_eq!(Fingerprint::of("delete_record", &neighbour).unwrap(), Fingerprint::of("delete_record", &approved).unwrap());
    let refused = verify(&receipt, &set(&signer), 2_000, &expect(&neighbour)).unwrap_err();
    assert_eq!((refused.code(), refused.to_string().contains("/user_id")), ("ambiguous_arguments", true), "{refused}");
    assert!(verify(&receipt, &set(&signer), 2_000, &expect(&approved)).is_ok());
    // Steps 1–8 alone, for a caller that judged the arguments' text itself.
    assert!(verify_call(&receipt, &set(&signer), 2_000, &expect(&serde_json::Value::Null)).is_ok());
    assert_eq!(verify_call(&receipt, &set(&signer), 4_600, &expect(&approved)).unwrap_err().code(), "expired");
}

#[test]
fn a_retired_key_verifies_what_it_signed_before_it_was_retired_only() {
    let signer = Signer::generate();
    let args = json!({"id": "rec-1"});
    let mut keys = set(&signer);
    keys.keys[0].retired_at = Some(1_500);
    assert!(verify(&signer.sign(&claims(&args)), &keys, 2_000, &expect(&args)).is_ok());
    let late = Claims { issued_at: 1_501, ..claims(&args) };
    assert_eq!(verify(&signer.sign(&late), &keys, 2_000, &expect(&args)).unwrap_err().code(), "key_retired");
}

#[test]
fn an_edited_approval_runs_the_edited_arguments_only() {
    let signer = Signer::generate();
    let (shown, edited) = (json!({"id": "rec-1"}), json!({"id": "rec-1", "soft": true}));
    let c = Claims { edited: true, executed_fingerprint: Some(Fingerprint::of("delete_record", &edited).unwrap()), ..claims(&shown) };
    let receipt = signer.sign(&c);
    assert!(verify(&receipt, &set(&signer), 2_000, &expect(&edited)).is_ok());
    assert_eq!(verify(&receipt, &set(&signer), 2_000, &expect(&shown)).unwrap_err().code(), "fingerprint_mismatch");
}

#[test]
fn a_kept_key_reads_back_as_the_same_key() {
    let signer = Signer::generate();
    let back = Signer::from_secret_text(&signer.secret_text()).unwrap();
    assert_eq!(back.kid(), signer.kid());
    assert!(Signer::from_secret_text("not a key").is_none());
    assert_eq!(format!("{signer:?}"), format!("Signer({})", signer.kid()));
    assert!(signer.kid().starts_with("ed25519-") && signer.kid().len() == "ed25519-".len() + 16);
}

#[test]
fn a_header_of_another_algorithm_or_type_is_malformed_and_its_key_id_reads_alone() {
    let signer = Signer::generate();
    let args = json!({"id": "rec-1"});
    let receipt = signer.sign(&claims(&args));
    assert_eq!(key_id_of(&receipt).unwrap(), signer.kid());
    assert_eq!(key_id_of("!!.x.y").unwrap_err().code(), "malformed");
    let rest = receipt.split_once('.').unwrap().1;
    for header in [json!({"alg": "none", "kid": signer.kid()}), json!({"alg": "EdDSA", "kid": signer.kid(), "typ": "JWT"})] {
        let forged = format!("{}.{rest}", B64.encode(header.to_string()));
        assert_eq!(verify(&forged, &set(&signer), 2_000, &expect(&args)).unwrap_err().code(), "malformed", "{header}");
    }
}

/// A grant's rule scope is a signed claim: a receipt of an "always allow" grant in project scope says
/// so, a receipt without the claim (every one made before it) reads as the session and verifies as
/// before, and the claim cannot be added to a signed receipt.
#[test]
fn a_receipts_rule_scope_is_signed_and_one_without_it_reads_as_the_session() {
    let signer = Signer::generate();
    let args = json!({"id": "rec-1"});
    let granted = Claims { approvers: vec![grant_approver(&crate::domain::GrantId::new("g_1"))], ..claims(&args) };
    let session = signer.sign(&granted);
    assert!(
        !String::from_utf8(B64.decode(session.split('.').nth(1).unwrap()).unwrap()).unwrap().contains("ruleScope"),
        "absent, as before"
    );
    assert!(verify(&session, &set(&signer), 2_000, &expect(&args)).is_ok());
    assert_eq!(grant_terms(&session), Some((crate::domain::GrantId::new("g_1"), RuleScope::Session)));

    let project = signer.sign(&Claims { rule_scope: Some(RuleScope::Project), ..granted.clone() });
    assert_eq!(verify(&project, &set(&signer), 2_000, &expect(&args)).unwrap().rule_scope, Some(RuleScope::Project));
    assert_eq!(grant_terms(&project).map(|(_, s)| s), Some(RuleScope::Project));

    // Claimed afterwards, on a receipt signed without it: the signature no longer holds.
    let mut parts: Vec<String> = session.split('.').map(str::to_owned).collect();
    let widened = Claims { rule_scope: Some(RuleScope::User), ..granted };
    parts[1] = B64.encode(canonical_json(&serde_json::to_value(&widened).unwrap()).unwrap());
    assert_eq!(verify(&parts.join("."), &set(&signer), 2_000, &expect(&args)).unwrap_err().code(), "bad_signature");
    assert_eq!(grant_terms("not a receipt"), None);
}
