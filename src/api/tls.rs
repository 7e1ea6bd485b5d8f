//! The remote listener's TLS (rustls on ring): a certificate given (`--tls-cert`, `--tls-key`), or
//! one made on first use by rcgen and kept owner-only in `<data dir>/tls/` for the public name, the
//! listening address and `localhost`. Made again when the public name or address is not among its
//! names. The pin a phone keeps is the SHA-256 of the certificate's public key (base64).

use crate::domain::Error;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use sha2::{Digest, Sha256};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_rustls::rustls::ServerConfig;

/// Where the certificate comes from.
pub enum Source {
    /// Files the operator gave (PEM): the chain and its key.
    Given { cert: PathBuf, key: PathBuf },
    /// Made on first use in this directory.
    Made { dir: PathBuf },
}

/// The listener's TLS configuration and its pin.
pub struct Tls {
    pub config: Arc<ServerConfig>,
    /// base64 of SHA-256 over the certificate's SubjectPublicKeyInfo.
    pub pin: String,
    /// Where the certificate is (for the operator's message).
    pub cert_file: PathBuf,
}

fn io(what: &str, path: &Path, e: impl std::fmt::Display) -> Error {
    Error::InvalidRequest(format!("cannot {what} {}: {e}", path.display()))
}

/// The configuration for `public_name` on `ip`.
pub fn load(source: &Source, public_name: &str, ip: IpAddr) -> Result<Tls, Error> {
    let (cert_file, key_file) = match source {
        Source::Given { cert, key } => (cert.clone(), key.clone()),
        Source::Made { dir } => {
            let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
            if !covers(&cert, public_name, ip) {
                make(dir, &cert, &key, public_name, ip)?;
            }
            (cert, key)
        }
    };
    crate::store::private::trusted_config(&key_file)?;
    let key_pem = std::fs::read_to_string(&key_file).map_err(|e| io("read", &key_file, e))?;
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&cert_file)
        .map_err(|e| io("read", &cert_file, e))?
        .collect::<Result<_, _>>()
        .map_err(|e| io("read", &cert_file, e))?;
    if chain.is_empty() {
        return Err(Error::InvalidRequest(format!("{} holds no certificate (PEM)", cert_file.display())));
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem.as_bytes()).map_err(|e| io("read the private key in", &key_file, e))?;
    let pair = rcgen::KeyPair::from_pem(&key_pem).map_err(|e| io("read the private key in", &key_file, e))?;
    let pin = base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        Sha256::digest(rcgen::PublicKeyData::subject_public_key_info(&pair)),
    );
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|b| b.with_no_client_auth().with_single_cert(chain, key))
        .map_err(|e| Error::InvalidRequest(format!("the certificate {} and its key do not work together: {e}", cert_file.display())))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Tls { config: Arc::new(config), pin, cert_file })
}

/// Whether the certificate made before names `public_name` and `ip` (its names are kept beside it).
fn covers(cert: &Path, public_name: &str, ip: IpAddr) -> bool {
    let names = std::fs::read_to_string(cert.with_extension("names")).unwrap_or_default();
    cert.is_file() && names.lines().any(|l| l == public_name) && names.lines().any(|l| l == ip.to_string())
}

fn make(dir: &Path, cert: &Path, key: &Path, public_name: &str, ip: IpAddr) -> Result<(), Error> {
    crate::store::private::data_dir(dir)?;
    let mut names = vec![public_name.to_owned(), ip.to_string(), "localhost".to_owned()];
    names.dedup();
    let pair =
        rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).map_err(|e| Error::Storage(format!("cannot make a key: {e}")))?;
    let mut params = rcgen::CertificateParams::new(names.clone()).map_err(|e| Error::InvalidRequest(format!("{public_name:?}: {e}")))?;
    params.distinguished_name.push(rcgen::DnType::CommonName, format!("Approval Console ({public_name})"));
    params.not_before = rcgen::date_time_ymd(2025, 1, 1);
    params.not_after = rcgen::date_time_ymd(2035, 1, 1);
    let made = params.self_signed(&pair).map_err(|e| Error::Storage(format!("cannot make a certificate: {e}")))?;
    crate::app::serving::write_owner_only(key, &pair.serialize_pem())?;
    crate::app::serving::write_owner_only(cert, &made.pem())?;
    crate::app::serving::write_owner_only(&cert.with_extension("names"), &(names.join("\n") + "\n"))?;
    tracing::info!(cert = %cert.display(), "made a certificate for the remote listener ({})", names.join(", "));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_made_certificate_is_owner_only_kept_and_made_again_for_a_new_name() {
        let dir = tempfile::tempdir().unwrap();
        let tls_dir = dir.path().join("tls");
        let ip: IpAddr = "127.0.0.2".parse().unwrap();
        let first = load(&Source::Made { dir: tls_dir.clone() }, "console.example.com", ip).unwrap();
        use std::os::unix::fs::PermissionsExt;
        for f in ["key.pem", "cert.pem"] {
            let mode = std::fs::metadata(tls_dir.join(f)).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{f}");
        }
        let again = load(&Source::Made { dir: tls_dir.clone() }, "console.example.com", ip).unwrap();
        assert_eq!(first.pin, again.pin, "kept: the phone's pin still holds");
        let renamed = load(&Source::Made { dir: tls_dir }, "other.example.com", ip).unwrap();
        assert_ne!(first.pin, renamed.pin, "a new name gets a new certificate");
    }
}
