//! The po ∪ rf-cyclic enumeration's first step for PTX and Vulkan tests
//! (`cyclic.rs`, steps 1 and 2), thread by thread.
//!
//! Run with every thread at once, the engine interleaves the test's
//! threads and the promising thread and tries every rf and mo choice of
//! all of them; only the values each thread's reads took are kept, so
//! nearly all that work is repeated (a four-thread test ran 194,400
//! executions for 144 distinct sets of values, a spin-lock 728,473). A
//! thread's events and values depend only on the values its own reads
//! return, so here each thread runs alone with the promising thread (the
//! other threads' bodies are empty): its runs give every way it can run
//! with values from the domain (and from its own writes). Every
//! combination of one way per thread is then one set of events to
//! validate, built into one graph from the threads' runs.
//!
//! Alone, a thread runs its RMWs as loads and stores, joined into RMWs
//! after each run (`split_rmw.rs`): the promising thread stores each value
//! once, and an RMW would consume it, so two RMWs of the thread could not
//! read one promised value although the other threads' writes may give it
//! twice. Every run alone of a PTX or Vulkan test, split or not (of a C
//! test under C11 split always, of an OpenCL test when split), is explored
//! value by value
//! (`scopecheck_checker::explore::values`), not by the optimal explorer,
//! whose every place in mo for each split store, and every rf choice among
//! writes of one value, multiplied them (past the work cap for split RMWs
//! and for a ticket lock unrolled four times): only the values a thread's
//! reads took are kept here.
//!
//! The combinations are a product, so they are counted against a budget
//! ([`MAX_COMBINATIONS`]); past it the enumeration stops and says so.

use super::ast::StateVar;
use super::gpu_free::{self, FreeReads, Group};
use super::interp::{FinalState, Program};
use scopecheck_checker::clock::Clock;
use scopecheck_checker::event::{EventId, EventKind, ThreadId};
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::model::gpu::GpuEnv;
use scopecheck_checker::MemoryModel;
use scopecheck_instrument::rt::{self, RunConfig, RunResult, StrategyChoice};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Combinations of the threads' runs validated per round, at most.
pub const MAX_COMBINATIONS: u64 = 200_000;

/// What the thread-by-thread runs found.
pub struct Runs {
    /// Per test thread (engine thread `k + 1`), the distinct ways it ran,
    /// grouped by all but the values of their free reads (`gpu_free.rs`).
    per_thread: Vec<Vec<Group>>,
    /// Each test thread's litmus index (the `N` of `PN`).
    indices: Vec<u32>,
    /// The runs' results merged: failures of each, complete if all were.
    pub run: RunResult,
    /// Why some thread's runs left out paths the combinations need (two
    /// RMWs not run split, weak compare-exchanges, reading one promised
    /// value: `split_lost.rs`); the combinations are still built, but the
    /// outcome set is then incomplete.
    pub lost: Option<String>,
    /// Per test thread, the prefixes of its runs that a loop cut at the
    /// unroll bound (`cut_ways.rs`), for the domains' growth only.
    cut: Vec<super::cut_ways::Cut>,
    /// Per test thread and group, what its reads need and its writes give
    /// (`Supply`), built on first use.
    supply: std::cell::OnceCell<(Vec<u64>, Vec<Vec<Supply>>)>,
}

/// What one group's events need from and give to a combination, as bit
/// sets over the (location, value) pairs of all the runs: a combination
/// in which some read has no write of its value (nor the initial one) is
/// one the validation gives no graph (`cyclic/validation.rs` returns at
/// once), so it is not built at all. Most combinations of a spin loop's
/// runs are such (`Ticketlock-diff-gpu`: 35,721 combinations, 864
/// executions).
struct Supply {
    /// Pairs some read needs written by any thread (its own included).
    needs: Vec<u64>,
    /// Pairs some RMW's read needs written by another thread (its own
    /// thread writes the pair only in that RMW's write, which the RMW
    /// cannot read).
    needs_other: Vec<u64>,
    /// Pairs its writes write.
    gives: Vec<u64>,
}

/// The events of thread `t` with the values its reads took.
fn thread_key(g: &ExecutionGraph, t: ThreadId) -> String {
    let mut s = String::new();
    for e in g.thread_events(t) {
        let d = e.describe();
        s.push_str(d.split(" (rf ").next().unwrap_or(&d));
        s.push(';');
    }
    s
}

/// Runs each thread of `prog` alone with the promising thread. With
/// `vulkan`, Vulkan's side table, the runs are grouped by their free reads.
pub fn run_threads(prog: &Program, config: &RunConfig, vulkan: Option<&GpuEnv>) -> Runs {
    let n = prog.test.threads.len();
    let config = RunConfig {
        // The user's `--max-executions` counts the test's consistent
        // executions (cyclic.rs); a thread's own runs have the work cap.
        max_executions: Some(super::cyclic::MAX_ENGINE_EXECUTIONS),
        ..config.clone()
    };
    let mut per_thread = Vec::with_capacity(n);
    let mut cuts = Vec::with_capacity(n);
    let mut merged: Option<RunResult> = None;
    let mut lost: Option<String> = None;
    for k in 0..n {
        let mut alone = prog.test.clone();
        for (j, t) in alone.threads.iter_mut().enumerate() {
            if j != k {
                t.body.clear();
            }
        }
        let who = format!("P{} alone", prog.test.threads[k].index);
        // First with the engine's RMWs (each consumes the write it reads);
        // when that may have left out a path on which two RMWs read one
        // promised value (split_lost.rs), again with the RMWs split into a
        // load and a store (split_rmw.rs), which reads any value any number
        // of times; explored value by value (explore/values.rs).
        // Under C11 split from the start: the values explorer places no
        // write anywhere but last in mo, and the engine's explorer tried
        // every place of a thread's stores among the promising thread's
        // (a compare-exchange retry loop whose expected value another
        // thread could reach ran into the work cap); the cut of reads its
        // thread's accesses hide (own_coherence.rs) keeps the values
        // explorer's runs few.
        let split_first = prog.own_coherence;
        let (mut run, mut ways, mut cut) = run_alone(prog, &alone, k, &config, split_first);
        let mut thread_lost = super::split_lost::lost_paths(prog, &run.stats.consumed_only, &who);
        if thread_lost.is_some() && !split_first {
            (run, ways, cut) = run_alone(prog, &alone, k, &config, true);
            thread_lost = super::split_lost::lost_paths(prog, &run.stats.consumed_only, &who);
        }
        if lost.is_none() {
            lost = thread_lost;
        }
        if let Some(why) = super::cyclic::work_cap(&run, None, ways.len(), &who) {
            run.complete = false;
            run.incomplete_reason = Some(why);
        }
        cuts.push(cut);
        per_thread.push(gpu_free::group(
            ways.into_values().collect(),
            k as ThreadId + 1,
            &alone,
            vulkan,
        ));
        merged = Some(match merged {
            None => run,
            Some(mut m) => {
                m.complete &= run.complete;
                m.failures.extend(run.failures);
                m.incomplete_reason = m.incomplete_reason.or(run.incomplete_reason);
                m.stats.complete += run.stats.complete;
                m.stats.blocked += run.stats.blocked;
                m.stats.failed += run.stats.failed;
                m
            }
        });
        let m = merged.as_ref().expect("just set");
        if !m.complete || !m.failures.is_empty() {
            break;
        }
    }
    Runs {
        per_thread,
        indices: prog.test.threads.iter().map(|t| t.index).collect(),
        run: merged.expect("a litmus test has a thread"),
        lost,
        cut: cuts,
        supply: Default::default(),
    }
}

/// The distinct ways of test thread `k` (engine thread `k + 1`) run alone
/// with the promising thread (`alone`: the test with the other threads'
/// bodies emptied), its RMWs split into a load and a store when `split`;
/// and the prefixes of its runs a loop cut at the unroll bound.
fn run_alone(
    prog: &Program,
    alone: &super::ast::Test,
    k: usize,
    config: &RunConfig,
    split: bool,
) -> (
    RunResult,
    BTreeMap<String, (ExecutionGraph, FinalState)>,
    super::cut_ways::Cut,
) {
    let p = Program {
        test: alone,
        layout: prog.layout,
        file: prog.file,
        unroll: prog.unroll,
        discarded: Default::default(),
        observed: prog.observed,
        default_scope: prog.default_scope,
        final_order: prog.final_order,
        opencl: prog.opencl,
        ghost: prog.ghost.clone(),
        own_coherence: prog.own_coherence,
        groups: prog.groups,
        cross_checks: prog.cross_checks,
        split_rmws: split.then(Default::default),
        cut_ways: Some(Default::default()),
    };
    let t = k as ThreadId + 1;
    let ways: RefCell<BTreeMap<String, (ExecutionGraph, FinalState)>> = RefCell::new(BTreeMap::new());
    let fault: RefCell<Option<String>> = RefCell::new(None);
    // A PTX or Vulkan thread's ways are found value by value
    // (explore/values.rs), split or not: its own writes and the promising thread's are all there
    // before it reads, and which of them a read reads, or where a write
    // goes in mo, is thrown away here anyway (the validation gives every
    // read every write of its value and every location every order of its
    // writes). An engine RMW's read is still given every candidate (which
    // write it consumes decides what later RMWs may read). The optimal
    // explorer gave the same ways but ran each once per rf and mo choice:
    // `Ticketlock-diff-gpu`'s P0 alone at the liveness search's deeper
    // unrolling passed 1,000,000 runs.
    //
    // An OpenCL test keeps the optimal explorer unless split: its budgets
    // and fallbacks (the whole run, `cyclic.rs`) were set by what those
    // runs reach. A C test under C11 runs split from the start
    // (`run_threads`), with its reads cut by own_coherence.rs.
    let values = RunConfig {
        strategy: StrategyChoice::Values,
        ..config.clone()
    };
    let config = if split || prog.test.gpu.is_some() {
        &values
    } else {
        config
    };
    let mut run = rt::run(config, &|| {
        if let Some(log) = &p.split_rmws {
            log.lock().unwrap_or_else(|e| e.into_inner()).clear();
        }
        let state = p.execute();
        let mut g = rt::current_graph();
        if let Some(log) = &p.split_rmws {
            // The RMWs ran as loads and stores (split_rmw.rs).
            let rmws = std::mem::take(&mut *log.lock().unwrap_or_else(|e| e.into_inner()));
            if let Err(why) = super::split_rmw::join(&mut g, &rmws) {
                fault.borrow_mut().get_or_insert(why);
                return;
            }
        }
        let mut ways = ways.borrow_mut();
        if ways.len() < super::cyclic::MAX_KEPT {
            ways.entry(thread_key(&g, t)).or_insert((g, state));
        }
    });
    if let Some(why) = fault.into_inner() {
        // Nothing of these runs can be trusted: no combination is built.
        run.complete = false;
        run.incomplete_reason = Some(why);
    }
    let cut = super::cut_ways::Cut::of(p.cut_ways.expect("set above"));
    (run, ways.into_inner(), cut)
}

impl Runs {
    /// The pairs the main thread writes (none, as litmus tests allocate
    /// their locations with the initial values; counted to be safe), and
    /// per thread and group, its [`Supply`].
    fn supply(&self) -> &(Vec<u64>, Vec<Vec<Supply>>) {
        self.supply.get_or_init(|| {
            // Every (location, value) pair a non-free read reads or a write
            // writes, numbered.
            let mut pairs: BTreeMap<(scopecheck_checker::event::Loc, u64), usize> = BTreeMap::new();
            let mut number = |p| {
                let k = pairs.len();
                *pairs.entry(p).or_insert(k)
            };
            let main: Vec<usize> = self
                .per_thread
                .iter()
                .flatten()
                .flat_map(|grp| grp.graph.thread_events(0))
                .filter_map(|e| e.as_write().map(|w| (w.loc, w.value)))
                .collect::<Vec<_>>()
                .into_iter()
                .map(&mut number)
                .collect();
            // Per thread and group: the pairs it needs, needs from another
            // thread, and gives, by number.
            type Numbered = (Vec<usize>, Vec<usize>, Vec<usize>);
            let mut raw: Vec<Vec<Numbered>> = Vec::new();
            for (k, groups) in self.per_thread.iter().enumerate() {
                let t = k as ThreadId + 1;
                let mut per = Vec::new();
                for grp in groups {
                    let g = &grp.graph;
                    let events = g.thread_events(t);
                    let (mut needs, mut needs_other, mut gives) = (Vec::new(), Vec::new(), Vec::new());
                    for e in events {
                        if let EventKind::Write(w) = &e.kind {
                            gives.push(number((w.loc, w.value)));
                        }
                    }
                    for (i, e) in events.iter().enumerate() {
                        let EventKind::Read(r) = &e.kind else { continue };
                        if grp.free.contains(&(i as u32)) {
                            continue;
                        }
                        if g.loc(r.loc).is_some_and(|d| d.init == r.value) {
                            continue;
                        }
                        let pair = (r.loc, r.value);
                        // The validation never gives a read its own RMW's
                        // write part (the event right after it).
                        let own = events.get(i + 1).and_then(|n| n.as_write()).filter(|w| w.rmw);
                        let same = |w: &scopecheck_checker::event::WriteEvent| (w.loc, w.value) == pair;
                        let writes_here = events.iter().filter(|x| x.as_write().is_some_and(same)).count();
                        if own.is_some_and(same) && writes_here == 1 {
                            needs_other.push(number(pair));
                        } else {
                            needs.push(number(pair));
                        }
                    }
                    per.push((needs, needs_other, gives));
                }
                raw.push(per);
            }
            let words = pairs.len().div_ceil(64).max(1);
            let bits = |v: &[usize]| {
                let mut b = vec![0u64; words];
                for &i in v {
                    b[i / 64] |= 1 << (i % 64);
                }
                b
            };
            let per = raw
                .iter()
                .map(|per| {
                    per.iter()
                        .map(|(n, o, g)| Supply {
                            needs: bits(n),
                            needs_other: bits(o),
                            gives: bits(g),
                        })
                        .collect()
                })
                .collect();
            (bits(&main), per)
        })
    }

    /// Whether every non-free read of the picked groups has a write of its
    /// value (or the initial one) to be given: false only for combinations
    /// the validation would return from with no graph.
    fn viable(&self, pick: &[usize]) -> bool {
        let (main, supply) = self.supply();
        let mut all = main.clone();
        for (k, &p) in pick.iter().enumerate() {
            for (a, b) in all.iter_mut().zip(&supply[k][p].gives) {
                *a |= *b;
            }
        }
        let covered =
            |need: &[u64], have: &dyn Fn(usize) -> u64| need.iter().enumerate().all(|(i, n)| n & !have(i) == 0);
        pick.iter().enumerate().all(|(k, &p)| {
            let s = &supply[k][p];
            covered(&s.needs, &|i| all[i])
                && covered(&s.needs_other, &|i| {
                    pick.iter()
                        .enumerate()
                        .filter(|&(j, _)| j != k)
                        .fold(main[i], |acc, (j, &q)| acc | supply[j][q].gives[i])
                })
        })
    }

    /// Per test thread, its distinct ways grouped by their free reads (the
    /// domains' growth, `cyclic/chains.rs`).
    pub fn groups(&self) -> &[Vec<Group>] {
        &self.per_thread
    }

    /// Per test thread, the prefixes of its runs a loop cut at the unroll
    /// bound (the domains' growth, `cyclic/chains.rs`).
    pub fn cut(&self) -> &[super::cut_ways::Cut] {
        &self.cut
    }

    /// Calls `each` with every combination of one group per thread, as one
    /// graph (the promising thread dropped; reads still to be given their
    /// writes), its final state (the free reads' values aside) and its free
    /// reads, until `each` returns false. An error says the budget of
    /// combinations ran out.
    pub fn combinations(
        &self,
        ghost: ThreadId,
        each: &mut dyn FnMut(&ExecutionGraph, &FinalState, &FreeReads) -> bool,
    ) -> Result<(), String> {
        let n = self.per_thread.len();
        if self.per_thread.iter().any(Vec::is_empty) {
            return Ok(());
        }
        let total = self
            .per_thread
            .iter()
            .try_fold(1u64, |acc, w| acc.checked_mul(w.len() as u64))
            .unwrap_or(u64::MAX);
        if total > MAX_COMBINATIONS {
            return Err(format!(
                "the po ∪ rf-cyclic enumeration would validate {} combinations of the threads' runs, more than its \
                 budget of {MAX_COMBINATIONS}",
                if total == u64::MAX {
                    "more than 2^64".to_string()
                } else {
                    total.to_string()
                }
            ));
        }
        let mut pick = vec![0usize; n];
        loop {
            if !self.viable(&pick) {
                // No graph: the validation would return at once.
                if !odometer(&mut pick, |k| self.per_thread[k].len()) {
                    return Ok(());
                }
                continue;
            }
            let (g, state) = self.build(&pick, ghost);
            let mut free = FreeReads {
                reads: Vec::new(),
                threads: Vec::with_capacity(n),
            };
            for (k, &p) in pick.iter().enumerate() {
                let group = &self.per_thread[k][p];
                let start = free.reads.len();
                free.reads
                    .extend(group.free.iter().map(|&i| EventId::new(k as ThreadId + 1, i)));
                free.threads
                    .push((self.indices[k], start..free.reads.len(), &group.members));
            }
            if !each(&g, &state, &free) {
                return Ok(());
            }
            if !odometer(&mut pick, |k| self.per_thread[k].len()) {
                return Ok(());
            }
        }
    }

    /// One graph from the picked way of each thread.
    fn build(&self, pick: &[usize], ghost: ThreadId) -> (ExecutionGraph, FinalState) {
        let Group {
            graph: first,
            state: state0,
            ..
        } = &self.per_thread[0][pick[0]];
        // The main thread up to the promising thread's spawn (the same in
        // every run: it allocates and spawns in layout and thread order),
        // and thread 1.
        let cut = first
            .thread_events(0)
            .iter()
            .position(|e| matches!(e.kind, EventKind::Spawn { child } if child == ghost))
            .expect("the promising thread is spawned");
        let mut view = Clock::default();
        if cut > 0 {
            view.include(EventId::new(0, cut as u32 - 1));
        }
        let len1 = first.thread_len(1);
        if len1 > 0 {
            view.include(EventId::new(1, len1 - 1));
        }
        let mut g = first.clone_restricted(&view);
        let mut state = state0.clone();
        let rules = MemoryModel::Porf.sync_rules();
        for (k, &p) in pick.iter().enumerate().skip(1) {
            let t = k as ThreadId + 1;
            let Group {
                graph: from, state: st, ..
            } = &self.per_thread[k][p];
            g.set_placement(t, *from.placement(t));
            for e in from.thread_events(t) {
                let mut kind = e.kind.clone();
                if let EventKind::Read(r) = &mut kind {
                    // Given its write by the validation.
                    r.rf = EventId::INIT;
                }
                let loc = match &kind {
                    EventKind::Write(w) => Some(w.loc),
                    _ => None,
                };
                let id = g.push_event(t, kind, e.src, e.scope, rules, false);
                if let Some(loc) = loc {
                    let end = g.loc(loc).expect("loc").mo.len() + 1;
                    g.insert_mo(loc, id, end);
                }
            }
            // This thread's registers come from its own run.
            for (v, val) in st {
                if matches!(v, StateVar::Reg { thread, .. } if *thread == self.indices[k]) {
                    state.insert(v.clone(), val.clone());
                }
            }
        }
        (g, state)
    }
}

/// Advances `pick` (digit k ranging below `len(k)`, the first fastest);
/// false after the last.
fn odometer(pick: &mut [usize], len: impl Fn(usize) -> usize) -> bool {
    for (k, digit) in pick.iter_mut().enumerate() {
        *digit += 1;
        if *digit < len(k) {
            return true;
        }
        *digit = 0;
    }
    false
}
