//! Data-race checks and their reports: the check each new plain (or
//! scoped) access makes against earlier conflicting ones, the same for
//! `UnsafeCell` accesses, the scan of a complete execution under
//! `Limits::record_races`, and the report text (which access pair, and
//! under a scoped model which release was too narrow or which fence space
//! was missing). Apart because reports are long prose the hot path never
//! reads; memory-kind races are in `memory_race`.

use super::{Engine, Stop};
use crate::event::*;
use crate::failure::FailureKind;
use crate::graph::{ExecutionGraph, SyncRules};
use crate::model::relations::Relations;
use crate::races;
use crate::scope::narrowest_common;

impl Engine {
    /// Counts the current (complete) execution as racy if it is, and keeps a
    /// report of each pair of source lines not seen racing before.
    pub(super) fn log_races(&mut self) {
        if !self.model.hb_races() {
            // No happens-before (the `porf` base): races are the model's own business.
            return;
        }
        let mut pairs = races::find_races(&self.graph, self.model.sync_rules().scoped);
        // Races that a memory kind makes (system-scope atomics that are not
        // atomic there); without memory kinds, none.
        let memory = if self.memory.is_empty() {
            Vec::new()
        } else {
            self.memory.find_races(&self.graph, self.model.sync_rules())
        };
        pairs.retain(|&(a, b)| {
            !memory
                .iter()
                .any(|m| (m.first, m.second) == (a, b) || (m.first, m.second) == (b, a))
        });
        if pairs.is_empty() && memory.is_empty() {
            return;
        }
        self.races.racy_executions += 1;
        for race in memory {
            let key = (self.graph.event(race.first).src, self.graph.event(race.second).src);
            if self.races.seen.insert(key) {
                if let Stop::Failure(f) = self.memory_race(race) {
                    self.races.distinct.push(*f);
                }
            }
        }
        for (a, b) in pairs {
            let key = (self.graph.event(a).src, self.graph.event(b).src);
            if self.races.seen.insert(key) {
                if let Stop::Failure(f) = self.race(a, b) {
                    self.races.distinct.push(*f);
                }
            }
        }
    }

    /// Race between the new access `id` to an atomic location and earlier
    /// conflicting accesses of other threads, when one of the two is plain.
    pub(super) fn check_access_race(&self, id: EventId, loc: Loc, is_write: bool) -> Result<(), Stop> {
        if self.limits.record_races || !self.model.hb_races() {
            return Ok(());
        }
        let scoped = self.model.sync_rules().scoped;
        let g = &self.graph;
        let me = g.event(id);
        let my_order = match &me.kind {
            EventKind::Read(r) => r.order,
            EventKind::Write(w) => w.order,
            _ => return Ok(()),
        };
        if let Some(o) = races::first_racing_access(g, id, loc, is_write, my_order.is_atomic(), scoped) {
            return Err(self.race(o, id));
        }
        // The whole location: whether an access is atomic for its memory
        // kind can depend on every thread that touches it (seed 001: GPU
        // memory that a host thread accesses).
        if let Some(race) = self.memory.find_race(g, loc, self.model.sync_rules()) {
            return Err(self.memory_race(race));
        }
        Ok(())
    }

    pub(super) fn check_cell_race(&self, id: EventId, loc: Loc, write: bool) -> Result<(), Stop> {
        if self.limits.record_races || !self.model.hb_races() {
            return Ok(());
        }
        let g = &self.graph;
        for &o in &g.loc(loc).expect("loc").cells {
            if o.thread == id.thread {
                continue;
            }
            let o_write = matches!(g.event(o).kind, EventKind::Cell { write: true, .. });
            if (write || o_write) && races::pair_races(g, (o, false), (id, false), false) {
                return Err(self.race(o, id));
            }
        }
        Ok(())
    }

    /// Under a scoped model, whether racing accesses `a` and `b` would be
    /// ordered if every synchronization ignored scopes; if so, the release
    /// whose scope is too narrow, said in words, and the fix.
    pub(super) fn too_narrow_sync(&self, a: EventId, b: EventId) -> Option<(String, String)> {
        let rules = self.model.sync_rules();
        if !rules.scoped {
            return None;
        }
        let g = &self.graph;
        let scoped = Relations::of(g, rules);
        let wide = Relations::of(g, SyncRules { scoped: false, ..rules });
        let (ia, ib) = (wide.index_of(a)?, wide.index_of(b)?);
        // The hb of the raced location's memory space (`space.rs`, rule 4).
        let local = g.event(a).loc().is_some_and(|l| g.space_of(l) == Space::Local);
        let hb = wide.hb_of(if local { Space::Local } else { Space::Global });
        let before = |x: usize, y: usize| x == y || hb.has(x, y);
        let (first, second) = if hb.has(ia, ib) {
            (ia, ib)
        } else if hb.has(ib, ia) {
            (ib, ia)
        } else {
            return None;
        };
        let n = wide.ids.len();
        for rel in 0..n {
            for acq in 0..n {
                if wide.sw.has(rel, acq) && !scoped.sw.has(rel, acq) && before(first, rel) && before(acq, second) {
                    let (r, q) = (wide.ids[rel], wide.ids[acq]);
                    let (er, eq) = (g.event(r), g.event(q));
                    let need = narrowest_common(g.actor(r.thread, er.scope), g.actor(q.thread, eq.scope));
                    let why = format!(
                        "`{}` at {} scope (thread {}, {}) does not reach thread {} at {}, whose `{}` ({}, {} scope) \
                         would otherwise synchronize with it",
                        er.describe(),
                        er.scope,
                        r.thread,
                        er.src,
                        q.thread,
                        g.placement(q.thread).describe(),
                        eq.describe(),
                        eq.src,
                        eq.scope
                    );
                    let fix = format!(
                        "use {need} scope (or wider) on both `{}` ({}) and `{}` ({})",
                        er.describe(),
                        er.src,
                        eq.describe(),
                        eq.src
                    );
                    return Some((why, fix));
                }
            }
        }
        None
    }

    /// Whether racing accesses `a` and `b` are ordered in the other memory
    /// space's happens-before: then a barrier between them fences only that
    /// other space (`space.rs`, rule 3); if so, the explanation and the fix.
    pub(super) fn unfenced_space(&self, a: EventId, b: EventId) -> Option<(String, String)> {
        let g = &self.graph;
        let space = g.space_of(g.event(a).loc()?);
        let other = match space {
            Space::Global => Space::Local,
            Space::Local => Space::Global,
        };
        let (first, second) = if g.hb(b).contains_in(other, a) {
            (a, b)
        } else if g.hb(a).contains_in(other, b) {
            (b, a)
        } else {
            return None;
        };
        let why = format!(
            "the barrier between {} and {} fences only {other} memory, and this location is in {space} memory",
            g.event(first).src,
            g.event(second).src
        );
        let fix = format!(
            "make that barrier fence {space} memory too (`FenceSpace::Both`, SYCL's \
             `fence_space::global_and_local`, `__syncthreads()`)"
        );
        Some((why, fix))
    }

    pub(super) fn race(&self, a: EventId, b: EventId) -> Stop {
        let g = &self.graph;
        let (ea, eb) = (g.event(a), g.event(b));
        let loc = ea
            .loc()
            .map(|l| match g.loc(l) {
                Some(d) if d.space == Space::Local => {
                    format!("{l} in local memory (created at {})", g.event(d.alloc).src)
                }
                Some(d) => format!("{l} (created at {})", g.event(d.alloc).src),
                None => l.to_string(),
            })
            .unwrap_or_default();
        let atomic = |e: &Event| match &e.kind {
            EventKind::Read(r) => r.order.is_atomic(),
            EventKind::Write(w) => w.order.is_atomic(),
            _ => false,
        };
        if atomic(ea) && atomic(eb) {
            // Both atomic: the race is a scope mismatch.
            let (xa, xb) = (g.actor(a.thread, ea.scope), g.actor(b.thread, eb.scope));
            let need = narrowest_common(xa, xb);
            let side = |e: &Event, id: EventId| scoped_side(g, e, id);
            let mut f = self.failure(
                FailureKind::HeterogeneousRace,
                format!(
                    "heterogeneous race (scope mismatch) on {loc}: {} and {} conflict, neither happens before \
                     the other, and their scopes do not include each other's thread",
                    side(ea, a),
                    side(eb, b)
                ),
                Some(b.thread),
                vec![a, b],
                Some(eb.src),
            );
            f.fix = Some(format!(
                "use {need} scope (or wider) on both operations: {need} is the narrowest scope whose group \
                 around each thread holds the other"
            ));
            return Stop::Failure(f);
        }
        let narrow = self.too_narrow_sync(a, b).or_else(|| self.unfenced_space(a, b));
        let mut f = self.failure(
            FailureKind::DataRace,
            format!(
                "data race on {loc}: `{}` (thread {}, {}) and `{}` (thread {}, {}) conflict and neither happens before the other{}",
                ea.describe(),
                a.thread,
                ea.src,
                eb.describe(),
                b.thread,
                eb.src,
                narrow.as_ref().map(|(why, _)| format!("; {why}")).unwrap_or_default()
            ),
            Some(b.thread),
            vec![a, b],
            Some(eb.src),
        );
        f.cause = narrow.as_ref().map(|(why, _)| why.clone());
        f.fix = Some(match narrow {
            Some((_, fix)) => fix,
            None => "order the two accesses with happens-before: publish with a Release store (or fence) \
                     and read with an Acquire load (or fence) of the same atomic, or protect both with a Mutex"
                .into(),
        });
        Stop::Failure(f)
    }
}

/// One access of a race report between scoped accesses: what it did, its
/// thread and placement, its scope and its line.
pub(super) fn scoped_side(g: &ExecutionGraph, e: &Event, id: EventId) -> String {
    format!(
        "`{}` (thread {} at {}, {} scope, {})",
        e.describe(),
        id.thread,
        g.placement(id.thread).describe(),
        e.scope,
        e.src
    )
}
