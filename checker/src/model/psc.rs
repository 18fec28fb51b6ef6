//! RC11's psc axiom over the seq_cst accesses alone, for the explorer.
//!
//! `Relations::psc` derives psc from the definition with bit matrices over
//! every event of the graph (hb by closing po ∪ sw, scb by composing po,
//! hb and po again, eco by closing rf ∪ mo ∪ fr): about 150,000
//! instructions on a 16-event store buffering graph, paid for every choice
//! a seq_cst access tries. Without seq_cst fences, psc relates only
//! seq_cst accesses, psc_base = [E^sc] ; scb ; [E^sc] with
//!
//! ```text
//! scb = po ∪ po|≠loc ; hb ; po|≠loc ∪ hb|loc ∪ mo ∪ fr
//! ```
//!
//! and every part of it between two given accesses `a` and `b` is a
//! question the graph answers directly: hb from the views each event keeps
//! (the views are built by the same rules the algebra derives hb from),
//! mo and fr from mo positions. The middle part needs no search either:
//!
//! - the events `c` with `po(a, c)` and `c` not at `a`'s location have a
//!   po-first one, `c*`: the first event after `a` in `a`'s own thread not
//!   at `a`'s location (po leaves the thread only through a spawn or the
//!   thread's end, neither of which has a location, so every other such
//!   `c` is po-after `c*`, and all it happens before, `c*` happens before
//!   too);
//! - likewise the events `d` with `po(d, b)` not at `b`'s location have a
//!   po-last one, `d*`: the last event before `b` in `b`'s thread not at
//!   `b`'s location (po enters a thread only through its start or a join);
//! - so `(po|≠loc ; hb ; po|≠loc)(a, b)` holds iff both exist and
//!   `hb(c*, d*)`.
//!
//! That part also holds every po pair of two threads (the spawn, join and
//! end events po passes through between threads have no location, so `c*`
//! is at or before where po leaves `a`'s thread and `d*` at or after where
//! it enters `b`'s), so po is needed only within a thread.
//!
//! The second point needs every cross-thread po edge to end at an event
//! without a location in the thread it enters, and the first needs every
//! one to start at such an event in the thread it leaves. A barrier's
//! partner edges start at the partner's last event, which may be an
//! access: graphs with barriers go to the algebra, and so do graphs with
//! seq_cst fences (psc_F and the fence parts of psc_base quantify over
//! every event hb-related to a fence).
//!
//! psc is then decided on k seq_cst accesses with k² pair questions of a
//! few instructions each and a topological sort. Builds with debug
//! assertions compare every verdict with the algebra's.

use crate::event::*;
use crate::graph::{ExecutionGraph, View};
use smallvec::SmallVec;

/// The most seq_cst accesses the shortcut takes (one bit each in a word);
/// graphs with more go to the relation algebra.
const MAX_ACCESSES: usize = 64;

/// One seq_cst access and what its pair questions need.
struct Access {
    id: EventId,
    loc: Loc,
    /// Position in the location's mo of the write, or of the write read.
    pos: usize,
    write: bool,
    /// The po-first event after it in its thread not at its location.
    c_star: Option<EventId>,
    /// The po-last event before it in its thread not at its location.
    d_star: Option<EventId>,
}

/// Whether psc is acyclic in `g`, or `None` when the graph is not one this
/// shortcut decides (it has a seq_cst fence, a barrier, or more than
/// 64 seq_cst accesses): the caller then
/// asks the relation algebra. `scoped`: psc relates only mutually
/// scope-inclusive events (`src11`).
pub fn acyclic(g: &ExecutionGraph, scoped: bool) -> Option<bool> {
    let mut sc: SmallVec<[Access; 16]> = SmallVec::new();
    for t in 0..g.num_threads() as ThreadId {
        let events = g.thread_events(t);
        for (i, e) in events.iter().enumerate() {
            let (loc, pos, write) = match &e.kind {
                EventKind::Barrier { .. } => return None,
                EventKind::Fence { order } if order.is_sc() => return None,
                EventKind::Read(r) if r.order.is_sc() => (r.loc, g.mo_position(r.loc, r.rf), false),
                EventKind::Write(w) if w.order.is_sc() => (w.loc, 0, true),
                _ => continue,
            };
            let id = EventId::new(t, i as u32);
            let pos = if write { g.mo_position(loc, id) } else { pos };
            let at = |j: usize| events[j].loc() == Some(loc);
            let c_star = (i + 1..events.len()).find(|&j| !at(j));
            let d_star = (0..i).rev().find(|&j| !at(j));
            sc.push(Access {
                id,
                loc,
                pos,
                write,
                c_star: c_star.map(|j| EventId::new(t, j as u32)),
                d_star: d_star.map(|j| EventId::new(t, j as u32)),
            });
        }
    }
    let k = sc.len();
    if k < 2 {
        return Some(true);
    }
    if k > MAX_ACCESSES {
        return None;
    }
    // hb(x, y) for x ≠ y: y's view holds x (views hold their own event).
    let scb = |a: &Access, b: &Access, hb_b: View, hb_d: Option<View>| {
        let same_loc = a.loc == b.loc;
        (a.id.thread == b.id.thread && a.id.index < b.id.index)
            || (same_loc && a.id != b.id && hb_b.contains(a.id))
            || (same_loc && b.write && a.pos < b.pos)
            || matches!((a.c_star, b.d_star, hb_d), (Some(c), Some(d), Some(v)) if c != d && v.contains(c))
    };
    // The psc edges as rows of bits, and each access's in-degree.
    let mut succ = [0u64; MAX_ACCESSES];
    let mut indegree = [0u32; MAX_ACCESSES];
    for (j, b) in sc.iter().enumerate() {
        let (hb_b, hb_d) = (g.hb(b.id), b.d_star.map(|d| g.hb(d)));
        for (i, a) in sc.iter().enumerate() {
            if i != j && scb(a, b, hb_b, hb_d) && (!scoped || g.inclusive(a.id, b.id)) {
                succ[i] |= 1 << j;
                indegree[j] += 1;
            }
        }
    }
    // Kahn's algorithm, the accesses left with no predecessor as a bit set.
    let mut ready: u64 = (0..k).filter(|&i| indegree[i] == 0).fold(0, |m, i| m | 1 << i);
    let mut done = 0;
    while ready != 0 {
        let a = ready.trailing_zeros() as usize;
        ready &= ready - 1;
        done += 1;
        let mut next = succ[a];
        while next != 0 {
            let b = next.trailing_zeros() as usize;
            next &= next - 1;
            indegree[b] -= 1;
            if indegree[b] == 0 {
                ready |= 1 << b;
            }
        }
    }
    Some(done == k)
}
