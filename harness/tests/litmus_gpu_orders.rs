//! The write orders the po ∪ rf-cyclic enumeration tries under the GPU
//! models (`gpu_orders.rs`): only those the model's coherence leaves.
//!
//! - corpus/gpu-orders: 8 stores to one location in two threads and two
//!   reads; the hand-derived 3,150 executions, complete. With every
//!   permutation (40,320 per set of values read) the enumeration ran out of
//!   its 2,000,000-graph budget and said it was incomplete.
//! - corpus/gpu-spin: three threads spinning on exchanges of one location
//!   (PTX and Vulkan; bound by atomicity, and with one thread in another
//!   CTA or workgroup, where it does not bind). At the default unroll they
//!   are complete with the counts below; before the orders were generated
//!   from the RMWs' atomicity (the rf choices and orders filtered instead)
//!   each ran out of the 2,000,000-graph budget and said it was
//!   incomplete. At unroll 1 every permutation (no pre-check, every rf
//!   choice: the cross-check `CrossChecks::every_order`) finishes too and
//!   must give the same result.
//! - the cross-check: every public PTX and Vulkan test (outside this
//!   repository, see litmus_gpu.rs) that completes with every permutation
//!   ([`CrossChecks::every_order`]) gives the same outcomes, counts and
//!   races with the pruned orders.

mod common;

use common::litmus_rows::{corpus_dir, model_options, run_file, run_path, shared_gpu_corpus, summary};
use scopecheck::litmus::expect;
use scopecheck::litmus::{CrossChecks, Options};

/// Every permutation of every location's writes.
const EVERY_ORDER: CrossChecks = CrossChecks {
    every_order: true,
    all_at_once: false,
    judge_whole: false,
};

#[test]
fn orders_pruned_exactly() {
    // Own tests: every row, and the exact counts.
    let dir = corpus_dir("gpu-orders");
    let rows = std::fs::read_to_string(dir.join("expected.tsv")).unwrap();
    let mut checked = 0;
    for line in rows.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let [path, model, property, "-", expected] = f.as_slice() else {
            panic!("bad row: {line}")
        };
        let r = run_file(&dir, path, model);
        assert!(
            r.complete && r.incomplete_reason.is_none(),
            "{line}: {:?}",
            r.incomplete_reason
        );
        assert_eq!(r.executions, 3_150, "{line}");
        let found = match *property {
            "condition" => r.verdict().expect("a verdict"),
            "race_free" => r.race_free(),
            p => panic!("unknown property {p}"),
        };
        assert_eq!(found, *expected == "1", "{line}");
        checked += 1;
    }
    assert_eq!(checked, 6);

    // Own spin loops: complete, exact counts at the default unroll, and
    // the same as with every order at unroll 1.
    let spin = corpus_dir("gpu-spin");
    let runs = [
        // file, model, executions (unroll 2, unroll 1), racy at unroll 2
        ("swap3-vulkan.litmus", "vulkan", 12, 8, 0),
        ("swap3-vulkan.litmus", "vulkan-nochains", 12, 8, 0),
        ("swap3-vulkan-wg.litmus", "vulkan", 192, 87, 192),
        ("swap3-ptx.litmus", "ptx6.0", 12, 8, 0),
        ("swap3-ptx.litmus", "ptx7.5", 12, 8, 0),
        ("swap3-ptx-cta.litmus", "ptx6.0", 300, 150, 0),
        ("swap3-ptx-cta.litmus", "ptx7.5", 300, 150, 0),
    ];
    for (file, model, n2, n1, racy) in runs {
        let path = spin.join(file);
        let with = |unroll: u32, cross_checks: CrossChecks| Options {
            unroll,
            cross_checks,
            ..model_options(model)
        };
        let r = run_path(&path, &with(2, CrossChecks::default()));
        assert!(r.complete, "{file} {model}: {:?}", r.incomplete_reason);
        assert_eq!((r.executions, r.racy_executions), (n2, racy), "{file} {model}");
        assert_eq!(r.verdict(), Some(true), "{file} {model}: exists x == 0");
        let pruned = run_path(&path, &with(1, CrossChecks::default()));
        let all = run_path(&path, &with(1, EVERY_ORDER));
        assert!(all.complete && pruned.complete, "{file} {model} at unroll 1");
        assert_eq!(pruned.executions, n1, "{file} {model} at unroll 1");
        assert_eq!(summary(&pruned), summary(&all), "{file} {model} at unroll 1");
    }

    // The cross-check on the public tests.
    let Some(dir) = shared_gpu_corpus() else { return };
    let rows = expect::load(&dir.join("expected.tsv")).expect("the GPU expectation file loads");
    let mut seen = std::collections::BTreeSet::new();
    let mut compared = 0;
    for row in rows.iter().filter(|r| r.holds.is_some() || r.race_free.is_some()) {
        if !seen.insert((row.path_text.clone(), row.model.name())) {
            continue;
        }
        let opts = Options {
            model: Some(row.model),
            max_executions: Some(2_000),
            ..Options::default()
        };
        let every = Options {
            cross_checks: EVERY_ORDER,
            ..opts.clone()
        };
        let all = run_path(&row.path, &every);
        if !all.complete {
            continue;
        }
        let pruned = run_path(&row.path, &opts);
        assert!(pruned.complete, "{} {}", row.path_text, row.model.name());
        assert_eq!(
            summary(&pruned),
            summary(&all),
            "{} {}",
            row.path_text,
            row.model.name()
        );
        compared += 1;
    }
    // Exactly the public runs that finish within 2,000 executions with
    // every order (the rest are not compared; a change in either number
    // means the enumeration changed).
    assert_eq!(compared, 271, "public test runs compared");
}
