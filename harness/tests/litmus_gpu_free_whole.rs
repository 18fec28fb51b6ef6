//! Vulkan's free reads (gpu_free.rs) built location by location, with the
//! races of their syncbar choice, against the same executions each judged
//! as a whole graph ([`JUDGE_WHOLE`]: the model's full check and its
//! races), and against the enumeration with all threads at once
//! ([`ALL_AT_ONCE`], no free-read split) where that is small enough: the
//! same states with their counts, verdicts and race pairs.
//!
//! One test in this binary, so the switches are not shared.

mod common;

use common::litmus_rows::{summary as executions_summary, with_switch};
use scopecheck::litmus::{check_file, LitmusModel, Options, TestResult, ALL_AT_ONCE, JUDGE_WHOLE};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::AtomicBool;

fn run(name: &str, switch: Option<&AtomicBool>) -> TestResult {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/gpu-free")
        .join(name);
    let opts = Options {
        model: Some("vulkan".parse::<LitmusModel>().expect("a model name")),
        ..Options::default()
    };
    let r = match switch {
        Some(s) => with_switch(s, true, || check_file(&path, &opts)),
        None => check_file(&path, &opts),
    };
    r.unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

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
    format!("{} racy {} races {pairs:?}", executions_summary(r), r.racy_executions)
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
        let split = run(name, None);
        assert!(split.complete, "{name}: {:?}", split.incomplete_reason);
        assert_eq!(summary(&split), summary(&run(name, Some(&JUDGE_WHOLE))), "{name}");
    }
    // Runs that stop early: every execution they build passes the whole
    // judgement with the same races (a disagreement is an internal error).
    for name in [
        "handoff-spin-rlx.litmus",
        "wide-rlx.litmus",
        "wide-rlx-exists.litmus",
        "wide-rlx-notexists.litmus",
    ] {
        let split = run(name, None);
        assert!(!split.complete, "{name}");
        assert_eq!(summary(&split), summary(&run(name, Some(&JUDGE_WHOLE))), "{name}");
    }
    // Small enough for all threads at once (no free-read split at all).
    let name = "pair-rlx.litmus";
    let split = run(name, None);
    let whole = run(name, Some(&ALL_AT_ONCE));
    assert!(whole.complete, "{name}: {:?}", whole.incomplete_reason);
    assert_eq!(summary(&split), summary(&whole), "{name}");
    assert_eq!((split.executions, split.positive), (81, 2));
}
