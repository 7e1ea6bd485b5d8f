//! Devices: pairing (an admin's code, then the phone's passkey), sign-in, sessions, and the admins'
//! list, rename and revoke. See the module above for the whole picture.

use super::{secret_hash, Ceremony, Owner, Remote, PAIRING_TTL, SESSION_TTL};
use crate::app::App;
use crate::domain::audit::RemoteRefusal;
use crate::domain::principal::valid_credential_name;
use crate::domain::{grade, Cx};
use crate::domain::{Error, Principal};
use crate::store::devices::{self, Claim, Device, Keyed, NewDevice, NewPairing, NewSession};
use serde::{Deserialize, Serialize};
use webauthn_rs::prelude::{
    CreationChallengeResponse, Passkey, PublicKeyCredential, RegisterPublicKeyCredential, RequestChallengeResponse,
};
use webauthn_rs_proto::ResidentKeyRequirement;

/// The alphabet of pairing codes: no 0/O, 1/I/L, U (Crockford's base 32 without its look-alikes).
const CODE_ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTVWXYZ";
/// Characters of a code (about 49 bits), shown as two groups of five.
const CODE_LEN: usize = 10;
/// The file in the data directory where `serve --listen` says where it listens (no secret): the
/// CLI's `devices pair` reads it to print the URL and the pin.
pub const LISTENING_FILE: &str = "remote-listener.json";

/// A pairing just started: the code is shown only now (the console keeps its hash).
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PairingStarted {
    /// Whose operator credential the device will be, and its name.
    pub name: String,
    pub person: String,
    /// `ABCDE-FGHJK`: single use; typed on the phone or carried by the link.
    pub code: String,
    /// The page to open on the phone, the code in its fragment (never sent to a server's log).
    pub url: String,
    /// SHA-256 of the certificate's public key, base64: what the phone pins.
    pub pin: String,
    /// `url` as a QR code (SVG).
    pub qr_svg: String,
    pub expires_at: chrono::DateTime<chrono::Utc>,
}

/// A pairing to start (`POST /api/devices/pairings`).
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PairingRequest {
    /// The device's name (a credential name; default: `<person>-phone-N`).
    #[serde(default)]
    pub name: Option<String>,
    /// Whose it is (default: the person of who pairs it: an admin token's `person`, the local
    /// admin's OS account).
    #[serde(default)]
    pub person: Option<String>,
}

/// Where the remote listener is, as `serve --listen` wrote it for the CLI.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Listening {
    pub origin: String,
    pub pin: String,
}

/// A signed-in session: the cookie's value (the HTTP layer sets it) and whose it is.
pub struct Session {
    pub cookie: String,
    pub device: String,
}

fn new_code() -> String {
    use rand::Rng;
    let mut rng = rand::rngs::OsRng;
    (0..CODE_LEN).map(|_| CODE_ALPHABET[rng.gen_range(0..CODE_ALPHABET.len())] as char).collect()
}

/// A code as typed: upper case, without separators or spaces.
fn normalize_code(typed: &str) -> String {
    typed.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_uppercase()).collect()
}

fn shown(code: &str) -> String {
    format!("{}-{}", &code[..CODE_LEN / 2], &code[CODE_LEN / 2..])
}

fn qr_svg(url: &str) -> Result<String, Error> {
    let code = qrcode::QrCode::new(url.as_bytes()).map_err(|e| Error::Storage(format!("cannot make a QR code: {e}")))?;
    Ok(code.render::<qrcode::render::svg::Color>().min_dimensions(240, 240).build())
}

/// The pairing URL's QR code for a terminal (two rows of modules per line).
pub fn qr_text(url: &str) -> Result<String, Error> {
    let code = qrcode::QrCode::new(url.as_bytes()).map_err(|e| Error::Storage(format!("cannot make a QR code: {e}")))?;
    Ok(code.render::<qrcode::render::unicode::Dense1x2>().quiet_zone(true).build())
}

fn passkey_of(d: &Keyed) -> Result<Passkey, Error> {
    serde_json::from_str(&d.passkey).map_err(|e| Error::Storage(format!("bad passkey of device {}: {e}", d.name)))
}

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("a passkey serializes")
}

impl App {
    fn listening(&self) -> Result<Listening, Error> {
        if let Some(r) = self.remote() {
            return Ok(Listening { origin: r.config.origin(), pin: r.config.pin.clone() });
        }
        let file = self.db.data_dir().join(LISTENING_FILE);
        let text = std::fs::read_to_string(&file).map_err(|_| {
            Error::InvalidRequest(
                "the remote listener is off: start it with `approval-console serve --listen ADDR:PORT --public-name NAME`, then pair"
                    .into(),
            )
        })?;
        serde_json::from_str(&text).map_err(|e| Error::Storage(format!("bad {}: {e}", file.display())))
    }

    fn remote_or_off(&self) -> Result<&Remote, Error> {
        self.remote().map(|r| r.as_ref()).ok_or_else(|| Error::not_found("the remote listener"))
    }

    /// Starts pairing a device (an admin): a code for the phone, single use, [`PAIRING_TTL`] to live.
    pub async fn start_pairing(&self, request: PairingRequest, by: &Cx<grade::Admin>) -> Result<PairingStarted, Error> {
        let listening = self.listening()?;
        // By default the device is the PERSON of whoever pairs it — a token's `person`, the local
        // admin's OS account — never a token's name: the two-person rule counts persons, and a
        // device named after its admin token would let one human approve twice. A person given
        // explicitly is the admin's choice (admins name devices for others, as they do tokens).
        let person = match request.person {
            Some(p) => p,
            None => crate::store::credentials::person_of_key(&self.db, &by.principal.key()).await?,
        };
        if !valid_credential_name(&person) {
            return Err(Error::InvalidRequest(format!("{person:?} is not a person's name (letters, digits, '.', '_', '-')")));
        }
        let name = match request.name {
            Some(n) => n.trim().to_owned(),
            None => {
                let taken: Vec<String> = devices::list(&self.db).await?.into_iter().map(|d| d.name).collect();
                (1..).map(|n| format!("{person}-phone-{n}")).find(|n| !taken.contains(n)).expect("an unused name")
            }
        };
        if !valid_credential_name(&name) {
            return Err(Error::InvalidRequest(format!("{name:?} is not a device name: 1–64 letters, digits, '.', '_' or '-'")));
        }
        if devices::name_taken(&self.db, &name).await? {
            return Err(Error::InvalidRequest(format!("a device is named {name:?} already: rename or revoke it, or choose another name")));
        }
        let code = new_code();
        let (at, id) = (crate::store::now(), uuid::Uuid::now_v7().to_string());
        let expires_at = at + PAIRING_TTL;
        let pairing =
            NewPairing { id: &id, code_hash: &secret_hash(&code), name: &name, person: &person, by: &by.audit_name(), at, expires_at };
        devices::start_pairing(&self.db, &pairing).await?;
        // The pin rides along for the phone's page to show beside the console's (base64: `+/=` escaped).
        let pin = listening.pin.replace('+', "%2B").replace('/', "%2F").replace('=', "%3D");
        let url = format!("{}/#pair={}&pin={pin}", listening.origin, shown(&code));
        Ok(PairingStarted { name, person, code: shown(&code), qr_svg: qr_svg(&url)?, url, pin: listening.pin, expires_at })
    }

    /// The live devices (an admin).
    pub async fn devices(&self, _by: &Cx<grade::Admin>) -> Result<Vec<Device>, Error> {
        devices::list(&self.db).await
    }

    /// Renames the live device `name` (an admin).
    pub async fn rename_device(&self, name: &str, new: &str, by: &Cx<grade::Admin>) -> Result<Device, Error> {
        let new = new.trim();
        if !valid_credential_name(new) {
            return Err(Error::InvalidRequest(format!("{new:?} is not a device name: 1–64 letters, digits, '.', '_' or '-'")));
        }
        if !devices::rename(&self.db, name, new, &by.audit_name()).await? {
            return Err(Error::not_found(format!("device {name}")));
        }
        devices::list(&self.db).await?.into_iter().find(|d| d.name == new).ok_or_else(|| Error::not_found(format!("device {new}")))
    }

    /// Revokes the live device `name` (an admin): its sessions end in the same transaction, so its
    /// next request is refused.
    pub async fn revoke_device(&self, name: &str, by: &Cx<grade::Admin>) -> Result<u64, Error> {
        devices::revoke(&self.db, name, &by.audit_name(), crate::store::now())
            .await?
            .ok_or_else(|| Error::not_found(format!("device {name}")))
    }

    /// The phone proves its pairing code (`address`: where it connects from): the pairing is used up
    /// now, and the passkey registration it may then finish is offered. A wrong code counts against
    /// its address (five per ten minutes, then that address waits) and against every live pairing
    /// (one that has seen [`super::PAIRING_WRONG_TRIES`] ends): never against pairing for everyone.
    pub async fn pair_begin(&self, code: &str, address: &str) -> Result<(String, CreationChallengeResponse), Error> {
        let remote = self.remote_or_off()?;
        if let Err(wait) = remote.may_try(address) {
            self.audit_refusal(RemoteRefusal {
                pairing: true,
                reason: "too many tries",
                address,
                device: None,
                item_id: None,
                suppressed: 0,
            })
            .await;
            return Err(Error::InvalidRequest(format!("too many wrong pairing codes from this address: try again in {wait} s")));
        }
        let code_hash = secret_hash(&normalize_code(code));
        let pairing = match devices::claim_pairing(&self.db, &code_hash, crate::store::now(), super::PAIRING_WRONG_TRIES).await? {
            Claim::Claimed(pairing) => pairing,
            Claim::Wrong { ended } => {
                remote.tried(address);
                for p in &ended {
                    tracing::warn!(pairing = %p.name, "remote listener: a pairing ended, too many wrong codes were tried while it was live");
                }
                let refusal = RemoteRefusal {
                    pairing: true,
                    reason: "wrong, used or expired code",
                    address,
                    device: None,
                    item_id: None,
                    suppressed: 0,
                };
                self.audit_refusal(refusal).await;
                return Err(Error::InvalidRequest(
                    "this pairing code is wrong, used or expired: start a new pairing on the console".into(),
                ));
            }
        };
        let user = uuid::Uuid::now_v7();
        let (mut options, state) = remote
            .webauthn()
            .start_passkey_registration(user, &pairing.name, &format!("{} ({})", pairing.name, pairing.person), None)
            .map_err(|e| Error::Storage(format!("cannot start a passkey registration: {e}")))?;
        // A discoverable credential (a resident key): the phone signs in later without the console
        // naming any credential to an unauthenticated caller ([`App::sign_in_begin`]).
        if let Some(selection) = options.public_key.authenticator_selection.as_mut() {
            selection.resident_key = Some(ResidentKeyRequirement::Required);
            selection.require_resident_key = true;
        }
        Ok((remote.keep(Owner::peer(address), Ceremony::Register { pairing, state }), options))
    }

    /// The phone's passkey, registered: the device is stored, signed in (its session's cookie).
    pub async fn pair_finish(&self, ceremony: &str, credential: &RegisterPublicKeyCredential, address: &str) -> Result<Session, Error> {
        let remote = self.remote_or_off()?;
        let Some(Ceremony::Register { pairing, state }) = remote.take(ceremony) else {
            return Err(Error::InvalidRequest("this pairing is over (used or expired): start a new pairing on the console".into()));
        };
        let passkey = match remote.webauthn().finish_passkey_registration(credential, &state) {
            Ok(p) => p,
            Err(e) => {
                let refusal =
                    RemoteRefusal { pairing: true, reason: "passkey did not verify", address, device: None, item_id: None, suppressed: 0 };
                self.audit_refusal(refusal).await;
                return Err(Error::InvalidRequest(format!("the passkey could not be registered: {e}")));
            }
        };
        let cookie = crate::secrets::random_token();
        let at = crate::store::now();
        let session = NewSession { secret_hash: &secret_hash(&cookie), at, expires_at: at + SESSION_TTL, address };
        let id = uuid::Uuid::now_v7().to_string();
        let credential_id = base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, passkey.cred_id().as_slice());
        let device =
            NewDevice { id: &id, pairing: &pairing, credential_id: &credential_id, passkey: &to_json(&passkey), by: &pairing.person };
        if !devices::pair(&self.db, &device, &session).await? {
            return Err(Error::InvalidRequest(format!("a device named {:?} was paired meanwhile: start a new pairing", pairing.name)));
        }
        Ok(Session { cookie, device: pairing.name })
    }

    /// A sign-in with a paired device's passkey (`address`: where it connects from): the options for
    /// the browser. They name no device and no credential (the passkey is discoverable: the phone
    /// knows its own), so an unauthenticated caller learns nothing of what is paired.
    pub async fn sign_in_begin(&self, address: &str) -> Result<(String, RequestChallengeResponse), Error> {
        let remote = self.remote_or_off()?;
        let (mut options, state) =
            remote.webauthn().start_discoverable_authentication().map_err(|e| Error::Storage(format!("cannot start a sign-in: {e}")))?;
        // Asked for by a button, in a modal prompt: not conditional (autofill) mediation.
        options.mediation = None;
        Ok((remote.keep(Owner::peer(address), Ceremony::SignIn { state }), options))
    }

    /// The browser's assertion for a sign-in: a new session of the device whose passkey it is (found
    /// by the credential the browser chose).
    pub async fn sign_in_finish(&self, ceremony: &str, credential: &PublicKeyCredential, address: &str) -> Result<Session, Error> {
        let remote = self.remote_or_off()?;
        let refuse = |reason: &'static str| RemoteRefusal { pairing: false, reason, address, device: None, item_id: None, suppressed: 0 };
        let Some(Ceremony::SignIn { state }) = remote.take(ceremony) else {
            self.audit_refusal(refuse("sign-in: unknown or expired ceremony")).await;
            return Err(Error::InvalidRequest("this sign-in is over (used or expired): sign in again".into()));
        };
        let credential_id = base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, credential.raw_id.as_slice());
        // A device whose stored passkey cannot be read signs in no more; the others still do.
        let found = devices::keyed_by_credential(&self.db, &credential_id).await?;
        let Some((device, mut passkey)) =
            found.and_then(|d| passkey_of(&d).map_err(|e| tracing::warn!("sign-in: {e}")).ok().map(|p| (d, p)))
        else {
            self.audit_refusal(refuse("sign-in: the passkey is of no paired device (revoked?)")).await;
            return Err(Error::InvalidRequest("this passkey is of no paired device (it was revoked?): pair this phone again".into()));
        };
        let result = match remote.webauthn().finish_discoverable_authentication_v2(credential, state, &passkey) {
            Ok(r) => r,
            Err(e) => {
                self.audit_refusal(refuse("sign-in: passkey did not verify")).await;
                return Err(Error::InvalidRequest(format!("the passkey did not verify: {e}")));
            }
        };
        passkey.update_credential(&result);
        let cookie = crate::secrets::random_token();
        let at = crate::store::now();
        let session = NewSession { secret_hash: &secret_hash(&cookie), at, expires_at: at + SESSION_TTL, address };
        if !devices::sign_in(&self.db, &device, &to_json(&passkey), &session).await? {
            return Err(Error::InvalidRequest("this device was revoked: pair it again".into()));
        }
        Ok(Session { cookie, device: device.name.clone() })
    }

    /// The device of a session cookie, as a principal; `None` for an unknown, expired or revoked one.
    pub async fn device_session(&self, cookie: &str) -> Result<Option<Principal>, Error> {
        if cookie.is_empty() {
            return Ok(None);
        }
        Ok(devices::session(&self.db, &secret_hash(cookie), crate::store::now()).await?.map(|d| Principal::device(&d.name)))
    }

    /// Ends the session of `cookie` (sign-out).
    pub async fn sign_out(&self, cookie: &str) -> Result<(), Error> {
        devices::end_session(&self.db, &secret_hash(cookie)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_read_back_as_typed_on_a_phone() {
        let code = new_code();
        assert_eq!(code.len(), CODE_LEN);
        assert!(code.bytes().all(|b| CODE_ALPHABET.contains(&b)));
        assert_eq!(normalize_code(&shown(&code).to_lowercase()), code);
        assert_eq!(normalize_code(" abcde - fghjk "), "ABCDEFGHJK");
        assert_ne!(new_code(), new_code());
    }
}
