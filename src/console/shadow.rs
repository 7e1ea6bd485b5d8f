//! Shadow grants (issue 27): a grant made in shadow approves nothing; this reads, for each, the calls
//! it would have approved beside what was done with them — operators' approvals it agrees with, the
//! calls operators declined that it would have let through, the calls nobody decided in time — and
//! the waiting it would have saved: the evidence to make it for real, or not.

use super::care::care_in;
use super::Console;
use crate::domain::grant::Grant;
use crate::domain::{Error, ItemState, Verdict};
use crate::store::grants;
use serde::Serialize;

/// The most calls read per shadow grant (the oldest after it was made).
pub const MAX_CALLS: i64 = 5_000;

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShadowReport {
    /// Each shadow grant, newest first.
    pub grants: Vec<ShadowGrantReport>,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShadowGrantReport {
    pub grant: Grant,
    /// Calls since it was made (while it was live) that it covers and would have approved.
    pub would_approve: u64,
    /// Of those, approved by an operator (as they were, or edited): it agrees.
    pub agreed: u64,
    /// Of those, declined by an operator: it would have let them through.
    pub declined: Vec<ShadowMiss>,
    /// Of those, declined because nobody decided in time.
    pub expired: u64,
    /// Of those, still waiting.
    pub waiting: u64,
    /// Calls it covers that it would not have approved: rated high or critical, or under a quorum.
    pub held_back: u64,
    /// The time operators' agreed approvals took, from pause to decision: what it would have saved.
    pub saved_secs: u64,
    /// More calls than [`MAX_CALLS`]: only the first were read.
    pub cut: bool,
}

/// A call a shadow grant would have approved that an operator declined.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShadowMiss {
    pub item: String,
    pub args: serde_json::Value,
    pub operator: String,
    #[schema(required = true)]
    pub reason: Option<String>,
}

impl Console {
    /// The report of every shadow grant.
    pub async fn shadow_report(&self) -> Result<ShadowReport, Error> {
        let settings = crate::store::settings::snapshot(&self.db).await?;
        let mut out = Vec::new();
        for grant in grants::list_all(&self.db).await?.into_iter().filter(|g| g.shadow) {
            out.push(self.shadow_of(grant, &settings).await?);
        }
        Ok(ShadowReport { grants: out })
    }

    async fn shadow_of(&self, grant: Grant, settings: &crate::store::settings::Snapshot) -> Result<ShadowGrantReport, Error> {
        let ids = grants::calls_since(&self.db, &grant.tool_name, &grant.engine, grant.created_at, MAX_CALLS + 1).await?;
        let cut = ids.len() as i64 > MAX_CALLS;
        let end = grant.revoked_at.unwrap_or(grant.expires_at).min(grant.expires_at);
        let mut r = ShadowGrantReport {
            grant,
            would_approve: 0,
            agreed: 0,
            declined: vec![],
            expired: 0,
            waiting: 0,
            held_back: 0,
            saved_secs: 0,
            cut,
        };
        for id in ids.iter().take(MAX_CALLS as usize) {
            let Ok(entry) = self.item(id).await else { continue };
            let q = &entry.queued;
            if q.paused_at >= end || !r.grant.covers(q) {
                continue;
            }
            let context = self.context_of(&q.id, &q.call).await?;
            if !care_in(&q.call, context.as_ref(), settings)?.grantable() {
                r.held_back += 1;
                continue;
            }
            r.would_approve += 1;
            match (&entry.decision, q.state) {
                (None, ItemState::Pending) => r.waiting += 1,
                (Some(d), _) => match &d.verdict {
                    Verdict::Approve | Verdict::ApproveEdited { .. } => {
                        r.agreed += 1;
                        r.saved_secs += (d.decided_at - q.paused_at).num_seconds().max(0) as u64;
                    }
                    Verdict::Decline { reason } => r.declined.push(ShadowMiss {
                        item: q.id.to_string(),
                        args: q.call.args.clone(),
                        operator: d.operator.clone(),
                        reason: reason.clone(),
                    }),
                    Verdict::Expire { .. } => r.expired += 1,
                    Verdict::Resume { .. } => {}
                },
                (None, _) => {}
            }
        }
        Ok(r)
    }
}
