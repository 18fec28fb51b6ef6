//! `thread::yield_now` is a scheduling hint, not a wait (issue 21 item 4):
//! a yield outside a loop changes nothing the checker explores, while a
//! loop around a yield that learns nothing is still caught as a spin wait.

mod common;

use scopecheck::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use scopecheck::sync::{Arc, Mutex, RwLock};
use scopecheck::{thread, Builder, FailureKind, MemoryModel, Report};

fn explore(f: impl Fn()) -> Report {
    Builder::new().explore(f)
}

fn clean(r: &Report) -> u64 {
    assert!(r.failures().is_empty(), "{r}");
    assert!(r.is_complete(), "{r}");
    r.executions()
}

/// loom 0.7's `rwlock_read_two_write_one`, with and without its yields: the
/// yields after taking the lock were false deadlocks (each thread waited for
/// a write to the lock word only it could make).
fn read_two_write_one(yields: bool) {
    let lock = Arc::new(RwLock::new(1));
    for _ in 0..2 {
        let lock = lock.clone();
        thread::spawn(move || {
            let _l = lock.read().unwrap();
            if yields {
                thread::yield_now();
            }
        });
    }
    let _l = lock.write().unwrap();
    if yields {
        thread::yield_now();
    }
}

/// loom 0.7's `rwlock_write_three`.
fn write_three(yields: bool) {
    let lock = Arc::new(RwLock::new(1));
    for _ in 0..2 {
        let lock = lock.clone();
        thread::spawn(move || {
            let _l = lock.write().unwrap();
            if yields {
                thread::yield_now();
            }
        });
    }
    let _l = lock.write().unwrap();
    if yields {
        thread::yield_now();
    }
}

#[test]
fn a_lone_yield_under_a_lock_is_not_a_deadlock() {
    let with = clean(&explore(|| read_two_write_one(true)));
    assert_eq!(with, clean(&explore(|| read_two_write_one(false))));
    let with = clean(&explore(|| write_three(true)));
    assert_eq!(with, clean(&explore(|| write_three(false))));
}

/// Straight-line yields at different lines, each after reading the same
/// location that nobody else writes, never wait: no hang, and the same
/// executions and outcomes as without them.
#[test]
fn straight_line_yields_never_wait() {
    let body = |yields: bool| {
        move |rec: &dyn Fn((usize, usize))| {
            let x = Arc::new(AtomicUsize::new(0));
            let y = Arc::new(AtomicUsize::new(0));
            let (x2, y2) = (x.clone(), y.clone());
            let t = thread::spawn(move || {
                y2.store(1, Ordering::Relaxed);
                let a = x2.load(Ordering::Relaxed);
                if yields {
                    thread::yield_now();
                }
                let b = x2.load(Ordering::Relaxed);
                if yields {
                    thread::yield_now();
                }
                let _ = (a, b);
            });
            x.store(1, Ordering::Relaxed);
            let r0 = y.load(Ordering::Relaxed);
            if yields {
                thread::yield_now();
            }
            let r1 = y.load(Ordering::Relaxed);
            if yields {
                thread::yield_now();
            }
            rec((r0, r1));
            t.join().unwrap();
        }
    };
    let (o1, n1) = common::both(MemoryModel::Rc11, body(true));
    let (o0, n0) = common::both(MemoryModel::Rc11, body(false));
    assert_eq!(o1, o0);
    assert_eq!(n1, n0);
}

/// A bounded loop around a yield that writes each time never waits.
#[test]
fn yield_in_a_bounded_loop_that_writes_never_waits() {
    let r = explore(|| {
        let n = Arc::new(AtomicUsize::new(0));
        let n2 = n.clone();
        let t = thread::spawn(move || {
            for _ in 0..3 {
                n2.fetch_add(1, Ordering::Relaxed);
                thread::yield_now();
            }
        });
        n.fetch_add(1, Ordering::Relaxed);
        thread::yield_now();
        t.join().unwrap();
        assert_eq!(n.load(Ordering::Relaxed), 4);
    });
    clean(&r);
}

/// A spin loop that waits with `yield_now` has the outcomes of the same loop
/// with `spin_loop`, with one more stale iteration allowed before the loop
/// is known (its first iteration cannot wait: it may be a lone yield).
fn flag_loop(use_yield: bool) -> impl Fn(&dyn Fn(usize)) + Clone {
    move |rec: &dyn Fn(usize)| {
        let flag = Arc::new(AtomicBool::new(false));
        let data = Arc::new(AtomicUsize::new(0));
        let (f2, d2) = (flag.clone(), data.clone());
        let t = thread::spawn(move || {
            d2.store(7, Ordering::Relaxed);
            f2.store(true, Ordering::Release);
        });
        while !flag.load(Ordering::Acquire) {
            if use_yield {
                thread::yield_now();
            } else {
                scopecheck::hint::spin_loop();
            }
        }
        rec(data.load(Ordering::Relaxed));
        t.join().unwrap();
    }
}

/// Waits until two other threads have each added one to a counter.
fn counter_loop(use_yield: bool) -> impl Fn(&dyn Fn(usize)) + Clone {
    move |rec: &dyn Fn(usize)| {
        let n = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let n = n.clone();
                thread::spawn(move || {
                    n.fetch_add(1, Ordering::Release);
                })
            })
            .collect();
        let mut seen = 0;
        loop {
            let v = n.load(Ordering::Acquire);
            seen += 1;
            if v == 2 {
                break;
            }
            if use_yield {
                thread::yield_now();
            } else {
                scopecheck::hint::spin_loop();
            }
        }
        let _ = seen;
        for h in hs {
            h.join().unwrap();
        }
        rec(n.load(Ordering::Relaxed));
    }
}

#[test]
fn yield_loops_explore_what_spin_loops_explore() {
    for model in [MemoryModel::Rc11, MemoryModel::Cpp20] {
        // spin_loop: the flag is seen at once, or after one wait. yield_now:
        // also after a stale iteration that did not wait, then a wait.
        let (oy, ny) = common::both(model, flag_loop(true));
        let (os, ns) = common::both(model, flag_loop(false));
        assert_eq!(oy, os, "flag loop under {model:?}");
        assert_eq!(oy.into_iter().collect::<Vec<_>>(), vec![7]);
        assert_eq!((ny, ns), (3, 2), "flag loop under {model:?}");
        // Reads of the counter, per order of the two increments: spin_loop
        // [2], [1,2], [0,2], [0,1,2]; yield_now also [1,1,2], [0,0,2],
        // [0,0,1,2], [0,1,1,2] (a value read twice before the loop is known).
        let (oy, ny) = common::both(model, counter_loop(true));
        let (os, ns) = common::both(model, counter_loop(false));
        assert_eq!(oy, os, "counter loop under {model:?}");
        assert_eq!((ny, ns), (16, 8), "counter loop under {model:?}");
    }
}

/// A yield loop nobody ends is still a hang, reported as spinning at its
/// second iteration; so is one whose wait is a lock it re-takes each time.
#[test]
fn yield_loops_that_learn_nothing_are_hangs() {
    let r = explore(|| {
        let flag = Arc::new(AtomicBool::new(false));
        while !flag.load(Ordering::Acquire) {
            thread::yield_now();
        }
    });
    let f = r.failures().first().unwrap_or_else(|| panic!("no failure: {r}"));
    assert_eq!(f.kind(), FailureKind::Deadlock, "{r}");
    assert!(f.message().contains("spins on"), "{}", f.message());

    let r = explore(|| {
        let m = Arc::new(Mutex::new(false));
        let m2 = m.clone();
        let t = thread::spawn(move || loop {
            if *m2.lock().unwrap() {
                break;
            }
            thread::yield_now();
        });
        t.join().unwrap();
        *m.lock().unwrap() = true;
    });
    let f = r.failures().first().unwrap_or_else(|| panic!("no failure: {r}"));
    assert_eq!(f.kind(), FailureKind::Deadlock, "{r}");
}
