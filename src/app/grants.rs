//! "Always allow" grants (see [`crate::console::grants`]) on the app's one surface.

use super::App;
use crate::console::grants::{CreatedGrant, Grant, GrantPreview, NewGrant};
use crate::domain::{Actor, Error, GrantId, Op};

impl App {
    pub async fn grants(&self, by: &Actor) -> Result<Vec<Grant>, Error> {
        by.may(Op::Grants)?;
        self.console.grants().await
    }

    /// What each shadow grant would have done beside what operators did (`policy shadow-report`).
    pub async fn shadow_report(&self, by: &Actor) -> Result<crate::console::shadow::ShadowReport, Error> {
        by.may(Op::ShadowReport)?;
        self.console.shadow_report().await
    }

    /// Admins only: a grant decides calls in the operators' place.
    pub async fn create_grant(&self, new: &NewGrant, by: &Actor) -> Result<CreatedGrant, Error> {
        by.may(Op::CreateGrant)?;
        self.console.create_grant(new, &by.audit_name()).await
    }

    /// How many waiting calls the grant would approve now (admins only, as making it).
    pub async fn preview_grant(&self, new: &NewGrant, by: &Actor) -> Result<GrantPreview, Error> {
        by.may(Op::PreviewGrant)?;
        self.console.preview_grant(new).await
    }

    /// Any operator: revoking only takes automation away.
    pub async fn revoke_grant(&self, id: &str, by: &Actor) -> Result<Grant, Error> {
        by.may(Op::RevokeGrant)?;
        self.console.revoke_grant(&GrantId::new(id), &by.audit_name()).await
    }
}
