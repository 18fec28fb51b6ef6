//! Values a GPU litmus test reaches only through a chain of writes across
//! threads (docs/gpu-models.md section 5 item 1; corpus/gpu-chains).
//! Thread by thread, a thread reads another thread's value only from the
//! promised domain; the domains grew only by the values of consistent
//! executions, so three `atom.add x, 1` from x=0 (which need 1 and 2 to be
//! read, and have no consistent execution with the domain {0, 1}) said
//! "0 executions", complete. Now the domains grow by the value-closed
//! partial combinations of the threads' ways (`cyclic/chains.rs`), and the
//! prefixes of the runs a loop cut at the unroll bound (`cut_ways.rs`).
//! Every count here was 0 before. The same files agree with all threads
//! at once in tests/litmus_chains_whole.rs.

mod common;

use common::litmus_rows::{corpus_dir, model_options, run_file, run_source_with};
use scopecheck::litmus::ast::StateVar;
use scopecheck::litmus::{Options, TestResult};
use std::collections::BTreeSet;

/// corpus/gpu-chains' `file` under `model`.
fn own(file: &str, model: &str) -> TestResult {
    run_file(&corpus_dir("gpu-chains"), file, model)
}

/// Complete, no failure, exactly these counts and verdict, and exactly
/// these final states (as `name=value` of the variables listed in each).
#[track_caller]
fn exact(r: &TestResult, executions: u64, positive: u64, verdict: bool, states: &[&str]) {
    common::litmus_rows::exact(r, executions, positive, verdict);
    let got: BTreeSet<String> = r
        .states
        .keys()
        .map(|s| {
            s.iter()
                .map(|(k, v)| match k {
                    StateVar::Loc { name, .. } => format!("{name}={v}"),
                    StateVar::Reg { thread, reg } => format!("{thread}:{reg}={v}"),
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let want: BTreeSet<String> = states.iter().map(|s| s.to_string()).collect();
    assert_eq!(got, want, "{} {}", r.name, r.model);
}

#[test]
fn three_adders() {
    // The three adds are one chain in mo, each reading its predecessor:
    // 3! = 6 executions, x=3 in all.
    for (file, model) in [
        ("add3-ptx.litmus", "ptx6.0"),
        ("add3-ptx.litmus", "ptx7.5"),
        ("add3-vulkan.litmus", "vulkan"),
        ("add3-vulkan.litmus", "vulkan-nochains"),
    ] {
        exact(&own(file, model), 6, 6, true, &["x=3"]);
    }
}

#[test]
fn four_adders() {
    // 4! = 24 orders of the adds, x=4 in all.
    for model in ["ptx6.0", "ptx7.5"] {
        exact(&own("add4-ptx.litmus", model), 24, 24, true, &["x=4"]);
    }
}

#[test]
fn exchanges_pass_on_what_the_adds_read() {
    // 6 orders of the adds times 2 orders of the exchanges of y; y ends
    // with the value the later exchange's thread read. y=1 when P0 or P1
    // read 1 and exchanged last: P0 reads 1 in 2 of the add orders (after
    // P1 or after P2), and its exchange is last in 1 of 2 orders: 2
    // executions, P1 likewise: 4.
    for (file, model) in [
        ("exch-pass-ptx.litmus", "ptx6.0"),
        ("exch-pass-ptx.litmus", "ptx7.5"),
        ("exch-pass-vulkan.litmus", "vulkan"),
        ("exch-pass-vulkan.litmus", "vulkan-nochains"),
    ] {
        let r = own(file, model);
        let ys: BTreeSet<String> = r
            .states
            .keys()
            .flat_map(|s| {
                s.iter()
                    .filter(|(k, _)| matches!(k, StateVar::Loc { name, .. } if name == "y"))
                    .map(|(_, v)| v.to_string())
            })
            .collect();
        assert_eq!(
            ys,
            BTreeSet::from(["0".into(), "1".into(), "2".into()]),
            "{file} {model}"
        );
        assert!(r.complete, "{file} {model}: {:?}", r.incomplete_reason);
        assert_eq!((r.executions, r.positive), (12, 4), "{file} {model}");
        assert_eq!(r.verdict(), Some(true), "{file} {model}");
    }
}

#[test]
fn a_compare_exchange_retried_after_two_adds() {
    // x=3 always: the compare-exchange succeeds reading 0, 1 or 2, after
    // failing on a value the adds wrote. At unroll 1, 14 executions, the
    // count of all threads at once (litmus_chains_whole.rs), which runs
    // past its work cap at the default unroll; there, complete with the
    // same state and verdict.
    for model in ["ptx6.0", "ptx7.5"] {
        let src = std::fs::read_to_string(corpus_dir("gpu-chains").join("cas-retry-ptx.litmus")).unwrap();
        let opts = Options {
            unroll: 1,
            ..model_options(model)
        };
        let r = run_source_with("cas-retry-ptx.litmus", &src, &opts);
        exact(&r, 14, 0, false, &["x=3"]);
        let r = own("cas-retry-ptx.litmus", model);
        exact(&r, r.executions, 0, false, &["x=3"]);
        assert!(r.executions > 14, "{model}: {}", r.executions);
    }
}

#[test]
fn stores_pass_a_value_over_three_threads_to_a_spin_loop() {
    // b = a+1 = 1; c = b+1 (1 or 2); P2 spins until c is not 0, then
    // d = c+1 (2 or 3). d=3 needs c=2, no constant of the test.
    for model in ["ptx6.0", "ptx7.5"] {
        let r = own("store-chain-spin-ptx.litmus", model);
        let ds: BTreeSet<String> = r
            .states
            .keys()
            .flat_map(|s| {
                s.iter()
                    .filter(|(k, _)| matches!(k, StateVar::Loc { name, .. } if name == "d"))
                    .map(|(_, v)| v.to_string())
            })
            .collect();
        assert_eq!(ds, BTreeSet::from(["2".into(), "3".into()]), "{model}");
        assert!(r.complete, "{model}: {:?}", r.incomplete_reason);
        assert_eq!((r.executions, r.positive, r.verdict()), (6, 0, Some(false)), "{model}");
    }
}

#[test]
fn a_thread_writes_and_then_spins_on_the_answer() {
    // P0 stores z=2 and spins while y <= 2; P1 stores y = z+1. Alone, P0
    // never leaves its loop until 3 is promised, and 3 joins only through
    // P0's store of 2 before the loop: the prefix a loop cut at the
    // unroll bound. P1 must read z=2 (else P0 spins forever); P0 reads y
    // 0, 1 or 2 times below 3 before it reads 3 (unroll 2): 3 executions.
    for model in ["ptx6.0", "ptx7.5"] {
        let r = own("write-then-spin-ptx.litmus", model);
        assert!(r.complete, "{model}: {:?}", r.incomplete_reason);
        assert_eq!((r.executions, r.positive, r.verdict()), (3, 0, Some(false)), "{model}");
        let r2: BTreeSet<String> = r
            .states
            .keys()
            .flat_map(|s| {
                s.iter()
                    .filter(|(k, _)| matches!(k, StateVar::Reg { thread: 1, reg } if reg == "r2"))
                    .map(|(_, v)| v.to_string())
            })
            .collect();
        assert_eq!(r2, BTreeSet::from(["3".into()]), "{model}");
    }
}
