//! The queue as every shell shows it (HTTP, the desktop window, tests): entries with the decisions
//! they allow, pages, decisions taken on a shown fingerprint, the audit log. One surface, so the
//! HTTP handlers and the desktop commands stay thin.

use super::query::{parse_cursor, QueueCountsQuery, QueueQuery, SortOrder, StateFilter};
use super::App;
use crate::console::Console;
use crate::domain::Op;
use crate::domain::{
    Actor, CallKind, CallSource, ChainLink, DecisionKind, DecisionRequest, Delivery, Error, Fingerprint, ItemId, ItemState, PauseReason,
    Resolution, ResolveRequest, Verdict,
};
use crate::store::queue;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The tabs of the queue view: each call is under exactly one, by its state and whether its
/// decision was an expiry.
///
/// | tab | states | |
/// |---|---|---|
/// | `pending` | `pending` | waiting for a decision |
/// | `awaiting_delivery` | `decided` | decided (by an operator or by its time limit); the decision waits in the outbox: about to be delivered, being delivered, or deferred to a retry because the engine could not be reached (C5) |
/// | `decided` | `delivered`, `failed`, `interrupted` | decided by an operator, and the delivery is over: the engine took it, answered with an error, or the process died while the tool ran (never re-run) |
/// | `expired` | `delivered`, `failed`, `interrupted` | declined because nobody decided within its time limit, and that decline's delivery is over |
/// | `gone` | `gone` | the run ended elsewhere before anyone decided here |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueueTab {
    Pending,
    AwaitingDelivery,
    Decided,
    Expired,
    Gone,
}

impl QueueTab {
    /// The tab of a call in `state` whose decision was (`expired`) or was not an expiry.
    pub fn of(state: ItemState, expired: bool) -> Self {
        match state {
            ItemState::Pending => Self::Pending,
            ItemState::Decided => Self::AwaitingDelivery,
            ItemState::Delivered | ItemState::Failed | ItemState::Interrupted if expired => Self::Expired,
            ItemState::Delivered | ItemState::Failed | ItemState::Interrupted => Self::Decided,
            ItemState::Gone => Self::Gone,
        }
    }

    /// What this tab lists, as a store filter: the states (as stored), and whether the decision
    /// must (`Some(true)`) or must not (`Some(false)`) be an expiry.
    pub fn scope(self) -> (&'static [&'static str], Option<bool>) {
        const OVER: &[&str] = &["delivered", "failed", "interrupted"];
        match self {
            Self::Pending => (&["pending"], None),
            Self::AwaitingDelivery => (&["decided"], None),
            Self::Decided => (OVER, Some(false)),
            Self::Expired => (OVER, Some(true)),
            Self::Gone => (&["gone"], None),
        }
    }

    /// Whether a call counted as `(state as stored, expired)` is under this tab.
    fn holds(self, state: &str, expired: bool) -> bool {
        let (states, exp) = self.scope();
        states.contains(&state) && exp.is_none_or(|e| e == expired)
    }
}

/// A queue entry as the API shows it (C2).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueItem {
    pub id: String,
    pub engine: String,
    /// Where the call comes from (follows from `engine`): the local engine, a remote engine's kind,
    /// or the source of a call an agent submitted itself.
    pub source: CallSource,
    /// What an agent that submitted the call said around it (a hook: its working directory, the
    /// event); untrusted, never part of the fingerprint. Null for calls of engines.
    #[schema(required = true)]
    pub context: Option<Value>,
    pub agent_id: String,
    #[schema(required = true)]
    pub agent_name: Option<String>,
    #[schema(required = true)]
    pub thread_id: Option<String>,
    #[schema(required = true)]
    pub resource_id: Option<String>,
    pub run_id: String,
    pub tool_call_id: String,
    pub tool_name: String,
    /// The arguments exactly as stored; untrusted data.
    pub args: Value,
    pub fingerprint: Fingerprint,
    pub kind: CallKind,
    #[schema(required = true)]
    pub suspend_payload: Option<Value>,
    /// JSON Schema of the resume data (kind `suspend`).
    #[schema(required = true)]
    pub resume_schema: Option<Value>,
    /// Supervisor path, outermost first (S13); empty for a direct call.
    pub chain: Vec<ChainLink>,
    pub state: ItemState,
    /// The tab of the queue view this call is listed under (follows from `state`).
    pub tab: QueueTab,
    pub paused_at: DateTime<Utc>,
    /// The decisions this call allows.
    pub allowed: Vec<DecisionKind>,
    #[schema(required = true)]
    pub decision: Option<DecisionView>,
    /// When a pending call is declined as expired if nobody decides (its tool's time limit, or a
    /// snooze); null without a limit.
    #[schema(required = true)]
    pub expires_at: Option<DateTime<Utc>>,
    /// Why a pending call cannot be approved as it is (`missing_arguments`, `ambiguous_arguments`),
    /// so `allowed` has no `approve`; null when it can be.
    #[schema(required = true)]
    pub approve_blocked: Option<Blocked>,
    /// Why it paused, when its engine says (the tool's flag, the request, a rule, a question…).
    #[schema(required = true)]
    pub pause_reason: Option<PauseReason>,
    /// Its tool is one of the high-risk tools (settings) now: it needs a confirm step, gets no
    /// notification Approve, no grant, no approval through the Mastra-shaped routes.
    pub high_risk: bool,
    /// What the operator said became of an interrupted call (it ran, it did not run, run again);
    /// null until then, and for calls that were not interrupted.
    #[schema(required = true)]
    pub resolution: Option<crate::store::resolutions::Stored>,
    /// How many approvals by different operators a call of its tool needs now (the two-person
    /// rule; settings `quorum`): 1 for a tool without a quorum.
    pub quorum: u32,
    /// The approvals of a call whose tool needs several, oldest first: while it waits, those so far
    /// (one per operator); once decided, every one, the one that completed the quorum last. Empty
    /// for a call approved the ordinary way.
    pub approvals: Vec<ApprovalView>,
    /// Who asked for the call: the credential that submitted it, or the principal that started its
    /// run (an agent credential, or the local admin); null where the engine does not say (remote
    /// servers). Not what the call claims: the agent name is what the credential may claim.
    #[schema(required = true)]
    pub requested_by: Option<Requester>,
}

/// A principal that asked for a call, as the queue shows it.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Requester {
    /// The credential's name, or the local admin's OS account.
    pub name: String,
    /// `token` (a stored credential) or `local` (the local admin).
    pub kind: crate::domain::PrincipalKind,
}

impl Requester {
    /// From a `Principal::key()` (`token:claude-hook`, `local:alice`); `None` for any other text.
    pub fn of_key(key: &str) -> Option<Self> {
        let (kind, name) = key.split_once(':')?;
        let kind = match kind {
            "token" => crate::domain::PrincipalKind::Token,
            "local" => crate::domain::PrincipalKind::Local,
            _ => return None,
        };
        Some(Self { name: name.to_owned(), kind })
    }
}

/// One operator's approval of a call whose tool needs several (the two-person rule).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalView {
    /// Who, as the audit log names them: `alice (web)`.
    pub operator: String,
    /// The principal's key (`token:alice`, `local:bob`): what a quorum counts once.
    pub operator_key: String,
    pub at: DateTime<Utc>,
}

/// Why a decision is not offered: the error code and message it would get.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Blocked {
    pub code: String,
    pub message: String,
    #[schema(required = true)]
    pub details: Option<Value>,
}

/// The decision taken on an entry, with its delivery.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionView {
    pub kind: DecisionKind,
    #[schema(required = true)]
    pub reason: Option<String>,
    #[schema(required = true)]
    pub data: Option<Value>,
    pub fingerprint: Fingerprint,
    pub operator: String,
    pub decided_at: DateTime<Utc>,
    pub delivery: Delivery,
    /// What the engine answered (the tool's result, a decline, a block, an error).
    #[schema(required = true)]
    pub outcome: Option<Value>,
    /// Delivery attempts so far.
    pub attempts: u32,
    /// Why the last delivery attempt failed (the engine was unreachable, …).
    #[schema(required = true)]
    pub last_error: Option<String>,
    /// When a deferred delivery is tried next.
    #[schema(required = true)]
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// Set when nobody decided in time and the console declined the call as expired: the limit that ran out.
    #[schema(required = true)]
    pub expired_after_secs: Option<u64>,
    /// For `edit`: the fingerprint of the edited arguments (in `data`) the tool ran with; `fingerprint`
    /// stays the one of the call as shown.
    #[schema(required = true)]
    pub edited_fingerprint: Option<Fingerprint>,
}

/// `{item}`: the call decided last by an operator before a given one, of the same engine, thread
/// and tool, with its decision; null when there is none (no thread, or the first of its kind).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PreviousCall {
    #[schema(required = true)]
    pub item: Option<QueueItem>,
}

impl QueueItem {
    pub fn from_entry(e: queue::Entry, console: &Console) -> Self {
        let q = e.queued;
        let allowed = if q.state == ItemState::Pending { console.allowed(&q.call) } else { vec![] };
        let approve_blocked = (q.state == ItemState::Pending).then(|| crate::console::approve_block(&q.call)).flatten().map(|e| Blocked {
            code: e.code().to_owned(),
            message: e.to_string(),
            details: e.details(),
        });
        let decision = e.decision.map(|d| {
            let expired_after_secs = match d.verdict {
                Verdict::Expire { after_secs } => Some(after_secs),
                _ => None,
            };
            let edited_fingerprint = match &d.verdict {
                Verdict::ApproveEdited { fingerprint, .. } => Some(fingerprint.clone()),
                _ => None,
            };
            let (kind, reason, data) = match d.verdict {
                Verdict::Approve => (DecisionKind::Approve, None, None),
                Verdict::Decline { reason } => (DecisionKind::Decline, reason, None),
                Verdict::Resume { data } => (DecisionKind::Resume, None, Some(data)),
                Verdict::Expire { after_secs } => (DecisionKind::Decline, Some(Verdict::expiry_text(after_secs)), None),
                Verdict::ApproveEdited { args, .. } => (DecisionKind::Edit, None, Some(args)),
            };
            DecisionView {
                kind,
                reason,
                data,
                fingerprint: d.fingerprint,
                operator: d.operator,
                decided_at: d.decided_at,
                delivery: d.delivery,
                outcome: d.outcome,
                attempts: d.attempts,
                last_error: d.last_error,
                next_attempt_at: d.next_attempt_at,
                expired_after_secs,
                edited_fingerprint,
            }
        });
        let c = q.call;
        Self {
            requested_by: c.requested_by.as_deref().and_then(Requester::of_key),
            id: q.id.to_string(),
            source: c.source,
            context: None,
            engine: c.engine.to_string(),
            agent_id: c.agent_id.to_string(),
            agent_name: c.agent_name,
            thread_id: c.thread_id,
            resource_id: c.resource_id,
            run_id: c.run_id.to_string(),
            tool_call_id: c.tool_call_id.to_string(),
            tool_name: c.tool_name,
            args: c.args,
            fingerprint: c.fingerprint,
            kind: c.kind,
            suspend_payload: c.suspend_payload,
            resume_schema: c.resume_schema,
            chain: c.chain,
            state: q.state,
            tab: QueueTab::of(q.state, decision.as_ref().is_some_and(|d| d.expired_after_secs.is_some())),
            paused_at: q.paused_at,
            allowed,
            decision,
            expires_at: None,
            approve_blocked,
            pause_reason: c.pause_reason,
            high_risk: false,
            resolution: None,
            quorum: 1,
            approvals: vec![],
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueuePage {
    pub items: Vec<QueueItem>,
    /// Pass as `cursor` for the next page; null on the last page.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// How many calls each tab of the queue view holds under the filters and search given.
#[derive(Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueCounts {
    pub pending: i64,
    pub awaiting_delivery: i64,
    pub decided: i64,
    pub expired: i64,
    pub gone: i64,
    /// Every call matching, whatever its state.
    pub all: i64,
    /// Pending calls under no filter and no search (the window title, the tray).
    pub pending_total: i64,
}

impl App {
    /// A page of the queue, newest first unless `sort=oldest`.
    pub async fn queue_page(&self, q: &QueueQuery, by: &Actor) -> Result<QueuePage, Error> {
        by.may(Op::QueuePage)?;
        let mut filter = q.filters().filter()?;
        match (q.state, q.tab) {
            (Some(_), Some(_)) => return Err(Error::InvalidRequest("give either state or tab, not both".into())),
            (None, Some(tab)) => {
                if let Some((states, expired)) = tab.tab().map(QueueTab::scope) {
                    filter.states = states.to_vec();
                    filter.expired = expired;
                }
            }
            (state, None) => filter.state = state.unwrap_or(StateFilter::Pending).state(),
        }
        filter.oldest_first = q.sort.unwrap_or_default() == SortOrder::Oldest;
        let cursor = parse_cursor(q.cursor.as_deref())?;
        let mut conn = self.db.pool().acquire().await?;
        let page = queue::list(&mut conn, &filter, cursor, q.limit.unwrap_or(50)).await?;
        drop(conn);
        let items = self.items_now(page.entries).await?;
        Ok(QueuePage { items, next_cursor: page.next_cursor.map(|c| c.to_string()) })
    }

    /// How many calls each tab holds under the filters and search (one query), and how many are
    /// pending under none.
    pub async fn queue_counts(&self, q: &QueueCountsQuery, by: &Actor) -> Result<QueueCounts, Error> {
        by.may(Op::QueueCounts)?;
        let filter = q.filter()?;
        let mut conn = self.db.pool().acquire().await?;
        let by_state = queue::count_by_state(&mut conn, &filter).await?;
        let pending_total = queue::count_pending(&mut conn).await?;
        let tab = |t: QueueTab| by_state.iter().filter(|(s, expired, _)| t.holds(s, *expired)).map(|(_, _, n)| n).sum::<i64>();
        Ok(QueueCounts {
            pending: tab(QueueTab::Pending),
            awaiting_delivery: tab(QueueTab::AwaitingDelivery),
            decided: tab(QueueTab::Decided),
            expired: tab(QueueTab::Expired),
            gone: tab(QueueTab::Gone),
            all: by_state.iter().map(|(_, _, n)| n).sum(),
            pending_total,
        })
    }

    /// The ids that start with `prefix` (a unique start of an id names the call), at most `limit`.
    pub async fn ids_starting_with(&self, prefix: &str, limit: i64, by: &Actor) -> Result<Vec<ItemId>, Error> {
        by.may(Op::QueueItem)?;
        let mut conn = self.db.pool().acquire().await?;
        queue::ids_starting_with(&mut conn, prefix, limit).await
    }

    /// One entry.
    pub async fn queue_item(&self, id: &str, by: &Actor) -> Result<QueueItem, Error> {
        by.may(Op::QueueItem)?;
        let entry = self.console.item(&ItemId::new(id)).await?;
        self.item_now(entry).await
    }

    /// Entries as the API shows them now: with their deadlines and whether their tool is high-risk
    /// (both from the settings as they are).
    async fn items_now(&self, entries: Vec<queue::Entry>) -> Result<Vec<QueueItem>, Error> {
        // The interrupted ones' calls, for what they allow now.
        let calls: Vec<(usize, crate::domain::PausedCall)> = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.queued.state == ItemState::Interrupted)
            .map(|(i, e)| (i, e.queued.call.clone()))
            .collect();
        let mut items: Vec<QueueItem> = entries.into_iter().map(|e| QueueItem::from_entry(e, &self.console)).collect();
        self.fill_deadlines(&mut items).await?;
        let settings = crate::store::settings::safety(&self.db).await?;
        for item in &mut items {
            item.high_risk = settings.high_risk(&item.tool_name);
        }
        self.fill_approvals(&mut items).await?;
        self.fill_resolutions(&mut items, &calls).await?;
        self.fill_contexts(&mut items).await?;
        Ok(items)
    }

    /// The two-person rule on each item: its tool's quorum now and the approvals stored. A waiting
    /// call of a tool with a quorum allows no edit (each operator approves the same arguments).
    async fn fill_approvals(&self, items: &mut [QueueItem]) -> Result<(), Error> {
        let settings = crate::store::settings::quorum(&self.db).await?;
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        let mut stored = {
            let mut conn = self.db.pool().acquire().await?;
            crate::store::decisions::approvals::of_items(&mut conn, &ids).await?
        };
        for item in items.iter_mut() {
            item.quorum = settings.quorum(&item.tool_name);
            if item.quorum > 1 {
                item.allowed.retain(|k| *k != DecisionKind::Edit);
            }
            item.approvals = stored
                .remove(&item.id)
                .unwrap_or_default()
                .into_iter()
                .map(|a| ApprovalView { operator: a.operator, operator_key: a.operator_key, at: a.approved_at })
                .collect();
        }
        Ok(())
    }

    /// Submitted calls: what their agent said around them.
    async fn fill_contexts(&self, items: &mut [QueueItem]) -> Result<(), Error> {
        let ids: Vec<&str> = items.iter().filter(|i| crate::engine::kinds::is_submitted(i.source)).map(|i| i.id.as_str()).collect();
        if ids.is_empty() {
            return Ok(());
        }
        let mut contexts = {
            let mut conn = self.db.pool().acquire().await?;
            crate::store::submissions::contexts_of(&mut conn, &ids).await?
        };
        for item in items.iter_mut() {
            item.context = contexts.remove(&item.id);
        }
        Ok(())
    }

    /// Interrupted items: their resolution, or (none yet) the resolutions they allow.
    async fn fill_resolutions(&self, items: &mut [QueueItem], calls: &[(usize, crate::domain::PausedCall)]) -> Result<(), Error> {
        if calls.is_empty() {
            return Ok(());
        }
        let mut conn = self.db.pool().acquire().await?;
        for (i, call) in calls {
            let item = &mut items[*i];
            item.resolution = crate::store::resolutions::get(&mut conn, &ItemId::new(&item.id)).await?;
            if item.resolution.is_none() {
                item.allowed = self.console.resolutions_allowed(call);
            }
        }
        Ok(())
    }

    async fn item_now(&self, entry: queue::Entry) -> Result<QueueItem, Error> {
        Ok(self.items_now(vec![entry]).await?.remove(0))
    }

    /// The call decided last by an operator before `id`, of the same engine, thread and tool, so
    /// the operator sees what changed since (null when there is none). `not_found` for an unknown id.
    pub async fn previous_call(&self, id: &str, by: &Actor) -> Result<PreviousCall, Error> {
        by.may(Op::PreviousCall)?;
        let id = ItemId::new(id);
        let mut conn = self.db.pool().acquire().await?;
        if queue::get(&mut conn, &id).await?.is_none() {
            return Err(Error::not_found(format!("queue item {id}")));
        }
        let previous = queue::previous_decided(&mut conn, &id).await?;
        drop(conn);
        let item = match previous {
            Some(e) => Some(self.item_now(e).await?),
            None => None,
        };
        Ok(PreviousCall { item })
    }

    /// Decides with the fingerprint that was on screen (C3) and delivers, as `by` (an operator; the
    /// audit log names it). Answers the entry as it is afterwards.
    pub async fn decide_shown(&self, id: &str, verdict: Verdict, fingerprint: &str, by: &Actor) -> Result<QueueItem, Error> {
        Ok(self.decide_shown_told(id, verdict, fingerprint, by).await?.0)
    }

    /// [`App::decide_shown`], also saying whether this request recorded an approval short of the
    /// quorum (`true`: the HTTP answer is 202 whatever the entry shows now) or decided the call.
    pub async fn decide_shown_told(&self, id: &str, verdict: Verdict, fingerprint: &str, by: &Actor) -> Result<(QueueItem, bool), Error> {
        by.may(match verdict {
            Verdict::Approve => Op::Approve,
            Verdict::ApproveEdited { .. } => Op::ApproveEdited,
            Verdict::Decline { .. } => Op::Decline,
            Verdict::Resume { .. } => Op::Resume,
            // The console's own (no shell offers it); to the engine it is a decline.
            Verdict::Expire { .. } => Op::Decline,
        })?;
        let fingerprint = Fingerprint::parse(fingerprint)
            .ok_or_else(|| Error::InvalidRequest("fingerprint must be \"sha256:\" followed by 64 lowercase hex digits".into()))?;
        let verdict = match verdict {
            Verdict::Decline { reason } => Verdict::Decline { reason: reason.map(|r| r.trim().to_owned()).filter(|r| !r.is_empty()) },
            other => other,
        };
        let request = DecisionRequest { verdict, fingerprint, operator: by.audit_name(), operator_key: Some(by.principal.key()) };
        let id = ItemId::new(id);
        let (entry, recorded) = match self.console.decide_and_deliver_told(&id, request.clone()).await {
            // Team mode: a remote engine another console added moments ago, not connected here yet
            // (the engines table is re-read every 2 s). The refusal stored nothing: connect, decide again.
            Err(Error::Engine(_)) if self.db.dialect() == crate::store::Dialect::Postgres => {
                self.remotes.load().await?;
                self.console.decide_and_deliver_told(&id, request).await?
            }
            other => other?,
        };
        Ok((self.item_now(entry).await?, recorded))
    }

    /// Resolves an interrupted call as `by` (an operator), bound to the fingerprint that was on screen
    /// (see [`crate::console::Console::resolve`]). `result` only with `ran`: what the model is told
    /// the tool returned. Answers the entry as it is afterwards (for `run_again`, the new entry).
    pub async fn resolve(
        &self,
        id: &str,
        kind: DecisionKind,
        result: Option<Value>,
        fingerprint: &str,
        by: &Actor,
    ) -> Result<QueueItem, Error> {
        by.may(Op::Resolve)?;
        let fingerprint = Fingerprint::parse(fingerprint)
            .ok_or_else(|| Error::InvalidRequest("fingerprint must be \"sha256:\" followed by 64 lowercase hex digits".into()))?;
        let resolution = match (kind, result) {
            (DecisionKind::Ran, result) => Resolution::Ran { result },
            (DecisionKind::DidNotRun, None) => Resolution::DidNotRun,
            (DecisionKind::RunAgain, None) => Resolution::RunAgain,
            (DecisionKind::DidNotRun | DecisionKind::RunAgain, Some(_)) => {
                return Err(Error::InvalidRequest(format!("a result goes with `ran` only, not with `{}`", kind.as_str())))
            }
            (other, _) => {
                return Err(Error::InvalidRequest(format!("`{}` is not a resolution: give ran, did_not_run or run_again", other.as_str())))
            }
        };
        let request = ResolveRequest { resolution, fingerprint, operator: by.audit_name(), operator_key: Some(by.principal.key()) };
        let entry = self.console.resolve(&ItemId::new(id), request).await?;
        self.item_now(entry).await
    }

    /// Approves with edited arguments (engines that allow `edit`: the local one), bound to the
    /// fingerprint that was on screen (C3); the edited arguments' fingerprint is computed here.
    pub async fn approve_edited(&self, id: &str, shown: &str, args: Value, by: &Actor) -> Result<QueueItem, Error> {
        by.may(Op::ApproveEdited)?;
        let entry = self.console.item(&ItemId::new(id)).await?;
        let fingerprint = Fingerprint::of(&entry.queued.call.tool_name, &args).map_err(|e| Error::InvalidRequest(e.to_string()))?;
        self.decide_shown(id, Verdict::ApproveEdited { args, fingerprint }, shown, by).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_call_is_listed_under_exactly_the_tab_it_belongs_to() {
        let tabs = [QueueTab::Pending, QueueTab::AwaitingDelivery, QueueTab::Decided, QueueTab::Expired, QueueTab::Gone];
        for state in
            [ItemState::Pending, ItemState::Decided, ItemState::Delivered, ItemState::Failed, ItemState::Interrupted, ItemState::Gone]
        {
            for expired in [false, true] {
                let text = queue::state_str(state);
                let under: Vec<QueueTab> = tabs.into_iter().filter(|t| t.holds(text, expired)).collect();
                assert_eq!(under, vec![QueueTab::of(state, expired)], "{text}, expired: {expired}");
            }
        }
    }
}
