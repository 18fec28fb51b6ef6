//! The Vulkan memory model (docs/gpu-models.md), as Dat3M's `vulkan.cat`
//! (availability / visibility chains) and `vulkan-nochains.cat` define it,
//! judged on each complete graph the explorer builds under
//! [`MemoryModel::Porf`](crate::MemoryModel::Porf); and its data races
//! (`racy3c3`). Every `let` of the cat file is a local below under the
//! same name, with its definition beside it.
//!
//! `ssw` (system-synchronizes-with) relates every event of a thread to
//! every event of each thread a Vulkan litmus test's `ssw a b` block names
//! after it ([`GpuEnv::ssw`], as Dat3M's sync sets). `co` is the engine's mo (total per location, initial
//! write first), as in Dat3M.

use super::gpu::alg::*;
use super::gpu::{GpuEnv, GpuKind, Node, NodeKind, Nodes};
use super::relations::Rel;
use crate::event::{EventId, Loc, ThreadId};
use crate::graph::ExecutionGraph;
use std::collections::HashMap;

/// A Vulkan axiom a graph violates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VulkanAxiom {
    /// `consistency-cycle`: acyclic(locord | rf | fr | asmo).
    ConsistencyCycle,
    /// `consistency-rf`: a non-atomic read reads a write shadowed by another.
    ConsistencyRf,
    /// `atomic`: rmw & (fre; (asmo & ext)) is not empty.
    Atomic,
    /// A barrier's quorum is never reached: no execution of this graph finishes.
    BarrierHang,
}

/// Judges a complete graph: `Err` names the first violated axiom; `Ok`
/// lists the racing pairs (`dr`, flagged as `racy3c3`), each once.
pub fn check(g: &ExecutionGraph, env: &GpuEnv, chains_on: bool) -> Result<Vec<(EventId, EventId)>, VulkanAxiom> {
    check_without_rf(g, env, chains_on, &|_| false)
}

/// [`check`] with the rf edges of the reads `unread` selects left out (as
/// if those reads had not been given their writes yet): no `rf` into them,
/// no `fr` out of them, no `consistency-rf` for them.
///
/// For non-atomic reads this splits the judgement by location: such a
/// read's rf enters no `sw` (which needs atomic reads), so `hb`, `locord`,
/// `asmo`, `syncbar` and the races do not depend on it, and every edge of
/// `consistency-cycle` (locord, rf, fr, asmo) relates two accesses of one
/// location. With one choice of `syncbar`, a graph is consistent exactly
/// when, for each location, the graph with only that location's
/// non-atomic reads given their writes is (`harness/src/litmus/gpu_free.rs`
/// builds on this).
pub fn check_without_rf(
    g: &ExecutionGraph,
    env: &GpuEnv,
    chains_on: bool,
    unread: &dyn Fn(EventId) -> bool,
) -> Result<Vec<(EventId, EventId)>, VulkanAxiom> {
    let mut last = Err(VulkanAxiom::BarrierHang);
    for p in prepare(g, env, chains_on) {
        last = p.finish(&p.rf_of(g, unread)).map(|()| p.races);
        if last.is_ok() {
            break;
        }
    }
    last
}

/// A necessary condition of `consistency-cycle` that needs no `hb`:
/// acyclic(po-loc | rf | asmo | rf^-1; asmo | fr from the initial write),
/// each a part of the axiom's relations (`po & loc & vloc` is in
/// `locord`, since `po` is in `hb`). False rules the graph out; true
/// decides nothing. It is cheap (no closure of `hb`), so the enumeration
/// asks it before [`prepare`]. The reads `unread` selects count as not
/// given their writes yet (as in [`check_without_rf`]).
pub fn coherent_enough(g: &ExecutionGraph, env: &GpuEnv, unread: &dyn Fn(EventId) -> bool) -> bool {
    Coherence::of(g, env).holds(g, env, unread)
}

/// [`coherent_enough`] for many graphs with the same events (one
/// combination's rf and mo choices): the nodes and `po-loc` are built
/// once, rf and mo taken from each graph ([`Nodes::refresh`]).
pub struct Coherence {
    ns: Nodes,
    po_loc: Rel,
}

impl Coherence {
    /// The nodes of `g` and their `po & loc & vloc`.
    pub fn of(g: &ExecutionGraph, env: &GpuEnv) -> Coherence {
        let ns = Nodes::of(g, env);
        let po_loc = tab(ns.nodes.len(), |a, b| {
            ns.po(a, b) && ns.same_loc(a, b) && ns.same_vloc(a, b)
        });
        Coherence { ns, po_loc }
    }

    /// The nodes, with rf and mo of the graph last given to [`Coherence::holds`].
    pub fn nodes(&self) -> &Nodes {
        &self.ns
    }

    /// [`coherent_enough`] for `g` (the same events as the graph this was
    /// built from).
    pub fn holds(&mut self, g: &ExecutionGraph, env: &GpuEnv, unread: &dyn Fn(EventId) -> bool) -> bool {
        self.ns.refresh(g);
        let ns = &self.ns;
        let nodes = &ns.nodes;
        let n = nodes.len();
        let mut e = self.po_loc.clone();
        let mut asmo = Rel::new(n);
        for c in &ns.chains {
            for (i, &a) in c.iter().enumerate() {
                for &b in &c[i + 1..] {
                    if mutually_ordered(ns, env, a, b) {
                        asmo.add(a, b);
                    }
                }
            }
        }
        e.union_with(&asmo);
        for &(w, r) in &ns.rf {
            if unread(nodes[r].id) {
                continue;
            }
            e.add(w, r);
            if nodes[w].kind == NodeKind::Init {
                for (b, node) in nodes.iter().enumerate() {
                    if b != w && node.is_write() && ns.same_loc(r, b) {
                        e.add(r, b);
                    }
                }
            }
            for b in 0..n {
                if asmo.has(w, b) {
                    e.add(r, b);
                }
            }
        }
        !e.has_cycle()
    }
}

/// `mutordatom` of nodes `a` and `b` of one location (`asmo = co &
/// mutordatom`): two atomics of one virtual address, each in the other's
/// scope (`inscope`).
pub(super) fn mutually_ordered(ns: &Nodes, env: &GpuEnv, a: usize, b: usize) -> bool {
    let (na, nb) = (&ns.nodes[a], &ns.nodes[b]);
    if a == b || !na.op.atomic || !nb.op.atomic || !ns.same_vloc(a, b) {
        return false;
    }
    match (na.op.scope, nb.op.scope, ns.thread(a), ns.thread(b)) {
        (Some(x), Some(y), Some(ta), Some(tb)) => {
            let l = x.min(y);
            l == 3 || ta == tb || env.same_group(ta, tb, l)
        }
        _ => false,
    }
}

/// [`check`] for a graph that stands for an execution only when its
/// modification order is the canonical one: `None` when it is not (another
/// graph with the same rf counts the execution), else what [`check`] says.
/// The nodes are built once for both questions.
///
/// `vulkan.cat` reads `co` only through `asmo = co & mutordatom`: two
/// graphs with the same rf whose orders agree on every pair of mutually
/// ordered atomics are one execution (a plain write's place among other
/// writes is never read). The one counted is the order that takes, at each
/// step, the earliest event (by thread, then index) of those whose `asmo`
/// predecessors are all placed: exactly one linear extension of each
/// location's `asmo` passes.
pub fn check_counted(
    g: &ExecutionGraph,
    env: &GpuEnv,
    chains_on: bool,
) -> Option<Result<Vec<(EventId, EventId)>, VulkanAxiom>> {
    let ns = Nodes::of(g, env);
    if !ns.chains.iter().all(|c| canonical_order(&ns, env, &c[1..])) {
        return None;
    }
    let mut last = Err(VulkanAxiom::BarrierHang);
    for p in prepare_nodes(&ns, env, chains_on) {
        last = p.finish(&p.rf_of(g, &|_| false)).map(|()| p.races);
        if last.is_ok() {
            break;
        }
    }
    Some(last)
}

/// Whether writes `ws` (one location's order after its initial write) are
/// in the canonical order. Write `ws[k]` is the one that order places k-th
/// exactly when it has the least id among the writes `ws[j]` (j >= k) with
/// no mutually ordered write in `ws[k..j]` (those still to place whose
/// `asmo` predecessors are placed: the earlier ones in this order). With
/// `last[j]` the latest i < j mutually ordered with `ws[j]`, `ws[j]` is
/// such a candidate at step k exactly when `last[j] < k`; so the order is
/// canonical when no pair k < j has `last[j] < k` and a smaller id at j,
/// which is quadratic per location.
fn canonical_order(ns: &Nodes, env: &GpuEnv, ws: &[usize]) -> bool {
    let last: Vec<Option<usize>> = (0..ws.len())
        .map(|j| (0..j).rev().find(|&i| mutually_ordered(ns, env, ws[i], ws[j])))
        .collect();
    (0..ws.len()).all(|k| {
        (k + 1..ws.len())
            .filter(|&j| last[j].is_none_or(|i| i < k))
            .all(|j| ns.nodes[ws[j]].id > ns.nodes[ws[k]].id)
    })
}

/// The part of the judgement that the rf of non-atomic reads does not
/// change (`hb`, `locord`, `asmo`, the races), for one choice of
/// `syncbar`; [`Prepared::finish`] completes it for one rf.
pub struct Prepared {
    nodes: Vec<Node>,
    index: HashMap<EventId, usize>,
    init: HashMap<Loc, usize>,
    thread: Vec<Option<ThreadId>>,
    locord: Rel,
    asmo: Rel,
    loc: Rel,
    rmw: Rel,
    /// `([W]; locord); ([W]; locord)+`: the writes shadowing a write.
    shadow: Rel,
    /// The racing pairs (`dr`, flagged as `racy3c3`), each once; they do
    /// not depend on rf.
    pub races: Vec<(EventId, EventId)>,
}

/// [`Prepared`] judgements of `g`, one per choice of `syncbar` (none when
/// a barrier's quorum is never reached, and the graph hangs): `g` is
/// consistent exactly when one of them [`finish`](Prepared::finish)es
/// with its rf. The rf of atomic reads is taken from `g` here (it makes
/// `sw`); that of non-atomic reads may change afterwards.
pub fn prepare(g: &ExecutionGraph, env: &GpuEnv, chains_on: bool) -> Vec<Prepared> {
    prepare_nodes(&Nodes::of(g, env), env, chains_on)
}

/// [`prepare`] over nodes already built (for the graph whose rf of
/// atomic reads is to be judged).
pub fn prepare_nodes(ns: &Nodes, env: &GpuEnv, chains_on: bool) -> Vec<Prepared> {
    // syncbar: one relation per choice of how barriers with the same id
    // meet (Nodes::syncbar_choices). A control barrier's resource belongs to
    // its workgroup: barriers of different workgroups never meet, whatever
    // their scope (barrier-not-inscope); inscope then limits it further.
    let choices = ns.syncbar_choices(env, 1);
    let mut out = Vec::with_capacity(choices.len());
    for choice in &choices {
        let mut syncbar = Rel::new(ns.nodes.len());
        for &(a, b) in choice {
            syncbar.add(a, b);
        }
        out.push(prepare_with(ns, env, chains_on, &syncbar));
    }
    out
}

impl Prepared {
    /// The rf relation of `g` over these nodes, without the reads
    /// `unread` selects.
    pub fn rf_of(&self, g: &ExecutionGraph, unread: &dyn Fn(EventId) -> bool) -> Rel {
        let mut rf = Rel::new(self.nodes.len());
        for (x, node) in self.nodes.iter().enumerate() {
            if !node.is_read() || unread(node.id) {
                continue;
            }
            let r = g.event(node.id).as_read().expect("read node is a read");
            let w = if r.rf.is_init() {
                self.init[&r.loc]
            } else {
                self.index[&r.rf]
            };
            rf.add(w, x);
        }
        rf
    }

    /// This judgement restricted to the accesses of `loc` and its initial
    /// write: every relation the rf-dependent axioms use relates two
    /// accesses of one location, so a graph passes [`finish`](Self::finish)
    /// exactly when it passes for every location alone, and each location
    /// alone is a small judgement.
    pub fn at(&self, loc: Loc) -> Prepared {
        let keep: Vec<usize> = (0..self.nodes.len())
            .filter(|&a| self.nodes[a].loc == Some(loc))
            .collect();
        let m = keep.len();
        let sub = |r: &Rel| tab(m, |a, b| r.has(keep[a], keep[b]));
        let nodes: Vec<Node> = keep.iter().map(|&a| self.nodes[a].clone()).collect();
        let mut index = HashMap::new();
        let mut init = HashMap::new();
        for (x, node) in nodes.iter().enumerate() {
            if node.kind == NodeKind::Init {
                init.insert(loc, x);
            } else {
                index.insert(node.id, x);
            }
        }
        Prepared {
            nodes,
            index,
            init,
            thread: keep.iter().map(|&a| self.thread[a]).collect(),
            locord: sub(&self.locord),
            asmo: sub(&self.asmo),
            loc: sub(&self.loc),
            rmw: sub(&self.rmw),
            shadow: sub(&self.shadow),
            races: Vec::new(),
        }
    }

    /// The axioms that depend on rf, for `rf` (whose atomic reads' part
    /// must be the one [`prepare`] saw).
    pub fn finish(&self, rf: &Rel) -> Result<(), VulkanAxiom> {
        let n = self.nodes.len();
        let nodes = &self.nodes;
        let w = |a: usize| nodes[a].is_write();
        let r = |a: usize| nodes[a].is_read();
        let iw = |a: usize| nodes[a].kind == NodeKind::Init;
        let atom = |a: usize| nodes[a].op.atomic;
        let (locord, asmo, loc) = (&self.locord, &self.asmo, &self.loc);
        // let fr = ((rf & locord)^-1 ; (W * W) & locord) | (rf^-1; asmo) | (([IW]; rf)^-1; ((loc;[W]) \ id))
        let ww_locord = tab(n, |a, b| w(a) && w(b) && locord.has(a, b));
        let rf_inv = inv(n, rf);
        let fr = unions(
            n,
            &[
                &seq(&[&inv(n, &inter(n, rf, locord)), &ww_locord]),
                &seq(&[&rf_inv, asmo]),
                &seq(&[
                    &inv(n, &seq(&[&id(n, iw), rf])),
                    &tab(n, |a, b| a != b && w(b) && loc.has(a, b)),
                ]),
            ],
        );
        // acyclic (locord | rf | fr | asmo) as consistency-cycle
        if unions(n, &[locord, rf, &fr, asmo]).has_cycle() {
            return Err(VulkanAxiom::ConsistencyCycle);
        }
        // empty (rf; ([R \ ATOM])) & (([W]; locord); ([W]; locord)+) as consistency-rf
        let rf_na = seq(&[rf, &id(n, |a| r(a) && !atom(a))]);
        if !is_empty(n, &inter(n, &rf_na, &self.shadow)) {
            return Err(VulkanAxiom::ConsistencyRf);
        }
        // empty rmw & (fre; (asmo & ext)) as atomic
        let ext = |a: usize, b: usize| !(self.thread[a].is_some() && self.thread[a] == self.thread[b]);
        let fre = tab(n, |a, b| fr.has(a, b) && ext(a, b));
        let asmo_ext = tab(n, |a, b| asmo.has(a, b) && ext(a, b));
        if !is_empty(n, &inter(n, &self.rmw, &seq(&[&fre, &asmo_ext]))) {
            return Err(VulkanAxiom::Atomic);
        }
        Ok(())
    }
}

/// The rf-independent part of the judgement with one choice of syncbar.
fn prepare_with(ns: &Nodes, env: &GpuEnv, chains_on: bool, syncbar: &Rel) -> Prepared {
    let nodes: &[Node] = &ns.nodes;
    let n = nodes.len();
    let thread = |a: usize| ns.thread(a);
    // Tags.
    let r = |a: usize| nodes[a].is_read();
    let w = |a: usize| nodes[a].is_write();
    let m = |a: usize| nodes[a].is_mem();
    let f = |a: usize| nodes[a].is_fence();
    let iw = |a: usize| nodes[a].kind == NodeKind::Init;
    let atom = |a: usize| nodes[a].op.atomic;
    let rel = |a: usize| nodes[a].order.release();
    let acq = |a: usize| nodes[a].order.acquire();
    let cbar = |a: usize| matches!(nodes[a].op.kind, GpuKind::Barrier { .. });
    let avdevice = |a: usize| nodes[a].op.kind == GpuKind::AvDevice;
    let visdevice = |a: usize| nodes[a].op.kind == GpuKind::VisDevice;
    // let PRIV = (R | W) \ NONPRIV
    let private = |a: usize| m(a) && !nodes[a].op.nonpriv;
    let sc = |a: usize, set: u8| nodes[a].op.sc & set != 0;
    let semsc_all = |a: usize, set: u8| nodes[a].op.semsc & set == set;
    let level = |a: usize| nodes[a].op.scope;
    let av = |a: usize| nodes[a].op.av || nodes[a].op.semav;
    let vis = |a: usize| nodes[a].op.vis || nodes[a].op.semvis;
    // AVSHADER = (AV | SEMAV) & DV; AVQF = ... & (DV | QF); AVWG = ... & (DV | QF | WG); AVSG = AV | SEMAV.
    let av_at = |a: usize, l: u8| av(a) && level(a).is_some_and(|s| s >= l);
    let vis_at = |a: usize, l: u8| vis(a) && level(a).is_some_and(|s| s >= l);
    // Relations over threads: ssg, swg, sqf, int, ext.
    // Each node's place, looked up once (`GpuEnv::same_group` hashes both
    // threads on every call, and the tables below ask n² times).
    let place: Vec<Option<[u32; 3]>> = (0..n)
        .map(|a| thread(a).and_then(|t| env.places.get(&t).copied()))
        .collect();
    let same = |a: usize, b: usize, l: u8| match (thread(a), thread(b)) {
        (Some(x), Some(y)) => {
            x == y
                || match (&place[a], &place[b]) {
                    (Some(pa), Some(pb)) => (l as usize..3).all(|i| pa[i] == pb[i]),
                    _ => false,
                }
        }
        _ => false,
    };
    let ssg = tab(n, |a, b| same(a, b, 0));
    let swg = tab(n, |a, b| same(a, b, 1));
    let sqf = tab(n, |a, b| same(a, b, 2));
    let int = |a: usize, b: usize| thread(a).is_some() && thread(a) == thread(b);
    let po = tab(n, |a, b| ns.po(a, b));
    let loc = tab(n, |a, b| ns.same_loc(a, b));
    let vloc = tab(n, |a, b| ns.same_vloc(a, b));
    let mut rf = Rel::new(n);
    for &(x, y) in &ns.rf {
        rf.add(x, y);
    }
    let mut rmw = Rel::new(n);
    for &(x, y) in &ns.rmw {
        rmw.add(x, y);
    }
    let mut co = Rel::new(n);
    for c in &ns.chains {
        for (i, &a) in c.iter().enumerate() {
            for &b in &c[i + 1..] {
                co.add(a, b);
            }
        }
    }
    // let inscope = (DV * DV) | (sqf & ((DV | QF) * (DV | QF))) | (swg & ...) | (ssg & ...)
    let inscope = tab(n, |a, b| match (level(a), level(b)) {
        (Some(x), Some(y)) => {
            let l = x.min(y);
            l == 3 || same(a, b, l)
        }
        _ => false,
    });
    // let mutordatom = (loc & vloc & inscope & (ATOM * ATOM)) \ id
    let mutordatom = tab(n, |a, b| {
        a != b && vloc.has(a, b) && inscope.has(a, b) && atom(a) && atom(b)
    });
    // let asmo = co & mutordatom
    let asmo = inter(n, &co, &mutordatom);
    // let avvisSem = (SC0123 * AVDEVICE) | (VISDEVICE * SC0123) | (SCi * (SEMSCi & SEMAV)) | ((SEMSCi & SEMVIS) * SCi)
    let avvis_sem = tab(n, |a, b| {
        (sc(a, 0xf) && avdevice(b))
            || (visdevice(a) && sc(b, 0xf))
            || (0..4).any(|i| {
                let bit = 1u8 << i;
                (sc(a, bit) && semsc_all(b, bit) && nodes[b].op.semav)
                    || (semsc_all(a, bit) && nodes[a].op.semvis && sc(b, bit))
            })
    });
    // let avvisSet = [AV | VIS]; (vloc & loc); let avvisinc = avvisSem | avvisSet | avvisSet^-1
    let avvis_set = tab(n, |a, b| (nodes[a].op.av || nodes[a].op.vis) && vloc.has(a, b));
    let avvisinc = unions(n, &[&avvis_sem, &avvis_set, &inv(n, &avvis_set)]);
    // let posctosem = ((SCi * SEMSCi) | ...) & po; let posemtosc = ((SEMSCi * SCi) | ...) & po
    let posctosem = tab(n, |a, b| {
        po.has(a, b) && (0..4).any(|i| sc(a, 1 << i) && semsc_all(b, 1 << i))
    });
    let posemtosc = tab(n, |a, b| {
        po.has(a, b) && (0..4).any(|i| semsc_all(a, 1 << i) && sc(b, 1 << i))
    });
    // let imm(r) = r \ (r; r+)
    let imm_asmo = minus(n, &asmo, &seq(&[&asmo, &asmo.closure()]));
    // let rs = [REL & ATOM]; (imm(asmo); [RMW])*; let hypors = [W & ATOM]; (imm(asmo); [RMW])*
    let step = star(&seq(&[&imm_asmo, &id(n, |a| w(a) && nodes[a].rmw)]));
    let rs = seq(&[&id(n, |a| rel(a) && atom(a) && !f(a)), &step]);
    let hypors = seq(&[&id(n, |a| w(a) && atom(a)), &step]);
    let rf_mut = inter(n, &rf, &mutordatom);
    let rel_f = id(n, |a| rel(a) && f(a));
    let acq_f = id(n, |a| acq(a) && f(a));
    let acq_atom = id(n, |a| acq(a) && atom(a) && !f(a));
    let atom_w = id(n, |a| atom(a) && w(a));
    let atom_r = id(n, |a| atom(a) && r(a));
    // (syncbar & inscope) \ id
    let syncbar = tab(n, |a, b| a != b && syncbar.has(a, b) && inscope.has(a, b));
    let cbars = id(n, cbar);
    let sw_terms = [
        // atomic->atomic
        seq(&[&rs, &rf_mut, &acq_atom]),
        // fence->atomic
        seq(&[&rel_f, &posemtosc, &atom_w, &hypors, &rf_mut, &acq_atom]),
        // atomic->fence
        seq(&[&rs, &rf_mut, &atom_r, &posctosem, &acq_f]),
        // fence->fence
        seq(&[
            &rel_f, &posemtosc, &atom_w, &hypors, &rf_mut, &atom_r, &posctosem, &acq_f,
        ]),
        // fence->cbar->cbar->fence
        seq(&[&rel_f, &opt(&po), &cbars, &syncbar, &cbars, &opt(&po), &acq_f]),
    ];
    let sw = inter(n, &inscope, &unions(n, &sw_terms.iter().collect::<Vec<_>>()));
    // ssw: the declared thread pairs, event by event (no initial write).
    let ssw = tab(n, |a, b| match (thread(a), thread(b)) {
        (Some(x), Some(y)) => x != y && !iw(a) && !iw(b) && env.ssw.contains(&(x, y)),
        _ => false,
    });
    // let ithbsemsc(SC, SEMSC) = (ssw | ([SEMSC]; sw; [SEMSC]) | ([SC | SEMSC]; po; [REL & SEMSC]) | ([ACQ & SEMSC]; po; [SC | SEMSC]))+
    // let hb = po | ithbsemsc(SC0, SEMSC0) | ... | ithbsemsc(SC0123, SEMSC0123)
    let mut hb = po.clone();
    // Sets whose members are the same nodes give the same term: each
    // distinct (SC, SEMSC) membership is closed once. A set no node has
    // semantics for gives nothing beyond ssw (every other term needs a
    // SEMSC node).
    let mut done: Vec<(Vec<bool>, Vec<bool>)> = Vec::new();
    for set in 1u8..16 {
        let in_sc = |a: usize| sc(a, set);
        let in_sem = |a: usize| semsc_all(a, set);
        let members = ((0..n).map(in_sc).collect(), (0..n).map(in_sem).collect::<Vec<bool>>());
        if (!members.1.contains(&true) && env.ssw.is_empty()) || done.contains(&members) {
            continue;
        }
        done.push(members);
        let sem = id(n, in_sem);
        let either = id(n, |a| in_sc(a) || in_sem(a));
        let t = unions(
            n,
            &[
                &ssw,
                &seq(&[&sem, &sw, &sem]),
                &seq(&[&either, &po, &id(n, |a| rel(a) && in_sem(a))]),
                &seq(&[&id(n, |a| acq(a) && in_sem(a)), &po, &either]),
            ],
        );
        hb.union_with(&t.closure());
    }
    // let E = (M | F | CBAR | AVDEVICE | VISDEVICE) \ IW; let chains = E * E (nochains: [E])
    let e = |a: usize| !iw(a);
    let chains = if chains_on {
        tab(n, |a, b| e(a) && e(b))
    } else {
        id(n, e)
    };
    let hb_ssg = inter(n, &inter(n, &hb, &ssg), &avvisinc);
    let hb_swg = inter(n, &inter(n, &hb, &swg), &avvisinc);
    let hb_sqf = inter(n, &inter(n, &hb, &sqf), &avvisinc);
    // let avsg = [AVSG]
    let avsg = id(n, |a| av_at(a, 0));
    // let avwg = (chains & (avsg; (hb & ssg & avvisinc))?); [AVWG]
    let avwg = seq(&[
        &inter(n, &chains, &opt(&seq(&[&avsg, &hb_ssg]))),
        &id(n, |a| av_at(a, 1)),
    ]);
    // let avqf = (chains & ((avsg; (hb & ssg & avvisinc))? ; (avwg; (hb & swg & avvisinc))?)); [AVQF]
    let avqf = seq(&[
        &inter(
            n,
            &chains,
            &seq(&[&opt(&seq(&[&avsg, &hb_ssg])), &opt(&seq(&[&avwg, &hb_swg]))]),
        ),
        &id(n, |a| av_at(a, 2)),
    ]);
    // let avsh = (chains & (... ; (avqf; (hb & sqf & avvisinc))?)); [AVSHADER]
    let avsh = seq(&[
        &inter(
            n,
            &chains,
            &seq(&[
                &opt(&seq(&[&avsg, &hb_ssg])),
                &opt(&seq(&[&avwg, &hb_swg])),
                &opt(&seq(&[&avqf, &hb_sqf])),
            ]),
        ),
        &id(n, |a| av_at(a, 3)),
    ]);
    let avdv = id(n, avdevice);
    // let vissg = [VISSG]
    let vissg = id(n, |a| vis_at(a, 0));
    // let viswg = [VISWG]; (chains & (((hb & ssg & avvisinc); vissg)?))
    let viswg = seq(&[
        &id(n, |a| vis_at(a, 1)),
        &inter(n, &chains, &opt(&seq(&[&hb_ssg, &vissg]))),
    ]);
    // let visqf = [VISQF]; (chains & (((hb & swg & avvisinc); viswg)?; ((hb & ssg & avvisinc); vissg)?))
    let visqf = seq(&[
        &id(n, |a| vis_at(a, 2)),
        &inter(
            n,
            &chains,
            &seq(&[&opt(&seq(&[&hb_swg, &viswg])), &opt(&seq(&[&hb_ssg, &vissg]))]),
        ),
    ]);
    // let vissh = [VISSHADER]; (chains & (((hb & sqf & avvisinc); visqf)?; ...))
    let vissh = seq(&[
        &id(n, |a| vis_at(a, 3)),
        &inter(
            n,
            &chains,
            &seq(&[
                &opt(&seq(&[&hb_sqf, &visqf])),
                &opt(&seq(&[&hb_swg, &viswg])),
                &opt(&seq(&[&hb_ssg, &vissg])),
            ]),
        ),
    ]);
    let visdv = id(n, visdevice);
    // let locord = loc & ( ... )
    let w_np = id(n, |a| w(a) && !private(a));
    let r_np = id(n, |a| r(a) && !private(a));
    let pav = inter(n, &opt(&po), &avvisinc);
    let hb_ssg_plain = inter(n, &hb, &ssg);
    let hb_swg_plain = inter(n, &hb, &swg);
    let hb_sqf_plain = inter(n, &hb, &sqf);
    let hb_av = inter(n, &hb, &avvisinc);
    let waw = |avx: &Rel, hbx: &Rel| inter(n, &vloc, &seq(&[&w_np, &pav, avx, hbx, &w_np]));
    let raw = |avx: &Rel, hbx: &Rel, visx: &Rel| inter(n, &vloc, &seq(&[&w_np, &pav, avx, hbx, visx, &pav, &r_np]));
    let terms = [
        // (hb & int & vloc)
        tab(n, |a, b| hb.has(a, b) && int(a, b) && vloc.has(a, b)),
        // ([R \ PRIV]; hb; [(R | W) \ PRIV])  -- RaR, WaR (non-private)
        seq(&[&r_np, &hb, &id(n, |a| m(a) && !private(a))]),
        // ([R]; ssw+; [R | W])  -- RaR, WaR (any)
        seq(&[&id(n, r), &ssw.closure(), &id(n, m)]),
        waw(&avsg, &hb_ssg_plain),
        raw(&avsg, &hb_ssg_plain, &vissg),
        waw(&avwg, &hb_swg_plain),
        raw(&avwg, &hb_swg_plain, &viswg),
        waw(&avqf, &hb_sqf_plain),
        raw(&avqf, &hb_sqf_plain, &visqf),
        waw(&avsh, &hb),
        raw(&avsh, &hb, &vissh),
        // ([W]; (hb & avvisinc); avdv; (hb); [W])  -- WaW via device domain
        seq(&[&id(n, w), &hb_av, &avdv, &hb, &id(n, w)]),
        // ([W]; (hb & avvisinc); avdv; (hb); visdv; (hb & avvisinc); [R])  -- RaW via device domain
        seq(&[&id(n, w), &hb_av, &avdv, &hb, &visdv, &hb_av, &id(n, r)]),
    ];
    let locord = inter(n, &loc, &unions(n, &terms.iter().collect::<Vec<_>>()));
    // ([W]; locord); ([W]; locord)+, for consistency-rf.
    let wl = seq(&[&id(n, w), &locord]);
    let shadow = seq(&[&wl, &wl.closure()]);
    // let pair_with_write = ((W * W) | (W * R) | (R * W)) \ ((IW * _) | (_ * IW))
    // let dr = loc & (pair_with_write \ mutordatom \ id \ (locord | locord^-1))
    let mut races = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            let pair = !iw(a) && !iw(b) && m(a) && m(b) && (w(a) || w(b));
            if pair && loc.has(a, b) && !mutordatom.has(a, b) && !locord.has(a, b) && !locord.has(b, a) {
                races.push((nodes[a].id, nodes[b].id));
            }
        }
    }
    let mut index = HashMap::new();
    let mut init = HashMap::new();
    for (x, node) in nodes.iter().enumerate() {
        match (node.kind, node.loc) {
            (NodeKind::Init, Some(l)) => {
                init.insert(l, x);
            }
            (NodeKind::Init, None) => {}
            _ => {
                index.insert(node.id, x);
            }
        }
    }
    Prepared {
        nodes: nodes.to_vec(),
        index,
        init,
        thread: (0..n).map(thread).collect(),
        locord,
        asmo,
        loc,
        rmw,
        shadow,
        races,
    }
}
