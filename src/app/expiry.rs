//! Time limits and snoozes (see [`crate::console::expiry`]) on the app's one surface.

use super::queue::QueueItem;
use super::widening::Widening;
use super::App;
use crate::console::expiry::ExpirySettings;
use crate::domain::safety::{QuorumSettings, SafetySettings};
use crate::domain::{grade, Cx};
use crate::domain::{Error, ItemId};

impl App {
    pub async fn expiry_settings(&self, _by: &Cx<grade::Operator>) -> Result<ExpirySettings, Error> {
        ExpirySettings::load(&self.db).await
    }

    /// Admins only.
    pub async fn save_expiry_settings(&self, settings: &ExpirySettings, by: &Cx<grade::Admin>) -> Result<ExpirySettings, Error> {
        settings.save(&self.db, &by.audit_name()).await?;
        Ok(settings.clone())
    }

    /// The high-risk tools.
    pub async fn safety_settings(&self, _by: &Cx<grade::Operator>) -> Result<SafetySettings, Error> {
        crate::store::settings::safety(&self.db).await
    }

    /// Stores the high-risk tools, whether their approvals need a passkey, the receipts' lifetime;
    /// admins only. A widening only when confirmed ([`Widening`]), judged against what is stored in
    /// the transaction that stores it.
    pub async fn save_safety_settings(
        &self,
        settings: SafetySettings,
        widening: Widening,
        by: &Cx<grade::Admin>,
    ) -> Result<SafetySettings, Error> {
        crate::store::settings::save_judged(&self.db, &settings, &by.audit_name(), widening.of()).await?;
        Ok(settings)
    }

    /// The quorums of the two-person rule (a tool without one needs one approval).
    pub async fn quorum_settings(&self, _by: &Cx<grade::Operator>) -> Result<QuorumSettings, Error> {
        crate::store::settings::quorum(&self.db).await
    }

    /// Stores the quorums; admins only; a quorum lowered or removed only when confirmed
    /// ([`Widening`]). They apply at once, to calls already waiting too (their approvals so far
    /// count).
    pub async fn save_quorum_settings(
        &self,
        settings: QuorumSettings,
        widening: Widening,
        by: &Cx<grade::Admin>,
    ) -> Result<QuorumSettings, Error> {
        crate::store::settings::save_judged(&self.db, &settings, &by.audit_name(), widening.of()).await?;
        Ok(settings)
    }

    /// One tool's quorum (`policy quorum TOOL N`): 2 or more sets it, 1 removes it; admins only; a
    /// lower one only when confirmed (`--yes`). Read and written in one transaction, so two changes
    /// at once both hold.
    pub async fn set_quorum(&self, tool: &str, approvals: u32, widening: Widening, by: &Cx<grade::Admin>) -> Result<QuorumSettings, Error> {
        let edit = |stored: &QuorumSettings| stored.clone().with(tool, approvals);
        crate::store::settings::update_judged(&self.db, &by.audit_name(), edit, widening.of()).await
    }

    /// The quorum of every call rated critical (`policy quorum --critical N`): 2 or more sets it, 1
    /// removes it; admins only; a lower one only when confirmed. Read and written in one transaction.
    pub async fn set_critical_quorum(&self, approvals: u32, widening: Widening, by: &Cx<grade::Admin>) -> Result<QuorumSettings, Error> {
        let edit = |stored: &QuorumSettings| stored.clone().with_critical(approvals);
        crate::store::settings::update_judged(&self.db, &by.audit_name(), edit, widening.of()).await
    }

    /// Every tool name this console knows: its local agents' tools, the remote engines' agents'
    /// tools, the coding agents' tools (`engine::kinds::CODING_AGENT_TOOLS`), and every tool a call in the queue has
    /// had (hooks, the gate, agents over HTTP) — for a
    /// rule about a tool none of them named (a typo leaves the real tool unprotected).
    pub async fn known_tools(&self, _by: &Cx<grade::Operator>) -> Result<std::collections::BTreeSet<String>, Error> {
        let mut known: std::collections::BTreeSet<String> =
            self.local.agents().flat_map(|a| a.tools.iter().map(|t| t.name().to_owned())).collect();
        known.extend(crate::store::engines::remembered_tool_names(&self.db).await?);
        known.extend(crate::store::queue::tool_names(&self.db).await?);
        known.extend(crate::engine::kinds::CODING_AGENT_TOOLS.iter().map(|t| t.to_string()));
        Ok(known)
    }

    /// Moves a pending call's deadline to `secs` from now (see [`crate::console::Console::snooze`]);
    /// answers the call as it is then. Any operator.
    pub async fn snooze(&self, id: &str, secs: u64, by: &Cx<grade::Operator>) -> Result<QueueItem, Error> {
        let id = ItemId::new(id);
        self.console.snooze(&id, secs, &by.audit_name()).await?;
        self.console.item_view(&id).await
    }
}
