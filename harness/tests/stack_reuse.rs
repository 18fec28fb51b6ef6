//! A finished model thread's coroutine stack goes back to the pool at once,
//! not at the execution's end: a program that spawns and joins threads one
//! after another in one execution maps only as many stacks as it has
//! threads alive at a time. (Before, 40,000 sequential `spawn(|| {}).join()`
//! mapped 40,000 2 MiB stacks and died at 8.8 GB with an "internal error".)

use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::sync::Arc;
use scopecheck::{thread, Builder};
use scopecheck_instrument::rt::stacks_made;

/// Stacks mapped while `f` runs (the counter is this OS thread's, and a
/// model explored with `explore` runs on the calling thread).
fn stacks_made_by(f: impl FnOnce()) -> u64 {
    let before = stacks_made();
    f();
    stacks_made() - before
}

#[test]
fn sequential_spawn_join_reuses_one_stack() {
    let made = stacks_made_by(|| {
        let r = Builder::new().explore(|| {
            for _ in 0..1_000 {
                thread::spawn(|| {}).join().unwrap();
            }
        });
        assert!(r.is_complete() && r.failed() == 0, "{r}");
        assert_eq!(r.executions(), 1, "{r}");
    });
    // Main's stack and one for every child in turn.
    assert_eq!(made, 2);
}

/// Three threads alive at a time, 200 rounds, over several executions:
/// four stacks (main's and three), whatever the number of rounds.
#[test]
fn rounds_of_three_threads_map_four_stacks() {
    let made = stacks_made_by(|| {
        let r = Builder::new().explore(|| {
            let n = Arc::new(AtomicUsize::new(0));
            let m = Arc::new(AtomicUsize::new(0));
            let mut sum = 0;
            for round in 0..200 {
                if round == 0 {
                    // One race, on its own location: two executions.
                    let m2 = m.clone();
                    let h = thread::spawn(move || m2.store(1, Ordering::Relaxed));
                    m.store(2, Ordering::Relaxed);
                    h.join().unwrap();
                }
                // Each thread waits at a visible load, so all three are
                // alive together.
                let hs: Vec<_> = (0..3)
                    .map(|i| {
                        let n = n.clone();
                        thread::spawn(move || n.load(Ordering::Relaxed) + i * 2)
                    })
                    .collect();
                for h in hs {
                    sum += h.join().unwrap();
                }
            }
            assert_eq!(sum, 200 * 6);
        });
        assert!(r.is_complete() && r.failed() == 0, "{r}");
        assert_eq!(r.executions(), 2, "{r}");
    });
    // Main's and three for the round's threads (the racer's is reused).
    assert_eq!(made, 4);
}
