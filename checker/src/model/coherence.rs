//! Coherence as the explorer keeps it by construction: the floor every
//! new access of a location must be at or after in mo, given the view of
//! its po-predecessor. This is irreflexive(hb ; eco?) (RC11's COHERENCE:
//! CoWW, CoWR, CoRW, CoRR) asked of one new access, with the hb of the
//! location's memory space (`space.rs`, rule 4). Shared by every coherent
//! model ([`super::Semantics::COHERENT`]).

use super::{Candidates, Places};
use crate::event::*;
use crate::graph::{ExecutionGraph, View};
use smallvec::SmallVec;

/// The mo position every access of thread `t` at `loc` must be at or
/// after, given `hb` (the view of its po-predecessor): the mo-maximal of
/// the writes in `hb` and of the writes read by reads in `hb`. This is
/// what irreflexive(hb ; eco?) asks of a new access (CoWW, CoWR, CoRW, CoRR),
/// with the hb of the location's memory space (`space.rs`, rule 4).
pub fn floor(g: &ExecutionGraph, loc: Loc, hb: View, skip: Option<EventId>) -> usize {
    let d = g.loc(loc).expect("accessed location exists");
    let space = d.space;
    match d.mo.last() {
        None => return 0,
        // The mo-last write is in hb: nothing is later.
        Some(&w) if hb.contains_in(space, w) => return d.mo.len(),
        Some(_) => {}
    }
    // The writes read by reads in hb that are not in hb themselves (those
    // in hb are found by the scan below anyway). Of one thread's reads
    // in hb (a prefix of them), the last read the mo-latest write
    // (CoRR), so one read per thread is enough.
    let mut read: SmallVec<[EventId; 8]> = SmallVec::new();
    for t in 0..d.thread_slots() as ThreadId {
        let rs = d.thread_reads(t);
        let mut k = rs.partition_point(|&i| i < hb.get_in(space, t));
        if k > 0 && skip == Some(EventId::new(t, rs[k - 1])) {
            k -= 1;
        }
        if k == 0 {
            continue;
        }
        let rf = g.event(EventId::new(t, rs[k - 1])).as_read().expect("read").rf;
        if !rf.is_init() && !hb.contains_in(space, rf) {
            read.push(rf);
        }
    }
    // The floor is just after the mo-latest write that is in hb or read
    // in hb; scanning mo from its end finds it without asking any
    // write's position.
    let floor_with = |read: &[EventId]| {
        d.mo.iter()
            .rposition(|w| hb.contains_in(space, *w) || read.contains(w))
            .map_or(0, |i| i + 1)
    };
    let floor = floor_with(&read);
    #[cfg(debug_assertions)]
    {
        let scanned = crate::work::uncounted(|| {
            let all: Vec<EventId> = d
                .reads
                .iter()
                .filter(|&&r| Some(r) != skip && hb.contains_in(space, r))
                .map(|&r| g.event(r).as_read().expect("read").rf)
                .collect();
            floor_with(&all)
        });
        debug_assert_eq!(
            floor, scanned,
            "checker invariant: a thread's later reads of a location read mo-later writes"
        );
    }
    floor
}

/// The writes of `loc` from mo position `floor` on.
pub fn candidates_from(g: &ExecutionGraph, loc: Loc, floor: usize) -> Candidates {
    let mo = &g.loc(loc).expect("loc").mo;
    let mut c = Candidates::new();
    if floor == 0 {
        c.push(EventId::INIT);
    }
    c.extend_from_slice(&mo[floor.saturating_sub(1)..]);
    c
}

/// The mo positions after `floor` that keep every RMW right after its source.
pub fn placements_from(g: &ExecutionGraph, loc: Loc, floor: usize) -> Places {
    let d = g.loc(loc).expect("loc");
    let n = d.mo.len();
    (floor + 1..=n + 1)
        .filter(|&p| {
            // inserting at p puts the write between mo positions p-1 and p
            p > n || !g.event(d.mo[p - 1]).as_write().expect("write").rmw || {
                // mo[p-1] is an RMW write: it must stay right after what it read
                let w = d.mo[p - 1];
                let rd = g
                    .event(EventId::new(w.thread, w.index - 1))
                    .as_read()
                    .expect("rmw read");
                g.mo_position(loc, rd.rf) != p - 1
            }
        })
        .collect()
}

/// The hb view of the po-predecessor of thread `t`'s next event.
pub fn base_hb(g: &ExecutionGraph, t: ThreadId) -> View<'_> {
    match g.thread_len(t) {
        0 => View::empty(),
        n => g.hb(EventId::new(t, n - 1)),
    }
}
