//! The scheduling types the engine, the explorers, the progress model and
//! the runtime share: what the engine knows about each thread
//! ([`ThreadStatus`]), what a thread does after handing the engine an
//! operation ([`Step`], [`Resume`]), why an execution stops early
//! ([`Stop`]), the scheduler's answer ([`Sched`]), where a thread waits
//! ([`WaitSite`]), how an execution ended ([`ExecutionEnd`]) and a read's
//! choice of write ([`RfChoice`]).
//!
//! A leaf: it names no other module of the engine side (`engine`,
//! `explore`, `progress`, `driver`), so they all depend on it and not on
//! each other through it (the engine drives the explorers; the explorers,
//! the progress model and the runtime only need these types, not the
//! engine's insides).

use crate::failure::Failure;
use crate::op::{Answer, EventId, Op, SourceLoc, ThreadId};

/// What a thread does next after handing the engine an operation
/// ([`Engine::perform`](crate::Engine::perform)), or what the runtime does
/// next when it asks whom to run ([`Engine::next_turn`](crate::Engine::next_turn)).
#[derive(Debug)]
pub enum Step {
    /// The thread performed the operation: its answer. It runs on.
    Done(Answer),
    /// The thread waits at its operation and the engine chose no thread
    /// to run: threads spawned since the last decision have not reached
    /// their first step yet, so nobody may be chosen before the runtime has
    /// started them (it then asks [`Engine::next_turn`](crate::Engine::next_turn)).
    Wait,
    /// The thread waits (another thread was chosen, or its own step cannot
    /// be taken yet: a mutex held, a join of a running thread, a barrier
    /// not everyone reached): switch to thread `to`, which resumes with
    /// `resume` (its own pending operation already performed, or woken
    /// from a spin wait).
    Switch {
        /// The thread to run.
        to: ThreadId,
        /// What it resumes with.
        resume: Resume,
    },
    /// Every thread finished: the execution is complete (only
    /// [`Engine::next_turn`](crate::Engine::next_turn) says so; a thread
    /// that performs an operation has not finished).
    Finished,
    /// The execution ends here, without a complete result.
    Stop(Stop),
}

/// What a waiting thread resumes with.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Resume {
    /// Nothing: it was woken from a spin wait and goes on from its hint.
    Go,
    /// The answer to the operation it waited at, which the engine has
    /// performed for it.
    Answer(Answer),
}

/// Why an execution stops early.
#[derive(Debug)]
pub enum Stop {
    /// A failure to report.
    Failure(Box<Failure>),
    /// The execution is not worth finishing (an RMW that breaks atomicity was
    /// added only to compute revisits, or the graph became inconsistent): it
    /// is counted as blocked.
    Moot,
    /// The run's deadline ([`Limits::deadline`](crate::Limits::deadline))
    /// passed during the execution: it is abandoned unfinished, neither
    /// counted nor reported (what it would have done is unknown), and the
    /// run stops.
    Cut,
}

/// The scheduler's answer (inside the engine: the runtime gets a [`Step`]).
#[derive(Debug)]
pub enum Sched {
    /// Run this thread: perform its pending operation (or wake it from a spin).
    Run(ThreadId),
    /// All threads finished.
    Done,
    /// Nothing can run and some thread discarded the execution, or a replay
    /// left its token: it is blocked.
    Blocked,
    /// No thread can run: the program hangs.
    Deadlock(Box<Failure>),
}

/// Where a thread waits at a spin hint, for reports: the hint's source line
/// (the user's, through `#[track_caller]`) and, for a hint inside a shim
/// object (`Condvar::wait`, `RwLock::read`, ...), what the object is.
#[derive(Copy, Clone, Debug, Default)]
pub struct WaitSite {
    /// The hint's source location, if known.
    pub src: Option<SourceLoc>,
    /// What the thread waits on, as a noun phrase (`"a condvar"`); `None`
    /// for a `spin_loop` or `yield_now` in user code.
    pub on: Option<&'static str>,
}

/// What the engine knows about a thread when it chooses whom to run.
#[derive(Clone, Debug)]
pub enum ThreadStatus {
    /// No such thread, or it has finished.
    Gone,
    /// It waits to perform this visible operation.
    Op(Op, SourceLoc),
    /// It called `spin_loop`/`yield_now` and waits for news.
    SpinWait,
    /// It gave up this execution (a litmus loop past its unroll bound): it
    /// never runs again, the others go on so that their events (and the
    /// alternatives they open) are still explored, and the execution then
    /// counts as blocked rather than complete.
    Discarded,
}

/// How an execution ended.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ExecutionEnd {
    /// All threads finished.
    Complete,
    /// Abandoned without a result (counted as blocked).
    Blocked,
    /// Stopped at a failure.
    Failed,
}

/// A choice of write for a read: the write, and for a weak compare-exchange
/// that could succeed, whether it fails spuriously.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct RfChoice {
    /// The write read from.
    pub write: EventId,
    /// A spurious failure of `compare_exchange_weak`.
    pub spurious: bool,
}
