//! loom's `cell` API: `UnsafeCell::{get, get_mut}` give `ConstPtr` /
//! `MutPtr` guards whose whole life is an access (immutable / mutable), so
//! an access that overlaps a conflicting one still in progress is reported
//! even when happens-before orders their starts, and an access kept across
//! the thread's own synchronization is judged at its end too; `with` /
//! `with_mut` keep working, now as accesses lasting their closure; `Cell`
//! is loom's checked `std::cell::Cell`.

use scopecheck::cell::{Cell, UnsafeCell};
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

#[test]
fn const_and_mut_ptrs_read_and_write_the_value() {
    let r = explore(|| {
        let c = UnsafeCell::new(5usize);
        {
            let p = c.get_mut();
            // SAFETY: the only access, tracked by `p`.
            unsafe { *p.deref() += 1 };
            p.with(|raw| unsafe { *raw *= 2 });
        }
        let a = c.get();
        let b = c.get();
        // SAFETY: two immutable accesses may overlap.
        assert_eq!(unsafe { *a.deref() } + b.with(|raw| unsafe { *raw }), 24);
    });
    passes(&r, 1);
}

#[test]
fn concurrent_readers_through_const_ptrs_pass() {
    let r = explore(|| {
        let c = Arc::new(UnsafeCell::new(7usize));
        let c2 = c.clone();
        let t = thread::spawn(move || {
            let p = c2.get();
            // SAFETY: readers only.
            unsafe { *p.deref() }
        });
        let p = c.get();
        // SAFETY: readers only.
        assert_eq!(unsafe { *p.deref() }, 7);
        drop(p);
        assert_eq!(t.join().unwrap(), 7);
    });
    passes(&r, 1);
}

#[test]
fn a_mut_ptr_racing_a_read_is_a_data_race() {
    let r = explore(|| {
        let c = Arc::new(UnsafeCell::new(0usize));
        let c2 = c.clone();
        let t = thread::spawn(move || {
            let p = c2.get_mut();
            // SAFETY: the checker judges the access.
            unsafe { *p.deref() = 1 };
        });
        c.with(|v| unsafe { *v });
        t.join().unwrap();
    });
    the_failure(&r, FailureKind::DataRace);
}

/// The writer publishes a flag while its `MutPtr` is still alive and
/// writes again; a reader that sees the flag reads the cell. The second
/// write races the read: the access's end is judged too. (With one access
/// event at the start only, this passed.)
#[test]
fn a_mut_ptr_kept_across_a_release_races_the_reader_at_its_end() {
    let r = explore(|| {
        let s = Arc::new((UnsafeCell::new(0usize), AtomicUsize::new(0)));
        let s2 = s.clone();
        let t = thread::spawn(move || {
            let p = s2.0.get_mut();
            // SAFETY: the checker judges the access.
            unsafe { *p.deref() = 1 };
            s2.1.store(1, Ordering::Release);
            // SAFETY: as above; still the same access.
            unsafe { *p.deref() = 2 };
        });
        if s.1.load(Ordering::Acquire) == 1 {
            s.0.with(|v| unsafe { *v });
        }
        t.join().unwrap();
    });
    let f = the_failure(&r, FailureKind::DataRace);
    // The racing write is the access's end, at the line of `get_mut`.
    assert_eq!(f.events().len(), 2, "{r}");
    assert!(f.events().iter().any(|e| e.what.contains("cell write")), "{r}");
    assert!(f.events().iter().any(|e| e.what.contains("cell read")), "{r}");
}

/// A handshake orders everything by happens-before: the writer publishes
/// while its `MutPtr` lives, the reader reads and answers, and only then
/// does the writer drop its pointer. No two accesses race, but the read
/// overlaps the live mutable access: loom's "currently writing to cell".
#[test]
fn a_read_overlapping_a_live_mut_ptr_is_reported_even_when_ordered() {
    let r = explore(|| {
        let s = Arc::new((UnsafeCell::new(0usize), AtomicUsize::new(0), AtomicUsize::new(0)));
        let s2 = s.clone();
        let t = thread::spawn(move || {
            let p = s2.0.get_mut();
            // SAFETY: the checker judges the access.
            unsafe { *p.deref() = 1 };
            s2.1.store(1, Ordering::Release);
            while s2.2.load(Ordering::Acquire) == 0 {
                scopecheck::hint::spin_loop();
            }
            drop(p);
        });
        while s.1.load(Ordering::Acquire) == 0 {
            scopecheck::hint::spin_loop();
        }
        s.0.with(|v| unsafe { *v });
        s.2.store(1, Ordering::Release);
        t.join().unwrap();
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(
        f.message().contains("an immutable access at") && f.message().contains("overlaps the mutable access begun at"),
        "{r}"
    );
}

#[test]
fn a_mut_ptr_dropped_before_the_release_is_fine() {
    let r = explore(|| {
        let s = Arc::new((UnsafeCell::new(0usize), AtomicUsize::new(0)));
        let s2 = s.clone();
        let t = thread::spawn(move || {
            {
                let p = s2.0.get_mut();
                // SAFETY: the checker judges the access.
                unsafe { *p.deref() = 1 };
            }
            s2.1.store(1, Ordering::Release);
        });
        if s.1.load(Ordering::Acquire) == 1 {
            assert_eq!(s.0.with(|v| unsafe { *v }), 1);
        }
        t.join().unwrap();
    });
    passes(&r, 2);
}

/// `with_mut` whose closure releases a flag and then writes again: the
/// write after the release races a reader that acquired the flag. Judged
/// at the closure's end (the thread added events during it).
#[test]
fn a_with_mut_closure_that_outlives_a_release_is_checked_at_its_end() {
    let r = explore(|| {
        let s = Arc::new((UnsafeCell::new(0usize), AtomicUsize::new(0)));
        let s2 = s.clone();
        let t = thread::spawn(move || {
            s2.0.with_mut(|p| {
                // SAFETY: the checker judges the access.
                unsafe { *p = 1 };
                s2.1.store(1, Ordering::Release);
            });
        });
        if s.1.load(Ordering::Acquire) == 1 {
            s.0.with(|v| unsafe { *v });
        }
        t.join().unwrap();
    });
    let f = the_failure(&r, FailureKind::DataRace);
    assert!(
        f.events().iter().all(|e| e.src.file.ends_with("loom_api_cell.rs")),
        "{r}"
    );
}

#[test]
fn a_read_inside_a_write_of_the_same_cell_on_one_thread_is_reported() {
    let r = explore(|| {
        let c = UnsafeCell::new(1usize);
        let p = c.get_mut();
        c.with(|v| unsafe { *v });
        drop(p);
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(
        f.message().contains("immutable access at") && f.message().contains("overlaps the mutable access"),
        "{r}"
    );
}

#[test]
fn two_mut_ptrs_at_once_are_reported() {
    let r = explore(|| {
        let c = UnsafeCell::new(1usize);
        let _a = c.get_mut();
        let _b = c.get_mut();
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(f.message().contains("a mutable access at"), "{r}");
}

#[test]
fn a_write_while_a_const_ptr_lives_is_reported() {
    let r = explore(|| {
        let c = UnsafeCell::new(1usize);
        let _a = c.get();
        c.with_mut(|v| unsafe { *v = 2 });
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(f.message().contains("overlaps the immutable access"), "{r}");
}

#[test]
fn cell_values_and_a_race_on_a_shared_cell() {
    let r = explore(|| {
        let c = Cell::new(3u32);
        assert_eq!(c.replace(4), 3);
        c.set(c.get() + 1);
        let d = Cell::new(9u32);
        c.swap(&d);
        assert_eq!((c.get(), d.take(), d.get()), (9, 5, 0));
        assert_eq!(c.clone().into_inner(), 9);
        assert!(c > d && Cell::from(9u32) == c);
    });
    passes(&r, 1);
    let r = explore(|| {
        let c = Arc::new(Cell::new(0u32));
        let c2 = c.clone();
        let t = thread::spawn(move || c2.set(1));
        c.get();
        t.join().unwrap();
    });
    the_failure(&r, FailureKind::DataRace);
    let r = explore(|| {
        let c = Arc::new(Cell::new(0u32));
        let c2 = c.clone();
        thread::spawn(move || c2.set(1)).join().unwrap();
        assert_eq!(c.get(), 1);
    });
    passes(&r, 1);
}
