//! A software passkey for the remote listener's API tests: what a phone's platform authenticator
//! does, made by hand — a P-256 key (ring), a registration with `none` attestation, assertions
//! signed over the authenticator data and the client data's hash (WebAuthn §6.1, §6.3.3), a
//! discoverable credential that answers with its user handle. The real browser's ceremonies are in
//! tests/e2e/remote.test.mjs (Chrome's virtual authenticator); this one lets a Rust test pair, sign
//! in and step up over the real TLS listener.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_ASN1_SIGNING};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

pub(crate) struct SoftPasskey {
    key: EcdsaKeyPair,
    id: Vec<u8>,
    user: Vec<u8>,
    rp_id: String,
    origin: String,
    counter: u32,
}

/// A CBOR item's head: major type `major`, argument `n` (RFC 8949 §3).
fn head(out: &mut Vec<u8>, major: u8, n: u64) {
    let m = major << 5;
    match n {
        0..=23 => out.push(m | n as u8),
        24..=0xff => out.extend([m | 24, n as u8]),
        0x100..=0xffff => {
            out.push(m | 25);
            out.extend((n as u16).to_be_bytes());
        }
        _ => {
            out.push(m | 26);
            out.extend((n as u32).to_be_bytes());
        }
    }
}

fn int(out: &mut Vec<u8>, v: i64) {
    if v >= 0 {
        head(out, 0, v as u64)
    } else {
        head(out, 1, (-1 - v) as u64)
    }
}

fn bytes(out: &mut Vec<u8>, b: &[u8]) {
    head(out, 2, b.len() as u64);
    out.extend(b);
}

fn text(out: &mut Vec<u8>, t: &str) {
    head(out, 3, t.len() as u64);
    out.extend(t.as_bytes());
}

fn b64u(b: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(b)
}

fn unb64u(s: &str) -> Vec<u8> {
    URL_SAFE_NO_PAD.decode(s.trim_end_matches('=')).expect("base64url")
}

impl SoftPasskey {
    /// Answers a registration's options (`options` as `POST /api/remote/pair` gives them, with
    /// `publicKey`) from a page of `origin`: the new passkey and the credential to send back.
    pub(crate) fn register(options: &Value, origin: &str) -> (Self, Value) {
        let o = &options["publicKey"];
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng).unwrap();
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &rng).unwrap();
        let id: Vec<u8> = (0..16).map(|_| rand::random::<u8>()).collect();
        let mut me = SoftPasskey {
            key,
            id,
            user: unb64u(o["user"]["id"].as_str().expect("a user id")),
            rp_id: o["rp"]["id"].as_str().expect("an rp id").to_owned(),
            origin: origin.to_owned(),
            counter: 0,
        };
        let client = me.client_data("webauthn.create", o["challenge"].as_str().unwrap());
        // The public key as COSE (EC2, ES256, P-256): the uncompressed point's x and y.
        let point = me.key.public_key().as_ref();
        let mut cose = Vec::new();
        head(&mut cose, 5, 5);
        int(&mut cose, 1);
        int(&mut cose, 2);
        int(&mut cose, 3);
        int(&mut cose, -7);
        int(&mut cose, -1);
        int(&mut cose, 1);
        int(&mut cose, -2);
        bytes(&mut cose, &point[1..33]);
        int(&mut cose, -3);
        bytes(&mut cose, &point[33..65]);
        // User present, verified, attested credential data included.
        let mut auth = me.auth_data(0x01 | 0x04 | 0x40);
        auth.extend([0u8; 16]); // AAGUID
        auth.extend((me.id.len() as u16).to_be_bytes());
        auth.extend(&me.id);
        auth.extend(cose);
        let mut attestation = Vec::new();
        head(&mut attestation, 5, 3);
        text(&mut attestation, "fmt");
        text(&mut attestation, "none");
        text(&mut attestation, "attStmt");
        head(&mut attestation, 5, 0);
        text(&mut attestation, "authData");
        bytes(&mut attestation, &auth);
        me.counter += 1;
        let credential = json!({
            "id": b64u(&me.id), "rawId": b64u(&me.id), "type": "public-key", "extensions": {},
            "response": { "attestationObject": b64u(&attestation), "clientDataJSON": b64u(&client), "transports": ["internal"] },
        });
        (me, credential)
    }

    /// The credential id, base64url (as the console stores it).
    pub(crate) fn credential_id(&self) -> String {
        b64u(&self.id)
    }

    /// Answers a sign-in's or a step-up's options (with `publicKey`): the assertion to send back.
    /// Refuses (panics) when they list credentials and this one is not among them, as a browser
    /// would find none.
    pub(crate) fn assert(&mut self, options: &Value) -> Value {
        let o = &options["publicKey"];
        if let Some(allowed) = o["allowCredentials"].as_array().filter(|a| !a.is_empty()) {
            assert!(allowed.iter().any(|c| c["id"].as_str().map(unb64u) == Some(self.id.clone())), "not an allowed credential: {o}");
        }
        let client = self.client_data("webauthn.get", o["challenge"].as_str().unwrap());
        let auth = self.auth_data(0x01 | 0x04);
        let mut signed = auth.clone();
        signed.extend(Sha256::digest(&client));
        let signature = self.key.sign(&SystemRandom::new(), &signed).unwrap();
        self.counter += 1;
        json!({
            "id": b64u(&self.id), "rawId": b64u(&self.id), "type": "public-key", "extensions": {},
            "response": {
                "authenticatorData": b64u(&auth), "clientDataJSON": b64u(&client),
                "signature": b64u(signature.as_ref()), "userHandle": b64u(&self.user),
            },
        })
    }

    fn client_data(&self, kind: &str, challenge: &str) -> Vec<u8> {
        serde_json::to_vec(&json!({ "type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": false })).unwrap()
    }

    /// rpIdHash, flags, sign counter.
    fn auth_data(&self, flags: u8) -> Vec<u8> {
        let mut a = Sha256::digest(self.rp_id.as_bytes()).to_vec();
        a.push(flags);
        a.extend(self.counter.to_be_bytes());
        a
    }
}
