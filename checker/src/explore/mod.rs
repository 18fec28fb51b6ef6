//! Exploration strategies: who decides each choice of an execution.
//!
//! A strategy is told about every new choice point (which thread runs, which
//! write a read reads, where a write goes in mo) and answers with the option
//! to take now. Exhaustive strategies also remember the other options and
//! set up the graph of the next execution in [`Strategy::next_execution`].
//! A new strategy is one file implementing this trait (`pct.rs` is one).

mod cyclic;
mod odometer;
pub mod pct;
pub mod pool;
pub mod preemption;
pub mod random;
pub mod reference;
pub mod replay;
mod revisit;
pub mod trust;
pub mod values;

use crate::event::{EventId, Loc, ThreadId, Value};
use crate::graph::ExecutionGraph;
use crate::model::MemoryModel;
use crate::sched::{ExecutionEnd, RfChoice, ThreadStatus};

/// Decides the choices of each execution.
pub trait Strategy {
    /// The strategy's name in reports.
    fn name(&self) -> &'static str;

    /// Sets `graph` up for the next execution (the part of it to replay).
    /// Returns false when there is nothing left to explore.
    fn next_execution(&mut self, graph: &mut ExecutionGraph, model: MemoryModel) -> bool;

    /// Picks the thread that adds the next event among `enabled` (ascending).
    /// `None` when `enabled` is empty.
    fn schedule(&mut self, graph: &ExecutionGraph, enabled: &[ThreadId], status: &[ThreadStatus]) -> Option<ThreadId>;

    /// Picks the write the new read `read` (added with stamp `stamp`) reads,
    /// among `choices` (in mo order; the last one reads the mo-maximal write).
    fn choose_rf(&mut self, graph: &ExecutionGraph, read: EventId, stamp: u32, choices: &[RfChoice]) -> usize;

    /// Picks the mo position of the new write `write` among `places`
    /// (ascending; the last one makes it mo-maximal).
    fn choose_mo(&mut self, graph: &ExecutionGraph, write: EventId, stamp: u32, places: &[usize]) -> usize;

    /// Whether [`Strategy::schedule`] always takes the first enabled thread
    /// (lowest id): the engine then stops judging threads at the first
    /// enabled one and does not call `schedule`.
    fn takes_leftmost(&self) -> bool {
        false
    }

    /// Whether the strategy may build graphs with a cycle in po ∪ rf under
    /// a model that allows them (`cyclic.rs`; on unless turned off here,
    /// for cross-checks against another enumeration of the cyclic ones).
    fn set_porf_cycles(&mut self, _on: bool) {}

    /// Whether the strategy wants to see writes that only serve to compute
    /// backward revisits (RMWs that break atomicity).
    fn wants_revisits(&self) -> bool {
        false
    }

    /// Whether the engine should offer every write and every mo position
    /// (not only coherent ones) and judge graphs with the declarative axioms.
    fn unfiltered(&self) -> bool {
        false
    }

    /// A write was added (or moved in mo): the graph's newest event is `write`.
    fn write_added(&mut self, _graph: &ExecutionGraph, _write: EventId, _model: MemoryModel) {}

    /// The execution ended.
    fn execution_done(&mut self, _graph: &ExecutionGraph, _end: ExecutionEnd) {}

    /// Whether the current execution is this run's to count and report
    /// (false for the executions a shard only walks through to find its
    /// part of the tree; see [`trust::Shard`]).
    fn owns_execution(&self) -> bool {
        true
    }

    /// Fraction of the exploration done, when the strategy can tell.
    fn progress(&self) -> Option<f64> {
        None
    }

    /// Whether a replay met a choice its token did not hold.
    fn diverged(&self) -> bool {
        false
    }

    /// For a replay: where the program left the token, in the program's
    /// terms (which step, what the token expected, what the program did).
    fn divergence(&self) -> Option<String> {
        None
    }

    /// Whether the engine must show the strategy each new visible step
    /// before taking it ([`Strategy::check_step`]) and stop the execution
    /// once the strategy says it diverged (a replay).
    fn checks_steps(&self) -> bool {
        false
    }

    /// The execution is about to end as `end` (a failure, or blocked):
    /// whether it ends so (false: the strategy says this is not the end
    /// it was asked to reproduce, and the execution ends without a result;
    /// see [`Strategy::divergence`]). Asked only when
    /// [`Strategy::checks_steps`], and not for complete executions.
    fn accepts_end(&mut self, _graph: &ExecutionGraph, _end: ExecutionEnd) -> bool {
        true
    }

    /// Thread `t` is about to take the visible step `op` (at `src`) as its
    /// next event: whether the strategy agrees (false: the execution stops
    /// without a result; see [`Strategy::divergence`]). Asked only when
    /// [`Strategy::checks_steps`].
    fn check_step(
        &mut self,
        _graph: &ExecutionGraph,
        _t: ThreadId,
        _op: &crate::event::Op,
        _src: crate::event::SourceLoc,
    ) -> bool {
        true
    }

    /// Whether the strategy bounds the search: the engine then asks
    /// [`Strategy::within_bound`] before each new visible step.
    fn bounds_search(&self) -> bool {
        false
    }

    /// Whether the graph so far (about to grow by a new visible step) is
    /// still to be explored; false stops the execution there, counted in
    /// [`crate::engine::Stats::pruned`]. Asked only when
    /// [`Strategy::bounds_search`].
    fn within_bound(&mut self, _graph: &ExecutionGraph) -> bool {
        true
    }

    /// The reference enumerator, under a model that allows cycles in po ∪
    /// rf: a value the new atomic read of `loc` returns without reading a
    /// write yet (a guess, judged when the execution ends:
    /// `engine/guessed.rs`), or `None` to read a write of the graph. Asked
    /// only of a strategy that is [`Strategy::unfiltered`].
    fn guess_read(&mut self, _graph: &ExecutionGraph, _loc: Loc) -> Option<Value> {
        None
    }

    /// A complete graph with a cycle in po ∪ rf that the current
    /// execution's guessed reads resolve to and the model accepts (one
    /// call per graph, before [`Strategy::execution_done`], whose graph
    /// still has the guesses' placeholders).
    fn guess_resolved(&mut self, _graph: &ExecutionGraph) {}

    /// When the strategy gave up because its guessed values did not settle:
    /// after how many rounds (the run is then incomplete).
    fn unsettled_rounds(&self) -> Option<u32> {
        None
    }

    /// Number of distinct complete executions, when the strategy may visit
    /// the same one more than once (the reference enumerator).
    fn distinct_complete(&self) -> Option<u64> {
        None
    }
}
