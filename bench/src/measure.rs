//! Running one program under one tool in this process and measuring it.

use crate::cli::Options;
use crate::counters::closure_runs;
use crate::counters::count_run;
use crate::counters::record_outcome;
use crate::counters::reset_closure_runs;
use crate::counters::FORBIDDEN;
use crate::programs::Program;
use crate::row::Problem;
use crate::row::Row;
use crate::tools::Tool;
use std::panic::catch_unwind;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering as StdOrdering;
use std::time::Instant;

/// VmHWM from /proc/self/status, in kB: the process's peak resident set size
/// (a high-water mark over the process's whole life).
pub fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".to_string()
    }
}

pub(crate) fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Runs `program` under `tool` in this process and measures it. Not
/// reentrant: the closure counters are process-wide.
pub fn run_one(program: Program, tool: Tool, opts: &Options) -> Row {
    reset_closure_runs();
    FORBIDDEN.store(0, StdOrdering::Relaxed);
    let mut problem = None;
    let start = Instant::now();
    let mut executions = match tool {
        Tool::ScopecheckExhaustive | Tool::ScopecheckRandom | Tool::ScopecheckParallel | Tool::ScopecheckPct => {
            let mut b = scopecheck::Builder::new();
            b.model = opts.memory_model;
            if matches!(tool, Tool::ScopecheckExhaustive | Tool::ScopecheckParallel) {
                b.max_executions = opts.max_executions;
            }
            b.strategy = match tool {
                Tool::ScopecheckRandom => scopecheck::Strategy::Random {
                    seed: opts.seed,
                    iterations: opts.iterations,
                },
                Tool::ScopecheckPct => scopecheck::Strategy::Pct {
                    seed: opts.seed,
                    iterations: opts.iterations,
                    depth: 3,
                },
                _ => scopecheck::Strategy::Exhaustive,
            };
            let body = || {
                count_run();
                record_outcome(program.run_scopecheck());
            };
            let report = if tool == Tool::ScopecheckParallel {
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                b.explore_parallel(cores, body)
            } else {
                b.explore(body)
            };
            if let Some(f) = report.failures().first() {
                problem = Some(Problem::Failed(format!(
                    "{}: {}",
                    f.kind().name(),
                    first_line(f.message())
                )));
            } else if !report.is_complete() && opts.max_executions.is_none() {
                problem = Some(Problem::Failed(format!(
                    "incomplete: {}",
                    report.incomplete_reason().unwrap_or("no reason given")
                )));
            }
            if matches!(tool, Tool::ScopecheckExhaustive | Tool::ScopecheckParallel) {
                report.executions()
            } else {
                report.runs()
            }
        }
        Tool::Loom => {
            // loom::MAX_THREADS counts the main thread.
            if program.spawned_threads() + 1 > loom::MAX_THREADS {
                problem = Some(Problem::NotRun(format!(
                    "{} threads with main > loom::MAX_THREADS = {}",
                    program.spawned_threads() + 1,
                    loom::MAX_THREADS
                )));
            } else {
                let builder = loom::model::Builder::new();
                let result = catch_unwind(AssertUnwindSafe(|| {
                    builder.check(move || {
                        count_run();
                        record_outcome(program.run_loom());
                    })
                }));
                if let Err(p) = result {
                    problem = Some(Problem::Failed(format!(
                        "panicked: {}",
                        first_line(&panic_message(&*p))
                    )));
                }
            }
            closure_runs()
        }
        Tool::Shuttle | Tool::ShuttlePct => {
            let iterations = opts.iterations as usize;
            let body = move || {
                count_run();
                record_outcome(program.run_shuttle());
            };
            let result = catch_unwind(AssertUnwindSafe(|| {
                if tool == Tool::Shuttle {
                    shuttle::check_random(body, iterations)
                } else {
                    shuttle::check_pct(body, iterations, 3)
                }
            }));
            if let Err(p) = result {
                problem = Some(Problem::Failed(format!(
                    "panicked: {}",
                    first_line(&panic_message(&*p))
                )));
            }
            opts.iterations
        }
    };
    let wall = start.elapsed();
    let closure_runs = closure_runs();
    if matches!(tool, Tool::Shuttle | Tool::ShuttlePct) && problem.is_some() {
        executions = closure_runs;
    }
    Row {
        program,
        tool,
        executions,
        closure_runs,
        forbidden: FORBIDDEN.load(StdOrdering::Relaxed),
        wall,
        vm_hwm_kb: peak_rss_kb(),
        problem,
    }
}
