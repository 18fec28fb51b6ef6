//! Tests of the lock shims (`scopecheck::sync::{Mutex, RwLock, Condvar,
//! Barrier, Once}`): exact outcome sets, exact execution counts where they
//! can be derived by hand, and the failures the checker must report.

mod common;

use common::the_failure;
use scopecheck::cell::UnsafeCell;
use scopecheck::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use scopecheck::sync::{Arc, Barrier, Condvar, Mutex, Once, RwLock, TryLockError};
use scopecheck::{thread, Builder, FailureKind, MemoryModel, Report, Strategy};
use std::collections::BTreeSet;

fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    items.into_iter().collect()
}

fn exhaustive() -> Builder {
    common::builder(MemoryModel::Rc11, Strategy::Exhaustive)
}

fn reference() -> Builder {
    common::builder(MemoryModel::Rc11, Strategy::Reference)
}

/// Explores with `b` and asserts that no execution failed and the
/// exploration covered everything.
fn clean<T, F>(b: &Builder, body: F) -> (BTreeSet<T>, Report)
where
    T: Ord + Clone + std::fmt::Debug + 'static,
    F: Fn(&dyn Fn(T)),
{
    let (o, r) = common::outcomes(b, body);
    assert!(r.failures().is_empty(), "unexpected failure: {r}");
    assert!(r.is_complete(), "incomplete: {r}");
    (o, r)
}

/// Asserts that `body` has exactly one failure, a `kind`, under the
/// exhaustive explorer.
#[track_caller]
fn fails_with(kind: FailureKind, body: impl Fn()) {
    the_failure(&exhaustive().explore(body), kind);
}

// ---------------------------------------------------------------------------
// Mutex

/// `n` threads each lock the mutex and increment the counter; the main
/// thread joins them and records the final value.
fn increments(n: usize) -> impl Fn(&dyn Fn(usize)) + Clone {
    move |rec: &dyn Fn(usize)| {
        let m = Arc::new(Mutex::new(0usize));
        let hs: Vec<_> = (0..n)
            .map(|_| {
                let m = m.clone();
                thread::spawn(move || {
                    *m.lock().unwrap() += 1;
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        let v = *m.lock().unwrap();
        rec(v);
    }
}

// How many executions `increments(n)` has. The counter itself is plain data
// behind the lock; the choices are all on the lock word. Each `lock` is one
// compare-exchange that may only read an unlocked value (0), and each unlock
// is a store of 0. The first thread to lock reads the initial 0. Any other
// lock cannot read that 0 (an RMW already read it, and two RMWs never read the
// same write), nor a lock's own write (it holds 1, which the lock waits
// past), so it reads the unlock of the critical section before it. So the
// critical sections form a chain, one execution per order of the threads:
// n! executions. The main thread's final lock comes after every unlock
// (join), so coherence lets it read only the last one: no further choice.
// Two threads: 2! = 2. Three threads: 3! = 6.

#[test]
fn mutex_two_threads_increment() {
    for model in [MemoryModel::Rc11, MemoryModel::Sc] {
        // `both` also checks that the reference enumerator agrees.
        let (outcomes, executions) = common::both(model, increments(2));
        assert_eq!(outcomes, set([2]), "{model:?}");
        assert_eq!(executions, 2, "{model:?}");
    }
}

#[test]
fn mutex_three_threads_increment() {
    let (outcomes, executions) = common::both(MemoryModel::Rc11, increments(3));
    assert_eq!(outcomes, set([3]));
    assert_eq!(executions, 6);
}

/// The lock orders plain accesses: an `UnsafeCell` written by two threads
/// under the mutex has no data race.
#[test]
fn mutex_orders_cell_accesses() {
    let (outcomes, r) = clean(&exhaustive(), |rec: &dyn Fn(usize)| {
        let m = Arc::new(Mutex::new(()));
        let cell = Arc::new(UnsafeCell::new(0usize));
        let (m2, c2) = (m.clone(), cell.clone());
        let t = thread::spawn(move || {
            let _g = m2.lock().unwrap();
            c2.with_mut(|p| unsafe { *p += 1 });
        });
        {
            let _g = m.lock().unwrap();
            cell.with_mut(|p| unsafe { *p += 1 });
        }
        t.join().unwrap();
        rec(cell.with(|p| unsafe { *p }));
    });
    assert_eq!(outcomes, set([2]));
    // As for `increments(2)`: one execution per order of the two critical sections.
    assert_eq!(r.executions(), 2);
}

fn lock_order_inversion() {
    let a = Arc::new(Mutex::new(0usize));
    let b = Arc::new(Mutex::new(0usize));
    let (a2, b2) = (a.clone(), b.clone());
    let t = thread::spawn(move || {
        let _ga = a2.lock().unwrap();
        let _gb = b2.lock().unwrap();
    });
    {
        let _gb = b.lock().unwrap();
        let _ga = a.lock().unwrap();
    }
    t.join().unwrap();
}

#[test]
fn mutex_lock_order_inversion_is_a_deadlock() {
    fails_with(FailureKind::Deadlock, lock_order_inversion);
    let r = reference().explore(lock_order_inversion);
    the_failure(&r, FailureKind::Deadlock);
}

#[test]
#[should_panic(expected = "deadlock")]
fn mutex_lock_order_inversion_panics_in_model() {
    scopecheck::model(lock_order_inversion);
}

#[test]
fn mutex_forgotten_guard_is_a_deadlock() {
    fails_with(FailureKind::Deadlock, || {
        let m = Arc::new(Mutex::new(0usize));
        let m2 = m.clone();
        let t = thread::spawn(move || {
            std::mem::forget(m2.lock().unwrap());
        });
        *m.lock().unwrap() += 1;
        t.join().unwrap();
    });
}

#[test]
fn mutex_relock_by_owner_is_a_deadlock() {
    fails_with(FailureKind::Deadlock, || {
        let m = Mutex::new(0usize);
        let _g = m.lock().unwrap();
        let _h = m.lock().unwrap();
    });
}

/// Thread 1 increments under the lock; the main thread tries the lock once.
/// Records (whether `try_lock` succeeded, final value).
fn try_lock_race(rec: &dyn Fn((bool, usize))) {
    let m = Arc::new(Mutex::new(0usize));
    let m2 = m.clone();
    let t = thread::spawn(move || {
        *m2.lock().unwrap() += 1;
    });
    let ok = match m.try_lock() {
        Ok(mut g) => {
            *g += 1;
            true
        }
        Err(TryLockError::WouldBlock) => false,
        Err(TryLockError::Poisoned(_)) => unreachable!("poisoning is not modelled"),
    };
    t.join().unwrap();
    let v = *m.lock().unwrap();
    rec((ok, v));
}

// How many executions `try_lock_race` has. The main thread's compare-exchange
// reads one of three writes of the lock word: the initial 0 (it succeeds, and
// thread 1's lock then reads the main thread's unlock), thread 1's locking
// write 1 (it fails: WouldBlock), or thread 1's unlock 0 (it succeeds after
// thread 1). It cannot read the initial 0 once thread 1's lock has read it
// (it would succeed, and two RMWs never read the same write). So 3
// executions: two with (Ok, 2) and one with (WouldBlock, 1).
#[test]
fn mutex_try_lock_both_outcomes() {
    let (outcomes, executions) = common::both(MemoryModel::Rc11, try_lock_race);
    assert_eq!(outcomes, set([(false, 1), (true, 2)]));
    assert_eq!(executions, 3);
}

#[test]
fn mutex_api() {
    let (outcomes, _) = clean(&exhaustive(), |rec: &dyn Fn(String)| {
        let mut m = Mutex::new(vec![1u8]);
        m.get_mut().unwrap().push(2);
        assert!(!m.is_poisoned());
        rec(format!("{m:?}"));
        {
            let g = m.lock().unwrap();
            assert_eq!(format!("{g:?}"), "[1, 2]");
            rec(format!("{m:?}"));
        }
        let d: Mutex<u32> = Mutex::default();
        let f = Mutex::from(7u32);
        assert_eq!(*d.lock().unwrap() + *f.lock().unwrap(), 7);
        rec(format!("{}", f.lock().unwrap()));
        assert_eq!(m.into_inner().unwrap(), vec![1, 2]);
    });
    assert_eq!(
        outcomes,
        set([
            "7".to_string(),
            "Mutex { data: <locked>, poisoned: false, .. }".to_string(),
            "Mutex { data: [1, 2], poisoned: false, .. }".to_string(),
        ])
    );
}

// ---------------------------------------------------------------------------
// RwLock

/// A writer increments the value (and an `UnsafeCell` beside it) under the
/// write lock; two readers read both under read locks. Records what each
/// reader saw and the final value.
fn rwlock_readers_writer(rec: &dyn Fn((usize, usize, usize))) {
    let l = Arc::new(RwLock::new(0usize));
    let cell = Arc::new(UnsafeCell::new(0usize));
    let (l1, c1) = (l.clone(), cell.clone());
    let w = thread::spawn(move || {
        let mut g = l1.write().unwrap();
        *g += 1;
        c1.with_mut(|p| unsafe { *p += 1 });
    });
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (l, c) = (l.clone(), cell.clone());
            thread::spawn(move || {
                let g = l.read().unwrap();
                let a = *g;
                // Readers share the cell (reads do not race with reads); the
                // writer's access races with neither, or the lock is broken.
                let b = c.with(|p| unsafe { *p });
                assert_eq!(a, b, "value and cell disagree under a read lock");
                assert_eq!(*g, a, "value changed under a read lock");
                a
            })
        })
        .collect();
    w.join().unwrap();
    let seen: Vec<usize> = readers.into_iter().map(|h| h.join().unwrap()).collect();
    let fin = *l.read().unwrap();
    rec((seen[0], seen[1], fin));
}

#[test]
fn rwlock_two_readers_one_writer() {
    // Each reader runs entirely before or entirely after the writer, so sees
    // 0 or 1, independently of the other; the final value is always 1. (The
    // reference enumerator needs minutes here, so it is not run.)
    let (outcomes, _) = clean(&exhaustive(), rwlock_readers_writer);
    assert_eq!(outcomes, set([(0, 0, 1), (0, 1, 1), (1, 0, 1), (1, 1, 1)]));
}

/// Two readers that each wait, holding a read lock, until the other holds
/// one too: this only ends if readers really share the lock.
#[test]
fn rwlock_readers_share_the_lock() {
    let (outcomes, _) = clean(&exhaustive(), |rec: &dyn Fn(bool)| {
        let l = Arc::new(RwLock::new(5usize));
        let flags = Arc::new([AtomicBool::new(false), AtomicBool::new(false)]);
        let hs: Vec<_> = (0..2)
            .map(|i| {
                let (l, flags) = (l.clone(), flags.clone());
                thread::spawn(move || {
                    let g = l.read().unwrap();
                    flags[i].store(true, Ordering::Release);
                    while !flags[1 - i].load(Ordering::Acquire) {
                        scopecheck::hint::spin_loop();
                    }
                    *g
                })
            })
            .collect();
        let total: usize = hs.into_iter().map(|h| h.join().unwrap()).sum();
        rec(total == 10 && l.try_write().is_ok());
    });
    assert_eq!(outcomes, set([true]));
}

#[test]
fn rwlock_forgotten_write_guard_is_a_deadlock() {
    fails_with(FailureKind::Deadlock, || {
        let l = Arc::new(RwLock::new(0usize));
        let l2 = l.clone();
        let t = thread::spawn(move || {
            std::mem::forget(l2.write().unwrap());
        });
        let _ = *l.read().unwrap();
        t.join().unwrap();
    });
}

#[test]
fn rwlock_try_write_and_try_read() {
    let (outcomes, _) = clean(&exhaustive(), |rec: &dyn Fn(&'static str)| {
        let l = RwLock::new(1usize);
        {
            let r = l.read().unwrap();
            assert!(matches!(l.try_write(), Err(TryLockError::WouldBlock)));
            let r2 = l.try_read().unwrap();
            assert_eq!(*r + *r2, 2);
        }
        {
            let mut w = l.write().unwrap();
            *w = 3;
            assert!(matches!(l.try_read(), Err(TryLockError::WouldBlock)));
            assert!(matches!(l.try_write(), Err(TryLockError::WouldBlock)));
        }
        assert_eq!(format!("{l:?}"), "RwLock { data: 3, poisoned: false, .. }");
        assert_eq!(l.into_inner().unwrap(), 3);
        rec("ok");
    });
    assert_eq!(outcomes, set(["ok"]));
}

// ---------------------------------------------------------------------------
// Condvar

/// Thread 1 sets a flag under the mutex and notifies (while still holding
/// the lock, or after unlocking); the main thread waits in a loop until it
/// sees the flag, and records what it saw.
fn condvar_flag(notify_under_lock: bool) -> impl Fn(&dyn Fn(bool)) + Clone {
    move |rec: &dyn Fn(bool)| {
        let pair = Arc::new((Mutex::new(false), Condvar::new()));
        let p2 = pair.clone();
        let t = thread::spawn(move || {
            let (m, cv) = &*p2;
            let mut g = m.lock().unwrap();
            *g = true;
            if notify_under_lock {
                cv.notify_one();
                drop(g);
            } else {
                drop(g);
                cv.notify_one();
            }
        });
        let (m, cv) = &*pair;
        let mut g = m.lock().unwrap();
        while !*g {
            g = cv.wait(g).unwrap();
        }
        rec(*g);
        drop(g);
        t.join().unwrap();
    }
}

// How many executions `condvar_flag` has (either placement of the notify):
// (a) thread 1's critical section comes first: the main thread's lock reads
//     its unlock, sees the flag and never waits;
// (b) the main thread locks first and waits: it reads the sequence number
//     (only the initial value exists: the notification comes after thread 1
//     locks, which is after the main thread unlocks), unlocks, and re-reads
//     the sequence number until it changes. That re-read reads either the
//     notification at once (b1), or the initial value first, while the
//     notification does not exist yet, then the notification (b2). Then it
//     relocks, reading thread 1's unlock, and sees the flag.
// So 3 executions. (A re-read of the initial value after the notification
// exists waits for a write that never comes: that execution is blocked, not
// counted.)
#[test]
fn condvar_flag_notify_under_lock() {
    let (outcomes, executions) = common::both(MemoryModel::Rc11, condvar_flag(true));
    assert_eq!(outcomes, set([true]));
    assert_eq!(executions, 3);
}

#[test]
fn condvar_flag_notify_after_unlock() {
    let (outcomes, executions) = common::both(MemoryModel::Rc11, condvar_flag(false));
    assert_eq!(outcomes, set([true]));
    assert_eq!(executions, 3);
}

#[test]
fn condvar_wait_while_and_notify_all() {
    let (outcomes, _) = clean(&exhaustive(), |rec: &dyn Fn(usize)| {
        let pair = Arc::new((Mutex::new(0usize), Condvar::default()));
        let waiters: Vec<_> = (0..2)
            .map(|_| {
                let p = pair.clone();
                thread::spawn(move || {
                    let (m, cv) = &*p;
                    let g = cv.wait_while(m.lock().unwrap(), |n| *n == 0).unwrap();
                    *g
                })
            })
            .collect();
        {
            let (m, cv) = &*pair;
            *m.lock().unwrap() = 7;
            cv.notify_all();
        }
        let sum = waiters.into_iter().map(|h| h.join().unwrap()).sum();
        rec(sum);
    });
    assert_eq!(outcomes, set([14]));
}

/// Thread 1 sets the flag but never notifies: when the main thread starts
/// waiting first, nothing can wake it.
#[test]
fn condvar_missing_notify_is_a_deadlock() {
    let body = || {
        let pair = Arc::new((Mutex::new(false), Condvar::new()));
        let p2 = pair.clone();
        let t = thread::spawn(move || {
            *p2.0.lock().unwrap() = true;
        });
        let (m, cv) = &*pair;
        let mut g = m.lock().unwrap();
        while !*g {
            g = cv.wait(g).unwrap();
        }
        drop(g);
        t.join().unwrap();
    };
    fails_with(FailureKind::Deadlock, body);
    let r = reference().explore(body);
    the_failure(&r, FailureKind::Deadlock);
}

#[test]
fn condvar_wait_alone_is_a_deadlock() {
    fails_with(FailureKind::Deadlock, || {
        let m = Mutex::new(());
        let cv = Condvar::new();
        let _g = cv.wait(m.lock().unwrap()).unwrap();
    });
}

// ---------------------------------------------------------------------------
// Barrier

/// Three threads each write their own cell, wait at the barrier, then read
/// every cell: the reads race with the writes unless the barrier orders
/// them. Records the number of leaders.
fn barrier_three(rec: &dyn Fn(usize)) {
    let b = Arc::new(Barrier::new(3));
    let cells = Arc::new([UnsafeCell::new(0usize), UnsafeCell::new(0), UnsafeCell::new(0)]);
    let hs: Vec<_> = (0..3)
        .map(|i| {
            let (b, cells) = (b.clone(), cells.clone());
            thread::spawn(move || {
                cells[i].with_mut(|p| unsafe { *p = i + 1 });
                let r = b.wait();
                for (j, c) in cells.iter().enumerate() {
                    assert_eq!(c.with(|p| unsafe { *p }), j + 1);
                }
                r.is_leader()
            })
        })
        .collect();
    let leaders = hs.into_iter().map(|h| h.join().unwrap() as usize).sum();
    rec(leaders);
}

#[test]
fn barrier_three_threads_one_leader() {
    let (outcomes, _) = clean(&exhaustive(), barrier_three);
    assert_eq!(outcomes, set([1]));
}

/// The barrier is reusable: two threads pass it twice; each round has one
/// leader, and what each thread wrote between the rounds is visible after
/// the second one.
#[test]
fn barrier_reuse() {
    let (outcomes, _) = clean(&exhaustive(), |rec: &dyn Fn((usize, usize))| {
        let b = Arc::new(Barrier::new(2));
        let cells = Arc::new([UnsafeCell::new(0usize), UnsafeCell::new(0)]);
        let hs: Vec<_> = (0..2)
            .map(|i| {
                let (b, cells) = (b.clone(), cells.clone());
                thread::spawn(move || {
                    let first = b.wait().is_leader() as usize;
                    cells[i].with_mut(|p| unsafe { *p = 1 });
                    let second = b.wait().is_leader() as usize;
                    assert_eq!(cells[1 - i].with(|p| unsafe { *p }), 1);
                    (first, second)
                })
            })
            .collect();
        let (mut l1, mut l2) = (0, 0);
        for h in hs {
            let (a, b) = h.join().unwrap();
            l1 += a;
            l2 += b;
        }
        rec((l1, l2));
    });
    assert_eq!(outcomes, set([(1, 1)]));
}

#[test]
fn barrier_of_one_never_waits() {
    let (outcomes, r) = clean(&exhaustive(), |rec: &dyn Fn(bool)| {
        let b = Barrier::new(1);
        let z = Barrier::new(0);
        rec(b.wait().is_leader() && b.wait().is_leader() && z.wait().is_leader());
        assert_eq!(format!("{:?}", b.wait()), "BarrierWaitResult { is_leader: true }");
    });
    assert_eq!(outcomes, set([true]));
    assert_eq!(r.executions(), 1);
}

/// Four threads use a barrier for two: as in std, the barrier serves two
/// uses, each with its own leader, and a thread arriving while a use is
/// full waits for the next one.
#[test]
fn barrier_excess_threads_wait_for_the_next_use() {
    let (outcomes, _) = clean(&exhaustive(), |rec: &dyn Fn(usize)| {
        let b = Arc::new(Barrier::new(2));
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let b = b.clone();
                thread::spawn(move || b.wait().is_leader() as usize)
            })
            .collect();
        rec(hs.into_iter().map(|h| h.join().unwrap()).sum());
    });
    assert_eq!(outcomes, set([2]));
}

/// Three threads use a barrier for two: the third waits for a second use
/// that never fills.
#[test]
fn barrier_odd_thread_out_is_a_deadlock() {
    fails_with(FailureKind::Deadlock, || {
        let b = Arc::new(Barrier::new(2));
        let hs: Vec<_> = (0..3)
            .map(|_| {
                let b = b.clone();
                thread::spawn(move || {
                    b.wait();
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
    });
}

#[test]
fn barrier_short_of_threads_is_a_deadlock() {
    fails_with(FailureKind::Deadlock, || {
        let b = Arc::new(Barrier::new(3));
        let b2 = b.clone();
        let t = thread::spawn(move || {
            b2.wait();
        });
        b.wait();
        t.join().unwrap();
    });
}

// ---------------------------------------------------------------------------
// Once

/// `callers` threads (the main thread and `callers - 1` spawned ones) call
/// `call_once` with a closure that counts its runs (in a std atomic, outside
/// the model) and increments a tracked cell; each caller then reads the
/// cell. Records the number of runs.
fn once_callers(callers: usize) -> impl Fn(&dyn Fn(usize)) + Clone {
    move |rec: &dyn Fn(usize)| {
        let once = Arc::new(Once::new());
        let cell = Arc::new(UnsafeCell::new(0usize));
        let runs = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let body = {
            let (once, cell, runs) = (once.clone(), cell.clone(), runs.clone());
            move || {
                once.call_once(|| {
                    runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    cell.with_mut(|p| unsafe { *p += 1 });
                });
                // Races with the write in `call_once` unless it happens before.
                assert_eq!(cell.with(|p| unsafe { *p }), 1);
            }
        };
        let hs: Vec<_> = (1..callers).map(|_| thread::spawn(body.clone())).collect();
        body();
        for h in hs {
            h.join().unwrap();
        }
        rec(runs.load(std::sync::atomic::Ordering::Relaxed));
    }
}

// How many executions `once_callers(n)` has. The state word has three writes:
// the initial INCOMPLETE, the winner's compare-exchange to RUNNING (W1) and
// its store of COMPLETE (W2). One of the n callers wins (its load and its
// compare-exchange read the initial value). Each other caller never writes;
// its reads follow one of 4 patterns:
//   [W2]                      sees COMPLETE at once;
//   [W1, W2]                  sees RUNNING, waits, sees COMPLETE;
//   [init, cas W2]            sees INCOMPLETE, its compare-exchange fails on COMPLETE;
//   [init, cas W1, W2]        ... fails on RUNNING, waits, sees COMPLETE.
// (Its compare-exchange cannot read the initial value: the winner's RMW read
// it. After a wait, re-reading RUNNING would wait for a write that never
// comes: blocked, not counted.) The losers' patterns are independent, so
// there are n * 4^(n-1) executions: 8 for two callers, 48 for three.

#[test]
fn once_runs_once_two_callers() {
    let (outcomes, executions) = common::both(MemoryModel::Rc11, once_callers(2));
    assert_eq!(outcomes, set([1]));
    assert_eq!(executions, 8);
}

#[test]
fn once_three_callers_count() {
    let (outcomes, executions) = common::both(MemoryModel::Rc11, once_callers(3));
    assert_eq!(outcomes, set([1]));
    assert_eq!(executions, 48);
}

#[test]
fn once_is_completed() {
    let (outcomes, r) = clean(&exhaustive(), |rec: &dyn Fn((bool, bool, bool))| {
        let once = Arc::new(Once::default());
        let before = once.is_completed();
        let o2 = once.clone();
        let t = thread::spawn(move || o2.is_completed());
        once.call_once(|| {});
        let after = once.is_completed();
        rec((before, t.join().unwrap(), after));
        assert_eq!(format!("{once:?}"), "Once { .. }");
    });
    // Thread 1's load reads the initial state, RUNNING or COMPLETE: three
    // executions, two of them not (yet) completed.
    assert_eq!(outcomes, set([(false, false, true), (false, true, true)]));
    assert_eq!(r.executions(), 3);
}

#[test]
fn once_recursive_call_is_a_deadlock() {
    fails_with(FailureKind::Deadlock, || {
        let once = Once::new();
        once.call_once(|| once.call_once(|| {}));
    });
}

// ---------------------------------------------------------------------------
// The spin-loop waiting every primitive above except `Mutex` relies on, in
// its smallest form (no lock involved): the checker problem behind
// `once_three_callers_count`.

/// Thread 1 spins until it reads 2; the main thread stores 1, then 2.
/// Records the values thread 1 read.
fn spinner(rec: &dyn Fn(Vec<usize>)) {
    let x = Arc::new(AtomicUsize::new(0));
    let x2 = x.clone();
    let t = thread::spawn(move || {
        let mut seen = vec![];
        loop {
            let v = x2.load(Ordering::Acquire);
            seen.push(v);
            if v == 2 {
                return seen;
            }
            scopecheck::hint::spin_loop();
        }
    });
    x.store(1, Ordering::Release);
    x.store(2, Ordering::Release);
    rec(t.join().unwrap());
}

// A spinning thread waits until the location gets a write newer than the
// one it read. So thread 1 reads 2 at once, or reads 0 or 1 and waits for a
// newer write. After reading 0 it may read 0 again (a stale read, woken later
// by the store of 2), 1 or 2; after reading 1 only 2 (a stale 1 would wait
// for a write that never comes). Sequences: [2], [1, 2], [0, 2], [0, 1, 2],
// [0, 0, 2]. Both explorers find 4 of them: [0, 0, 2] is cut by the spin
// contract (see below), and the four others are complete executions.
#[test]
fn spin_loop_sees_every_write() {
    let (outcomes, executions) = common::both(MemoryModel::Rc11, spinner);
    // [0, 0, 2] is not explored: after reading 0 the thread waits for news;
    // woken by the store of 1, a second iteration reading 0 again would repeat
    // the first one exactly (the spin contract, `Engine::spin`), and the
    // branch where it reads 1 or 2 covers it.
    assert_eq!(outcomes, set([vec![2], vec![1, 2], vec![0, 2], vec![0, 1, 2]]));
    assert_eq!(executions, 4);
}
