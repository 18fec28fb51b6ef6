//! Forward-progress models: a grid-wide spin barrier built from
//! device-scope atomics under the fair, occupancy-bound and unfair models,
//! and spin-waits that hang only because a progress model need never
//! schedule the threads they wait for.

mod common;

use common::{builder, outcomes, position, the_failure};
use scopecheck::cell::UnsafeCell;
use scopecheck::gpu::{launch, Launch};
use scopecheck::hint;
use scopecheck::scope::Scope;
use scopecheck::sync::atomic::{AtomicU32, Ordering};
use scopecheck::{Builder, FailureKind, HangInfo, MemoryModel, Progress, Report, Strategy};

/// A grid of `grid` blocks of `block` threads. Each thread writes its own
/// plain slot, arrives at a grid-wide barrier made of one device-scope
/// counter (acq_rel `fetch_add`, then acquire loads until every thread has
/// arrived), and then reads the slot of the next thread in the grid, which
/// the barrier orders after that thread's write: no race, and every read
/// sees `next + 1`. Records what each thread read.
fn spin_barrier(grid: u32, block: u32) -> impl Fn(&dyn Fn(Vec<u32>)) + Clone {
    move |rec: &dyn Fn(Vec<u32>)| {
        let n = grid * block;
        let arrived = AtomicU32::new(0);
        let slots: Vec<UnsafeCell<u32>> = (0..n).map(|_| UnsafeCell::new(0)).collect();
        let seen: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
        launch(
            Launch::new(grid, block),
            |_| (),
            |ctx| {
                let me = ctx.global_idx();
                slots[me as usize].with_mut(|p| unsafe { *p = me + 1 });
                arrived.fetch_add_scoped(1, Ordering::AcqRel, Scope::Device);
                while arrived.load_scoped(Ordering::Acquire, Scope::Device) < n {
                    hint::spin_loop();
                }
                let next = ((me + 1) % n) as usize;
                let v = slots[next].with(|p| unsafe { *p });
                seen[me as usize].store(v, Ordering::Relaxed);
            },
        );
        rec(seen.iter().map(|s| s.load(Ordering::Relaxed)).collect());
    }
}

fn src11(progress: Progress) -> Builder {
    builder(MemoryModel::Src11, Strategy::Exhaustive).progress(progress)
}

/// The outcome every execution of the barrier must have: thread i read i + 2 (mod n).
fn passed(n: u32) -> Vec<u32> {
    (0..n).map(|i| (i + 1) % n + 1).collect()
}

fn only_hang(r: &Report) -> HangInfo {
    let f = the_failure(r, FailureKind::Hang);
    f.hang().cloned().expect("a hang names its threads")
}

/// Executions of the barrier with `n` threads of one block each: the
/// `n!` orders of the arrivals (the `fetch_add`s), times, per thread, the
/// sequences of counter values its loop can read. The thread that arrived
/// `k`-th (from 0) wrote `k + 1`; its first iteration also wrote, so it never
/// waits; its next (waiting) iteration may read any value from its first on
/// (coherence), and each later one must read a newer write (a repeated read
/// is not explored again), until it reads `n`. That is 3 sequences for the
/// first of 2 threads ([2], [1, 2], [1, 1, 2]) and 1 for the second: 2 * 3 = 6;
/// with 3 threads, 7, 3 and 1: 6 * 21 = 126.
const FAIR_EXECUTIONS: [(u32, u64); 2] = [(2, 6), (3, 126)];

#[test]
fn grid_barrier_passes_under_fair_progress() {
    for (grid, want) in FAIR_EXECUTIONS {
        let (o, r) = outcomes(&src11(Progress::Fair), spin_barrier(grid, 1));
        assert!(r.failures().is_empty(), "{r}");
        assert!(r.is_complete());
        assert_eq!(o, [passed(grid)].into_iter().collect(), "grid {grid}");
        assert_eq!(r.executions(), want, "grid {grid}: {r}");
    }
    // The reference enumerator (every interleaving, judged by the axioms)
    // agrees on two blocks.
    let (o, n) = common::both(MemoryModel::Src11, spin_barrier(2, 1));
    assert_eq!(o, [passed(2)].into_iter().collect());
    assert_eq!(n, 6);
}

#[test]
fn grid_barrier_hangs_when_blocks_outnumber_resident_slots() {
    let r = src11(Progress::OccupancyBound { resident_blocks: 2 }).explore(|| spin_barrier(3, 1)(&|_| {}));
    let h = only_hang(&r);
    // Thread 0 launches; blocks 0, 1, 2 are threads 1, 2, 3.
    assert_eq!(h.waiting, vec![1, 2]);
    assert_eq!(h.awaited, vec![3]);
    assert_eq!(
        r.failures()[0].message(),
        "the resident blocks of device 0 (blocks 0, 1) cannot go on: thread 1 (block 0) spins on loc0.0; \
         thread 2 (block 1) spins on loc0.0; only threads of block 2 (thread 3 (block 2)) could still change \
         that, and block 2 is never scheduled while 2 blocks of the device are resident (progress model: \
         occupancy-bound, 2 resident block(s))"
    );
    // One slot, two blocks: block 0 waits for block 1.
    let r = src11(Progress::OccupancyBound { resident_blocks: 1 }).explore(|| spin_barrier(2, 1)(&|_| {}));
    let h = only_hang(&r);
    assert_eq!((h.waiting, h.awaited), (vec![1], vec![2]));
    // Blocks of two threads: all threads of the resident blocks wait, all
    // threads of the held-back block are awaited.
    let r = src11(Progress::OccupancyBound { resident_blocks: 2 }).explore(|| spin_barrier(3, 2)(&|_| {}));
    let h = only_hang(&r);
    assert_eq!((h.waiting, h.awaited), (vec![1, 2, 3, 4], vec![5, 6]));
    // The reference enumerator finds the same hang.
    let b = builder(MemoryModel::Src11, Strategy::Reference).progress(Progress::OccupancyBound { resident_blocks: 2 });
    let r = b.explore(|| spin_barrier(3, 1)(&|_| {}));
    let h = only_hang(&r);
    assert_eq!((h.waiting, h.awaited), (vec![1, 2], vec![3]));
}

#[test]
fn grid_barrier_is_fine_when_the_blocks_fit() {
    // As many slots as blocks (or more): nothing is held back, and the
    // executions are exactly the fair ones.
    for (grid, want) in FAIR_EXECUTIONS {
        for slots in [grid, grid + 1] {
            let (o, r) = outcomes(
                &src11(Progress::OccupancyBound { resident_blocks: slots }),
                spin_barrier(grid, 1),
            );
            assert!(r.failures().is_empty(), "{r}");
            assert_eq!(o, [passed(grid)].into_iter().collect());
            assert_eq!(r.executions(), want, "grid {grid}, {slots} slots");
        }
    }
}

/// Blocks that only wait on blocks dispatched before them are fine with
/// fewer slots than blocks: block 1 waits for block 0's flag; with one slot,
/// block 0 runs to its end first, then block 1 gets the slot.
#[test]
fn waiting_on_an_earlier_block_is_fine_with_one_slot() {
    let body = |rec: &dyn Fn(u32)| {
        let flag = AtomicU32::new(0);
        let seen = AtomicU32::new(0);
        launch(
            Launch::new(2, 1),
            |_| (),
            |ctx| {
                if ctx.block_idx() == 0 {
                    flag.store_scoped(7, Ordering::Release, Scope::Device);
                } else {
                    let mut v;
                    loop {
                        v = flag.load_scoped(Ordering::Acquire, Scope::Device);
                        if v != 0 {
                            break;
                        }
                        hint::spin_loop();
                    }
                    seen.store(v, Ordering::Relaxed);
                }
            },
        );
        rec(seen.load(Ordering::Relaxed));
    };
    for progress in [Progress::Fair, Progress::OccupancyBound { resident_blocks: 1 }] {
        for strategy in [Strategy::Exhaustive, Strategy::Reference] {
            let b = builder(MemoryModel::Src11, strategy.clone()).progress(progress);
            let (o, r) = outcomes(&b, body);
            assert!(r.failures().is_empty(), "{progress}: {r}");
            assert_eq!(o, [7].into_iter().collect());
            // Block 1's first load reads 7, or reads 0 and then 7 after one wait.
            assert_eq!(r.executions(), 2, "{progress}, {strategy:?}");
        }
    }
    // The other way round (block 0 waits for block 1) hangs with one slot.
    let r = src11(Progress::OccupancyBound { resident_blocks: 1 }).explore(|| {
        let flag = AtomicU32::new(0);
        launch(
            Launch::new(2, 1),
            |_| (),
            |ctx| {
                if ctx.block_idx() == 1 {
                    flag.store_scoped(1, Ordering::Release, Scope::Device);
                } else {
                    while flag.load_scoped(Ordering::Acquire, Scope::Device) == 0 {
                        hint::spin_loop();
                    }
                }
            },
        );
    });
    let h = only_hang(&r);
    assert_eq!((h.waiting, h.awaited), (vec![1], vec![2]));
}

/// Three roles: role 0 waits for role 1, role 2 waits for role 0. Hardware
/// block `b` plays role `roles[b]`.
fn three_roles(roles: [usize; 3]) -> impl Fn() {
    move || {
        let flags: Vec<AtomicU32> = (0..3).map(|_| AtomicU32::new(0)).collect();
        launch(
            Launch::new(3, 1),
            |_| (),
            |ctx| {
                let role = roles[ctx.block_idx() as usize];
                let wait_for = match role {
                    0 => Some(1),
                    2 => Some(0),
                    _ => None,
                };
                if let Some(w) = wait_for {
                    while flags[w].load_scoped(Ordering::Acquire, Scope::Device) == 0 {
                        hint::spin_loop();
                    }
                }
                flags[role].store_scoped(1, Ordering::Release, Scope::Device);
            },
        );
    }
}

/// Blocks are dispatched in index order, and the order matters. With roles
/// in block order and two slots, blocks 0 and 1 start, block 1 finishes,
/// block 2 takes its slot, block 0 goes on: no hang. CUDA does not promise
/// that order: the same kernel with roles 1 and 2 swapped between blocks
/// (as if blocks 0 and 2 were dispatched first) hangs, which is how a test
/// checks a kernel under another dispatch order.
#[test]
fn block_dispatch_order_matters() {
    // Role 0's loop reads [1] or [0, 1]; role 2's likewise: 2 * 2. The
    // reference enumerator, which tries every interleaving the held-back
    // blocks allow, agrees.
    for strategy in [Strategy::Exhaustive, Strategy::Reference] {
        let b = builder(MemoryModel::Src11, strategy.clone()).progress(Progress::OccupancyBound { resident_blocks: 2 });
        let r = b.explore(three_roles([0, 1, 2]));
        assert!(r.failures().is_empty(), "{r}");
        assert!(r.is_complete());
        assert_eq!(r.executions(), 4, "{strategy:?}");
        let r = b.explore(three_roles([0, 2, 1]));
        let h = only_hang(&r);
        assert_eq!((h.waiting, h.awaited), (vec![1, 2], vec![3]), "{strategy:?}");
    }
    // Under fair progress both are fine.
    for roles in [[0, 1, 2], [0, 2, 1]] {
        let r = src11(Progress::Fair).explore(three_roles(roles));
        assert!(r.failures().is_empty(), "{r}");
        assert_eq!(r.executions(), 4);
    }
}

#[test]
fn unfair_progress_hangs_on_the_grid_barrier() {
    let r = src11(Progress::Unfair).explore(|| spin_barrier(2, 1)(&|_| {}));
    let h = only_hang(&r);
    // Block 0 arrives first and waits; block 1 need never run. (The
    // launching thread waits to join the kernel: it is not awaited.)
    assert_eq!((h.waiting, h.awaited), (vec![1], vec![2]));
    assert_eq!(
        r.failures()[0].message(),
        "thread 1 (block 0) spins on loc0.0 waits for a write that no thread has made yet, and thread 2 \
         (block 1) could make it; under the unfair progress model the scheduler may keep running the spinning \
         thread and never run it, so it spins forever"
    );
}

/// Message passing over a spin-wait: fine under fair scheduling; under the
/// unfair model a hang whichever thread is spawned first, since the reader
/// may reach its loop before the writer has run at all.
#[test]
fn unfair_progress_hangs_on_any_spin_wait_for_another_thread() {
    let mp = |writer_first: bool| {
        move |rec: &dyn Fn(u32)| {
            let flag = AtomicU32::new(0);
            let seen = AtomicU32::new(0);
            let writer = || flag.store(1, Ordering::Release);
            let reader = || {
                while flag.load(Ordering::Acquire) == 0 {
                    hint::spin_loop();
                }
                seen.store(1, Ordering::Relaxed);
            };
            scopecheck::thread::scope(|s| {
                if writer_first {
                    s.spawn(writer);
                    s.spawn(reader);
                } else {
                    s.spawn(reader);
                    s.spawn(writer);
                }
            });
            rec(seen.load(Ordering::Relaxed));
        }
    };
    for writer_first in [true, false] {
        let (o, r) = outcomes(&src11(Progress::Fair), mp(writer_first));
        assert!(r.failures().is_empty(), "{r}");
        assert_eq!(o, [1].into_iter().collect());
        // The reader's first load reads 1, or reads 0 and then 1.
        assert_eq!(r.executions(), 2);
        let (w, rd) = if writer_first { (1, 2) } else { (2, 1) };
        for strategy in [Strategy::Exhaustive, Strategy::Reference] {
            let b = builder(MemoryModel::Src11, strategy.clone()).progress(Progress::Unfair);
            let (_, r) = outcomes(&b, mp(writer_first));
            let h = only_hang(&r);
            assert_eq!(
                (h.waiting, h.awaited),
                (vec![rd], vec![w]),
                "writer first: {writer_first}, {strategy:?}"
            );
        }
    }
}

/// Under the unfair model, blocking synchronization is no hang: a block
/// barrier and joins give the fair executions; and a spin-wait whose news
/// is already in its thread's past (it read a later write of the same
/// thread) only waits for that write to become visible, which it does.
#[test]
fn unfair_progress_leaves_blocking_waits_and_visible_news_alone() {
    let barrier = |rec: &dyn Fn(Vec<u32>)| {
        let seen: Vec<AtomicU32> = (0..2).map(|_| AtomicU32::new(0)).collect();
        let cells: Vec<UnsafeCell<u32>> = (0..2).map(|_| UnsafeCell::new(0)).collect();
        launch(
            Launch::new(1, 2),
            |_| (),
            |ctx| {
                let me = ctx.thread_idx() as usize;
                cells[me].with_mut(|p| unsafe { *p = me as u32 + 1 });
                ctx.sync_threads();
                let v = cells[1 - me].with(|p| unsafe { *p });
                seen[me].store(v, Ordering::Relaxed);
            },
        );
        rec(seen.iter().map(|s| s.load(Ordering::Relaxed)).collect());
    };
    for progress in [Progress::Fair, Progress::Unfair] {
        let (o, r) = outcomes(&src11(progress), barrier);
        assert!(r.failures().is_empty(), "{progress}: {r}");
        assert_eq!(o, [vec![2, 1]].into_iter().collect());
        assert_eq!(r.executions(), 1);
    }
    // The writer sets `flag` and then `go`; the reader spins on `flag` only
    // after reading `go == 1`, so the write it waits for is already in its
    // past (po then rf), though with relaxed accesses it may still read 0.
    let news = |rec: &dyn Fn(Vec<u32>)| {
        let flag = AtomicU32::new(0);
        let go = AtomicU32::new(0);
        let seen = AtomicU32::new(9);
        scopecheck::thread::scope(|s| {
            s.spawn(|| {
                flag.store(1, Ordering::Relaxed);
                go.store(1, Ordering::Relaxed);
            });
            s.spawn(|| {
                let g = go.load(Ordering::Relaxed);
                if g == 1 {
                    let mut n = 0;
                    while flag.load(Ordering::Relaxed) == 0 {
                        n += 1;
                        hint::spin_loop();
                    }
                    seen.store(n, Ordering::Relaxed);
                } else {
                    seen.store(g + 5, Ordering::Relaxed);
                }
            });
        });
        rec(vec![seen.load(Ordering::Relaxed)]);
    };
    for progress in [Progress::Fair, Progress::Unfair] {
        let b = builder(MemoryModel::Rc11, Strategy::Exhaustive).progress(progress);
        let (o, r) = outcomes(&b, news);
        assert!(r.failures().is_empty(), "{progress}: {r}");
        // `go` read 0 (5); or `flag` read 1 at once (0), after one wait (1),
        // or after two: the first iteration also read `go`, so a second one
        // reading only `flag`, 0 again, is not a repetition of it (2).
        assert_eq!(
            o,
            [vec![0], vec![1], vec![2], vec![5]].into_iter().collect(),
            "{progress}"
        );
        assert_eq!(r.executions(), 4, "{progress}");
    }
}

/// A spin-wait nobody will ever end is a deadlock under every model, not
/// a progress-model hang.
#[test]
fn a_wait_for_nothing_stays_a_deadlock() {
    for progress in [
        Progress::Fair,
        Progress::OccupancyBound { resident_blocks: 1 },
        Progress::Unfair,
    ] {
        let r = src11(progress).explore(|| {
            let flag = AtomicU32::new(0);
            launch(
                Launch::new(1, 1),
                |_| (),
                |_| {
                    while flag.load_scoped(Ordering::Acquire, Scope::Device) == 0 {
                        hint::spin_loop();
                    }
                },
            );
        });
        let f = the_failure(&r, FailureKind::Deadlock);
        assert!(f.hang().is_none());
    }
}

#[test]
#[should_panic(expected = "Progress::OccupancyBound needs at least one resident block")]
fn zero_resident_blocks_is_a_clear_error() {
    let _ = Builder::new().progress(Progress::OccupancyBound { resident_blocks: 0 });
}

/// A hang's replay token reproduces it (under the same progress model).
#[test]
fn a_hang_replays_from_its_token() {
    let progress = Progress::OccupancyBound { resident_blocks: 2 };
    let r = src11(progress).explore(|| spin_barrier(3, 1)(&|_| {}));
    let token = the_failure(&r, FailureKind::Hang).token().to_string();
    let replay = builder(MemoryModel::Src11, Strategy::Replay(token)).progress(progress);
    let r = replay.explore(|| spin_barrier(3, 1)(&|_| {}));
    assert!(!r.replay_diverged(), "{r}");
    let h = only_hang(&r);
    assert_eq!((h.waiting, h.awaited), (vec![1, 2], vec![3]));
    let r = src11(Progress::Unfair).explore(|| spin_barrier(2, 1)(&|_| {}));
    let token = the_failure(&r, FailureKind::Hang).token().to_string();
    let replay = builder(MemoryModel::Src11, Strategy::Replay(token)).progress(Progress::Unfair);
    let h = only_hang(&replay.explore(|| spin_barrier(2, 1)(&|_| {})));
    assert_eq!((h.waiting, h.awaited), (vec![1], vec![2]));
}

/// A cooperative launch's grid barrier needs every block resident: with
/// fewer slots the resident blocks wait at it for blocks never scheduled.
#[test]
fn grid_barrier_of_a_cooperative_launch_needs_every_block_resident() {
    let kernel = |grid: u32| {
        move || {
            launch(Launch::new(grid, 1), |_| (), |ctx| ctx.sync_grid());
        }
    };
    let r = src11(Progress::OccupancyBound { resident_blocks: 2 }).explore(kernel(3));
    let h = only_hang(&r);
    assert_eq!((h.waiting, h.awaited), (vec![1, 2], vec![3]));
    let f = &r.failures()[0];
    let at = position(file!(), include_str!("progress.rs"), "sync_grid());");
    assert_eq!(
        f.message(),
        format!(
            "the resident blocks of device 0 (blocks 0, 1) cannot go on: thread 1 (block 0) waits at the barrier \
             of the grid of kernel loc0.0 at {at}; thread 2 (block 1) waits at the barrier of the grid of kernel \
             loc0.0 at {at}; only threads of block 2 (thread 3 (block 2)) could still change that, and block 2 is \
             never scheduled while 2 blocks of the device are resident (progress model: occupancy-bound, 2 \
             resident block(s))"
        )
    );
    assert_eq!(
        f.fix(),
        Some(
            "launch no more blocks than can be resident at once (2 here; a cooperative launch, which `sync_grid` \
             needs, refuses larger grids), or do not make a block wait for a block dispatched after it (a higher \
             index), which need not have started"
        )
    );
    for progress in [
        Progress::OccupancyBound { resident_blocks: 3 },
        Progress::Fair,
        Progress::Unfair,
    ] {
        let r = src11(progress).explore(kernel(3));
        assert!(r.failures().is_empty(), "{progress}: {r}");
        assert_eq!(r.executions(), 1);
    }
}

/// A thread that finishes without a visible step (it returns at once) does
/// not start its block: block 1, whose lane 0 returns at once and whose lane
/// 1 sets the flag block 0 waits for, is still held back with one slot.
#[test]
fn a_thread_returning_at_once_does_not_start_its_block() {
    let r = src11(Progress::OccupancyBound { resident_blocks: 1 }).explore(|| {
        let flag = AtomicU32::new(0);
        launch(
            Launch::new(2, 2),
            |_| (),
            |ctx| match (ctx.block_idx(), ctx.thread_idx()) {
                (1, 0) => {}
                (1, _) => flag.store_scoped(1, Ordering::Release, Scope::Device),
                _ => {
                    while flag.load_scoped(Ordering::Acquire, Scope::Device) == 0 {
                        hint::spin_loop();
                    }
                }
            },
        );
    });
    let h = only_hang(&r);
    // Threads 1 and 2 are block 0; 3 (finished) and 4 are block 1.
    assert_eq!((h.waiting, h.awaited), (vec![1, 2], vec![4]));
}
