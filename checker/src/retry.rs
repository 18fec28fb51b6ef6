//! When a spurious failure of `compare_exchange_weak` is worth exploring.
//!
//! Every weak compare-exchange that could succeed may also fail
//! spuriously, and a retry loop around it (`loop { load; cas_weak }`)
//! would then have executions with any number of failures: infinitely
//! many. A failure that leaves the thread exactly where an earlier one
//! left it adds nothing: the retry that follows reads the same values and
//! so takes the same path. Two cases are recognised:
//! - the thread's latest event is a spurious failure of the same location
//!   that read the same write (the CAS is retried at once);
//! - the thread's events since its last spurious failure on that location
//!   and write repeat, access for access and read for read, the ones
//!   between that failure and the one before it (a retry loop that reloads
//!   something first, as in crossbeam's and concurrent-queue's queues).
//!   A read of the thread's own write counts as the same read when the
//!   write is one iteration later too: a loop that writes a location and
//!   reads it back (`with_mut` on a node's field before the
//!   compare-exchange, as haphazard's `acquire_new` does) reads a new write
//!   in every iteration, the one its own iteration made.
//!
//! Like the spin-loop rule (`docs/exploration.md`), this assumes that a
//! thread reading the same values repeats itself: a loop that counts its
//! own failures is explored up to its second identical iteration only.

use crate::event::{Event, EventId, EventKind, Loc, ThreadId};
use crate::graph::ExecutionGraph;

/// Whether the event is a spurious failure on `loc` that read `w`.
fn spurious_on(e: &Event, loc: Loc, w: EventId) -> bool {
    e.as_read().is_some_and(|r| r.spurious && r.loc == loc && r.rf == w)
}

/// Whether two events of thread `t`, `period` events apart (`a` the later),
/// did the same thing: the same access to the same location, reading the
/// same write, or the thread's own write `period` events later (the one
/// the later iteration made where the earlier read the earlier
/// iteration's), and writing the same value; other events by their kind.
fn same_step(t: ThreadId, period: u32, a: &Event, b: &Event) -> bool {
    let same_rf = |x: EventId, y: EventId| {
        x == y || (x.thread == t && y.thread == t && y.index.checked_add(period) == Some(x.index))
    };
    match (&a.kind, &b.kind) {
        (EventKind::Read(x), EventKind::Read(y)) => {
            x.loc == y.loc && same_rf(x.rf, y.rf) && x.spurious == y.spurious && x.value == y.value
        }
        (EventKind::Write(x), EventKind::Write(y)) => x.loc == y.loc && x.value == y.value && x.rmw == y.rmw,
        (x, y) => std::mem::discriminant(x) == std::mem::discriminant(y),
    }
}

/// Whether a spurious failure of thread `t`'s weak compare-exchange on
/// `loc`, reading `w`, would repeat an earlier one (see the module
/// comment): then only its non-spurious outcome is explored.
pub fn repeats_spurious_failure(g: &ExecutionGraph, t: ThreadId, loc: Loc, w: EventId) -> bool {
    let evs = g.thread_events(t);
    let Some(last) = evs.iter().rposition(|e| spurious_on(e, loc, w)) else {
        return false;
    };
    if last + 1 == evs.len() {
        return true;
    }
    let Some(before) = evs[..last].iter().rposition(|e| spurious_on(e, loc, w)) else {
        return false;
    };
    let since = &evs[last + 1..];
    let between = &evs[before + 1..last];
    let period = (last - before) as u32;
    since.len() == between.len() && since.iter().zip(between).all(|(a, b)| same_step(t, period, a, b))
}
