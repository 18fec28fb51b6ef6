//! Why a run stopped before covering everything its strategy meant to
//! ([`StopCause`]). Apart from the loop that sets it so that a caller that
//! asks why a run is incomplete matches a value, not the wording of
//! [`RunResult::incomplete_reason`](super::RunResult::incomplete_reason),
//! which is this cause's rendering ([`fmt::Display`]).

use std::fmt;
use std::time::Duration;

/// Why the driver left a run incomplete: one value per place it stops
/// early or gives up a part of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopCause {
    /// The run ran as many executions as `RunConfig::max_executions`
    /// allows (this many); blocked executions and repeats count too.
    MaxExecutions(u64),
    /// `RunConfig::max_duration` (this long) passed, between executions or
    /// inside one (an execution the deadline cut is not counted).
    Deadline(Duration),
    /// The run found as many failures as `RunConfig::max_failures` allows
    /// (this many).
    Failures(usize),
    /// A replay asked for choices its token did not hold: the execution was
    /// abandoned. Holds where it diverged, what the token expected and what
    /// the program did (also `RunResult::replay_divergence`).
    ReplayDiverged(String),
    /// This many failed executions stopped at their failure while other
    /// threads could go on: the exhaustive and reference explorers never saw
    /// the executions that extend them past it.
    FailedMidway(u64),
    /// A shard of a run whose model allows po ∪ rf cycles explored only the
    /// acyclic executions (the cyclic ones are counted by one explorer's
    /// keys, which shards do not share).
    ShardAcyclicOnly,
    /// The reference enumerator's value domains (the values its guessed
    /// reads take, under a model with po ∪ rf cycles) still grew after
    /// this many enumerations: a value only a cycle keeps making.
    UnsettledDomains(u32),
}

impl fmt::Display for StopCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopCause::MaxExecutions(max) => write!(f, "stopped after max_executions = {max}"),
            StopCause::Deadline(max) => {
                write!(
                    f,
                    "stopped after max_duration = {max:?} (an execution the deadline cut is not counted)"
                )
            }
            StopCause::Failures(1) => f.write_str("stopped at the first failure"),
            StopCause::Failures(max) => write!(f, "stopped after {max} failures (max_failures = {max})"),
            StopCause::ReplayDiverged(divergence) => f.write_str(divergence),
            StopCause::FailedMidway(n) => write!(
                f,
                "{n} failed execution(s) stopped at their failure while other threads could go on: the executions \
                 that extend them past it were not explored"
            ),
            StopCause::ShardAcyclicOnly => f.write_str(
                "a shard explores c11's po ∪ rf-acyclic executions only (the cyclic ones are counted once by one \
                 explorer's keys, which shards do not share): run unsharded for the cyclic executions",
            ),
            StopCause::UnsettledDomains(n) => write!(
                f,
                "the values the reference enumerator guesses for reads in po ∪ rf cycles still grew after {n} \
                 enumerations (a value only a cycle keeps making, thin air): executions with other values were not \
                 built"
            ),
        }
    }
}
