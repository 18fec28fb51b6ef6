//! GPU kernels: launch, indices, block and warp barriers, per-block shared
//! state, barrier divergence, and scoped atomics across blocks.

mod common;

use common::{both, builder, outcomes, the_failure};
use scopecheck::cell::UnsafeCell;
use scopecheck::gpu::{launch, Launch};
use scopecheck::scope::Scope;
use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::{FailureKind, MemoryModel, Strategy};

/// Per-block shared memory: one plain slot per thread of the block.
struct Slots(Vec<UnsafeCell<usize>>);

fn slots(n: u32) -> Slots {
    Slots((0..n).map(|_| UnsafeCell::new(0)).collect())
}

/// Each thread writes its own slot, waits at the block barrier, then reads
/// its neighbour's: the barrier orders the plain accesses, so there is no
/// race and every read sees the neighbour's write, in every execution.
fn exchange_in_blocks(grid: u32) -> impl Fn(&dyn Fn(Vec<usize>)) + Clone {
    move |rec: &dyn Fn(Vec<usize>)| {
        let seen: Vec<AtomicUsize> = (0..2 * grid).map(|_| AtomicUsize::new(0)).collect();
        launch(
            Launch::new(grid, 2),
            |_| slots(2),
            |ctx| {
                let me = ctx.thread_idx() as usize;
                ctx.shared().0[me].with_mut(|p| unsafe { *p = 10 * ctx.block_idx() as usize + me + 1 });
                ctx.sync_threads();
                let other = ctx.shared().0[1 - me].with(|p| unsafe { *p });
                seen[ctx.global_idx() as usize].store(other, Ordering::Relaxed);
            },
        );
        // The kernel's end happens before the launch returns.
        rec(seen.iter().map(|s| s.load(Ordering::Relaxed)).collect());
    }
}

#[test]
fn block_barrier_orders_shared_memory() {
    // One block, cross-checked with the reference enumerator.
    let (o, n) = both(MemoryModel::Src11, exchange_in_blocks(1));
    assert_eq!(o, [vec![2, 1]].into_iter().collect());
    // Each thread: one plain write, the barrier, one plain read, one store
    // to its own `seen` slot; no read has a second candidate.
    assert_eq!(n, 1);
    // Two blocks, each with its own shared state (the reference enumerator
    // is too slow for four threads).
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (o, r) = outcomes(&b, exchange_in_blocks(2));
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o, [vec![2, 1, 12, 11]].into_iter().collect());
    assert_eq!(r.executions(), 1);
}

/// Without the barrier the neighbour's slot is a data race.
#[test]
fn without_the_barrier_it_is_a_data_race() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let report = b.explore(|| {
        launch(
            Launch::new(1, 2),
            |_| slots(2),
            |ctx| {
                let me = ctx.thread_idx() as usize;
                ctx.shared().0[me].with_mut(|p| unsafe { *p = 1 });
                let _ = ctx.shared().0[1 - me].with(|p| unsafe { *p });
            },
        );
    });
    the_failure(&report, FailureKind::DataRace);
}

/// A thread that returns before the barrier leaves the others waiting.
#[test]
fn a_thread_skipping_the_barrier_is_divergence() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let report = b.explore(|| {
        launch(
            Launch::new(1, 3),
            |_| (),
            |ctx| {
                if ctx.thread_idx() == 2 {
                    return;
                }
                ctx.sync_threads();
            },
        );
    });
    let f = the_failure(&report, FailureKind::BarrierDivergence);
    assert!(f.message().contains("2 of its 3 threads"), "{}", f.message());
    assert!(f.message().contains("finished"), "{}", f.message());
}

/// Threads of one block at two different barrier calls diverge too.
#[test]
#[allow(clippy::if_same_then_else)] // the two calls are the point: different lines
fn different_barrier_calls_are_divergence() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let report = b.explore(|| {
        launch(
            Launch::new(1, 2),
            |_| (),
            |ctx| {
                if ctx.thread_idx() == 0 {
                    ctx.sync_threads();
                } else {
                    ctx.sync_threads();
                }
            },
        );
    });
    let f = the_failure(&report, FailureKind::BarrierDivergence);
    assert!(f.message().contains("meet at different barriers"), "{}", f.message());
}

/// Warp barriers group threads by warp: with warps of 2, threads 0 and 1
/// meet, and so do 2 and 3, and each pair's plain exchange is race free.
#[test]
fn warp_barriers_group_by_warp() {
    let body = |rec: &dyn Fn(Vec<usize>)| {
        let seen: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
        launch(
            Launch::new(1, 4).warp_size(2),
            |_| slots(4),
            |ctx| {
                let me = ctx.thread_idx() as usize;
                ctx.shared().0[me].with_mut(|p| unsafe { *p = me + 1 });
                ctx.sync_warp();
                let partner = me ^ 1;
                let v = ctx.shared().0[partner].with(|p| unsafe { *p });
                seen[me].store(v, Ordering::Relaxed);
            },
        );
        rec(seen.iter().map(|s| s.load(Ordering::Relaxed)).collect());
    };
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (o, r) = outcomes(&b, body);
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o, [vec![2, 1, 4, 3]].into_iter().collect());
    assert_eq!(r.executions(), 1);
}

/// Seed 001's message passing as a kernel of two blocks of one thread:
/// block 0 publishes through a flag, block 1 reads it. Device scope passes;
/// block scope is a heterogeneous race that lets a data race through.
fn mp_kernel(release: Scope) -> Vec<FailureKind> {
    let mut b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    b.record_races = true;
    let report = b.explore(move || {
        let data = UnsafeCell::new(0usize);
        let flag = AtomicUsize::new(0);
        launch(
            Launch::new(2, 1),
            |_| (),
            |ctx| {
                if ctx.block_idx() == 0 {
                    data.with_mut(|p| unsafe { *p = 42 });
                    flag.store_scoped(1, Ordering::Release, release);
                } else if flag.load_scoped(Ordering::Acquire, Scope::Device) == 1 {
                    assert_eq!(data.with(|p| unsafe { *p }), 42);
                }
            },
        );
    });
    let mut kinds: Vec<FailureKind> = report.failures().iter().map(|f| f.kind()).collect();
    kinds.sort_by_key(|k| format!("{k:?}"));
    kinds
}

#[test]
fn seed_001_message_passing_kernel() {
    assert_eq!(mp_kernel(Scope::Device), vec![]);
    assert_eq!(mp_kernel(Scope::System), vec![]);
    assert_eq!(
        mp_kernel(Scope::Block),
        vec![FailureKind::DataRace, FailureKind::HeterogeneousRace]
    );
}

/// Two launches in a row: the second kernel sees everything the first did
/// (completion synchronizes with the host, which then launches again).
#[test]
fn consecutive_launches_are_ordered() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (o, r) = outcomes(&b, |rec: &dyn Fn(usize)| {
        let cell = UnsafeCell::new(0usize);
        launch(Launch::new(1, 1), |_| (), |_| cell.with_mut(|p| unsafe { *p = 7 }));
        let got = AtomicUsize::new(0);
        launch(
            Launch::new(1, 1),
            |_| (),
            |_| got.store(cell.with(|p| unsafe { *p }), Ordering::Relaxed),
        );
        rec(got.load(Ordering::Relaxed));
    });
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o, [7].into_iter().collect());
}

/// Reads before a barrier may see either value; after it, only the write
/// made before the barrier (optimal and reference explorers agree, so the
/// barrier survives revisits).
#[test]
fn barrier_and_revisits() {
    let body = |rec: &dyn Fn((usize, usize))| {
        let x = AtomicUsize::new(0);
        let before = AtomicUsize::new(9);
        let after = AtomicUsize::new(9);
        launch(
            Launch::new(1, 2),
            |_| (),
            |ctx| {
                let writer = ctx.thread_idx() == 0;
                if writer {
                    x.store(1, Ordering::Relaxed);
                } else {
                    before.store(x.load(Ordering::Relaxed), Ordering::Relaxed);
                }
                ctx.sync_threads();
                if !writer {
                    after.store(x.load(Ordering::Relaxed), Ordering::Relaxed);
                }
            },
        );
        rec((before.load(Ordering::Relaxed), after.load(Ordering::Relaxed)));
    };
    let (o, n) = both(MemoryModel::Src11, body);
    assert_eq!(o, [(0, 1), (1, 1)].into_iter().collect());
    assert_eq!(n, 2);
}
