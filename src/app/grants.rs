//! "Always allow" grants (see [`crate::console::grants`]) on the app's one surface.

use super::App;
use crate::console::grants::{Grant, NewGrant};
use crate::domain::{Error, GrantId};

impl App {
    pub async fn grants(&self) -> Result<Vec<Grant>, Error> {
        self.console.grants().await
    }

    /// `channel` as in [`App::operator`].
    pub async fn create_grant(&self, new: &NewGrant, channel: &str) -> Result<Grant, Error> {
        self.console.create_grant(new, &self.operator(channel)).await
    }

    pub async fn revoke_grant(&self, id: &str, channel: &str) -> Result<Grant, Error> {
        self.console.revoke_grant(&GrantId::new(id), &self.operator(channel)).await
    }
}
