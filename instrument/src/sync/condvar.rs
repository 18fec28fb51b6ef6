//! The `std::sync::Condvar` shim ([`Condvar`]).

use super::raw::{acquire_word, fetch, load, release_word, LOCKED};
use super::MutexGuard;
use crate::raw_atomic::alloc;
use crate::rt;
use scopecheck_checker::event::{Loc, LocKind, Order, RmwOp, SourceLoc, Value};
use std::fmt;
use std::sync::{LockResult, PoisonError};
use std::time::Duration;

/// Whether a [`Condvar::wait_timeout`] ended by its timeout (loom's type of
/// the same name: std's `WaitTimeoutResult` cannot be built outside std).
#[derive(Debug, PartialEq, Eq, Copy, Clone)]
pub struct WaitTimeoutResult(bool);

impl WaitTimeoutResult {
    /// Whether the wait ended because the timeout elapsed.
    pub fn timed_out(&self) -> bool {
        self.0
    }
}

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
/// * The checker has no clock: [`wait_timeout`](Condvar::wait_timeout) and
///   [`wait_timeout_while`](Condvar::wait_timeout_while) explore both a
///   timeout at once (whatever the duration) and the wait for a
///   notification; their result is this module's [`WaitTimeoutResult`]
///   (loom's), since std's cannot be built outside std.
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

    /// Like [`wait`](Condvar::wait), but the wait may also end by the
    /// timeout: with no clock, the checker explores both a timeout at once
    /// (the mutex is unlocked and locked again, `timed_out()` is true), as
    /// std allows for any `dur` since a notification may come late, and the
    /// wait for a notification (`timed_out()` false). loom only does the
    /// latter. Still as loom: when no thread is left to notify, the waiting
    /// branch is reported as a deadlock, although std would time out there
    /// (the timeout branch is explored and passes; telling the two apart
    /// needs the deadlock detector to end such a wait by its timeout).
    #[track_caller]
    pub fn wait_timeout<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        dur: Duration,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
        let _ = dur;
        self.born.check("a Condvar");
        let src = SourceLoc::caller();
        if crate::choice::spurious_wake(src) {
            let word = guard.lock.word;
            release_word(word, src);
            acquire_word(word, LOCKED, src);
            return Ok((guard, WaitTimeoutResult(true)));
        }
        self.wait(guard)
            .map(|g| (g, WaitTimeoutResult(false)))
            .map_err(|e| PoisonError::new((e.into_inner(), WaitTimeoutResult(false))))
    }

    /// Waits while `condition` holds, as [`wait_while`](Condvar::wait_while),
    /// or until a wait times out (see [`wait_timeout`](Condvar::wait_timeout)):
    /// then the condition is checked once more, and the result says whether
    /// it still held.
    #[track_caller]
    pub fn wait_timeout_while<'a, T, F>(
        &self,
        mut guard: MutexGuard<'a, T>,
        dur: Duration,
        mut condition: F,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)>
    where
        F: FnMut(&mut T) -> bool,
    {
        while condition(&mut *guard) {
            let (g, r) = self.wait_timeout(guard, dur)?;
            guard = g;
            // As std: after the timeout the condition is checked once more,
            // and only if it still holds does the result say "timed out".
            if r.timed_out() {
                let still = condition(&mut *guard);
                return Ok((guard, WaitTimeoutResult(still)));
            }
        }
        Ok((guard, WaitTimeoutResult(false)))
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
