//! PCT (`Strategy::Pct`): it only produces executions the model allows, it
//! reaches every outcome of a small program, and on a bug that needs one
//! thread to run a long stretch before another takes a step it beats the
//! uniform random walk by a wide margin (the reason PCT exists).

mod common;

use common::the_failure;
use scopecheck::sync::atomic::{AtomicUsize, Ordering::*};
use scopecheck::sync::{Arc, Mutex};
use scopecheck::thread;
use scopecheck::{Builder, FailureKind, Strategy};
use std::collections::BTreeSet;

/// Store buffering, relaxed: the final (r0, r1) pairs.
fn sb_outcomes(strategy: Strategy) -> BTreeSet<(usize, usize)> {
    let seen = std::sync::Mutex::new(BTreeSet::new());
    let mut b = Builder::new();
    b.strategy = strategy;
    let report = b.explore(|| {
        let x = Arc::new(AtomicUsize::new(0));
        let y = Arc::new(AtomicUsize::new(0));
        let (x2, y2) = (x.clone(), y.clone());
        let t = thread::spawn(move || {
            x2.store(1, Relaxed);
            y2.load(Relaxed)
        });
        y.store(1, Relaxed);
        let r0 = x.load(Relaxed);
        let r1 = t.join().unwrap();
        seen.lock().unwrap().insert((r0, r1));
    });
    assert!(report.failures().is_empty(), "{report}");
    seen.into_inner().unwrap()
}

#[test]
fn pct_gives_exactly_the_outcomes_the_model_allows() {
    let all = sb_outcomes(Strategy::Exhaustive);
    assert_eq!(all.len(), 4);
    let pct = |depth| {
        sb_outcomes(Strategy::Pct {
            seed: 5,
            iterations: 300,
            depth,
        })
    };
    // Depth 1 never preempts: one thread runs to its end first, so its load
    // cannot read the other's store (that store does not exist yet), and
    // (1, 1) is out of reach; every other outcome comes from the memory
    // choices.
    let mut unpreempted = all.clone();
    unpreempted.remove(&(1, 1));
    assert_eq!(pct(1), unpreempted);
    // One change point is enough for the rest.
    assert_eq!(pct(2), all);
    assert_eq!(pct(3), all);
}

/// Thread 1 bumps a counter `steps` times, then sets `done`; the main
/// thread's first access checks `done`. Seeing it set needs thread 1 to
/// run all its steps before the main thread takes one: about 2^-steps for
/// a uniformly random scheduler, about 1/2 for PCT (thread 1 simply has the
/// higher priority).
fn executions_to_failure(strategy: Strategy, steps: usize) -> u64 {
    let mut b = Builder::new();
    b.strategy = strategy;
    let report = b.explore(move || {
        let noise = Arc::new(AtomicUsize::new(0));
        let done = Arc::new(Mutex::new(false));
        let (n2, d2) = (noise.clone(), done.clone());
        let t = thread::spawn(move || {
            for _ in 0..steps {
                n2.fetch_add(1, Relaxed);
            }
            *d2.lock().unwrap() = true;
        });
        assert!(!*done.lock().unwrap(), "thread 1 finished first");
        t.join().unwrap();
    });
    the_failure(&report, FailureKind::Panic);
    report.runs()
}

#[test]
fn pct_finds_a_long_preemption_free_stretch_far_sooner_than_random() {
    let seeds = 0..10u64;
    let pct: u64 = seeds
        .clone()
        .map(|seed| {
            executions_to_failure(
                Strategy::Pct {
                    seed,
                    iterations: 100_000,
                    depth: 2,
                },
                8,
            )
        })
        .sum();
    let random: u64 = seeds
        .map(|seed| {
            executions_to_failure(
                Strategy::Random {
                    seed,
                    iterations: 100_000,
                },
                8,
            )
        })
        .sum();
    println!("executions to the failure over 10 seeds: pct {pct}, random {random}");
    assert!(pct * 10 < random, "pct {pct}, random {random}");
}

/// The message a refused configuration panics with.
fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Depth 0 does not exist (depth is the number of ordering constraints a bug
/// needs): the Builder refuses it instead of running depth 1 silently.
#[test]
fn pct_depth_0_is_refused_by_the_builder() {
    let r = std::panic::catch_unwind(|| {
        sb_outcomes(Strategy::Pct {
            seed: 1,
            iterations: 10,
            depth: 0,
        })
    });
    let msg = panic_text(r.expect_err("depth 0 is refused"));
    assert!(msg.contains("Builder::strategy: PCT depth 0 does not exist"), "{msg}");
}

/// The same through a `RunConfig` (the litmus front end's path to the runtime).
#[test]
fn pct_depth_0_is_refused_by_the_runtime() {
    let src = "C SB\n{ x = 0; y = 0; }\n\
        P0 (atomic_int* x, atomic_int* y) { atomic_store_explicit(x, 1, memory_order_relaxed); }\n\
        exists (x=1)\n";
    let opts = |depth| scopecheck::litmus::Options {
        strategy: Strategy::Pct {
            seed: 1,
            iterations: 10,
            depth,
        },
        ..Default::default()
    };
    let ok = scopecheck::litmus::check_source("t.litmus", src, &opts(1)).unwrap();
    assert_eq!(ok.verdict(), Some(true));
    let r = std::panic::catch_unwind(|| scopecheck::litmus::check_source("t.litmus", src, &opts(0)));
    let msg = panic_text(r.expect_err("depth 0 is refused"));
    assert!(msg.contains("PCT depth 0 does not exist"), "{msg}");
}

/// A sampled run of zero iterations runs nothing: the Builder refuses it
/// (it used to report `complete` and let `check` pass on no evidence).
#[test]
fn zero_iterations_are_refused_by_the_builder() {
    for strategy in [
        Strategy::Random { seed: 1, iterations: 0 },
        Strategy::Pct {
            seed: 1,
            iterations: 0,
            depth: 2,
        },
    ] {
        let r = std::panic::catch_unwind(|| {
            let mut b = scopecheck::Builder::new();
            b.strategy = strategy.clone();
            b.check(|| panic!("never run"));
        });
        let msg = panic_text(r.expect_err("0 iterations are refused"));
        assert!(
            msg.contains("Builder::strategy: 0 iterations: a run of no execution answers nothing"),
            "{strategy:?}: {msg}"
        );
    }
}
