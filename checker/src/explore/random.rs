//! Random exploration: every choice uniform over what the model allows,
//! from a seeded generator, for a given number of executions.

use super::Strategy;
use crate::event::{EventId, ThreadId};
use crate::graph::ExecutionGraph;
use crate::model::MemoryModel;
use crate::sched::{RfChoice, ThreadStatus};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// Uniformly random choices, seeded.
pub struct RandomWalk {
    rng: ChaCha8Rng,
    iterations: u64,
    done: u64,
}

impl RandomWalk {
    /// `iterations` executions from `seed`.
    pub fn new(seed: u64, iterations: u64) -> RandomWalk {
        RandomWalk {
            rng: ChaCha8Rng::seed_from_u64(seed),
            iterations,
            done: 0,
        }
    }
}

impl Strategy for RandomWalk {
    fn name(&self) -> &'static str {
        "random"
    }

    fn next_execution(&mut self, graph: &mut ExecutionGraph, _model: MemoryModel) -> bool {
        if self.done >= self.iterations {
            return false;
        }
        self.done += 1;
        graph.clear();
        true
    }

    fn schedule(&mut self, _g: &ExecutionGraph, enabled: &[ThreadId], _s: &[ThreadStatus]) -> Option<ThreadId> {
        if enabled.is_empty() {
            None
        } else {
            Some(enabled[self.rng.random_range(0..enabled.len())])
        }
    }

    fn choose_rf(&mut self, _g: &ExecutionGraph, _r: EventId, _s: u32, choices: &[RfChoice]) -> usize {
        self.rng.random_range(0..choices.len())
    }

    fn choose_mo(&mut self, _g: &ExecutionGraph, _w: EventId, _s: u32, places: &[usize]) -> usize {
        self.rng.random_range(0..places.len())
    }

    fn progress(&self) -> Option<f64> {
        Some(self.done as f64 / self.iterations.max(1) as f64)
    }
}
