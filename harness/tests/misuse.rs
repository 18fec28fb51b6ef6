//! Misuse of the checker gets a clear error in the user's terms: a model
//! started inside another model (through every entry point), and a shim
//! object used after the run that created it.

mod common;

use common::the_failure;
use scopecheck::cell::UnsafeCell;
use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::sync::{Arc, Mutex};
use scopecheck::{thread, Builder, FailureKind};
use std::cell::RefCell;

/// Runs `inner` as the body of an outer model's only thread: the inner
/// entry point must fail with the nesting error, reported as the outer
/// model's failure, and leave the outer run intact (one execution, its
/// counts, its own report).
fn nested_is_a_clear_error(entry: &str, inner: impl Fn()) {
    let r = Builder::new().explore(|| {
        let x = AtomicUsize::new(1);
        x.fetch_add(1, Ordering::Relaxed);
        inner();
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(
        f.message()
            .contains(&format!("`{entry}` was called inside another model")),
        "{entry}: {}",
        f.message()
    );
    assert_eq!((r.executions(), r.failed()), (0, 1), "{entry}: {r}");
}

#[test]
fn explore_parallel_inside_a_model_is_a_clear_error() {
    nested_is_a_clear_error("Builder::explore_parallel", || {
        Builder::new().explore_parallel(2, || {
            let x = AtomicUsize::new(0);
            x.store(1, Ordering::Relaxed);
        });
    });
}

#[test]
fn every_other_entry_point_inside_a_model_is_a_clear_error() {
    nested_is_a_clear_error("scopecheck::model", || scopecheck::model(|| {}));
    nested_is_a_clear_error("scopecheck::model", || {
        Builder::new().explore(|| {});
    });
    nested_is_a_clear_error("scopecheck::model", || Builder::new().check(|| {}));
    nested_is_a_clear_error("scopecheck::drfrlx", || {
        scopecheck::drfrlx::Check::new().explore(|| {});
    });
    nested_is_a_clear_error("scopecheck::drfrlx", || scopecheck::drfrlx::check(|| {}));
}

#[test]
fn explore_parallel_in_a_spawned_model_thread_is_a_clear_error() {
    let r = Builder::new().explore(|| {
        let t = scopecheck::thread::spawn(|| {
            Builder::new().explore_parallel(1, || {});
        });
        t.join().unwrap();
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(f.message().contains("thread 1 panicked"), "{}", f.message());
    assert!(f.message().contains("inside another model"), "{}", f.message());
}

/// The failure of `r`, which must be one misuse report naming the object's
/// creation line and when it was made.
fn stale_use(r: &scopecheck::Report, what: &str, line: u32, when: &str) {
    let f = the_failure(r, FailureKind::Misuse);
    assert!(f.message().contains(what), "{}", f.message());
    assert!(
        f.message()
            .contains(&format!("created at harness/tests/misuse.rs:{line}:")),
        "names the creation line {line}: {}",
        f.message()
    );
    assert!(f.message().contains(when), "{}", f.message());
}

const EARLIER_RUN: &str = "in an earlier run";
const EARLIER_EXECUTION: &str = "in an earlier execution of this run";

#[test]
fn an_atomic_kept_from_an_earlier_run_is_a_clear_error() {
    // Before, the later run's first allocation (`mine`, the same thread and
    // rank) answered for it: the load read 1, not a misuse report.
    let stash: RefCell<Option<AtomicUsize>> = RefCell::new(None);
    let line = line!() + 1;
    Builder::new().explore(|| *stash.borrow_mut() = Some(AtomicUsize::new(5)));
    let r = Builder::new().explore(|| {
        let mine = AtomicUsize::new(1);
        let kept = stash.borrow();
        let v = kept.as_ref().unwrap().load(Ordering::Relaxed);
        assert_eq!(v + mine.load(Ordering::Relaxed), 6);
    });
    stale_use(&r, "an atomic", line, EARLIER_RUN);
}

#[test]
fn an_atomic_kept_from_an_earlier_execution_of_the_same_run_is_a_clear_error() {
    // The stash holds a std `Arc`: the shim's `Arc` kept past its execution
    // is itself reported first, as a leak at the end of the first execution
    // (loom's verdict too); this test is about the atomic inside.
    let stash: RefCell<Option<std::sync::Arc<AtomicUsize>>> = RefCell::new(None);
    let line = line!() + 6;
    let r = Builder::new().explore(|| {
        let local = Arc::new(AtomicUsize::new(0));
        // Every execution makes one, but the first one made is kept and
        // used (a lazily initialised value): before, the kept object stood
        // silently for this execution's `fresh` (the same thread and rank).
        let fresh = std::sync::Arc::new(AtomicUsize::new(0));
        let shared = stash.borrow_mut().get_or_insert(fresh).clone();
        let l2 = local.clone();
        let t = thread::spawn(move || {
            l2.fetch_add(1, Ordering::Relaxed);
        });
        local.fetch_add(1, Ordering::Relaxed);
        shared.fetch_add(1, Ordering::Relaxed);
        t.join().unwrap();
    });
    stale_use(&r, "an atomic", line, EARLIER_EXECUTION);
    // The first execution was complete; the second reports the misuse.
    assert_eq!((r.executions(), r.failed()), (1, 1), "{r}");
}

#[test]
fn cells_locks_and_join_handles_kept_from_an_earlier_run_are_clear_errors() {
    let cell: RefCell<Option<UnsafeCell<u32>>> = RefCell::new(None);
    let mutex: RefCell<Option<Mutex<u32>>> = RefCell::new(None);
    let handle: RefCell<Option<thread::JoinHandle<()>>> = RefCell::new(None);
    let (cell_line, mutex_line, handle_line) = (line!() + 2, line!() + 3, line!() + 4);
    Builder::new().explore(|| {
        *cell.borrow_mut() = Some(UnsafeCell::new(1));
        *mutex.borrow_mut() = Some(Mutex::new(2));
        *handle.borrow_mut() = Some(thread::spawn(|| {}));
    });
    let r = Builder::new().explore(|| {
        let _mine = UnsafeCell::new(0u32);
        cell.borrow().as_ref().unwrap().with(|_| ());
    });
    stale_use(&r, "an UnsafeCell", cell_line, EARLIER_RUN);
    let r = Builder::new().explore(|| {
        let _mine = Mutex::new(0u32);
        drop(mutex.borrow().as_ref().unwrap().lock());
    });
    stale_use(&r, "a Mutex", mutex_line, EARLIER_RUN);
    let r = Builder::new().explore(|| {
        let _t = thread::spawn(|| {});
        handle.borrow_mut().take().unwrap().join().unwrap();
    });
    stale_use(&r, "a JoinHandle", handle_line, EARLIER_RUN);
}

#[test]
fn an_atomic_used_after_its_run_outside_every_model_is_a_clear_error() {
    let stash: RefCell<Option<AtomicUsize>> = RefCell::new(None);
    let line = line!() + 1;
    Builder::new().explore(|| *stash.borrow_mut() = Some(AtomicUsize::new(5)));
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        stash.borrow().as_ref().unwrap().load(Ordering::Relaxed);
    }))
    .unwrap_err();
    let msg = scopecheck_instrument::rt::panic_message(&*err);
    assert!(
        msg.contains(&format!("an atomic created at harness/tests/misuse.rs:{line}:")),
        "{msg}"
    );
    assert!(msg.contains("run that has ended"), "{msg}");
}

/// An answer of the wrong kind from the engine (which the shim cannot
/// use) is the checker's own error: the execution stops with an internal
/// failure at the user's line, never a panic blamed on the program, and
/// the run reports it like any other failure.
#[test]
fn a_wrong_answer_from_the_engine_is_the_checkers_internal_error() {
    use scopecheck_checker::event::{OpResult, SourceLoc};
    let r = Builder::new().explore(|| {
        let x = AtomicUsize::new(1);
        x.fetch_add(1, Ordering::Relaxed);
        scopecheck_instrument::rt::wrong_answer("load", &OpResult::Done, SourceLoc::caller());
    });
    let f = the_failure(&r, FailureKind::Internal);
    assert!(
        f.message()
            .contains("the checker answered a load with Done (an error in scopecheck, not in the program)"),
        "{}",
        f.message()
    );
    assert_eq!(f.location().map(|l| l.line), Some(line!() - 9), "{r}");
    assert_eq!((r.executions(), r.failed()), (0, 1), "{r}");
}
