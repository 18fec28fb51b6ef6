//! The reference enumerator's guessed reads: how it builds executions with
//! a cycle in po ∪ rf (models that allow them, `c11`) without the
//! explorer's promises (docs/c11-model.md section 4).
//!
//! The reference adds events one at a time, so a read cannot read a write
//! that is po ∪ rf-after it. Instead, at every atomic load and RMW read,
//! besides each write of the location, the strategy may guess a value the
//! read returns, not yet justified (`Strategy::guess_read`, from a value
//! domain of the location it keeps: `explore/reference.rs`). The read is
//! added like a promised read (reading the initial write as a placeholder)
//! and the run goes on. When the execution ends, every guessed read is
//! given, in turn, every write of its location that writes its value (each
//! combination), and each graph is judged by the model's complete check:
//! one where a guessed read's write is not po ∪ rf-after it is left to
//! the runs that read that write (`each_on_a_cycle`; so a graph without a
//! cycle is left to the ordinary enumeration, which finds it), one where
//! each guessed read closes a cycle and the model accepts is handed to the
//! strategy (`Strategy::guess_resolved`), which counts it once by its
//! canonical key. This is apart from the explorer's promise search
//! (`explore/cyclic.rs`, `promised.rs`) on purpose: the reference is what
//! that search is checked against; the two share only how a placeholder
//! read is added and how a read is made to read its write
//! (`ExecutionGraph::with_reads_from`).
//!
//! While an execution holds a guess, the reference's check after every
//! step judges the graph without the guessed reads
//! (`consistent_without_guesses`): the placeholders are judged only at
//! the end.

use super::{Engine, ExecutionEnd};
use crate::event::*;
use crate::graph::{ExecutionGraph, Promise, SyncRules};
use crate::model::relations::Relations;

/// The current execution's guessed reads and their verdict.
#[derive(Default)]
pub(super) struct Guesses {
    /// Each guessed read with its location and the value it returned.
    reads: Vec<(EventId, Loc, Value)>,
    /// The verdict on the execution, once taken.
    verdict: Option<ExecutionEnd>,
    /// The cyclic graphs the guesses resolve to that the model accepts
    /// (for a complete execution).
    resolved: Vec<ExecutionGraph>,
}

impl Guesses {
    /// Forgets the last execution's guesses.
    pub(super) fn clear(&mut self) {
        self.reads.clear();
        self.verdict = None;
        self.resolved.clear();
    }

    /// Whether the current execution has a guessed read.
    pub(super) fn any(&self) -> bool {
        !self.reads.is_empty()
    }
}

impl Engine {
    /// For the reference enumerator, under a model that allows cycles in
    /// po ∪ rf: the strategy's guess for thread `t`'s next read of `loc`
    /// (atomic, `order`), as the promise the read is then added with
    /// (`promised_read`, `promised_rmw`; its write is a placeholder, never
    /// looked at). `None`: the read reads a write of the graph as usual.
    #[inline]
    pub(super) fn guess(&mut self, t: ThreadId, loc: Loc, order: Order) -> Option<Promise> {
        if !self.unfiltered {
            return None;
        }
        self.reference_guess(t, loc, order)
    }

    /// [`Self::guess`] for the reference enumerator: out of line, so the
    /// explorer's read paths (`accesses.rs`) keep their inlining (as
    /// `promised_rmw` is kept out of them).
    #[cold]
    #[inline(never)]
    fn reference_guess(&mut self, t: ThreadId, loc: Loc, order: Order) -> Option<Promise> {
        if !self.limits.porf_cycles
            || !self.model.allows_porf_cycles()
            || !order.is_atomic()
            || self.graph.holds_addresses(loc)
        {
            return None;
        }
        let value = self.strategy.guess_read(&self.graph, loc)?;
        let read = EventId::new(t, self.graph.thread_len(t));
        self.guesses.reads.push((read, loc, value));
        Some(Promise {
            read,
            write: EventId::INIT,
            loc,
            value,
            rank: None,
        })
    }

    /// Whether the current execution has a guessed read (its graph is
    /// judged only at the end).
    pub(super) fn has_guesses(&self) -> bool {
        self.guesses.any()
    }

    /// The verdict on an execution with guessed reads that ended as `end`
    /// (see the module documentation): complete when some combination of
    /// writes for the guesses gives a cyclic graph the model accepts
    /// (every such graph is kept for the strategy); failed when some gives
    /// a graph so far that is consistent; blocked otherwise. Either way
    /// only graphs with the happens-before of the engine's (whose views
    /// hold the placeholders) count.
    pub(super) fn judge_guessed(&mut self, end: ExecutionEnd) -> ExecutionEnd {
        if end == ExecutionEnd::Blocked {
            return end;
        }
        if let Some(v) = self.guesses.verdict {
            return v;
        }
        // Per guessed read, the writes of its location with its value.
        let options: Vec<Vec<EventId>> = self
            .guesses
            .reads
            .iter()
            .map(|&(_, loc, value)| {
                let d = self.graph.loc(loc).expect("loc");
                std::iter::once(EventId::INIT)
                    .chain(d.mo.iter().copied())
                    .filter(|&w| self.graph.write_value(loc, w) == value)
                    .collect()
            })
            .collect();
        let mut verdict = ExecutionEnd::Blocked;
        let mut pick = vec![0usize; options.len()];
        if options.iter().all(|o| !o.is_empty()) {
            loop {
                let picks: Vec<(EventId, EventId)> = self
                    .guesses
                    .reads
                    .iter()
                    .zip(&pick)
                    .zip(&options)
                    .map(|((&(r, ..), &i), o)| (r, o[i]))
                    .collect();
                let g = self.graph.with_reads_from(&picks);
                // Races are found from the engine's views, built with the
                // placeholders: a guessed read that synchronizes would
                // make them miss edges (and a race report false), so a
                // graph whose happens-before differs is not kept.
                if !self.model.same_hb(&g, &self.graph) {
                } else if end == ExecutionEnd::Failed {
                    if self.model.consistent_declarative(&g).is_ok() {
                        verdict = end;
                        break;
                    }
                } else if each_on_a_cycle(&g, &picks) && self.model.check_complete(&g).is_ok() {
                    verdict = end;
                    self.guesses.resolved.push(g);
                }
                // The next combination (an odometer over `pick`).
                let mut i = 0;
                while i < pick.len() && pick[i] + 1 == options[i].len() {
                    pick[i] = 0;
                    i += 1;
                }
                if i == pick.len() {
                    break;
                }
                pick[i] += 1;
            }
        }
        self.guesses.verdict = Some(verdict);
        verdict
    }

    /// The reference's check after a step of an execution with guesses:
    /// the graph with each guessed read made an event of no relation (an
    /// `Observe` marker in its place) satisfies the model's axioms. Every
    /// relation the axioms are built from (po, rf, mo, fr, rmw, sw, hb, the
    /// seq_cst order) is then the complete execution's restricted to the
    /// other events, or smaller, and the axioms checked here (those that
    /// hold of every prefix: emptiness, irreflexivity, acyclicity) hold of
    /// a part of a graph that satisfies them: a consistent execution is
    /// never cut, and most inconsistent prefixes are, as without guesses.
    pub(super) fn consistent_without_guesses(&self) -> bool {
        let mut g = self.graph.clone();
        for &(r, ..) in &self.guesses.reads {
            g.event_mut(r).kind = EventKind::Observe { of: r };
        }
        self.model.consistent_declarative(&g).is_ok()
    }

    /// Hands the strategy each cyclic graph the current execution's guesses
    /// resolved to (before it is told the execution ended).
    pub(super) fn hand_resolved(&mut self) {
        for g in &self.guesses.resolved {
            self.strategy.guess_resolved(g);
        }
    }
}

/// Whether each guessed read of `picks` reads, in `g`, a write po ∪
/// rf-after it (its rf edge closes a cycle). A graph where one does not is
/// left to the runs that do not guess that read: the other edges of po ∪
/// rf with it are then acyclic (a cycle would be one of `g`'s through
/// that edge), so some order of the events adds the write before the read,
/// and the enumeration, which tries every order, reads it there. So each
/// graph is judged under fewer combinations; none is lost.
fn each_on_a_cycle(g: &ExecutionGraph, picks: &[(EventId, EventId)]) -> bool {
    let rel = Relations::of(g, SyncRules::default());
    let mut porf = rel.po.clone();
    porf.union_with(&rel.rf);
    let reach = porf.closure();
    picks.iter().all(|&(r, w)| {
        !w.is_init()
            && match (rel.index_of(r), rel.index_of(w)) {
                (Some(r), Some(w)) => reach.has(r, w),
                _ => false,
            }
    })
}
