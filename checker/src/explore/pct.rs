//! PCT, probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi
//! and Nagarakatte, ASPLOS 2010), with weak-memory choices on top.
//!
//! Each execution gives every thread a random priority and picks `depth - 1`
//! change points among the steps the execution is expected to take. At each
//! step the enabled thread with the highest priority runs. When the step
//! count reaches the i-th change point, the thread that runs is lowered to
//! priority i, below every initial priority. A bug that needs `d` ordering
//! constraints between `n` threads in `k` steps is then found by one
//! execution with probability at least `1 / (n * k^(d-1))`, whatever the
//! program does otherwise. Random scheduling gives no such bound.
//!
//! Why the steps are estimated: a change point only matters if the
//! execution reaches it. `k` starts at a guess and becomes the longest
//! execution seen so far, as the paper suggests for unknown programs.
//!
//! Threads created during the execution get a fresh random initial
//! priority when they are first enabled, as in the paper's treatment of
//! dynamic thread creation. A thread that waits in a spin loop is not
//! enabled until another thread writes something it may read (the engine
//! handles that), so a spinning high-priority thread cannot starve the rest.
//!
//! The weak-memory choices (which write a read reads, where a write goes in
//! mo) are uniform over what the model allows, from the same seeded
//! generator, as in [`super::random`]. PCT's guarantee covers the schedule.
//! The memory choices add their own probability.

use super::Strategy;
use crate::event::{EventId, ThreadId};
use crate::graph::ExecutionGraph;
use crate::model::MemoryModel;
use crate::sched::{RfChoice, ThreadStatus};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// The first guess at the number of scheduling steps in one execution.
const INITIAL_STEPS: u64 = 64;

/// Initial priorities are drawn above this; change point `i` gives priority
/// `i`, so every lowered thread ranks below every thread not yet lowered.
const LOWERED_BELOW: u64 = 1 << 32;

/// PCT scheduling of a given depth, seeded, for a given number of executions.
pub struct Pct {
    rng: ChaCha8Rng,
    iterations: u64,
    done: u64,
    depth: u32,
    /// Priority of each thread in this execution (`None`: not yet seen).
    priority: Vec<Option<u64>>,
    /// The change points of this execution, ascending (steps, from 1).
    change_points: Vec<u64>,
    /// Scheduling steps taken in this execution.
    steps: u64,
    /// The most steps any execution took so far (the paper's `k`).
    max_steps: u64,
}

impl Pct {
    /// `iterations` executions from `seed`, with bug depth `depth` (at least
    /// 1: depth 1 is a random priority order with no change point).
    pub fn new(seed: u64, iterations: u64, depth: u32) -> Pct {
        Pct {
            rng: ChaCha8Rng::seed_from_u64(seed),
            iterations,
            done: 0,
            depth: depth.max(1),
            priority: Vec::new(),
            change_points: Vec::new(),
            steps: 0,
            max_steps: INITIAL_STEPS,
        }
    }

    fn priority_of(&mut self, t: ThreadId) -> u64 {
        let i = t as usize;
        if self.priority.len() <= i {
            self.priority.resize(i + 1, None);
        }
        match self.priority[i] {
            Some(p) => p,
            None => {
                let p = self.rng.random_range(LOWERED_BELOW..u64::MAX);
                self.priority[i] = Some(p);
                p
            }
        }
    }
}

impl Strategy for Pct {
    fn name(&self) -> &'static str {
        "pct"
    }

    fn next_execution(&mut self, graph: &mut ExecutionGraph, _model: MemoryModel) -> bool {
        if self.done >= self.iterations {
            return false;
        }
        self.done += 1;
        self.max_steps = self.max_steps.max(self.steps);
        self.steps = 0;
        self.priority.clear();
        // depth - 1 distinct change points in 1..=k (fewer if k is smaller).
        let wanted = (self.depth as u64 - 1).min(self.max_steps) as usize;
        self.change_points.clear();
        while self.change_points.len() < wanted {
            let p = self.rng.random_range(1..=self.max_steps);
            if !self.change_points.contains(&p) {
                self.change_points.push(p);
            }
        }
        self.change_points.sort_unstable();
        graph.clear();
        true
    }

    fn schedule(&mut self, _g: &ExecutionGraph, enabled: &[ThreadId], _s: &[ThreadStatus]) -> Option<ThreadId> {
        if enabled.is_empty() {
            return None;
        }
        self.steps += 1;
        let mut best = enabled[0];
        let mut best_priority = self.priority_of(best);
        for &t in &enabled[1..] {
            let p = self.priority_of(t);
            if p > best_priority {
                best = t;
                best_priority = p;
            }
        }
        // At the i-th change point the thread about to run drops to
        // priority i (1-based, below every initial priority). Then the
        // highest-priority thread is picked again.
        if let Some(i) = self.change_points.iter().position(|&c| c == self.steps) {
            self.priority[best as usize] = Some(i as u64 + 1);
            return self.schedule_after_change(enabled);
        }
        Some(best)
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

impl Pct {
    /// The highest-priority enabled thread, once the step is counted.
    fn schedule_after_change(&mut self, enabled: &[ThreadId]) -> Option<ThreadId> {
        enabled
            .iter()
            .copied()
            .max_by_key(|&t| self.priority[t as usize].unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_points_are_distinct_and_within_the_estimate() {
        let mut p = Pct::new(3, 100, 4);
        let mut g = ExecutionGraph::new();
        for _ in 0..100 {
            assert!(p.next_execution(&mut g, MemoryModel::Rc11));
            assert_eq!(p.change_points.len(), 3);
            assert!(p.change_points.windows(2).all(|w| w[0] < w[1]));
            assert!(p.change_points.iter().all(|&c| (1..=INITIAL_STEPS).contains(&c)));
        }
        assert!(!p.next_execution(&mut g, MemoryModel::Rc11));
    }

    #[test]
    fn the_highest_priority_thread_runs_until_a_change_point_lowers_it() {
        let mut p = Pct::new(11, 1, 2);
        let mut g = ExecutionGraph::new();
        assert!(p.next_execution(&mut g, MemoryModel::Rc11));
        p.change_points = vec![3];
        let enabled = [0, 1, 2];
        let first = p.schedule(&g, &enabled, &[]).unwrap();
        assert_eq!(p.schedule(&g, &enabled, &[]), Some(first));
        // Step 3 lowers `first` below the other two.
        let third = p.schedule(&g, &enabled, &[]).unwrap();
        assert_ne!(third, first);
        assert_eq!(p.priority[first as usize], Some(1));
        assert_eq!(p.schedule(&g, &enabled, &[]), Some(third));
        // Alone, the lowered thread still runs.
        assert_eq!(p.schedule(&g, &[first], &[]), Some(first));
    }
}
