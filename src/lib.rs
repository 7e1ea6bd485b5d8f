//! Approval Console, the core library: domain, storage, engines, the console (queue, decisions,
//! outbox, audit), and the HTTP API. Free of any desktop dependency; the CLI and the desktop shell
//! are thin layers over it.

pub mod api;
pub mod app;
pub mod config;
pub mod connector;
pub mod console;
pub mod domain;
pub mod engine;
pub mod gate;
pub mod hook;
pub mod logging;
pub mod notify;
pub mod secrets;
pub mod store;
