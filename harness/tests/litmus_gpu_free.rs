//! Vulkan's free reads (harness/src/litmus/gpu_free.rs): non-atomic reads
//! whose values nothing depends on are given their writes location by
//! location, so a test with many of them (Dat3M's `xf-barrier`: thirty-six)
//! completes. The tests are scopecheck's own, in corpus/gpu-free.

use scopecheck::litmus::{check_file, LitmusModel, Options, TestResult};
use std::path::Path;

fn run(name: &str) -> TestResult {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/gpu-free")
        .join(name);
    let opts = Options {
        model: Some("vulkan".parse::<LitmusModel>().expect("a model name")),
        ..Options::default()
    };
    check_file(&path, &opts).unwrap_or_else(|e| panic!("{name}: {e:?}"))
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
