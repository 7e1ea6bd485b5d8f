//! How many SQL statements this process ran, `BEGIN` and `COMMIT` included: the figure an approval
//! cycle's cost follows (each statement is a round trip to the database's connection thread, or
//! over the network to PostgreSQL).
//!
//! Counted from sqlx's own event for each statement it runs (and, for the statements SQLite runs
//! without sqlx, by [`super::lite`] and [`super::sql`]) (target `sqlx::query`, one event per
//! statement: at `debug`, or `warn` when slow), heard by [`Counter`] whatever the log filter prints.
//! A process counts only once its subscriber has the counter ([`crate::logging::init`] adds it);
//! `GET /api/metrics` shows the count (`approval_console_store_statements_total`) and the
//! benchmarks divide it by the cycles they ran.

use std::sync::atomic::{AtomicU64, Ordering};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, Filter, Layer};

static STATEMENTS: AtomicU64 = AtomicU64::new(0);
static DIRECT: AtomicU64 = AtomicU64::new(0);

/// The statements counted so far in this process.
pub fn count() -> u64 {
    STATEMENTS.load(Ordering::Relaxed)
}

/// Of [`count`], those run in the task that asked, without a round trip to another thread
/// (SQLite's point reads, [`super::lite`], and its writes, [`super::sql`]).
pub fn direct() -> u64 {
    DIRECT.load(Ordering::Relaxed)
}

/// Counts statements run outside sqlx, in the task that asked (on SQLite: the readers, [`super::lite`],
/// and the writer's own connection, [`super::sql::lite_run`]).
pub(crate) fn ran(n: u64) {
    STATEMENTS.fetch_add(n, Ordering::Relaxed);
    DIRECT.fetch_add(n, Ordering::Relaxed);
}

/// The target of sqlx's per-statement events.
const TARGET: &str = "sqlx::query";

/// A layer that counts sqlx's per-statement events and lets nothing else through to itself.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counter;

impl<S: Subscriber> Layer<S> for Counter {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() == TARGET {
            STATEMENTS.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl<S> Filter<S> for Counter {
    // Not only events: sqlx asks first with `tracing::enabled!` (a hint, not an event).
    fn enabled(&self, meta: &tracing::Metadata<'_>, _: &Context<'_, S>) -> bool {
        meta.target() == TARGET && !meta.is_span()
    }

    fn callsite_enabled(&self, meta: &'static tracing::Metadata<'static>) -> tracing::subscriber::Interest {
        if meta.target() == TARGET && !meta.is_span() {
            tracing::subscriber::Interest::always()
        } else {
            tracing::subscriber::Interest::never()
        }
    }
}
