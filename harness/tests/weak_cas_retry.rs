//! Retry loops around `compare_exchange_weak` have finitely many
//! executions: a spurious failure that would leave the thread where an
//! earlier one did is not explored (`checker/src/retry.rs`). Before, a loop
//! that reloads something between attempts (as concurrent-queue's `pop`
//! does) had one execution per number of failures, without end.

use scopecheck::sync::atomic::{AtomicUsize, Ordering::*};
use scopecheck::sync::Arc;
use scopecheck::{thread, Builder, Report, Strategy};

/// Thread 1 retries `x: 0 -> 1` with a reload of `y` before each attempt;
/// thread 0 stores `y = 1`. Returns the report and the attempts seen.
fn retry_after_reload(strategy: Strategy) -> (Report, std::collections::BTreeSet<(usize, usize)>) {
    let seen = std::rc::Rc::new(std::cell::RefCell::new(std::collections::BTreeSet::new()));
    let s2 = seen.clone();
    let mut b = Builder::new();
    b.strategy = strategy;
    b.max_executions = Some(10_000);
    let r = b.explore(move || {
        let x = Arc::new(AtomicUsize::new(0));
        let y = Arc::new(AtomicUsize::new(0));
        let (x2, y2) = (x.clone(), y.clone());
        let t = thread::spawn(move || {
            let mut attempts = 0;
            let mut last_y;
            loop {
                last_y = y2.load(Acquire);
                attempts += 1;
                if x2.compare_exchange_weak(0, 1, Relaxed, Relaxed).is_ok() {
                    return (attempts.min(9), last_y);
                }
            }
        });
        y.store(1, Release);
        let got = t.join().unwrap();
        s2.borrow_mut().insert(got);
    });
    let set = seen.borrow().clone();
    (r, set)
}

#[test]
fn a_retry_loop_that_reloads_first_has_finitely_many_executions() {
    let (r, attempts) = retry_after_reload(Strategy::Exhaustive);
    assert!(r.is_complete(), "{:?}", r.incomplete_reason());
    assert!(r.failures().is_empty());
    // Spurious failures are still explored, while the attempts differ: two
    // in a row that read y = 0, then (once y = 1 was read) two more; the
    // attempt after two identical failures succeeds.
    assert_eq!(
        attempts,
        [(1, 0), (1, 1), (2, 0), (2, 1), (3, 0), (3, 1), (4, 1)]
            .into_iter()
            .collect(),
        "attempts (capped at 9), y last read"
    );
    assert_eq!(r.executions(), 10);
}

#[test]
fn the_reference_enumerator_agrees() {
    let (opt, a) = retry_after_reload(Strategy::Exhaustive);
    let (reference, b) = retry_after_reload(Strategy::Reference);
    assert!(reference.is_complete());
    assert_eq!(a, b);
    assert_eq!(opt.executions(), 10);
}

/// Thread 1 pushes onto a one-slot "stack" the way a linked list's push
/// does: each attempt writes the head it saw into its node's `next` and
/// reads it back before `compare_exchange_weak(head, head + 1)`; thread 0
/// also moves the head. The read-back reads a new write in every attempt
/// (the one that attempt made), so no two attempts are equal event for
/// event; they are equal up to that shift. `cell` writes `next` through an
/// `UnsafeCell` (`with_mut`: a read and a write), else through an atomic.
fn push_after_own_write(cell: bool, strategy: Strategy) -> (Report, std::collections::BTreeSet<(usize, usize)>) {
    use scopecheck::cell::UnsafeCell;
    let seen = std::rc::Rc::new(std::cell::RefCell::new(std::collections::BTreeSet::new()));
    let s2 = seen.clone();
    let mut b = Builder::new();
    b.strategy = strategy;
    b.max_executions = Some(10_000);
    let r = b.explore(move || {
        let head = Arc::new(AtomicUsize::new(0));
        let h2 = head.clone();
        let t = thread::spawn(move || {
            let next_atomic = AtomicUsize::new(7);
            let next_cell = UnsafeCell::new(7usize);
            let mut attempts = 0;
            loop {
                let h = h2.load(Acquire);
                let linked = if cell {
                    next_cell.with_mut(|p| unsafe {
                        *p = h;
                        *p
                    })
                } else {
                    next_atomic.store(h, Relaxed);
                    next_atomic.load(Relaxed)
                };
                attempts += 1;
                if h2.compare_exchange_weak(linked, linked + 1, AcqRel, Acquire).is_ok() {
                    return (attempts.min(9), linked);
                }
            }
        });
        head.fetch_add(10, Relaxed);
        let got = t.join().unwrap();
        s2.borrow_mut().insert(got);
    });
    let set = seen.borrow().clone();
    (r, set)
}

#[test]
fn a_retry_loop_that_reads_back_its_own_write_has_finitely_many_executions() {
    for cell in [false, true] {
        let (r, attempts) = push_after_own_write(cell, Strategy::Exhaustive);
        assert!(r.is_complete(), "cell {cell}: {:?}", r.incomplete_reason());
        assert!(r.failures().is_empty(), "cell {cell}");
        assert_eq!(
            attempts,
            [
                (1, 0),
                (1, 10),
                (2, 0),
                (2, 10),
                (3, 0),
                (3, 10),
                (4, 10),
                (5, 10),
                (6, 10)
            ]
            .into_iter()
            .collect(),
            "cell {cell}: attempts (capped at 9), head linked"
        );
        assert_eq!(r.executions(), 21, "cell {cell}");
        let (reference, b) = push_after_own_write(cell, Strategy::Reference);
        assert!(reference.is_complete(), "cell {cell}");
        assert_eq!(attempts, b, "cell {cell}: the reference enumerator agrees");
    }
}
