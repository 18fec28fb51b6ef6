//! loom's `future` module (feature `futures`): `block_on` and `AtomicWaker`.

mod common;

use common::{position, the_failure};
use scopecheck::future::{block_on, AtomicWaker};
use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::sync::Arc;
use scopecheck::{thread, Builder, FailureKind, MemoryModel, Strategy};
use std::future::poll_fn;
use std::task::Poll;

const SRC: &str = include_str!("loom_api_future.rs");

fn exhaustive() -> Builder {
    common::builder(MemoryModel::Rc11, Strategy::Exhaustive)
}

#[test]
fn block_on_a_ready_future() {
    let r = exhaustive().explore(|| assert_eq!(block_on(async { 3 }), 3));
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(r.executions(), 1);
}

/// loom's `futures::atomic_waker_valid`: two threads each count and wake;
/// the task is done when it sees both counts.
#[test]
fn atomic_waker_wakes_the_registered_task() {
    let r = exhaustive().explore(|| {
        let num = Arc::new(AtomicUsize::new(0));
        let task = Arc::new(AtomicWaker::new());
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let (num, task) = (num.clone(), task.clone());
                thread::spawn(move || {
                    num.fetch_add(1, Ordering::Relaxed);
                    task.wake();
                })
            })
            .collect();
        block_on(poll_fn(|cx| {
            task.register_by_ref(cx.waker());
            if num.load(Ordering::Relaxed) == 2 {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        }));
        for h in hs {
            h.join().unwrap();
        }
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
}

#[test]
fn a_future_nobody_wakes_is_a_deadlock_at_the_block_on() {
    let r = exhaustive().explore(|| {
        block_on(poll_fn(|_| Poll::<()>::Pending)); // never ready
    });
    let f = the_failure(&r, FailureKind::Deadlock);
    let at = position(
        file!(),
        SRC,
        "block_on(poll_fn(|_| Poll::<()>::Pending)); // never ready",
    );
    assert!(
        f.message().contains(&format!("thread 0 waits at {at} on `block_on`")),
        "{}",
        f.message()
    );
}

#[test]
fn a_wake_that_comes_before_the_register_is_lost() {
    // The waker registers only on its second poll; a wake before the
    // first registration finds no waker: the task can sleep for ever.
    let r = exhaustive().explore(|| {
        let num = Arc::new(AtomicUsize::new(0));
        let task = Arc::new(AtomicWaker::new());
        let (n2, t2) = (num.clone(), task.clone());
        let h = thread::spawn(move || {
            n2.store(1, Ordering::Relaxed);
            t2.wake();
        });
        let mut polls = 0;
        block_on(poll_fn(|cx| {
            polls += 1;
            if num.load(Ordering::Relaxed) == 1 {
                return Poll::Ready(());
            }
            if polls > 1 {
                task.register_by_ref(cx.waker());
            }
            Poll::Pending
        }));
        h.join().unwrap();
    });
    the_failure(&r, FailureKind::Deadlock);
}
