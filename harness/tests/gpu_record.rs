//! `gpu::record`: outcomes recorded by kernel threads, collected per
//! complete execution into `Report::outcomes`.

mod common;

use common::{builder, outcomes, the_failure};
use scopecheck::gpu::{launch, record, Launch};
use scopecheck::scope::Scope;
use scopecheck::sync::atomic::{AtomicU32, Ordering};
use scopecheck::{Builder, FailureKind, MemoryModel, Strategy};
use std::collections::BTreeSet;

/// Message passing between two blocks, each recording what it read.
fn mp(release: Ordering, acquire: Ordering) -> impl Fn() {
    move || {
        let data = AtomicU32::new(0);
        let flag = AtomicU32::new(0);
        launch(
            Launch::new(2, 1),
            |_| (),
            |ctx| {
                if ctx.block_idx() == 0 {
                    data.store(1, Ordering::Relaxed);
                    flag.store_scoped(1, release, Scope::Device);
                } else {
                    record("flag", flag.load_scoped(acquire, Scope::Device));
                    record("data", data.load(Ordering::Relaxed));
                }
            },
        );
    }
}

fn set(v: &[&str]) -> BTreeSet<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn recorded_outcomes_are_the_outcome_set_with_counts() {
    for strategy in [Strategy::Exhaustive, Strategy::Reference] {
        let b = builder(MemoryModel::Src11, strategy.clone());
        let r = b.explore(mp(Ordering::Release, Ordering::Acquire));
        assert!(r.failures().is_empty(), "{r}");
        assert_eq!(
            r.outcome_set(),
            set(&["data=0; flag=0", "data=1; flag=0", "data=1; flag=1"])
        );
        assert_eq!(r.executions(), 3);
        // One execution per outcome: the reference enumerator runs a graph
        // once per interleaving but counts it, and its outcome, once.
        assert!(r.outcomes().values().all(|&n| n == 1), "{:?}", r.outcomes());
        let r = b.explore(mp(Ordering::Relaxed, Ordering::Relaxed));
        assert_eq!(
            r.outcome_set(),
            set(&["data=0; flag=0", "data=0; flag=1", "data=1; flag=0", "data=1; flag=1"])
        );
        assert_eq!(r.executions(), 4);
    }
}

/// The same set as a test routing results through its own collector.
#[test]
fn recording_agrees_with_a_hand_made_collector() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (o, _) = outcomes(&b, |rec: &dyn Fn((u32, u32))| {
        let data = AtomicU32::new(0);
        let flag = AtomicU32::new(0);
        let got = [AtomicU32::new(0), AtomicU32::new(0)];
        launch(
            Launch::new(2, 1),
            |_| (),
            |ctx| {
                if ctx.block_idx() == 0 {
                    data.store(1, Ordering::Relaxed);
                    flag.store_scoped(1, Ordering::Relaxed, Scope::Device);
                } else {
                    got[0].store(flag.load_scoped(Ordering::Relaxed, Scope::Device), Ordering::Relaxed);
                    got[1].store(data.load(Ordering::Relaxed), Ordering::Relaxed);
                }
            },
        );
        rec((got[1].load(Ordering::Relaxed), got[0].load(Ordering::Relaxed)));
    });
    let hand: BTreeSet<String> = o.iter().map(|(d, f)| format!("data={d}; flag={f}")).collect();
    let r = b.explore(mp(Ordering::Relaxed, Ordering::Relaxed));
    assert_eq!(r.outcome_set(), hand);
}

/// Failed executions count for nothing: an assertion that fails on one
/// outcome leaves that outcome out, and the counts add up to the complete
/// executions. An execution that records nothing has the empty outcome.
#[test]
fn only_complete_executions_count() {
    let mut b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    b.max_failures = 10;
    let r = b.explore(|| {
        let x = AtomicU32::new(0);
        launch(
            Launch::new(1, 2),
            |_| (),
            |ctx| {
                if ctx.thread_idx() == 0 {
                    x.store(1, Ordering::Relaxed);
                } else {
                    let v = x.load(Ordering::Relaxed);
                    record("v", v);
                    assert_eq!(v, 0, "the failing outcome");
                }
            },
        );
    });
    assert_eq!(r.failures().len(), 1);
    assert_eq!(r.executions(), 1);
    assert_eq!(r.outcome_set(), set(&["v=0"]));
    assert_eq!(r.outcomes().values().sum::<u64>(), r.executions());

    let r = Builder::new().explore(|| {
        let _ = AtomicU32::new(0);
    });
    assert_eq!(r.outcome_set(), set(&[""]));
    assert_eq!(r.outcomes().values().sum::<u64>(), 1);
}

/// A key recorded twice in one execution is reported at the second call;
/// the host may record too (after the kernel, say), and the parallel
/// explorer collects the same histogram.
#[test]
fn keys_are_recorded_once_and_every_runner_collects() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| {
        launch(Launch::new(1, 2), |_| (), |_| record("same", 1));
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(
        f.message()
            .contains("key `same` was already recorded in this execution"),
        "{}",
        f.message()
    );

    let body = || {
        let n = AtomicU32::new(0);
        launch(
            Launch::new(3, 1),
            |_| (),
            |ctx| {
                record(format!("t{}", ctx.block_idx()), n.fetch_add(1, Ordering::Relaxed));
            },
        );
        record("host", n.load(Ordering::Relaxed));
    };
    let serial = b.explore(body);
    assert_eq!(serial.executions(), 6);
    assert_eq!(serial.outcomes().len(), 6);
    assert!(serial.outcome_set().contains("host=3; t0=0; t1=1; t2=2"));
    let parallel = b.explore_parallel(2, body);
    assert_eq!(parallel.outcomes(), serial.outcomes());
}
