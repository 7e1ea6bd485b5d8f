//! The channels' secrets (issue 44): which channels have one, and — by the local admin alone —
//! setting and removing one. A secret lives in the channels' own namespace
//! ([`crate::secrets::channel`]): the settings never name a place, so changing them (an admin
//! token may) reaches no secret of this machine.

use super::App;
use crate::domain::audit::ChannelSecretChanged;
use crate::domain::reach::{ReachSettings, SecretPlace};
use crate::domain::{grade, Cx, Error};
#[cfg(test)]
use crate::domain::{Actor, Op, PrincipalKind};
use crate::secrets::ApiKey;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A channel whose secret is set, and where it is kept (never the value).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChannelSecret {
    pub channel: String,
    pub kept: SecretPlace,
}

/// A channel's secret removed, and where it was.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemovedChannelSecret {
    pub channel: String,
    pub removed_from: Vec<SecretPlace>,
}

/// A channel's secret as the local admin sends it: its webhook's signing key, its Slack URL, its
/// SMTP password or its Matrix token — one line, never answered back.
// Its `Debug` never shows the value.
#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = NewChannelSecret)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SecretValue {
    pub value: String,
}

impl std::fmt::Debug for SecretValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretValue(***)")
    }
}

impl App {
    /// Keep channels' new secrets in the OS keyring, and look for them there too (the desktop app);
    /// else they are owner-only files of the data directory.
    pub fn keep_channel_secrets_in_keyring(&self) {
        self.channel_secrets.use_keyring(true);
    }

    /// Refuses settings with a channel that needs a secret (its kind says) and has none set: the
    /// domain's checks first (`ReachSettings::check`), then each such channel's own place.
    pub(super) async fn check_channel_secrets(&self, settings: &ReachSettings) -> Result<(), Error> {
        settings.check().map_err(Error::InvalidRequest)?;
        for c in &settings.channels {
            let Some(what) = c.kind.secret_needed() else { continue };
            if self.channel_secrets.place(&c.name).await?.is_none() {
                return Err(Error::InvalidRequest(format!(
                    "channel {0} ({1:?}) needs {what}, and none is set: the local admin sets it \
                     (`approval-console channels secret set {0}`, or Settings → Channels in the desktop app)",
                    c.name, c.kind
                )));
            }
        }
        Ok(())
    }

    /// What would not work as the settings say, though nothing refuses it: a mail channel without
    /// an SMTP password that names a user, or whose server is on another machine (it would send
    /// without logging in, which such servers refuse). One sentence each, naming the channel.
    pub(super) async fn channel_secret_warnings(&self, settings: &ReachSettings) -> Result<Vec<String>, Error> {
        let mut out = vec![];
        for c in settings.channels.iter().filter(|c| c.kind == crate::domain::reach::ChannelKind::Email) {
            if self.channel_secrets.place(&c.name).await?.is_some() {
                continue;
            }
            let server = c.server.as_deref().unwrap_or_default();
            let why = match &c.username {
                Some(user) => format!("it names the SMTP user {user:?}"),
                None if !crate::domain::reach::plain_smtp_allowed(server) => format!("{server} is not on this machine"),
                None => continue,
            };
            out.push(format!(
                "channel {0} (email) has no SMTP password set, and {why}: it sends without logging in, which the server \
                 will likely refuse. The local admin sets one: `approval-console channels secret set {0}` (or Settings → Channels)",
                c.name
            ));
        }
        Ok(out)
    }

    /// The channels whose secret is set — of the settings, and any other with a secret file — and
    /// where each is kept. Never a value.
    pub async fn channel_secrets(&self, _by: &Cx<grade::Operator>) -> Result<Vec<ChannelSecret>, Error> {
        let settings: ReachSettings = crate::store::settings::load(&self.db).await?;
        let mut names: BTreeSet<String> = settings.channels.into_iter().map(|c| c.name).collect();
        names.extend(self.channel_secrets.with_files()?);
        let mut out = vec![];
        for name in names.into_iter().filter(|n| crate::domain::principal::valid_credential_name(n)) {
            if let Some(kept) = self.channel_secrets.place(&name).await? {
                out.push(ChannelSecret { channel: name, kept });
            }
        }
        Ok(out)
    }

    /// Sets channel `name`'s secret (the local admin only): kept in its place (the keyring in the
    /// desktop app, else an owner-only file) and audited `channel_secret.set` with where, never what.
    /// The channel need not be in the settings yet. If the audit entry cannot be written, the secret
    /// is removed again: a channel has no secret rather than one nobody can account for.
    pub async fn set_channel_secret(&self, name: &str, value: SecretValue, by: &Cx<grade::Local>) -> Result<ChannelSecret, Error> {
        let kept = self.channel_secrets.set(name, &ApiKey::new(value.value)).await?;
        let change = ChannelSecretChanged::Set { channel: name, kept };
        if let Err(e) = crate::store::reach::secret_changed(&self.db, &by.audit_name(), &change).await {
            if let Err(undo) = self.channel_secrets.remove(name).await {
                tracing::warn!(channel = name, "a channel's secret set but not audited could not be removed again: {undo}");
            }
            return Err(e);
        }
        Ok(ChannelSecret { channel: name.to_owned(), kept })
    }

    /// Removes channel `name`'s secret (the local admin only), audited `channel_secret.removed`.
    /// `not_found` when it has none.
    pub async fn remove_channel_secret(&self, name: &str, by: &Cx<grade::Local>) -> Result<RemovedChannelSecret, Error> {
        let removed = self.channel_secrets.remove(name).await?;
        let change = ChannelSecretChanged::Removed { channel: name, removed_from: &removed };
        crate::store::reach::secret_changed(&self.db, &by.audit_name(), &change).await?;
        Ok(RemovedChannelSecret { channel: name.to_owned(), removed_from: removed })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_value_never_shows_in_debug_and_only_the_local_admin_passes() {
        use crate::domain::authority::{admit, Listener};
        let v: SecretValue = serde_json::from_value(serde_json::json!({ "value": "tok-123" })).unwrap();
        assert_eq!(format!("{v:?}"), "SecretValue(***)");
        let by = |kind| {
            let mut a = Actor::new(crate::domain::Principal { name: "boss".into(), role: crate::domain::Role::Admin, kind }, "web");
            a.listener = Listener::Loopback;
            a
        };
        for op in [Op::SetChannelSecret, Op::RemoveChannelSecret] {
            assert!(admit(op, by(PrincipalKind::Local)).is_ok());
            for kind in [PrincipalKind::Token, PrincipalKind::Device] {
                assert_eq!(admit(op, by(kind)).unwrap_err().code(), "forbidden", "{kind:?}");
            }
        }
    }
}
