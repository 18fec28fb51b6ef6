//! The scheduling types the engine, the explorers and the progress model
//! share: what the runtime knows about each thread ([`ThreadStatus`]), how
//! an execution ended ([`ExecutionEnd`]) and a read's choice of write
//! ([`RfChoice`]).
//!
//! A leaf: it names no other module of the engine side (`engine`,
//! `explore`, `progress`), so they all depend on it and not on each other
//! through it (the engine drives the explorers; the explorers and the
//! progress model only need these types, not the engine).

use crate::event::{EventId, Op, SourceLoc};

/// What the runtime knows about a thread when it asks whom to run.
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
