//! Who the caller is, the audit log and the team's figures.

use crate::app::audit::{AuditPage, DecisionHistory, HistoryQuery};
use crate::app::query::AuditQuery;
use crate::app::stats::{StatsQuery, TeamStats};
use crate::domain::Principal;
use crate::store::audit::Verification;

crate::declare_operations! {
    /// Who the presented credential stands for: its name and role (the UI offers only what the role
    /// may do). The desktop window is the local admin, by name.
    Session(Nothing, none) -> Principal, 200 "The caller";
        errors []
        |_app, _, _, by| { Ok(by.principal.clone().into()) }

    AuditPage(Nothing, query AuditQuery, window "query") -> AuditPage, 200 "Newest first";
        errors []
        |app, _, q, by| { Ok(app.audit_page(&q, by).await?.into()) }

    VerifyAudit(Nothing, none) -> Verification, 200 "The result of walking the whole chain";
        errors []
        |app, _, _, by| { Ok(app.verify_audit(by).await?.into()) }

    DecisionHistory(Nothing, query HistoryQuery, window "query") -> DecisionHistory, 200 "Decisions from the audit log, newest first, each with its newest delivery entry";
        errors []
        |app, _, q, by| { Ok(app.decision_history(&q, by).await?.into()) }

    /// The team's figures over the last `days` days: decisions by outcome, time to decision per tool
    /// and per operator, pending calls hour by hour.
    Stats(Nothing, query StatsQuery) -> TeamStats, 200 "The period's figures";
        errors [400 "invalid_request: days is not a whole number from 1 to 90"]
        |app, _, q, by| { Ok(app.stats(q.days()?, by).await?.into()) }
}
