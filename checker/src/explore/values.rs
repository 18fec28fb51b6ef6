//! Every distinct value each read can take, under one fixed interleaving
//! and with every write placed last in mo: the explorer of the litmus
//! front end's runs of one thread alone with a thread that only writes
//! ([`crate::driver::StrategyChoice::Values`]).
//!
//! Those runs (the po ∪ rf-cyclic enumeration's thread-by-thread step, on
//! the `porf` base) keep only the events of the thread and the values its
//! reads took; which write a read read and where a write went in mo are
//! thrown away (the enumeration gives every read every write of its value
//! and every location every order of its writes afterwards). The optimal
//! explorer still builds every rf and mo choice, so a thread that spins on
//! loads and stores of one location runs once per order of its stores
//! among the others': millions of runs for a few dozen distinct ways.
//!
//! Here the main thread runs first while it can (it allocates, spawns, and
//! then waits to join), then always the newest enabled thread: the writer,
//! spawned last, stores everything before the thread under test reads
//! anything. Each read then has every write it could read under `porf`
//! already in the graph (the initial writes, the writer's stores, its own
//! thread's earlier writes; `porf` offers any write not porf-after the
//! read), and a plain load is given one write of each distinct value among
//! them: which one makes no difference to what the thread does next, nor to
//! what a later read may read (a load consumes nothing, and its rf edge
//! comes from a write that is po-before or in another thread that never
//! reads, so it puts no write porf-after a later read). An RMW's read is
//! given every candidate (which write it consumes decides what later RMWs
//! may read). A write takes the last place in mo: on `porf` its place
//! matters only to RMW atomicity, and no place splits an RMW there.
//!
//! So this is complete, for the ways the thread can run, exactly when the
//! program's other threads only write or do nothing, on a model whose read
//! candidates do not depend on mo or on the interleaving (the `porf` base).
//! It is not an explorer for programs in general: under any other model,
//! or with two threads that read, it leaves executions out.

use super::odometer::Odometer;
use super::Strategy;
use crate::event::{EventId, Op, ThreadId};
use crate::graph::ExecutionGraph;
use crate::model::MemoryModel;
use crate::sched::{RfChoice, ThreadStatus};

/// Depth-first enumeration of the distinct values of each read.
#[derive(Default)]
pub struct Values {
    /// The decisions of the current path.
    odometer: Odometer,
    /// The thread just scheduled, when its step is a plain load (whose
    /// choices may be told apart by value alone).
    load_of: Option<ThreadId>,
}

impl Values {
    /// A new enumerator.
    pub fn new() -> Values {
        Values::default()
    }

    fn decide(&mut self, n: usize) -> usize {
        self.odometer.decide(n)
    }
}

impl Strategy for Values {
    fn name(&self) -> &'static str {
        "values"
    }

    fn next_execution(&mut self, graph: &mut ExecutionGraph, _model: MemoryModel) -> bool {
        if !self.odometer.next_run() {
            return false;
        }
        self.load_of = None;
        graph.clear();
        true
    }

    fn schedule(&mut self, _g: &ExecutionGraph, enabled: &[ThreadId], status: &[ThreadStatus]) -> Option<ThreadId> {
        // The main thread while it can, then the newest thread (the writer).
        let t = match enabled.first() {
            Some(0) => 0,
            _ => *enabled.last()?,
        };
        self.load_of = matches!(status.get(t as usize), Some(ThreadStatus::Op(Op::Load { .. }, _))).then_some(t);
        Some(t)
    }

    fn choose_rf(&mut self, g: &ExecutionGraph, read: EventId, _s: u32, choices: &[RfChoice]) -> usize {
        // Only the step the schedule saw is known to be a plain load.
        if self.load_of.take() != Some(read.thread) {
            return self.decide(choices.len());
        }
        let Some(loc) = choices.first().and_then(|c| {
            if c.write.is_init() {
                // The initial write has no event: any non-initial choice
                // names the location; with none, there is one value.
                choices.iter().find(|c| !c.write.is_init()).map(|c| g.event(c.write))
            } else {
                Some(g.event(c.write))
            }
            .and_then(|e| e.as_write().map(|w| w.loc))
        }) else {
            return self.decide(choices.len());
        };
        // One choice per distinct value (a spurious failure apart).
        let mut firsts: Vec<usize> = Vec::with_capacity(choices.len());
        for (i, c) in choices.iter().enumerate() {
            let v = (g.write_value(loc, c.write), c.spurious);
            if !firsts
                .iter()
                .any(|&j| (g.write_value(loc, choices[j].write), choices[j].spurious) == v)
            {
                firsts.push(i);
            }
        }
        let k = self.decide(firsts.len());
        firsts[k]
    }

    fn choose_mo(&mut self, _g: &ExecutionGraph, _w: EventId, _s: u32, places: &[usize]) -> usize {
        places.len() - 1
    }
}
