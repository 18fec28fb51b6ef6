//! The `std::sync::Barrier` shim ([`Barrier`], [`BarrierWaitResult`]).

use super::raw::{fetch, load};
use crate::raw_atomic::alloc;
use crate::rt;
use scopecheck_checker::event::{Loc, LocKind, Order, RmwOp, SourceLoc, Value};
use std::fmt;

/// Shim for `std::sync::Barrier`: lets `n` threads wait for each other.
///
/// Each [`wait`](Barrier::wait) takes a ticket from an arrival counter (an
/// acq-rel read-modify-write; the counter is never reset, so tickets `k * n`
/// to `k * n + n - 1` make up the `k`-th use of the barrier). The last ticket
/// of a use is its leader: it publishes that the use is complete with a
/// release read-modify-write (a maximum, so leaders of successive uses can
/// publish in any order); the others wait (with the spin-loop hint) until
/// they acquire it. So everything any thread did before a use of the barrier
/// happens before everything every thread does after it. As in std, a
/// thread in excess of `n` waits for the next use.
pub struct Barrier {
    n: Value,
    tickets: Loc,
    /// 1 + the number of completed uses (it starts at 1).
    completed: Loc,
    born: rt::Born,
}

/// Shim for `std::sync::BarrierWaitResult`: what [`Barrier::wait`] returns.
pub struct BarrierWaitResult {
    leader: bool,
}

impl BarrierWaitResult {
    /// Whether this thread was the leader: exactly one thread per use of the
    /// barrier (the last to arrive) gets `true`.
    pub fn is_leader(&self) -> bool {
        self.leader
    }
}

impl fmt::Debug for BarrierWaitResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BarrierWaitResult")
            .field("is_leader", &self.leader)
            .finish()
    }
}

impl Barrier {
    /// Creates a barrier for `n` threads (inside a model only). As in std,
    /// `n` of 0 behaves like 1: every `wait` returns at once as the leader.
    #[track_caller]
    pub fn new(n: usize) -> Barrier {
        Barrier {
            n: n.max(1) as Value,
            tickets: alloc(0, LocKind::Atomic),
            completed: alloc(1, LocKind::Atomic),
            born: rt::Born::here(),
        }
    }

    /// Waits until `n` threads have called `wait` (this one included).
    #[track_caller]
    pub fn wait(&self) -> BarrierWaitResult {
        self.born.check("a Barrier");
        let src = SourceLoc::caller();
        let ticket = fetch(self.tickets, RmwOp::Add(1), Order::AcqRel, src);
        let round = ticket / self.n;
        // Once this use is complete, `completed` holds at least this.
        let done = round + 2;
        if ticket % self.n == self.n - 1 {
            fetch(self.completed, RmwOp::Max(done), Order::Release, src);
            return BarrierWaitResult { leader: true };
        }
        // The ticket was a write, so this hint does not wait: it only clears
        // the set of locations the thread is known to have read, so that
        // below only `completed` can wake it.
        rt::spin_on("a barrier");
        loop {
            let now = load(self.completed, Order::Acquire, src);
            if now >= done {
                return BarrierWaitResult { leader: false };
            }
            rt::spin_on("a barrier");
        }
    }
}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Barrier").finish_non_exhaustive()
    }
}
