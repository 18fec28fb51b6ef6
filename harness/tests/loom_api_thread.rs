//! loom's `thread` API: `spawn` without `Send`, `JoinHandle: Send`,
//! `Builder`, names (the main thread has none, as in loom), `park` with a
//! working `unpark`, `thread_local!`, and `lazy_static!`.

mod common;

use common::{position, the_failure};
use scopecheck::cell::UnsafeCell;
use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::sync::Arc;
use scopecheck::{thread, Builder, FailureKind, MemoryModel, Strategy};
use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::rc::Rc;

const SRC: &str = include_str!("loom_api_thread.rs");

fn exhaustive() -> Builder {
    common::builder(MemoryModel::Rc11, Strategy::Exhaustive)
}

fn reference() -> Builder {
    common::builder(MemoryModel::Rc11, Strategy::Reference)
}

#[test]
fn spawn_takes_closures_and_results_that_are_not_send() {
    let r = exhaustive().explore(|| {
        let shared = Rc::new(Cell::new(1));
        let s2 = shared.clone();
        // Neither the closure (it holds an `Rc`) nor its result is `Send`.
        let h = thread::spawn(move || {
            s2.set(s2.get() + 1);
            s2
        });
        let back = h.join().unwrap();
        assert_eq!(back.get(), 2);
        assert_eq!(shared.get(), 2);
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(r.executions(), 1);
}

#[test]
fn join_handles_are_send_and_sync_like_loom() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<thread::JoinHandle<()>>();
    send_sync::<thread::JoinHandle<Vec<u8>>>();
    send_sync::<thread::Thread>();
}

#[test]
fn names_and_ids_as_loom_gives_them() {
    let r = exhaustive().explore(|| {
        // The main thread has no name (loom's `thread_api::initial_thread`).
        assert_eq!(thread::current().name(), None);
        let main = thread::current().id();
        let plain = thread::spawn(|| (thread::current().id(), thread::current().name().map(String::from)));
        let named = thread::Builder::new()
            .name("worker".to_string())
            .stack_size(1 << 16)
            .spawn(|| (thread::current().id(), thread::current().name().map(String::from)))
            .unwrap();
        assert_eq!(plain.thread().name(), None);
        assert_eq!(named.thread().name(), Some("worker"));
        let (plain_id, named_id) = (plain.thread().id(), named.thread().id());
        assert_eq!(plain.join().unwrap(), (plain_id, None));
        assert_eq!(named.join().unwrap(), (named_id, Some("worker".to_string())));
        assert!(main != plain_id && main != named_id && plain_id != named_id);
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
}

#[test]
fn an_unpark_before_the_park_is_kept() {
    // loom's `thread_api::park_unpark_loom`.
    let r = exhaustive().explore(|| {
        thread::current().unpark();
        thread::park();
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(r.executions(), 1);
}

/// A thread writes plain data, then unparks the main thread, which parks
/// and reads it: the unpark synchronizes with the park, so there is no race
/// and the value is always seen.
fn handoff(rec: &dyn Fn(u32)) {
    let data = Arc::new(UnsafeCell::new(0u32));
    let main = thread::current();
    let d2 = data.clone();
    let h = thread::spawn(move || {
        d2.with_mut(|p| unsafe { *p = 7 });
        main.unpark();
    });
    thread::park();
    rec(data.with(|p| unsafe { *p }));
    h.join().unwrap();
}

#[test]
fn unpark_happens_before_the_park_that_takes_its_token() {
    let (o, r) = common::outcomes(&exhaustive(), handoff);
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(o, BTreeSet::from([7]));
    // The park's compare-exchange reads the token's initial 0 (then waits
    // for the unpark and reads its 1) or the unpark's 1 at once: two
    // executions, as the reference enumerator counts them.
    let (o2, r2) = common::outcomes(&reference(), handoff);
    assert_eq!(o2, o);
    assert_eq!((r.executions(), r2.executions()), (2, 2), "{r}\n{r2}");
}

#[test]
fn unpark_through_the_join_handle_wakes_the_child() {
    let r = exhaustive().explore(|| {
        let h = thread::spawn(|| {
            thread::park();
            5
        });
        h.thread().unpark();
        assert_eq!(h.join().unwrap(), 5);
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
}

#[test]
fn unpark_through_a_scoped_handle_and_of_the_main_thread() {
    let r = exhaustive().explore(|| {
        let main = thread::current();
        thread::scope(|s| {
            let h = s.spawn(|| {
                thread::park();
                main.unpark();
            });
            h.thread().unpark();
        });
        thread::park();
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
}

#[test]
fn a_park_nobody_unparks_is_a_deadlock_at_its_line() {
    let r = exhaustive().explore(|| {
        let _me = thread::current();
        thread::park(); // parks forever
    });
    let f = the_failure(&r, FailureKind::Deadlock);
    let at = position(file!(), SRC, "thread::park(); // parks forever");
    assert!(
        f.message()
            .contains(&format!("thread 0 waits at {at} on `thread::park`")),
        "{}",
        f.message()
    );
}

#[test]
fn a_lost_unpark_is_a_deadlock() {
    // Two unparks before two parks give one token: the second park waits
    // for ever in the executions where both unparks come first.
    let r = exhaustive().explore(|| {
        let main = thread::current();
        let h = thread::spawn(move || {
            main.unpark();
            main.unpark();
        });
        thread::park();
        thread::park();
        h.join().unwrap();
    });
    the_failure(&r, FailureKind::Deadlock);
}

#[test]
fn thread_locals_are_per_thread_lazy_and_dropped_when_the_thread_ends() {
    thread_local! {
        static MADE: Cell<u32> = const { Cell::new(0) };
    }
    // The number of values made and dropped (plain std, outside the model).
    std::thread_local! {
        static COUNTS: RefCell<(u32, u32)> = const { RefCell::new((0, 0)) };
    }
    struct Counted(u32);
    impl Drop for Counted {
        fn drop(&mut self) {
            COUNTS.with(|c| c.borrow_mut().1 += 1);
        }
    }
    scopecheck::thread_local! {
        static VALUE: RefCell<Counted> = {
            COUNTS.with(|c| c.borrow_mut().0 += 1);
            RefCell::new(Counted(1))
        };
    }
    let _ = MADE.with(|m| m.get());
    let r = exhaustive().explore(|| {
        let h = thread::spawn(|| {
            VALUE.with(|v| v.borrow_mut().0 += 10);
            VALUE.with(|v| v.borrow().0)
        });
        // Not made until used: the child has its own.
        assert_eq!(VALUE.with(|v| v.borrow().0), 1);
        assert_eq!(h.join().unwrap(), 11);
        // The child's value was dropped when it ended: made 2, dropped 1.
        assert_eq!(COUNTS.with(|c| *c.borrow()), (2, 1));
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(r.executions(), 1);
    // The main thread's value was dropped when the closure returned.
    assert_eq!(COUNTS.with(|c| *c.borrow()), (2, 2));
}

#[test]
fn a_thread_local_used_while_the_values_are_dropped_answers_access_error() {
    struct Probe;
    impl Drop for Probe {
        fn drop(&mut self) {
            assert!(OTHER.try_with(|_| ()).is_err());
        }
    }
    scopecheck::thread_local! {
        static PROBE: Probe = Probe;
        static OTHER: u8 = 0;
    }
    let r = exhaustive().explore(|| {
        thread::spawn(|| PROBE.with(|_| ())).join().unwrap();
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
}

#[test]
fn lazy_statics_are_made_once_per_execution_and_shared_by_threads() {
    std::thread_local! {
        static MADE: Cell<u32> = const { Cell::new(0) };
    }
    scopecheck::lazy_static! {
        static ref COUNTER: AtomicUsize = {
            MADE.with(|m| m.set(m.get() + 1));
            AtomicUsize::new(0)
        };
    }
    let r = exhaustive().explore(|| {
        let h = thread::spawn(|| {
            COUNTER.fetch_add(1, Ordering::Relaxed);
        });
        COUNTER.fetch_add(1, Ordering::Relaxed);
        h.join().unwrap();
        assert_eq!(COUNTER.load(Ordering::Relaxed), 2);
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    // Once per execution: a value of an earlier execution is never reused.
    assert_eq!(MADE.with(|m| m.get()) as u64, r.executions() + r.blocked());
}
