//! Signed decision receipts (issue 29, docs/receipts.md): the console's public keys, a call's
//! receipt, and the key's rotation. Signing is the console's (`console::receipts`, in the
//! decision's transaction); checking is the place where the tool runs (`domain::receipt::verify`).

use super::App;
use crate::domain::receipt::{self, Claims, Jwks};
use crate::domain::Error;
use crate::domain::{grade, Cx};
use crate::store::receipts;
use serde::{Deserialize, Serialize};

/// Which call's receipt (`GET /api/receipts?toolCallId=…&runId=…`): the ids its engine gave it.
/// Without `runId` (a Mastra `beforeToolCall` hook is not told its run), the tool-call id must name
/// one run's call (`invalid_request` when calls of several runs have it).
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema, utoipa::IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ReceiptQuery {
    pub tool_call_id: String,
    #[serde(default)]
    pub run_id: Option<String>,
}

/// A call's receipt: the signed text to check, and its claims as read (not checked) for display.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptView {
    /// The console's id of the call.
    pub call_id: String,
    /// The receipt: a JWS (compact) to check where the tool runs.
    pub receipt: String,
    /// The key that signed it.
    pub kid: String,
    pub claims: Claims,
}

/// The key made by a rotation.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RotatedKey {
    pub kid: String,
    /// The key set as published now (the old key marked `retiredAt`).
    pub keys: Jwks,
}

fn view(found: receipts::Found) -> Result<ReceiptView, Error> {
    let (header, claims) = receipt::decode(&found.receipt).map_err(|e| Error::Storage(format!("a stored receipt cannot be read: {e}")))?;
    Ok(ReceiptView { call_id: found.item_id, receipt: found.receipt, kid: header.kid, claims })
}

impl App {
    /// Every console's public keys, live and retired: what `/.well-known/jwks.json` publishes to
    /// anyone (public keys only).
    pub async fn receipt_keys(&self) -> Result<Jwks, Error> {
        Ok((*self.console.receipts().jwks().await?).clone())
    }

    /// The receipt of the decision on the call an engine knows as `q`'s ids (the newest, if it was
    /// queued again): what a Mastra `beforeToolCall` hook asks before the tool runs. An agent
    /// credential limited to some agents or sources finds only theirs.
    pub async fn receipt_of_call(&self, q: &ReceiptQuery, by: &Cx<grade::Agent>) -> Result<ReceiptView, Error> {
        let found = receipts::of_engine_call(&self.db, q.run_id.as_deref(), &q.tool_call_id).await?;
        let run = q.run_id.as_deref().map(|r| format!(" of run {r}")).unwrap_or_default();
        let missing = || Error::not_found(format!("a decision on tool call {}{run}", q.tool_call_id));
        let found = view(found.ok_or_else(missing)?)?;
        // A credential limited to some agents or sources (`tokens add --agent/--source`) sees only
        // their receipts; another's is as good as missing.
        if matches!(by.scope(), crate::domain::authority::Scope::Own(_)) {
            if let Some(credential) = crate::store::credentials::find_by_name(&self.db, &by.principal.name).await? {
                let agent = found.claims.agent.as_deref().unwrap_or_default();
                let outside = credential.agents.as_ref().is_some_and(|list| !list.iter().any(|a| a == agent))
                    || credential.sources.as_ref().is_some_and(|list| !list.iter().any(|s| s == &found.claims.source));
                if outside {
                    return Err(missing());
                }
            }
        }
        Ok(found)
    }

    /// A call's receipt, by the call's id or the receipt's own (`rct_…`).
    pub async fn receipt(&self, id: &str, _by: &Cx<grade::Watch>) -> Result<ReceiptView, Error> {
        view(receipts::of_call_or_id(&self.db, id).await?.ok_or_else(|| Error::not_found(format!("a receipt for {id}")))?)
    }

    /// Makes this console a new signing key and retires its old one (audited `receipt_key.rotated`).
    pub async fn rotate_receipt_key(&self, by: &Cx<grade::Admin>) -> Result<RotatedKey, Error> {
        let kid = self.console.receipts().rotate(&by.audit_name()).await?;
        Ok(RotatedKey { kid, keys: self.receipt_keys().await? })
    }

    /// Keep this console's new receipt keys in the OS keyring (the desktop app) rather than in an
    /// owner-only file of the data directory (the default: a server may have no keyring).
    pub fn keep_receipt_keys_in_keyring(&self) {
        self.console.receipts().use_keyring(true);
    }
}
