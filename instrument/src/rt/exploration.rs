//! The exploration loop: [`run`] and [`run_with`] set up the thread-local
//! state (and clear it however the run ends), then run one execution after
//! another under the engine until the strategy is done or a bound is hit,
//! collecting counts, failures, races and outcomes into a [`RunResult`].
//! Apart from the coroutine plumbing, which runs one execution.

use super::{
    bound_applies, cells, epoch, leaks, make_strategy, overflow, panic_hook, run_one, stacks, teardown, with_shared,
    RunConfig, RunResult, Shared, Threads, CURRENT, SHARED, YIELDERS,
};
use scopecheck_checker::engine::{ExecutionEnd, Limits};
use scopecheck_checker::explore::Strategy;
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::Engine;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Clears the thread-local state even if the run panics.
pub(super) struct StateGuard;

impl Drop for StateGuard {
    fn drop(&mut self) {
        // Taken out first and dropped outside the borrow; bodies of threads
        // never started are user code, abandoned like the rest.
        if let Some(mut shared) = SHARED.with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.take())) {
            teardown::abandon_bodies(std::mem::take(&mut shared.spawned));
        }
        CURRENT.with(|c| c.set(None));
        YIELDERS.with(|y| y.borrow_mut().clear());
        epoch::leave();
        panic_hook::leave_model();
    }
}

/// Panics with a clear error if a model already runs on this OS thread
/// (the calling code is a model thread, or the checker's own callback):
/// `entry` names what the program called. Every entry point calls this
/// before it touches any state (a nested run would take over the outer
/// run's thread-local state and corrupt it).
#[track_caller]
pub fn check_not_nested(entry: &str) {
    let running = CURRENT.with(|c| c.get().is_some()) || SHARED.with(|s| s.try_borrow().map_or(true, |s| s.is_some()));
    if running {
        panic!(
            "scopecheck: `{entry}` was called inside another model; nested models are not supported (run \
             the inner check as its own test)"
        );
    }
}

/// Runs `f` under the checker as `config` says.
///
/// # Panics
/// With a clear message when called inside another model, or with a
/// malformed replay token.
pub fn run(config: &RunConfig, f: &dyn Fn()) -> RunResult {
    run_with(config, f, &mut |_, _| {})
}

/// Like [`run`], calling `on_end` with the graph of every execution that
/// ended (complete, failed or blocked), before the explorer moves on. The
/// callback must not use the shim.
///
/// # Panics
/// As [`run`].
pub fn run_with(config: &RunConfig, f: &dyn Fn(), on_end: &mut dyn FnMut(&ExecutionGraph, ExecutionEnd)) -> RunResult {
    check_not_nested("scopecheck::model");
    let strategy = match make_strategy(&config.strategy, bound_applies(config)) {
        Ok(s) => s,
        Err(e) => panic!("scopecheck: {e}"),
    };
    let deadline = config.max_duration.and_then(|d| Instant::now().checked_add(d));
    let mut r = run_strategy(config, deadline, strategy, f, on_end).0;
    r.preemption_bound = bound_applies(config);
    r
}

/// Why a run stopped at its time bound. Said the same way whether the
/// deadline passed between executions or inside one: the one it cut is
/// neither counted nor reported, so the counts are those of the executions
/// that finished.
pub(super) fn deadline_reason(max: Duration) -> String {
    format!("stopped after max_duration = {max:?} (an execution the deadline cut is not counted)")
}

/// [`run_with`] with a strategy made by the caller (`config.strategy` is
/// not looked at) and the run's deadline (`config.max_duration` is not
/// looked at either). Also returns whether the deadline cut an execution.
pub(super) fn run_strategy(
    config: &RunConfig,
    deadline: Option<Instant>,
    strategy: Box<dyn Strategy>,
    f: &dyn Fn(),
    on_end: &mut dyn FnMut(&ExecutionGraph, ExecutionEnd),
) -> (RunResult, bool) {
    // The first stack is mapped before any model state exists: a
    // `stack_size` that cannot be mapped is the user's setting, refused
    // plainly (not a panic inside the model labelled as the checker's).
    let mut pool = stacks::Pool::new(config.stack_size).unwrap_or_else(|e| panic!("{e}"));
    let strategy_name = strategy.name();
    let engine = Engine::new(
        config.model,
        strategy,
        Limits {
            max_steps: config.max_steps,
            record_races: config.record_races,
            deadline,
            max_branches: config.max_branches,
            porf_cycles: config.porf_cycles,
        },
    );
    let mut engine = engine;
    engine.set_platform(config.platform.clone());
    engine.set_progress(config.progress);
    SHARED.with(|s| {
        *s.borrow_mut() = Some(Shared {
            engine,
            stop: None,
            spawned: Vec::new(),
            status: Vec::new(),
            unstarted: 0,
            leaks: leaks::Leaks::default(),
            execution: 0,
            live_cells: cells::LiveCells::default(),
            threads_made: 1,
            max_threads: config.max_threads,
        })
    });
    let _guard = StateGuard;
    panic_hook::enter_model();
    overflow::prepare_thread(config.stack_size);
    let mut threads = Threads {
        coroutines: Vec::new(),
        guards: Vec::new(),
        decision: None,
        failed_midway: false,
    };
    let start = Instant::now();
    let mut failures = Vec::new();
    let mut incomplete_reason = None;
    let mut executions = 0u64;
    let mut stray_failure: Option<String> = None;
    let mut cut = false;
    let mut failed_midway = 0u64;
    let mut outcomes = BTreeMap::new();
    let run_id = epoch::new_run();
    loop {
        // The strategy is asked first: a run whose last execution was also
        // the last one a bound allowed is complete, not cut (the execution
        // it prepared is simply not run).
        if !with_shared(|s| s.engine.begin_execution()) {
            break;
        }
        if let Some(max) = config.max_executions {
            if executions >= max {
                incomplete_reason = Some(format!("stopped after max_executions = {max}"));
                break;
            }
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            incomplete_reason = Some(deadline_reason(config.max_duration.unwrap_or_default()));
            break;
        }
        executions += 1;
        epoch::enter(run_id, executions);
        let Some((end, failure)) = run_one(f, &mut pool, &mut threads) else {
            // The deadline passed inside the execution: it is dropped
            // without a verdict (not counted, not shown to `on_end`, no
            // failure), as if the run had stopped just before it.
            cut = true;
            incomplete_reason = Some(deadline_reason(config.max_duration.unwrap_or_default()));
            break;
        };
        let (owned, end, failure) = with_shared(|s| {
            // The model's verdict on the complete graph (`c11`, the hardware
            // models `ptx7.5` and `vulkan`, Vulkan's races), taken before the
            // callback and the outcome histogram see the execution: one the
            // model rejects did not happen (blocked).
            let (end, judged) = s.engine.judge_complete(end);
            // (A failure of an execution the verdict turned to blocked, one
            // whose promised read was not kept, did not happen.)
            let failure = failure.filter(|_| end != ExecutionEnd::Blocked).or(judged);
            let owned = s.engine.owns_execution();
            if owned {
                on_end(&s.engine.graph, end);
            }
            s.engine.end_execution(end);
            (owned, end, failure)
        });
        // Taken after every execution, so none sees another's records.
        let recorded = crate::gpu_record::take();
        if owned && end == ExecutionEnd::Complete {
            *outcomes.entry(recorded).or_default() += 1;
        }
        // A shard reports only the executions it owns (another shard
        // reports this one's failure).
        let failure = failure.filter(|_| owned);
        // A replay that left its token found no failure of the program: it
        // says where it diverged instead (with what stopped it, if anything).
        let failure = match failure {
            Some(fl) if with_shared(|s| s.engine.replay_diverged()) => {
                stray_failure = Some(format!("{}: {}", fl.kind().name(), fl.message()));
                None
            }
            f => f,
        };
        if let Some(fl) = failure {
            failed_midway += u64::from(threads.failed_midway);
            failures.push(fl);
            if failures.len() >= config.max_failures {
                incomplete_reason = Some("stopped at the first failure".into());
                break;
            }
        }
    }
    let (stats, distinct, diverged, divergence, races, racy_executions) = with_shared(|s| {
        (
            s.engine.stats.clone(),
            s.engine.distinct_complete(),
            s.engine.replay_diverged(),
            s.engine.replay_divergence(),
            std::mem::take(&mut s.engine.races.distinct),
            s.engine.races.racy_executions,
        )
    });
    let divergence = match (divergence, stray_failure) {
        (Some(d), Some(f)) => Some(format!("{d} (what stopped the program: {f})")),
        (d, _) => d,
    };
    // A replay that left its token covered nothing it meant to.
    if let Some(d) = &divergence {
        incomplete_reason.get_or_insert_with(|| d.clone());
    }
    // A failed execution stops where it failed: the systematic explorers
    // never see the events its other threads would have added next, so the
    // executions that extend it past that point (and the alternatives they
    // open) were not explored. Keeping on to `max_failures` covers the
    // rest of the tree, not those. (Under `record_races`, the litmus and
    // DRFrlx runs, a failure already decides the answer; they are left as
    // they were.)
    if failed_midway > 0 && !config.record_races && matches!(strategy_name, "exhaustive" | "reference") {
        incomplete_reason.get_or_insert_with(|| {
            format!(
                "{failed_midway} failed execution(s) stopped at their failure while other threads could go on: \
                 the executions that extend them past it were not explored"
            )
        });
    }
    let result = RunResult {
        stats,
        distinct,
        failures,
        complete: incomplete_reason.is_none(),
        incomplete_reason,
        elapsed: start.elapsed(),
        strategy: strategy_name,
        replay_diverged: diverged,
        replay_divergence: divergence,
        races,
        racy_executions,
        outcomes,
        preemption_bound: None,
    };
    (result, cut)
}
