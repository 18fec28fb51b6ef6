//! The reference enumerator: slow and obviously correct.
//!
//! It tries every interleaving, lets every read read every write of its
//! location and every write take every place in mo, and keeps a branch only
//! while the graph satisfies the model's axioms as written in
//! [`crate::model::relations`]. The same graph is reached many times (once
//! per interleaving); complete graphs are told apart by their content, so
//! [`Strategy::distinct_complete`] counts each consistent graph once. Tests
//! check the optimal explorer against it.

use super::odometer::Odometer;
use super::Strategy;
use crate::event::{EventId, EventKind, RmwOp, ThreadId};
use crate::graph::ExecutionGraph;
use crate::model::MemoryModel;
use crate::sched::{ExecutionEnd, RfChoice, ThreadStatus};
use std::collections::HashSet;

/// Depth-first enumeration of every choice sequence.
#[derive(Default)]
pub struct Reference {
    /// The decisions of the current path.
    odometer: Odometer,
    seen: HashSet<String>,
    /// The preemption bound (loom's meaning), if any.
    bound: Option<u32>,
    /// The thread scheduled last in this execution.
    last: Option<ThreadId>,
    /// Preemptions so far in this execution.
    preemptions: u32,
}

impl Reference {
    /// A new enumerator.
    pub fn new() -> Reference {
        Reference::default()
    }

    /// An enumerator of the interleavings with at most `bound`
    /// preemptions, counted as loom counts them: a switch away from a
    /// thread that could go on (enabled, and not waiting after a spin
    /// hint) is a preemption; once `bound` are taken, such a thread goes on.
    pub fn bounded(bound: u32) -> Reference {
        Reference {
            bound: Some(bound),
            ..Reference::default()
        }
    }

    fn decide(&mut self, n: usize) -> usize {
        self.odometer.decide(n)
    }
}

/// A description of a graph that two graphs share iff they are the same
/// execution (same events, same rf, same mo). The values of a location of
/// addresses are left out: they differ from one execution to the next
/// (docs/heap-addresses.md), and rf and mo already tell the graphs apart.
pub fn canonical_key(g: &ExecutionGraph) -> String {
    let mut s = String::new();
    for t in 0..g.num_threads() as ThreadId {
        s.push_str(&format!("T{t}:"));
        for (i, e) in g.thread_events(t).iter().enumerate() {
            let loc = match &e.kind {
                EventKind::Read(r) => Some(r.loc),
                EventKind::Write(w) => Some(w.loc),
                EventKind::Alloc { loc, .. } => Some(*loc),
                _ => None,
            };
            if loc.is_some_and(|l| g.holds_addresses(l)) {
                let mut e = e.clone();
                match &mut e.kind {
                    EventKind::Read(r) => {
                        r.value = 0;
                        if let Some((RmwOp::Cas { expected, new, .. }, ..)) = &mut r.rmw {
                            (*expected, *new) = (0, 0);
                        }
                    }
                    EventKind::Write(w) => w.value = 0,
                    EventKind::Alloc { init, .. } => *init = 0,
                    _ => {}
                }
                s.push_str(&e.describe());
            } else {
                s.push_str(&e.describe());
            }
            if let Some(w) = e.as_write() {
                s.push_str(&format!("@{}", g.mo_position(w.loc, EventId::new(t, i as u32))));
            }
            s.push(';');
        }
        s.push('\n');
    }
    s
}

impl Strategy for Reference {
    fn name(&self) -> &'static str {
        "reference"
    }

    fn next_execution(&mut self, graph: &mut ExecutionGraph, _model: MemoryModel) -> bool {
        if !self.odometer.next_run() {
            return false;
        }
        // The main thread runs first: switching away from it at its first
        // scheduling point is a preemption, as in loom.
        self.last = Some(0);
        self.preemptions = 0;
        graph.clear();
        true
    }

    fn schedule(&mut self, _g: &ExecutionGraph, enabled: &[ThreadId], status: &[ThreadStatus]) -> Option<ThreadId> {
        if enabled.is_empty() {
            return None;
        }
        // Whether the thread that ran last could go on (a switch away from
        // it is a preemption).
        let runnable = self
            .last
            .filter(|&p| enabled.contains(&p) && matches!(status.get(p as usize), Some(ThreadStatus::Op(..))));
        let t = match (self.bound, runnable) {
            (Some(b), Some(p)) if self.preemptions >= b => p,
            _ => enabled[self.decide(enabled.len())],
        };
        if runnable.is_some_and(|p| p != t) {
            self.preemptions += 1;
        }
        self.last = Some(t);
        Some(t)
    }

    fn choose_rf(&mut self, _g: &ExecutionGraph, _r: EventId, _s: u32, choices: &[RfChoice]) -> usize {
        self.decide(choices.len())
    }

    fn choose_mo(&mut self, _g: &ExecutionGraph, _w: EventId, _s: u32, places: &[usize]) -> usize {
        self.decide(places.len())
    }

    fn unfiltered(&self) -> bool {
        true
    }

    fn execution_done(&mut self, g: &ExecutionGraph, end: ExecutionEnd) {
        if end == ExecutionEnd::Complete {
            self.seen.insert(canonical_key(g));
        }
    }

    fn distinct_complete(&self) -> Option<u64> {
        Some(self.seen.len() as u64)
    }
}
