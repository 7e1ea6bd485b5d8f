//! Integration tests of the core through its real HTTP server: one binary, one module per area.

mod audit;
mod bad_input;
mod cli;
mod failures;
mod concurrency;
mod helpers;
mod memory;
mod policy;
mod restart;
mod rules;
mod security;
mod supervisors;
