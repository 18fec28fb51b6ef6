//! Vulkan's free reads: the non-atomic reads whose values nothing in their
//! thread depends on (no `data`, `addr` or `ctrl` dependency leaves them;
//! not part of an RMW), such as the data reads after a barrier
//! (`xf-barrier`: six threads, thirty-six of them).
//!
//! The po ∪ rf-cyclic enumeration (`cyclic.rs`, `gpu_split.rs`) runs each
//! thread with promised values and validates every combination of the
//! threads' runs, giving every read each write of the value it took. A
//! free read multiplies both: its thread runs once per value it can take,
//! and each combination tries every write for it. Here instead:
//!
//! 1. A thread's runs that differ only in the values of their free reads
//!    are one [`Group`] (the same events otherwise, since nothing depends
//!    on those values), which keeps each run's final state by those values.
//! 2. The combinations are of groups, and the validation gives the other
//!    reads their writes and the locations their orders as before; the
//!    free reads are then given theirs location by location
//!    ([`complete`]): Vulkan's axioms split by location for non-atomic
//!    reads (`vulkan::check_without_rf`), so the consistent executions are,
//!    for each choice of `syncbar`, the product over locations of the
//!    choices consistent for each location alone.
//!
//! Each execution so found is an ordinary complete graph, judged whole
//! again by the caller: the split only decides which graphs to build.

use super::ast::{StateVar, Test, Value};
use super::gpu_cyclic;
use super::interp::FinalState;
use scopecheck_checker::event::{EventId, EventKind, Loc, ThreadId};
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::model::gpu::GpuEnv;
use scopecheck_checker::model::vulkan;
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

/// A group's final states by the values its free reads took.
pub type Members = HashMap<Vec<u64>, FinalState>;

/// A thread's runs that differ only in the values of their free reads.
pub struct Group {
    /// One of the runs: its graph and final state.
    pub graph: ExecutionGraph,
    /// That run's final state.
    pub state: FinalState,
    /// The free reads, as event indices in the thread, in po.
    pub free: Vec<u32>,
    /// Per tuple of values the free reads took, that run's final state.
    pub members: Members,
}

/// The free reads of engine thread `t` in `g`, a run of `alone` (the test
/// with only that thread's body). `env` is the Vulkan side table; with
/// `None` (PTX: its no-thin-air axiom reads rf) no read is free.
fn free_reads(alone: &Test, env: Option<&GpuEnv>, g: &ExecutionGraph, t: ThreadId) -> Vec<u32> {
    let Some(env) = env else { return Vec::new() };
    // A replay that cannot follow the run frees nothing (the validation
    // then treats every read as before).
    let Ok(deps) = gpu_cyclic::of(alone, g) else {
        return Vec::new();
    };
    g.thread_events(t)
        .iter()
        .enumerate()
        .filter(|(i, e)| {
            let EventKind::Read(r) = &e.kind else { return false };
            let id = EventId::new(t, *i as u32);
            let atomic = env.ops.get(&(e.src.line, e.src.column)).is_none_or(|op| op.atomic);
            r.rmw.is_none() && !atomic && !deps.iter().any(|&(from, _)| from == id)
        })
        .map(|(i, _)| i as u32)
        .collect()
}

/// A run's events as a key, the values of its free reads left out.
fn erased_key(g: &ExecutionGraph, t: ThreadId, free: &[u32]) -> String {
    let mut s = String::new();
    for (i, e) in g.thread_events(t).iter().enumerate() {
        if free.contains(&(i as u32)) {
            let EventKind::Read(r) = &e.kind else { continue };
            s.push_str(&format!("free read {:?} at {}:{};", r.loc, e.src.line, e.src.column));
        } else {
            let d = e.describe();
            s.push_str(d.split(" (rf ").next().unwrap_or(&d));
            s.push(';');
        }
    }
    s
}

/// Groups the distinct runs of engine thread `t` (see [`Group`]).
pub fn group(runs: Vec<(ExecutionGraph, FinalState)>, t: ThreadId, alone: &Test, env: Option<&GpuEnv>) -> Vec<Group> {
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for (g, state) in runs {
        let free = free_reads(alone, env, &g, t);
        let values: Vec<u64> = free
            .iter()
            .map(|&i| g.thread_events(t)[i as usize].as_read().map_or(0, |r| r.value))
            .collect();
        let key = erased_key(&g, t, &free);
        let entry = groups.entry(key).or_insert_with(|| Group {
            graph: g,
            state: state.clone(),
            free,
            members: HashMap::new(),
        });
        entry.members.entry(values).or_insert(state);
    }
    groups.into_values().collect()
}

/// The free reads of one combination of groups, as events of the graph
/// `gpu_split` builds from it.
pub struct FreeReads<'a> {
    /// Every free read, thread by thread in po.
    pub reads: Vec<EventId>,
    /// Per thread: its litmus index, its reads' range in `reads`, and its
    /// group's final states by the values those reads took.
    pub threads: Vec<(u32, std::ops::Range<usize>, &'a Members)>,
}

impl FreeReads<'_> {
    /// The final state when the free reads took `values` (in `reads`
    /// order): `base` with each thread's registers from its run with those
    /// values; `None` when a thread never ran with them (a value outside
    /// the promised domain).
    pub fn state(&self, base: &FinalState, values: &[u64]) -> Option<FinalState> {
        let mut state = base.clone();
        for (index, range, members) in &self.threads {
            let st = members.get(&values[range.clone()])?;
            for (v, val) in st {
                if matches!(v, StateVar::Reg { thread, .. } if thread == index) {
                    state.insert(v.clone(), val.clone());
                }
            }
        }
        Some(state)
    }

    /// Per thread (in `threads` order), each register of its final states
    /// and the free read (index in `reads`) whose value it holds in every
    /// run of the group, if one does (`ld r0, x` with `r0` not written
    /// again): such a register is known once that read has its value.
    pub fn ties(&self, show: &dyn Fn(u64) -> Value) -> Vec<Vec<(StateVar, Option<usize>)>> {
        self.threads
            .iter()
            .map(|(index, range, members)| {
                let mut regs: Vec<StateVar> = Vec::new();
                for st in members.values() {
                    for v in st.keys() {
                        if matches!(v, StateVar::Reg { thread, .. } if thread == index) && !regs.contains(v) {
                            regs.push(v.clone());
                        }
                    }
                }
                regs.into_iter()
                    .map(|v| {
                        let tie = range.clone().find(|&k| {
                            members
                                .iter()
                                .all(|(key, st)| st.get(&v) == Some(&show(key[k - range.start])))
                        });
                        (v, tie)
                    })
                    .collect()
            })
            .collect()
    }

    /// The value of `var` in [`FreeReads::state`]`(base, values)` when
    /// only some free reads have their values (`None`: not yet):
    /// `Err(())` when the open reads decide it. `ties` is [`FreeReads::ties`].
    pub fn known(
        &self,
        base: &FinalState,
        ties: &[Vec<(StateVar, Option<usize>)>],
        values: &[Option<u64>],
        show: &dyn Fn(u64) -> Value,
        var: &StateVar,
    ) -> Result<Option<Value>, ()> {
        for ((index, range, members), ties) in self.threads.iter().zip(ties) {
            if !matches!(var, StateVar::Reg { thread, .. } if thread == index) {
                continue;
            }
            let own = &values[range.clone()];
            if own.iter().all(Option::is_some) {
                let key: Vec<u64> = own.iter().map(|v| v.expect("every value known")).collect();
                let st = members.get(&key).ok_or(())?;
                return Ok(st.get(var).or(base.get(var)).cloned());
            }
            return match ties.iter().find(|(v, _)| v == var) {
                Some((_, Some(k))) => values[*k].map(|w| Some(show(w))).ok_or(()),
                Some((_, None)) => Err(()),
                // Never written by the thread's runs: the base's.
                None => Ok(base.get(var).cloned()),
            };
        }
        Ok(base.get(var).cloned())
    }
}

/// Consistent ways to give one graph's free reads their writes that
/// [`complete`] builds one by one, at most; past it, it builds a sample.
pub const MAX_PRODUCT: u64 = 4096;

/// What [`complete`] may spend, and what it left out.
pub struct Budget {
    /// Graphs judged or built, at most.
    pub graphs: u64,
    /// When it must stop.
    pub deadline: Option<Instant>,
    /// Set when some graph had more than [`MAX_PRODUCT`] consistent ways
    /// and only a sample of them was built: the outcome set is incomplete.
    pub sampled: Option<String>,
    /// Consistent executions known to exist so far, counted before they
    /// are built (a lower bound: per graph the most ways of one `syncbar`
    /// choice, each a distinct graph).
    pub counted: u64,
    /// Executions the run keeps; once `counted` passes it the run cannot
    /// be complete (its memory cap) and [`complete`] says so to `found`.
    pub cap: u64,
    /// A syncbar choice with more ways than this is only counted, and
    /// just the ways that may prove something are built (a settling one
    /// and the first, whose races every way shares): the caller's first
    /// pass, which learns cheaply whether the run can be complete at all.
    pub defer_over: u64,
    /// Set when some choice's ways were only counted: the caller must
    /// enumerate again with `defer_over` at `u64::MAX` unless it stops.
    pub deferred: bool,
}

impl Budget {
    /// Whether the run is known to be incomplete whatever it builds next.
    pub fn doomed(&self) -> bool {
        self.sampled.is_some() || self.counted > self.cap
    }
}

/// One way of one location: each of its free reads (index in
/// [`FreeReads::reads`]) with its write and the value it reads.
type Way = Vec<(usize, EventId, u64)>;

/// A location's free reads: each (index in [`FreeReads::reads`]) with its
/// candidate writes and their values.
type LocReads = Vec<(usize, Vec<(EventId, u64)>)>;

/// One syncbar choice that holds: its races, per location its consistent
/// ways, and their product's size.
type Choice = (Vec<(EventId, EventId)>, Vec<Vec<Way>>, u64);

/// What [`complete`] hands `found` with each execution.
pub struct Built<'a> {
    /// The execution.
    pub graph: &'a ExecutionGraph,
    /// The values the free reads took, in [`FreeReads::reads`] order.
    pub values: &'a [u64],
    /// Its racing pairs: those of its `syncbar` choice, which no free
    /// read's rf changes (they enter no `sw`).
    pub races: &'a [(EventId, EventId)],
    /// Whether the run is known to be incomplete ([`Budget::doomed`]).
    pub doomed: bool,
}

/// Gives the free reads of `g` (every other read given its write, every
/// location its order) their writes in every way the model allows, and
/// calls `found` with each such graph until it returns false. An error
/// says the budget ran out.
///
/// Every syncbar choice's ways are counted before any is built
/// ([`Budget::counted`]). Once the run is known to be incomplete, the
/// first way built is one whose final state settles the condition when
/// `seek` (the state's question for values known in part, see
/// `cyclic/settle.rs`) finds one among at most [`MAX_PRODUCT`] partial
/// ways; the caller can then stop at once.
#[allow(clippy::too_many_arguments)]
pub fn complete(
    g: &mut ExecutionGraph,
    free: &FreeReads,
    env: &GpuEnv,
    nodes: &mut vulkan::Coherence,
    chains_on: bool,
    budget: &mut Budget,
    seek: &dyn Fn(&[Option<u64>]) -> Option<bool>,
    found: &mut dyn FnMut(Built) -> bool,
) -> Result<(), String> {
    let is_free = |id: EventId| free.reads.contains(&id);
    let spend = |budget: &mut Budget| {
        if budget.graphs == 0 {
            return Err(format!(
                "the po ∪ rf-cyclic enumeration ran out of its budget giving {} free non-atomic reads their writes",
                free.reads.len()
            ));
        }
        budget.graphs -= 1;
        if budget.graphs.is_multiple_of(256) && budget.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err("timeout (--timeout)".into());
        }
        Ok(())
    };
    // Most graphs fail here (a combination's rf and mo choices of its
    // other reads, 88 per combination in `xf-barrier-cbar-rlx-2`, one
    // coherent): before any other work.
    spend(budget)?;
    if !nodes.holds(g, env, &is_free) {
        return Ok(());
    }
    // Candidates per free read: the writes of its location whose value
    // its thread ran with at that position.
    let mut allowed: Vec<Vec<u64>> = vec![Vec::new(); free.reads.len()];
    for (_, range, members) in &free.threads {
        for key in members.keys() {
            for (k, v) in range.clone().zip(key) {
                if !allowed[k].contains(v) {
                    allowed[k].push(*v);
                }
            }
        }
    }
    let mut by_loc: BTreeMap<Loc, LocReads> = BTreeMap::new();
    for (k, &r) in free.reads.iter().enumerate() {
        let loc = g.event(r).as_read().expect("a free read is a read").loc;
        let d = g.loc(loc).expect("loc");
        let mut c = Vec::new();
        if allowed[k].contains(&d.init) {
            c.push((EventId::INIT, d.init));
        }
        for &w in &d.mo {
            let v = g.write_value(loc, w);
            if allowed[k].contains(&v) {
                c.push((w, v));
            }
        }
        if c.is_empty() {
            return Ok(());
        }
        by_loc.entry(loc).or_default().push((k, c));
    }
    let set = |g: &mut ExecutionGraph, k: usize, w: EventId, value: u64| {
        if let EventKind::Read(rd) = &mut g.event_mut(free.reads[k]).kind {
            rd.rf = w;
            rd.value = value;
        }
    };
    // Per syncbar choice: its races and, per location, the ways of its
    // free reads consistent with the rest (the other locations' free
    // reads unread).
    let mut choices: Vec<Choice> = Vec::new();
    for p in vulkan::prepare_nodes(nodes.nodes(), env, chains_on) {
        // The rest alone (every free read unread) must hold already.
        spend(budget)?;
        if p.finish(&p.rf_of(g, &is_free)).is_err() {
            continue;
        }
        let mut per_loc: Vec<Vec<Way>> = Vec::new();
        for (loc, reads) in &by_loc {
            let here = p.at(*loc);
            let mut ok = Vec::new();
            let mut pick = vec![0usize; reads.len()];
            loop {
                spend(budget)?;
                for (j, (k, c)) in reads.iter().enumerate() {
                    let (w, v) = c[pick[j]];
                    set(g, *k, w, v);
                }
                if here.finish(&here.rf_of(g, &|_| false)).is_ok() {
                    ok.push(
                        reads
                            .iter()
                            .zip(&pick)
                            .map(|((k, c), &i)| (*k, c[i].0, c[i].1))
                            .collect(),
                    );
                }
                if !odometer(&mut pick, |j| reads[j].1.len()) {
                    break;
                }
            }
            if ok.is_empty() {
                break;
            }
            per_loc.push(ok);
        }
        if per_loc.len() < by_loc.len() {
            continue;
        }
        let total = per_loc
            .iter()
            .try_fold(1u64, |acc, c| acc.checked_mul(c.len() as u64))
            .unwrap_or(u64::MAX);
        choices.push((p.races, per_loc, total));
    }
    // Within one syncbar choice every way is a distinct graph; two choices
    // may accept the same graph, so only the largest counts for sure.
    let most = choices.iter().map(|c| c.2).max().unwrap_or(0);
    budget.counted = budget.counted.saturating_add(most);
    for (races, per_loc, total) in &choices {
        // Their product: every consistent way under this choice. Past
        // MAX_PRODUCT (reads that race can each take either value: 2^k
        // ways), a sample: the first way, and each other choice of one
        // location with the first of the rest; the result then says it is
        // incomplete, and only what the sample proves is an answer.
        if *total > MAX_PRODUCT && budget.sampled.is_none() {
            budget.sampled = Some(format!(
                "the {} free non-atomic reads of one combination of the threads' runs can take their writes in \
                     {} consistent ways, more than {MAX_PRODUCT}: a sample of them was built (each location's \
                     ways with the other locations' first); the outcome set is incomplete",
                free.reads.len(),
                if *total == u64::MAX {
                    "more than 2^64".to_string()
                } else {
                    total.to_string()
                }
            ));
        }
        let deferred = *total > budget.defer_over;
        budget.deferred |= deferred;
        let rest: Box<dyn Iterator<Item = Vec<usize>>> = if deferred {
            Box::new(std::iter::once(vec![0; per_loc.len()]))
        } else if *total <= MAX_PRODUCT {
            Box::new(Product::new(per_loc.iter().map(Vec::len).collect()))
        } else {
            let mut star = vec![vec![0; per_loc.len()]];
            for (l, ways) in per_loc.iter().enumerate() {
                for i in 1..ways.len() {
                    let mut p = vec![0; per_loc.len()];
                    p[l] = i;
                    star.push(p);
                }
            }
            Box::new(star.into_iter())
        };
        let doomed = budget.doomed();
        // Known incomplete: a way that settles the condition first (it may
        // come again in `rest`; the caller keeps each graph once).
        let first = if doomed || deferred {
            settling(per_loc, free.reads.len(), seek)
        } else {
            None
        };
        let mut values = vec![0u64; free.reads.len()];
        for pick in first.into_iter().chain(rest) {
            spend(budget)?;
            for (l, ways) in per_loc.iter().enumerate() {
                for &(k, w, v) in &ways[pick[l]] {
                    set(g, k, w, v);
                    values[k] = v;
                }
            }
            let built = Built {
                graph: g,
                values: &values,
                races,
                doomed: budget.doomed(),
            };
            if !found(built) {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// A way per location whose state settles the condition for every value
/// of the reads left open, found by a depth-first search over the
/// locations that asks `seek` at each step and gives up after
/// [`MAX_PRODUCT`] steps; `None` when it found none. Ways of a location
/// that give its reads the same values are tried once.
fn settling(per_loc: &[Vec<Way>], n: usize, seek: &dyn Fn(&[Option<u64>]) -> Option<bool>) -> Option<Vec<usize>> {
    struct Search<'a> {
        per_loc: &'a [Vec<Way>],
        seek: &'a dyn Fn(&[Option<u64>]) -> Option<bool>,
        values: Vec<Option<u64>>,
        pick: Vec<usize>,
        steps: u64,
    }
    impl Search<'_> {
        fn go(&mut self, l: usize) -> bool {
            match (self.seek)(&self.values) {
                Some(answer) => return answer,
                None if l == self.per_loc.len() || self.steps == 0 => return false,
                None => {}
            }
            self.steps -= 1;
            let mut tried: Vec<Vec<u64>> = Vec::new();
            for (i, way) in self.per_loc[l].iter().enumerate() {
                let key: Vec<u64> = way.iter().map(|&(_, _, v)| v).collect();
                if tried.contains(&key) {
                    continue;
                }
                tried.push(key);
                for &(k, _, v) in way {
                    self.values[k] = Some(v);
                }
                self.pick[l] = i;
                if self.go(l + 1) {
                    return true;
                }
            }
            for &(k, _, _) in &self.per_loc[l][0] {
                self.values[k] = None;
            }
            self.pick[l] = 0;
            false
        }
    }
    let mut s = Search {
        per_loc,
        seek,
        values: vec![None; n],
        pick: vec![0; per_loc.len()],
        steps: MAX_PRODUCT,
    };
    s.go(0).then_some(s.pick)
}

/// Every tuple below the given sizes (the first digit fastest).
struct Product {
    sizes: Vec<usize>,
    next: Option<Vec<usize>>,
}

impl Product {
    fn new(sizes: Vec<usize>) -> Product {
        let next = sizes.iter().all(|&s| s > 0).then(|| vec![0; sizes.len()]);
        Product { sizes, next }
    }
}

impl Iterator for Product {
    type Item = Vec<usize>;
    fn next(&mut self) -> Option<Vec<usize>> {
        let cur = self.next.take()?;
        let mut n = cur.clone();
        if odometer(&mut n, |j| self.sizes[j]) {
            self.next = Some(n);
        }
        Some(cur)
    }
}

/// Advances `pick` (digit j ranging below `len(j)`); false after the last.
fn odometer(pick: &mut [usize], len: impl Fn(usize) -> usize) -> bool {
    for (j, digit) in pick.iter_mut().enumerate() {
        *digit += 1;
        if *digit < len(j) {
            return true;
        }
        *digit = 0;
    }
    false
}
