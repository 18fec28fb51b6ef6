//! The parallel driver ([`run_parallel`]): one exhaustive exploration
//! shared by several OS threads through the work pool, their results
//! merged. Apart because it is the one part of the driver that crosses OS
//! threads; each explorer thread runs the ordinary loop.

use super::run::explore_with;
use super::{Program, RunConfig, RunResult, StopCause};
use crate::explore::{
    pool::{PoolStop, WorkPool},
    trust::Trust,
};
use std::sync::Arc;
use std::time::Instant;

/// Runs the exhaustive exploration of a program on `threads` OS threads
/// that share the work as it comes ([`WorkPool`]: an explorer gives the
/// oldest subtree it holds to one that waits), and merges their results:
/// the counts are exactly those of one exhaustive run. Each OS thread runs
/// the program it gets from `make` (called on that thread, once, when
/// the thread first gets work). `config.strategy` is ignored;
/// `max_executions` and `max_duration` bound the whole run.
pub fn run_parallel<P: Program>(config: &RunConfig, threads: usize, make: &(dyn Fn() -> P + Sync)) -> RunResult {
    if config.model.allows_porf_cycles() && config.porf_cycles {
        // The explorer counts each po ∪ rf-cyclic execution once by the
        // keys its one engine keeps (docs/c11-model.md section 4): two
        // explorers reaching the same one would both count it. Such a run
        // is explored by one explorer, on this thread.
        let one = RunConfig {
            strategy: super::StrategyChoice::Exhaustive,
            ..config.clone()
        };
        let strategy = super::strategy_for(&one).expect("the exhaustive strategy exists");
        return super::explore(&one, strategy, &mut make(), &mut |_, _| {});
    }
    let threads = threads.max(1);
    let start = Instant::now();
    let deadline = config.max_duration.and_then(|d| start.checked_add(d));
    let pool = Arc::new(WorkPool::new(threads, config.max_executions, deadline));
    // The preemption bound, as `run_with` applies it (the parallel
    // explorer is the exhaustive one).
    let bound = config.preemption_bound;
    let mut each = config.clone();
    each.max_executions = None;
    each.max_duration = None;
    // One explorer per OS thread; the calling thread is one of them.
    let explore = |pool: &Arc<WorkPool>, me: usize| {
        let mut mine: Vec<RunResult> = Vec::new();
        // Made when the first subtree comes, kept for the others.
        let mut program: Option<P> = None;
        while let Some(subtree) = pool.take(me) {
            let strategy = Box::new(Trust::worker(pool.clone(), subtree, me).with_bound(bound));
            // Each explorer also watches the pool's deadline inside its
            // executions: the pool itself only looks between them.
            let (r, cut) = explore_with(
                &each,
                deadline,
                strategy,
                program.get_or_insert_with(make),
                &mut |_, _| {},
            );
            if cut {
                pool.stop(PoolStop::Deadline);
            }
            if r.failures.len() >= each.max_failures {
                pool.stop(PoolStop::Failures);
            }
            mine.push(r);
        }
        mine
    };
    let results: Vec<RunResult> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads)
            .map(|me| {
                let (explore, pool) = (&explore, &pool);
                scope.spawn(move || explore(pool, me))
            })
            .collect();
        let mut all = explore(&pool, 0);
        for h in handles {
            match h.join() {
                Ok(r) => all.extend(r),
                Err(p) => std::panic::resume_unwind(p),
            }
        }
        all
    });
    let mut it = results.into_iter();
    let mut total = it.next().expect("the first subtree was explored");
    for r in it {
        total.merge(r);
    }
    total.failures.truncate(config.max_failures);
    total.elapsed = start.elapsed();
    if let Some(why) = pool.stop_reason() {
        total.complete = false;
        let cause = match why {
            PoolStop::Failures => StopCause::Failures(config.max_failures.max(1)),
            PoolStop::Executions(max) => StopCause::MaxExecutions(max),
            PoolStop::Deadline => StopCause::Deadline(config.max_duration.unwrap_or_default()),
        };
        total.incomplete_reason = Some(cause.to_string());
        total.stop = Some(cause);
    }
    total.strategy = "exhaustive (parallel)";
    total.preemption_bound = bound;
    total
}
