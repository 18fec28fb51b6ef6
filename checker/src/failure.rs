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
///
/// Read through its accessors ([`Failure::kind`], [`Failure::message`],
/// [`Failure::events`], [`Failure::token`], ...): the fields are the
/// checker's own, so a user's code cannot build an inconsistent report.
///
/// ```compile_fail
/// fn kind(f: &scopecheck_checker::Failure) -> scopecheck_checker::FailureKind {
///     f.kind // private: `f.kind()` is the way
/// }
/// ```
///
/// ```
/// fn kind(f: &scopecheck_checker::Failure) -> scopecheck_checker::FailureKind {
///     f.kind()
/// }
/// ```
#[derive(Clone, Debug)]
pub struct Failure {
    /// What kind of failure.
    pub(crate) kind: FailureKind,
    /// A sentence saying what happened.
    pub(crate) message: String,
    /// Where, when known (a panic's location).
    pub(crate) location: Option<SourceLoc>,
    /// The thread that failed, when there is one.
    pub(crate) thread: Option<ThreadId>,
    /// The events involved (both accesses of a race, ...).
    pub(crate) events: Vec<EventInfo>,
    /// How to fix it, when known.
    pub(crate) fix: Option<String>,
    /// Why it happened, beyond what the message's first clause says, when
    /// known (a data race's too-narrow release under a scoped model). The
    /// message ends with it too.
    pub(crate) cause: Option<String>,
    /// The execution graph at the failure.
    pub(crate) graph: ExecutionGraph,
    /// Token that replays the execution.
    pub(crate) token: String,
    /// For a [`FailureKind::Hang`]: the threads that wait forever and the
    /// threads they wait for.
    pub(crate) hang: Option<HangInfo>,
}

impl Failure {
    /// A failure of `kind` saying `message`, on `graph` (replayed by
    /// `token`), with no location, thread, events, fix or cause yet: the
    /// `with_*` methods add them. For failures found outside the engine
    /// (the litmus front end's declarative models, the DRFrlx check).
    pub fn new(kind: FailureKind, message: String, graph: ExecutionGraph, token: String) -> Failure {
        Failure {
            kind,
            message,
            location: None,
            thread: None,
            events: Vec::new(),
            fix: None,
            cause: None,
            graph,
            token,
            hang: None,
        }
    }

    /// A race of kind `kind` between events `a` and `b` of `g` (`b` is where
    /// it is reported), saying `message`, replayed under `model`.
    pub fn race(
        kind: FailureKind,
        message: String,
        g: &ExecutionGraph,
        a: EventId,
        b: EventId,
        model: crate::model::MemoryModel,
    ) -> Failure {
        let mut f = Failure::new(kind, message, g.clone(), crate::token::encode(g, model));
        f.location = Some(g.event(b).src);
        f.thread = Some(b.thread);
        f.events = vec![EventInfo::of(g, a), EventInfo::of(g, b)];
        f
    }

    /// Sets the suggested fix (a shim object's own advice; a front end
    /// rewording the engine's advice in its own language).
    pub fn set_fix(&mut self, fix: Option<String>) {
        self.fix = fix;
    }

    /// Rewords the message (a front end whose users cannot follow the
    /// engine's advice for Rust programs).
    pub fn set_message(&mut self, message: String) {
        self.message = message;
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> FailureKind {
        self.kind
    }

    /// A sentence saying what happened.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where, when known (a panic's location, the second access of a race).
    pub fn location(&self) -> Option<SourceLoc> {
        self.location
    }

    /// The thread that failed, when there is one.
    pub fn thread(&self) -> Option<ThreadId> {
        self.thread
    }

    /// The events involved (both accesses of a race, ...).
    pub fn events(&self) -> &[EventInfo] {
        &self.events
    }

    /// How to fix it, when known.
    pub fn fix(&self) -> Option<&str> {
        self.fix.as_deref()
    }

    /// Why it happened, beyond the message's first clause, when known (the
    /// message ends with it too).
    pub fn cause(&self) -> Option<&str> {
        self.cause.as_deref()
    }

    /// The execution graph at the failure: the report draws the whole
    /// execution from it, so it is needed outside the checker.
    pub fn graph(&self) -> &ExecutionGraph {
        &self.graph
    }

    /// The token that replays the execution (empty when there is none).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// For a [`FailureKind::Hang`]: the threads that wait forever and the
    /// threads they wait for.
    pub fn hang(&self) -> Option<&HangInfo> {
        self.hang.as_ref()
    }
}

/// The threads a hang report names (see `Failure::hang`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HangInfo {
    /// The threads that wait forever, ascending.
    pub waiting: Vec<ThreadId>,
    /// The threads whose steps they wait for, which the progress model need
    /// never schedule, ascending.
    pub awaited: Vec<ThreadId>,
}
