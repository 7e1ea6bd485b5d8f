//! S7's canonical form is RFC 8785: checked against the RFC's published test vectors (tests/data/jcs).

use approval_console::domain::{canonical_json, Fingerprint};
use serde_json::{json, Value};
use std::path::PathBuf;

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/jcs").join(path)
}

#[test]
fn s07_canonical_form_matches_every_rfc8785_vector() {
    for name in ["arrays", "french", "structures", "unicode", "values", "weird"] {
        let input: Value = serde_json::from_slice(&std::fs::read(data(&format!("input/{name}.json"))).unwrap()).unwrap();
        let expected = std::fs::read(data(&format!("output/{name}.json"))).unwrap();
        let expected = expected.strip_suffix(b"\n").unwrap_or(&expected);
        assert_eq!(canonical_json(&input).unwrap().as_bytes(), expected, "vector {name}");
    }
}

#[test]
fn s07_numbers_serialize_as_rfc8785_appendix_b() {
    let table = std::fs::read_to_string(data("numbers.txt")).unwrap();
    let mut checked = 0;
    for line in table.lines().filter(|l| !l.trim().is_empty()) {
        let (bits, expected) = line.split_once(',').unwrap();
        let number = f64::from_bits(u64::from_str_radix(bits, 16).unwrap());
        let value = json!(number);
        assert_eq!(canonical_json(&value).unwrap(), expected, "IEEE-754 {bits}");
        checked += 1;
    }
    assert!(checked >= 20);
}

#[test]
fn s07_fingerprint_is_stable_across_spellings_of_the_same_arguments() {
    let a: Value = serde_json::from_str(r#"{"amount": 1e2, "to": "acct-\u0041", "memo": {"b": [1, 2.50], "a": null}}"#).unwrap();
    let b: Value = serde_json::from_str(r#"{"memo": {"a": null, "b": [1.0, 2.5]}, "to": "acct-A", "amount": 100}"#).unwrap();
    assert_eq!(Fingerprint::of("send_money", &a).unwrap(), Fingerprint::of("send_money", &b).unwrap());
}
