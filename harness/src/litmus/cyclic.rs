//! Litmus tests under the models that allow cycles in po ∪ rf (`c11`,
//! `opencl`): an enumerator that also finds the executions where a read
//! reads a write that is po ∪ rf-after it (load buffering).
//!
//! A stateless checker builds an execution one event at a time, so a read
//! can only read a write that exists. Here a read may instead take a
//! *promised* value, and the execution is kept only if, re-run with that
//! value, the program produces a write of it for the read to read:
//!
//! 1. Each location gets a value domain, at first its initial value and
//!    every constant of the test (see `constants`).
//! 2. The test runs on the engine's permissive `porf` base with one more
//!    thread, spawned after the test's, that stores every value of each
//!    location's domain (relaxed): a read that reads one of those stores
//!    took a promised value. Each distinct way the test's threads ran (the
//!    events and values of every thread, which the values its reads took
//!    decide) is kept once.
//! 3. For each, the extra thread is dropped and every read is given, in
//!    turn, every write of its location with the value it took (the
//!    initial write, a write of another thread, a write po-after it: the
//!    validation), and every location every order of its writes; each such
//!    graph is judged by the model's axioms, without acyclic(po ∪ rf).
//!    Distinct consistent graphs are the executions.
//! 4. The values the consistent executions write join the domains (run
//!    thread by thread, also the values of value-closed partial
//!    combinations, `cyclic/chains.rs`, so a value only a chain of writes
//!    across threads reaches is promised); when a domain grew, the test
//!    runs again (at most once per read it can make thread by thread,
//!    [`ROUNDS`] times all at once).
//!
//! Under C11, three shortcuts keep a thread that rewrites and rereads
//! memory of its own from multiplying its ways; each leaves out only
//! graphs C11's coherence rejects: a location only one thread reaches is
//! not promised (`cyclic/private.rs`), a run whose read reads a write its
//! own thread's earlier accesses hide is cut at the read
//! (`own_coherence.rs`), and the validation orders a thread's writes in po
//! and skips rf choices two po-ordered reads cannot make together
//! (`gpu_orders.rs`, `Rules::C`).
//!
//! A value that only a cycle of copies justifies (herd's symbolic `S8`: in
//! herd's `thinair`, each thread stores what it read from the other) could
//! be any value; the test's constants are in the domain, so those
//! instances are produced (thinair's x=42; y=42, which its condition asks
//! about), and no other: the outcome set is complete up to self-justifying
//! values other than the test's constants, and a test whose threads store
//! values they computed says so (docs/c11-model.md section 4).

use super::ast::{Expr, ExprKind, Prop, Stmt, StmtKind, Test, Value};
use super::gpu_cyclic::GpuJudge;
use super::gpu_free::{self, FreeReads};
use super::gpu_model::{self, GpuModel};
use super::interp::{FinalState, Program};
use super::unsequenced::Operands;
use scopecheck_checker::clock::Clock;
use scopecheck_checker::event::{EventId, EventKind, Loc, ThreadId};
use scopecheck_checker::explore::reference::canonical_key;
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::model::c11;
use scopecheck_checker::model::gpu::GpuEnv;
use scopecheck_checker::model::opencl::{self, OpenClEnv, Region};
use scopecheck_checker::MemoryModel;
use scopecheck_instrument::rt::{self, RunConfig, RunResult, StopCause, StrategyChoice};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::time::Instant;

mod chains;
mod domains;
mod private;
mod result;
mod rf_choices;
mod settle;
mod validation;

use domains::{constants, writes_computed_values};
pub use result::{result, Setup};
use settle::Settle;
use validation::{loc_of, validate, without_ghost, Kept, Tally};

/// The first pass over the combinations only counts the ways of a graph's
/// free reads (gpu_free.rs) when one syncbar choice has more than this,
/// building just a way that settles the condition and one that shows the
/// races: a run that cannot be complete (more executions than it keeps)
/// learns so after a few graphs and stops once the answer is proven; one
/// that can is enumerated again with every way built.
pub const DEFER_OVER: u64 = 64;

/// Runs of the test with a grown value domain, at most.
pub const ROUNDS: usize = 4;

/// Graphs (rf and mo choices) judged per run, at most.
pub const MAX_GRAPHS: u64 = 2_000_000;

/// Engine executions of one run with the promising thread, at most, when
/// `--max-executions` does not bound them (work cap: the promised values
/// multiply the executions of a generated program without bound).
pub const MAX_ENGINE_EXECUTIONS: u64 = 1_000_000;

/// Distinct ways the threads ran (each kept with its graph) per run, and
/// consistent executions kept, at most (memory cap).
pub const MAX_KEPT: usize = 20_000;

/// Why a run with the promising thread is incomplete when it stopped at
/// [`MAX_ENGINE_EXECUTIONS`] or kept [`MAX_KEPT`] ways; `None` otherwise.
pub fn work_cap(run: &RunResult, user_max: Option<u64>, kept: usize, what: &str) -> Option<String> {
    if kept >= MAX_KEPT {
        return Some(format!(
            "the po ∪ rf-cyclic enumeration's memory cap: {what} ran in {MAX_KEPT} distinct ways with the promised \
             values, and the rest were not validated; the outcome set is incomplete"
        ));
    }
    // The engine counts every execution it ran against the cap (blocked
    // ones and repeats too), so a run of mostly blocked executions stops
    // there with fewer complete ones; its stop cause names the cap.
    let at_cap = run.stats.complete >= MAX_ENGINE_EXECUTIONS
        || run.stop == Some(StopCause::MaxExecutions(MAX_ENGINE_EXECUTIONS));
    (!run.complete && user_max.is_none() && at_cap).then(|| {
        format!(
            "the po ∪ rf-cyclic enumeration's work cap: {what} ran {MAX_ENGINE_EXECUTIONS} executions with the \
             promised values without finishing; the outcome set is incomplete"
        )
    })
}

/// The model the graphs are judged by.
#[derive(Copy, Clone)]
pub enum CyclicModel<'a> {
    /// C11 (`c11.cat`).
    C11,
    /// OpenCL with the front end's side table.
    OpenCl(&'a OpenClEnv),
    /// A GPU hardware model with the test's side table (`gpu_cyclic.rs`).
    Gpu(GpuModel, &'a GpuEnv),
}

/// Whether a thread's accesses to one location are ordered by hb in
/// program order, for every location of the test: what the C11 shortcuts
/// (private locations, own_coherence.rs, `gpu_orders::Rules::C`) rest on.
/// Always under C11 (po ⊆ hb). Under OpenCL, hb holds po only between
/// accesses of one memory region (`opencl.cat`'s `ghb` and `lhb`), and a
/// location's accesses lie in its region (`opencl.rs`: the location's
/// declared region, as Dat3M reads it off the initial write): so when
/// every location is `global` or `local`, two accesses of one thread to
/// one location are hb-ordered and the coherence arguments hold as under
/// C11 (coherence, axiom 2, is checked against each region's hb; atomicity,
/// axiom 5, is C11's). A generic location (no qualifier) has no po in hb.
fn po_in_hb(model: &CyclicModel, layout: &super::interp::Layout) -> bool {
    match model {
        CyclicModel::C11 => true,
        CyclicModel::OpenCl(env) => {
            let mut seq = 0;
            layout.names.iter().all(|(_, n)| {
                (0..*n).all(|_| {
                    let loc = Loc::new(0, seq);
                    seq += 1;
                    env.locs.get(&loc).is_some_and(|i| i.region != Region::Generic)
                })
            })
        }
        CyclicModel::Gpu(..) => false,
    }
}

/// A racy execution: its index in [`Found::states`], its graph and its
/// racing pairs.
pub type RacyExecution = (usize, ExecutionGraph, Vec<(EventId, EventId)>);

/// What the enumeration found.
pub struct Found {
    /// Each consistent execution's final state, one entry per execution.
    pub states: Vec<FinalState>,
    /// One consistent graph per final state (for witnesses).
    pub graphs: Vec<ExecutionGraph>,
    /// Racing pairs of each racy execution, with its graph and its index
    /// in `states` (a `filter` drops the races of executions it drops).
    pub races: Vec<RacyExecution>,
    /// Barrier divergence found (opencl).
    pub divergence: BTreeSet<opencl::Divergence>,
    /// Graphs judged and rejected (with repetitions).
    pub rejected: u64,
    /// Executions (of the engine) whose cycle-free part failed, blocked, ...:
    /// the last run's result, for its failures and bounds.
    pub run: RunResult,
    /// Why the enumeration is not complete, if it is not.
    pub incomplete: Option<String>,
    /// Whether some thread stores a value it read (self-justifying values
    /// may exist and are not produced).
    pub copies: bool,
    /// Executions with a cycle in po ∪ rf.
    pub cyclic: u64,
}

/// The events of the test's threads with the values their reads took,
/// without what they read: executions with the same key differ only in rf
/// and mo, which step 3 enumerates anyway.
fn skeleton(g: &ExecutionGraph, threads: ThreadId) -> String {
    let mut s = String::new();
    for t in 1..=threads {
        for e in g.thread_events(t) {
            let d = e.describe();
            s.push_str(d.split(" (rf ").next().unwrap_or(&d));
            s.push(';');
        }
        s.push('\n');
    }
    s
}

/// How step 2 runs the test with the promising thread.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Step2 {
    /// Each thread alone with the promising thread (`gpu_split.rs`), every
    /// combination of one way per thread validated.
    ThreadByThread,
    /// All threads at once (every interleaving, rf and mo choice of all of
    /// them and the promising thread's stores).
    Whole,
}

/// Enumerates the executions of `prog` (whose `ghost` field it sets) under
/// `model`, with `config` (its model and strategy are replaced).
///
/// Step 2 runs thread by thread first: a thread's events and values depend
/// only on the values its own reads return, so running the threads at once
/// repeats the same per-thread ways over every interleaving and mo order of
/// the others (a three-thread C test ran 1,000,000 engine executions
/// without finishing; thread by thread it took 4 s). A thread alone can
/// read another thread's value only once it is in the domain, which the
/// rounds grow (docs/c11-model.md section 4 says when that is complete);
/// when they do not settle, or a budget of the split runs out, a C or
/// OpenCL test is enumerated again with all threads at once, so a test the
/// split cannot finish still gets the whole run's answer.
pub fn explore(prog: &mut Program, model: CyclicModel, config: &RunConfig) -> Found {
    let start = Instant::now();
    if prog.cross_checks.all_at_once {
        return explore_as(prog, model, config, Step2::Whole);
    }
    let split = explore_as(prog, model, config, Step2::ThreadByThread);
    let settled = split.incomplete.is_none() && split.run.complete;
    let out_of_time = config.max_duration.is_some_and(|d| start.elapsed() >= d);
    if settled || prog.test.gpu.is_some() || config.max_executions.is_some() || out_of_time {
        return split;
    }
    let config = RunConfig {
        max_duration: config.max_duration.map(|d| d.saturating_sub(start.elapsed())),
        ..config.clone()
    };
    explore_as(prog, model, &config, Step2::Whole)
}

/// [`explore`] with step 2 run as `step2` says.
fn explore_as(prog: &mut Program, model: CyclicModel, config: &RunConfig, step2: Step2) -> Found {
    // The optimal explorer drives the runs whatever the strategy asked:
    // the reference enumerator tries every interleaving of the promising
    // thread's stores too (minutes on a six-access test). What is
    // cross-checked instead: the executions found here without a cycle are
    // exactly the explorers' (tests/porf_cycles.rs).
    let strategy = StrategyChoice::Exhaustive;
    let deadline = config.max_duration.map(|d| Instant::now() + d);
    let threads = prog.test.threads.len() as ThreadId;
    let ghost_thread = threads + 1;
    let operands = match prog.test.gpu {
        None => Operands::of(prog.test),
        Some(_) => Operands::default(),
    };
    // C11's coherence forbids, whatever the other threads do, a read of a
    // write its own thread's earlier accesses hide: such runs are cut at
    // the read (own_coherence.rs). OpenCL's too when every location lies in
    // a memory region (`po_in_hb`); not the GPU models (not checked against
    // this argument). Only when po is all sequenced: the operands of one C
    // operator are not (unsequenced.rs), so an access may read its
    // thread's po-later write and both arguments fail.
    prog.own_coherence = po_in_hb(&model, prog.layout) && operands.none();
    let mut domain: Vec<(u32, u32, BTreeSet<u64>)> = Vec::new();
    for (k, (_, n)) in prog.layout.names.iter().enumerate() {
        for e in 0..*n {
            let init = prog.layout.init_word(k, e as usize);
            domain.push((k as u32, e, BTreeSet::from([init])));
        }
    }
    let inits: Vec<u64> = domain.iter().map(|(_, _, d)| *d.first().expect("init")).collect();
    let seeds = constants(prog.test);
    let writable = prog.test.gpu.as_ref().map(|_| super::gpu_cyclic::writable(prog.test));
    for (d, init) in domain.iter_mut().zip(&inits) {
        match writable
            .as_ref()
            .filter(|w| !w.contains_key(super::gpu_cyclic::DYNAMIC))
        {
            // A GPU test names its locations statically: promise only what
            // some write of the location can write, and only where it is read.
            Some(w) => match w.get(&prog.layout.names[d.0 as usize].0) {
                Some(w) if w.read && w.computed => d.2.extend(&seeds),
                Some(w) if w.read => d.2.extend(w.literals.iter().filter(|v| *v != init)),
                _ => {}
            },
            None => d.2.extend(&seeds),
        }
    }
    // The first round's domains: the constants a po ∪ rf cycle may justify
    // when the domains grow (chains.rs).
    let initial: Vec<BTreeSet<u64>> = domain.iter().map(|(_, _, d)| d.clone()).collect();
    let config = RunConfig {
        model: MemoryModel::Porf,
        strategy,
        ..config.clone()
    };
    // A C location only one thread can reach is never promised under C11,
    // nor under OpenCL when every location lies in a memory region
    // (private.rs: po ⊆ hb there, so no read reads its thread's later
    // write); a GPU test's promises are limited by `writable` above.
    let private: Vec<bool> = match (prog.test.gpu.as_ref(), model) {
        (None, CyclicModel::C11 | CyclicModel::OpenCl(_)) if prog.own_coherence => {
            let names = private::private_locations(prog.test);
            domain
                .iter()
                .map(|(b, _, _)| names.contains(&prog.layout.names[*b as usize].0))
                .collect()
        }
        _ => vec![false; domain.len()],
    };
    let mut round = 0;
    // Why the thread-by-thread runs left paths out (split_lost.rs): the
    // executions found are kept, but the result is not complete.
    let mut lost: Option<String> = None;
    loop {
        round += 1;
        prog.ghost = domain
            .iter()
            .zip(&inits)
            .zip(&private)
            .filter(|(_, private)| !**private)
            .map(|(((b, e, d), init), _)| (*b, *e, d.iter().copied().filter(|v| v != init).collect()))
            .collect();
        let p: &Program = prog;
        let config = RunConfig {
            max_duration: deadline.map(|d| d.saturating_duration_since(Instant::now())),
            ..config.clone()
        };
        let copies = writes_computed_values(prog.test);
        let mut seen: HashSet<String> = HashSet::new();
        let mut written: Vec<BTreeSet<u64>> = domain.iter().map(|(_, _, d)| d.clone()).collect();
        let max_kept = config.max_executions.map_or(MAX_KEPT, |m| (m as usize).min(MAX_KEPT));
        let mut tally = Tally {
            budget: MAX_GRAPHS,
            deadline,
            rejected: 0,
            sampled: None,
            counted: 0,
            cap: max_kept as u64,
            defer_over: DEFER_OVER,
            deferred: false,
        };
        // The second pass over the combinations, when the first deferred
        // some ways and did not stop (see `DEFER_OVER`).
        let second = std::cell::Cell::new(false);
        let again = std::cell::Cell::new(false);
        // The combinations (by their place in the order, the same in both
        // passes) whose ways the first pass deferred: only they are
        // validated again.
        let mut redo: HashSet<usize> = HashSet::new();
        let mut combination = 0;
        let mut states = Vec::new();
        let mut graphs: Vec<ExecutionGraph> = Vec::new();
        // Per kept graph, its races when the judge already gave them.
        let mut known_races: Vec<Option<Vec<(EventId, EventId)>>> = Vec::new();
        let mut cyclic = 0;
        let mut incomplete = None;
        // The early stop of a run known to be incomplete (see `Stop`).
        let settle = Settle::of(prog.test);
        let mut stop = Stop::new(&settle, model);
        // Validates one set of events; false once the enumeration must stop.
        let mut each = |base: &ExecutionGraph, state: &FinalState, free: Option<&FreeReads>| -> bool {
            if second.get() && tally.defer_over != u64::MAX {
                // Everything is built this time; what the first pass kept
                // is kept once (`seen`).
                tally.defer_over = u64::MAX;
                tally.counted = 0;
                tally.budget = MAX_GRAPHS;
                combination = 0;
            }
            combination += 1;
            if second.get() && !redo.contains(&combination) {
                // Every execution of this one was built in the first pass.
                return true;
            }
            let deferred_before = tally.deferred;
            tally.deferred = false;
            validate(
                prog,
                &operands,
                base,
                state,
                free,
                model,
                &mut tally,
                &settle,
                &mut |k: Kept| {
                    let g2 = k.graph;
                    if !seen.insert(canonical_key(g2)) {
                        return true;
                    }
                    for (i, (b, e, _)) in domain.iter().enumerate() {
                        let loc = loc_of(prog, g2, *b, *e);
                        if let Some(loc) = loc {
                            for &w in &g2.loc(loc).expect("loc").mo {
                                written[i].insert(g2.write_value(loc, w));
                            }
                        }
                    }
                    cyclic += k.cyclic as u64;
                    stop.saw(&k.state, k.races.as_deref());
                    states.push(k.state);
                    graphs.push(g2.clone());
                    known_races.push(k.races);
                    // Known incomplete: once the executions found prove
                    // the answer (and a race), the rest only add outcomes.
                    if k.doomed && stop.proven() {
                        return false;
                    }
                    // Past a cap the rest need not be judged (said below).
                    states.len() < max_kept
                },
            )
            .unwrap_or_else(|why| incomplete = Some(why));
            if let Some(max) = config.max_executions.filter(|&m| states.len() as u64 >= m) {
                incomplete = Some(format!("stopped after {max} executions (--max-executions)"));
            } else if states.len() >= MAX_KEPT {
                incomplete = Some(format!(
                    "the po ∪ rf-cyclic enumeration's memory cap: {MAX_KEPT} consistent executions kept, the rest \
                     not enumerated; the outcome set is incomplete"
                ));
            } else if (tally.sampled.is_some() || tally.counted > tally.cap) && stop.proven() {
                incomplete = Some(stop.reason(tally.sampled.as_deref(), tally.counted, tally.cap, states.len()));
            }
            if tally.deferred && !second.get() {
                redo.insert(combination);
            }
            tally.deferred |= deferred_before;
            again.set(tally.deferred && incomplete.is_none() && !second.get());
            incomplete.is_none()
        };
        // Thread by thread, the domains grow by the values of the
        // value-closed partial combinations of the threads' ways
        // (chains.rs), not only by the consistent executions': a thread
        // alone reads another's value only from the domain (see `explore`).
        let mut way_values: Option<Vec<BTreeSet<u64>>> = None;
        let mut not_grown: Option<String> = None;
        let run = if step2 == Step2::ThreadByThread {
            // Thread by thread (gpu_split.rs). Vulkan's free reads are given
            // their writes location by location (gpu_free.rs); PTX's
            // no-thin-air axiom reads rf.
            let vulkan = match model {
                CyclicModel::Gpu(m, env) if m.has_races() => Some(env),
                _ => None,
            };
            let runs = super::gpu_split::run_threads(p, &config, vulkan);
            if runs.run.complete && runs.run.failures.is_empty() {
                match chains::grown(prog, &runs, &domain, &inits, &initial) {
                    Ok(v) => way_values = Some(v),
                    Err(why) => not_grown = Some(why),
                }
            }
            lost = lost.or(runs.lost.clone());
            if runs.run.complete && runs.run.failures.is_empty() {
                let mut failed = runs
                    .combinations(ghost_thread, &mut |g, st, free| each(g, st, Some(free)))
                    .err();
                if failed.is_none() && again.get() {
                    second.set(true);
                    failed = runs
                        .combinations(ghost_thread, &mut |g, st, free| each(g, st, Some(free)))
                        .err();
                }
                if let Some(why) = failed {
                    incomplete = Some(why);
                }
            }
            runs.run
        } else {
            let runs: RefCell<HashMap<String, (ExecutionGraph, FinalState)>> = RefCell::new(HashMap::new());
            let capped = RunConfig {
                max_executions: Some(config.max_executions.unwrap_or(MAX_ENGINE_EXECUTIONS)),
                ..config.clone()
            };
            let mut run = rt::run(&capped, &|| {
                let state = p.execute();
                let g = rt::current_graph();
                let mut runs = runs.borrow_mut();
                if runs.len() < MAX_KEPT {
                    runs.entry(skeleton(&g, threads)).or_insert((g, state));
                }
            });
            let capped = work_cap(&run, config.max_executions, runs.borrow().len(), "the test");
            if let Some(why) = capped.clone() {
                // Past a cap the ways kept are an arbitrary part: nothing
                // is validated, and the result says why.
                run.complete = false;
                run.incomplete_reason = Some(why);
                runs.borrow_mut().clear();
            }
            let mut runs: Vec<(String, (ExecutionGraph, FinalState))> = runs.into_inner().into_iter().collect();
            runs.sort_by(|a, b| a.0.cmp(&b.0));
            for (_, (g, state)) in runs {
                if let Some(base) = without_ghost(&g, ghost_thread) {
                    if !each(&base, &state, None) {
                        break;
                    }
                }
            }
            run
        };
        if incomplete.is_none() {
            incomplete = tally.sampled.take().or(not_grown);
        }
        for (w, v) in written.iter_mut().zip(way_values.into_iter().flatten()) {
            w.extend(v);
        }
        let mut found = Found {
            states,
            graphs,
            races: Vec::new(),
            divergence: BTreeSet::new(),
            rejected: 0,
            run,
            incomplete,
            copies,
            cyclic,
        };
        found.rejected = tally.rejected;
        // Judge again for races and divergence (a GPU judge gave the races
        // already).
        for (i, g2) in found.graphs.iter().enumerate() {
            if let Some(r) = known_races[i].take() {
                if !r.is_empty() {
                    found.races.push((i, g2.clone(), r));
                }
                continue;
            }
            let unsequenced = operands.pairs(g2, threads);
            match model {
                CyclicModel::C11 => {
                    let r = c11::races_unsequenced(g2, &unsequenced);
                    if !r.is_empty() {
                        found.races.push((i, g2.clone(), r));
                    }
                }
                CyclicModel::OpenCl(env) => {
                    if let Ok(j) = opencl::check_unsequenced(g2, env, &unsequenced) {
                        if !j.races.is_empty() {
                            found.races.push((i, g2.clone(), j.races));
                        }
                        found.divergence.extend(j.divergence);
                    }
                }
                CyclicModel::Gpu(m, env) => match gpu_model::judge(m, env, g2) {
                    Ok(r) if !r.is_empty() => found.races.push((i, g2.clone(), r)),
                    _ => {}
                },
            }
        }
        let grown = written.iter().zip(&domain).any(|(w, (_, _, d))| w != d);
        if !grown || found.incomplete.is_some() || !found.run.complete || !found.run.failures.is_empty() {
            if found.incomplete.is_none() {
                found.incomplete = lost;
            }
            return found;
        }
        // Thread by thread, one round per read a chain may pass a value
        // through; a domain that still grows then is a value computed
        // without bound: a C or OpenCL test is run whole instead (with its
        // consistent-only growth), see `explore`.
        let last = match step2 {
            Step2::ThreadByThread => chains::rounds(prog.test, prog.unroll),
            Step2::Whole => ROUNDS,
        };
        if round == last {
            found.incomplete = Some(format!(
                "the values po ∪ rf cycles can justify did not settle in {last} rounds (a value computed from \
                 a value read grows without bound)"
            ));
            return found;
        }
        for (d, w) in domain.iter_mut().zip(written) {
            d.2 = w;
        }
    }
}

/// When a run known to be incomplete stops: once the executions found
/// settle the condition ([`Settle`]; a test without one has nothing to
/// prove) and, under a model with races (Vulkan), one of them races, so
/// that the verdict and `race_free` of the partial run are both proven.
struct Stop<'a> {
    settle: &'a Settle<'a>,
    settled: bool,
    racy: bool,
    races_matter: bool,
}

impl<'a> Stop<'a> {
    fn new(settle: &'a Settle<'a>, model: CyclicModel) -> Stop<'a> {
        Stop {
            settle,
            settled: !settle.has_condition(),
            racy: false,
            races_matter: matches!(model, CyclicModel::Gpu(m, _) if m.has_races()),
        }
    }

    /// Records one execution found (its races when known).
    fn saw(&mut self, state: &FinalState, races: Option<&[(EventId, EventId)]>) {
        if !self.settled && self.settle.full(state) {
            self.settled = true;
            self.settle.found();
        }
        self.racy = self.racy || races.is_some_and(|r| !r.is_empty());
    }

    /// Whether the executions found prove the answer and the race verdict.
    fn proven(&self) -> bool {
        self.settled && (self.racy || !self.races_matter)
    }

    /// The incomplete reason of a run that stopped early.
    fn reason(&self, sampled: Option<&str>, counted: u64, cap: u64, built: usize) -> String {
        let why = match sampled {
            Some(why) => why.to_string(),
            None => format!(
                "the free non-atomic reads give at least {counted} consistent executions, more than the {cap} the \
                 enumeration keeps; the outcome set is incomplete"
            ),
        };
        let what = match (self.settle.has_condition(), self.races_matter) {
            (true, true) => "the condition's answer and a race",
            (true, false) => "the condition's answer",
            _ => "a race",
        };
        format!(
            "{why}; the enumeration stopped once the {built} execution{} built proved {what} (the others were not \
             built)",
            if built == 1 { "" } else { "s" }
        )
    }
}
