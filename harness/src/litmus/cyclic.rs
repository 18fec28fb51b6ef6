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
//! 4. The values the consistent executions write join the domains; when a
//!    domain grew, the test runs again (at most [`ROUNDS`] times).
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
use scopecheck_checker::model::opencl::{self, OpenClEnv};
use scopecheck_checker::MemoryModel;
use scopecheck_instrument::rt::{self, RunConfig, RunResult, StrategyChoice};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::time::Instant;

/// Runs of the test with a grown value domain, at most.
pub const ROUNDS: usize = 4;

/// Rounds of a C or OpenCL test's thread-by-thread enumeration, at most
/// (its domains grow by every value a thread can write, so a computed
/// value that grows shows in the second round).
pub const SPLIT_ROUNDS: usize = 2;

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
    (!run.complete && user_max.is_none() && run.stats.complete >= MAX_ENGINE_EXECUTIONS).then(|| {
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

/// Whether the test writes a value that is not a literal (a store's value
/// or an RMW's operand): only such a write can pass on a value it read, so
/// only then can a cycle of copies justify a value by itself.
fn writes_computed_values(test: &Test) -> bool {
    fn literal(e: &Expr) -> bool {
        matches!(e.kind, ExprKind::Int(_))
    }
    fn in_expr(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Atomic(c) => {
                let operands = match c.args.as_slice() {
                    // compare-exchange: [expected address, desired]
                    [_, desired] => std::slice::from_ref(desired),
                    all => all,
                };
                operands.iter().any(|a| !literal(a) || in_expr(a)) || in_expr(&c.addr)
            }
            ExprKind::Deref(a) | ExprKind::Unary(_, a) => in_expr(a),
            ExprKind::Index(a, b) => in_expr(a) || in_expr(b),
            ExprKind::Binary(a, rest) => in_expr(a) || rest.iter().any(|(_, b)| in_expr(b)),
            ExprKind::Int(_) | ExprKind::Var(_) | ExprKind::AddrOf(_) => false,
        }
    }
    fn in_stmts(ss: &[Stmt]) -> bool {
        ss.iter().any(|s| match &s.kind {
            StmtKind::Store { value, addr } => !literal(value) || in_expr(value) || in_expr(addr),
            StmtKind::Decl { init: Some(e), .. } | StmtKind::AssignReg { value: e, .. } | StmtKind::Expr(e) => {
                in_expr(e)
            }
            StmtKind::If { cond, then, els } => in_expr(cond) || in_stmts(then) || in_stmts(els),
            StmtKind::While { cond, body } => in_expr(cond) || in_stmts(body),
            _ => false,
        })
    }
    test.threads.iter().any(|t| in_stmts(&t.body))
}

/// The integer constants of the test: literals in its threads and the
/// values its condition compares with. A cycle in po ∪ rf can justify a
/// constant the program writes only under a condition that the cycle
/// itself satisfies (`if (r == 1) y = 1;` both ways); such a value is never
/// written first without the cycle, so the domain starts with every
/// constant (values no execution writes are dropped by the validation).
fn constants(test: &Test) -> BTreeSet<u64> {
    fn expr(e: &Expr, out: &mut BTreeSet<u64>) {
        match &e.kind {
            ExprKind::Int(i) => {
                out.insert(*i as u64);
            }
            ExprKind::Atomic(c) => {
                expr(&c.addr, out);
                c.args.iter().for_each(|a| expr(a, out));
            }
            ExprKind::Deref(a) | ExprKind::Unary(_, a) => expr(a, out),
            ExprKind::Index(a, b) => {
                expr(a, out);
                expr(b, out);
            }
            ExprKind::Binary(a, rest) => {
                expr(a, out);
                rest.iter().for_each(|(_, b)| expr(b, out));
            }
            ExprKind::Var(_) | ExprKind::AddrOf(_) => {}
        }
    }
    fn stmts(ss: &[Stmt], out: &mut BTreeSet<u64>) {
        for s in ss {
            match &s.kind {
                StmtKind::Store { value, addr } => {
                    expr(value, out);
                    expr(addr, out);
                }
                StmtKind::Decl { init: Some(e), .. } | StmtKind::AssignReg { value: e, .. } | StmtKind::Expr(e) => {
                    expr(e, out)
                }
                StmtKind::If { cond, then, els } => {
                    expr(cond, out);
                    stmts(then, out);
                    stmts(els, out);
                }
                StmtKind::While { cond, body } => {
                    expr(cond, out);
                    stmts(body, out);
                }
                _ => {}
            }
        }
    }
    fn prop(p: &Prop, out: &mut BTreeSet<u64>) {
        match p {
            Prop::Eq(_, Value::Int(i)) | Prop::Ne(_, Value::Int(i)) => {
                out.insert(*i as u64);
            }
            Prop::Not(a) => prop(a, out),
            Prop::And(all) | Prop::Or(all) => all.iter().for_each(|a| prop(a, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for t in &test.threads {
        stmts(&t.body, &mut out);
    }
    if let Some(c) = &test.condition {
        prop(&c.prop, &mut out);
        if let Some(f) = &c.filter {
            prop(f, &mut out);
        }
    }
    out
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
    let config = RunConfig {
        model: MemoryModel::Porf,
        strategy,
        ..config.clone()
    };
    let mut round = 0;
    loop {
        round += 1;
        prog.ghost = domain
            .iter()
            .zip(&inits)
            .map(|((b, e, d), init)| (*b, *e, d.iter().copied().filter(|v| v != init).collect()))
            .collect();
        let p: &Program = prog;
        let config = RunConfig {
            max_duration: deadline.map(|d| d.saturating_duration_since(Instant::now())),
            ..config.clone()
        };
        let copies = writes_computed_values(prog.test);
        let mut seen: HashSet<String> = HashSet::new();
        let mut written: Vec<BTreeSet<u64>> = domain.iter().map(|(_, _, d)| d.clone()).collect();
        let mut tally = Tally {
            budget: MAX_GRAPHS,
            deadline,
            rejected: 0,
            sampled: None,
        };
        let mut states = Vec::new();
        let mut graphs: Vec<ExecutionGraph> = Vec::new();
        let mut cyclic = 0;
        let mut incomplete = None;
        let max_kept = config.max_executions.map_or(MAX_KEPT, |m| (m as usize).min(MAX_KEPT));
        // Validates one set of events; false once the enumeration must stop.
        let mut each = |base: &ExecutionGraph, state: &FinalState, free: Option<&FreeReads>| -> bool {
            validate(
                prog,
                &operands,
                base,
                state,
                free,
                model,
                &mut tally,
                &mut |g2, state, is_cyclic| {
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
                    cyclic += is_cyclic as u64;
                    states.push(state);
                    graphs.push(g2.clone());
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
            } else if let Some(why) = tally.sampled.as_ref().filter(|_| answered(prog.test, &states)) {
                // Incomplete already: once the executions found prove the
                // condition's answer, the rest can only add outcomes.
                incomplete = Some(why.clone());
            }
            incomplete.is_none()
        };
        // Thread by thread, a C or OpenCL test's domains grow by every value
        // a thread's way writes, not only the consistent executions': a
        // thread alone reads another's value only from the domain (see
        // `explore`).
        let mut way_values: Option<Vec<BTreeSet<u64>>> = None;
        let run = if step2 == Step2::ThreadByThread {
            // Thread by thread (gpu_split.rs). Vulkan's free reads are given
            // their writes location by location (gpu_free.rs); PTX's
            // no-thin-air axiom reads rf.
            let vulkan = match model {
                CyclicModel::Gpu(m, env) if m.has_races() => Some(env),
                _ => None,
            };
            let runs = super::gpu_split::run_threads(p, &config, vulkan);
            if prog.test.gpu.is_none() {
                way_values = Some(written_by_ways(prog, runs.graphs(), &domain, ghost_thread));
            }
            if runs.run.complete && runs.run.failures.is_empty() {
                if let Err(why) = runs.combinations(ghost_thread, &mut |g, st, free| each(g, st, Some(free))) {
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
            incomplete = tally.sampled.take();
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
        // Judge again for races and divergence.
        for (i, g2) in found.graphs.iter().enumerate() {
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
            return found;
        }
        // Thread by thread, a domain that still grows after SPLIT_ROUNDS
        // is a value computed without bound: the whole run (with its
        // consistent-only growth) is tried instead, see `explore`.
        let last = match (step2, prog.test.gpu.is_none()) {
            (Step2::ThreadByThread, true) => SPLIT_ROUNDS,
            _ => ROUNDS,
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

/// Whether `states` settle the condition of `test` whatever other
/// executions would add: an `exists` or `~exists` state that satisfies it,
/// a `forall` state that does not (among the states the filter keeps).
fn answered(test: &Test, states: &[FinalState]) -> bool {
    use super::ast::Quantifier;
    let Some(c) = &test.condition else { return false };
    let filter = super::filter::Filter::of(test);
    let mut kept = states.iter().filter(|s| filter.keeps(s));
    match c.quantifier {
        Quantifier::Exists | Quantifier::NotExists => kept.any(|s| super::interp::holds(&c.prop, s)),
        Quantifier::Forall => kept.any(|s| !super::interp::holds(&c.prop, s)),
    }
}

/// Per domain entry, the values the test's threads write in `graphs`
/// (the promising thread's stores left out).
fn written_by_ways<'g>(
    prog: &Program,
    graphs: impl Iterator<Item = &'g ExecutionGraph>,
    domain: &[(u32, u32, BTreeSet<u64>)],
    ghost: ThreadId,
) -> Vec<BTreeSet<u64>> {
    let mut out = vec![BTreeSet::new(); domain.len()];
    for g in graphs {
        for (i, (b, e, _)) in domain.iter().enumerate() {
            let Some(loc) = loc_of(prog, g, *b, *e) else { continue };
            for &w in &g.loc(loc).expect("loc").mo {
                if w.thread != ghost {
                    out[i].insert(g.write_value(loc, w));
                }
            }
        }
    }
    out
}

/// What the validation may spend and what it rejected.
struct Tally {
    /// Graphs it may still judge.
    budget: u64,
    /// When it must stop.
    deadline: Option<Instant>,
    /// Graphs judged inconsistent (with repetitions).
    rejected: u64,
    /// Why only a sample of some graph's executions was built
    /// (gpu_free.rs): the outcome set is then incomplete.
    sampled: Option<String>,
}

/// The engine location of layout element (`base`, `elem`) in `g`: the
/// main thread allocates them in layout order.
fn loc_of(prog: &Program, g: &ExecutionGraph, base: u32, elem: u32) -> Option<Loc> {
    let k: u32 = prog
        .layout
        .names
        .iter()
        .take(base as usize)
        .map(|(_, n)| *n)
        .sum::<u32>()
        + elem;
    g.thread_events(0)
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Alloc { loc, .. } => Some(loc),
            _ => None,
        })
        .nth(k as usize)
}

/// `g` without the promising thread: the main thread up to its spawn
/// (its joins and final reads go too; nothing is ordered after them but
/// the final state, which is read from mo), every test thread whole.
fn without_ghost(g: &ExecutionGraph, ghost: ThreadId) -> Option<ExecutionGraph> {
    let cut = g
        .thread_events(0)
        .iter()
        .position(|e| matches!(e.kind, EventKind::Spawn { child } if child == ghost))?;
    let mut view = Clock::default();
    if cut > 0 {
        view.include(EventId::new(0, cut as u32 - 1));
    }
    for t in 1..ghost {
        let n = g.thread_len(t);
        if n > 0 {
            view.include(EventId::new(t, n - 1));
        }
    }
    Some(g.clone_restricted(&view))
}

/// Calls `keep` with every consistent graph that gives each read of
/// `base` a write of the value it took and each location an order of its
/// writes, until it returns false; `free` reads (Vulkan, gpu_free.rs) take
/// any value their threads ran with. An error says why it stopped early
/// (the budget of graphs ran out, or the deadline passed).
#[allow(clippy::too_many_arguments)]
fn validate(
    prog: &Program,
    operands: &Operands,
    base: &ExecutionGraph,
    state: &FinalState,
    free: Option<&FreeReads>,
    model: CyclicModel,
    tally: &mut Tally,
    keep: &mut dyn FnMut(&ExecutionGraph, FinalState, bool) -> bool,
) -> Result<(), String> {
    let free = free.filter(|f| !f.reads.is_empty());
    // Reads and their candidate writes.
    let mut reads: Vec<(EventId, Vec<EventId>)> = Vec::new();
    for (id, e) in base.events() {
        let EventKind::Read(r) = &e.kind else { continue };
        if free.is_some_and(|f| f.reads.contains(&id)) {
            continue;
        }
        let d = base.loc(r.loc).expect("loc");
        let mut c = Vec::new();
        if d.init == r.value {
            c.push(EventId::INIT);
        }
        for &w in &d.mo {
            // Not its own RMW's write part.
            let own = w.thread == id.thread && w.index == id.index + 1;
            if !own && base.write_value(r.loc, w) == r.value {
                c.push(w);
            }
        }
        if c.is_empty() {
            return Ok(());
        }
        reads.push((id, c));
    }
    let gpu = match model {
        CyclicModel::Gpu(m, env) => Some(GpuJudge::new(m, env, prog.test, base)?),
        _ => None,
    };
    // The operands of one C operator are not sequenced (unsequenced.rs).
    let unsequenced = operands.pairs(base, prog.test.threads.len() as ThreadId);
    let locs: Vec<(Loc, Vec<EventId>)> = base.locs().map(|(l, d)| (*l, d.mo.to_vec())).collect();
    let mut g = base.clone();
    let mut rf_pick = vec![0usize; reads.len()];
    loop {
        for (k, (r, c)) in reads.iter().enumerate() {
            if let EventKind::Read(rd) = &mut g.event_mut(*r).kind {
                rd.rf = c[rf_pick[k]];
            }
        }
        // Every order of every location's writes.
        let mut perms: Vec<Vec<EventId>> = locs
            .iter()
            .map(|(_, ws)| {
                let mut v = ws.clone();
                v.sort();
                v
            })
            .collect();
        loop {
            if tally.budget == 0 {
                return Err(format!(
                    "the po ∪ rf-cyclic enumeration judged {MAX_GRAPHS} graphs without finishing"
                ));
            }
            tally.budget -= 1;
            if tally.budget.is_multiple_of(256) && tally.deadline.is_some_and(|d| Instant::now() >= d) {
                return Err("timeout (--timeout)".into());
            }
            for ((loc, _), order) in locs.iter().zip(&perms) {
                for (i, w) in order.iter().enumerate() {
                    g.move_mo(*loc, *w, i + 1);
                }
            }
            if let (Some(f), CyclicModel::Gpu(m, env), Some(judge)) = (free, model, &gpu) {
                let mut budget = gpu_free::Budget {
                    graphs: tally.budget,
                    deadline: tally.deadline,
                    sampled: tally.sampled.take(),
                };
                let mut fault = None;
                let mut go_on = true;
                let r = gpu_free::complete(&mut g, f, env, m == GpuModel::Vulkan, &mut budget, &mut |g2, values| {
                    // The split by location decides which graphs to
                    // build; each is judged whole too.
                    if let Err(axiom) = judge.judge(g2) {
                        fault = Some(format!(
                            "internal error of the checker (not of the test): an execution built location by \
                                 location violates {axiom} as a whole"
                        ));
                        return false;
                    }
                    let Some(st) = f.state(state, values) else { return true };
                    go_on = keep(g2, final_locations(prog, g2, st), has_porf_cycle(g2));
                    go_on
                });
                tally.budget = budget.graphs;
                tally.sampled = budget.sampled;
                r?;
                if let Some(why) = fault {
                    return Err(why);
                }
                if !go_on {
                    return Ok(());
                }
                if !next_perms(&mut perms) {
                    break;
                }
                continue;
            }
            let ok = match model {
                CyclicModel::C11 => c11::check_unsequenced(&g, c11::Judge::Complete, &unsequenced).is_ok(),
                CyclicModel::OpenCl(env) => opencl::check_unsequenced(&g, env, &unsequenced).is_ok(),
                CyclicModel::Gpu(..) => gpu.as_ref().is_some_and(|j| j.judge(&g).is_ok()),
            };
            if ok {
                let st = final_locations(prog, &g, state.clone());
                let cyclic = has_porf_cycle(&g);
                if !keep(&g, st, cyclic) {
                    return Ok(());
                }
            } else {
                tally.rejected += 1;
            }
            if !next_perms(&mut perms) {
                break;
            }
        }
        // Next rf choice (odometer).
        let mut k = 0;
        loop {
            if k == reads.len() {
                return Ok(());
            }
            rf_pick[k] += 1;
            if rf_pick[k] < reads[k].1.len() {
                break;
            }
            rf_pick[k] = 0;
            k += 1;
        }
    }
}

/// `state` with each location's final value from `g`'s mo.
fn final_locations(prog: &Program, g: &ExecutionGraph, mut state: FinalState) -> FinalState {
    for (v, val) in state.iter_mut() {
        if let super::ast::StateVar::Loc { name, index } = v {
            let b = prog.layout.index_of(name);
            if let Some(loc) = loc_of(prog, g, b, *index) {
                *val = prog.show_word(g.write_value(loc, g.mo_max(loc)));
            }
        }
    }
    state
}

/// Advances a tuple of permutations (lexicographic, each in place); false
/// after the last.
fn next_perms(perms: &mut [Vec<EventId>]) -> bool {
    for p in perms.iter_mut() {
        if next_permutation(p) {
            return true;
        }
        // Wrapped around to the first (sorted) order: carry.
    }
    false
}

/// The next permutation in lexicographic order; at the last one, sorts
/// back to the first and returns false.
fn next_permutation(v: &mut [EventId]) -> bool {
    let n = v.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && v[i - 1] >= v[i] {
        i -= 1;
    }
    if i == 0 {
        v.reverse();
        return false;
    }
    let mut j = n - 1;
    while v[j] <= v[i - 1] {
        j -= 1;
    }
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}

/// Whether po ∪ rf has a cycle in `g`.
fn has_porf_cycle(g: &ExecutionGraph) -> bool {
    use scopecheck_checker::model::relations::Relations;
    let rel = Relations::of(g, Default::default());
    let mut porf = rel.po.clone();
    porf.union_with(&rel.rf);
    porf.has_cycle()
}

/// What the caller of [`result`] has already worked out.
pub struct Setup<'a> {
    /// The test's file as events carry it.
    pub file: &'a str,
    /// The model it runs under.
    pub model: super::run::LitmusModel,
    /// Notes from validation.
    pub notes: Vec<String>,
    /// Whether to keep a witness graph.
    pub want_witness: bool,
    /// herd's `filter P`: executions whose final state fails it count for
    /// nothing (no state, no race, no execution; `filter.rs`).
    pub filter: super::filter::Filter<'a>,
}

/// Runs the enumeration and builds the test's result.
pub fn result(prog: &mut Program, cm: CyclicModel, config: &RunConfig, setup: Setup) -> super::run::TestResult {
    use super::ast::Quantifier;
    use super::interp::holds;
    let test = prog.test;
    let start = std::time::Instant::now();
    let found = explore(prog, cm, config);
    let cond = test.condition.as_ref();
    let mut states: BTreeMap<FinalState, u64> = BTreeMap::new();
    let (mut positive, mut negative) = (0, 0);
    let mut witness = None;
    let kept = |i: usize| setup.filter.keeps(&found.states[i]);
    let mut dropped = 0;
    for (i, (st, g)) in found.states.iter().zip(&found.graphs).enumerate() {
        if !kept(i) {
            dropped += 1;
            continue;
        }
        let sat = cond.is_none_or(|c| holds(&c.prop, st));
        if sat {
            positive += 1;
        } else {
            negative += 1;
        }
        let is_witness = match cond.map(|c| c.quantifier) {
            Some(Quantifier::Exists) | Some(Quantifier::NotExists) => sat,
            Some(Quantifier::Forall) => !sat,
            None => false,
        };
        if setup.want_witness && is_witness && witness.is_none() {
            witness = Some((g.clone(), st.clone()));
        }
        *states.entry(st.clone()).or_insert(0) += 1;
    }
    let mut races = Vec::new();
    let mut race_lines = HashSet::new();
    let mut racy_executions = 0;
    for (_, g, pairs) in found.races.iter().filter(|r| kept(r.0)) {
        racy_executions += 1;
        for &(a, b) in pairs {
            if race_lines.insert((g.event(a).src, g.event(b).src)) {
                races.push(match cm {
                    CyclicModel::OpenCl(_) => super::run::race_failure(g, a, b),
                    CyclicModel::Gpu(..) => super::run::race_failure_under(g, a, b, setup.model),
                    CyclicModel::C11 => c11_race_failure(g, a, b),
                });
            }
        }
    }
    let mut notes = setup.notes;
    if found.cyclic > 0 {
        notes.push(format!(
            "{} of {} executions have a cycle in po ∪ rf ({} allows a read to read a write po ∪ rf-after it)",
            found.cyclic,
            found.states.len(),
            setup.model
        ));
    }
    if found.copies {
        notes.push(
            "complete up to self-justifying values: a value that only a cycle of copies justifies (herd's \
             symbolic Sn) is produced when it is one of the test's constants, and not otherwise"
                .into(),
        );
    }
    notes.extend(super::run::divergence_notes(test, &found.divergence));
    notes.extend(setup.filter.note(dropped));
    let mut failures = found.run.failures;
    super::run::litmus_advice(&mut failures);
    let complete = found.run.complete && found.incomplete.is_none();
    let incomplete_reason = found.incomplete.or(found.run.incomplete_reason);
    let judged = positive + negative;
    // Under a GPU model a complete run with no consistent execution judges
    // the condition over none, as Dat3M does (and as `run.rs` says).
    // So it is when the filter dropped every execution.
    let over_none =
        (matches!(cm, CyclicModel::Gpu(..)) || dropped > 0) && complete && failures.is_empty() && judged == 0;
    if over_none && dropped == 0 {
        notes.push(format!(
            "no execution finishes under {} (each hangs at a barrier, spins past --unroll or is inconsistent): the \
             condition is judged over no execution",
            setup.model
        ));
    }
    let no_answer = (!over_none && failures.is_empty() && judged == 0).then(|| {
        if !complete {
            format!(
                "no execution completed before a bound cut the run ({}), so the condition is not judged",
                incomplete_reason.as_deref().unwrap_or("the run was cut short")
            )
        } else {
            "no execution completed consistently: the model rejected every one, so the condition is not judged".into()
        }
    });
    let (witness, witness_state) = match witness {
        Some((g, s)) => (Some(g), Some(s)),
        None => (None, None),
    };
    let _ = setup.file;
    super::run::TestResult {
        name: test.name.clone(),
        model: setup.model,
        condition: test.condition.clone(),
        states,
        positive,
        negative,
        executions: (0..found.states.len()).filter(|&i| kept(i)).count() as u64,
        blocked: found.run.stats.blocked + found.rejected,
        racy_executions,
        races,
        failures,
        complete,
        incomplete_reason,
        shard: None,
        sampled: None,
        no_answer,
        witness,
        witness_state,
        // Filled in by the caller, which knows the model's env.
        witness_sw: None,
        elapsed: start.elapsed(),
        notes,
        warnings: super::warnings::of(test),
        thread_names: test.threads.iter().map(|t| format!("P{}", t.index)).collect(),
        loc_names: super::run::loc_names(prog.layout),
        porf_cyclic: found.cyclic,
    }
}

/// A C11 data race of an execution found here, as a failure report.
fn c11_race_failure(g: &ExecutionGraph, a: EventId, b: EventId) -> scopecheck_checker::Failure {
    use scopecheck_checker::failure::FailureKind;
    let (ea, eb) = (g.event(a), g.event(b));
    let message = format!(
        "`{}` ({}) and `{}` ({}) conflict, one is not atomic, and neither happens before the other (c11's dr)",
        ea.describe(),
        ea.src,
        eb.describe(),
        eb.src
    );
    scopecheck_checker::Failure::race(FailureKind::DataRace, message, g, a, b, MemoryModel::C11)
}
