//! Seed 003's forward progress per level: the guarantee between work-items
//! of one work-group chosen apart from the one between work-groups
//! (`Progress::per_level`), and hang reports that name the starving
//! threads and what they wait for.

mod common;

use common::{builder, position, the_failure};
use scopecheck::gpu::{launch, CountingSemaphore, Launch};
use scopecheck::hint;
use scopecheck::scope::Scope;
use scopecheck::sync::atomic::{AtomicU32, Ordering};
use scopecheck::Guarantee::{Fair, Weak};
use scopecheck::{FailureKind, HangInfo, MemoryModel, Progress, Report, Strategy};

const SRC: &str = include_str!("progress_levels.rs");

/// `grid` blocks of `block` threads; the last thread of the grid sets a
/// flag, thread 0 spins until it sees it. With `grid` = 1 the two are
/// work-items of one work-group, with `block` = 1 they are in two.
fn spin_on_last(grid: u32, block: u32) -> impl Fn() {
    move || {
        let flag = AtomicU32::new(0);
        let n = grid * block;
        launch(
            Launch::new(grid, block),
            |_| (),
            |ctx| {
                if ctx.global_idx() == n - 1 {
                    flag.store_scoped(1, Ordering::Release, Scope::Device);
                } else if ctx.global_idx() == 0 {
                    while flag.load_scoped(Ordering::Acquire, Scope::Device) == 0 {
                        hint::spin_loop();
                    }
                }
            },
        );
    }
}

fn run(p: Progress, strategy: &Strategy, f: impl Fn()) -> Report {
    builder(MemoryModel::Src11, strategy.clone()).progress(p).explore(f)
}

fn hang(r: &Report) -> HangInfo {
    the_failure(r, FailureKind::Hang)
        .hang()
        .cloned()
        .expect("a hang names its threads")
}

#[test]
fn per_level_keeps_the_fair_level_fair() {
    assert_eq!(Progress::per_level(Fair, Fair), Progress::Fair);
    assert_eq!(Progress::per_level(Weak, Weak), Progress::Unfair);
    for strategy in [Strategy::Exhaustive, Strategy::Reference] {
        // Within one work-group: fair there, so the spin ends.
        let r = run(Progress::per_level(Fair, Weak), &strategy, spin_on_last(1, 2));
        assert!(r.failures().is_empty(), "{r}");
        assert_eq!(r.executions(), 2);
        // Across work-groups: fair there.
        let r = run(Progress::per_level(Weak, Fair), &strategy, spin_on_last(2, 1));
        assert!(r.failures().is_empty(), "{r}");
        assert_eq!(r.executions(), 2);
    }
}

#[test]
fn a_weak_level_starves_the_writer() {
    for strategy in [Strategy::Exhaustive, Strategy::Reference] {
        // Work-items of one work-group under weak progress within it:
        // thread 1 spins, thread 2 (same block) need never run.
        let r = run(Progress::per_level(Weak, Fair), &strategy, spin_on_last(1, 2));
        assert_eq!(
            hang(&r),
            HangInfo {
                waiting: vec![1],
                awaited: vec![2]
            }
        );
        let m = &the_failure(&r, FailureKind::Hang).message();
        assert!(m.contains("work-items of its own work-group"), "{m}");
        assert!(
            m.contains("per level: weak within a work-group, fair between work-groups"),
            "{m}"
        );
        // Two work-groups under weak progress between them.
        let r = run(Progress::per_level(Fair, Weak), &strategy, spin_on_last(2, 1));
        assert_eq!(
            hang(&r),
            HangInfo {
                waiting: vec![1],
                awaited: vec![2]
            }
        );
        let m = &the_failure(&r, FailureKind::Hang).message();
        assert!(m.contains("threads outside its work-group"), "{m}");
        // Unfair drops both.
        for (g, b) in [(1, 2), (2, 1)] {
            let r = run(Progress::Unfair, &strategy, spin_on_last(g, b));
            assert_eq!(
                hang(&r),
                HangInfo {
                    waiting: vec![1],
                    awaited: vec![2]
                }
            );
        }
    }
}

/// A wait that a fair work-item of the spinner's group could end is not a
/// hang even though a starvable one could end it too.
#[test]
fn a_fair_writer_is_enough() {
    let body = || {
        let flag = AtomicU32::new(0);
        launch(
            Launch::new(2, 2),
            |_| (),
            |ctx| {
                match ctx.global_idx() {
                    0 => {
                        while flag.load_scoped(Ordering::Acquire, Scope::Device) == 0 {
                            hint::spin_loop();
                        }
                    }
                    // Its own work-group's other work-item, and one of the other group.
                    1 | 2 => {
                        flag.store_scoped(1, Ordering::Release, Scope::Device);
                    }
                    _ => {}
                }
            },
        );
    };
    let r = run(Progress::per_level(Fair, Weak), &Strategy::Exhaustive, body);
    assert!(r.failures().is_empty(), "{r}");
    let r = run(Progress::per_level(Weak, Fair), &Strategy::Exhaustive, body);
    assert!(r.failures().is_empty(), "{r}");
    let r = run(Progress::Unfair, &Strategy::Exhaustive, body);
    assert_eq!(
        hang(&r),
        HangInfo {
            waiting: vec![1],
            awaited: vec![2, 3, 4]
        }
    );
}

/// A semaphore one work-group waits on and another releases, under weak
/// progress between work-groups: the hang names the waiting thread, the
/// semaphore and the user's line.
#[test]
fn a_hang_names_what_the_thread_waits_on() {
    let r = run(Progress::per_level(Fair, Weak), &Strategy::Exhaustive, || {
        let s = CountingSemaphore::<1>::new(0, Scope::Device);
        launch(
            Launch::new(2, 1),
            |_| (),
            |ctx| {
                if ctx.block_idx() == 0 {
                    s.acquire();
                } else {
                    s.release();
                }
            },
        );
    });
    assert_eq!(
        hang(&r),
        HangInfo {
            waiting: vec![1],
            awaited: vec![2]
        }
    );
    let at = position(file!(), SRC, "s.^acquire();");
    let m = &the_failure(&r, FailureKind::Hang).message();
    assert!(
        m.starts_with(&format!("thread 1 (block 0) waits at {at} on a counting_semaphore (")),
        "{m}"
    );
    assert!(m.contains("and thread 2 (block 1) could make it"), "{m}");
}
