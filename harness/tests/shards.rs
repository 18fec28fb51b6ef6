//! Sharded exhaustive exploration (`Strategy::Shard { index, count }`): the
//! shards' executions are disjoint and together exactly one whole run's, so
//! their counts and outcome sets add up to the whole run's.

use scopecheck::sync::atomic::{AtomicUsize, Ordering::*};
use scopecheck::sync::Arc;
use scopecheck::thread;
use scopecheck::{Builder, Strategy};
use std::collections::BTreeMap;

/// `threads` threads each doing `adds` relaxed fetch_adds and recording what
/// they read: (executions, multiset of outcomes).
fn fetch_adds(strategy: Strategy, threads: usize, adds: usize) -> (u64, BTreeMap<Vec<usize>, u64>) {
    let seen = std::sync::Mutex::new(BTreeMap::new());
    let mut b = Builder::new();
    b.strategy = strategy;
    let report = b.explore(|| {
        let x = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (0..threads)
            .map(|_| {
                let x = x.clone();
                thread::spawn(move || (0..adds).map(|_| x.fetch_add(1, Relaxed)).collect::<Vec<_>>())
            })
            .collect();
        let reads: Vec<usize> = hs.into_iter().flat_map(|h| h.join().unwrap()).collect();
        // The few executions above the split depth run in every shard but
        // count in shard 0 only.
        if scopecheck::model::execution_counts() {
            *seen.lock().unwrap().entry(reads).or_insert(0) += 1;
        }
    });
    assert!(report.failures().is_empty(), "{report}");
    assert!(report.is_complete(), "{report}");
    (report.executions(), seen.into_inner().unwrap())
}

fn sum_of_shards(count: u32, threads: usize, adds: usize) -> (u64, BTreeMap<Vec<usize>, u64>, Vec<u64>) {
    let mut total = 0;
    let mut outcomes = BTreeMap::new();
    let mut sizes = Vec::new();
    for index in 0..count {
        let (n, o) = fetch_adds(Strategy::Shard { index, count }, threads, adds);
        total += n;
        sizes.push(n);
        for (k, v) in o {
            *outcomes.entry(k).or_insert(0) += v;
        }
    }
    (total, outcomes, sizes)
}

#[test]
fn shards_of_three_by_three_fetch_adds_add_up_to_1680() {
    let (whole, outcomes) = fetch_adds(Strategy::Exhaustive, 3, 3);
    assert_eq!(whole, 1680);
    for count in [1, 2, 3, 8] {
        let (total, shard_outcomes, sizes) = sum_of_shards(count, 3, 3);
        assert_eq!(total, 1680, "{count} shards: {sizes:?}");
        // Each execution is counted by exactly one shard, so even the
        // multiset of outcomes (how many executions end in each) agrees.
        assert_eq!(shard_outcomes, outcomes, "{count} shards");
        println!("{count} shards: {sizes:?}");
    }
}

#[test]
fn shards_of_five_single_fetch_adds_add_up_to_120() {
    let (total, outcomes, sizes) = sum_of_shards(4, 5, 1);
    assert_eq!(total, 120, "{sizes:?}");
    assert_eq!(outcomes, fetch_adds(Strategy::Exhaustive, 5, 1).1);
}

#[test]
fn a_shard_that_does_not_exist_is_a_clear_error() {
    let r = std::panic::catch_unwind(|| {
        fetch_adds(Strategy::Shard { index: 2, count: 2 }, 2, 1);
    });
    let msg = r.expect_err("shard 2/2 is refused");
    let text = msg
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| msg.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(text.contains("shard 2/2 does not exist"), "{text}");
}

/// Three threads × three relaxed fetch_adds: what each thread read.
fn three_by_three() -> Vec<Vec<usize>> {
    let x = Arc::new(AtomicUsize::new(0));
    let hs: Vec<_> = (0..3)
        .map(|_| {
            let x = x.clone();
            thread::spawn(move || (0..3).map(|_| x.fetch_add(1, Relaxed)).collect::<Vec<_>>())
        })
        .collect();
    hs.into_iter().map(|h| h.join().unwrap()).collect()
}

/// [`three_by_three`], failing when thread 1's first increment is the very
/// first one (a ninth of the 1680 executions: 560).
fn three_by_three_failing() {
    let reads = three_by_three();
    assert_ne!(reads[0][0], 0, "thread 1 incremented first");
}

#[test]
fn parallel_exploration_gives_the_counts_of_one_run() {
    let mut b = Builder::new();
    b.max_failures = usize::MAX;
    let one = b.explore(three_by_three_failing);
    for threads in [1, 2, 3] {
        let par = b.explore_parallel(threads, three_by_three_failing);
        assert!(par.is_complete(), "{par}");
        assert_eq!(
            (par.executions(), par.failed(), par.blocked()),
            (one.executions(), one.failed(), one.blocked()),
            "{threads} threads"
        );
        // One report per failing execution, as in one run.
        assert_eq!(par.failures().len(), 560, "{threads} threads");
    }
    assert_eq!((one.executions() + one.failed(), one.failed()), (1680, 560));
}

/// Parallel exploration's outcome multiset: every execution is run by
/// exactly one thread, so the outcomes tallied across threads are the
/// whole run's, outcome by outcome (3 × 3 `fetch_add`s: 1680).
#[test]
fn parallel_exploration_runs_every_execution_once() {
    let outcomes = |threads: usize| {
        let seen = std::sync::Mutex::new(BTreeMap::new());
        let report = Builder::new().explore_parallel(threads, || {
            let reads: Vec<usize> = three_by_three().into_iter().flatten().collect();
            *seen.lock().unwrap().entry(reads).or_insert(0u64) += 1;
        });
        assert!(report.is_complete(), "{report}");
        assert_eq!(report.executions(), 1680, "{threads} threads");
        seen.into_inner().unwrap()
    };
    let one = fetch_adds(Strategy::Exhaustive, 3, 3).1;
    assert_eq!(one.values().sum::<u64>(), 1680);
    for threads in [1, 2, 3] {
        assert_eq!(outcomes(threads), one, "{threads} threads");
    }
}

/// The limits bound the whole parallel run, not each thread: exactly
/// `max_executions` executions in all, and the first failure stops every
/// thread (one failure reported, as in one run).
#[test]
fn parallel_limits_bound_the_whole_run() {
    for threads in [2, 3] {
        let mut b = Builder::new();
        b.max_failures = usize::MAX;
        b.max_executions = Some(100);
        let r = b.explore_parallel(threads, three_by_three_failing);
        assert_eq!(r.executions() + r.failed() + r.blocked(), 100, "{threads} threads: {r}");
        assert!(!r.is_complete());
        assert_eq!(r.incomplete_reason(), Some("stopped after max_executions = 100"));

        let r = Builder::new().explore_parallel(threads, three_by_three_failing);
        assert_eq!(r.failures().len(), 1, "{threads} threads: {r}");
        assert!(!r.is_complete());
        assert_eq!(r.incomplete_reason(), Some("stopped at the first failure"));
    }
}
