//! Vulkan's free reads (harness/src/litmus/gpu_free.rs): non-atomic reads
//! whose values nothing depends on are given their writes location by
//! location, so a test with many of them (Dat3M's `xf-barrier`: thirty-six)
//! completes. The tests are scopecheck's own, in corpus/gpu-free.

mod common;

use common::litmus_rows::{corpus_dir, model_options, run_path};
use scopecheck::litmus::{Options, TestResult};

/// corpus/gpu-free's `name` under `vulkan`.
fn run(name: &str) -> TestResult {
    run_with(name, model_options("vulkan"))
}

/// Four readers spin on a release flag, then make four data reads each:
/// before the split each reader ran 2 × 2^4 ways and the 2^20 combinations
/// were past the budget (no verdict). Now every reader's two ways (one or
/// two spin iterations) combine into 2^4 executions per order of the
/// flag's reads, all of them reading 1: the forall holds, proven.
#[test]
fn synchronised_free_reads_complete_with_a_verdict() {
    let r = run("handoff-spin.litmus");
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert_eq!(r.verdict(), Some(true));
    assert_eq!(r.executions, 81);
    assert!(r.race_free());
}

/// The same without release: the sixteen reads race with the writes and
/// can read 0 or 1 each within coherence (3^4 ways per location, 6,561 per
/// combination of the readers' runs). Only a sample is built, which proves
/// the forall false; the result says it is incomplete.
#[test]
fn racing_free_reads_are_sampled_and_say_so() {
    let r = run("handoff-spin-rlx.litmus");
    assert!(!r.complete);
    let why = r.incomplete_reason.clone().unwrap_or_default();
    assert!(
        why.contains("6561 consistent ways") && why.contains("a sample"),
        "{why}"
    );
    assert_eq!(r.verdict(), Some(false));
    assert!(!r.race_free());
}

/// corpus/gpu-free's `name` with `opts`.
fn run_with(name: &str, opts: Options) -> TestResult {
    run_path(&corpus_dir("gpu-free").join(name), &opts)
}

fn reason(r: &TestResult) -> String {
    r.incomplete_reason.clone().unwrap_or_default()
}

/// Twelve racing free reads of three locations: 4,096 consistent ways per
/// graph, so after five graphs the run is known to keep fewer executions
/// than exist (its 20,000 cap). Before, every way was built and judged
/// whole twice, and the run stopped at the memory cap (20,000 executions,
/// 140 s); now the ways are counted before they are built and the run
/// stops as soon as one execution refutes the forall and races.
#[test]
fn a_run_known_incomplete_stops_once_the_forall_is_refuted() {
    let r = run("wide-rlx.litmus");
    assert!(!r.complete);
    let why = reason(&r);
    assert!(
        why.contains("at least 20480 consistent executions, more than the 20000")
            && why.contains("stopped once the 5 executions built proved the condition's answer and a race"),
        "{why}"
    );
    assert_eq!(r.verdict(), Some(false));
    assert_eq!((r.executions, r.positive, r.negative), (5, 0, 5));
    assert!(!r.race_free());
}

/// The same program with an `exists` whose witness needs every location's
/// reads set apart from the first way (P1 reads all 1 while P4 reads all
/// 0), which neither the first way nor the sample's one-location changes
/// give: the search for a settling way (three-valued over the locations)
/// builds it in the first graph; the run stops when the fifth graph's
/// count shows it cannot be complete (six executions: the witness and each
/// graph's first way, built for its races). Before: the memory cap, 20,000
/// executions.
#[test]
fn a_run_known_incomplete_builds_an_exists_witness_first() {
    let r = run("wide-rlx-exists.litmus");
    assert!(!r.complete);
    assert!(
        reason(&r).contains("stopped once the 6 executions built"),
        "{}",
        reason(&r)
    );
    assert_eq!(r.verdict(), Some(true));
    assert_eq!((r.executions, r.positive), (6, 1));
    assert!(!r.race_free());
}

/// `~exists` refuted the same way: one satisfying state is enough.
#[test]
fn a_run_known_incomplete_refutes_a_not_exists() {
    let r = run("wide-rlx-notexists.litmus");
    assert!(!r.complete);
    assert_eq!(r.verdict(), Some(false));
    assert_eq!((r.executions, r.positive), (6, 1));
    assert!(!r.race_free());
}

/// An `exists` no execution can satisfy: nothing is proven, so the run
/// never stops early; it stops at its bound (here `--max-executions 300`,
/// under the 4,096 ways of the first graph) and gives no verdict.
#[test]
fn an_unprovable_condition_runs_to_the_bound_without_a_verdict() {
    let r = run_with(
        "wide-rlx-never.litmus",
        Options {
            max_executions: Some(300),
            ..model_options("vulkan")
        },
    );
    assert!(!r.complete);
    assert_eq!(reason(&r), "stopped after 300 executions (--max-executions)");
    assert_eq!(r.verdict(), None);
    assert_eq!((r.executions, r.positive), (300, 0));
    assert!(!r.race_free());
}

/// With a release flag the reads all read 1 and nothing races: one way per
/// graph, complete, the forall holds.
#[test]
fn synchronised_wide_reads_complete() {
    let r = run("wide-rel.litmus");
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert_eq!(r.verdict(), Some(true));
    assert_eq!((r.executions, r.positive), (81, 81));
    assert!(r.race_free());
}

/// 512 ways per graph (more than the first pass builds at once) but 13,824
/// executions in all, under the cap: the first pass defers those ways, the
/// second builds them, and the run is complete with the counts the
/// enumeration that built every way at once gave (litmus_gpu_free_whole.rs
/// cross-checks them with the whole judgement).
#[test]
fn deferred_ways_are_built_when_the_run_can_be_complete() {
    let r = run("narrow-rlx.litmus");
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert_eq!(r.verdict(), Some(true));
    assert_eq!((r.executions, r.positive, r.negative), (13824, 1728, 12096));
    assert_eq!(r.states.len(), 8);
    assert!(!r.race_free());
    let c = run("cbar-mixed.litmus");
    assert!(c.complete, "{:?}", c.incomplete_reason);
    assert_eq!(c.verdict(), Some(false));
    assert_eq!((c.executions, c.positive, c.negative), (625, 4, 621));
    assert!(!c.race_free());
}
