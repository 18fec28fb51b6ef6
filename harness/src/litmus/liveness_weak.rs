//! Liveness under the hardware model (`ptx6.0`, `ptx7.5`, `vulkan`,
//! `vulkan-nochains`): the spins that only weak memory makes endless (see
//! the parent module; docs/gpu-models.md §6).
//!
//! Dat3M's reading: a thread is stuck in a spin loop when, in an execution
//! the memory model allows, it runs a loop iteration without side effects
//! whose reads each read a co-maximal write (a location's final value:
//! memory fairness makes every write visible eventually, so only co-last
//! values can be read forever), and the progress model lets the other
//! threads make no progress. Here:
//!
//! 1. The thread bodies are unrolled as the condition side unrolls them
//!    (`gpu_expand.rs`), except that a path that would take a backward jump
//!    once more than the bound ends there, marked with where (a *stuck*
//!    path), instead of being discarded. The bound starts at [`UNROLL`]
//!    backward jumps per loop and grows by one, up to [`MAX_UNROLL`] (four
//!    iterations, Dat3M's bound), while no violation is found and some
//!    execution has a thread cut short: on a stuck path that it would leave
//!    (run on with every location at its final value, it does not come
//!    back to a state it was in), so that with more iterations it could
//!    still finish or store, and a violation may need that.
//! 2. The condition side's po ∪ rf-cyclic enumeration (`cyclic.rs`)
//!    gives every execution of those bodies its judge (the model's axioms,
//!    PTX's no-thin-air) finds consistent.
//! 3. In each, every thread either keeps all its events (finished, or on a
//!    stuck path) or stops before one of them: blocked at a barrier that
//!    never completes, or starved (only where the progress model allows
//!    it). A choice is kept when the events left still read only writes
//!    left, the judge finds them consistent, the barriers are honoured
//!    (a thread passes a barrier only once every thread of its group with
//!    that barrier arrived), the progress model lets the starved threads
//!    starve (the same rule as the sequentially consistent search,
//!    `liveness_search.rs`), and some thread spins or blocks forever.
//! 4. A stuck thread spins when, run on from its registers at the loop's
//!    backward jump with every location holding its co-maximal write's
//!    value, it comes back to a state (instruction, registers) it was in
//!    without leaving the loop, storing, running an RMW or arriving at a
//!    barrier. Those iterations only read (and fence): appended after every
//!    event of the execution, each read reading the co-maximal write, they
//!    add no edge out of the execution (no write is co-after the one they
//!    read), so the infinite execution stays consistent and memory-fair.
//!
//! Tests with a quorum barrier or `bar.arrive` are left to the sequentially
//! consistent search (their barrier accounting here would need the arrival
//! order; `Liveness::weak` says so). When the enumeration does not finish
//! (a budget or cap) and found no violation, the answer is an error, not
//! a guess.

use super::search::Class;
use super::{BarKey, Fail, Prog, ProgressModel, State, Witness};
use crate::litmus::ast::*;
use crate::litmus::cyclic::{self, CyclicModel};
use crate::litmus::gpu::{Item, HIDDEN};
use crate::litmus::gpu_cyclic::GpuJudge;
use crate::litmus::gpu_model::{self, GpuModel};
use crate::litmus::interp::{Layout, Program};
use scopecheck_checker::clock::Clock;
use scopecheck_checker::event::{EventId, EventKind, Loc, ThreadId};
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::model::gpu::GpuKind;
use scopecheck_checker::MemoryModel;
use scopecheck_instrument::rt::RunConfig;
use std::collections::{BTreeMap, HashMap};

/// Backward jumps each loop may take in the unrolled bodies at first (a
/// stuck path takes one more: it runs `UNROLL + 1` iterations).
pub const UNROLL: u32 = 1;

/// The deepest unrolling tried: when an execution at one depth has a
/// thread cut short (on a stuck path it would leave, so it could still
/// finish or store), the search runs again one backward jump deeper, up to
/// this many: four iterations per loop, Dat3M's bound for these tests.
pub const MAX_UNROLL: u32 = 3;

/// Ways for the threads to end (over every execution) tried, at most.
pub const MAX_CANDIDATES: u64 = 2_000_000;

/// The register that marks a stuck path: `line << 20 | column` of the
/// backward jump it would take.
const STUCK: &str = "__stuck_at";

/// A read a spinning thread keeps making: the location, the value and the
/// co-maximal write it reads (`None`: the initial value), as (thread, line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptRead {
    /// The spinning thread (`N` of `PN`).
    pub thread: u32,
    /// The location.
    pub loc: String,
    /// The value it keeps reading.
    pub value: i64,
    /// The write it reads: its thread and line, `None` for the initial value.
    pub writer: Option<(u32, u32)>,
}

/// What the weak search did, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeakSearch {
    /// Not needed: the sequentially consistent search found a violation.
    NotNeeded,
    /// Not run: why (no backward jump, quorum or arrive barriers).
    Skipped(String),
    /// Run over this many consistent executions.
    Done(usize),
    /// Run over this many consistent executions, loops unrolled to
    /// `MAX_UNROLL + 1` (four) iterations, and some thread was still cut short
    /// there: a violation needing more iterations is not looked for.
    Bounded(usize),
}

/// One way a thread ends in a candidate.
#[derive(Clone, Debug)]
struct End {
    /// Events kept.
    keep: u32,
    class: Class,
    /// Blocked: the barrier; stuck: the backward jump's item index.
    bar: Option<BarKey>,
    jump: Option<usize>,
    /// Where it stopped (starved, blocked).
    at: Option<Pos>,
}

/// The executions of the bodies unrolled to one depth, shared by every
/// progress model judged at that depth.
struct Enumerated {
    expanded: Test,
    env: scopecheck_checker::model::gpu::GpuEnv,
    found: cyclic::Found,
    allocs: HashMap<String, usize>,
    /// Why some execution may be missing.
    incomplete: Option<String>,
}

/// One progress model's answer from the weak search.
pub(super) type WeakAnswer = Result<(Option<Witness>, WeakSearch), Fail>;

impl Prog<'_> {
    /// Searches for a weak-memory violation under `model` and each of
    /// `progress`: the executions at each unrolling depth are enumerated
    /// once and judged under every progress model still undecided.
    pub(super) fn weak_search(&self, test: &Test, model: GpuModel, progress: &[ProgressModel]) -> Vec<WeakAnswer> {
        let skip = |why: &str| {
            progress
                .iter()
                .map(|_| Ok((None, WeakSearch::Skipped(why.into()))))
                .collect()
        };
        if !self.code.iter().any(|c| self.quiet_cycle(c)) {
            return skip("no loop can repeat without storing, an RMW or a barrier");
        }
        let odd_barrier = self
            .gpu
            .ops
            .values()
            .any(|o| matches!(o.kind, GpuKind::Barrier { quorum, arrive, .. } if quorum.is_some() || arrive));
        if odd_barrier {
            return skip("a quorum barrier or bar.arrive (left to the SC search)");
        }
        let mut out: Vec<Option<WeakAnswer>> = progress.iter().map(|_| None).collect();
        let mut total = 0;
        for unroll in UNROLL..=MAX_UNROLL {
            let pending: Vec<usize> = (0..progress.len()).filter(|&i| out[i].is_none()).collect();
            if pending.is_empty() {
                break;
            }
            let en = match self.enumerate(test, model, unroll) {
                Ok(en) => en,
                Err(f) => {
                    for i in pending {
                        out[i] = Some(Err(f.clone()));
                    }
                    break;
                }
            };
            total += en.found.graphs.len();
            let mut cut_short = false;
            let mut live = Vec::new();
            for i in pending {
                match self.judge_all(&en, model, progress[i], &mut cut_short) {
                    Ok(Some(w)) => out[i] = Some(Ok((Some(w), WeakSearch::Done(total)))),
                    // Some execution may be missing: "live" would be a guess.
                    Ok(None) if en.incomplete.is_some() => {
                        out[i] = Some(Err((
                            None,
                            format!(
                                "liveness under {}: no endless execution found, but the search under the memory \
                                 model did not finish ({}); not decided",
                                model.name(),
                                en.incomplete.as_deref().unwrap_or_default()
                            ),
                        )))
                    }
                    Ok(None) => live.push(i),
                    Err(m) => out[i] = Some(Err((None, m))),
                }
            }
            // No thread was cut short: deeper unrolling shows nothing new.
            if !cut_short {
                for i in live {
                    out[i] = Some(Ok((None, WeakSearch::Done(total))));
                }
            }
        }
        out.into_iter()
            .map(|a| a.unwrap_or(Ok((None, WeakSearch::Bounded(total)))))
            .collect()
    }

    /// The consistent executions of the bodies with loops unrolled `unroll` times.
    fn enumerate(&self, test: &Test, model: GpuModel, unroll: u32) -> Result<Enumerated, Fail> {
        let mut expanded = crate::litmus::gpu::expand(test, unroll);
        for t in expanded.threads.iter_mut() {
            mark_stuck(&mut t.body);
        }
        let layout = Layout::of(&expanded).map_err(|(p, m)| (Some(p), m))?;
        let mut observed: Vec<StateVar> = Vec::new();
        for c in &self.code {
            let mut names: Vec<&String> = c.regs.keys().collect();
            names.sort();
            for r in names.into_iter().chain(std::iter::once(&STUCK.to_string())) {
                observed.push(StateVar::Reg {
                    thread: c.index,
                    reg: r.clone(),
                });
            }
        }
        observed.sort();
        observed.dedup();
        let env = gpu_model::env_of(&expanded);
        let mut prog = Program {
            test: &expanded,
            layout: &layout,
            file: "<liveness>",
            unroll,
            discarded: Default::default(),
            observed: &observed,
            default_scope: scopecheck_checker::event::Scope::System,
            final_order: scopecheck_checker::event::Order::Relaxed,
            opencl: true,
            ghost: Vec::new(),
            own_coherence: false,
            groups: None,
            cross_checks: Default::default(),
            split_rmws: None,
            cut_ways: None,
        };
        let defaults = RunConfig::default();
        let setup = layout.names.iter().map(|(_, n)| u64::from(*n)).sum::<u64>()
            + 2 * expanded.threads.len() as u64
            + observed.len() as u64;
        let config = RunConfig {
            model: MemoryModel::Porf,
            record_races: false,
            max_steps: defaults.max_steps.saturating_add(setup),
            porf_cycles: true,
            ..defaults
        };
        let found = cyclic::explore(&mut prog, CyclicModel::Gpu(model, &env), &config);
        let incomplete = match (&found.incomplete, found.run.complete && found.run.failures.is_empty()) {
            (Some(why), _) => Some(why.clone()),
            (None, false) => Some(
                found
                    .run
                    .incomplete_reason
                    .clone()
                    .or_else(|| found.run.failures.first().map(|f| format!("{f:?}")))
                    .unwrap_or_else(|| "a run of the enumeration did not finish".into()),
            ),
            (None, true) => None,
        };
        let allocs = alloc_index(&layout);
        Ok(Enumerated {
            expanded,
            env,
            found,
            allocs,
            incomplete,
        })
    }

    /// Searches the executions of `en` for a violation under `progress`;
    /// sets `cut_short` when some execution has a thread cut short.
    fn judge_all(
        &self,
        en: &Enumerated,
        model: GpuModel,
        progress: ProgressModel,
        cut_short: &mut bool,
    ) -> Result<Option<Witness>, String> {
        let mut tried = 0;
        for (g, st) in en.found.graphs.iter().zip(&en.found.states) {
            let mut ctx = Candidate {
                prog: self,
                test: &en.expanded,
                model,
                env: &en.env,
                g,
                judge: None,
                allocs: &en.allocs,
            };
            if let Some(w) = ctx.search(st, progress, &mut tried, cut_short)? {
                return Ok(Some(w));
            }
        }
        Ok(None)
    }
}

/// Replaces each `while (1) {}` the unrolling puts where a path would take
/// one backward jump too many (a GPU test has no `while` of its own) by the
/// stuck marker: the path ends there, saying where.
fn mark_stuck(body: &mut [Stmt]) {
    for s in body.iter_mut() {
        match &mut s.kind {
            StmtKind::While { cond, body } if body.is_empty() && matches!(cond.kind, ExprKind::Int(1)) => {
                let pos = s.pos;
                s.kind = StmtKind::Decl {
                    ty: Type {
                        space: None,
                        atomic: false,
                        volatile: false,
                        base: "int".into(),
                        pointer: 0,
                    },
                    name: STUCK.into(),
                    init: Some(Expr {
                        kind: ExprKind::Int(stuck_code(pos)),
                        pos,
                    }),
                };
            }
            StmtKind::If { then, els, .. } => {
                mark_stuck(then);
                mark_stuck(els);
            }
            StmtKind::Block(b) => mark_stuck(b),
            _ => {}
        }
    }
}

fn stuck_code(p: Pos) -> i64 {
    (i64::from(p.line) << 20) | i64::from(p.col)
}

/// Per layout location name, its index among the main thread's allocations.
fn alloc_index(layout: &Layout) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    let mut k = 0;
    for (name, n) in &layout.names {
        out.insert(name.clone(), k);
        k += *n as usize;
    }
    out
}

/// One consistent execution, and the ways its threads can end.
struct Candidate<'c, 'a> {
    prog: &'c Prog<'a>,
    test: &'c Test,
    model: GpuModel,
    env: &'c scopecheck_checker::model::gpu::GpuEnv,
    g: &'c ExecutionGraph,
    /// Built on first use (PTX's dependencies are walked over `g`).
    judge: Option<Result<GpuJudge<'c>, String>>,
    allocs: &'c HashMap<String, usize>,
}

impl Candidate<'_, '_> {
    fn search(
        &mut self,
        st: &crate::litmus::interp::FinalState,
        progress: ProgressModel,
        tried: &mut u64,
        cut_short: &mut bool,
    ) -> Result<Option<Witness>, String> {
        let n = self.prog.code.len();
        let mut ends: Vec<Vec<End>> = Vec::with_capacity(n);
        let mut regs: Vec<Vec<i64>> = Vec::with_capacity(n);
        for t in 0..n {
            let c = &self.prog.code[t];
            let reg = |name: &str| match st.get(&StateVar::Reg {
                thread: c.index,
                reg: name.to_string(),
            }) {
                Some(Value::Int(v)) => *v,
                _ => 0,
            };
            let mut r = vec![0; c.regs.len()];
            for (name, &i) in &c.regs {
                r[i] = reg(name);
            }
            regs.push(r);
            let code = reg(STUCK);
            let jump = (code != 0)
                .then(|| {
                    c.items.iter().position(|it| match it {
                        Item::Goto(_, p) | Item::Branch { pos: p, .. } => stuck_code(*p) == code,
                        _ => false,
                    })
                })
                .flatten();
            let events = self.g.thread_events(t as ThreadId + 1);
            let len = events.len() as u32;
            let mut e = vec![End {
                keep: len,
                class: if jump.is_some() { Class::Spins } else { Class::Done },
                bar: None,
                jump,
                at: None,
            }];
            // A starved thread stops before event i. Only where it stops
            // relative to its writes and barriers matters (which writes
            // others may read, which arrivals count), and whether it
            // started: the earliest cut of each such class keeps the
            // fewest reads to justify.
            let mut cuts: Vec<usize> = vec![0, 1];
            for (i, ev) in events.iter().enumerate() {
                if matches!(ev.kind, EventKind::Write(_)) || self.barrier_key(t, i).is_some() {
                    cuts.push(i + 1);
                }
            }
            cuts.retain(|&i| i < events.len());
            cuts.dedup();
            for (i, ev) in events.iter().enumerate() {
                let at = Some(Pos {
                    line: ev.src.line,
                    col: ev.src.column,
                });
                if let Some(key) = self.barrier_key(t, i) {
                    e.push(End {
                        keep: i as u32,
                        class: Class::Blocked,
                        bar: Some(key),
                        jump: None,
                        at,
                    });
                }
                if progress != ProgressModel::Fair && cuts.contains(&i) {
                    e.push(End {
                        keep: i as u32,
                        class: Class::Starved,
                        bar: None,
                        jump: None,
                        at: (i > 0).then_some(at).flatten(),
                    });
                }
            }
            if let (Some(j), true) = (jump, progress != ProgressModel::Fair) {
                e.push(End {
                    keep: len,
                    class: Class::Starved,
                    bar: None,
                    jump: None,
                    at: c.pos.get(j).copied().flatten(),
                });
            }
            ends.push(e);
        }
        // A stuck thread that would not go on repeating its loop with the
        // values it last read may, with more iterations, still leave the
        // loop, store or finish: a deeper unrolling may find a violation
        // that needs it. One that would (it keeps reading stale values)
        // only gains more copies of reads it already made.
        if !*cut_short {
            *cut_short = ends.iter().enumerate().any(|(t, e)| {
                e[0].jump
                    .is_some_and(|j| self.prog.spins(t, j, regs[t].clone(), self.last_read(t)).is_none())
            });
        }
        let mut pick = vec![0usize; n];
        loop {
            *tried += 1;
            if *tried > MAX_CANDIDATES {
                return Err(format!(
                    "the search under the memory model would try more than {MAX_CANDIDATES} ways for the threads \
                     to end; not decided"
                ));
            }
            let chosen: Vec<&End> = pick.iter().enumerate().map(|(t, &k)| &ends[t][k]).collect();
            if let Some(w) = self.try_ends(&chosen, &regs, progress) {
                return Ok(Some(w));
            }
            let mut k = 0;
            loop {
                if k == n {
                    return Ok(None);
                }
                pick[k] += 1;
                if pick[k] < ends[k].len() {
                    break;
                }
                pick[k] = 0;
                k += 1;
            }
        }
    }

    /// The barrier that event `i` of test thread `t` arrives at, if any.
    fn barrier_key(&self, t: usize, i: usize) -> Option<BarKey> {
        let events = self.g.thread_events(t as ThreadId + 1);
        let e = &events[i];
        if !matches!(e.kind, EventKind::Fence { .. }) {
            return None;
        }
        let op = self.prog.gpu.ops.get(&(e.src.line, e.src.column))?;
        let GpuKind::Barrier { id, .. } = op.kind else {
            return None;
        };
        let id = match id {
            Some(id) => id,
            // A register id: the hidden store just before.
            None => i
                .checked_sub(1)
                .and_then(|j| events[j].as_write())
                .map(|w| w.value as i64)?,
        };
        Some((self.prog.code[t].group, id))
    }

    fn try_ends(&mut self, ends: &[&End], regs: &[Vec<i64>], progress: ProgressModel) -> Option<Witness> {
        if !ends.iter().any(|e| matches!(e.class, Class::Spins | Class::Blocked)) {
            return None;
        }
        let cls: Vec<Class> = ends.iter().map(|e| e.class).collect();
        let mut s: State = self.prog.init.clone();
        for (t, e) in ends.iter().enumerate() {
            s.threads[t].started = e.keep > 0 || e.class != Class::Starved;
        }
        if !self.prog.allowed(&s, &cls, progress) || !self.barriers_ok(ends) {
            return None;
        }
        // The events kept, and that they read only writes kept.
        let mut view = Clock::default();
        let main = self.g.thread_len(0);
        if main > 0 {
            view.include(EventId::new(0, main - 1));
        }
        let cut = ends
            .iter()
            .enumerate()
            .any(|(t, e)| e.keep < self.g.thread_len(t as ThreadId + 1));
        for (t, e) in ends.iter().enumerate() {
            if e.keep > 0 {
                view.include(EventId::new(t as ThreadId + 1, e.keep - 1));
            }
        }
        let kept = |id: EventId| id.is_init() || view.contains(id);
        for (id, ev) in self.g.events() {
            if let EventKind::Read(r) = &ev.kind {
                if kept(id) && !kept(r.rf) {
                    return None;
                }
            }
        }
        let restricted;
        let g = if cut {
            restricted = self.g.clone_restricted(&view);
            let judge = self
                .judge
                .get_or_insert_with(|| GpuJudge::new(self.model, self.env, self.test, self.g));
            match judge {
                Ok(j) if j.judge(&restricted).is_ok() => &restricted,
                _ => return None,
            }
        } else {
            self.g
        };
        let (mem, writer) = self.final_values(g);
        let mut names: Vec<(&String, &usize)> = self.prog.locs.iter().collect();
        names.sort_by_key(|(_, &i)| i);
        let mut kept_reads = Vec::new();
        for (t, e) in ends.iter().enumerate() {
            if e.class != Class::Spins {
                continue;
            }
            let locs = self.prog.spins(t, e.jump?, regs[t].clone(), mem.clone())?;
            for l in locs {
                let name = names.iter().find(|(_, &i)| i == l).map(|(n, _)| n.to_string())?;
                if name.starts_with(HIDDEN) {
                    continue;
                }
                kept_reads.push(KeptRead {
                    thread: self.prog.code[t].index,
                    loc: name,
                    value: mem[l],
                    writer: writer[l],
                });
            }
        }
        let mut w = Witness {
            spinning: Vec::new(),
            blocked: Vec::new(),
            starved: Vec::new(),
            finished: Vec::new(),
            keeps_reading: kept_reads,
        };
        for (t, e) in ends.iter().enumerate() {
            let c = &self.prog.code[t];
            match e.class {
                Class::Done => w.finished.push(c.index),
                Class::Spins => {
                    let at = e.jump.and_then(|j| c.pos.get(j).copied().flatten()).unwrap_or_default();
                    w.spinning.push((c.index, at));
                }
                Class::Blocked => w.blocked.push((c.index, e.at.unwrap_or_default())),
                Class::Starved => w.starved.push((c.index, e.at)),
            }
        }
        Some(w)
    }

    /// Every location's value as test thread `t` last read it in the
    /// execution (its final value where the thread never read it).
    fn last_read(&self, t: usize) -> Vec<i64> {
        let (mut mem, _) = self.final_values(self.g);
        let index: HashMap<Loc, usize> = self
            .prog
            .locs
            .iter()
            .filter_map(|(name, &i)| self.allocs.get(name).and_then(|&k| loc_at(self.g, k)).map(|l| (l, i)))
            .collect();
        for ev in self.g.thread_events(t as ThreadId + 1) {
            if let EventKind::Read(r) = &ev.kind {
                if let Some(&i) = index.get(&r.loc) {
                    mem[i] = self.g.write_value(r.loc, r.rf) as i64;
                }
            }
        }
        mem
    }

    /// Every location's final value in `g` (its co-maximal write's), and
    /// that write as (thread, line), `None` for the initial value.
    fn final_values(&self, g: &ExecutionGraph) -> (Vec<i64>, Vec<Option<(u32, u32)>>) {
        let mut mem = self.prog.init.mem.clone();
        let mut writer: Vec<Option<(u32, u32)>> = vec![None; mem.len()];
        for (name, &i) in &self.prog.locs {
            if let Some(loc) = self.allocs.get(name).and_then(|&k| loc_at(g, k)) {
                let w = g.mo_max(loc);
                mem[i] = g.write_value(loc, w) as i64;
                if !w.is_init() {
                    let e = g.event(w);
                    writer[i] = Some((self.prog.code[w.thread as usize - 1].index, e.src.line));
                }
            }
        }
        (mem, writer)
    }

    /// Whether each thread's barrier arrivals fit: a thread passes the
    /// k-th instance of a barrier only once every participant arrived k
    /// times, and a blocked thread's instance never completes.
    fn barriers_ok(&self, ends: &[&End]) -> bool {
        // Per barrier, per thread: arrivals, and whether it waits at the last.
        let mut arrivals: BTreeMap<BarKey, BTreeMap<usize, (u32, bool)>> = BTreeMap::new();
        for (t, e) in ends.iter().enumerate() {
            for i in 0..e.keep as usize {
                if let Some(key) = self.barrier_key(t, i) {
                    arrivals.entry(key).or_default().entry(t).or_default().0 += 1;
                }
            }
            if let Some(key) = e.bar {
                let a = arrivals.entry(key).or_default().entry(t).or_default();
                a.0 += 1;
                a.1 = true;
            }
        }
        for (key, by) in &arrivals {
            let parts = self.prog.participants.get(key).cloned().unwrap_or_default();
            let least = parts
                .iter()
                .map(|&u| by.get(&(u as usize)).map_or(0, |a| a.0))
                .chain(
                    by.iter()
                        .filter(|(u, _)| !parts.contains(&(**u as u32)))
                        .map(|(_, a)| a.0),
                )
                .min()
                .unwrap_or(0);
            for &(count, waits) in by.values() {
                let passed = count - waits as u32;
                if passed > least || (waits && count <= least) {
                    return false;
                }
            }
        }
        true
    }
}

/// The location of the `k`-th allocation of the main thread.
fn loc_at(g: &ExecutionGraph, k: usize) -> Option<Loc> {
    g.thread_events(0)
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Alloc { loc, .. } => Some(loc),
            _ => None,
        })
        .nth(k)
}
