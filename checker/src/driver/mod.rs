//! The driver: from a run's configuration to its result. It builds the
//! strategy ([`strategy_for`]), runs one execution after another under the
//! engine until the strategy is done or a bound is hit ([`explore`]),
//! shares one exhaustive exploration among OS threads ([`run_parallel`]),
//! and merges the results ([`RunResult::merge`]).
//!
//! What it drives is a [`Program`]: anything that can run one execution of
//! a program under an [`Engine`]. The shim's runtime is one (it runs the
//! user's threads as coroutines); a test can script one that calls the
//! engine's operation API directly. The driver knows nothing of how the
//! program's threads run.
//!
//! Split by seam: `config` (what a run is given and gives back), `strategy`
//! (the strategy factory), `run` (the loop over executions), `parallel`
//! (the parallel pool's driver), `stop` (why a run stopped early).

mod config;
mod parallel;
mod run;
mod stop;
mod strategy;

pub use config::{RunConfig, RunResult, StrategyChoice};
pub use parallel::run_parallel;
pub use run::{deadline_reason, explore};
pub use stop::StopCause;
pub use strategy::{strategy_for, validate_strategy};

use crate::engine::Engine;
use crate::failure::Failure;
use crate::outcome::Outcome;
use crate::sched::ExecutionEnd;

/// A program the driver can run: runs one execution of it under an engine.
pub trait Program {
    /// Runs one execution of the program under `engine`, from its first
    /// step to its end, and says how it ended; `None` when the run's
    /// deadline ([`crate::engine::Limits::deadline`]) cut it (it is then
    /// neither counted nor reported). The engine has begun the execution
    /// ([`Engine::begin_execution`]); the driver ends it.
    fn execute(&mut self, engine: &mut Engine) -> Option<Executed>;
}

/// How one execution of a [`Program`] ended.
#[derive(Debug)]
pub struct Executed {
    /// Complete, failed or blocked (before the model's verdict on the
    /// complete graph, which the driver takes).
    pub end: ExecutionEnd,
    /// The failure, for a failed execution.
    pub failure: Option<Failure>,
    /// Whether the failure stopped the execution while another thread could
    /// still have gone on (the executions that extend it were not seen).
    pub failed_midway: bool,
    /// What the execution recorded (counted only if it is complete).
    pub outcome: Outcome,
}

#[cfg(test)]
mod door_tests;
#[cfg(test)]
mod scripted;
#[cfg(test)]
mod stop_tests;
#[cfg(test)]
mod tests;
