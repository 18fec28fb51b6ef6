//! loom's `sync::Notify`: a one-waiter notification with acquire-release
//! semantics (loom's mock of the park/unpark pattern).

use super::{cas, store};
use crate::raw_atomic::alloc;
use crate::rt;
use scopecheck_checker::event::{Loc, LocKind, Order, SourceLoc};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

/// A notification flag for one waiting thread (loom's `Notify`).
///
/// [`notify`](Notify::notify) makes the flag set (a release store);
/// [`wait`](Notify::wait) takes it with an acquire compare-exchange,
/// waiting (with the spin-loop hint) while it is not set: a notification
/// sent before the wait is kept, notifications sent before one wait
/// count once, and a wait that no notification can end is reported as a
/// deadlock at its line. As in loom, only one thread may wait at a time.
///
/// One difference from loom: loom lets one `wait` per `Notify` and
/// execution return spuriously (without a notification); the checker has
/// no choice of that kind, so a `wait` here returns only when notified.
pub struct Notify {
    flag: Loc,
    born: rt::Born,
    /// Enforces the single waiter (not part of the model, as in loom).
    waiting: AtomicBool,
}

impl Notify {
    /// A `Notify` with no notification pending (inside a model only).
    #[track_caller]
    pub fn new() -> Notify {
        Notify {
            flag: alloc(0, LocKind::Atomic),
            born: rt::Born::here(),
            waiting: AtomicBool::new(false),
        }
    }

    /// Sets the notification (a release store).
    #[track_caller]
    pub fn notify(&self) {
        self.born.check("a Notify");
        store(self.flag, 1, Order::Release, SourceLoc::caller());
    }

    /// Waits until the notification is set and takes it.
    ///
    /// # Panics
    /// If another thread is waiting on this `Notify` (as loom).
    #[track_caller]
    pub fn wait(&self) {
        self.born.check("a Notify");
        let src = SourceLoc::caller();
        if self.waiting.swap(true, Ordering::Relaxed) {
            panic!("only a single thread may wait on `Notify`");
        }
        while cas(self.flag, 1, 0, Order::Acquire, Order::Relaxed, None, src).is_err() {
            rt::spin_on("a Notify");
        }
        self.waiting.store(false, Ordering::Relaxed);
    }
}

impl Default for Notify {
    /// A new `Notify` (inside a model only).
    #[track_caller]
    fn default() -> Notify {
        Notify::new()
    }
}

impl fmt::Debug for Notify {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Notify").finish_non_exhaustive()
    }
}
