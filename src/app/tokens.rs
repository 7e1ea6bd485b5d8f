//! Credentials with roles (see [`crate::domain::principal`]): made, listed, revoked, and checked on
//! every request that does not carry the session token.
//!
//! A token is `ac_` + 64 hex digits (32 random bytes). The database keeps only its SHA-256, so a
//! copy of the database gives no usable token; a token that is lost is revoked and made anew. Tokens
//! are looked up by their hash: nothing is compared byte by byte with a stored secret.

use super::App;
use crate::domain::principal::valid_credential_name;
use crate::domain::{grade, Cx};
use crate::domain::{Error, Principal, Role};
pub use crate::store::credentials::Claims;
use crate::store::{credentials, credentials::Credential};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// What every stored token starts with (the session token of `serve` is plain hex, or chosen).
pub const TOKEN_PREFIX: &str = "ac_";

/// How stale `last used` may get before a use writes it again.
const TOUCH_EVERY: chrono::Duration = chrono::Duration::seconds(60);

/// A token made by [`App::add_token`]: shown once, never stored.
pub struct NewToken {
    pub credential: Credential,
    pub secret: String,
}

/// A credential to make (`POST /api/tokens`, the Settings' "Make a token"): its name and role, and
/// what its submitted calls may claim ([`Claims`]).
#[derive(Clone, Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TokenRequest {
    /// 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit; no live credential has it.
    pub name: String,
    pub role: Role,
    /// Whose it is, for the two-person rule (default: its own name).
    #[serde(default)]
    pub person: Option<String>,
    /// The agent names its submitted calls may claim (default: only its own name).
    #[serde(default)]
    pub agents: Option<Vec<String>>,
    /// The sources its submitted calls may claim (default: any).
    #[serde(default)]
    pub sources: Option<Vec<String>>,
}

/// A credential just made, with its token: the only time the token is shown (the console keeps its
/// hash alone). No `Debug`: nothing prints it by accident.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MadeToken {
    pub credential: Credential,
    /// The bearer token (`ac_` + 64 hex digits): shown only now.
    pub token: String,
}

/// A credential just revoked.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevokedToken {
    pub name: String,
    pub role: Role,
}

/// `claims` as stored: each agent name 1–200 printable characters, each source one of the
/// submitted sources, a person a credential name; no list empty, none twice.
fn checked_claims(claims: Claims) -> Result<Claims, Error> {
    let list = |what: &str, l: Option<Vec<String>>, ok: &dyn Fn(&str) -> bool| -> Result<Option<Vec<String>>, Error> {
        let Some(l) = l else { return Ok(None) };
        let mut out: Vec<String> = Vec::with_capacity(l.len());
        for v in l {
            let v = v.trim().to_owned();
            if !ok(&v) {
                return Err(Error::InvalidRequest(format!("{v:?} is not a {what}")));
            }
            if !out.contains(&v) {
                out.push(v);
            }
        }
        if out.is_empty() {
            return Err(Error::InvalidRequest(format!("an empty list of {what}s: leave it out instead")));
        }
        Ok(Some(out))
    };
    let agent_name = |v: &str| (1..=200).contains(&v.chars().count()) && !v.chars().any(char::is_control);
    let source = |v: &str| crate::engine::kinds::parse_submitted(v).is_some();
    if let Some(p) = &claims.person {
        if !valid_credential_name(p) {
            return Err(Error::InvalidRequest(format!(
                "{p:?} is not a person's name: 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit"
            )));
        }
    }
    Ok(Claims {
        person: claims.person,
        agents: list("agent name", claims.agents, &agent_name)?,
        sources: list(&format!("source ({})", crate::engine::kinds::names(crate::engine::kinds::submitted())), claims.sources, &source)?,
    })
}

pub(crate) fn secret_hash(secret: &str) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(secret.as_bytes())))
}

impl App {
    /// Makes a credential `name` with `role` (admin only). Audited `credential.created` (never the
    /// secret). Refused when a live credential has that name (`invalid_request`).
    pub async fn add_token(&self, name: &str, role: Role, by: &Cx<grade::Admin>) -> Result<NewToken, Error> {
        self.add_token_with(name, role, Claims::default(), by).await
    }

    /// [`App::add_token`] with what the credential may claim of the calls it submits (agent names,
    /// sources) and whose it is (`person`, for the two-person rule). Names and sources are checked
    /// here: each agent name 1–200 printable characters, each source one of the submitted sources.
    pub async fn add_token_with(&self, name: &str, role: Role, claims: Claims, by: &Cx<grade::Admin>) -> Result<NewToken, Error> {
        if !valid_credential_name(name) {
            return Err(Error::InvalidRequest(format!(
                "{name:?} is not a credential name: 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit"
            )));
        }
        let claims = checked_claims(claims)?;
        let secret = format!("{TOKEN_PREFIX}{}", crate::secrets::random_token());
        let at = crate::store::now();
        let id = uuid::Uuid::now_v7().to_string();
        if !credentials::create(
            &self.db,
            &credentials::NewCredential {
                id: &id,
                name,
                role,
                secret_hash: &secret_hash(&secret),
                claims: &claims,
                by: &by.audit_name(),
                at,
            },
        )
        .await?
        {
            return Err(Error::InvalidRequest(format!("a credential named {name:?} exists: revoke it first, or choose another name")));
        }
        let credential = Credential {
            name: name.to_owned(),
            role,
            created_at: at,
            created_by: by.audit_name(),
            last_used_at: None,
            person: claims.person.clone().unwrap_or_else(|| name.to_owned()),
            agents: claims.agents,
            sources: claims.sources,
        };
        Ok(NewToken { credential, secret })
    }

    /// [`App::add_token_with`] from a request (`POST /api/tokens`, the window's `add_token`).
    pub async fn make_token(&self, r: TokenRequest, by: &Cx<grade::Admin>) -> Result<MadeToken, Error> {
        let claims = Claims { person: r.person, agents: r.agents, sources: r.sources };
        let made = self.add_token_with(&r.name, r.role, claims, by).await?;
        Ok(MadeToken { credential: made.credential, token: made.secret })
    }

    /// The live credentials, by name (admin only).
    pub async fn tokens(&self, _by: &Cx<grade::Admin>) -> Result<Vec<Credential>, Error> {
        credentials::list_live(&self.db).await
    }

    /// Revokes a credential (admin only): its token stops working at once, in every process.
    /// Audited `credential.revoked`.
    pub async fn revoke_token(&self, name: &str, by: &Cx<grade::Admin>) -> Result<Role, Error> {
        credentials::revoke_audited(&self.db, name, &by.audit_name(), crate::store::now())
            .await?
            .ok_or_else(|| Error::not_found(format!("credential {name:?}")))
    }

    /// Checks a session token (`serve --token`, `--token-file`, `APPROVAL_CONSOLE_TOKEN`, the
    /// desktop app's `--token`) before it is served: it makes its holder the local admin, so it may
    /// not be a credential — one stored here (of any role, revoked ones too), or anything of a
    /// credential's form (`ac_…`): an agent's credential must never open an admin console — and it
    /// must carry at least 128 bits (`secrets::check_session_token_strength`: `openssl rand -hex 32`).
    pub async fn check_session_token(&self, token: &str) -> Result<(), Error> {
        let found = credentials::find_ever_by_hash(&self.db, &secret_hash(token)).await?;
        let why = match found {
            Some((name, role, revoked)) => {
                format!("it is the token of the {}credential {name:?} (role {role})", if revoked { "revoked " } else { "" })
            }
            None if token.starts_with(TOKEN_PREFIX) => format!("it has the form of a stored credential ({TOKEN_PREFIX}…)"),
            None => return crate::secrets::check_session_token_strength(token),
        };
        Err(Error::InvalidRequest(format!(
            "the session token makes its holder the local admin, and {why}: choose another (or none, for a random one). \
             Connectors read their agent credential from APPROVAL_CONSOLE_AGENT_TOKEN, never from APPROVAL_CONSOLE_TOKEN"
        )))
    }

    /// Whether a stored token still authenticates (is not revoked): what a long-lived request (an
    /// event stream) asks again and again, so that it ends when its credential is revoked. Writes
    /// nothing.
    pub async fn token_still_valid(&self, secret: &str) -> Result<bool, Error> {
        Ok(credentials::find_by_hash(&self.db, &secret_hash(secret)).await?.is_some())
    }

    /// The principal a stored token stands for, or `None` for a token that is unknown or revoked.
    /// Notes the use (at most once a minute per credential, after answering).
    pub async fn authenticate(&self, secret: &str) -> Result<Option<Principal>, Error> {
        if !secret.starts_with(TOKEN_PREFIX) {
            return Ok(None);
        }
        let found = credentials::find_by_hash(&self.db, &secret_hash(secret)).await?;
        let Some(c) = found else { return Ok(None) };
        let now = crate::store::now();
        if c.last_used_at.is_none_or(|t| now - t > TOUCH_EVERY) {
            let (db, name) = (self.db.clone(), c.name.clone());
            tokio::spawn(async move {
                if let Err(e) = credentials::note_use(&db, &name, now).await {
                    tracing::debug!(credential = %name, "could not note the credential's use: {e}");
                }
            });
        }
        Ok(Some(Principal::token(&c.name, c.role)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_of_the_whole_token() {
        assert_ne!(secret_hash("ac_1"), secret_hash("ac_2"));
        assert!(secret_hash("ac_1").starts_with("sha256:") && secret_hash("ac_1").len() == 71);
    }
}
