//! Abandoned executions (another thread failed, a spin wait that cannot
//! end, a discarded thread, a deadlock, a runaway thread, a thread spawned
//! but never started) must never run user code that sees invented values:
//! a correct program whose `Drop`s check their own invariants passes, a
//! wrong one reports its real failure, and nothing aborts the test binary.
//! (Before, the abandoned threads were unwound with every shim operation
//! answering 0, so `assert!(prev >= 1)` in a refcount's `Drop` panicked
//! during the unwind and Rust aborted the whole binary.)

mod common;

use common::the_failure;
use scopecheck::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use scopecheck::sync::{Arc, Mutex};
use scopecheck::{thread, Builder, FailureKind};

/// A counted reference whose `Drop` checks the count, as a hand-written
/// refcount does.
struct Counted(Arc<AtomicUsize>);

impl Counted {
    fn new(count: &Arc<AtomicUsize>) -> Counted {
        count.fetch_add(1, Ordering::Relaxed);
        Counted(count.clone())
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        let prev = self.0.fetch_sub(1, Ordering::AcqRel);
        assert!(prev >= 1, "refcount underflow: {prev}");
    }
}

/// A value that must be defused before it is dropped (a drop bomb); it
/// reads no shim object, so only an invented unwind can set it off.
struct Bomb {
    defused: bool,
}

impl Drop for Bomb {
    fn drop(&mut self) {
        if !self.defused {
            panic!("bomb dropped without being defused");
        }
    }
}

/// A thread holding a `Counted` spins until the main thread sets a flag;
/// every execution where its spin reads a stale value is blocked.
fn spin_wait_with_refcount() {
    let count = Arc::new(AtomicUsize::new(0));
    let flag = Arc::new(AtomicBool::new(false));
    let c = Counted::new(&count);
    let f = flag.clone();
    let t = thread::spawn(move || {
        let _c = c;
        let mut bomb = Bomb { defused: false };
        while !f.load(Ordering::Acquire) {
            scopecheck::hint::spin_loop();
        }
        bomb.defused = true;
    });
    let _mine = Counted::new(&count);
    flag.store(true, Ordering::Release);
    t.join().unwrap();
}

#[test]
fn blocked_spin_waits_with_checked_drops_pass() {
    let r = Builder::new().explore(spin_wait_with_refcount);
    assert!(r.failures().is_empty(), "{r}");
    assert!(r.is_complete());
    assert_eq!((r.executions(), r.blocked()), (2, 1), "{r}");
}

#[test]
fn blocked_spin_waits_pass_under_the_parallel_explorer() {
    let r = Builder::new().explore_parallel(2, spin_wait_with_refcount);
    assert!(r.failures().is_empty(), "{r}");
    assert!(r.is_complete());
    assert_eq!((r.executions(), r.blocked()), (2, 1), "{r}");
}

#[test]
fn another_threads_panic_is_reported_and_the_spinning_thread_is_left_alone() {
    let r = Builder::new().explore(|| {
        let count = Arc::new(AtomicUsize::new(0));
        let flag = Arc::new(AtomicBool::new(false));
        let c = Counted::new(&count);
        let f = flag.clone();
        let _t = thread::spawn(move || {
            let _c = c;
            let _bomb = Bomb { defused: false };
            while !f.load(Ordering::Acquire) {
                scopecheck::hint::spin_loop();
            }
            panic!("the spin wait ended, which this program never lets happen");
        });
        assert_eq!(count.load(Ordering::Relaxed), 7, "the main thread's own failure");
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(f.message().contains("the main thread's own failure"), "{r}");
    assert!(f.message().contains("thread 0 panicked"), "{r}");
}

#[test]
fn a_spawned_thread_that_never_started_is_not_dropped_under_the_runtime() {
    // The main thread panics right after the spawn, before the child runs:
    // the child's body (holding a Counted) is never started. Dropping it
    // ran `Counted::drop` while the runtime's state was borrowed
    // ("RefCell already borrowed", reported as an internal error).
    let r = Builder::new().explore(|| {
        let count = Arc::new(AtomicUsize::new(0));
        let c = Counted::new(&count);
        let bomb = Bomb { defused: false };
        let _t = thread::spawn(move || {
            let _c = c;
            let mut bomb = bomb;
            bomb.defused = true;
        });
        panic!("main fails before its child starts");
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(f.message().contains("main fails before its child starts"), "{r}");
    assert_eq!((r.executions(), r.blocked(), r.failed()), (0, 0, 1), "{r}");
}

#[test]
fn a_runaway_thread_with_an_unstarted_child_is_reported_as_runaway() {
    let mut b = Builder::new();
    b.max_steps = 6;
    let r = b.explore(|| {
        let count = Arc::new(AtomicUsize::new(0));
        let c = Counted::new(&count);
        let _t = thread::spawn(move || {
            let _c = c;
        });
        // Invisible steps only (allocations): the child has not started
        // when the step bound cuts the main thread.
        let keep: Vec<AtomicUsize> = (0..10).map(AtomicUsize::new).collect();
        drop(keep);
    });
    the_failure(&r, FailureKind::Runaway);
}

#[test]
fn a_discarded_thread_is_not_unwound() {
    let r = Builder::new().explore(|| {
        let count = Arc::new(AtomicUsize::new(0));
        let c = Counted::new(&count);
        let t = thread::spawn(move || {
            let _c = c;
            let _bomb = Bomb { defused: false };
            scopecheck_instrument::rt::discard();
        });
        let _mine = Counted::new(&count);
        drop(t);
    });
    assert!(r.failures().is_empty(), "{r}");
    assert!(r.is_complete());
    assert_eq!((r.executions(), r.blocked()), (0, 1), "{r}");
}

#[test]
fn a_deadlock_is_reported_without_unwinding_the_deadlocked_threads() {
    let r = Builder::new().explore(|| {
        let count = Arc::new(AtomicUsize::new(0));
        let a = Arc::new(Mutex::new(0));
        let b = Arc::new(Mutex::new(0));
        let (a2, b2) = (a.clone(), b.clone());
        let c = Counted::new(&count);
        let t = thread::spawn(move || {
            let _c = c;
            let mut bomb = Bomb { defused: false };
            let _gb = b2.lock().unwrap();
            let _ga = a2.lock().unwrap();
            bomb.defused = true;
        });
        let _mine = Counted::new(&count);
        {
            let _ga = a.lock().unwrap();
            let _gb = b.lock().unwrap();
        }
        t.join().unwrap();
    });
    the_failure(&r, FailureKind::Deadlock);
}

#[test]
fn many_blocked_executions_in_one_run_pass() {
    // Three spinning threads, each with its own Counted: many executions
    // are blocked, and every abandoned thread keeps its objects.
    let r = Builder::new().explore(|| {
        let count = Arc::new(AtomicUsize::new(0));
        let flag = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (0..3)
            .map(|_| {
                let c = Counted::new(&count);
                let f = flag.clone();
                thread::spawn(move || {
                    let _c = c;
                    while f.load(Ordering::Acquire) == 0 {
                        scopecheck::hint::spin_loop();
                    }
                    f.fetch_add(1, Ordering::Relaxed);
                })
            })
            .collect();
        flag.store(1, Ordering::Release);
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(flag.load(Ordering::Relaxed), 4);
    });
    assert!(r.failures().is_empty(), "{r}");
    assert!(r.is_complete());
    assert_eq!((r.executions(), r.blocked()), (1728, 59), "{r}");
}

#[test]
fn a_thread_abandoned_while_unwinding_its_own_panic_does_not_abort() {
    // The child panics holding the lock; its guard's unlock (in a `Drop`,
    // during the unwind) is a scheduling point, and in some executions the
    // main thread fails there first. The old teardown unwound the child
    // again from inside that `Drop`: a panic in a destructor during
    // unwinding, which aborted the binary.
    let mut b = Builder::new();
    b.max_failures = 100;
    let r = b.explore(|| {
        let m = Arc::new(Mutex::new(0));
        let flag = Arc::new(AtomicUsize::new(0));
        let (m2, f2) = (m.clone(), flag.clone());
        let _t = thread::spawn(move || {
            let _g = m2.lock().unwrap();
            f2.store(1, Ordering::Relaxed);
            panic!("the child fails holding the lock");
        });
        assert_eq!(flag.load(Ordering::Relaxed), 0, "the main thread sees the flag");
    });
    let main_fails = |f: &scopecheck::Failure| {
        f.message()
            .starts_with("thread 0 panicked: assertion `left == right` failed")
    };
    let child_fails = |f: &scopecheck::Failure| {
        f.message()
            .starts_with("thread 1 panicked: the child fails holding the lock")
    };
    assert!(
        r.failures()
            .iter()
            .all(|f| f.kind() == FailureKind::Panic && (main_fails(f) || child_fails(f))),
        "{r}"
    );
    let counts = (
        r.failures().iter().filter(|f| main_fails(f)).count(),
        r.failures().iter().filter(|f| child_fails(f)).count(),
    );
    // Main failing after it read the child's flag: the child was stopped at
    // its unlock, in the middle of its unwind.
    assert_eq!(counts, (1, 1), "{r}");
    assert!(
        r.failures()
            .iter()
            .any(|f| main_fails(f) && f.message().contains("left: 1")),
        "{r}"
    );
}
