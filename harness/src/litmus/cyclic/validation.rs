//! Step 3, the validation: each kept way a test's threads ran, without the
//! promising thread, with every read given every write of the value it took
//! and every location every order of its writes, judged by the model.

use super::rf_choices::RfChoices;
use super::settle::Settle;
use super::*;
use crate::litmus::gpu_orders::{Orders, Rules};

/// What the validation may spend and what it rejected.
pub(super) struct Tally {
    /// Graphs it may still judge.
    pub(super) budget: u64,
    /// When it must stop.
    pub(super) deadline: Option<Instant>,
    /// Graphs judged inconsistent (with repetitions).
    pub(super) rejected: u64,
    /// Why only a sample of some graph's executions was built
    /// (gpu_free.rs): the outcome set is then incomplete.
    pub(super) sampled: Option<String>,
    /// Consistent executions of free reads counted before they were built
    /// (gpu_free.rs, [`gpu_free::Budget::counted`]).
    pub(super) counted: u64,
    /// Executions the run keeps at most.
    pub(super) cap: u64,
    /// [`gpu_free::Budget::defer_over`] and [`gpu_free::Budget::deferred`].
    pub(super) defer_over: u64,
    pub(super) deferred: bool,
}

/// A consistent execution [`validate`] found.
pub(super) struct Kept<'a> {
    /// Its graph.
    pub(super) graph: &'a ExecutionGraph,
    /// Its final state.
    pub(super) state: FinalState,
    /// Whether po ∪ rf has a cycle in it.
    pub(super) cyclic: bool,
    /// Its racing pairs when the judge gave them (GPU models); `None`:
    /// not judged for races yet.
    pub(super) races: Option<Vec<(EventId, EventId)>>,
    /// Whether the run is known to be incomplete whatever comes next (its
    /// free reads have more executions than the run keeps, or only a
    /// sample was built): the caller may stop once the answer is proven.
    pub(super) doomed: bool,
}

/// The engine location of layout element (`base`, `elem`) in `g`: the
/// main thread allocates them in layout order.
pub(super) fn loc_of(prog: &Program, g: &ExecutionGraph, base: u32, elem: u32) -> Option<Loc> {
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
pub(super) fn without_ghost(g: &ExecutionGraph, ghost: ThreadId) -> Option<ExecutionGraph> {
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
/// any value their threads ran with, and once the run is known to be
/// incomplete a way whose state `settle`s the condition is built first.
/// An error says why it stopped early (the budget of graphs ran out, or
/// the deadline passed).
#[allow(clippy::too_many_arguments)]
pub(super) fn validate(
    prog: &Program,
    operands: &Operands,
    base: &ExecutionGraph,
    state: &FinalState,
    free: Option<&FreeReads>,
    model: CyclicModel,
    tally: &mut Tally,
    settle: &Settle,
    keep: &mut dyn FnMut(Kept) -> bool,
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
    let rules = match model {
        CyclicModel::Gpu(m, env) => Some(Rules::Gpu(m, env)),
        // Where a thread's accesses to a location are in hb in po order
        // (`po_in_hb`: C11; OpenCL with every location in a memory region),
        // and not with unsequenced operands (po not all in hb): exactly
        // where the reads are cut by own_coherence.rs.
        CyclicModel::C11 | CyclicModel::OpenCl(_) if prog.own_coherence => Some(Rules::C),
        CyclicModel::C11 | CyclicModel::OpenCl(_) => None,
    };
    let mut orders = Orders::new(base, rules, prog.cross_checks.every_order, &locs);
    let mut g = base.clone();
    let bound = orders.bound().clone();
    // Writes an RMW can never read whatever the rest (gpu_orders.rs).
    for (r, c) in &mut reads {
        c.retain(|&w| bound.possible(*r, w));
        if c.is_empty() {
            return Ok(());
        }
    }
    let conflict = |a, b| bound.conflict(a, b);
    // The nodes of this combination's graphs, built once for all its rf
    // and mo choices (gpu_free.rs).
    let mut nodes: Option<scopecheck_checker::model::vulkan::Coherence> = None;
    let Some(mut rf) = RfChoices::first(&reads, &conflict) else {
        return Ok(());
    };
    loop {
        for (k, (r, c)) in reads.iter().enumerate() {
            if let EventKind::Read(rd) = &mut g.event_mut(*r).kind {
                rd.rf = c[rf.pick[k]];
            }
        }
        // Every order of every location's writes (under a GPU model, those
        // its coherence and the RMWs' atomicity leave under this rf:
        // gpu_orders.rs; none, and no graph, when they leave none).
        let Some(mut perms) = orders.start(&g, &locs) else {
            if !rf.next(&reads) {
                return Ok(());
            }
            continue;
        };
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
            // An RMW's atomicity, checked cheaply first (gpu_orders.rs).
            if !orders.atomic_ok(&g) {
                tally.rejected += 1;
                if !orders.next(&mut perms) {
                    break;
                }
                continue;
            }
            if let (Some(f), CyclicModel::Gpu(m, env), Some(judge)) = (free, model, &gpu) {
                let mut budget = gpu_free::Budget {
                    graphs: tally.budget,
                    deadline: tally.deadline,
                    sampled: tally.sampled.take(),
                    counted: tally.counted,
                    cap: tally.cap,
                    defer_over: tally.defer_over,
                    deferred: tally.deferred,
                };
                let whole = prog.cross_checks.judge_whole;
                // The locations' final values and the other registers do
                // not depend on the free reads.
                let located = final_locations(prog, &g, state.clone());
                let show = |w: u64| prog.show_word(w);
                // Only a run known to be incomplete seeks (rarely).
                let ties = std::cell::OnceCell::new();
                let seek = |values: &[Option<u64>]| {
                    let ties = ties.get_or_init(|| f.ties(&show));
                    settle.partial(&|v| f.known(&located, ties, values, &show, v))
                };
                let mut fault = None;
                let mut go_on = true;
                let nodes = nodes.get_or_insert_with(|| scopecheck_checker::model::vulkan::Coherence::of(&g, env));
                let r = gpu_free::complete(
                    &mut g,
                    f,
                    env,
                    nodes,
                    m == GpuModel::Vulkan,
                    &mut budget,
                    &seek,
                    &mut |b| {
                        if whole {
                            // The test switch: the split must agree with the
                            // whole graph's judgement, races and all.
                            match judge.judge(b.graph) {
                                Err(axiom) => {
                                    fault = Some(format!(
                                        "internal error of the checker (not of the test): an execution built \
                                     location by location violates {axiom} as a whole"
                                    ));
                                    return false;
                                }
                                Ok(races) if races != b.races => {
                                    fault = Some(format!(
                                        "internal error of the checker (not of the test): an execution built \
                                     location by location has races {:?}, as a whole {races:?}",
                                        b.races
                                    ));
                                    return false;
                                }
                                Ok(_) => {}
                            }
                        }
                        let Some(st) = f.state(&located, b.values) else {
                            return true;
                        };
                        go_on = keep(Kept {
                            graph: b.graph,
                            state: st,
                            cyclic: has_porf_cycle(b.graph),
                            races: Some(b.races.to_vec()),
                            doomed: b.doomed,
                        });
                        go_on
                    },
                );
                tally.budget = budget.graphs;
                tally.sampled = budget.sampled;
                tally.counted = budget.counted;
                tally.deferred = budget.deferred;
                r?;
                if let Some(why) = fault {
                    return Err(why);
                }
                if !go_on {
                    return Ok(());
                }
                if !orders.next(&mut perms) {
                    break;
                }
                continue;
            }
            // `Some(races)` when consistent (a GPU judge gives the races
            // too; the others' are judged later).
            let ok = match model {
                CyclicModel::C11 => c11::check_unsequenced(&g, c11::Judge::Complete, &unsequenced)
                    .is_ok()
                    .then_some(None),
                CyclicModel::OpenCl(env) => opencl::check_unsequenced(&g, env, &unsequenced).is_ok().then_some(None),
                CyclicModel::Gpu(..) => gpu.as_ref().and_then(|j| j.judge(&g).ok()).map(Some),
            };
            if let Some(races) = ok {
                let kept = Kept {
                    graph: &g,
                    state: final_locations(prog, &g, state.clone()),
                    cyclic: has_porf_cycle(&g),
                    races,
                    doomed: tally.sampled.is_some() || tally.counted > tally.cap,
                };
                if !keep(kept) {
                    return Ok(());
                }
            } else {
                tally.rejected += 1;
            }
            if !orders.next(&mut perms) {
                break;
            }
        }
        if !rf.next(&reads) {
            return Ok(());
        }
    }
}

/// `state` with each location's final value from `g`'s mo.
pub(super) fn final_locations(prog: &Program, g: &ExecutionGraph, mut state: FinalState) -> FinalState {
    for (v, val) in state.iter_mut() {
        if let crate::litmus::ast::StateVar::Loc { name, index } = v {
            let b = prog.layout.index_of(name);
            if let Some(loc) = loc_of(prog, g, b, *index) {
                *val = prog.show_word(g.write_value(loc, g.mo_max(loc)));
            }
        }
    }
    state
}

/// Whether po ∪ rf has a cycle in `g`.
pub(super) fn has_porf_cycle(g: &ExecutionGraph) -> bool {
    use scopecheck_checker::model::relations::Relations;
    let rel = Relations::of(g, Default::default());
    let mut porf = rel.po.clone();
    porf.union_with(&rel.rf);
    porf.has_cycle()
}
