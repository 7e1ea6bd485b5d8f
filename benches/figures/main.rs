//! The benchmarks: figures printed, nothing asserted (speed targets live here, never in tests).
//! One binary for all of them, so a build compiles and links the shared parts once:
//!
//!     cargo bench --bench figures -- NAME [NAME …]     (no NAME: every one, in this order)
//!
//! Each module's first lines say what it measures and the environment it reads; `docs/testing.md`
//! lists them.

mod calls;
mod deliver;
mod desktop;
mod floor;
mod limits;
mod mastra_ratio;
mod mcp_overhead;
mod model_overhead;
mod reach;
mod receipts;
mod remote_sync;
mod team;
mod throughput;

#[allow(dead_code)]
#[path = "../../tests/openai/fake_server.rs"]
mod fake_server;
#[path = "../../tests/support/fill.rs"]
mod fill;
#[path = "../../tests/support/mastra_server.rs"]
mod mastra_server;
#[path = "../../tests/support/postgres.rs"]
mod postgres;
#[path = "../../tests/support/serve_process.rs"]
mod serve_process;

use std::future::Future;
use std::pin::Pin;

type Run = fn() -> Pin<Box<dyn Future<Output = ()>>>;

/// Every benchmark by the name `cargo bench --bench figures -- NAME` takes.
const BENCHMARKS: &[(&str, Run)] = &[
    ("calls", || Box::pin(calls::run())),
    ("deliver", || Box::pin(deliver::run())),
    ("desktop", || Box::pin(desktop::run())),
    ("floor", || Box::pin(floor::run())),
    ("limits", || Box::pin(limits::run())),
    ("mastra_ratio", || Box::pin(mastra_ratio::run())),
    ("mcp_overhead", || Box::pin(mcp_overhead::run())),
    ("model_overhead", || Box::pin(model_overhead::run())),
    ("reach", || Box::pin(reach::run())),
    ("receipts", || Box::pin(async { receipts::run() })),
    ("remote_sync", || Box::pin(remote_sync::run())),
    ("team", || Box::pin(team::run())),
    ("throughput", || Box::pin(throughput::run())),
];

fn main() {
    // `cargo bench` passes `--bench` (and any harness flag) before the names.
    let names: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let chosen: Vec<&(&str, Run)> = if names.is_empty() {
        BENCHMARKS.iter().collect()
    } else {
        let unknown: Vec<&String> = names.iter().filter(|n| !BENCHMARKS.iter().any(|(name, _)| name == n)).collect();
        if !unknown.is_empty() {
            let known: Vec<&str> = BENCHMARKS.iter().map(|(name, _)| *name).collect();
            eprintln!("unknown benchmark {unknown:?}; the benchmarks are: {}", known.join(", "));
            std::process::exit(2);
        }
        BENCHMARKS.iter().filter(|(name, _)| names.iter().any(|n| n == name)).collect()
    };
    for (name, run) in chosen {
        println!("== {name}");
        // A runtime per benchmark, as each had with `#[tokio::main]` when it was a binary of its own.
        let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
        runtime.block_on(run());
    }
}
