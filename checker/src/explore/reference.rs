//! The reference enumerator: slow and obviously correct.
//!
//! It tries every interleaving, lets every read read every write of its
//! location and every write take every place in mo, and keeps a branch only
//! while the graph satisfies the model's axioms as written in
//! [`crate::model::relations`]. The same graph is reached many times (once
//! per interleaving); complete graphs are told apart by their content, so
//! [`Strategy::distinct_complete`] counts each consistent graph once. Tests
//! check the optimal explorer against it.
//!
//! Under a model that allows cycles in po ∪ rf (`c11`), each atomic load
//! and RMW read may also *guess* a value of the location's value domain
//! instead of reading a write (`engine/guessed.rs` judges the guesses when
//! the execution ends). The domain of a location is its initial value and
//! the values written to it by the executions found; when a whole
//! enumeration found a value not in the domains, they take it and the
//! enumeration runs again, until they settle ([`MAX_ROUNDS`] at most). The
//! first enumeration guesses nothing (it finds the acyclic executions and
//! the first domains; a location nothing writes closes no cycle).
//! Locations are named by their allocating thread and that thread's
//! allocation rank (`Loc::new`), and threads by the order of their spawns:
//! the same location in every execution of a program whose spawns are
//! made in one order (a program that spawns from two threads at once may
//! name a location differently in two executions; its domain then holds
//! the values of both, more guesses, each still judged).

use super::odometer::Odometer;
use super::Strategy;
use crate::event::{EventId, EventKind, Loc, RmwOp, ThreadId, Value};
use crate::graph::ExecutionGraph;
use crate::model::MemoryModel;
use crate::sched::{ExecutionEnd, RfChoice, ThreadStatus};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// Enumerations run with growing value domains before the reference gives
/// up (the run is then incomplete): a value that grows round after round
/// is one only a cycle keeps making (thin air), which no bound settles.
pub const MAX_ROUNDS: u32 = 6;

/// Values per location.
type Domains = BTreeMap<Loc, BTreeSet<Value>>;

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
    /// The value domains guessed reads take their values from, fixed for
    /// one enumeration (the initial value is always in).
    domains: Domains,
    /// The values written by the executions found so far: the next
    /// enumeration's domains.
    found: Domains,
    /// Enumerations started.
    rounds: u32,
    /// Set when the domains still grew after [`MAX_ROUNDS`] enumerations.
    unsettled: bool,
    /// Whether the current execution guessed a read.
    guessed_now: bool,
    /// Whether the run may build cycles in po ∪ rf (`set_porf_cycles`).
    porf_cycles: bool,
    /// Whether, besides, the model allows them: only then are domains kept.
    cycles: bool,
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

    /// Adds the values `g` writes to the next enumeration's domains.
    fn note_writes(&mut self, g: &ExecutionGraph) {
        if !self.cycles {
            return;
        }
        for t in 0..g.num_threads() as ThreadId {
            for e in g.thread_events(t) {
                if let Some(w) = e.as_write() {
                    if !g.holds_addresses(w.loc) {
                        self.found.entry(w.loc).or_default().insert(w.value);
                    }
                }
            }
        }
    }

    /// Starts the next enumeration when the last one found values its
    /// domains lacked (false: they settled, or grew too many times).
    fn next_round(&mut self) -> bool {
        let grew = self
            .found
            .iter()
            .any(|(l, vs)| self.domains.get(l).is_none_or(|d| !vs.is_subset(d)));
        if !grew {
            return false;
        }
        if self.rounds >= MAX_ROUNDS {
            self.unsettled = true;
            return false;
        }
        for (l, vs) in &self.found {
            self.domains.entry(*l).or_default().extend(vs.iter().copied());
        }
        self.rounds += 1;
        self.odometer = Odometer::default();
        self.odometer.next_run()
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

    fn set_porf_cycles(&mut self, on: bool) {
        self.porf_cycles = on;
    }

    fn next_execution(&mut self, graph: &mut ExecutionGraph, model: MemoryModel) -> bool {
        self.cycles = self.porf_cycles && model.allows_porf_cycles();
        if !self.odometer.next_run() && !self.next_round() {
            return false;
        }
        self.rounds = self.rounds.max(1);
        self.guessed_now = false;
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

    fn guess_read(&mut self, g: &ExecutionGraph, loc: Loc) -> Option<Value> {
        // The first enumeration guesses nothing: it is the po ∪ rf-acyclic
        // one, and gives the next its domains (each with its initial value).
        if self.rounds <= 1 {
            return None;
        }
        let mut values = self.domains.get(&loc).cloned().unwrap_or_default();
        values.insert(g.write_value(loc, EventId::INIT));
        // Option 0 reads a write (`choose_rf` then picks which).
        let i = self.decide(values.len() + 1);
        let v = values.into_iter().nth(i.checked_sub(1)?)?;
        self.guessed_now = true;
        Some(v)
    }

    fn guess_resolved(&mut self, g: &ExecutionGraph) {
        self.seen.insert(canonical_key(g));
        self.note_writes(g);
    }

    fn unsettled_rounds(&self) -> Option<u32> {
        self.unsettled.then_some(self.rounds)
    }

    fn execution_done(&mut self, g: &ExecutionGraph, end: ExecutionEnd) {
        // An execution with guesses counts through the graphs they
        // resolved to (`guess_resolved`): its own graph reads placeholders,
        // and what it wrote rests on values not yet justified.
        if self.guessed_now {
            return;
        }
        self.note_writes(g);
        if end == ExecutionEnd::Complete {
            self.seen.insert(canonical_key(g));
        }
    }

    fn distinct_complete(&self) -> Option<u64> {
        Some(self.seen.len() as u64)
    }
}
