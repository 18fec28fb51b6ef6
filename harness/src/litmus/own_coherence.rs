//! A read that its own thread's earlier accesses already forbid, cut off
//! while the po ∪ rf-cyclic enumerator (`cyclic.rs`) runs a C test under
//! C11 (or OpenCL, every location in a memory region) on the engine's
//! permissive `porf` base.
//!
//! The base enforces no coherence: a read may read any write of its
//! location that is not po ∪ rf-after it, and every graph is judged by
//! the model only once complete. A thread that stores to a location and
//! then reads it back may so read the initial value, or an older store of
//! its own, and every way the thread runs on from there is built, kept and
//! combined with the other threads' ways before the model rejects them
//! all. In Dat3M's `TSan` test the compare-exchange loop rewrites a
//! thread-local `*y` on each failure: the thread alone ran its whole work
//! cap (1,000,000 executions) without finishing.
//!
//! Which reads are forbidden, from C11's axioms alone. Let `r` read `w`, a
//! write of location `l` by `r`'s own thread or the initial write, and let
//! `e` be the latest access to `l` po-before `r` in that thread:
//!
//! - `e` is a write `w' ≠ w`. The initial write is mo-first, and an own
//!   write po-before `w'` is mo-before it (`irreflexive(mo ; hb)`), so
//!   `w mo w'`, hence `r fr w'`, and `w' hb r` (po ⊆ hb): a cycle in
//!   `fr ; hb`.
//! - `e` is a read of `x ≠ w`. Either `w` is mo-before `x` (the initial
//!   write; an own write po-before `e`, which `e` could not read past by the
//!   first case applied to `e`), so `r fr x`, `x rf e`, `e hb r`: a cycle in
//!   `fr ; rf ; hb`; or `w` is an own write po-after `e`, impossible since
//!   `e` is the latest access before `r`.
//!
//! Both cycles break C11's `irreflexive((fr | mo) ; rf? ; hb)` (Coh,
//! `checker/src/model/c11.rs`), and OpenCL's coherence
//! (`irreflexive((rf⁻¹)? ; co ; rf? ; hb)` for each region's hb,
//! `checker/src/model/opencl.rs`) when every location lies in a memory
//! region, which puts po between one thread's accesses to a location in
//! that region's hb (`cyclic.rs`'s `po_in_hb`, the only case this cut is
//! used under OpenCL). So no consistent execution has such a read,
//! whatever the other threads do: the execution is given up at the read
//! (`rt::discard`, as a loop past the unroll bound is), and the other
//! alternatives the run opened are still explored.
//!
//! Two kinds of read are never cut. A read of another thread's write (or
//! of the promising thread's, whose place in mo is not yet decided): only
//! the validation knows its order. And a read of the initial write of a
//! location the promising thread stores to: it never stores a location's
//! initial value (the initial write already offers it), so there such a
//! read also stands for reading another thread's write of that value.

use scopecheck_checker::event::{EventId, EventKind};
use scopecheck_checker::graph::ExecutionGraph;

/// Whether read `r` of `g` reads an initial or own-thread write that an
/// earlier access of its thread to the same location hides (see the
/// module doc); false for any other event. `promised`: whether the
/// promising thread stores to the read's location (its initial write then
/// also stands for another thread's write of the same value).
///
/// `by_value`: whether the explorer gives a read one write per value
/// (`checker/src/explore/values.rs`, which the thread-alone runs with
/// split RMWs use: every other write is there before the thread reads, and
/// the validation gives the read every write of its value later). Then
/// the read is hidden only when every write of the location with the value
/// it read is: the write the explorer picked may be hidden where another
/// of the same value is not.
pub fn hidden(g: &ExecutionGraph, r: EventId, promised: bool, by_value: bool) -> bool {
    let Some(read) = g.event(r).as_read() else {
        return false;
    };
    if !by_value {
        return write_hidden(g, r, read.rf, promised);
    }
    let Some(d) = g.loc(read.loc) else {
        return false;
    };
    let of_value = |w: &EventId| g.write_value(read.loc, *w) == read.value;
    std::iter::once(EventId::INIT)
        .chain(d.mo.iter().copied())
        .filter(of_value)
        .all(|w| write_hidden(g, r, w, promised))
}

/// Whether read `r`'s reading write `w` (of its location) is hidden, as
/// [`hidden`] says.
fn write_hidden(g: &ExecutionGraph, r: EventId, w: EventId, promised: bool) -> bool {
    let loc = match g.event(r).as_read() {
        Some(read) => read.loc,
        None => return false,
    };
    if !w.is_init() && w.thread != r.thread || w.is_init() && promised {
        return false;
    }
    if !w.is_init() && w.index > r.index {
        // A write po-after the read: never read (not porf-before it).
        return true;
    }
    let earlier = &g.thread_events(r.thread)[..r.index as usize];
    for (i, e) in earlier.iter().enumerate().rev() {
        match &e.kind {
            EventKind::Write(x) if x.loc == loc => return EventId::new(r.thread, i as u32) != w,
            EventKind::Read(x) if x.loc == loc => return x.rf != w,
            _ => {}
        }
    }
    false
}
