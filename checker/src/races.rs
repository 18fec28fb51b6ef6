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
//! and, under scoped models (DESIGN.md 3.4), the heterogeneous race:
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
        for (i, a) in acc.iter().enumerate() {
            for b in &acc[i + 1..] {
                if a.id.thread == b.id.thread || !(a.write || b.write) {
                    continue;
                }
                if pair_races(g, (a.id, a.atomic), (b.id, b.atomic), scoped) {
                    out.push((a.id, b.id));
                }
            }
        }
    }
    out
}
