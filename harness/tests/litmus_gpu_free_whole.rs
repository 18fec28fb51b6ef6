//! Vulkan's free reads (gpu_free.rs) built location by location, with the
//! races of their syncbar choice, against the same executions each judged
//! as a whole graph (the cross-check `CrossChecks::judge_whole`: the
//! model's full check and its races), and against the enumeration with all
//! threads at once (`CrossChecks::all_at_once`, no free-read split) where
//! that is small enough: the same states with their counts, verdicts and
//! race pairs.

mod common;

use common::litmus_rows::{corpus_dir, cross_checked, run_path, summary as executions_summary};
use scopecheck::litmus::{CrossChecks, TestResult};
use std::collections::BTreeSet;

/// corpus/gpu-free's `name` under `vulkan`, with the cross-checks `checks`.
fn run(name: &str, checks: CrossChecks) -> TestResult {
    run_path(&corpus_dir("gpu-free").join(name), &cross_checked("vulkan", checks))
}

const SPLIT: CrossChecks = CrossChecks {
    every_order: false,
    all_at_once: false,
    judge_whole: false,
};
const JUDGE_WHOLE: CrossChecks = CrossChecks {
    judge_whole: true,
    ..SPLIT
};
const ALL_AT_ONCE: CrossChecks = CrossChecks {
    all_at_once: true,
    ..SPLIT
};

/// What must agree: completeness, verdict, counts, states, race pairs.
fn summary(r: &TestResult) -> String {
    let pairs: BTreeSet<String> = r
        .races
        .iter()
        .map(|f| {
            f.events()
                .iter()
                .map(|e| e.src.to_string())
                .collect::<Vec<_>>()
                .join(" / ")
        })
        .collect();
    format!("{} races {pairs:?}", executions_summary(r))
}

#[test]
fn free_reads_agree_with_the_whole_judgement_and_all_threads_at_once() {
    // Complete runs: the same everything with every way judged whole.
    for name in [
        "handoff-spin.litmus",
        "wide-rel.litmus",
        "narrow-rlx.litmus",
        "cbar-mixed.litmus",
        "pair-rlx.litmus",
    ] {
        let split = run(name, SPLIT);
        assert!(split.complete, "{name}: {:?}", split.incomplete_reason);
        assert_eq!(summary(&split), summary(&run(name, JUDGE_WHOLE)), "{name}");
    }
    // Runs that stop early: every execution they build passes the whole
    // judgement with the same races (a disagreement is an internal error).
    for name in [
        "handoff-spin-rlx.litmus",
        "wide-rlx.litmus",
        "wide-rlx-exists.litmus",
        "wide-rlx-notexists.litmus",
    ] {
        let split = run(name, SPLIT);
        assert!(!split.complete, "{name}");
        assert_eq!(summary(&split), summary(&run(name, JUDGE_WHOLE)), "{name}");
    }
    // Small enough for all threads at once (no free-read split at all).
    let name = "pair-rlx.litmus";
    let split = run(name, SPLIT);
    let whole = run(name, ALL_AT_ONCE);
    assert!(whole.complete, "{name}: {:?}", whole.incomplete_reason);
    assert_eq!(summary(&split), summary(&whole), "{name}");
    assert_eq!((split.executions, split.positive), (81, 2));
}
