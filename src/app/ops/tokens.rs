//! Credentials: listed, made (the token shown once) and revoked, by an admin — from the Settings as
//! from the CLI (`approval-console tokens`).

use crate::app::tokens::{MadeToken, RevokedToken, TokenRequest};
use crate::store::credentials::Credential;

crate::declare_operations! {
    Tokens(Nothing, none) -> [Credential], 200 "The live credentials, by name (never their tokens: the console keeps only a hash)";
        errors []
        |app, _, _, by| { Ok(app.tokens(by).await?.into()) }

    AddToken(Nothing, body TokenRequest, window "token") -> MadeToken, 201 "Made; `token` is in this answer only and cannot be shown again";
        errors [400 "invalid_request: a name or claim not allowed, or a live credential of that name"]
        |app, _, t, by| { Ok(app.make_token(t, by).await?.into()) }

    RevokeToken(Name, none) -> RevokedToken, 200 "Revoked: its token stops working at once, in every process";
        errors [404 "not_found: no live credential of that name"]
        |app, p, _, by| {
            let role = app.revoke_token(&p.name, by).await?;
            Ok(RevokedToken { name: p.name, role }.into())
        }
}
