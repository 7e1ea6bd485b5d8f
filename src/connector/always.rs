//! Whether an approval also says "always allow", for the connectors that write the agent's own rule.

use crate::app::calls::{CallStatus, Outcome};
use crate::domain::receipt;

/// Whether an approval came with "always allow": its signed receipt — the one [`super::ConsoleClient::ask`]
/// checked before answering it — names a grant as its approver ([`receipt::grant_of`]). A connector
/// answers such an approval with the agent's own session rule as well
/// ([`crate::domain::session_rule`]) or its "allow always" option (ACP).
pub fn always_allowed(status: &CallStatus) -> bool {
    always_allowed_in(status).is_some()
}

/// [`always_allowed`], with the scope the agent keeps the rule in: the receipt's `ruleScope` claim
/// ([`receipt::grant_terms`]) — signed, so the scope the operator confirmed for the grant, never one
/// an unsigned field or the agent's input says.
pub fn always_allowed_in(status: &CallStatus) -> Option<crate::domain::session_rule::RuleScope> {
    if status.outcome != Outcome::Approved || status.edited {
        return None;
    }
    status.receipt.as_deref().and_then(receipt::grant_terms).map(|(_, scope)| scope)
}
