//! Seed 001's scoped synchronization objects: `cuda::barrier` (arrive and
//! wait with tokens, arrive_and_wait, arrive_and_drop, completion),
//! `cuda::latch` and `counting_semaphore` / `binary_semaphore`, at block,
//! device and system scope: what they order, the heterogeneous race of a
//! too-narrow scope, and waits nobody ends reported at the user's line.

mod common;

use common::{both, builder, outcomes, position, the_failure};
use scopecheck::cell::UnsafeCell;
use scopecheck::gpu::{launch, Barrier, BinarySemaphore, CountingSemaphore, Latch, Launch};
use scopecheck::scope::Scope;
use scopecheck::sync::atomic::{AtomicU32, Ordering};
use scopecheck::{FailureKind, MemoryModel, Strategy};

const SRC: &str = include_str!("gpu_sync_objects.rs");

fn read(c: &UnsafeCell<u32>) -> u32 {
    c.with(|p| unsafe { *p })
}

fn write(c: &UnsafeCell<u32>, v: u32) {
    c.with_mut(|p| unsafe { *p = v })
}

/// `grid` blocks of `block` threads share a barrier for all of them at
/// `scope`: each writes its plain slot, then `sync` (which arrives and
/// waits), then reads the next thread's slot. Records what each read.
fn exchange(grid: u32, block: u32, scope: Scope, sync: fn(&Barrier)) -> impl Fn(&dyn Fn(Vec<u32>)) + Clone {
    move |rec: &dyn Fn(Vec<u32>)| {
        let n = grid * block;
        let bar = Barrier::new(n, scope);
        let slots: Vec<UnsafeCell<u32>> = (0..n).map(|_| UnsafeCell::new(0)).collect();
        let seen: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
        launch(
            Launch::new(grid, block),
            |_| (),
            |ctx| {
                let me = ctx.global_idx() as usize;
                write(&slots[me], me as u32 + 1);
                sync(&bar);
                seen[me].store(read(&slots[(me + 1) % n as usize]), Ordering::Relaxed);
            },
        );
        rec(seen.iter().map(|s| s.load(Ordering::Relaxed)).collect());
    }
}

fn arrive_and_wait(b: &Barrier) {
    b.arrive_and_wait();
}

fn arrive_then_wait(b: &Barrier) {
    let token = b.arrive();
    b.wait(token);
}

#[test]
fn a_block_barrier_orders_the_block() {
    for sync in [arrive_and_wait as fn(&Barrier), arrive_then_wait] {
        let (o, n) = both(MemoryModel::Src11, exchange(1, 2, Scope::Block, sync));
        assert_eq!(o, [vec![2, 1]].into_iter().collect());
        // Which thread arrives last (and completes the phase), times how
        // the other's loads of the completion word go; the same count
        // under the reference enumerator (`both`).
        assert_eq!(n, 6);
    }
    // Three threads (the optimal explorer alone: the reference enumerator
    // is slow at three spinning threads).
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (o, r) = outcomes(&b, exchange(1, 3, Scope::Block, arrive_then_wait));
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o, [vec![2, 3, 1]].into_iter().collect());
}

#[test]
fn a_device_barrier_orders_blocks() {
    let (o, n) = both(MemoryModel::Src11, exchange(2, 1, Scope::Device, arrive_and_wait));
    assert_eq!(o, [vec![2, 1]].into_iter().collect());
    assert_eq!(n, 6);
}

/// Seed 001: the barrier's operations are atomic at its scope only. A
/// block-scope barrier shared by two blocks is a heterogeneous race.
#[test]
fn a_block_barrier_across_blocks_is_a_heterogeneous_race() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (_, r) = outcomes(&b, exchange(2, 1, Scope::Block, arrive_and_wait));
    let f = the_failure(&r, FailureKind::HeterogeneousRace);
    assert!(f.fix().is_some_and(|x| x.contains("device scope")), "{f:?}");
}

/// Arriving orders nothing by itself: reading a partner's slot after
/// `arrive` and before `wait` is a data race.
#[test]
fn arriving_alone_does_not_synchronize() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| {
        let bar = Barrier::new(2, Scope::Block);
        let slots = [UnsafeCell::new(0u32), UnsafeCell::new(0)];
        launch(
            Launch::new(1, 2),
            |_| (),
            |ctx| {
                let me = ctx.thread_idx() as usize;
                write(&slots[me], 1);
                let token = bar.arrive();
                let _ = read(&slots[1 - me]);
                bar.wait(token);
            },
        );
    });
    the_failure(&r, FailureKind::DataRace);
}

/// Two phases with a completion function that sums the slots (plain
/// accesses: the completion step happens after every arrival of its phase
/// and before every wait of it returns). Thread 1 drops out in phase 0, so
/// phase 1 expects thread 0 alone.
#[test]
fn completion_and_arrive_and_drop() {
    let body = |rec: &dyn Fn(u32)| {
        let slots: Vec<UnsafeCell<u32>> = (0..2).map(|_| UnsafeCell::new(0)).collect();
        let sums = [UnsafeCell::new(0u32), UnsafeCell::new(0)];
        let phase = AtomicU32::new(0);
        let bar = Barrier::with_completion(2, Scope::Block, || {
            let p = phase.load(Ordering::Relaxed) as usize;
            write(&sums[p], slots.iter().map(read).sum());
            phase.store(p as u32 + 1, Ordering::Relaxed);
        });
        let seen = AtomicU32::new(0);
        launch(
            Launch::new(1, 2),
            |_| (),
            |ctx| {
                let me = ctx.thread_idx() as usize;
                write(&slots[me], me as u32 + 1);
                if me == 1 {
                    bar.arrive_and_drop();
                    return;
                }
                bar.arrive_and_wait();
                let first = read(&sums[0]);
                bar.arrive_and_wait();
                seen.store(first * 100 + read(&sums[1]), Ordering::Relaxed);
            },
        );
        rec(seen.load(Ordering::Relaxed));
    };
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (o, r) = outcomes(&b, body);
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o, [303].into_iter().collect());
}

/// Three threads expected, two arrive: the waits never end, reported as a
/// deadlock at the user's line, as a wait on a cuda::barrier.
#[test]
fn a_missing_arrival_is_a_deadlock_at_the_users_line() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| {
        let bar = Barrier::new(3, Scope::Block);
        launch(Launch::new(1, 2), |_| (), |_| bar.arrive_and_wait());
    });
    let f = the_failure(&r, FailureKind::Deadlock);
    let at = position(file!(), SRC, "|_| bar.^arrive_and_wait());");
    assert!(
        f.message().contains(&format!("waits at {at} on a cuda::barrier")),
        "{}",
        f.message()
    );
}

/// Arriving again before the phase completes, when the phase expects no
/// more arrivals, is undefined behaviour in C++: reported at the call.
#[test]
fn more_arrivals_than_expected_panics() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| {
        let bar = Barrier::new(1, Scope::Block);
        launch(
            Launch::new(1, 2),
            |_| (),
            |_| {
                let _ = bar.arrive();
            },
        );
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(
        f.message().contains("more arrivals than the expected count"),
        "{}",
        f.message()
    );
}

/// A latch counted down by every thread of two blocks, waited for by the
/// host: everything before each count-down is seen after the wait.
#[test]
fn a_latch_publishes_every_count_down() {
    let body = |rec: &dyn Fn(Vec<u32>)| {
        let slots: Vec<UnsafeCell<u32>> = (0..2).map(|_| UnsafeCell::new(0)).collect();
        let done = Latch::new(2, Scope::System);
        scopecheck::thread::scope(|s| {
            s.spawn(|| {
                launch(
                    Launch::new(2, 1),
                    |_| (),
                    |ctx| {
                        write(&slots[ctx.global_idx() as usize], 7);
                        done.count_down(1);
                        // Wait for the other block too (arrive_and_wait would
                        // count down twice).
                        done.wait();
                    },
                );
            });
            done.wait();
            rec(slots.iter().map(read).collect());
        });
    };
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (o, r) = outcomes(&b, body);
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o, [vec![7, 7]].into_iter().collect());
    // The count-down order, and which counters each waiter's loads saw.
    assert_eq!(r.executions(), 24);
}

#[test]
fn a_latch_below_zero_panics_and_a_block_latch_across_blocks_races() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| {
        let l = Latch::new(1, Scope::Device);
        launch(Launch::new(1, 2), |_| (), |_| l.count_down(1));
    });
    assert!(the_failure(&r, FailureKind::Panic).message().contains("below zero"));
    let r = b.explore(|| {
        let l = Latch::new(2, Scope::Block);
        launch(Launch::new(2, 1), |_| (), |_| l.arrive_and_wait(1));
    });
    the_failure(&r, FailureKind::HeterogeneousRace);
}

/// A binary semaphore as a lock around a plain counter: no race, the
/// counter ends at 2; a counting semaphore with two permits lets both in
/// at once: a data race.
#[test]
fn semaphores_admit_as_many_as_their_permits() {
    let body = |rec: &dyn Fn(u32)| {
        let lock = BinarySemaphore::new(1, Scope::Device);
        let counter = UnsafeCell::new(0u32);
        launch(
            Launch::new(2, 1),
            |_| (),
            |_| {
                lock.acquire();
                write(&counter, read(&counter) + 1);
                lock.release();
            },
        );
        rec(read(&counter));
    };
    let (o, n) = both(MemoryModel::Src11, body);
    assert_eq!(o, [2].into_iter().collect());
    // Which block takes the permit first, times the stale reads of the
    // counter before the acquiring compare-exchange (cross-checked).
    assert_eq!(n, 8);

    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| {
        let two = CountingSemaphore::<2>::new(2, Scope::Device);
        let counter = UnsafeCell::new(0u32);
        launch(
            Launch::new(2, 1),
            |_| (),
            |_| {
                two.acquire();
                write(&counter, read(&counter) + 1);
                two.release();
            },
        );
    });
    the_failure(&r, FailureKind::DataRace);
}

/// try_acquire takes a permit only when it sees one; a release past the
/// maximum is undefined behaviour, reported at the call.
#[test]
fn try_acquire_and_release_past_the_maximum() {
    let body = |rec: &dyn Fn((bool, bool))| {
        let s = BinarySemaphore::new(1, Scope::Block);
        let got: Vec<AtomicU32> = (0..2).map(|_| AtomicU32::new(0)).collect();
        launch(
            Launch::new(1, 2),
            |_| (),
            |ctx| {
                got[ctx.thread_idx() as usize].store(s.try_acquire() as u32, Ordering::Relaxed);
            },
        );
        rec((got[0].load(Ordering::Relaxed) == 1, got[1].load(Ordering::Relaxed) == 1));
    };
    let (o, _) = both(MemoryModel::Src11, body);
    // Exactly one permit: never both; either may get it; and a read of the
    // initial permit by both makes one compare-exchange fail on the
    // other's write (it then sees 0), so neither-got-it never happens.
    assert_eq!(o, [(false, true), (true, false)].into_iter().collect());

    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| {
        let s = BinarySemaphore::new(1, Scope::System);
        s.release();
    });
    assert!(the_failure(&r, FailureKind::Panic)
        .message()
        .contains("exceed its maximum 1"));
}

/// A semaphore nobody releases: the acquire never ends, reported as a
/// deadlock on the semaphore at the user's line.
#[test]
fn an_acquire_nobody_releases_is_a_deadlock() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| {
        let s = CountingSemaphore::<4>::new(0, Scope::Device);
        launch(Launch::new(1, 1), |_| (), |_| s.acquire());
    });
    let f = the_failure(&r, FailureKind::Deadlock);
    let at = position(file!(), SRC, "|_| s.^acquire());");
    assert!(
        f.message().contains(&format!("waits at {at} on a counting_semaphore")),
        "{}",
        f.message()
    );
}
