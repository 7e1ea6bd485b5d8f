//! S7: the fingerprint that binds an approval to the exact call the reviewer saw.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::fmt;

mod exact;
pub use exact::{exact_literal, inexact_literals, read_exact, ArgsText, ReadError};

/// `"sha256:" + hex(SHA-256(JCS({"toolName": name, "args": args})))`, RFC 8785 canonical form.
///
/// Key order and number spelling do not change it; any change of a value does.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(transparent)]
#[schema(value_type = String, example = "sha256:3f1c…")]
pub struct Fingerprint(String);

/// Why a value could not be canonicalized (RFC 8785 forbids NaN and infinities; serde_json cannot hold
/// them, so in practice this is unreachable, but the canonicalizer's API is fallible).
#[derive(Debug, thiserror::Error)]
#[error("arguments cannot be canonicalized (RFC 8785): {0}")]
pub struct CanonicalizeError(String);

/// RFC 8785 canonical JSON text of `value`.
pub fn canonical_json(value: &Value) -> Result<String, CanonicalizeError> {
    serde_json_canonicalizer::to_string(value).map_err(|e| CanonicalizeError(e.to_string()))
}

/// JSON Pointers to the integers in `value` that an IEEE double cannot hold exactly (beyond ±2^53
/// and not a double's value). RFC 8785 writes numbers as doubles, so such an integer has the same
/// fingerprint as its neighbours: an approval of it would not be bound to the value that runs.
/// What a `Value` can tell: its decimals are doubles already; text is judged by [`inexact_literals`].
pub fn inexact_numbers(value: &Value) -> Vec<String> {
    fn walk(v: &Value, at: &mut String, out: &mut Vec<String>) {
        match v {
            Value::Number(n) => {
                let exact = match (n.as_i64(), n.as_u64()) {
                    (Some(i), _) => (i as f64) as i128 == i as i128 && (i as f64) >= -(2f64.powi(63)),
                    (None, Some(u)) => (u as f64) < 18_446_744_073_709_551_616.0 && (u as f64) as u64 == u,
                    (None, None) => true, // already a double
                };
                if !exact {
                    out.push(at.clone());
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = at.len();
                    at.push_str(&format!("/{i}"));
                    walk(item, at, out);
                    at.truncate(len);
                }
            }
            Value::Object(map) => {
                for (k, item) in map {
                    let len = at.len();
                    at.push('/');
                    at.push_str(&k.replace('~', "~0").replace('/', "~1"));
                    walk(item, at, out);
                    at.truncate(len);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut String::new(), &mut out);
    out
}

impl Fingerprint {
    /// Fingerprint of a tool call (S7).
    pub fn of(tool_name: &str, args: &Value) -> Result<Self, CanonicalizeError> {
        let canonical = canonical_json(&json!({ "toolName": tool_name, "args": args }))?;
        Ok(Self(format!("sha256:{}", hex::encode(Sha256::digest(canonical.as_bytes())))))
    }

    /// Accepts a stored or submitted fingerprint if it has the `sha256:<64 lowercase hex>` shape.
    pub fn parse(text: &str) -> Option<Self> {
        let hex = text.strip_prefix("sha256:")?;
        (hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))).then(|| Self(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first 12 hex digits, as shown in lists and notifications.
    pub fn short(&self) -> &str {
        &self.0["sha256:".len().."sha256:".len() + 12]
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s07_fingerprint_ignores_key_order_and_number_spelling() {
        let a: Value = serde_json::from_str(r#"{"id":"rec-1","n":1.0,"o":{"b":1,"a":2}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"o":{"a":2,"b":1},"n":1,"id":"rec-1"}"#).unwrap();
        assert_eq!(Fingerprint::of("delete_record", &a).unwrap(), Fingerprint::of("delete_record", &b).unwrap());
    }

    #[test]
    fn s07_fingerprint_changes_with_any_value_or_the_tool_name() {
        let a = json!({"id": "rec-1"});
        let fp = Fingerprint::of("delete_record", &a).unwrap();
        assert_ne!(fp, Fingerprint::of("delete_record", &json!({"id": "rec-2"})).unwrap());
        assert_ne!(fp, Fingerprint::of("lookup_record", &a).unwrap());
        assert_ne!(fp, Fingerprint::of("delete_record", &json!({"id": "rec-1", "x": null})).unwrap());
    }

    #[test]
    fn s07_fingerprint_is_sha256_of_the_canonical_form() {
        // Computed independently: printf '%s' '{"args":{"id":"rec-1"},"toolName":"delete_record"}' | sha256sum
        let fp = Fingerprint::of("delete_record", &json!({"id": "rec-1"})).unwrap();
        let expected = hex::encode(Sha256::digest(br#"{"args":{"id":"rec-1"},"toolName":"delete_record"}"#));
        assert_eq!(fp.as_str(), format!("sha256:{expected}"));
        assert_eq!(fp.short(), &expected[..12]);
        assert_eq!(Fingerprint::parse(fp.as_str()), Some(fp));
        assert_eq!(Fingerprint::parse("sha256:XYZ"), None);
    }

    #[test]
    fn a_fingerprint_has_exactly_the_sha256_shape() {
        let ok = format!("sha256:{}", "a".repeat(64));
        assert!(Fingerprint::parse(&ok).is_some());
        for bad in [
            format!("sha256:{}", "g".repeat(64)),
            format!("sha256:{}", "A".repeat(64)),
            format!("sha256:{}", "z".repeat(64)),
            format!("sha256:{} ", "a".repeat(64)),
            format!("sha256:{}", "a".repeat(63)),
            format!("sha256:{}", "a".repeat(65)),
            format!("sha1:{}", "a".repeat(64)),
            format!("SHA256:{}", "a".repeat(64)),
            "a".repeat(64),
            format!("sha256:{}é", "a".repeat(63)),
            String::new(),
        ] {
            assert_eq!(Fingerprint::parse(&bad), None, "{bad:?}");
        }
    }

    #[test]
    fn integers_beyond_two_to_the_53_that_a_double_cannot_hold_are_found() {
        let args: Value = serde_json::from_str(r#"{"ok": 9007199254740992, "small": 42, "neg": -9007199254740993, "list": [1, 9007199254740993], "f": 1.5, "u": 18446744073709551615, "a/b": 9007199254740995}"#).unwrap();
        assert_eq!(inexact_numbers(&args), vec!["/neg", "/list/1", "/u", "/a~1b"]);
        // The reason: neighbours share a fingerprint.
        let a = Fingerprint::of("t", &serde_json::from_str(r#"{"n": 9007199254740993}"#).unwrap()).unwrap();
        let b = Fingerprint::of("t", &serde_json::from_str(r#"{"n": 9007199254740992}"#).unwrap()).unwrap();
        assert_eq!(a, b);
        assert!(
            inexact_numbers(&json!({"n": 2_i64.pow(53), "m": -(2_i64.pow(53)), "big": 2_u64.pow(60)})).is_empty(),
            "doubles' own values are exact"
        );
    }
}
