//! Step 3, the validation: each kept way a test's threads ran, without the
//! promising thread, with every read given every write of the value it took
//! and every location every order of its writes, judged by the model.

use super::rf_choices::RfChoices;
use super::*;
use crate::litmus::gpu_orders::Orders;

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
/// any value their threads ran with. An error says why it stopped early
/// (the budget of graphs ran out, or the deadline passed).
#[allow(clippy::too_many_arguments)]
pub(super) fn validate(
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
    let gpu_env = match model {
        CyclicModel::Gpu(m, env) => Some((m, env)),
        _ => None,
    };
    let mut orders = Orders::new(base, gpu_env, &locs);
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
                if !orders.next(&mut perms) {
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
