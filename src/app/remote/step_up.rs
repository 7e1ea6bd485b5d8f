//! Step-up: a decision from a paired device's session needs that device's passkey, asked for that
//! call, that fingerprint and that decision (and, for edited arguments, their fingerprint).
//!
//! `POST /api/remote/step-up` names the call and the decision; the console keeps the WebAuthn
//! challenge it answers with, bound to them and to the device. The decision's request then carries
//! the ceremony's id and the browser's assertion (`X-Step-Up`, `X-Step-Up-Assertion`); the decision
//! kernel ([`crate::console::Console::decide`]) asks [`DeviceStepUps`] for every decision of a
//! device: it takes the ceremony (once), compares the binding with the decision asked for, and
//! verifies the assertion against the device's passkey. Whatever fails is refused
//! (`step_up_required`) and audited (`remote.refused`).

use super::Ceremony;
use crate::app::App;
use crate::console::StepUps;
use crate::domain::audit::RemoteRefusal;
use crate::domain::{grade, Actor, Cx, DecisionKind, Error, Fingerprint};
use crate::store::devices;
use futures::future::BoxFuture;
use serde::Deserialize;
use webauthn_rs::prelude::{Passkey, PublicKeyCredential, RequestChallengeResponse};

pub use crate::console::Binding;

/// A step-up to begin (`POST /api/remote/step-up`).
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StepUpRequest {
    pub item_id: String,
    /// The fingerprint on screen.
    pub fingerprint: String,
    pub decision: DecisionKind,
    /// For `edit`: the edited arguments (the step-up binds their fingerprint).
    #[serde(default)]
    pub args: Option<serde_json::Value>,
}

impl App {
    /// Begins a step-up for `request` (a paired device's session): the passkey options to answer.
    pub async fn step_up_begin(&self, request: StepUpRequest, by: &Cx<grade::Device>) -> Result<(String, RequestChallengeResponse), Error> {
        let remote = self.remote().ok_or_else(|| Error::not_found("the remote listener"))?;
        Fingerprint::parse(&request.fingerprint)
            .ok_or_else(|| Error::InvalidRequest("fingerprint must be \"sha256:\" and 64 hex digits".into()))?;
        let edited = match (request.decision, &request.args) {
            (DecisionKind::Edit, Some(args)) => {
                let tool = self.console.item(&crate::domain::ItemId::new(&request.item_id)).await?.queued.call.tool_name;
                Some(Fingerprint::of(&tool, args).map_err(|e| Error::InvalidRequest(e.to_string()))?.as_str().to_owned())
            }
            (DecisionKind::Edit, None) => return Err(Error::InvalidRequest("an edit's step-up needs the edited arguments (args)".into())),
            (_, Some(_)) => return Err(Error::InvalidRequest("args go with an edit's step-up only".into())),
            (_, None) => None,
        };
        let device = keyed(&self.db, &by.principal.name).await?;
        let passkey: Passkey = serde_json::from_str(&device.passkey).map_err(|e| Error::Storage(format!("bad passkey: {e}")))?;
        let (options, state) = remote
            .webauthn()
            .start_passkey_authentication(&[passkey])
            .map_err(|e| Error::Storage(format!("cannot start a step-up: {e}")))?;
        let binding = Binding {
            device: device.name.clone(),
            item_id: request.item_id,
            fingerprint: request.fingerprint,
            decision: request.decision,
            edited,
        };
        // Held for this device: no flood of anonymous ceremonies pushes it out (`ceremonies`).
        Ok((remote.keep(super::Owner::Device(device.name), Ceremony::StepUp { binding, state }), options))
    }
}

async fn keyed(db: &crate::store::Db, name: &str) -> Result<devices::Keyed, Error> {
    devices::keyed_by_name(db, name).await?.ok_or_else(|| Error::not_found(format!("device {name}")))
}

/// The remote listener's check of paired devices' step-ups, for the decision kernel
/// ([`crate::console::StepUps`]): it alone calls it, for every decision of a device's session.
pub(crate) struct DeviceStepUps {
    pub(crate) remote: std::sync::Arc<super::Remote>,
    pub(crate) db: crate::store::Db,
}

impl StepUps for DeviceStepUps {
    fn check<'a>(&'a self, by: &'a Actor, asked: Binding) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(self.verify(by, asked))
    }
}

impl DeviceStepUps {
    async fn verify(&self, by: &Actor, asked: Binding) -> Result<(), Error> {
        let item_id = asked.item_id.clone();
        let refuse = |why: &'static str| async move {
            let address = by.address.as_deref().unwrap_or("");
            let r = RemoteRefusal {
                pairing: false,
                reason: why,
                address,
                device: Some(&by.principal.name),
                item_id: Some(&item_id),
                suppressed: 0,
            };
            super::audit_refusal(&self.remote, &self.db, r).await;
            Err(Error::StepUpRequired { why: why.to_owned() })
        };
        let remote = &self.remote;
        let Some(proof) = &by.proof else { return refuse("no passkey assertion came with the decision").await };
        let Some(Ceremony::StepUp { binding, state }) = remote.take(&proof.ceremony) else {
            return refuse("the step-up is unknown, used already or expired").await;
        };
        if binding != asked {
            return refuse("the step-up was asked for another call, fingerprint, decision or device").await;
        }
        let Ok(credential) = serde_json::from_str::<PublicKeyCredential>(&proof.assertion) else {
            return refuse("the passkey assertion is not a WebAuthn credential").await;
        };
        let Ok(result) = remote.webauthn().finish_passkey_authentication(&credential, &state) else {
            return refuse("the passkey assertion did not verify").await;
        };
        let Ok(device) = keyed(&self.db, &by.principal.name).await else { return refuse("the device was revoked").await };
        let mut passkey: Passkey = serde_json::from_str(&device.passkey).map_err(|e| Error::Storage(format!("bad passkey: {e}")))?;
        if passkey.cred_id() != result.cred_id() {
            return refuse("the assertion is of another device's passkey").await;
        }
        passkey.update_credential(&result);
        let json = serde_json::to_string(&passkey).expect("a passkey serializes");
        devices::note_use(&self.db, &device.id, &json, crate::store::now()).await
    }
}
