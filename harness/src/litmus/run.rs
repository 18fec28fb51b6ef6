//! Checking one litmus test: validation, the exploration, and what it found.

use super::ast::*;
use super::cyclic::{CyclicModel, Setup};
use super::filter::Filter;
use super::gpu_model::{self, GpuModel};
use super::interp::{condition_vars, holds, FinalState, Layout, Program};
use super::opencl;
use super::parser::{parse, ParseError};
use super::workgroups::WorkGroups;
use crate::model::Strategy;
use scopecheck_checker::event::{EventId, EventKind, SourceLoc};
use scopecheck_checker::explore::reference::canonical_key;
use scopecheck_checker::failure::FailureKind;
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::model::opencl::{check as opencl_check, Divergence};
use scopecheck_checker::{Failure, MemoryModel};
use scopecheck_instrument::rt::{self, RunConfig};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

mod options;
mod result;
mod validate;

pub use options::{CrossChecks, LitmusModel, Options};
pub use result::{TestError, TestResult};
pub(super) use validate::{validate, Front};

/// Parses and checks the litmus source `src`, read from `file`.
pub fn check_source(file: &str, src: &str, opts: &Options) -> Result<TestResult, TestError> {
    let test = parse(src).map_err(TestError::Parse)?;
    check_test(file, &test, opts)
}

/// Reads and checks the litmus file at `path`.
pub fn check_file(path: &std::path::Path, opts: &Options) -> Result<TestResult, TestError> {
    let src = super::limits::read_source(path)?;
    check_source(&path.display().to_string(), &src, opts)
}

/// Checks a parsed test.
///
/// A condition's `filter` drops the executions whose final state fails it
/// on every path (`filter.rs`).
pub fn check_test(file: &str, test: &Test, opts: &Options) -> Result<TestResult, TestError> {
    let model = opts.model.unwrap_or_else(|| LitmusModel::default_for(test.arch));
    // A PTX or Vulkan test runs under its dialect's models only, and those
    // models judge nothing else; its thread bodies are built here, where the
    // unroll bound is known.
    let expanded;
    let test = match (&test.gpu, model) {
        (Some(gpu), LitmusModel::Gpu(m)) if m.dialect() == gpu.dialect => {
            expanded = super::gpu::expand(test, opts.unroll);
            &expanded
        }
        (Some(gpu), _) => {
            let (dialect, models) = match gpu.dialect {
                super::gpu::Dialect::Ptx => ("PTX", "ptx6.0 or ptx7.5"),
                super::gpu::Dialect::Vulkan => ("Vulkan", "vulkan or vulkan-nochains"),
            };
            return Err(TestError::Unsupported {
                pos: Pos { line: 1, col: 1 },
                message: format!("a {dialect} test runs under {models}, not {model}"),
            });
        }
        (None, LitmusModel::Gpu(m)) => {
            return Err(TestError::Unsupported {
                pos: Pos { line: 1, col: 1 },
                message: format!(
                    "{} judges Dat3M's {} litmus tests only, not this one",
                    m.name(),
                    if m.dialect() == super::gpu::Dialect::Ptx {
                        "PTX"
                    } else {
                        "Vulkan"
                    }
                ),
            });
        }
        (None, _) => test,
    };
    let mut notes = validate(test, model, Front::Litmus)?;
    let layout = Layout::of(test).map_err(|(pos, message)| TestError::Invalid { pos, message })?;
    let observed = observed_vars(test);
    let file_static = leak_name(file);
    let groups = match model {
        LitmusModel::Engine(MemoryModel::Src11) => {
            WorkGroups::of(test, &layout).map_err(|(pos, message)| TestError::Invalid { pos, message })?
        }
        _ => None,
    };
    let prog = Program {
        test,
        layout: &layout,
        file: file_static,
        unroll: opts.unroll,
        discarded: Default::default(),
        observed: &observed,
        default_scope: match test.arch {
            Arch::C => scopecheck_checker::event::Scope::System,
            Arch::OpenCl => scopecheck_checker::event::Scope::Device,
            // The GPU models read scopes from the side table.
            Arch::Ptx | Arch::Vulkan => scopecheck_checker::event::Scope::System,
        },
        final_order: scopecheck_checker::event::Order::Relaxed,
        // Declarative models read the final state from the judged graph.
        opencl: matches!(model, LitmusModel::OpenCl | LitmusModel::Gpu(_)),
        ghost: Vec::new(),
        own_coherence: false,
        groups: groups.as_ref(),
        cross_checks: opts.cross_checks,
        split_rmws: None,
        cut_ways: None,
    };
    // The opencl model explores porf graphs and judges each complete one.
    let (engine_model, env) = match model {
        LitmusModel::Engine(m) => (m, None),
        LitmusModel::OpenCl => {
            let (env, declared) = opencl::env_of(test, &layout, file_static);
            notes.extend(declared);
            (MemoryModel::Porf, Some(Judge::OpenCl(env)))
        }
        LitmusModel::Gpu(m) => (MemoryModel::Porf, Some(Judge::Gpu(m, gpu_model::env_of(test)))),
    };
    let defaults = RunConfig::default();
    // Thread 0 allocates every location, spawns and joins every thread and
    // reads the final state: those steps are the test's size, not a loop,
    // and must not count against the bound that catches runaway threads.
    let setup_steps = layout.names.iter().map(|(_, n)| u64::from(*n)).sum::<u64>()
        + u64::from(groups.is_some())
        + 2 * test.threads.len() as u64
        + observed.len() as u64;
    let config = RunConfig {
        model: engine_model,
        strategy: opts.strategy.clone(),
        max_executions: opts.max_executions,
        max_duration: opts.max_duration,
        record_races: true,
        max_steps: defaults.max_steps.saturating_add(setup_steps),
        porf_cycles: opts.porf_cycles,
        ..defaults
    };
    // Models that allow cycles in po ∪ rf get them from the enumerator in
    // `cyclic.rs` (the explorers build po ∪ rf-acyclic graphs only); the
    // sampling strategies stay on the explorer.
    let cyclic = match (model, &env) {
        (LitmusModel::OpenCl, Some(Judge::OpenCl(env))) => Some(CyclicModel::OpenCl(env)),
        (LitmusModel::Engine(MemoryModel::C11), _) if opts.explorer_cycles => None,
        (LitmusModel::Engine(MemoryModel::C11), _) => Some(CyclicModel::C11),
        (LitmusModel::Gpu(m), Some(Judge::Gpu(_, env))) => Some(CyclicModel::Gpu(m, env)),
        _ => None,
    };
    if let Some(cm) =
        cyclic.filter(|_| opts.porf_cycles && matches!(opts.strategy, Strategy::Exhaustive | Strategy::Reference))
    {
        let mut prog = prog;
        let setup = Setup {
            file: file_static,
            model,
            notes,
            want_witness: opts.witness,
            filter: Filter::of(test),
        };
        let mut r = super::cyclic::result(&mut prog, cm, &config, setup);
        r.witness_sw = r
            .witness
            .as_ref()
            .and_then(|g| witness_sync(engine_model, env.as_ref(), g));
        return Ok(r);
    }
    struct Seen {
        states: BTreeMap<FinalState, u64>,
        positive: u64,
        negative: u64,
        witness: Option<(ExecutionGraph, FinalState)>,
        /// opencl: complete porf graphs the model rejects.
        rejected: u64,
        /// opencl: consistent graphs (distinct ones, for the reference enumerator).
        consistent: HashSet<String>,
        consistent_count: u64,
        /// opencl: consistent graphs with a race.
        racy: u64,
        races: Vec<Failure>,
        race_lines: HashSet<(SourceLoc, SourceLoc)>,
        divergence: BTreeSet<Divergence>,
        /// Executions the filter dropped (each interleaving of one graph,
        /// under the reference enumerator: the engine counted each blocked).
        filtered: u64,
        /// The distinct graphs among them, under the reference enumerator.
        filtered_distinct: HashSet<String>,
    }
    let filter = Filter::of(test);
    let seen = RefCell::new(Seen {
        states: BTreeMap::new(),
        positive: 0,
        negative: 0,
        witness: None,
        rejected: 0,
        consistent: HashSet::new(),
        consistent_count: 0,
        racy: 0,
        races: Vec::new(),
        race_lines: HashSet::new(),
        divergence: BTreeSet::new(),
        filtered: 0,
        filtered_distinct: HashSet::new(),
    });
    let distinct_only = matches!(opts.strategy, Strategy::Reference);
    let want_witness = opts.witness;
    let cond = test.condition.as_ref();
    let r = rt::run(&config, &|| {
        let state = prog.execute();
        // c11 judges a complete execution by axioms its construction could
        // not check (docs/c11-model.md), and one with promised reads (a
        // cycle in po ∪ rf) by whether they were kept; one it rejects did
        // not happen, and the engine counts it as blocked.
        if engine_model == MemoryModel::C11 && !rt::complete_execution_kept() {
            return;
        }
        // A sharded run (`--shard`) walks a few executions that another
        // shard counts (and a cyclic execution may come up twice): they
        // record nothing here.
        if !rt::execution_counts() {
            return;
        }
        let mut s = seen.borrow_mut();
        let mut judgement = None;
        if let Some(env) = &env {
            let g = rt::current_graph();
            let judged = match env {
                Judge::OpenCl(env) => opencl_check(&g, env).map_err(drop),
                Judge::Gpu(m, env) => gpu_model::judge(*m, env, &g)
                    .map(|races| scopecheck_checker::model::opencl::Judgement {
                        races,
                        ..Default::default()
                    })
                    .map_err(drop),
            };
            match judged {
                Err(()) => {
                    s.rejected += 1;
                    return;
                }
                Ok(j) => judgement = Some((g, j)),
            }
        }
        // herd's `filter` (filter.rs), asked once the model has kept the
        // execution: one whose final state fails it is dropped before
        // anything is recorded, and the engine ends it as blocked (so it
        // logs no race at its end either).
        if !filter.keeps(&state) {
            s.filtered += 1;
            if distinct_only {
                s.filtered_distinct.insert(canonical_key(&rt::current_graph()));
            }
            drop(s);
            rt::drop_execution();
            return;
        }
        if let Some((g, j)) = judgement {
            if distinct_only && !s.consistent.insert(canonical_key(&g)) {
                // The reference enumerator reaches a graph once per interleaving.
            } else {
                s.consistent_count += 1;
                if !j.races.is_empty() {
                    s.racy += 1;
                }
            }
            for (a, b) in j.races {
                let key = (g.event(a).src, g.event(b).src);
                if s.race_lines.insert(key) {
                    s.races.push(race_failure_under(&g, a, b, model));
                }
            }
            s.divergence.extend(j.divergence);
        }
        let sat = cond.is_none_or(|c| holds(&c.prop, &state));
        if sat {
            s.positive += 1;
        } else {
            s.negative += 1;
        }
        let is_witness = match cond.map(|c| c.quantifier) {
            Some(Quantifier::Exists) | Some(Quantifier::NotExists) => sat,
            Some(Quantifier::Forall) => !sat,
            None => false,
        };
        if want_witness && is_witness && s.witness.is_none() {
            s.witness = Some((rt::current_graph(), state.clone()));
        }
        *s.states.entry(state).or_insert(0) += 1;
    });
    let seen = seen.into_inner();
    let mut failures = r.failures;
    litmus_advice(&mut failures);
    // Every complete execution records exactly one final state (or, under
    // opencl, is rejected); a mismatch means the runtime and the interpreter
    // disagree about what finished.
    if seen.positive + seen.negative + seen.rejected != r.stats.complete && failures.is_empty() {
        return Err(TestError::Internal(format!(
            "{} executions completed but {} final states were recorded",
            r.stats.complete,
            seen.positive + seen.negative + seen.rejected
        )));
    }
    let (executions, blocked, mut races, racy_executions) = if env.is_some() {
        notes.extend(divergence_notes(test, &seen.divergence));
        (
            seen.consistent_count,
            r.stats.blocked - seen.filtered + seen.rejected,
            seen.races,
            seen.racy,
        )
    } else {
        (
            r.distinct.unwrap_or(r.stats.complete),
            r.stats.blocked - seen.filtered,
            r.races,
            r.racy_executions,
        )
    };
    litmus_advice(&mut races);
    let dropped = if distinct_only {
        seen.filtered_distinct.len() as u64
    } else {
        seen.filtered
    };
    notes.extend(filter.note(dropped));
    // Zero final states prove nothing either way (an `exists` would read
    // "No", a `~exists` "Ok", from executions that never happened).
    // (A shard may own no execution at all: it saw nothing to judge, and
    // says so as a shard, not here.)
    let runs = r.stats.complete + r.stats.blocked + r.stats.failed;
    let judged = seen.positive + seen.negative;
    // Under a GPU model a complete run may leave no execution at all (every
    // one hangs at a barrier, spins past --unroll or breaks an axiom): the
    // condition is then judged over none, as Dat3M does; so it is when the
    // filter dropped every execution (herd and Dat3M judge over the kept
    // ones, here none).
    let over_none =
        (matches!(model, LitmusModel::Gpu(_)) || seen.filtered > 0) && r.complete && failures.is_empty() && judged == 0;
    if over_none && runs > 0 && seen.filtered == 0 {
        notes.push(format!(
            "no execution finishes under {model} (each of the {runs} hangs at a barrier, spins past --unroll {} or \
             is inconsistent): the condition is judged over no execution",
            opts.unroll
        ));
    }
    if r.stats.cyclic_dropped > 0 {
        notes.push(format!(
            "{} execution(s) with a cycle in po ∪ rf left out: a promised read in each synchronizes, which the \
             explorer's race detection would not see (docs/c11-model.md section 4); the final states may lack theirs",
            r.stats.cyclic_dropped
        ));
    }
    let no_answer = (!over_none && failures.is_empty() && judged == 0 && (runs > 0 || !r.complete)).then(|| {
        if !r.complete {
            let why = r.incomplete_reason.as_deref().unwrap_or("the run was cut short");
            format!("no execution completed before a bound cut the run ({why}), so the condition is not judged")
        } else if prog.discarded.load(std::sync::atomic::Ordering::Relaxed) > 0 {
            format!(
                "no execution completed: every execution was discarded (a `while` loop needed more than --unroll {} \
                 iterations; raise --unroll), so the condition is not judged",
                opts.unroll
            )
        } else if seen.rejected > 0 {
            format!(
                "no execution completed consistently: the model rejected all {runs}, so the condition is not judged"
            )
        } else {
            format!("no execution completed: all {runs} were abandoned, so the condition is not judged")
        }
    });
    let (witness, witness_state) = match seen.witness {
        Some((g, s)) => (Some(g), Some(s)),
        None => (None, None),
    };
    Ok(TestResult {
        name: test.name.clone(),
        model,
        condition: test.condition.clone(),
        states: seen.states,
        positive: seen.positive,
        negative: seen.negative,
        executions,
        blocked,
        races,
        racy_executions,
        failures,
        complete: r.complete,
        incomplete_reason: r.incomplete_reason,
        shard: match opts.strategy {
            Strategy::Shard { index, count } => Some((index, count)),
            _ => None,
        },
        sampled: match &opts.strategy {
            Strategy::Random { seed, iterations } => Some(format!("{iterations} random executions, seed {seed}")),
            Strategy::Pct {
                seed,
                iterations,
                depth,
            } => Some(format!("{iterations} PCT executions of depth {depth}, seed {seed}")),
            Strategy::Replay(_) => Some("one replayed execution".into()),
            _ => None,
        },
        no_answer,
        witness_sw: witness
            .as_ref()
            .and_then(|g| witness_sync(engine_model, env.as_ref(), g)),
        witness,
        witness_state,
        elapsed: r.elapsed,
        notes,
        warnings: super::warnings::of(test),
        thread_names: test.threads.iter().map(|t| format!("P{}", t.index)).collect(),
        loc_names: loc_names(&layout),
        // The explorer's promised executions (`Options::explorer_cycles`);
        // 0 under every other model and strategy.
        porf_cyclic: r.stats.cyclic,
        porf_dropped: r.stats.cyclic_dropped,
    })
}

/// The variables of the final state: those the condition and the
/// `locations` clause name, in herd's order.
pub(super) fn observed_vars(test: &Test) -> Vec<StateVar> {
    test.condition
        .iter()
        .flat_map(condition_vars)
        .chain(test.locations.iter().cloned())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// The file name as events carry it (`&'static str`): leaked once per
/// distinct name, so that checking the same file (or a fuzzer's fixed name)
/// again and again does not grow memory.
pub(super) fn leak_name(file: &str) -> &'static str {
    static NAMES: std::sync::Mutex<BTreeSet<&'static str>> = std::sync::Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&n) = names.get(file) {
        return n;
    }
    let n: &'static str = Box::leak(file.to_string().into_boxed_str());
    names.insert(n);
    n
}

/// The litmus name of each location in allocation order (`x`, `y[1]`).
pub(super) fn loc_names(layout: &Layout) -> Vec<String> {
    layout
        .names
        .iter()
        .flat_map(|(n, len)| (0..*len).map(move |k| if *len == 1 { n.clone() } else { format!("{n}[{k}]") }))
        .collect()
}

/// The engine's advice for a runaway thread is for Rust programs
/// (`scopecheck::hint::spin_loop()`, `max_steps`), which a litmus test
/// cannot follow: it gets advice about what its commands have instead.
pub(super) fn litmus_advice(failures: &mut [Failure]) {
    // A barrier's fence, as a litmus test writes it.
    for f in failures.iter_mut() {
        let reworded = f.fix().and_then(|fix| {
            let (what, _) = fix.split_once(" (`FenceSpace::Both`")?;
            Some(format!(
                "{what} (`barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)`)"
            ))
        });
        if reworded.is_some() {
            f.set_fix(reworded);
        }
    }
    for f in failures.iter_mut().filter(|f| f.kind() == FailureKind::Runaway) {
        if let Some((what, _)) = f.message().split_once("; a loop that waits") {
            let message = format!(
                "{what}; a thread of a litmus test runs at most that many operations in one execution: a `while` \
                 loop runs at most `--unroll` iterations (lower it), or the thread is too long"
            );
            f.set_message(message);
        }
    }
}

/// A race of an opencl execution as a failure report, like the engine's.
pub(super) fn race_failure(g: &ExecutionGraph, a: EventId, b: EventId) -> Failure {
    race_failure_under(g, a, b, LitmusModel::OpenCl)
}

/// A race of a declarative model's execution (`model` words the reason).
pub(super) fn race_failure_under(g: &ExecutionGraph, a: EventId, b: EventId, model: LitmusModel) -> Failure {
    let (ea, eb) = (g.event(a), g.event(b));
    let atomic = |e: &scopecheck_checker::event::Event| match &e.kind {
        EventKind::Read(r) => r.order.is_atomic(),
        EventKind::Write(w) => w.order.is_atomic(),
        _ => false,
    };
    let (kind, what) = if matches!(model, LitmusModel::Gpu(_)) {
        (
            FailureKind::DataRace,
            "access the same location, one writes, they are not mutually ordered atomics and neither is \
             location-ordered before the other (vulkan `dr`: locord needs happens-before plus availability and \
             visibility for non-atomics)",
        )
    } else if atomic(ea) && atomic(eb) {
        (
            FailureKind::HeterogeneousRace,
            "are not scope-inclusive (opencl: the same scope, each in the other's group) and neither happens before the other",
        )
    } else {
        (
            FailureKind::DataRace,
            "conflict and neither happens before the other (ghb ∪ lhb)",
        )
    };
    let message = format!(
        "`{}` ({}) and `{}` ({}) {what}",
        ea.describe(),
        ea.src,
        eb.describe(),
        eb.src
    );
    Failure::race(kind, message, g, a, b, MemoryModel::Porf)
}

/// The judge of a declarative model's graphs.
enum Judge {
    OpenCl(scopecheck_checker::model::opencl::OpenClEnv),
    Gpu(GpuModel, scopecheck_checker::model::gpu::GpuEnv),
}

/// The sw edges of a witness under the model that judged it (the engine
/// model's own, or the `opencl` check's); `None` for the hardware models.
fn witness_sync(engine_model: MemoryModel, env: Option<&Judge>, g: &ExecutionGraph) -> Option<Vec<(EventId, EventId)>> {
    match env {
        None => engine_model.sync_edges(g),
        Some(Judge::OpenCl(env)) => opencl_check(g, env).ok().map(|j| j.sw),
        Some(Judge::Gpu(..)) => None,
    }
}

/// One note per barrier divergence the opencl model found, naming the test's
/// threads (engine thread t + 1 runs the test's t-th thread).
pub(super) fn divergence_notes<'a>(
    test: &'a Test,
    divergence: impl IntoIterator<Item = &'a Divergence> + 'a,
) -> impl Iterator<Item = String> + 'a {
    let pname = move |t: u32| {
        test.threads
            .get(t as usize - 1)
            .map_or(format!("thread {t}"), |th| format!("P{}", th.index))
    };
    divergence.into_iter().map(move |d| {
        format!(
            "barrier divergence: {} reaches barrier `{}` (occurrence {}) but {} of its work-group never does",
            pname(d.thread),
            d.label,
            d.occurrence,
            pname(d.missing)
        )
    })
}
