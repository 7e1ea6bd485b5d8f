//! "Always allow" grants (see [`crate::console::grants`]) on the app's one surface.

use super::App;
use crate::console::grants::{CreatedGrant, Grant, GrantPreview, NewGrant};
use crate::domain::{grade, Cx};
use crate::domain::{Error, GrantId};

impl App {
    pub async fn grants(&self, _by: &Cx<grade::Operator>) -> Result<Vec<Grant>, Error> {
        self.console.grants().await
    }

    /// What each shadow grant would have done beside what operators did (`policy shadow-report`).
    pub async fn shadow_report(&self, _by: &Cx<grade::Operator>) -> Result<crate::console::shadow::ShadowReport, Error> {
        self.console.shadow_report().await
    }

    /// Admins only: a grant decides calls in the operators' place.
    pub async fn create_grant(&self, new: &NewGrant, by: &Cx<grade::Admin>) -> Result<CreatedGrant, Error> {
        self.console.create_grant(new, &by.audit_name()).await
    }

    /// How many waiting calls the grant would approve now (admins only, as making it).
    pub async fn preview_grant(&self, new: &NewGrant, _by: &Cx<grade::Admin>) -> Result<GrantPreview, Error> {
        self.console.preview_grant(new).await
    }

    /// Any operator: revoking only takes automation away.
    pub async fn revoke_grant(&self, id: &str, by: &Cx<grade::Operator>) -> Result<Grant, Error> {
        self.console.revoke_grant(&GrantId::new(id), &by.audit_name()).await
    }
}
