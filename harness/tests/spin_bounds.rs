//! A loop of spin hints (`thread::yield_now()`, `hint::spin_loop()`) that
//! reads nothing through the shim (it spins on a std atomic, or on nothing)
//! never waits and never reaches a shim operation: each hint is a step of
//! its thread, so `max_steps` reports it as a runaway and `max_duration`
//! cuts it. (Before, both bounds let it run forever.)

mod common;

use common::{the_failure, within};
use scopecheck::{hint, thread, Builder, FailureKind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const GUARD: Duration = Duration::from_secs(60);

fn spin_forever(yielding: bool) {
    loop {
        if yielding {
            thread::yield_now();
        } else {
            hint::spin_loop();
        }
    }
}

#[test]
fn a_hint_loop_that_reads_nothing_is_a_runaway_after_max_steps() {
    for yielding in [true, false] {
        let r = within(GUARD, move || {
            let mut b = Builder::new();
            b.max_steps = 1_000;
            b.explore(move || spin_forever(yielding))
        });
        let f = the_failure(&r, FailureKind::Runaway);
        assert!(
            f.message()
                .starts_with("thread 0 took more than 1000 steps in one execution (at "),
            "{}",
            f.message()
        );
        assert!(f.message().contains("a spin hint"), "{}", f.message());
    }
}

/// The finding's program: the flag is still a std atomic that nobody sets.
/// The default `max_steps` ends it.
#[test]
fn a_yield_loop_on_a_std_atomic_is_a_runaway() {
    let r = within(GUARD, || {
        Builder::new().explore(|| {
            let flag = Arc::new(AtomicBool::new(false));
            let f2 = flag.clone();
            let h = thread::spawn(move || drop(f2));
            while !flag.load(Ordering::Acquire) {
                thread::yield_now();
            }
            h.join().unwrap();
        })
    });
    let f = the_failure(&r, FailureKind::Runaway);
    assert_eq!(f.thread(), Some(0), "{r}");
    assert!(f.message().contains("took more than 100000 steps"), "{}", f.message());
}

#[test]
fn max_duration_cuts_a_hint_loop_that_reads_nothing() {
    for yielding in [true, false] {
        let r = within(GUARD, move || {
            let mut b = Builder::new();
            b.max_steps = u64::MAX;
            b.max_duration = Some(Duration::from_millis(100));
            b.explore(move || spin_forever(yielding))
        });
        assert!(!r.is_complete(), "{r}");
        assert_eq!(r.failed(), 0, "{r}");
        assert_eq!(
            r.incomplete_reason(),
            Some("stopped after max_duration = 100ms (an execution the deadline cut is not counted)"),
            "{r}"
        );
        assert_eq!(r.executions(), 0, "{r}");
    }
}
