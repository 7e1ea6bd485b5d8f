//! Operators' channels and escalation (issue 28): the worker that plans each paused call's messages
//! from the `reach` settings ([`crate::domain::reach`]) and sends them when due ([`send`]).
//!
//! - **Planned once per call**, durably (`store::reach::plan`): woken by the change feed's `added`
//!   events, and a sweep every second finds any pending call not planned yet (a missed event, a
//!   restart), so nothing is lost.
//! - **Sent when due**, through an outbox: a message whose call was decided, or claimed, meanwhile
//!   is skipped (escalation stops); a step's `on-call` is resolved when it is due; quiet hours hold
//!   a message until they end; a failure is tried again after 1 s, doubling to 60 s, and given up
//!   after [`ATTEMPTS`] with `reach.failed` in the audit log.
//! - **Secrets from their own place**: a channel's secret is read, when it sends, from the channels'
//!   namespace by the channel's name ([`crate::secrets::ChannelSecrets`]), never from a place the
//!   settings name; a channel that needs one and has none fails with "no secret set".
//! - **One sender per team**: the worker holds the lease `reach` (store::lease), so consoles on one
//!   PostgreSQL database do not send twice.

pub mod send;

use crate::console::{Change, Console};
use crate::domain::reach::{Facts, ReachSettings};
use crate::secrets::ChannelSecrets;
use crate::store::lease::Lease;
use crate::store::reach::{self, NewMessage};
use chrono::Utc;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{broadcast, watch};

/// Attempts of one message before it is given up.
pub const ATTEMPTS: i64 = 8;
/// The sweep (calls not planned, messages due): at most this long between two.
const SWEEP: Duration = Duration::from_secs(1);

/// Where links point: the console's page for a call (the remote listener's origin when it is on).
#[derive(Clone, Default)]
pub struct Links(Arc<Mutex<Option<String>>>);

impl Links {
    pub fn set(&self, base: String) {
        *self.0.lock().expect("links lock") = Some(base.trim_end_matches('/').to_owned());
    }

    fn of(&self, item_id: &str) -> Option<String> {
        self.0.lock().expect("links lock").as_ref().map(|b| format!("{b}/#call={item_id}"))
    }
}

/// Starts the worker until `stop` flips; channels' secrets come from `secrets`.
pub fn start(console: Console, links: Links, secrets: ChannelSecrets, mut stop: watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
    let mut events = console.events().subscribe();
    tokio::spawn(async move {
        let mut lease: Option<Lease> = None;
        loop {
            if lease.is_none() {
                lease = Lease::try_take(console.db(), "reach").await.unwrap_or_else(|e| {
                    tracing::debug!("reach: cannot take the lease: {e}");
                    None
                });
            } else if let Some(l) = lease.as_mut() {
                if !l.alive().await {
                    lease = None;
                }
            }
            let mut wait = SWEEP;
            if lease.is_some() {
                match round(&console, &links, &secrets).await {
                    // Messages may wait: sleep until the next is due (at most the sweep).
                    Ok(true) => {
                        if let Ok(Some(next)) = reach::next_due(console.db()).await {
                            wait = (next - Utc::now()).to_std().unwrap_or(Duration::ZERO).min(SWEEP);
                        }
                    }
                    Ok(false) => {}
                    Err(e) => tracing::warn!("reach: {e}"),
                }
            }
            // A new call or the sweep: another round. Other changes wait for the sweep (a message
            // of a call decided meanwhile is skipped when due), so a decision costs no statement here.
            let deadline = tokio::time::Instant::now() + wait;
            loop {
                tokio::select! {
                    e = events.recv() => match e {
                        Ok(e) if e.kind == Change::Added => break,
                        Err(broadcast::error::RecvError::Closed) => return,
                        Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    },
                    _ = tokio::time::sleep_until(deadline) => break,
                    _ = stop.changed() => return,
                }
            }
        }
    })
}

/// One round: plan what is not planned, send what is due. `false`: no channel is configured (no
/// statement was run).
pub async fn round(console: &Console, links: &Links, secrets: &ChannelSecrets) -> Result<bool, crate::domain::Error> {
    let settings: ReachSettings = crate::store::settings::load(console.db()).await?;
    if settings.channels.is_empty() {
        // Nothing to send on: no statement, no commit (calls paused meanwhile are planned once a
        // channel is configured).
        return Ok(false);
    }
    for (id, paused_at) in reach::unplanned(console.db(), 100).await? {
        let entry = match console.item(&crate::domain::ItemId::new(&id)).await {
            Ok(e) => e,
            Err(e) => {
                tracing::debug!(item = %id, "reach: cannot read the call to plan: {e}");
                continue;
            }
        };
        let risk = console.care(&entry.queued).await.map(|c| c.risk.level).unwrap_or_default();
        let call = &entry.queued.call;
        let facts = Facts { tool: &call.tool_name, agent: call.agent_id.as_str(), source: call.source, risk };
        let plan = settings.plan(&facts);
        let messages: Vec<NewMessage> = plan
            .iter()
            .map(|p| NewMessage {
                channel: &p.channel,
                person: &p.person,
                rule: &p.rule,
                step: p.step,
                due_at: paused_at + chrono::Duration::seconds(p.after_secs as i64),
            })
            .collect();
        reach::plan(console.db(), &id, &messages, Utc::now()).await?;
    }
    // Side by side: a slow or dead channel (10 s timeout each try) holds up no other.
    let due = reach::due(console.db(), Utc::now(), 50).await?;
    let sent = futures::future::join_all(due.into_iter().map(|d| deliver(console, &settings, links, secrets, d))).await;
    sent.into_iter().collect::<Result<Vec<()>, _>>()?;
    Ok(true)
}

async fn deliver(
    console: &Console,
    settings: &ReachSettings,
    links: &Links,
    secrets: &ChannelSecrets,
    due: reach::Due,
) -> Result<(), crate::domain::Error> {
    let db = console.db();
    let m = &due.message;
    let now = Utc::now();
    if due.item_state != "pending" {
        return reach::skipped(db, &m.id, "the call was decided first").await;
    }
    if let Some(by) = &due.claimed_by {
        return reach::skipped(db, &m.id, &format!("claimed by {by}")).await;
    }
    let Some(channel) = settings.channels.iter().find(|c| c.name == m.channel && c.enabled) else {
        return reach::skipped(db, &m.id, "the channel was removed or turned off").await;
    };
    if !settings.step_tells(&m.rule, m.step as u32, &m.person, now) {
        return reach::skipped(db, &m.id, "not on call").await;
    }
    if let Some(until) = channel.quiet_hours.as_ref().and_then(|q| q.ends_after(now)) {
        return reach::hold(db, &m.id, until).await;
    }
    let entry = console.item(&crate::domain::ItemId::new(&m.queue_item_id)).await?;
    let care = console.care(&entry.queued).await?;
    let call = &entry.queued.call;
    let about = send::About {
        item_id: m.queue_item_id.clone(),
        tool: call.tool_name.clone(),
        agent: call.agent_name.clone().unwrap_or_else(|| call.agent_id.as_str().to_owned()),
        source: call.source.as_str().to_owned(),
        risk: care.risk.level.as_str().to_owned(),
        reasons: care.risk.reasons.iter().map(|r| r.text.clone()).collect(),
        fingerprint: call.fingerprint.as_str().to_owned(),
        paused_at: entry.queued.paused_at,
        args: call.args.clone(),
        link: links.of(&m.queue_item_id),
        rule: m.rule.clone(),
        step: m.step,
        test: false,
    };
    let sent = match secrets.read(&channel.name).await {
        Ok(secret) => send::send(channel, &about, &m.id, secret).await,
        Err(e) => Err(format!("the secret of channel {} cannot be read: {e}", channel.name)),
    };
    match sent {
        Ok(()) => {
            let at = Utc::now();
            tracing::info!(item = %m.queue_item_id, channel = %m.channel, after_ms = (at - entry.queued.paused_at).num_milliseconds(), "reach: sent");
            reach::sent(db, &m.id, at).await
        }
        Err(error) if m.attempts + 1 >= ATTEMPTS => {
            tracing::warn!(item = %m.queue_item_id, channel = %m.channel, "reach: given up after {ATTEMPTS} attempts: {error}");
            reach::failed(db, m, &error).await
        }
        Err(error) => {
            let backoff = Duration::from_secs(1u64 << m.attempts.clamp(0, 6)).min(Duration::from_secs(60));
            tracing::debug!(item = %m.queue_item_id, channel = %m.channel, "reach: not sent, again in {backoff:?}: {error}");
            reach::retry(db, &m.id, now + chrono::Duration::from_std(backoff).expect("a short duration"), &error).await
        }
    }
}
