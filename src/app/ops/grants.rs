//! "Always allow" grants. Revoking only takes automation away: any operator who sees a bad grant may
//! stop it (the catalog's roles).

use crate::console::grants::{CreatedGrant, Grant, GrantPreview, NewGrant};
use crate::console::shadow::ShadowReport;

crate::declare_operations! {
    Grants(Nothing, none) -> [Grant], 200 "Every grant, newest first (revoked and expired ones too), each with the rules its approvals wrote back to coding agents (`written`: agent, scope, rule, where)";
        errors []
        |app, _, _, by| { Ok(app.grants(by).await?.into()) }

    CreateGrant(Nothing, body NewGrant, window "grant") -> CreatedGrant, 201 "Made; it applies at once, also to the calls already waiting unless `applyToWaiting` is false: `approvesWaiting` says how many";
        errors [400 "invalid_request: lifetime, conditions, a suspend call; grant_too_broad: a condition that matches nearly any text, or a shell-like tool's grant without one on its command", 404 "not_found", 409 "high_risk_tool or fingerprint_mismatch"]
        |app, _, g, by| { Ok(app.create_grant(&g, by).await?.into()) }

    /// How many waiting calls a grant would approve now; nothing is stored.
    PreviewGrant(Nothing, body NewGrant, window "grant") -> GrantPreview, 200 "What the grant would do if it were made now: how many waiting calls it would approve at once; nothing is stored";
        errors [400 "invalid_request or grant_too_broad, as for making it", 404 "not_found", 409 "high_risk_tool or fingerprint_mismatch"]
        |app, _, g, by| { Ok(app.preview_grant(&g, by).await?.into()) }

    ShadowReport(Nothing, none) -> ShadowReport, 200 "Each shadow grant: the calls it would have approved beside what operators did — agreements, the declined calls it would have let through, expiries, the waiting it would have saved";
        errors []
        |app, _, _, by| { Ok(app.shadow_report(by).await?.into()) }

    RevokeGrant(Id, none) -> Grant, 200 "Revoked; `removals` says, for each rule its approvals wrote back to a coding agent, whether the console removed it from its file (after a backup), or it stays in the agent's session, or the operator removes it by hand (where, and why)";
        errors [400 "already revoked", 404 "not_found"]
        |app, p, _, by| { Ok(app.revoke_grant(&p.id, by).await?.into()) }
}
