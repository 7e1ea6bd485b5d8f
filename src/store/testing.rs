//! For tests and benchmarks only (no module of the crate uses it: tests/layers.rs): named fixtures
//! for what a test simulates and no operation does — a crash that left a delivery `delivering` or a
//! run `running`, rows moved in time, a database tampered with, calls written straight into the
//! queue — and reads of what is stored and no API shows. Each is one function saying what it does,
//! so a test never needs a connection or a transaction of the store (`Db::pool`, `Db::begin_write`
//! are the store's own) nor SQL of its own but [`count`]'s.

use super::sql::{scalar, sql, Query};
use super::{audit, memory, outbox, queue, ts, Db};
use crate::domain::{Decision, DecisionId, Delivery, Error, GrantId, ItemId, ItemState, PausedCall, QueuedCall};
use chrono::{DateTime, Utc};
use serde_json::Value;

/// Runs `query` as a write of its own (through the writer, as every write is); what it changed.
async fn write(db: &Db, query: Query) -> Result<u64, Error> {
    let mut tx = db.begin_write().await?;
    let done = query.execute(&mut tx).await?;
    tx.commit().await?;
    Ok(done.rows_affected())
}

/// How many rows a `SELECT COUNT(*) …` query counts: the one SQL a test writes itself, to read.
pub async fn count(db: &Db, query: &str) -> Result<i64, Error> {
    if !query.trim_start().to_ascii_uppercase().starts_with("SELECT COUNT(") {
        return Err(Error::InvalidRequest(format!("a count reads, and only counts: {query}")));
    }
    scalar::<i64>(query.to_owned()).fetch_one(&mut db.pool().acquire().await?).await
}

// --- Crashes and the passing of time ---

/// Every decision (or `item`'s alone) left `delivering`: claimed by a process that died before the
/// engine acted (a local engine's tool never began: the next start delivers it; for a stop inside
/// the tool, see `App::testing().cut_inside_tool`). How many.
pub async fn crash_while_delivering(db: &Db, item: Option<&ItemId>) -> Result<u64, Error> {
    match item {
        Some(item) => write(db, sql("UPDATE decisions SET delivery = 'delivering' WHERE queue_item_id = $1").bind(item.as_str())).await,
        None => write(db, sql("UPDATE decisions SET delivery = 'delivering'")).await,
    }
}

/// Every stored run left `running`: its process died while advancing it.
pub async fn crash_while_running(db: &Db) -> Result<u64, Error> {
    write(db, sql("UPDATE snapshots SET state = 'running'")).await
}

/// Every deferred decision due now (its next attempt long past), instead of after its backoff.
pub async fn make_deliveries_due(db: &Db) -> Result<u64, Error> {
    write(db, sql("UPDATE decisions SET next_attempt_at = '2000-01-01T00:00:00.000000Z'")).await
}

/// The grant `id` expired long ago.
pub async fn expire_grant(db: &Db, id: &GrantId) -> Result<u64, Error> {
    write(db, sql("UPDATE grants SET expires_at = '2000-01-01T00:00:00.000000Z' WHERE id = $1").bind(id.as_str())).await
}

/// The entry `item` set to `state` behind the console's back (`at`: when it changed, if given).
pub async fn set_state(db: &Db, item: &ItemId, state: ItemState, at: Option<DateTime<Utc>>) -> Result<u64, Error> {
    let query = match at {
        Some(at) => sql("UPDATE queue_items SET state = $1, updated_at = $2 WHERE id = $3")
            .bind(queue::state_str(state))
            .bind(ts(at))
            .bind(item.as_str()),
        None => sql("UPDATE queue_items SET state = $1 WHERE id = $2").bind(queue::state_str(state)).bind(item.as_str()),
    };
    write(db, query).await
}

/// Every entry in state `from` set to `to` behind the console's back.
pub async fn set_states(db: &Db, from: ItemState, to: ItemState) -> Result<u64, Error> {
    write(db, sql("UPDATE queue_items SET state = $1 WHERE state = $2").bind(queue::state_str(to)).bind(queue::state_str(from))).await
}

/// `item` paused at `paused`, and its decision (if it has one) taken at `decided`.
pub async fn set_times(db: &Db, item: &ItemId, paused: DateTime<Utc>, decided: Option<DateTime<Utc>>) -> Result<u64, Error> {
    write(db, sql("UPDATE queue_items SET paused_at = $1 WHERE id = $2").bind(ts(paused)).bind(item.as_str())).await?;
    match decided {
        Some(at) => write(db, sql("UPDATE decisions SET decided_at = $1 WHERE queue_item_id = $2").bind(ts(at)).bind(item.as_str())).await,
        None => Ok(0),
    }
}

/// `viewer`'s presence last seen at `at`.
pub async fn set_seen(db: &Db, viewer: &str, at: DateTime<Utc>) -> Result<u64, Error> {
    write(db, sql("UPDATE presence SET seen_at = $1 WHERE viewer = $2").bind(ts(at)).bind(viewer)).await
}

/// The channels' messages about `item` at their last attempt (`attempts`), due now.
pub async fn make_reach_due(db: &Db, item: &ItemId, attempts: i64) -> Result<u64, Error> {
    write(
        db,
        sql("UPDATE reach_outbox SET attempts = $1, next_attempt_at = due_at WHERE queue_item_id = $2").bind(attempts).bind(item.as_str()),
    )
    .await
}

// --- A database tampered with ---

/// `item`'s decision's stored receipt replaced by `receipt`.
pub async fn replace_receipt(db: &Db, item: &ItemId, receipt: &str) -> Result<u64, Error> {
    write(db, sql("UPDATE decisions SET receipt = $1 WHERE queue_item_id = $2").bind(receipt).bind(item.as_str())).await
}

/// The receipt key `kid`'s secret said to be at `secret_ref`.
pub async fn move_receipt_key(db: &Db, kid: &str, secret_ref: &str) -> Result<u64, Error> {
    write(db, sql("UPDATE receipt_keys SET secret_ref = $1 WHERE kid = $2").bind(secret_ref).bind(kid)).await
}

/// Runs `statements` on the audit log as someone with the file would: its append-only triggers
/// removed first.
pub async fn tamper_with_audit(db: &Db, statements: &str) -> Result<(), Error> {
    let mut conn = db.pool().acquire().await?;
    let drop: &[&str] = match db.dialect() {
        super::Dialect::Postgres => &["ALTER TABLE audit_log DISABLE TRIGGER USER"],
        super::Dialect::Sqlite => &["DROP TRIGGER audit_log_no_update", "DROP TRIGGER audit_log_no_delete"],
    };
    for statement in drop {
        sqlx::query(statement).execute(&mut *conn).await?;
    }
    sqlx::raw_sql(statements).execute(&mut *conn).await?;
    Ok(())
}

/// Runs `statement` on the audit log as it stands (its triggers in place): what the database says.
pub async fn edit_audit(db: &Db, statement: &str) -> Result<u64, Error> {
    write(db, sql(statement.to_owned())).await
}

/// The stored run `run`'s body replaced by `body`.
pub async fn set_snapshot_body(db: &Db, run: &str, body: &Value) -> Result<u64, Error> {
    write(db, sql("UPDATE snapshots SET body = $1 WHERE run_id = $2").bind(body.to_string()).bind(run)).await
}

/// Every stored run deleted.
pub async fn delete_snapshots(db: &Db) -> Result<u64, Error> {
    write(db, sql("DELETE FROM snapshots")).await
}

/// The stored run `run` as a crash left it: `state` with `body`, of `agent` on `thread` of
/// `user-1`, by `engine`; the thread's messages gone.
pub async fn restore_snapshot(db: &Db, run: &str, agent: &str, thread: &str, state: &str, body: &Value, engine: &str) -> Result<(), Error> {
    let mut tx = db.begin_write().await?;
    sql("INSERT INTO snapshots (run_id, agent_id, thread_id, resource_id, state, body, created_at, updated_at, engine)
         VALUES ($1, $2, $3, 'user-1', $4, $5, '2026-12-01T00:00:00Z', '2026-12-01T00:00:00Z', $6)")
    .bind(run)
    .bind(agent)
    .bind(thread)
    .bind(state)
    .bind(body.to_string())
    .bind(engine)
    .execute(&mut tx)
    .await?;
    sql("DELETE FROM messages WHERE thread_id = $1").bind(thread).execute(&mut tx).await?;
    tx.commit().await
}

/// A paired device `name` of alice's with a session whose cookie hashes to `secret_hash`, valid for
/// an hour (as a finished pairing stores them; the passkey ceremonies need a browser).
pub async fn device_with_session(db: &Db, name: &str, secret_hash: &str) -> Result<(), Error> {
    let now = super::now();
    let mut tx = db.begin_write().await?;
    sql("INSERT INTO devices (id, name, person, credential_id, passkey, created_at, created_by) VALUES ($1, $2, 'alice', $3, '{}', $4, 'alice')")
        .bind(format!("dev-{name}"))
        .bind(name)
        .bind(format!("cred-{name}"))
        .bind(ts(now))
        .execute(&mut tx)
        .await?;
    sql("INSERT INTO device_sessions (secret_hash, device_id, created_at, expires_at) VALUES ($1, $2, $3, $4)")
        .bind(secret_hash)
        .bind(format!("dev-{name}"))
        .bind(ts(now))
        .bind(ts(now + chrono::Duration::hours(1)))
        .execute(&mut tx)
        .await?;
    tx.commit().await
}

// --- Calls written straight into the store ---

/// Queues `calls` pending, as an engine would, without their audit entries: in one transaction.
pub async fn insert_pending(db: &Db, calls: &[PausedCall]) -> Result<Vec<QueuedCall>, Error> {
    let mut tx = db.begin_write().await?;
    let mut queued = Vec::with_capacity(calls.len());
    for call in calls {
        queued.push(queue::insert_pending(&mut tx, call).await?);
    }
    tx.commit().await?;
    Ok(queued)
}

/// A pending call's row written by hand, as another program with the database would (none of the
/// console's code runs): id `id`, tool `tool`, arguments `args` (JSON text), a fingerprint of zeros.
pub async fn insert_row_by_hand(db: &Db, id: &str, tool: &str, args: &str) -> Result<u64, Error> {
    write(
        db,
        sql("INSERT INTO queue_items (id, engine, agent_id, run_id, tool_call_id, tool_name, args, fingerprint, kind, state, paused_at, updated_at)
         VALUES ($1, 'local', 'raw-agent', 'run-raw', 'c1', $2, $3, $4, 'approval', 'pending', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')")
        .bind(id)
        .bind(tool)
        .bind(args)
        .bind(format!("sha256:{}", "0".repeat(64))),
    )
    .await
}

/// The engine changed a waiting call's arguments: `old` gone, `changed` pending in its place.
pub async fn replace_call(db: &Db, old: &ItemId, changed: &PausedCall) -> Result<QueuedCall, Error> {
    let mut tx = db.begin_write().await?;
    if !queue::transition(&mut tx, old, ItemState::Pending, ItemState::Gone).await? {
        return Err(Error::AlreadyDecided { state: ItemState::Gone });
    }
    let queued = queue::insert_pending(&mut tx, changed).await?;
    tx.commit().await?;
    Ok(queued)
}

/// Appends `record` to the audit log, as the console would.
pub async fn append_audit(db: &Db, record: audit::Record<'_>) -> Result<audit::Entry, Error> {
    let mut tx = db.begin_write().await?;
    let entry = audit::append(&mut tx, record).await?;
    tx.commit().await?;
    Ok(entry)
}

/// Records a claimed decision's delivery as an engine does ([`outbox::record`]); false if it was
/// recorded already.
pub async fn record_delivery(db: &Db, decision: &Decision, item: &QueuedCall, outcome: &Value) -> Result<bool, Error> {
    let mut tx = db.begin_write().await?;
    let recorded = outbox::record(&mut tx, decision, item, outcome, None).await?;
    tx.commit().await?;
    Ok(recorded)
}

/// A settings row `key` (`{}`), written and committed as one write.
pub async fn put_setting(db: &Db, key: &str) -> Result<u64, Error> {
    write(db, sql("INSERT INTO settings (key, value, updated_at) VALUES ($1, '{}', 'now')").bind(key)).await
}

/// After a bulk fill: the SQLite file's log folded in, or PostgreSQL's statistics brought up to date.
pub async fn settle_after_fill(db: &Db) -> Result<(), Error> {
    let statement = match db.dialect() {
        super::Dialect::Sqlite => "PRAGMA wal_checkpoint(TRUNCATE)",
        super::Dialect::Postgres => "ANALYZE",
    };
    sqlx::query(statement).execute(db.pool()).await?;
    Ok(())
}

// --- What is stored and no API shows ---

/// The stored text of the settings row `key`.
pub async fn setting_text(db: &Db, key: &str) -> Result<Option<String>, Error> {
    scalar::<String>("SELECT value FROM settings WHERE key = $1").bind(key).fetch_optional(&mut db.pool().acquire().await?).await
}

/// The stored run `run`: its state and body.
pub async fn snapshot(db: &Db, run: &str) -> Result<Option<(String, Value)>, Error> {
    let mut conn = db.pool().acquire().await?;
    let row = sql("SELECT state, body FROM snapshots WHERE run_id = $1").bind(run).fetch_optional(&mut conn).await?;
    row.map(|r| Ok((r.try_get::<String>("state")?, super::parse_json(&r.try_get::<String>("body")?)?))).transpose()
}

/// The bodies of every stored run.
pub async fn snapshot_bodies(db: &Db) -> Result<Vec<Value>, Error> {
    let bodies = scalar::<String>("SELECT body FROM snapshots").fetch_all(&mut db.pool().acquire().await?).await?;
    bodies.iter().map(|b| super::parse_json(b)).collect()
}

/// The newest `limit` messages of `thread`, oldest first ([`memory::recent`]).
pub async fn thread(db: &Db, thread: &str, limit: u32) -> Result<Vec<Value>, Error> {
    memory::recent(&mut db.pool().acquire().await?, thread, limit).await
}

/// The decisions in `delivery`, oldest first.
pub async fn decisions_in(db: &Db, delivery: Delivery) -> Result<Vec<Decision>, Error> {
    super::decisions::with_delivery(&mut db.pool().acquire().await?, delivery).await
}

/// How the decision `id` stands in the outbox.
pub async fn attempts(db: &Db, id: &DecisionId) -> Result<Option<super::decisions::Attempts>, Error> {
    super::decisions::attempts(&mut db.pool().acquire().await?, id).await
}

/// The decision `id`'s delivery state, as stored (`pending`, `delivering`, …).
pub async fn delivery_of(db: &Db, id: &DecisionId) -> Result<Option<String>, Error> {
    scalar::<String>("SELECT delivery FROM decisions WHERE id = $1").bind(id.as_str()).fetch_optional(&mut db.pool().acquire().await?).await
}
