//! Which receipt keys a connector trusts ([`Trust`]): an approval runs a tool only on a receipt
//! signed by one of them.
//!
//! - **Pinned**: the key set in a file the user names — `APPROVAL_CONSOLE_JWKS=FILE` or the hook's
//!   and the gate's `--jwks FILE` (`curl http://127.0.0.1:4319/.well-known/jwks.json > FILE`,
//!   `chmod 600 FILE`). Owner-only like a secret file (`secrets::read_owner_only`): another user
//!   must not be able to put their key in it. Only those keys verify; the console's are never
//!   fetched.
//! - **Trusted on first use** otherwise: the console's key set as fetched the first time, kept in a
//!   file of the connector's own ([`first_use_file`]: `$XDG_STATE_HOME`, else `~/.local/state`,
//!   `/approval-console/connector/keys-<hash of the console's URL>.json`, owner-only in an
//!   owner-only directory). Later key sets are not fetched: a receipt signed by a key not in that
//!   file is refused, so a console (or whoever answers at its address) that swaps its key set later
//!   is not believed. A key rotated on purpose (`POST /api/receipts/keys/rotate`) is trusted again
//!   once that file is removed (the refusal says so).

use crate::domain::receipt::Jwks;
use std::path::{Path, PathBuf};

/// The variable naming a pinned key set's file.
pub const JWKS_VAR: &str = "APPROVAL_CONSOLE_JWKS";

/// Which receipt keys verify.
#[derive(Clone, Debug)]
pub enum Trust {
    /// Only these, read from `file`.
    Pinned { keys: Jwks, file: PathBuf },
    /// The console's, as first fetched, kept in `file`.
    FirstUse { file: PathBuf },
}

impl Trust {
    /// The key set pinned in `file` (owner-only, a JWKS); an error naming the file when it cannot
    /// be used.
    pub fn pinned(file: &Path) -> Result<Self, String> {
        let shown = file.display();
        let text = crate::secrets::read_owner_only(file).map_err(|e| format!("the pinned receipt keys ({JWKS_VAR}, --jwks): {e}"))?;
        let keys: Jwks = serde_json::from_str(&text).map_err(|e| format!("the pinned receipt keys in {shown} are not a JWKS: {e}"))?;
        if keys.keys.is_empty() {
            return Err(format!("the pinned receipt keys in {shown} hold no key: every approval would be refused"));
        }
        Ok(Self::Pinned { keys, file: file.to_owned() })
    }

    /// For the console at `url`: the keys pinned in `pinned` when given, else the console's trusted
    /// on first use in [`first_use_file`].
    pub fn for_console(url: &str, pinned: Option<&Path>) -> Result<Self, String> {
        match pinned {
            Some(file) => Self::pinned(file),
            None => first_use_file(url).map(|file| Self::FirstUse { file }).ok_or_else(|| {
                format!(
                    "no place to keep the console's receipt keys (neither XDG_STATE_HOME nor HOME is set): pin them with {JWKS_VAR}=FILE"
                )
            }),
        }
    }

    /// The keys trusted before, if any: the pinned ones, or those kept at first use (`None`: none
    /// kept yet). A kept file that cannot be used is an error (refused, never replaced).
    pub fn kept(&self) -> Result<Option<Jwks>, String> {
        let file = match self {
            Trust::Pinned { keys, .. } => return Ok(Some(keys.clone())),
            Trust::FirstUse { file } => file,
        };
        let text = match crate::secrets::read_owner_only(file) {
            Ok(text) => text,
            Err(crate::secrets::SecretError::FileNotFound { .. }) => return Ok(None),
            Err(e) => return Err(format!("the receipt keys trusted on first use: {e}")),
        };
        serde_json::from_str(&text).map(Some).map_err(|e| {
            format!(
                "the receipt keys trusted on first use in {} are not a JWKS ({e}): remove the file to trust the console's again",
                file.display()
            )
        })
    }

    /// Keeps `keys`, fetched from the console for the first time (first use only).
    pub fn keep(&self, keys: &Jwks) -> Result<(), String> {
        let Trust::FirstUse { file } = self else { return Ok(()) };
        if let Some(dir) = file.parent() {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| format!("cannot make {} for the console's receipt keys: {e}", dir.display()))?;
        }
        let text = serde_json::to_string(keys).expect("a key set serializes");
        crate::secrets::write_owner_only(file, &text).map_err(|e| e.to_string())
    }

    /// Why a receipt signed by `kid` is refused: not a trusted key.
    pub fn untrusted(&self, kid: &str) -> String {
        match self {
            Trust::Pinned { file, .. } => {
                format!("its key {kid} is not among the receipt keys pinned in {} ({JWKS_VAR}, --jwks)", file.display())
            }
            Trust::FirstUse { file } => format!(
                "its key {kid} is not among the console's receipt keys this connector trusted on first use, kept in {0}: \
                 the console's key set changed since. If its key was rotated on purpose, remove {0} to trust the keys it \
                 publishes now (or pin them: {JWKS_VAR}=FILE)",
                file.display()
            ),
        }
    }
}

/// Where the keys of the console at `url` are kept when trusted on first use:
/// `$XDG_STATE_HOME/approval-console/connector/keys-<16 hex digits of sha256(url)>.json`, else the
/// same under `~/.local/state`.
pub fn first_use_file(url: &str) -> Option<PathBuf> {
    use sha2::Digest;
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = var("XDG_STATE_HOME").or_else(|| var("HOME").map(|h| h.join(".local/state")))?;
    let hash = hex::encode(sha2::Sha256::digest(url.trim_end_matches('/').as_bytes()));
    Some(base.join("approval-console").join("connector").join(format!("keys-{}.json", &hash[..16])))
}
