//! The policy's version (issue 27): one name for the rules in force — the high-risk tools, the
//! operators' risk rules, the quorums and the time limits — recorded with every decision and
//! approval, so what was decided can be read against the rules it was decided under.

use super::expiry::ExpirySettings;
use crate::domain::risk::custom::RiskRules;
use crate::domain::safety::{QuorumSettings, SafetySettings};
use crate::domain::Error;
use crate::store::settings::Snapshot;
use serde_json::{Map, Value};

/// The documents the policy file holds (`approval-console policy`), as JSON by settings key.
pub fn documents_of(expiry: &ExpirySettings, quorum: &QuorumSettings, risk: &RiskRules, safety: &SafetySettings) -> Map<String, Value> {
    let mut docs = Map::new();
    docs.insert("expiry".into(), serde_json::to_value(expiry).expect("settings serialize"));
    docs.insert("quorum".into(), serde_json::to_value(quorum).expect("settings serialize"));
    docs.insert("risk".into(), serde_json::to_value(risk).expect("settings serialize"));
    docs.insert("safety".into(), serde_json::to_value(safety).expect("settings serialize"));
    docs
}

/// The policy documents of a snapshot, their defaults filled in.
pub fn documents(s: &Snapshot) -> Result<Map<String, Value>, Error> {
    Ok(documents_of(&s.get()?, &s.get()?, &s.get()?, &s.get()?))
}

/// The policy's version: `p-` and the first 12 hex digits of the SHA-256 of its documents'
/// canonical JSON (RFC 8785). The same rules give the same version however they were set — the
/// policy file, the settings screens or the CLI — and any change gives another.
pub fn version(s: &Snapshot) -> Result<String, Error> {
    version_of(documents(s)?)
}

/// [`version`] of documents by settings key ([`documents_of`]).
pub fn version_of(docs: Map<String, Value>) -> Result<String, Error> {
    use sha2::{Digest, Sha256};
    let canonical = crate::domain::canonical_json(&Value::Object(docs))
        .map_err(|e| Error::Storage(format!("settings cannot be canonicalized: {e}")))?;
    Ok(format!("p-{}", &hex::encode(Sha256::digest(canonical.as_bytes()))[..12]))
}

impl super::Console {
    /// The version of the policy in force now.
    pub async fn policy_version(&self) -> Result<String, Error> {
        version(&crate::store::settings::snapshot(&self.db).await?)
    }

    /// What a decision by `approver` made now is stored with: the policy's version, and its
    /// receipt's terms — this console's key and the receipts' lifetime — under `settings`.
    pub async fn receipt_issue(&self, settings: &Snapshot, approver: String) -> Result<(String, crate::domain::receipt::Issue), Error> {
        let ttl_secs = settings.get::<SafetySettings>()?.receipt_ttl();
        let issue = crate::domain::receipt::Issue { signer: self.receipts.signer().await?, ttl_secs, approver };
        Ok((version(settings)?, issue))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_same_rules_have_the_same_version_and_a_change_another() {
        let empty = version(&crate::store::settings::snapshot_of(Map::new())).unwrap();
        let defaults = crate::store::settings::snapshot_of(documents(&crate::store::settings::snapshot_of(Map::new())).unwrap());
        assert_eq!(version(&defaults).unwrap(), empty, "defaults stored or not: the same rules");
        let mut docs = Map::new();
        docs.insert("safety".into(), json!({ "highRiskTools": ["delete_record"] }));
        let listed = version(&crate::store::settings::snapshot_of(docs)).unwrap();
        assert_ne!(listed, empty);
        assert!(listed.starts_with("p-") && listed.len() == 14, "{listed}");
    }
}
