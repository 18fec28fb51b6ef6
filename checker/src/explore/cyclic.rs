//! Graphs with a cycle in po ∪ rf, for the models that allow them
//! (`MemoryModel::allows_porf_cycles`: `c11`). See docs/c11-model.md
//! section 4.
//!
//! When a write `w` is added, a read `r` of its location in `w`'s porf
//! prefix cannot read `w` in a graph built one event at a time (TruSt does
//! not revisit it). Here such a pair becomes a *promise*: a nested level of
//! the explorer starts from the graph cut back to just before `r`, with the
//! promise that the read at `r`'s position returns `w`'s value. The program
//! re-runs from there (every event after the cut is added anew, with all
//! its choices); the execution counts only if, when it ends, the write at
//! `w`'s position is there and writes that value (`graph/promises.rs`), the
//! graph with `r` reading it has a cycle in po ∪ rf (an acyclic one is
//! TruSt's to find), and the model accepts it. The same cyclic execution
//! can be reached more than once this way, so the engine keeps the
//! canonical keys of the cyclic executions it counted and counts each once
//! (`engine/verdict.rs`).
//!
//! A promise is made only when it deletes no promised read: a promised
//! read is never deleted (nor revisited), so promises only accumulate
//! along a branch of the exploration, one per read position at most, and
//! the exploration ends. Nothing else limits them (TruSt's maximality,
//! which makes each acyclic graph come up once, is not carried over to
//! promises): the same cyclic execution may come up on several branches,
//! and is counted once by its canonical key. That costs executions that
//! are run and not counted, and a set of keys of the cyclic executions.

use crate::clock::Clock;
use crate::event::*;
use crate::graph::{ExecutionGraph, Promise};
use crate::model::MemoryModel;

/// The reads `w` (just added, not a tentative RMW) may be promised to, in
/// the order their promises are to be pushed.
pub(super) fn promise_reads(g: &ExecutionGraph, w: EventId, model: MemoryModel) -> Vec<EventId> {
    let wr = *g.event(w).as_write().expect("write");
    let d = g.loc(wr.loc).expect("loc");
    if !model.allows_porf_cycles() || g.holds_addresses(wr.loc) {
        return Vec::new();
    }
    let prefix = g.porf(w);
    let mut reads: Vec<EventId> = Vec::new();
    for t in 0..d.thread_slots() as ThreadId {
        // A read of w's own thread po-before it would read a po-later
        // write: never consistent (rf ; hb is irreflexive in every model).
        if t == w.thread {
            continue;
        }
        let rs = d.thread_reads(t);
        let upto = rs.partition_point(|&i| i < prefix.get(t));
        reads.extend(rs[..upto].iter().map(|&i| EventId::new(t, i)).filter(|&r| {
            let e = g.event(r);
            // Atomic loads and RMWs (`engine/promised.rs`), not a mutex's
            // acquisition: it waits on what it reads.
            g.promise_at(r.thread, r.index).is_none()
                && matches!(&e.kind, EventKind::Read(rd)
                    if rd.await_.is_none() && rd.order.is_atomic())
        }));
    }
    reads.retain(|&r| deletes_no_promise(g, r));
    reads.sort_by_key(|&r| std::cmp::Reverse(g.event(r).stamp));
    reads
}

/// What a promise to `r` keeps of `g`: every event but `r` and those porf
/// after it (whose choices and values were made with `r`'s old value).
/// Downward closed under po and rf; per thread a prefix.
fn kept_by_promise(g: &ExecutionGraph, r: EventId) -> Clock {
    let mut v = Clock::new();
    for t in 0..g.num_threads() as ThreadId {
        let n = if t == r.thread {
            r.index
        } else {
            // porf views grow along po: the events after r are a suffix.
            g.thread_events(t)
                .iter()
                .enumerate()
                .position(|(i, _)| g.porf(EventId::new(t, i as u32)).contains(r))
                .unwrap_or(g.thread_len(t) as usize) as u32
        };
        if n > 0 {
            v.include(EventId::new(t, n - 1));
        }
    }
    v
}

/// Whether a promise to `r` keeps every promised read already added.
fn deletes_no_promise(g: &ExecutionGraph, r: EventId) -> bool {
    g.promises()
        .iter()
        .all(|p| !g.contains(p.read) || (p.read != r && !g.porf(p.read).contains(r)))
}

/// A promise waiting for its turn, as what rebuilds its graph from the
/// level's (which, cut back to `w`'s stamp, is the graph `w` was added to:
/// see `revisit.rs`).
pub(super) struct PromiseItem {
    read: EventId,
    write_stamp: u32,
    promise: Promise,
}

impl PromiseItem {
    /// The promise of `w`'s value to `r`.
    pub(super) fn new(g: &ExecutionGraph, r: EventId, w: EventId) -> PromiseItem {
        let wr = g.event(w).as_write().expect("write");
        PromiseItem {
            read: r,
            write_stamp: g.event(w).stamp,
            promise: Promise {
                read: r,
                write: w,
                loc: wr.loc,
                value: wr.value,
                rank: Some(
                    g.thread_events(w.thread)[..w.index as usize]
                        .iter()
                        .filter(|e| matches!(&e.kind, EventKind::Write(x) if x.loc == wr.loc))
                        .count() as u32,
                ),
            },
        }
    }

    /// Cuts `level` back to the graph `w` was added to and returns the
    /// promise's graph: that one without `r` and what is porf after it,
    /// with the promise.
    pub(super) fn rebuild(&self, level: &mut ExecutionGraph) -> ExecutionGraph {
        level.restrict_to_stamp(self.write_stamp);
        debug_assert!(
            level.contains(self.read) && level.contains(self.promise.write),
            "checker invariant: a promise is rebuilt from the graph its write was added to"
        );
        let mut g = level.clone_restricted(&kept_by_promise(level, self.read));
        g.add_promise(self.promise);
        g
    }
}
