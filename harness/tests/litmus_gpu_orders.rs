//! The write orders the po ∪ rf-cyclic enumeration tries under the GPU
//! models (`gpu_orders.rs`): only those the model's coherence leaves.
//!
//! - corpus/gpu-orders: 8 stores to one location in two threads and two
//!   reads; the hand-derived 3,150 executions, complete. With every
//!   permutation (40,320 per set of values read) the enumeration ran out of
//!   its 2,000,000-graph budget and said it was incomplete.
//! - the cross-check: every public PTX and Vulkan test (outside this
//!   repository, see litmus_gpu.rs) that completes with every permutation
//!   ([`EVERY_ORDER`]) gives the same outcomes, counts and races with the
//!   pruned orders. One test in this binary, so the switch is not shared.

use scopecheck::litmus::expect;
use scopecheck::litmus::{check_file, check_source, LitmusModel, Options, TestResult, EVERY_ORDER};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

fn own(file: &str, model: &str) -> TestResult {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/gpu-orders");
    let src = std::fs::read_to_string(dir.join(file)).unwrap();
    let opts = Options {
        model: Some(model.parse::<LitmusModel>().unwrap()),
        ..Options::default()
    };
    check_source(file, &src, &opts).unwrap_or_else(|e| panic!("{file}: {e:?}"))
}

fn corpus() -> Option<PathBuf> {
    let dir = match std::env::var_os("SCOPECHECK_GPU_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/litmus/gpu"),
    };
    if dir.join("expected.tsv").is_file() {
        Some(dir)
    } else {
        eprintln!("skipped: the public GPU corpus is not at {}", dir.display());
        None
    }
}

/// What must not change: everything a run reports about its executions.
fn summary(r: &TestResult) -> String {
    format!(
        "verdict {:?} executions {} positive {} negative {} racy {} states {:?}",
        r.verdict(),
        r.executions,
        r.positive,
        r.negative,
        r.racy_executions,
        r.states
    )
}

#[test]
fn orders_pruned_exactly() {
    // Own tests: every row, and the exact counts.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/gpu-orders");
    let rows = std::fs::read_to_string(dir.join("expected.tsv")).unwrap();
    let mut checked = 0;
    for line in rows.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let [path, model, property, "-", expected] = f.as_slice() else {
            panic!("bad row: {line}")
        };
        let r = own(path, model);
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

    // The cross-check on the public tests.
    let Some(dir) = corpus() else { return };
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
        EVERY_ORDER.store(true, Ordering::Relaxed);
        let all = check_file(&row.path, &opts).unwrap_or_else(|e| panic!("{}: {e:?}", row.path_text));
        EVERY_ORDER.store(false, Ordering::Relaxed);
        if !all.complete {
            continue;
        }
        let pruned = check_file(&row.path, &opts).unwrap_or_else(|e| panic!("{}: {e:?}", row.path_text));
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
