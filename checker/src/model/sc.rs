//! Sequential consistency in linear time, for the explorer.
//!
//! SC's axioms (`Relations::check` with `sc_model`) are RMW atomicity,
//! rmw ∩ (fr ; mo) = ∅, and acyclic(po ∪ eco) with eco = (rf ∪ mo ∪ fr)+.
//! The relation algebra builds bit matrices over all events and closes
//! them, which the explorer paid for every read and write it added under
//! `sc` (a random walk of 4-event store buffering spent 86% of its time
//! there). Both axioms have a cheaper form on the graph itself:
//!
//! - a cycle in po ∪ eco is a cycle in po₁ ∪ rf ∪ mo₁ ∪ fr₁, where po₁ is
//!   the immediate program-order step (with spawn → start, end → join and
//!   barrier partner edges, as `Relations::of` puts them in po), mo₁ the
//!   immediate mo step, and fr₁ links a read to the write right after the
//!   one it read (the rest of fr follows through mo₁); so one topological
//!   sort over the events decides it;
//! - atomicity holds when no write of the location sits strictly between
//!   the write an RMW read and the RMW's own write in mo.
//!
//! Initial writes need no node: nothing reaches them, so they lie on no
//! cycle. In builds with debug assertions every verdict is compared with
//! the relation algebra's.

use super::relations::{Axiom, Relations};
use super::semantics::Semantics;
use crate::event::*;
use crate::graph::{ExecutionGraph, SyncRules};

/// `sc`: acyclic(po ∪ rf ∪ mo ∪ fr) and atomicity; every atomic access
/// synchronizes as if it were seq_cst. Coherence holds by construction
/// but not the rest of SC, so every graph under construction is checked
/// (in linear time, [`consistent`]).
pub struct ScModel;

impl Semantics for ScModel {
    const NAME: &'static str = "sc";
    const CODE: u8 = 0;
    const SYNC: SyncRules = SyncRules {
        all_sc: true,
        same_thread_rs: false,
        scoped: false,
    };
    const COHERENT: bool = true;
    const HB_RACES: bool = true;

    fn check_needed(_sc_events: usize, _new_sc: bool) -> bool {
        true
    }

    fn check_graph(g: &ExecutionGraph) -> Result<(), Axiom> {
        crate::work::full_check();
        let ok = consistent(g);
        debug_assert_eq!(
            ok,
            Relations::of(g, Self::SYNC).check(g, true).is_ok(),
            "checker invariant: the linear SC check agrees with the relation algebra"
        );
        if ok {
            Ok(())
        } else {
            Err(Axiom::SequentialConsistency)
        }
    }

    fn consistent_declarative(g: &ExecutionGraph) -> Result<(), Axiom> {
        Relations::of(g, Self::SYNC).check(g, true)
    }
}

/// Whether `g` satisfies SC's axioms (atomicity and acyclic(po ∪ eco)).
pub fn consistent(g: &ExecutionGraph) -> bool {
    check(g, true)
}

/// Whether po ∪ eco is acyclic in `g` (atomicity not judged).
///
/// RC11's psc lies inside (po ∪ rf ∪ mo ∪ fr)+: its parts are po, hb, mo,
/// fr and eco, and hb ⊆ (po ∪ rf)+ since sw is built from po and rf. So a
/// graph that passes this has an acyclic psc, and the relation algebra is
/// needed only for the graphs that do not (a psc check then decides).
pub fn po_eco_acyclic(g: &ExecutionGraph) -> bool {
    check(g, false)
}

/// The vectors one check works in, kept per OS thread: the explorer asks
/// for every candidate of every read and every place of every write, and
/// eight fresh allocations per check were a third of a random walk's time
/// under `sc`.
#[derive(Default)]
struct Scratch {
    offset: Vec<u32>,
    edges: Vec<(u32, u32)>,
    position: Vec<u32>,
    kahn: Kahn,
}

/// The working space of the topological sort.
#[derive(Default)]
struct Kahn {
    indegree: Vec<u32>,
    start: Vec<u32>,
    fill: Vec<u32>,
    succ: Vec<u32>,
    ready: Vec<u32>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

fn check(g: &ExecutionGraph, atomicity: bool) -> bool {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => check_in(g, atomicity, &mut s),
        Err(_) => check_in(g, atomicity, &mut Scratch::default()),
    })
}

fn check_in(g: &ExecutionGraph, atomicity: bool, s: &mut Scratch) -> bool {
    // Dense node numbers: thread by thread.
    let threads = g.num_threads();
    s.offset.clear();
    let mut total = 0u32;
    for t in 0..threads as ThreadId {
        s.offset.push(total);
        total += g.thread_len(t);
    }
    let offset = &s.offset;
    let node = |e: EventId| (offset[e.thread as usize] + e.index) as usize;
    let n = total as usize;
    let edges = &mut s.edges;
    edges.clear();
    let mut edge = |a: EventId, b: EventId| edges.push((node(a) as u32, node(b) as u32));
    for (id, e) in g.events() {
        if id.index + 1 < g.thread_len(id.thread) {
            edge(id, id.next());
        }
        match &e.kind {
            EventKind::Start { parent: Some(p) } => edge(*p, id),
            EventKind::Join { target } => edge(EventId::new(*target, g.thread_len(*target) - 1), id),
            EventKind::Barrier { partners, .. } => partners.iter().for_each(|&p| edge(p, id)),
            EventKind::Read(r) if !r.rf.is_init() => edge(r.rf, id),
            _ => {}
        }
    }
    // Each write's mo position (1-based; the initial write is 0).
    s.position.clear();
    s.position.resize(n, 0);
    let position = &mut s.position;
    for (_, d) in g.locs() {
        if d.kind == LocKind::Cell {
            continue;
        }
        for (i, &w) in d.mo.iter().enumerate() {
            position[node(w)] = i as u32 + 1;
        }
        for pair in d.mo.windows(2) {
            edge(pair[0], pair[1]);
        }
        let pos = |w: EventId| if w.is_init() { 0 } else { position[node(w)] as usize };
        for &r in &d.reads {
            let rf = g.event(r).as_read().expect("reads list holds reads").rf;
            // fr₁: the write right after rf in mo (index pos(rf) in `mo`).
            if let Some(&next) = d.mo.get(pos(rf)) {
                edge(r, next);
            }
        }
        for (i, &w) in d.mo.iter().enumerate().filter(|_| atomicity) {
            if g.event(w).as_write().is_some_and(|x| x.rmw) {
                let rf = g
                    .event(EventId::new(w.thread, w.index - 1))
                    .as_read()
                    .expect("an RMW write follows its read")
                    .rf;
                // w sits at position i + 1; its source must be right before.
                if pos(rf) < i {
                    return false;
                }
            }
        }
    }
    acyclic(n, &s.edges, &mut s.kahn)
}

/// Kahn's algorithm: whether the graph of `n` nodes and `edges` has no
/// cycle (`w` is its working space).
fn acyclic(n: usize, edges: &[(u32, u32)], w: &mut Kahn) -> bool {
    w.indegree.clear();
    w.indegree.resize(n, 0);
    w.start.clear();
    w.start.resize(n + 1, 0);
    for &(a, b) in edges {
        w.indegree[b as usize] += 1;
        w.start[a as usize + 1] += 1;
    }
    for i in 0..n {
        w.start[i + 1] += w.start[i];
    }
    // Node a's successors go to succ[start[a]..start[a + 1]].
    w.fill.clear();
    w.fill.extend_from_slice(&w.start);
    w.succ.clear();
    w.succ.resize(edges.len(), 0);
    for &(a, b) in edges {
        w.succ[w.fill[a as usize] as usize] = b;
        w.fill[a as usize] += 1;
    }
    w.ready.clear();
    w.ready.extend((0..n as u32).filter(|&i| w.indegree[i as usize] == 0));
    let mut done = 0;
    while let Some(a) = w.ready.pop() {
        done += 1;
        for i in w.start[a as usize]..w.start[a as usize + 1] {
            let b = w.succ[i as usize] as usize;
            w.indegree[b] -= 1;
            if w.indegree[b] == 0 {
                w.ready.push(b as u32);
            }
        }
    }
    done == n
}
