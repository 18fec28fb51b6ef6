//! Fuzz targets for scopecheck: random litmus programs checked against the
//! checker's own theorems, and the litmus parser fed arbitrary bytes.
//!
//! Each target is a function `check(data: &[u8])` that panics on a finding
//! (with the litmus text that reproduces it) and returns otherwise. The same
//! functions run under libFuzzer (`fuzz_targets/`, see `README.md`) and as
//! ordinary tests over seed files and seeded random bytes (`tests/`).
//!
//! Generated programs go through their printed litmus text and
//! [`scopecheck::litmus::check_source`], so the parser and the interpreter
//! are exercised by every target, and every finding is a corpus entry.
//!
//! [`coverage`] names what a seed covers; `tests/corpus_coverage.rs` checks
//! that the seed corpora cover everything the parser and the generator know.
#![warn(missing_docs)]

pub mod coverage;
pub mod program;
pub mod run;
pub mod targets;

pub use program::{Program, Shape};
pub use targets::{differential, drfrlx, models, parse, replay};

/// The names of the targets, as `fuzz_targets/` and `corpus/` name them.
pub const TARGETS: [&str; 5] = ["parse", "differential", "models", "drfrlx", "replay"];

/// Runs target `name` on `data`; `false` for an unknown name.
pub fn run_target(name: &str, data: &[u8]) -> bool {
    match name {
        "parse" => parse::check(data),
        "differential" => differential::check(data),
        "models" => models::check(data),
        "drfrlx" => drfrlx::check(data),
        "replay" => replay::check(data),
        _ => return false,
    }
    true
}
