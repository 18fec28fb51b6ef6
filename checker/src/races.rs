//! Data races found by scanning a whole execution graph, for runs that keep
//! going after a race (litmus tests, where herd flags racy executions but
//! still counts their final states).
//!
//! The engine's default is to check each new access as it is added and stop
//! at the first race (`Engine::check_access_race`); this module is the same
//! definition applied to every pair at once:
//!
//! > two accesses to the same location race when they are in different
//! > threads, at least one writes, at least one is plain (non-atomic, or a
//! > tracked cell), and neither happens before the other.
//!
//! and, under scoped models (docs/semantics.md §4), the heterogeneous race:
//!
//! > two conflicting atomic accesses in different threads, neither
//! > happening before the other, that are not mutually scope-inclusive.

use crate::event::{EventId, EventKind};
use crate::graph::ExecutionGraph;
use crate::space::Space;

/// One access of a location, as the scan sees it.
#[derive(Copy, Clone)]
struct Access {
    id: EventId,
    write: bool,
    atomic: bool,
}

/// Whether two conflicting accesses of different threads race: neither
/// happens before the other, and one is plain or (with `scoped`) they are
/// not mutually scope-inclusive. Each side is (event, whether atomic).
/// Happens-before is that of the location's memory space (`space.rs`, rule
/// 4): a barrier that fences only local memory orders nothing here for a
/// global location.
pub fn pair_races(g: &ExecutionGraph, a: (EventId, bool), b: (EventId, bool), scoped: bool) -> bool {
    if a.1 && b.1 && (!scoped || g.inclusive(a.0, b.0)) {
        return false;
    }
    let space = g.event(a.0).loc().map_or(Space::Global, |l| g.space_of(l));
    !g.hb(a.0).contains_in(space, b.0) && !g.hb(b.0).contains_in(space, a.0)
}

/// Every racing pair of `g`, each as (earlier-added, later-added) by event
/// id order, in a deterministic order. With `scoped`, two atomic accesses
/// that are not mutually scope-inclusive race too (a heterogeneous race).
pub fn find_races(g: &ExecutionGraph, scoped: bool) -> Vec<(EventId, EventId)> {
    let mut out = Vec::new();
    for (_, d) in g.locs() {
        let mut acc: Vec<Access> = Vec::new();
        for &w in &d.mo {
            if let EventKind::Write(x) = &g.event(w).kind {
                acc.push(Access {
                    id: w,
                    write: true,
                    atomic: x.order.is_atomic(),
                });
            }
        }
        for &r in &d.reads {
            if let EventKind::Read(x) = &g.event(r).kind {
                acc.push(Access {
                    id: r,
                    write: false,
                    atomic: x.order.is_atomic(),
                });
            }
        }
        for &c in &d.cells {
            if let EventKind::Cell { write, .. } = g.event(c).kind {
                acc.push(Access {
                    id: c,
                    write,
                    atomic: false,
                });
            }
        }
        if !scoped && acc.iter().all(|a| a.atomic) {
            continue;
        }
        acc.sort_by_key(|a| (a.id.thread, a.id.index));
        // Thread by thread: the accesses of another thread that neither
        // happen before `a` nor after it are a run of that thread's (hb
        // grows along program order), found by two binary searches; the
        // pairs of one thread, and the ordered ones, are never visited.
        let space = d.space;
        let mut blocks: Vec<(usize, usize)> = Vec::new();
        for (i, a) in acc.iter().enumerate() {
            match blocks.last_mut() {
                Some(b) if acc[b.0].id.thread == a.id.thread => b.1 = i + 1,
                _ => blocks.push((i, i + 1)),
            }
        }
        for (k, &(start, end)) in blocks.iter().enumerate() {
            for a in &acc[start..end] {
                let ha = g.hb(a.id);
                for &(s, e) in &blocks[k + 1..] {
                    let block = &acc[s..e];
                    let u = block[0].id.thread;
                    let lo = block.partition_point(|b| b.id.index < ha.get_in(space, u));
                    let hi = lo + block[lo..].partition_point(|b| !g.hb(b.id).contains_in(space, a.id));
                    for b in &block[lo..hi] {
                        if (a.write || b.write) && pair_races(g, (a.id, a.atomic), (b.id, b.atomic), scoped) {
                            out.push((a.id, b.id));
                        }
                    }
                }
            }
        }
        #[cfg(debug_assertions)]
        crate::work::uncounted(|| {
            let mut all = Vec::new();
            for (i, a) in acc.iter().enumerate() {
                for b in &acc[i + 1..] {
                    if a.id.thread != b.id.thread
                        && (a.write || b.write)
                        && pair_races(g, (a.id, a.atomic), (b.id, b.atomic), scoped)
                    {
                        all.push((a.id, b.id));
                    }
                }
            }
            debug_assert!(
                out.ends_with(&all),
                "checker invariant: the per-thread race scan finds every racing pair in order"
            );
        });
    }
    out
}

/// The access of `loc` that the new access `id` (the newest event of the
/// graph; a write if `is_write`, atomic if `atomic`) races with, if any:
/// the first of them in the order the engine always reported (writes in mo
/// order, then reads in the order they were added).
///
/// Accesses that happen before `id` are a prefix of each thread's, and
/// nothing happens after the newest event, so only each other thread's
/// accesses past what `id`'s hb view holds are asked, from the location's
/// per-thread index; scanning every access of the location made each
/// access of a long thread under `src11` (where every atomic is checked)
/// cost the location's length.
pub fn first_racing_access(
    g: &ExecutionGraph,
    id: EventId,
    loc: crate::event::Loc,
    is_write: bool,
    atomic: bool,
    scoped: bool,
) -> Option<EventId> {
    let d = g.loc(loc).expect("loc");
    let space = d.space;
    let hb = g.hb(id);
    let mut write: Option<EventId> = None;
    let mut read: Option<EventId> = None;
    for u in 0..d.thread_slots() as crate::event::ThreadId {
        if u == id.thread {
            continue;
        }
        let seen = hb.get_in(space, u);
        let racing = |o: EventId| {
            let o_atomic = match &g.event(o).kind {
                EventKind::Read(r) => r.order.is_atomic(),
                EventKind::Write(w) => w.order.is_atomic(),
                _ => return false,
            };
            pair_races(g, (o, o_atomic), (id, atomic), scoped)
        };
        let ws = d.thread_writes(u);
        for &i in &ws[ws.partition_point(|&i| i < seen)..] {
            let o = EventId::new(u, i);
            if racing(o) && write.is_none_or(|w| g.mo_position(loc, o) < g.mo_position(loc, w)) {
                write = Some(o);
            }
        }
        if is_write && write.is_none() {
            let rs = d.thread_reads(u);
            for &i in &rs[rs.partition_point(|&i| i < seen)..] {
                let o = EventId::new(u, i);
                if racing(o) && read.is_none_or(|r| g.event(o).stamp < g.event(r).stamp) {
                    read = Some(o);
                }
            }
        }
    }
    let found = write.or(read);
    #[cfg(debug_assertions)]
    crate::work::uncounted(|| {
        // The definition: the first racing access in mo, then in the reads.
        let reads = d.reads.iter().filter(|_| is_write).map(|&r| (r, false));
        let first = d.mo.iter().map(|&w| (w, true)).chain(reads).find_map(|(o, o_write)| {
            if o.thread == id.thread || o == id || !(is_write || o_write) {
                return None;
            }
            let o_atomic = match &g.event(o).kind {
                EventKind::Read(r) => r.order.is_atomic(),
                EventKind::Write(w) => w.order.is_atomic(),
                _ => return None,
            };
            pair_races(g, (o, o_atomic), (id, atomic), scoped).then_some(o)
        });
        debug_assert_eq!(
            found, first,
            "checker invariant: the per-thread race scan finds the first race"
        );
    });
    found
}
