//! loom's extra atomic accessors: `with_mut` (mutable access through
//! `&mut self`) and `unsync_load` (a non-atomic read, judged for races like
//! any plain access), on the integer, bool and pointer atomics.

mod common;

use common::{builder, outcomes, the_failure};
use scopecheck::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use scopecheck::sync::Arc;
use scopecheck::{thread, FailureKind, MemoryModel, Strategy};

#[test]
fn with_mut_writes_what_later_loads_read() {
    let (o, r) = outcomes(&builder(MemoryModel::Cpp20, Strategy::Exhaustive), |rec| {
        let mut a = AtomicUsize::new(1);
        let before = a.with_mut(|v| {
            let old = *v;
            *v += 41;
            old
        });
        let mut b = AtomicBool::new(false);
        b.with_mut(|v| *v = true);
        let mut x = 7u32;
        let mut p = AtomicPtr::new(std::ptr::null_mut());
        p.with_mut(|q| *q = &mut x as *mut u32);
        let same = std::ptr::eq(p.load(Ordering::Relaxed), &x);
        rec((before, a.load(Ordering::Relaxed), b.load(Ordering::Relaxed), same));
    });
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o.into_iter().collect::<Vec<_>>(), vec![(1, 42, true, true)]);
}

#[test]
fn unsync_load_after_join_reads_the_last_store_and_is_no_race() {
    let (o, r) = outcomes(&builder(MemoryModel::Cpp20, Strategy::Exhaustive), |rec| {
        let a = Arc::new(AtomicUsize::new(0));
        let a2 = a.clone();
        thread::spawn(move || a2.store(5, Ordering::Relaxed)).join().unwrap();
        // SAFETY: the only other thread has been joined.
        rec(unsafe { a.unsync_load() });
    });
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o.into_iter().collect::<Vec<_>>(), vec![5]);
}

#[test]
fn unsync_load_concurrent_with_a_store_is_a_data_race() {
    let r = builder(MemoryModel::Cpp20, Strategy::Exhaustive).explore(|| {
        let a = Arc::new(AtomicUsize::new(0));
        let a2 = a.clone();
        let t = thread::spawn(move || a2.store(5, Ordering::Relaxed));
        // SAFETY: deliberately wrong, to check that the race is reported.
        let _ = unsafe { a.unsync_load() };
        t.join().unwrap();
    });
    the_failure(&r, FailureKind::DataRace);
}
