//! The `std::sync::Condvar` shim ([`Condvar`]).

use super::raw::{acquire_word, fetch, load, release_word, LOCKED};
use super::MutexGuard;
use crate::raw_atomic::alloc;
use crate::rt;
use scopecheck_checker::event::{Loc, LocKind, Order, RmwOp, SourceLoc, Value};
use std::fmt;
use std::sync::LockResult;

/// Shim for `std::sync::Condvar`: waits for a notification while releasing
/// a [`Mutex`](super::Mutex).
///
/// A notification increments a sequence number (a release
/// read-modify-write). [`wait`](Condvar::wait) reads the sequence number,
/// unlocks the mutex, waits (with the spin-loop hint) until it reads a newer
/// sequence number and locks the mutex again. So a notification sent after
/// the waiter unlocked is never lost, and a wait that no notification can
/// end is reported as a deadlock.
///
/// Differences from std:
/// * [`notify_one`](Condvar::notify_one) may wake every waiter. For each
///   waiter but one that is a spurious wake-up, which std allows, so code
///   that waits in a loop on its condition (as it must) is unaffected.
/// * Wake-ups without any notification are not explored, although std
///   allows them: code that treats every return from `wait` as proof that
///   its condition holds can pass here and still be wrong.
/// * `wait_timeout`, `wait_timeout_ms` and `wait_timeout_while` are left
///   out: the checker has no clock, and their result type,
///   `std::sync::WaitTimeoutResult`, cannot be built outside std.
pub struct Condvar {
    /// The sequence number: starts at 1, and each notification adds 1.
    seq: Loc,
    born: rt::Born,
}

impl Condvar {
    /// Creates a condition variable (inside a model only).
    #[track_caller]
    pub fn new() -> Condvar {
        Condvar {
            seq: alloc(1, LocKind::Atomic),
            born: rt::Born::here(),
        }
    }

    /// Unlocks the guard's mutex, waits for a notification and locks the
    /// mutex again. Spurious wake-ups are possible (see the type's
    /// documentation); call it in a loop that checks the condition, or use
    /// [`wait_while`](Condvar::wait_while).
    #[track_caller]
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        self.born.check("a Condvar");
        let src = SourceLoc::caller();
        let word = guard.lock.word;
        let seen = load(self.seq, Order::Relaxed, src);
        release_word(word, src);
        // The wait ends only on reading a newer sequence number: the
        // execution graph then records which notification ended it. (A wake-up
        // from the hint alone is not in the graph, so a backward revisit could
        // keep the waiter's later steps while removing the notification.)
        // A hint waits until something the thread read since its previous
        // hint has a newer write. The first one usually returns at once (the
        // thread read the mutex word when it locked, and its unlock is newer);
        // the later ones wait for a new notification.
        loop {
            rt::spin_on("a condvar");
            let now = load(self.seq, Order::Relaxed, src);
            if now != seen {
                break;
            }
        }
        acquire_word(word, LOCKED, src);
        Ok(guard)
    }

    /// Waits while `condition` holds for the data (checked with the mutex
    /// held, before each wait), then returns the guard.
    #[track_caller]
    pub fn wait_while<'a, T, F>(&self, mut guard: MutexGuard<'a, T>, mut condition: F) -> LockResult<MutexGuard<'a, T>>
    where
        F: FnMut(&mut T) -> bool,
    {
        // `wait` is `#[track_caller]` too, so it reports this method's caller.
        while condition(&mut *guard) {
            guard = self.wait(guard)?;
        }
        Ok(guard)
    }

    /// Wakes a thread waiting on this condition variable (possibly more than
    /// one: see the type's documentation).
    #[track_caller]
    pub fn notify_one(&self) {
        self.born.check("a Condvar");
        self.notify(SourceLoc::caller());
    }

    /// Wakes every thread waiting on this condition variable.
    #[track_caller]
    pub fn notify_all(&self) {
        self.born.check("a Condvar");
        self.notify(SourceLoc::caller());
    }

    fn notify(&self, src: SourceLoc) {
        let old = fetch(self.seq, RmwOp::Add(1), Order::Release, src);
        if old == Value::MAX {
            // Skip 0 (after 2^64 - 1 notifications, so in theory only).
            fetch(self.seq, RmwOp::Add(1), Order::Release, src);
        }
    }
}

impl Default for Condvar {
    /// A new condition variable (inside a model only).
    #[track_caller]
    fn default() -> Condvar {
        Condvar::new()
    }
}

impl fmt::Debug for Condvar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Condvar").finish_non_exhaustive()
    }
}
