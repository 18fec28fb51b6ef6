//! loom's `alloc` API and leak detection: memory from `alloc::alloc` /
//! `alloc_zeroed` not given back with `alloc::dealloc`, a `Track` not
//! dropped, and an `Arc` whose strong count never reaches zero, by the end
//! of a complete execution, fail it as a leak at the allocating line;
//! executions the explorer abandons (blocked, failed) are not judged.

use scopecheck::alloc::{alloc, alloc_zeroed, dealloc, Layout, Track};
use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::sync::Arc;
use scopecheck::{thread, Builder, FailureKind, Report};

mod common;
use common::the_failure;

fn explore(f: impl Fn()) -> Report {
    Builder::new().explore(f)
}

fn passes(r: &Report, executions: u64) {
    assert!(r.failures().is_empty(), "{r}");
    assert!(r.is_complete(), "{r}");
    assert_eq!(r.executions(), executions, "{r}");
}

/// The leak report: exactly one, a `Leak` of `what` made at `line` of this file.
#[track_caller]
fn leaked(r: &Report, what: &str, line: u32) {
    let f = the_failure(r, FailureKind::Leak);
    assert!(f.message().starts_with(&format!("{what} leaked.")), "{r}");
    let at = f.location().expect("a leak names its line");
    assert_eq!((at.file.ends_with("loom_api_alloc.rs"), at.line), (true, line), "{r}");
    assert!(f.message().contains(&format!("loom_api_alloc.rs:{line}:")), "{r}");
}

#[test]
fn raw_memory_freed_passes_and_leaked_fails_at_its_line() {
    let layout = Layout::new::<u64>();
    let r = explore(move || unsafe {
        let p = alloc(layout);
        let q = alloc_zeroed(layout);
        assert_eq!(*q, 0);
        dealloc(p, layout);
        dealloc(q, layout);
    });
    passes(&r, 1);
    let r = explore(move || unsafe {
        let p = alloc(layout);
        let _q = alloc_zeroed(layout); // never freed
        dealloc(p, layout);
    });
    leaked(&r, "Allocation", line!() - 3);
}

#[test]
fn memory_freed_by_another_thread_passes() {
    let layout = Layout::new::<u64>();
    let r = explore(move || {
        let p = unsafe { alloc(layout) } as usize;
        let n = Arc::new(AtomicUsize::new(0));
        let n2 = n.clone();
        let t = thread::spawn(move || {
            n2.fetch_add(1, Ordering::Relaxed);
            unsafe { dealloc(p as *mut u8, layout) };
        });
        n.fetch_add(1, Ordering::Relaxed);
        t.join().unwrap();
    });
    passes(&r, 2);
}

#[test]
fn freeing_what_the_shim_did_not_allocate_panics() {
    let layout = Layout::new::<u64>();
    let r = explore(move || unsafe {
        let p = alloc(layout);
        dealloc(p, layout);
        let q = std::alloc::alloc(layout);
        dealloc(q, layout);
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(
        f.message()
            .contains("which the shim's alloc::alloc / alloc_zeroed did not give out"),
        "{r}"
    );
}

#[test]
fn tracks_dropped_or_unwrapped_pass_and_forgotten_fail() {
    let r = explore(|| {
        let a = Track::new(1u8);
        let mut b = Track::new(vec![1]);
        b.get_mut().push(2);
        assert_eq!((*a.get_ref(), b.into_inner()), (1, vec![1, 2]));
    });
    passes(&r, 1);
    let r = explore(|| {
        let _kept = Track::new(1u8);
        std::mem::forget(Track::new(2u8));
    });
    leaked(&r, "Allocation", line!() - 2);
}

/// loom's `arc::detect_mem_leak`.
#[test]
fn a_forgotten_arc_is_a_leak_and_a_dropped_one_is_not() {
    let r = explore(|| {
        let a = Arc::new(5usize);
        let b = a.clone();
        let t = thread::spawn(move || *b + 1);
        assert_eq!(t.join().unwrap(), 6);
        assert_eq!(Arc::strong_count(&a), 1);
        assert_eq!(Arc::try_unwrap(a), Ok(5));
    });
    passes(&r, 1);
    let r = explore(|| {
        let a = Arc::new(5usize);
        let b = a.clone();
        drop(a);
        std::mem::forget(b);
    });
    leaked(&r, "Arc", line!() - 5);
}

#[test]
fn a_cycle_of_arcs_is_a_leak() {
    use std::sync::Mutex;
    struct Node(Mutex<Option<Arc<Node>>>);
    let r = explore(|| {
        let a = Arc::new(Node(Mutex::new(None)));
        let b = Arc::new(Node(Mutex::new(Some(a.clone()))));
        *a.0.lock().unwrap() = Some(b);
    });
    leaked(&r, "Arc", line!() - 4);
}

/// Executions the explorer abandons are not judged: here every execution
/// in which the spinning thread is left waiting (blocked) still holds its
/// `Track`, and only the complete ones are checked, which free it.
#[test]
fn abandoned_executions_report_no_leak() {
    let r = explore(|| {
        let flag = Arc::new(AtomicUsize::new(0));
        let f2 = flag.clone();
        let t = thread::spawn(move || {
            let held = Track::new(0u8);
            while f2.load(Ordering::Acquire) == 0 {
                scopecheck::hint::spin_loop();
            }
            drop(held);
        });
        flag.store(1, Ordering::Release);
        t.join().unwrap();
    });
    assert!(r.failures().is_empty(), "{r}");
    assert!(r.is_complete(), "{r}");
    // Two executions: the spinner reads the store, or waits first (the
    // waiting one blocked, and abandoned with the `Track` held).
    assert_eq!((r.executions(), r.blocked()), (2, 1), "{r}");
}

/// A run that goes on past failures (`max_failures`): an execution that
/// failed with a panic while another thread held a `Track` is abandoned,
/// and is reported for its panic only.
#[test]
fn a_failed_execution_reports_its_failure_not_a_leak() {
    let mut b = Builder::new();
    b.max_failures = 10;
    let r = b.explore(|| {
        let flag = Arc::new(AtomicUsize::new(0));
        let f2 = flag.clone();
        let t = thread::spawn(move || {
            let held = Track::new(0u8);
            f2.fetch_add(1, Ordering::Relaxed);
            drop(held);
        });
        assert_eq!(flag.load(Ordering::Relaxed), 0, "boom");
        t.join().unwrap();
    });
    assert!(!r.failures().is_empty(), "{r}");
    assert!(r.failures().iter().all(|f| f.kind() == FailureKind::Panic), "{r}");
}

#[test]
fn outside_a_model_the_functions_are_std_s() {
    let layout = Layout::new::<u32>();
    unsafe {
        let p = alloc_zeroed(layout);
        assert_eq!(*p, 0);
        dealloc(p, layout);
    }
    let t = Track::new(3);
    assert_eq!(t.into_inner(), 3);
    let a = Arc::new(1);
    assert_eq!(*a, 1);
}

/// An `Arc` kept past its execution (stashed outside the model) is still
/// alive when the execution ends: a leak, as loom reports it.
#[test]
fn an_arc_stashed_outside_the_model_is_a_leak() {
    let stash = std::cell::RefCell::new(Vec::new());
    let r = explore(|| {
        let a = Arc::new(1u8);
        stash.borrow_mut().push(a);
    });
    leaked(&r, "Arc", line!() - 3);
    assert_eq!((r.executions(), r.failed()), (0, 1), "{r}");
}
