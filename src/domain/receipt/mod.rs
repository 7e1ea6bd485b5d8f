//! Signed decision receipts (issue 29; the format is docs/receipts.md): every decision yields a
//! statement, signed with the console's Ed25519 key, of what was decided about exactly which call,
//! by whom, under which policy and until when — a JWS (RFC 7515, compact) with `EdDSA` (RFC 8037)
//! whose payload is the RFC 8785 canonical JSON of [`Claims`]. The place where the tool runs checks
//! it ([`verify`]) against the published keys ([`Jwks`]) and the arguments it is about to run.
//!
//! Pure: no storage, no clock of its own (callers pass the time), no key kept here — the console's
//! key is made and kept by `console::receipts`.

mod verify;

pub use verify::{verify, verify_call, verify_signed, Expect, ReceiptError};

use super::session_rule::RuleScope;
use super::{canonical_json, Fingerprint, QueuedCall, Verdict};
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;
use chrono::{DateTime, Utc};
use ed25519_dalek::{Signer as _, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

/// The `typ` of a receipt's header.
pub const TYP: &str = "approval-receipt";
/// The claims' format version.
pub const VERSION: u32 = 1;
/// How long a receipt may be acted on when the policy says nothing (`receipt_ttl_secs`): an hour.
pub const DEFAULT_TTL_SECS: u64 = 3600;
/// The shortest and longest lifetimes the policy may set: a minute, a week.
pub const TTL_RANGE: std::ops::RangeInclusive<u64> = 60..=7 * 86_400;

/// What was decided, as a receipt says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Approved,
    Declined,
    /// A suspended call resumed with the operator's data.
    Answered,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Approved => "approved",
            Self::Declined => "declined",
            Self::Answered => "answered",
        }
    }

    /// Whether the tool may run on this decision.
    pub fn runs(self) -> bool {
        matches!(self, Self::Approved | Self::Answered)
    }
}

/// A receipt's claims (docs/receipts.md). A claim that does not apply is absent, never null.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Claims {
    pub version: u32,
    /// `rct_` + 32 hex digits: what a verifier records as used.
    pub id: String,
    pub decision: Outcome,
    pub edited: bool,
    /// The call's fingerprint as the operator saw it.
    pub fingerprint: Fingerprint,
    /// When the tool may run: the fingerprint of the arguments that run (the edited ones, if edited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executed_fingerprint: Option<Fingerprint>,
    pub tool: String,
    pub source: String,
    pub engine: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// The console's id of the call (its queue entry).
    pub call_id: String,
    /// Every principal whose approval (or decision) this is.
    pub approvers: Vec<String>,
    pub policy_version: String,
    /// Unix seconds.
    pub issued_at: i64,
    /// Unix seconds: refused from then on.
    pub expires_at: i64,
    /// Where the agent keeps the rule an "always allow" grant's approval writes back, when not its
    /// session: the grant's scope, as the admin who made it confirmed it (issue 47). Absent for the
    /// session, and in every receipt made before it (read as the session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_scope: Option<RuleScope>,
}

impl Claims {
    /// A new receipt id: `rct_` + 128 random bits in hex.
    pub fn new_id() -> String {
        format!("rct_{}", uuid::Uuid::new_v4().simple())
    }

    /// The fingerprint the arguments that run must have, if the tool may run.
    pub fn runs_with(&self) -> Option<&Fingerprint> {
        if self.decision.runs() {
            self.executed_fingerprint.as_ref()
        } else {
            None
        }
    }
}

/// What a decision's receipt needs besides the decision: the console's key, how long the receipt
/// holds, and who decided when no quorum lists them (a principal's key, [`grant_approver`],
/// `console:expiry`).
pub struct Issue {
    pub signer: std::sync::Arc<Signer>,
    pub ttl_secs: u64,
    pub approver: String,
}

/// A receipt as made: its signed text and its own id (the `id` claim).
pub struct Signed {
    pub text: String,
    pub id: String,
}

/// How a receipt names a grant as the approver of the decision it made.
pub fn grant_approver(grant: &super::GrantId) -> String {
    format!("{GRANT_APPROVER}{grant}")
}

const GRANT_APPROVER: &str = "console:grant:";

impl Claims {
    /// The grant these claims name as an approver ([`grant_approver`]): a decision of an "always
    /// allow" grant.
    pub fn grant(&self) -> Option<super::GrantId> {
        self.approvers.iter().find_map(|a| a.strip_prefix(GRANT_APPROVER)).filter(|g| !g.is_empty()).map(super::GrantId::new)
    }
}

/// The grant a receipt names as an approver ([`Claims::grant`]). Reads the claims without checking
/// the signature: for a receipt checked already (a connector's [`verify`]).
pub fn grant_of(receipt: &str) -> Option<super::GrantId> {
    grant_terms(receipt).map(|(grant, _)| grant)
}

/// The grant a receipt names as an approver and the scope its rule is written back in (the
/// `ruleScope` claim; the session without one). Like [`grant_of`], for a receipt checked already.
pub fn grant_terms(receipt: &str) -> Option<(super::GrantId, RuleScope)> {
    let claims = decode(receipt).ok()?.1;
    Some((claims.grant()?, claims.rule_scope.unwrap_or_default()))
}

impl Issue {
    /// The receipt of `verdict` on `item`, shown with fingerprint `shown`, by `approvers` (every
    /// approval of a quorum; else this issue's approver), under `policy_version`, issued `now`; a
    /// grant's approval writes its rule back in `rule_scope` (claimed when not the session).
    #[allow(clippy::too_many_arguments)]
    pub fn receipt(
        &self,
        item: &QueuedCall,
        verdict: &Verdict,
        shown: &Fingerprint,
        approvers: Option<Vec<String>>,
        policy_version: &str,
        now: DateTime<Utc>,
        rule_scope: RuleScope,
    ) -> Signed {
        let (decision, edited, executed) = match verdict {
            Verdict::Approve => (Outcome::Approved, false, Some(shown.clone())),
            Verdict::ApproveEdited { fingerprint, .. } => (Outcome::Approved, true, Some(fingerprint.clone())),
            Verdict::Resume { .. } => (Outcome::Answered, false, Some(shown.clone())),
            Verdict::Decline { .. } | Verdict::Expire { .. } => (Outcome::Declined, false, None),
        };
        let call = &item.call;
        let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        let issued_at = now.timestamp();
        let claims = Claims {
            version: VERSION,
            id: Claims::new_id(),
            decision,
            edited,
            fingerprint: shown.clone(),
            executed_fingerprint: executed,
            tool: call.tool_name.clone(),
            source: call.source.as_str().to_owned(),
            engine: call.engine.as_str().to_owned(),
            agent: some(call.agent_id.as_str()),
            run_id: some(call.run_id.as_str()),
            tool_call_id: some(call.tool_call_id.as_str()),
            call_id: item.id.as_str().to_owned(),
            approvers: approvers.unwrap_or_else(|| vec![self.approver.clone()]),
            policy_version: policy_version.to_owned(),
            issued_at,
            expires_at: issued_at.saturating_add(i64::try_from(self.ttl_secs).unwrap_or(i64::MAX)),
            rule_scope: (rule_scope != RuleScope::Session).then_some(rule_scope),
        };
        Signed { text: self.signer.sign(&claims), id: claims.id }
    }
}

/// A receipt's header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub alg: String,
    pub kid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typ: Option<String>,
}

/// The key id of a public key: `ed25519-` + the first 16 hex digits of SHA-256 over its 32 bytes.
pub fn key_id(public: &VerifyingKey) -> String {
    format!("ed25519-{}", &hex::encode(Sha256::digest(public.as_bytes()))[..16])
}

/// A console's signing key. `Debug` shows its key id only; the secret leaves only through
/// [`Signer::secret_text`], for the keyring or an owner-only file.
pub struct Signer {
    kid: String,
    key: SigningKey,
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signer({})", self.kid)
    }
}

impl Signer {
    /// A new key from the OS's random source.
    pub fn generate() -> Self {
        let mut seed = [0u8; 32];
        rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut seed);
        Self::from_seed(seed)
    }

    fn from_seed(seed: [u8; 32]) -> Self {
        let key = SigningKey::from_bytes(&seed);
        Self { kid: key_id(&key.verifying_key()), key }
    }

    /// The key as kept (base64url of its 32-byte seed), read back by [`Signer::from_secret_text`].
    pub fn secret_text(&self) -> String {
        B64.encode(self.key.to_bytes())
    }

    /// A key kept by [`Signer::secret_text`]; `None` if the text is not one.
    pub fn from_secret_text(text: &str) -> Option<Self> {
        let bytes = B64.decode(text.trim()).ok()?;
        Some(Self::from_seed(bytes.try_into().ok()?))
    }

    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The public half, as published.
    pub fn jwk(&self, created_at: i64) -> Jwk {
        Jwk::of(&self.key.verifying_key(), created_at, None)
    }

    /// The receipt of `claims`: `header.payload.signature`, each base64url without padding.
    pub fn sign(&self, claims: &Claims) -> String {
        let header = Header { alg: "EdDSA".into(), kid: self.kid.clone(), typ: Some(TYP.into()) };
        let text = |v| canonical_json(&v).expect("a receipt's fields are strings and integers");
        let header = B64.encode(text(serde_json::to_value(&header).expect("a header is JSON")));
        let payload = B64.encode(text(serde_json::to_value(claims).expect("claims are JSON")));
        let input = format!("{header}.{payload}");
        let signature = self.key.sign(input.as_bytes());
        format!("{input}.{}", B64.encode(signature.to_bytes()))
    }
}

/// One public key of a JSON Web Key Set (RFC 7517, RFC 8037 `OKP`/`Ed25519`), with when it was
/// made and, once rotated out, retired.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Jwk {
    pub kty: String,
    pub crv: String,
    /// The 32-byte public key, base64url.
    pub x: String,
    pub kid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alg: Option<String>,
    #[serde(default, rename = "use", skip_serializing_if = "Option::is_none")]
    pub use_: Option<String>,
    /// Unix seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<i64>,
    /// Unix seconds: receipts issued after it are refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_at: Option<i64>,
}

impl Jwk {
    pub fn of(public: &VerifyingKey, created_at: i64, retired_at: Option<i64>) -> Self {
        Self::new(B64.encode(public.as_bytes()), key_id(public), created_at, retired_at)
    }

    /// An Ed25519 signing key's JWK from its public key `x` (base64url) and id.
    pub fn new(x: String, kid: String, created_at: i64, retired_at: Option<i64>) -> Self {
        Self {
            kty: "OKP".into(),
            crv: "Ed25519".into(),
            x,
            kid,
            alg: Some("EdDSA".into()),
            use_: Some("sig".into()),
            created_at: Some(created_at),
            retired_at,
        }
    }

    /// The public key, if this is an Ed25519 key with a valid point.
    pub fn key(&self) -> Option<VerifyingKey> {
        if self.kty != "OKP" || self.crv != "Ed25519" {
            return None;
        }
        let bytes: [u8; 32] = B64.decode(&self.x).ok()?.try_into().ok()?;
        VerifyingKey::from_bytes(&bytes).ok()
    }
}

/// A JSON Web Key Set: what `GET /.well-known/jwks.json` answers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Jwks {
    pub keys: Vec<Jwk>,
}

impl Jwks {
    pub fn get(&self, kid: &str) -> Option<&Jwk> {
        self.keys.iter().find(|k| k.kid == kid)
    }
}

/// The id of the key that signed `receipt` (its header's `kid`), read without checking anything:
/// which key set to check it against.
pub fn key_id_of(receipt: &str) -> Result<String, ReceiptError> {
    let header = receipt.trim().split('.').next().unwrap_or_default();
    let bytes = B64.decode(header).map_err(|_| ReceiptError::Malformed("its header is not base64url".into()))?;
    let header: Header = serde_json::from_slice(&bytes).map_err(|_| ReceiptError::Malformed("its header is not JSON".into()))?;
    Ok(header.kid)
}

/// A receipt's header and claims, read without checking anything (for display: `receipt ID`).
pub fn decode(receipt: &str) -> Result<(Header, Claims), ReceiptError> {
    let parts = verify::Parts::split(receipt)?;
    Ok((parts.header, verify::claims_of(&parts.payload)?))
}

#[cfg(test)]
mod tests;
