//! Backward revisits kept for later as the few facts that rebuild their
//! graph, not as the graph itself.
//!
//! A revisit of read `r` by write `w` produces the graph of the events added
//! up to `r` and the porf prefix of `w`, with `r` reading `w`. The explorer
//! used to build that graph when `w` was added and keep it until its turn
//! came: one graph per pending revisit. With N threads contending on one
//! location, the first execution alone pushes about N²/2 revisits, each a
//! graph of 2N events whose clocks hold N threads: 1.5 GB for 128 threads.
//!
//! The graph a revisit needs can be rebuilt when it is explored. Items of a
//! level are explored last-in first-out, and every item pushed after a
//! revisit (or explored from one pushed after it) only cuts the level's
//! graph back to a later stamp before changing anything: so when the
//! revisit's turn comes, the level's graph cut back to the stamp of `w` is
//! the graph `w` was added to. The one exception is an RMW the engine tried
//! on a write another RMW had consumed (`Engine::conflicting_alternative`):
//! its two events were added only for the explorer to compute their
//! revisits, and taken back. For such a revisit the two events are kept
//! (their kinds, not their views) and added again on the graph cut back to
//! the stamp before them. Builds with debug assertions keep the graph built
//! when the revisit was pushed as well, and compare the two.

use crate::clock::Clock;
use crate::drfrlx::RlxClass;
use crate::event::*;
use crate::graph::ExecutionGraph;
use crate::model::MemoryModel;

/// An event to add again when a revisit is rebuilt: what the engine's
/// tentative RMW had.
struct Readd {
    kind: EventKind,
    src: SourceLoc,
    scope: Scope,
    rlx: Option<RlxClass>,
    added_max: bool,
}

impl Readd {
    fn of(g: &ExecutionGraph, e: EventId) -> Readd {
        let ev = g.event(e);
        Readd {
            kind: ev.kind.clone(),
            src: ev.src,
            scope: ev.scope,
            rlx: ev.rlx,
            added_max: ev.added_max,
        }
    }
}

/// A backward revisit waiting for its turn.
pub(super) struct Revisit {
    read: EventId,
    write: EventId,
    /// The level's graph is cut back to this stamp (then `readd` is added).
    base: u32,
    /// The read and write parts of an RMW that read a consumed write,
    /// added again on top of `base` (the revisiting write is the second).
    readd: Option<Box<[Readd; 2]>>,
    /// With `readd`, on a location of addresses: whether the revisited read
    /// (a compare-exchange) succeeds on the re-added write, decided when
    /// the revisit was pushed. The re-added events hold that execution's
    /// values, the level's graph a later execution's (addresses move
    /// between executions: docs/heap-addresses.md), so the decision is not
    /// made again by comparing the two.
    succeeds: Option<bool>,
    /// The graph built when the revisit was pushed, to compare with.
    #[cfg(debug_assertions)]
    expected: Option<Box<ExecutionGraph>>,
}

/// The events a backward revisit of `r` by `w` keeps: those added up to `r`,
/// and the porf prefix of `w`.
pub(super) fn revisit_view(g: &ExecutionGraph, r: EventId, w: EventId) -> Clock {
    let rs = g.event(r).stamp;
    let mut v = g.porf(w).to_clock();
    for t in 0..g.num_threads() as ThreadId {
        // Stamps grow along each thread's program order.
        let n = g.thread_events(t).partition_point(|e| e.stamp <= rs) as u32;
        if n > 0 {
            v.include(EventId::new(t, n - 1));
        }
    }
    v
}

/// The graph the revisit of `r` by `w` produces, given what it keeps (`v`,
/// from [`revisit_view`]): `r` reads `w`, and the events in `w`'s porf
/// prefix can no longer be revisited.
pub(super) fn revisit_graph(
    g: &ExecutionGraph,
    r: EventId,
    w: EventId,
    v: &Clock,
    model: MemoryModel,
) -> ExecutionGraph {
    let loc = g.event(r).as_read().expect("revisited read").loc;
    let await_ = g.event(r).as_read().expect("revisited read").await_;
    let prefix = g.porf(w);
    let mut g1 = g.clone_restricted(v);
    g1.set_rf(r, w, false, model.sync_rules());
    let max = reads_maximally(&g1, r, loc, w);
    g1.event_mut(r).added_max = max;
    for t in 0..g1.num_threads() as ThreadId {
        // The prefix is downward closed: its first `get(t)` events.
        let n = prefix.get(t).min(g1.thread_len(t));
        for i in 0..n {
            g1.event_mut(EventId::new(t, i)).revisitable = false;
        }
    }
    let value = g1.write_value(loc, w);
    if await_.is_some_and(|a| !a.admits(value)) {
        // A mutex read that now sees the mutex held: the thread waits instead.
        let mut keep = v.clone();
        keep.clamp(|t| if t == r.thread { r.index } else { u32::MAX });
        g1.restrict_to_view(&keep);
    }
    g1
}

/// Whether read `r` of `loc`, revisited to read `w`, counts as added
/// maximally (TruSt's condition on a read a later revisit deletes or
/// revisits again): no write added before `r` is mo-after `w`.
///
/// A read added in the ordinary way reads the mo-latest write of the graph
/// it was added to, and writes added before it never move in mo later, so
/// for such a read `is_maximal_extension` need only ask whether a kept
/// write is mo-after what it read. A revisited read reads a write added
/// after it, which may sit mo-before a write added before it (an RMW that
/// read an earlier write, or a store given an earlier mo place). Letting a
/// later revisit delete such a read counted graphs twice: with `P0: r x;
/// w y`, `P1: r y`, `P2: w' y; w x` and `w' y` mo-before `w y`, the revisit
/// of `r x` by `w x` deletes `w y` and P1's read, and came up both from the
/// graph where P1's read was revisited to read `w' y` and from the one
/// where it read `w y` (12 executions instead of 9 with an RMW).
fn reads_maximally(g1: &ExecutionGraph, r: EventId, loc: Loc, w: EventId) -> bool {
    let stamp = g1.event(r).stamp;
    let mo = &g1.loc(loc).expect("the revisited read's location").mo;
    let after = g1.mo_position(loc, w);
    mo[after..].iter().all(|&x| g1.event(x).stamp > stamp)
}

/// Whether the revisit's graph can need a consistency check beyond what
/// the incremental construction guarantees, asked of the model with the
/// number of seq_cst events the graph may hold after the revisit: the
/// revisited read may become seq_cst (a compare-exchange that now fails
/// takes its failure order) or stop being so, and deleted events can only
/// lower the count.
pub(super) fn needs_check(g: &ExecutionGraph, r: EventId, w: EventId, model: MemoryModel) -> bool {
    let ev = g.event(r);
    let mut rd = *ev.as_read().expect("revisited read");
    rd.rf = w;
    rd.value = g.write_value(rd.loc, w);
    rd.spurious = false;
    let now = ev.is_sc() as usize;
    let then = rd.effective_order().is_sc() as usize;
    model.check_needed(g.sc_events() - now + then, false)
}

impl Revisit {
    /// The revisit of `r` by `w`, the newest write of `g` (or the write part
    /// of the engine's tentative RMW, `tentative`), to be rebuilt later
    /// from the level's graph. `built`: the graph, when it was built.
    pub(super) fn new(
        g: &ExecutionGraph,
        r: EventId,
        w: EventId,
        tentative: bool,
        built: Option<ExecutionGraph>,
    ) -> Revisit {
        let (base, readd) = if tentative {
            let rd = EventId::new(w.thread, w.index - 1);
            let base = g.event(rd).stamp - 1;
            (base, Some(Box::new([Readd::of(g, rd), Readd::of(g, w)])))
        } else {
            (g.event(w).stamp, None)
        };
        let succeeds = match g.event(r).as_read() {
            Some(rd) if tentative && g.may_hold_addresses() && g.holds_addresses(rd.loc) => {
                rd.rmw.map(|(op, ty, ..)| {
                    let value = g.event(w).as_write().expect("revisiting write").value;
                    op.apply(ty, value).is_some()
                })
            }
            _ => None,
        };
        #[cfg(not(debug_assertions))]
        let _ = built;
        Revisit {
            read: r,
            write: w,
            base,
            readd,
            succeeds,
            #[cfg(debug_assertions)]
            // (Small graphs only: kept for every pending revisit, large
            // ones would bring back the memory this module saves.)
            expected: built.filter(|g1| g1.len() <= 256).map(Box::new),
        }
    }

    /// Gives the re-added write (in `level`) a value on which the revisited
    /// compare-exchange decides as it did when the revisit was pushed: the
    /// expected value the level's graph now holds when it succeeded, and a
    /// value other than that when it failed. (A placeholder in the running
    /// execution's terms: replaying the write gives it its real value, and
    /// the read is replayed after it, so neither the program nor a
    /// decision sees the placeholder.)
    fn align_readded_value(&self, level: &mut ExecutionGraph, succeeds: bool) {
        let rd = *level.event(self.read).as_read().expect("revisited read");
        let Some((RmwOp::Cas { expected, .. }, ty, ..)) = rd.rmw else {
            return;
        };
        let EventKind::Write(wr) = &mut level.event_mut(self.write).kind else {
            unreachable!("the revisiting write is a write")
        };
        if succeeds {
            wr.value = ty.mask(expected);
        } else if ty.mask(wr.value) == ty.mask(expected) {
            wr.value = ty.mask(expected ^ 1);
        }
    }

    /// Cuts `level` (the graph of the level the revisit was pushed in) back
    /// to the graph the revisiting write was added to, and returns the
    /// revisit's graph.
    pub(super) fn rebuild(&self, level: &mut ExecutionGraph, model: MemoryModel) -> ExecutionGraph {
        level.restrict_to_stamp(self.base);
        if let Some(parts) = &self.readd {
            for a in parts.iter() {
                let id = level.push_event(
                    self.write.thread,
                    a.kind.clone(),
                    a.src,
                    a.scope,
                    model.sync_rules(),
                    a.added_max,
                );
                level.event_mut(id).rlx = a.rlx;
                if let EventKind::Write(wr) = &a.kind {
                    let rf = level
                        .event(EventId::new(id.thread, id.index - 1))
                        .as_read()
                        .expect("read part")
                        .rf;
                    let pos = level.mo_position(wr.loc, rf) + 1;
                    level.insert_mo(wr.loc, id, pos);
                }
            }
            debug_assert_eq!(
                level.thread_len(self.write.thread),
                self.write.index + 1,
                "checker invariant: a tentative RMW is rebuilt where it was"
            );
            if let Some(succeeds) = self.succeeds {
                self.align_readded_value(level, succeeds);
            }
        }
        let v = revisit_view(level, self.read, self.write);
        let g1 = revisit_graph(level, self.read, self.write, &v, model);
        #[cfg(debug_assertions)]
        if let Some(expected) = &self.expected {
            assert_eq!(
                g1.fingerprint(),
                expected.fingerprint(),
                "checker invariant: a revisit rebuilt from its level's graph is the graph it was when pushed"
            );
        }
        if self.readd.is_some() {
            // The level's graph goes back to what it was (the engine took
            // the tentative RMW back).
            level.pop_event(self.write.thread);
            level.pop_event(self.write.thread);
        }
        g1
    }
}
