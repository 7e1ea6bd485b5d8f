//! S7: the fingerprint that binds an approval to the exact call the reviewer saw.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::fmt;

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

impl Fingerprint {
    /// Fingerprint of a tool call (S7).
    pub fn of(tool_name: &str, args: &Value) -> Result<Self, CanonicalizeError> {
        let canonical = canonical_json(&json!({ "toolName": tool_name, "args": args }))?;
        Ok(Self(format!("sha256:{}", hex::encode(Sha256::digest(canonical.as_bytes())))))
    }

    /// Accepts a stored or submitted fingerprint if it has the `sha256:<64 lowercase hex>` shape.
    pub fn parse(text: &str) -> Option<Self> {
        let hex = text.strip_prefix("sha256:")?;
        (hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| Self(text.to_owned()))
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
}
