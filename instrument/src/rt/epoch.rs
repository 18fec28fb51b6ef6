//! Which execution a shim object belongs to.
//!
//! Every execution on an OS thread has an epoch: the run's number (taken
//! from a process-wide counter when the run starts, so no two runs share
//! one, whatever OS thread they run on) and the execution's number within
//! the run. A shim object records the epoch it was made in ([`Born`]) and
//! checks it at every use: a checker location is named by its allocating
//! thread and rank, so an object kept past its execution (in a `static`, a
//! `thread_local!`, a lazily initialised value) would otherwise silently
//! stand for whatever the later execution allocated at the same rank.

use super::{abort_with, with_shared, CURRENT};
use scopecheck_checker::engine::Stop;
use scopecheck_checker::event::SourceLoc;
use scopecheck_checker::failure::FailureKind;
use std::cell::Cell;
use std::panic::Location;
use std::sync::atomic::{AtomicU32, Ordering};

/// The next run's number (0 means "no run": outside every model).
static NEXT_RUN: AtomicU32 = AtomicU32::new(1);

thread_local! {
    /// The epoch of the execution running on this OS thread; 0 outside a model.
    static EPOCH: Cell<u64> = const { Cell::new(0) };
}

/// A number for a new run.
pub(super) fn new_run() -> u32 {
    // Wraps after 4 billion runs; 0 is skipped.
    loop {
        let n = NEXT_RUN.fetch_add(1, Ordering::Relaxed);
        if n != 0 {
            return n;
        }
    }
}

/// Enters execution `execution` of run `run` on this OS thread.
pub(super) fn enter(run: u32, execution: u64) {
    EPOCH.with(|e| e.set((run as u64) << 32 | (execution & 0xffff_ffff).max(1)));
}

/// Leaves every execution (the run ended).
pub(super) fn leave() {
    EPOCH.with(|e| e.set(0));
}

/// Where and in which execution a shim object was made.
#[derive(Clone, Copy, Debug)]
pub struct Born {
    epoch: u64,
    at: &'static Location<'static>,
}

impl Born {
    /// The current execution, at the caller's line.
    #[inline]
    #[track_caller]
    pub fn here() -> Born {
        Born {
            epoch: EPOCH.with(|e| e.get()),
            at: Location::caller(),
        }
    }

    /// Checks that the object, a `what`, is used in the execution that made
    /// it; otherwise fails the execution with a misuse report (or panics,
    /// outside every model) naming where it was made.
    #[inline(always)]
    #[track_caller]
    pub fn check(&self, what: &str) {
        if !self.is_current() {
            self.stale(what);
        }
    }

    /// Whether the object is used in the execution that made it (one
    /// thread-local load and a comparison: this is on every access).
    #[inline(always)]
    pub fn is_current(&self) -> bool {
        self.epoch == EPOCH.with(|e| e.get())
    }

    /// Reports the use of an object that is not [current](Born::is_current).
    #[cold]
    #[inline(never)]
    #[track_caller]
    pub fn stale(&self, what: &str) {
        stale(self, what, Location::caller());
    }
}

fn stale(born: &Born, what: &str, used: &'static Location<'static>) {
    let now = EPOCH.with(|e| e.get());
    let made = born.at;
    let Some(t) = CURRENT.with(|c| c.get()) else {
        if now == 0 {
            panic!(
                "scopecheck: {what} created at {made} by a `scopecheck::model` run that has ended was used at \
                 {used}, outside every model; a shim object lives only as long as the execution that created it"
            );
        }
        return;
    };
    let when = if born.epoch >> 32 == now >> 32 {
        "an earlier execution of this run (a `static`, a `thread_local!` or a lazily initialised value \
         kept it across executions)"
    } else {
        "an earlier run (an earlier `scopecheck::model`, `Builder::explore` or `Builder::check` call)"
    };
    let message = format!(
        "thread {t} used at {used} {what} created at {made} in {when}; a shim object belongs to the execution \
         that created it: create it inside the model's closure, in every execution"
    );
    let src = SourceLoc::from(used);
    let f = with_shared(|s| {
        s.engine()
            .failure(FailureKind::Misuse, message, Some(t), vec![], Some(src))
    });
    abort_with(Stop::Failure(f));
}
