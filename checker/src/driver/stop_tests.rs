//! Each place the driver stops a run early sets its [`StopCause`], and the
//! run's `incomplete_reason` is that cause's text: one test per cause, on
//! scripted programs (`scripted.rs`), some wrapped to fail or to be cut.

use super::scripted::{Act, Scripted};
use super::{explore, run_parallel, strategy_for, Executed, Program, RunConfig, RunResult, StopCause, StrategyChoice};
use crate::engine::Engine;
use crate::event::Order::Relaxed;
use crate::failure::{Failure, FailureKind};
use crate::graph::ExecutionGraph;
use crate::model::MemoryModel;
use crate::outcome::Outcome;
use crate::sched::ExecutionEnd;
use std::time::Duration;

/// Store buffering, all relaxed: four executions under `rc11`.
fn sb() -> Scripted {
    Scripted {
        locs: 2,
        threads: vec![
            vec![Act::Store(0, 1, Relaxed), Act::Load(1, Relaxed)],
            vec![Act::Store(1, 1, Relaxed), Act::Load(0, Relaxed)],
        ],
    }
}

fn config(model: MemoryModel, strategy: StrategyChoice) -> RunConfig {
    RunConfig {
        model,
        strategy,
        ..RunConfig::default()
    }
}

fn run(config: &RunConfig, program: &mut dyn Program) -> RunResult {
    let strategy = strategy_for(config).expect("a strategy that exists");
    explore(config, strategy, program, &mut |_, _| {})
}

/// Checks that `r` stopped early for `cause` and says so in those words.
fn stopped(r: &RunResult, cause: StopCause) {
    assert!(!r.complete, "{r:?}");
    assert_eq!(r.incomplete_reason.as_deref(), Some(cause.to_string().as_str()));
    assert_eq!(r.stop, Some(cause));
}

/// A scripted program whose complete executions with an outcome `fails`
/// picks fail, as an assertion on what they read would; `midway` says the
/// failure stopped the execution while other threads could go on.
struct Failing {
    inner: Scripted,
    fails: fn(&Outcome) -> bool,
    midway: bool,
}

impl Program for Failing {
    fn execute(&mut self, engine: &mut Engine) -> Option<Executed> {
        let mut ran = self.inner.execute(engine)?;
        if ran.end == ExecutionEnd::Complete && (self.fails)(&ran.outcome) {
            let g = &engine.graph;
            let token = crate::token::encode(g, MemoryModel::Rc11);
            ran.end = ExecutionEnd::Failed;
            ran.failure = Some(Failure::new(FailureKind::Panic, "scripted".into(), g.clone(), token));
            ran.failed_midway = self.midway;
        }
        Some(ran)
    }
}

/// A program whose every execution the deadline cuts (what the runtime
/// answers when `Limits::deadline` passes inside an execution).
struct Cut;

impl Program for Cut {
    fn execute(&mut self, _: &mut Engine) -> Option<Executed> {
        None
    }
}

#[test]
fn a_complete_run_has_no_stop_cause() {
    let r = run(&config(MemoryModel::Rc11, StrategyChoice::Exhaustive), &mut sb());
    assert!(r.complete);
    assert_eq!(r.stats.complete, 4);
    assert_eq!((r.stop, r.incomplete_reason), (None, None));
}

#[test]
fn max_executions_is_the_executions_cap_with_its_value() {
    let mut c = config(MemoryModel::Rc11, StrategyChoice::Exhaustive);
    c.max_executions = Some(3);
    let r = run(&c, &mut sb());
    assert_eq!(r.stats.complete, 3);
    stopped(&r, StopCause::MaxExecutions(3));
    assert_eq!(r.incomplete_reason.as_deref(), Some("stopped after max_executions = 3"));
    // The parallel pool stops at the same cap, for the same cause.
    let p = run_parallel(&c, 2, &sb);
    assert_eq!(p.stats.complete, 3);
    stopped(&p, StopCause::MaxExecutions(3));
}

#[test]
fn a_deadline_between_executions_is_the_deadline() {
    let mut c = config(MemoryModel::Rc11, StrategyChoice::Exhaustive);
    c.max_duration = Some(Duration::ZERO);
    let r = run(&c, &mut sb());
    assert_eq!(r.stats.complete, 0);
    stopped(&r, StopCause::Deadline(Duration::ZERO));
}

#[test]
fn a_deadline_inside_an_execution_is_the_deadline() {
    let mut c = config(MemoryModel::Rc11, StrategyChoice::Exhaustive);
    c.max_duration = Some(Duration::from_secs(3600));
    let r = run(&c, &mut Cut);
    assert_eq!(r.stats.complete + r.stats.failed + r.stats.blocked, 0);
    stopped(&r, StopCause::Deadline(Duration::from_secs(3600)));
}

#[test]
fn failures_up_to_max_failures_are_the_failure_stop() {
    let mut c = config(MemoryModel::Rc11, StrategyChoice::Exhaustive);
    for max in [1, 2] {
        c.max_failures = max;
        let mut every = Failing {
            inner: sb(),
            fails: |_| true,
            midway: false,
        };
        let r = run(&c, &mut every);
        assert_eq!(r.failures.len(), max);
        stopped(&r, StopCause::Failures(max));
    }
    assert_eq!(
        StopCause::Failures(1).to_string(),
        "stopped at the first failure",
        "the text runs have always given"
    );
    assert_eq!(
        StopCause::Failures(2).to_string(),
        "stopped after 2 failures (max_failures = 2)"
    );
}

#[test]
fn failures_that_stopped_midway_leave_the_rest_unexplored() {
    let mut c = config(MemoryModel::Rc11, StrategyChoice::Exhaustive);
    c.max_failures = 10;
    // SB's one execution in which both loads read 0 fails midway.
    let mut one = Failing {
        inner: sb(),
        fails: |o| o.to_string() == "T1.1=0; T2.1=0",
        midway: true,
    };
    let r = run(&c, &mut one);
    assert_eq!((r.stats.complete, r.failures.len()), (3, 1));
    stopped(&r, StopCause::FailedMidway(1));
}

#[test]
fn a_replay_that_leaves_its_token_is_the_divergence() {
    // A token of SB's first execution, replayed on a program of one thread.
    let c = config(MemoryModel::Rc11, StrategyChoice::Exhaustive);
    let mut first: Option<ExecutionGraph> = None;
    explore(&c, strategy_for(&c).unwrap(), &mut sb(), &mut |g, _| {
        first.get_or_insert_with(|| g.clone());
    });
    let token = crate::token::encode(&first.expect("an execution"), MemoryModel::Rc11);
    let mut other = Scripted {
        locs: 1,
        threads: vec![vec![Act::Load(0, Relaxed)]],
    };
    let r = run(&config(MemoryModel::Rc11, StrategyChoice::Replay(token)), &mut other);
    assert!(r.replay_diverged);
    let divergence = r.replay_divergence.clone().expect("where it diverged");
    stopped(&r, StopCause::ReplayDiverged(divergence));
}

#[test]
fn a_shard_of_a_cyclic_model_keeps_to_the_acyclic_executions() {
    let r = run(
        &config(MemoryModel::C11, StrategyChoice::Shard { index: 0, count: 2 }),
        &mut sb(),
    );
    stopped(&r, StopCause::ShardAcyclicOnly);
}
