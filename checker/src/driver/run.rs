//! The loop over executions ([`explore`]): runs one execution of the
//! program after another under the engine until the strategy is done or a
//! bound is hit, collecting counts, failures, races and outcomes into a
//! [`RunResult`].

use super::strategy::bound_applies;
use super::{Program, RunConfig, RunResult, StopCause};
use crate::engine::{Engine, ExecutionEnd, Limits};
use crate::explore::Strategy;
use crate::graph::ExecutionGraph;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Explores `program` under `strategy` (made from `config` by
/// [`strategy_for`](super::strategy_for)) as `config` says, calling
/// `on_end` with the graph of every execution that ended (complete, failed
/// or blocked) and that the run owns, before the explorer moves on.
pub fn explore(
    config: &RunConfig,
    strategy: Box<dyn Strategy>,
    program: &mut dyn Program,
    on_end: &mut dyn FnMut(&ExecutionGraph, ExecutionEnd),
) -> RunResult {
    // A shard counts each po ∪ rf-cyclic execution (c11's promises) once
    // by keys of its own, so two shards reaching the same one would both
    // count it and their sum would be wrong: a shard keeps to the acyclic
    // executions, and says its part is incomplete.
    let sharded_cycles = matches!(config.strategy, super::StrategyChoice::Shard { .. })
        && config.model.allows_porf_cycles()
        && config.porf_cycles;
    let acyclic;
    let config = if sharded_cycles {
        acyclic = RunConfig {
            porf_cycles: false,
            ..config.clone()
        };
        &acyclic
    } else {
        config
    };
    let deadline = config.max_duration.and_then(|d| Instant::now().checked_add(d));
    let mut r = explore_with(config, deadline, strategy, program, on_end).0;
    r.preemption_bound = bound_applies(config);
    if sharded_cycles {
        r.complete = false;
        let cause = r.stop.get_or_insert(StopCause::ShardAcyclicOnly);
        r.incomplete_reason.get_or_insert_with(|| cause.to_string());
    }
    r
}

/// Why a run stopped at its time bound. Said the same way whether the
/// deadline passed between executions or inside one: the one it cut is
/// neither counted nor reported, so the counts are those of the executions
/// that finished.
pub fn deadline_reason(max: Duration) -> String {
    StopCause::Deadline(max).to_string()
}

/// [`explore`] with the run's deadline (`config.max_duration` is not looked
/// at). Also returns whether the deadline cut an execution.
pub(super) fn explore_with(
    config: &RunConfig,
    deadline: Option<Instant>,
    strategy: Box<dyn Strategy>,
    program: &mut dyn Program,
    on_end: &mut dyn FnMut(&ExecutionGraph, ExecutionEnd),
) -> (RunResult, bool) {
    let strategy_name = strategy.name();
    let mut engine = Engine::new(
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
    engine.set_platform(config.platform.clone());
    engine.set_progress(config.progress);
    let start = Instant::now();
    let mut failures = Vec::new();
    // Why the run stopped early, if it did (its text is the result's
    // `incomplete_reason`).
    let mut stop: Option<StopCause> = None;
    let mut executions = 0u64;
    let mut stray_failure: Option<String> = None;
    let mut cut = false;
    let mut failed_midway = 0u64;
    let mut outcomes = BTreeMap::new();
    loop {
        // The strategy is asked first: a run whose last execution was also
        // the last one a bound allowed is complete, not cut (the execution
        // it prepared is simply not run).
        if !engine.begin_execution() {
            break;
        }
        if let Some(max) = config.max_executions {
            if executions >= max {
                stop = Some(StopCause::MaxExecutions(max));
                break;
            }
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            stop = Some(StopCause::Deadline(config.max_duration.unwrap_or_default()));
            break;
        }
        executions += 1;
        let Some(ran) = program.execute(&mut engine) else {
            // The deadline passed inside the execution: it is dropped
            // without a verdict (not counted, not shown to `on_end`, no
            // failure), as if the run had stopped just before it.
            cut = true;
            stop = Some(StopCause::Deadline(config.max_duration.unwrap_or_default()));
            break;
        };
        // The model's verdict on the complete graph (`c11`, the hardware
        // models `ptx7.5` and `vulkan`, Vulkan's races), taken before the
        // callback and the outcome histogram see the execution: one the
        // model rejects did not happen (blocked).
        let (end, judged) = engine.judge_complete(ran.end);
        // (A failure of an execution the verdict turned to blocked, one
        // whose promised read was not kept, did not happen.)
        let failure = ran.failure.filter(|_| end != ExecutionEnd::Blocked).or(judged);
        let owned = engine.owns_execution();
        if owned {
            on_end(&engine.graph, end);
        }
        let distinct_before = engine.distinct_complete();
        engine.end_execution(end);
        if owned && end == ExecutionEnd::Complete {
            // A strategy that reaches a graph more than once (the reference
            // enumerator) counts each outcome once per distinct graph, as
            // it counts executions: the new graphs this execution gave (a
            // run with guessed reads may give several, or none new).
            let n = match (distinct_before, engine.distinct_complete()) {
                (Some(before), Some(after)) => after - before,
                _ => 1,
            };
            if n > 0 {
                *outcomes.entry(ran.outcome).or_default() += n;
            }
        }
        // A shard reports only the executions it owns (another shard
        // reports this one's failure).
        let failure = failure.filter(|_| owned);
        // A replay that left its token found no failure of the program: it
        // says where it diverged instead (with what stopped it, if anything).
        let failure = match failure {
            Some(fl) if engine.replay_diverged() => {
                stray_failure = Some(format!("{}: {}", fl.kind().name(), fl.message()));
                None
            }
            f => f,
        };
        if let Some(fl) = failure {
            failed_midway += u64::from(ran.failed_midway);
            failures.push(fl);
            if failures.len() >= config.max_failures {
                stop = Some(StopCause::Failures(failures.len()));
                break;
            }
        }
    }
    let (stats, distinct, diverged, divergence, races, racy_executions) = (
        engine.stats.clone(),
        engine.distinct_complete(),
        engine.replay_diverged(),
        engine.replay_divergence(),
        std::mem::take(&mut engine.races.distinct),
        engine.races.racy_executions,
    );
    let divergence = match (divergence, stray_failure) {
        (Some(d), Some(f)) => Some(format!("{d} (what stopped the program: {f})")),
        (d, _) => d,
    };
    if let Some(n) = engine.unsettled_rounds() {
        stop.get_or_insert(StopCause::UnsettledDomains(n));
    }
    // A replay that left its token covered nothing it meant to.
    if let Some(d) = &divergence {
        stop.get_or_insert_with(|| StopCause::ReplayDiverged(d.clone()));
    }
    // A failed execution stops where it failed: the systematic explorers
    // never see the events its other threads would have added next, so the
    // executions that extend it past that point (and the alternatives they
    // open) were not explored. Keeping on to `max_failures` covers the
    // rest of the tree, not those. (Under `record_races`, the litmus and
    // DRFrlx runs, a failure already decides the answer; they are left as
    // they were.)
    if failed_midway > 0 && !config.record_races && matches!(strategy_name, "exhaustive" | "reference") {
        stop.get_or_insert(StopCause::FailedMidway(failed_midway));
    }
    let result = RunResult {
        stats,
        distinct,
        failures,
        complete: stop.is_none(),
        incomplete_reason: stop.as_ref().map(ToString::to_string),
        stop,
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
