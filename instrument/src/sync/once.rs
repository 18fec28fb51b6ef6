//! The `std::sync::Once` shim ([`Once`]).

use super::raw::{cas, load, store};
use crate::raw_atomic::alloc;
use crate::rt;
use scopecheck_checker::event::{Loc, LocKind, Order, SourceLoc, Value};
use std::fmt;

/// State of a [`Once`] whose closure has not started.
const INCOMPLETE: Value = 0;
/// State of a [`Once`] whose closure runs.
const RUNNING: Value = 1;
/// State of a [`Once`] whose closure has returned.
const COMPLETE: Value = 2;

/// Shim for `std::sync::Once`: runs a closure once, whoever calls first.
///
/// The first caller takes the state from incomplete to running with a
/// compare-exchange, runs the closure and publishes completion with a
/// release store; other callers wait (with the spin-loop hint) until they
/// acquire it, so the closure's effects happen before every caller returns.
///
/// Poisoning is not modelled: a panic in the closure fails the execution
/// (see the [module documentation](super)), so `call_once_force` and
/// `OnceState` are left out. A closure that calls `call_once` on its own
/// `Once` waits for itself: the checker reports a deadlock.
pub struct Once {
    state: Loc,
    born: rt::Born,
}

impl Once {
    /// Creates a `Once` whose closure has not run (inside a model only).
    #[track_caller]
    pub fn new() -> Once {
        Once {
            state: alloc(INCOMPLETE, LocKind::Atomic),
            born: rt::Born::here(),
        }
    }

    /// Runs `f` if no call has run its closure yet; otherwise waits until that
    /// closure has returned. Either way, the closure's effects happen before
    /// this returns.
    #[track_caller]
    pub fn call_once<F: FnOnce()>(&self, f: F) {
        self.born.check("a Once");
        let src = SourceLoc::caller();
        let mut state = load(self.state, Order::Acquire, src);
        loop {
            match state {
                COMPLETE => return,
                INCOMPLETE => {
                    match cas(
                        self.state,
                        INCOMPLETE,
                        RUNNING,
                        Order::Acquire,
                        Order::Acquire,
                        None,
                        src,
                    ) {
                        Ok(_) => {
                            f();
                            store(self.state, COMPLETE, Order::Release, src);
                            return;
                        }
                        Err(now) => state = now,
                    }
                }
                _ => {
                    rt::spin_on("a Once");
                    state = load(self.state, Order::Acquire, src);
                }
            }
        }
    }

    /// Whether a closure has completed (an acquire load: if `true`, its
    /// effects are visible).
    #[track_caller]
    pub fn is_completed(&self) -> bool {
        self.born.check("a Once");
        load(self.state, Order::Acquire, SourceLoc::caller()) == COMPLETE
    }
}

impl Default for Once {
    /// A new `Once` (inside a model only).
    #[track_caller]
    fn default() -> Once {
        Once::new()
    }
}

impl fmt::Debug for Once {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Once").finish_non_exhaustive()
    }
}
