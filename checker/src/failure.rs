//! What can go wrong in an execution, as the checker records it.

use crate::event::*;
use crate::graph::ExecutionGraph;

/// The kind of a failure.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FailureKind {
    /// A panic in user code (a failed assertion included).
    Panic,
    /// Every live thread waits forever (on a mutex, a join, or a spin loop nothing will end).
    Deadlock,
    /// Two conflicting accesses, at least one plain, not ordered by happens-before.
    DataRace,
    /// Two conflicting atomic accesses, not ordered by happens-before, whose
    /// scopes do not include each other's thread (a scope mismatch).
    HeterogeneousRace,
    /// Some threads of a group wait at a barrier that the others never
    /// reach, or the group's threads meet at different barriers.
    BarrierDivergence,
    /// A thread ran more steps than the bound allows (an unbounded loop without a spin hint).
    Runaway,
    /// A model thread overflowed its stack (`Builder::stack_size` sets its size).
    StackOverflow,
    /// The program did something different when re-run with the same choices
    /// (it depends on something outside the model: time, randomness, real threads...).
    Nondeterminism,
    /// The shim was used in a way the checker cannot model (a clear user error).
    Misuse,
    /// A broken invariant inside the checker itself (not a bug in the user's program).
    Internal,
    /// Threads spin forever because the forward-progress model need never
    /// schedule the threads they wait for (an occupancy-bound GPU leaving a
    /// block unscheduled, an unfair scheduler); see `Failure::hang`.
    Hang,
    /// Memory that the program allocated through the shim (`alloc::alloc`,
    /// `alloc::Track`, `sync::Arc`) was still not freed when a complete
    /// execution ended (loom's leak check).
    Leak,
}

impl FailureKind {
    /// Name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Panic => "panic",
            FailureKind::Deadlock => "deadlock",
            FailureKind::DataRace => "data race",
            FailureKind::HeterogeneousRace => "heterogeneous race (scope mismatch)",
            FailureKind::BarrierDivergence => "barrier divergence",
            FailureKind::Runaway => "runaway thread",
            FailureKind::StackOverflow => "stack overflow",
            FailureKind::Nondeterminism => "nondeterministic program",
            FailureKind::Misuse => "misuse of the checker",
            FailureKind::Internal => "internal error in scopecheck",
            FailureKind::Hang => "hang (no forward progress)",
            FailureKind::Leak => "memory leak",
        }
    }
}

/// One event named by a failure, described for the report.
#[derive(Clone, Debug)]
pub struct EventInfo {
    /// The event.
    pub id: EventId,
    /// Its one-line description.
    pub what: String,
    /// Where the user's code issued it.
    pub src: SourceLoc,
}

impl EventInfo {
    /// Describes event `id` of `g`.
    pub fn of(g: &ExecutionGraph, id: EventId) -> EventInfo {
        let e = g.event(id);
        EventInfo {
            id,
            what: e.describe(),
            src: e.src,
        }
    }
}

/// A failure found in one execution.
#[derive(Clone, Debug)]
pub struct Failure {
    /// What kind of failure.
    pub kind: FailureKind,
    /// A sentence saying what happened.
    pub message: String,
    /// Where, when known (a panic's location).
    pub location: Option<SourceLoc>,
    /// The thread that failed, when there is one.
    pub thread: Option<ThreadId>,
    /// The events involved (both accesses of a race, ...).
    pub events: Vec<EventInfo>,
    /// How to fix it, when known.
    pub fix: Option<String>,
    /// Why it happened, beyond what the message's first clause says, when
    /// known (a data race's too-narrow release under a scoped model). The
    /// message ends with it too.
    pub cause: Option<String>,
    /// The execution graph at the failure.
    pub graph: ExecutionGraph,
    /// Token that replays the execution.
    pub token: String,
    /// For a [`FailureKind::Hang`]: the threads that wait forever and the
    /// threads they wait for.
    pub hang: Option<crate::progress::HangInfo>,
}

impl Failure {
    /// What kind of failure this is.
    pub fn kind(&self) -> FailureKind {
        self.kind
    }
}
