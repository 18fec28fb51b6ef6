//! Running a generated program's litmus text, and what the targets compare.

use scopecheck::litmus::FinalState;
use scopecheck::litmus::{check_source, LitmusModel, Options, TestResult};
use scopecheck::{MemoryModel, Strategy};
use std::collections::BTreeSet;
use std::time::Duration;

/// The file name findings are reported under.
pub const FILE: &str = "fuzz.litmus";

/// Checks `src` (a generated program, so it must be valid) under `model`
/// with `strategy`; panics with the text when the checker refuses it or
/// fails inside.
pub fn run(src: &str, model: MemoryModel, strategy: Strategy) -> TestResult {
    let r = run_for(src, model, strategy, None);
    assert!(
        r.complete,
        "exploration cut short under {model:?}: {:?}\n{src}",
        r.incomplete_reason
    );
    r
}

/// Like [`run`], but stops after `limit` (the result then says it is incomplete).
pub fn run_for(src: &str, model: MemoryModel, strategy: Strategy, limit: Option<Duration>) -> TestResult {
    let opts = Options {
        model: Some(LitmusModel::Engine(model)),
        strategy: strategy.clone(),
        max_duration: limit,
        // The theorems here are about the explorers (po ∪ rf-acyclic
        // executions). The litmus front end's po ∪ rf-cyclic oracle (c11,
        // opencl) is checked by harness/tests/porf_cycles.rs; on generated
        // 3-thread programs with several writes per location its domain
        // search grew past the CI machine's memory (killed by the OOM
        // killer in fuzz/tests/c11.rs).
        porf_cycles: false,
        ..Options::default()
    };
    let r = match check_source(FILE, src, &opts) {
        Ok(r) => r,
        Err(e) => panic!(
            "a generated program was refused under {model:?} ({strategy:?}): {}\n{src}",
            e.located(FILE)
        ),
    };
    assert!(
        r.failures.is_empty(),
        "a generated program failed under {model:?} ({strategy:?}): {:?}\n{src}",
        r.failures.iter().map(|f| f.message()).collect::<Vec<_>>()
    );
    r
}

/// The distinct final states.
pub fn outcomes(r: &TestResult) -> BTreeSet<FinalState> {
    r.states.keys().cloned().collect()
}

/// Each race as its kind and its sorted source lines.
pub fn race_lines(r: &TestResult) -> BTreeSet<(String, Vec<u32>)> {
    r.races
        .iter()
        .map(|f| {
            let mut v: Vec<u32> = f.events().iter().map(|e| e.src.line).collect();
            v.sort_unstable();
            (format!("{:?}", f.kind()), v)
        })
        .collect()
}

/// The final states of `a` missing from `b`, printed one a line.
pub fn missing(a: &BTreeSet<FinalState>, b: &BTreeSet<FinalState>) -> String {
    a.difference(b).map(|s| format!("  {s:?}\n")).collect()
}
