//! Remote access (issue 28): the console reached from a paired phone through `serve --listen`.
//!
//! - **Pairing**: an admin starts one ([`App::start_pairing`]: a short code, single use, minutes to
//!   live, kept as a hash); the phone proves the code on the remote listener and registers a
//!   passkey (WebAuthn, by `webauthn-rs`); the device is then an operator credential of the person
//!   who paired it, listed, renamed and revoked by admins ([`devices`]).
//! - **Sessions**: a signed-in browser holds a random cookie (HttpOnly, Secure, SameSite=Strict;
//!   the HTTP layer sets it), stored as SHA-256; revoking the device ends them at once.
//! - **Step-up**: every decision from a device's session needs that device's passkey, asked for that
//!   call, its fingerprint and that decision ([`step_up`]): single use, minutes to live. A stolen
//!   cookie cannot decide; an assertion cannot serve another call or another decision.
//!
//! The ceremonies in flight (a registration, a sign-in, a step-up) are kept in this process's
//! memory: the phone talks to the one listener that began them. A flood of them from one address,
//! or from many, pushes out no other address's and never a signed-in device's step-up
//! ([`ceremonies`]); wrong pairing codes lock the address that sent them, and kill the codes they
//! were tried against, never pairing for everyone ([`tries`]).

mod ceremonies;
pub mod devices;
pub mod step_up;
mod tries;

pub(crate) use ceremonies::Owner;

use crate::domain::audit::RemoteRefusal;
use crate::domain::Error;
use crate::domain::{grade, Cx};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use webauthn_rs::prelude::{DiscoverableAuthentication, PasskeyAuthentication, PasskeyRegistration, Url, Webauthn, WebauthnBuilder};

/// How long a pairing code holds.
pub const PAIRING_TTL: chrono::Duration = chrono::Duration::minutes(10);
/// How long a signed-in session holds.
pub const SESSION_TTL: chrono::Duration = chrono::Duration::hours(12);
/// Wrong codes tried (from any address) while a pairing is live that end it: guessing a code takes
/// about 2^49 tries, so a pairing ends long before it could be guessed, while killing one takes
/// wrong codes from [`PAIRING_WRONG_TRIES`] / 5 addresses within its ten minutes (each address
/// tries 5 per 10 minutes, [`tries`]). Pairing itself is never locked: a new code works at once.
pub const PAIRING_WRONG_TRIES: i64 = 1000;
/// Refusals written to the audit log one by one per minute; beyond, counted into the next entry.
const REFUSALS_PER_MINUTE: u32 = 20;

pub use crate::domain::remote::RemoteSettings;

/// The remote listener's settings and, when it runs in this process, its origin.
#[derive(Clone, Debug, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoteView {
    pub settings: RemoteSettings,
    /// `https://name:port` while the listener runs here; null when it is off.
    #[schema(required = true)]
    pub running: Option<String>,
    /// The certificate's pin (SHA-256 of its public key, base64) while it runs.
    #[schema(required = true)]
    pub pin: Option<String>,
}

/// What the remote listener is: the name browsers reach it by and the certificate they pin.
#[derive(Clone, Debug)]
pub struct RemoteConfig {
    /// The host name in its URL (a DNS name for passkeys: browsers refuse WebAuthn on an IP address).
    pub public_name: String,
    pub port: u16,
    /// SHA-256 of the certificate's public key (SubjectPublicKeyInfo), base64: what a phone pins.
    pub pin: String,
}

impl RemoteConfig {
    /// `name:port` as a browser's `Host` header says it (no port for 443).
    pub fn host(&self) -> String {
        if self.port == 443 {
            self.public_name.clone()
        } else if self.public_name.contains(':') {
            format!("[{}]:{}", self.public_name, self.port)
        } else {
            format!("{}:{}", self.public_name, self.port)
        }
    }

    /// `https://name:port`: the origin of the remote listener.
    pub fn origin(&self) -> String {
        format!("https://{}", self.host())
    }
}

pub(crate) enum Ceremony {
    Register { pairing: crate::store::devices::Pairing, state: PasskeyRegistration },
    SignIn { state: DiscoverableAuthentication },
    StepUp { binding: step_up::Binding, state: PasskeyAuthentication },
}

/// The remote listener's state in this process: its WebAuthn relying party and the ceremonies in
/// flight.
pub struct Remote {
    pub config: RemoteConfig,
    webauthn: Webauthn,
    ceremonies: ceremonies::Ceremonies<Ceremony>,
    tries: tries::Tries,
    refusals: Mutex<(Instant, u32, u64)>,
}

impl Remote {
    /// The relying party for `config` (its id the public name, its origin the listener's).
    pub fn new(config: RemoteConfig) -> Result<Self, Error> {
        let origin = Url::parse(&config.origin()).map_err(|e| Error::InvalidRequest(format!("the remote listener's origin: {e}")))?;
        let webauthn = WebauthnBuilder::new(&config.public_name, &origin)
            .and_then(|b| b.rp_name("Approval Console").build())
            .map_err(|e| Error::InvalidRequest(format!("passkeys cannot work for {}: {e}", config.public_name)))?;
        Ok(Self {
            config,
            webauthn,
            ceremonies: ceremonies::Ceremonies::default(),
            tries: tries::Tries::default(),
            refusals: Mutex::new((Instant::now(), 0, 0)),
        })
    }

    pub(crate) fn webauthn(&self) -> &Webauthn {
        &self.webauthn
    }

    /// Keeps a ceremony for `owner` until its second request; its id ([`ceremonies`]: what a flood
    /// pushes out).
    pub(crate) fn keep(&self, owner: Owner, ceremony: Ceremony) -> String {
        self.ceremonies.keep(owner, ceremony)
    }

    /// Takes the ceremony `id` (once: a second take finds nothing), if it has not expired.
    pub(crate) fn take(&self, id: &str) -> Option<Ceremony> {
        self.ceremonies.take(id)
    }

    /// Whether `address` may try a pairing code now: `Err(seconds to wait)` once it sent too many
    /// wrong ones ([`tries`]).
    pub(crate) fn may_try(&self, address: &str) -> Result<(), u64> {
        self.tries.may_try(address)
    }

    /// Counts a wrong pairing code from `address`.
    pub(crate) fn tried(&self, address: &str) {
        self.tries.tried(address)
    }

    /// Whether a refusal goes to the audit log now, and how many were held back before it: at most
    /// [`REFUSALS_PER_MINUTE`] a minute, so a flood of bad requests cannot flood the log.
    fn refusal_slot(&self) -> Option<u64> {
        let mut r = self.refusals.lock().expect("refusals lock");
        if r.0.elapsed() >= Duration::from_secs(60) {
            *r = (Instant::now(), 0, r.2);
        }
        if r.1 >= REFUSALS_PER_MINUTE {
            r.2 += 1;
            return None;
        }
        r.1 += 1;
        Some(std::mem::take(&mut r.2))
    }
}

/// `sha256:` + hex of a secret (a code, a cookie): what the database keeps, as for stored tokens.
pub(crate) use crate::app::tokens::secret_hash;

impl super::App {
    /// Turns the remote listener's core on (`serve --listen`): its relying party; once per process.
    pub fn enable_remote(&self, config: RemoteConfig) -> Result<std::sync::Arc<Remote>, Error> {
        let remote = std::sync::Arc::new(Remote::new(config)?);
        self.remote.set(remote.clone()).map_err(|_| Error::InvalidRequest("the remote listener is on already".into()))?;
        // Paired devices decide from now on: the decision kernel checks their step-ups through it.
        self.console.set_step_ups(std::sync::Arc::new(step_up::DeviceStepUps { remote: remote.clone(), db: self.db.clone() }));
        Ok(remote)
    }

    /// The remote listener's settings (an admin), and whether it runs here.
    pub async fn remote_settings(&self, _by: &Cx<grade::Admin>) -> Result<RemoteView, Error> {
        let settings: RemoteSettings = crate::store::settings::load(&self.db).await?;
        let running = self.remote().map(|r| (r.config.origin(), r.config.pin.clone()));
        Ok(RemoteView { settings, running: running.as_ref().map(|r| r.0.clone()), pin: running.map(|r| r.1) })
    }

    /// Stores them (an admin; audited): applied at the console's next start.
    pub async fn save_remote_settings(&self, settings: RemoteSettings, by: &Cx<grade::Admin>) -> Result<RemoteView, Error> {
        crate::store::settings::save(&self.db, &settings, &by.audit_name()).await?;
        self.remote_settings(by).await
    }

    /// The stored settings, as a console reads them when it starts (no role: its own start).
    pub async fn remote_settings_at_start(&self) -> Result<RemoteSettings, Error> {
        crate::store::settings::load(&self.db).await
    }

    /// The remote listener's core, if it is on in this process.
    pub fn remote(&self) -> Option<&std::sync::Arc<Remote>> {
        self.remote.get()
    }

    /// Writes a refusal of the remote listener to the audit log (rate-limited; best effort: a
    /// refusal is answered whether or not its entry could be written).
    pub async fn audit_refusal(&self, refusal: RemoteRefusal<'_>) {
        let Some(remote) = self.remote() else { return };
        audit_refusal(remote, &self.db, refusal).await;
    }
}

/// [`super::App::audit_refusal`] with the listener's core and the database.
pub(crate) async fn audit_refusal(remote: &Remote, db: &crate::store::Db, mut refusal: RemoteRefusal<'_>) {
    {
        let Some(held) = remote.refusal_slot() else {
            tracing::warn!(
                reason = refusal.reason,
                address = refusal.address,
                "remote listener: refused (not audited: too many this minute)"
            );
            return;
        };
        refusal.suppressed = held;
        if let Err(e) = crate::store::devices::refused(db, "remote-listener", &refusal).await {
            tracing::warn!("could not audit a refusal of the remote listener: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ceremonies::IN_ALL;
    use super::*;

    fn remote() -> Remote {
        Remote::new(RemoteConfig { public_name: "console.example.com".into(), port: 8443, pin: "p".into() }).unwrap()
    }

    #[test]
    fn a_flood_of_ceremonies_keeps_the_newest_within_the_cap() {
        let remote = remote();
        let mut first = None;
        for i in 0..IN_ALL + 10 {
            let (_, state) = remote.webauthn().start_passkey_registration(uuid::Uuid::now_v7(), "d", "d", None).unwrap();
            let pairing = crate::store::devices::Pairing { id: i.to_string(), name: "d".into(), person: "p".into() };
            // Each from an address of its own: the cap in all is what is reached.
            let id = remote.keep(Owner::peer(&format!("10.0.{}.{}", i / 256, i % 256)), Ceremony::Register { pairing, state });
            first.get_or_insert(id);
        }
        assert_eq!(remote.ceremonies.len(), IN_ALL);
        assert!(remote.take(first.as_deref().unwrap()).is_none(), "the oldest went first");
    }
}
