//! Runs the same small concurrent programs under scopecheck, loom and
//! shuttle, and prints what each tool did: executions, wall time,
//! executions per second, the ratio of scopecheck's time to the peer's, and
//! peak resident memory.
//!
//! Pairings:
//! - scopecheck exhaustive (`Strategy::Exhaustive`) against loom exhaustive
//!   (`loom::model::Builder::new()`, default settings: no preemption bound);
//! - scopecheck random (`Strategy::Random { seed, iterations }`) against
//!   shuttle's random scheduler (`shuttle::check_random(f, iterations)`),
//!   with the same iteration count.
//!
//! Each program is written once, in the `programs!` macro, and instantiated
//! for each tool's shim, so the three versions have the same source text and
//! differ only in which crate's atomics, `Arc` and threads they use.
//!
//! Programs (`--list` prints them with their spawned threads and expected
//! counts): litmus shapes (store buffering, message passing, IRIW), N
//! threads × M relaxed `fetch_add`, the compare-exchange rotation, N acquire
//! readers of one release store, the last-zero search, a Treiber stack and a
//! seqlock. `all` (the default) takes the ones that finish in seconds under
//! scopecheck; `large` holds five with 10^5 to 10^6 executions (cas-rot-11,
//! cas-rot-12, fai-9, readers-17, last-zero-15), run only when named.
//! `Program::expected_rc11_executions` gives the exact optimal count where a
//! closed form is known (the derivations are in the comments), and the
//! runner reports an error when scopecheck's exhaustive count differs.
//!
//! Each (program, tool) pair runs in a child process (this same executable,
//! started with `--child`), so that its peak RSS is its own and a run that
//! takes too long can be stopped (`--timeout`).

pub mod bugs;
mod child;
mod cli;
mod counters;
mod expected;
mod measure;
mod programs;
mod row;
mod table;
mod tools;

#[cfg(test)]
mod tests;

pub use child::run_in_child;
pub use cli::{main_with_args, parse_args, parse_programs, usage, Command, Options};
pub use expected::{cas_rotation_executions, last_zero_executions};
pub use measure::{peak_rss_kb, run_one};
pub use programs::{Program, SEQLOCK_ATTEMPTS, TREIBER_ATTEMPTS};
pub use row::{Problem, Row};
pub use table::{format_row, header, median_row, notes, ratio, run, scopecheck_errors};
pub use tools::{parse_tools, Tool};

#[cfg(test)]
pub(crate) use counters::tests_serial;
