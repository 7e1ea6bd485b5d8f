//! The process's log: lines on stderr filtered by `APPROVAL_CONSOLE_LOG` (default `info`), and the
//! store's statement counter ([`crate::store::statements`]) beside them whatever the filter.

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

/// Installs the log for this process; `ansi` colours the lines (a terminal).
pub fn init(ansi: bool) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("APPROVAL_CONSOLE_LOG").unwrap_or_else(|_| "info".into());
    let counter = crate::store::statements::Counter;
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(ansi).with_filter(filter))
        .with(counter.with_filter(counter))
        .init();
}
