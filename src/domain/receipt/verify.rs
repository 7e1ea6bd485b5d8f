//! Checking a receipt where the tool runs, in the order docs/receipts.md gives ("Checking a
//! receipt"); the first failure refuses, named by its code. Recording the receipt as used (step 10)
//! is the caller's: it holds the store.

use super::{Claims, Header, Jwks, B64, TYP, VERSION};
use crate::domain::Fingerprint;
use base64::Engine as _;
use ed25519_dalek::Signature;
use serde_json::Value;

/// Why a receipt was refused. `code()` is the name every verifier of this repo gives it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReceiptError {
    #[error("the receipt is malformed: {0}")]
    Malformed(String),
    #[error("the receipt's key {0} is not in the key set")]
    UnknownKey(String),
    #[error("the receipt's signature does not verify with its key")]
    BadSignature,
    #[error("the receipt's version {0} is not one this verifier knows")]
    UnsupportedVersion(u64),
    #[error("the receipt was issued after its key {kid} was retired")]
    KeyRetired { kid: String },
    #[error("the receipt expired at {expires_at} (now {now})")]
    Expired { expires_at: i64, now: i64 },
    #[error("the receipt is for a decision that runs nothing ({0})")]
    NotApproved(String),
    #[error("the receipt is for tool {receipt}, not {expected}")]
    ToolMismatch { receipt: String, expected: String },
    #[error("the receipt is for another call ({0})")]
    CallMismatch(String),
    /// Numbers in the arguments about to run that a fingerprint cannot bind (an integer no double
    /// equals; read from text, also a decimal not written as its double's shortest form): the
    /// receipt of a neighbouring value would hold for them, so none does.
    #[error("the arguments about to run hold numbers a fingerprint cannot bind, at {}: no receipt holds for them", .0.join(", "))]
    AmbiguousArguments(Vec<String>),
    #[error("the arguments about to run ({actual}) are not the ones approved ({approved})")]
    FingerprintMismatch { approved: String, actual: String },
    #[error("the receipt {0} was used before")]
    Replayed(String),
}

impl ReceiptError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::Malformed(_) => "malformed",
            Self::UnknownKey(_) => "unknown_key",
            Self::BadSignature => "bad_signature",
            Self::UnsupportedVersion(_) => "unsupported_version",
            Self::KeyRetired { .. } => "key_retired",
            Self::Expired { .. } => "expired",
            Self::NotApproved(_) => "not_approved",
            Self::ToolMismatch { .. } => "tool_mismatch",
            Self::CallMismatch(_) => "call_mismatch",
            Self::AmbiguousArguments(_) => "ambiguous_arguments",
            Self::FingerprintMismatch { .. } => "fingerprint_mismatch",
            Self::Replayed(_) => "replayed",
        }
    }
}

/// What the place where the tool runs is about to run, to check a receipt against.
#[derive(Clone, Debug)]
pub struct Expect<'a> {
    pub tool: &'a str,
    pub args: &'a Value,
    pub run_id: Option<&'a str>,
    pub tool_call_id: Option<&'a str>,
}

/// A receipt split into its parts, the header read.
pub(super) struct Parts<'a> {
    pub header: Header,
    pub signed: &'a str,
    pub payload: Vec<u8>,
    pub signature: Vec<u8>,
}

impl<'a> Parts<'a> {
    pub fn split(receipt: &'a str) -> Result<Self, ReceiptError> {
        let malformed = |why: &str| ReceiptError::Malformed(why.to_owned());
        let receipt = receipt.trim();
        let mut it = receipt.split('.');
        let (Some(h), Some(p), Some(s), None) = (it.next(), it.next(), it.next(), it.next()) else {
            return Err(malformed("not three base64url segments"));
        };
        let decode = |part: &str, what: &str| B64.decode(part).map_err(|_| malformed(&format!("its {what} is not base64url")));
        let header: Header = serde_json::from_slice(&decode(h, "header")?).map_err(|_| malformed("its header is not JSON"))?;
        if header.alg != "EdDSA" {
            return Err(malformed(&format!("its algorithm is {:?}, not EdDSA", header.alg)));
        }
        if header.typ.as_deref().is_some_and(|t| t != TYP) {
            return Err(malformed("its typ is not approval-receipt"));
        }
        Ok(Self { header, signed: &receipt[..h.len() + 1 + p.len()], payload: decode(p, "payload")?, signature: decode(s, "signature")? })
    }
}

/// The claims of a payload, checked for version first.
pub(super) fn claims_of(payload: &[u8]) -> Result<Claims, ReceiptError> {
    let value: Value = serde_json::from_slice(payload).map_err(|_| ReceiptError::Malformed("its payload is not JSON".into()))?;
    let version =
        value.get("version").and_then(Value::as_u64).ok_or_else(|| ReceiptError::Malformed("its payload has no version".into()))?;
    if version != u64::from(VERSION) {
        return Err(ReceiptError::UnsupportedVersion(version));
    }
    serde_json::from_value(value).map_err(|e| ReceiptError::Malformed(format!("its claims: {e}")))
}

/// Checks `receipt` (steps 1–9 of docs/receipts.md) against the key set, the time `now` (Unix
/// seconds) and what is about to run; answers its claims. The caller then records the receipt's id
/// as used, once (step 10).
pub fn verify(receipt: &str, keys: &Jwks, now: i64, expect: &Expect) -> Result<Claims, ReceiptError> {
    let claims = verify_call(receipt, keys, now, expect)?;
    // 9. The arguments: first that their fingerprint binds them (exact fingerprints), then that it
    // is the one approved.
    let paths = crate::domain::inexact_numbers(expect.args);
    if !paths.is_empty() {
        return Err(ReceiptError::AmbiguousArguments(paths));
    }
    let actual = Fingerprint::of(expect.tool, expect.args).map_err(|e| ReceiptError::Malformed(e.to_string()))?;
    match claims.runs_with() {
        Some(approved) if approved == &actual => {}
        approved => {
            let approved = approved.map_or_else(|| "none".to_owned(), ToString::to_string);
            return Err(ReceiptError::FingerprintMismatch { approved, actual: actual.to_string() });
        }
    }
    Ok(claims)
}

/// Steps 1–8 of [`verify`]: the receipt holds for this tool and call, its arguments not looked at
/// (`expect.args` is not read). For a caller that read the arguments from text and found numbers
/// there no fingerprint binds: it refuses them after these steps, as [`verify`] would at step 9.
pub fn verify_call(receipt: &str, keys: &Jwks, now: i64, expect: &Expect) -> Result<Claims, ReceiptError> {
    let claims = verify_signed(receipt, keys, now)?;
    if !claims.decision.runs() {
        return Err(ReceiptError::NotApproved(claims.decision.as_str().to_owned()));
    }
    if claims.tool != expect.tool {
        return Err(ReceiptError::ToolMismatch { receipt: claims.tool.clone(), expected: expect.tool.to_owned() });
    }
    for (name, wanted, theirs) in [("runId", expect.run_id, &claims.run_id), ("toolCallId", expect.tool_call_id, &claims.tool_call_id)] {
        if let Some(wanted) = wanted {
            if theirs.as_deref() != Some(wanted) {
                return Err(ReceiptError::CallMismatch(format!("its {name} is {theirs:?}, not {wanted:?}")));
            }
        }
    }
    Ok(claims)
}

/// Steps 1–6 of [`verify`]: the receipt is well formed, signed by a key of the set (not one retired
/// before it was issued) and not expired at `now` — what it says, proven; not yet whether it lets
/// anything run, nor what (for inspecting a receipt: `receipt verify` without arguments).
pub fn verify_signed(receipt: &str, keys: &Jwks, now: i64) -> Result<Claims, ReceiptError> {
    let parts = Parts::split(receipt)?;
    let kid = &parts.header.kid;
    let jwk = keys.get(kid).ok_or_else(|| ReceiptError::UnknownKey(kid.clone()))?;
    let key = jwk.key().ok_or_else(|| ReceiptError::UnknownKey(kid.clone()))?;
    let signature = Signature::from_slice(&parts.signature).map_err(|_| ReceiptError::BadSignature)?;
    key.verify_strict(parts.signed.as_bytes(), &signature).map_err(|_| ReceiptError::BadSignature)?;
    let claims = claims_of(&parts.payload)?;
    if jwk.retired_at.is_some_and(|retired| claims.issued_at > retired) {
        return Err(ReceiptError::KeyRetired { kid: kid.clone() });
    }
    if now >= claims.expires_at {
        return Err(ReceiptError::Expired { expires_at: claims.expires_at, now });
    }
    Ok(claims)
}
