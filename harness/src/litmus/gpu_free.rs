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

use super::ast::{StateVar, Test};
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
}

/// Gives the free reads of `g` (every other read given its write, every
/// location its order) their writes in every way the model allows, and
/// calls `found` with each such graph and the values the free reads took
/// (in `free.reads` order) until it returns false. An error says the
/// budget ran out.
pub fn complete(
    g: &mut ExecutionGraph,
    free: &FreeReads,
    env: &GpuEnv,
    chains_on: bool,
    budget: &mut Budget,
    found: &mut dyn FnMut(&ExecutionGraph, &[u64]) -> bool,
) -> Result<(), String> {
    let is_free = |id: EventId| free.reads.contains(&id);
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
    let mut by_loc: BTreeMap<Loc, Vec<(usize, Vec<EventId>)>> = BTreeMap::new();
    for (k, &r) in free.reads.iter().enumerate() {
        let loc = g.event(r).as_read().expect("a free read is a read").loc;
        let d = g.loc(loc).expect("loc");
        let mut c = Vec::new();
        if allowed[k].contains(&d.init) {
            c.push(EventId::INIT);
        }
        for &w in &d.mo {
            if allowed[k].contains(&g.write_value(loc, w)) {
                c.push(w);
            }
        }
        if c.is_empty() {
            return Ok(());
        }
        by_loc.entry(loc).or_default().push((k, c));
    }
    let set = |g: &mut ExecutionGraph, k: usize, w: EventId| {
        let loc = g.event(free.reads[k]).as_read().expect("read").loc;
        let value = if w.is_init() {
            g.loc(loc).expect("loc").init
        } else {
            g.write_value(loc, w)
        };
        if let EventKind::Read(rd) = &mut g.event_mut(free.reads[k]).kind {
            rd.rf = w;
            rd.value = value;
        }
    };
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
    spend(budget)?;
    if !vulkan::coherent_enough(g, env, &is_free) {
        return Ok(());
    }
    for p in vulkan::prepare(g, env, chains_on) {
        // The rest alone (every free read unread) must hold already.
        spend(budget)?;
        if p.finish(&p.rf_of(g, &is_free)).is_err() {
            continue;
        }
        // Per location, the choices of its free reads' writes consistent
        // with the rest (the other locations' free reads unread).
        let mut per_loc: Vec<Vec<Vec<(usize, EventId)>>> = Vec::new();
        for (loc, reads) in &by_loc {
            let here = p.at(*loc);
            let mut ok = Vec::new();
            let mut pick = vec![0usize; reads.len()];
            loop {
                spend(budget)?;
                for (j, (k, c)) in reads.iter().enumerate() {
                    set(g, *k, c[pick[j]]);
                }
                if here.finish(&here.rf_of(g, &|_| false)).is_ok() {
                    ok.push(reads.iter().zip(&pick).map(|((k, c), &i)| (*k, c[i])).collect());
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
        // Their product: every consistent way under this choice. Past
        // MAX_PRODUCT (reads that race can each take either value: 2^k
        // ways), a sample: the first way, and each other choice of one
        // location with the first of the rest; the result then says it is
        // incomplete, and only what the sample proves is an answer.
        let total = per_loc
            .iter()
            .try_fold(1u64, |acc, c| acc.checked_mul(c.len() as u64))
            .unwrap_or(u64::MAX);
        let picks: Box<dyn Iterator<Item = Vec<usize>>> = if total <= MAX_PRODUCT {
            Box::new(Product::new(per_loc.iter().map(Vec::len).collect()))
        } else {
            if budget.sampled.is_none() {
                budget.sampled = Some(format!(
                    "the {} free non-atomic reads of one combination of the threads' runs can take their writes in \
                     {} consistent ways, more than {MAX_PRODUCT}: a sample of them was built (each location's \
                     ways with the other locations' first); the outcome set is incomplete",
                    free.reads.len(),
                    if total == u64::MAX {
                        "more than 2^64".to_string()
                    } else {
                        total.to_string()
                    }
                ));
            }
            let mut star = vec![vec![0; per_loc.len()]];
            for (l, choices) in per_loc.iter().enumerate() {
                for i in 1..choices.len() {
                    let mut p = vec![0; per_loc.len()];
                    p[l] = i;
                    star.push(p);
                }
            }
            Box::new(star.into_iter())
        };
        let mut values = vec![0u64; free.reads.len()];
        for pick in picks {
            spend(budget)?;
            for (l, choices) in per_loc.iter().enumerate() {
                for &(k, w) in &choices[pick[l]] {
                    set(g, k, w);
                    values[k] = g.event(free.reads[k]).as_read().expect("read").value;
                }
            }
            if !found(g, &values) {
                return Ok(());
            }
        }
    }
    Ok(())
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
