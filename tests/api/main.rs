//! Integration tests of the core through its real HTTP server: one binary, one module per area.

mod audit;
mod audit_export;
mod bad_input;
mod cli;
mod concurrency;
mod cut_short;
mod edit;
mod expiry;
mod failures;
mod grants;
mod helpers;
mod integrity;
mod interrupted;
mod memory;
mod metrics;
mod old_database;
mod policy;
mod previous;
mod principals;
mod queue_view;
mod readme;
mod restart;
mod rules;
mod runs;
mod security;
mod supervisors;
