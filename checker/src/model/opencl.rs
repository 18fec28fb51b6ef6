//! The `opencl` model (docs/opencl-model.md): OpenCL 2.0's scoped C11 as the
//! POPL'16 formalisation (Batty, Donaldson, Wickerson) and its herd / Dat3M
//! encodings define it, judged on each complete execution graph.
//!
//! The explorer enumerates graphs under [`MemoryModel::Porf`] (every rf and
//! mo choice with po ∪ rf acyclic and RMWs atomic); [`check`] then keeps
//! the graphs that satisfy the OpenCL axioms and lists their races. What the
//! engine's events do not carry (the memory region of each location, the
//! fence flags, which fences are barrier halves) comes from an
//! [`OpenClEnv`] the front end builds.
//!
//! An RMW is one event here, as in herd: its read and write parts become one
//! node, so that, e.g., fr from its read part to its own write part is not
//! an edge.
//!
//! [`MemoryModel::Porf`]: crate::MemoryModel::Porf

use super::relations::Rel;
use crate::event::*;
use crate::graph::ExecutionGraph;
use std::collections::{HashMap, HashSet};

/// The address space of a location.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Region {
    /// `global`: ordered by global fences and ghb.
    Global,
    /// `local`: ordered by local fences and lhb.
    Local,
    /// No qualifier (`int*`): in neither region, so never hb-ordered.
    Generic,
}

/// What the model needs to know about a location.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LocInfo {
    /// Its region.
    pub region: Region,
    /// Declared with a non-atomic type (`int*`): its reads must read a
    /// visible side effect (axiom 4), whatever the access.
    pub non_atomic: bool,
}

/// What the model needs to know about a fence event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenceInfo {
    /// `CLK_GLOBAL_MEM_FENCE`.
    pub global: bool,
    /// `CLK_LOCAL_MEM_FENCE`.
    pub local: bool,
    /// For a barrier, its label (`""` when unlabelled): the front end issues
    /// each barrier as two fences from the same source line, entry then exit,
    /// and barriers with the same label and occurrence meet.
    pub barrier: Option<String>,
}

/// The side table the front end gives the model.
#[derive(Clone, Debug, Default)]
pub struct OpenClEnv {
    /// Region and type of each location (a location left out is generic).
    pub locs: HashMap<Loc, LocInfo>,
    /// Flags of each fence, by the source position that issued it (a fence
    /// left out is a C11 `atomic_thread_fence`: global flag only).
    pub fences: HashMap<SourceLoc, FenceInfo>,
}

/// An OpenCL axiom a graph violates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OpenClAxiom {
    /// ghb or lhb is cyclic (axiom 1).
    HbCycle,
    /// (rf⁻¹)? ; co ; rf? ; hb_r is reflexive (axiom 2).
    Coherence,
    /// A read happens before the write it reads (axiom 3).
    ReadsFromFuture,
    /// A read of a non-atomic global/local location does not read a visible
    /// side effect (axiom 4).
    Visibility,
    /// An RMW does not read its immediate co-predecessor (axiom 5).
    Atomicity,
    /// The scoped SC axiom (axiom 6).
    ScopedSc,
}

/// What [`check`] finds in a consistent graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Judgement {
    /// Racing pairs (data races and heterogeneous races), by event.
    pub races: Vec<(EventId, EventId)>,
    /// Barrier instances some thread of the work-group never reaches.
    pub divergence: Vec<Divergence>,
    /// Synchronizes-with: the release/acquire and barrier edges of global
    /// and local memory (`gsw ∪ lsw`), by event (for pictures).
    pub sw: Vec<(EventId, EventId)>,
}

/// A barrier instance reached by one thread of a work-group and never by another.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Divergence {
    /// The thread that reaches the barrier.
    pub thread: ThreadId,
    /// The barrier's label (`""` when unlabelled).
    pub label: String,
    /// Which occurrence of that label in the thread (from 1).
    pub occurrence: u32,
    /// The thread of the same work-group that never reaches it.
    pub missing: ThreadId,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Kind {
    Init,
    Read,
    Write,
    Rmw,
    Fence,
    Entry,
    Exit,
}

struct Node {
    /// The event (an RMW's read part; `INIT` for an initial write).
    id: EventId,
    kind: Kind,
    loc: Option<Loc>,
    /// Order of the read side (reads, RMWs, fences).
    rd: Order,
    /// Order of the write side (writes, RMWs, fences).
    wr: Order,
    /// `None`: never scope-inclusive (non-atomic accesses, barrier halves).
    scope: Option<Scope>,
    g: bool,
    l: bool,
    /// A read of it must read a visible side effect (axiom 4).
    nal: bool,
    /// For barrier halves: (label, occurrence of that label in the thread).
    barrier: Option<(String, u32)>,
}

impl Node {
    fn is_read(&self) -> bool {
        matches!(self.kind, Kind::Read | Kind::Rmw)
    }
    fn is_write(&self) -> bool {
        matches!(self.kind, Kind::Init | Kind::Write | Kind::Rmw)
    }
    fn atomic_read(&self) -> bool {
        self.is_read() && self.rd.is_atomic()
    }
    fn atomic_write(&self) -> bool {
        matches!(self.kind, Kind::Write | Kind::Rmw) && self.wr.is_atomic()
    }
    fn release(&self) -> bool {
        matches!(self.kind, Kind::Write | Kind::Rmw | Kind::Fence) && self.wr.is_release()
    }
    fn acquire(&self) -> bool {
        matches!(self.kind, Kind::Read | Kind::Rmw | Kind::Fence) && self.rd.is_acquire()
    }
    fn sc(&self) -> bool {
        match self.kind {
            Kind::Read | Kind::Rmw | Kind::Fence => self.rd.is_sc(),
            Kind::Write => self.wr.is_sc(),
            _ => false,
        }
    }
    fn in_region(&self, global: bool) -> bool {
        if global {
            self.g
        } else {
            self.l
        }
    }
}

/// The nodes of a graph and the base relations over them.
struct Model<'g> {
    g: &'g ExecutionGraph,
    nodes: Vec<Node>,
    /// Node of each event (both parts of an RMW map to its node).
    index: HashMap<EventId, usize>,
    /// Node of each location's initial write.
    init: HashMap<Loc, usize>,
    /// co chains: per location, its writes' nodes, initial write first.
    chains: Vec<Vec<usize>>,
    /// Pairs of one thread's events that are not sequenced (see
    /// [`check_unsequenced`]).
    unsequenced: HashSet<(EventId, EventId)>,
}

impl<'g> Model<'g> {
    fn of(g: &'g ExecutionGraph, env: &OpenClEnv) -> Model<'g> {
        let mut nodes = Vec::new();
        let mut index = HashMap::new();
        let mut init = HashMap::new();
        let info = |l: Loc| {
            env.locs.get(&l).copied().unwrap_or(LocInfo {
                region: Region::Generic,
                non_atomic: false,
            })
        };
        let access = |kind, id, loc: Loc, rd, wr, scope: Scope| {
            let i = info(loc);
            let atomic = rd != Order::NonAtomic || wr != Order::NonAtomic;
            Node {
                id,
                kind,
                loc: Some(loc),
                rd,
                wr,
                scope: atomic.then_some(scope),
                g: i.region == Region::Global,
                l: i.region == Region::Local,
                nal: i.non_atomic,
                barrier: None,
            }
        };
        for (loc, d) in g.locs() {
            if d.kind == LocKind::Cell {
                continue;
            }
            init.insert(*loc, nodes.len());
            nodes.push(access(
                Kind::Init,
                EventId::INIT,
                *loc,
                Order::NonAtomic,
                Order::NonAtomic,
                Scope::Thread,
            ));
        }
        for t in 0..g.num_threads() as ThreadId {
            let evs = g.thread_events(t);
            let mut entry_open = false;
            let mut seen: HashMap<String, u32> = HashMap::new();
            let mut i = 0;
            while i < evs.len() {
                let id = EventId::new(t, i as u32);
                let e = &evs[i];
                match &e.kind {
                    EventKind::Read(r) => {
                        let wpart = evs.get(i + 1).and_then(|n| n.as_write()).filter(|w| w.rmw);
                        match wpart {
                            Some(w) if r.is_exclusive() => {
                                index.insert(EventId::new(t, i as u32 + 1), nodes.len());
                                index.insert(id, nodes.len());
                                nodes.push(access(Kind::Rmw, id, r.loc, r.order, w.order, e.scope));
                                i += 1;
                            }
                            _ => {
                                index.insert(id, nodes.len());
                                nodes.push(access(Kind::Read, id, r.loc, r.order, Order::NonAtomic, e.scope));
                            }
                        }
                    }
                    EventKind::Write(w) => {
                        index.insert(id, nodes.len());
                        nodes.push(access(Kind::Write, id, w.loc, Order::NonAtomic, w.order, e.scope));
                    }
                    EventKind::Fence { order } => {
                        let f = env.fences.get(&e.src).cloned().unwrap_or(FenceInfo {
                            global: true,
                            local: false,
                            barrier: None,
                        });
                        let (kind, barrier, scope) = match &f.barrier {
                            Some(label) if !entry_open => {
                                entry_open = true;
                                let k = seen.entry(label.clone()).or_insert(0);
                                *k += 1;
                                (Kind::Entry, Some((label.clone(), *k)), None)
                            }
                            Some(label) => {
                                entry_open = false;
                                (Kind::Exit, Some((label.clone(), seen[label])), None)
                            }
                            None => (Kind::Fence, None, Some(e.scope)),
                        };
                        index.insert(id, nodes.len());
                        nodes.push(Node {
                            id,
                            kind,
                            loc: None,
                            rd: *order,
                            wr: *order,
                            scope,
                            g: f.global,
                            l: f.local,
                            nal: false,
                            barrier,
                        });
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        let mut chains = Vec::new();
        for (loc, d) in g.locs() {
            if d.kind == LocKind::Cell {
                continue;
            }
            let mut c = vec![init[loc]];
            c.extend(d.mo.iter().map(|w| index[w]));
            chains.push(c);
        }
        Model {
            g,
            nodes,
            index,
            init,
            chains,
            unsequenced: HashSet::new(),
        }
    }

    fn thread(&self, i: usize) -> Option<ThreadId> {
        let id = self.nodes[i].id;
        (!id.is_init()).then_some(id.thread)
    }

    fn po(&self, a: usize, b: usize) -> bool {
        let (x, y) = (self.nodes[a].id, self.nodes[b].id);
        !x.is_init() && x.thread == y.thread && x.index < y.index && !self.unsequenced.contains(&(x, y))
    }

    /// Whether `a` and `b` are accesses of one thread that are not sequenced.
    fn unsequenced_pair(&self, a: usize, b: usize) -> bool {
        let (x, y) = (self.nodes[a].id, self.nodes[b].id);
        self.unsequenced.contains(&(x, y)) || self.unsequenced.contains(&(y, x))
    }

    /// Same work-group of the same device (host threads are in none).
    fn same_wg(&self, a: usize, b: usize) -> bool {
        let (Some(ta), Some(tb)) = (self.thread(a), self.thread(b)) else {
            return false;
        };
        match (self.g.placement(ta).gpu, self.g.placement(tb).gpu) {
            (Some(x), Some(y)) => x.device == y.device && x.block == y.block,
            _ => false,
        }
    }

    /// herd's `incl`: the same scope on both sides, and each in the other's
    /// group at that scope (non-atomics and barrier halves: never).
    fn incl(&self, a: usize, b: usize) -> bool {
        let (na, nb) = (&self.nodes[a], &self.nodes[b]);
        match (na.scope, nb.scope, self.thread(a), self.thread(b)) {
            (Some(sa), Some(sb), Some(ta), Some(tb)) if sa == sb => {
                self.g.placement(ta).includes(ta, sa, self.g.placement(tb), tb)
            }
            _ => false,
        }
    }

    fn rel(&self, f: impl Fn(usize, usize) -> bool) -> Rel {
        let n = self.nodes.len();
        let mut r = Rel::new(n);
        for a in 0..n {
            for b in 0..n {
                if f(a, b) {
                    r.add(a, b);
                }
            }
        }
        r
    }
}

fn transpose(r: &Rel, n: usize) -> Rel {
    let mut t = Rel::new(n);
    for a in 0..n {
        for b in 0..n {
            if r.has(a, b) {
                t.add(b, a);
            }
        }
    }
    t
}

/// Judges a complete graph under the `opencl` model: `Err` with the first
/// violated axiom, or the races and barrier divergences of a consistent graph.
pub fn check(g: &ExecutionGraph, env: &OpenClEnv) -> Result<Judgement, OpenClAxiom> {
    check_unsequenced(g, env, &HashSet::new())
}

/// [`check`] where the pairs in `unsequenced` (a po-before b in the graph)
/// are not sequenced: the operands of one C operator, which the front end
/// issued in some order. They are out of sb (and so of hb), and two of
/// them to one location, one a write, are an unsequenced race
/// (opencl.cat's `ur`), listed with the races.
pub fn check_unsequenced(
    g: &ExecutionGraph,
    env: &OpenClEnv,
    unsequenced: &HashSet<(EventId, EventId)>,
) -> Result<Judgement, OpenClAxiom> {
    let mut m = Model::of(g, env);
    m.unsequenced = unsequenced.clone();
    let n = m.nodes.len();
    let nodes = &m.nodes;
    // rf, co, and RMW atomicity (axiom 5) on the co chains.
    let mut rf = Rel::new(n);
    for (x, node) in nodes.iter().enumerate() {
        if node.is_read() {
            let r = g.event(node.id).as_read().expect("read node is a read");
            let w = if r.rf.is_init() { m.init[&r.loc] } else { m.index[&r.rf] };
            rf.add(w, x);
        }
    }
    let mut co = Rel::new(n);
    for c in &m.chains {
        for (i, &a) in c.iter().enumerate() {
            for &b in &c[i + 1..] {
                co.add(a, b);
            }
            if nodes[a].kind == Kind::Rmw && (i == 0 || !rf.has(c[i - 1], a)) {
                return Err(OpenClAxiom::Atomicity);
            }
        }
    }
    // Release sequences (C11, with the same-thread clause).
    let mut rs = Rel::new(n);
    for c in &m.chains {
        for (i, &w) in c.iter().enumerate() {
            if !nodes[w].atomic_write() {
                continue;
            }
            rs.add(w, w);
            for &v in &c[i + 1..] {
                if nodes[v].kind != Kind::Rmw && m.thread(v) != m.thread(w) {
                    break;
                }
                rs.add(w, v);
            }
        }
    }
    let left = m.rel(|a, w| nodes[w].atomic_write() && (a == w || (nodes[a].kind == Kind::Fence && m.po(a, w))));
    let right = m.rel(|x, b| nodes[x].atomic_read() && (x == b || (nodes[b].kind == Kind::Fence && m.po(x, b))));
    let ra_sw = |global: bool| {
        let rf_r = m.rel(|w, x| rf.has(w, x) && nodes[w].in_region(global) && nodes[x].atomic_read());
        let path = left.compose(&rs).compose(&rf_r).compose(&right);
        let ends = |a: usize, b: usize| {
            nodes[a].release()
                && nodes[a].in_region(global)
                && nodes[b].acquire()
                && nodes[b].in_region(global)
                && m.thread(a) != m.thread(b)
                && m.incl(a, b)
        };
        path.filter(ends)
    };
    let bar_sw = |global: bool| {
        m.rel(|a, b| {
            nodes[a].kind == Kind::Entry
                && nodes[b].kind == Kind::Exit
                && m.thread(a) != m.thread(b)
                && m.same_wg(a, b)
                && nodes[a].barrier == nodes[b].barrier
                && nodes[a].in_region(global)
                && nodes[b].in_region(global)
        })
    };
    let scf = |a: usize, b: usize| {
        let both = |x: &Node| x.kind == Kind::Fence && x.g && x.l;
        (nodes[a].sc() && nodes[b].sc()) || (both(&nodes[a]) && both(&nodes[b]))
    };
    let (ra_g, ra_l) = (ra_sw(true), ra_sw(false));
    let hb_of = |global: bool, own: &Rel, other: &Rel| {
        let mut base = m.rel(|a, b| {
            let (x, y) = (&nodes[a], &nodes[b]);
            x.in_region(global) && y.in_region(global) && (m.po(a, b) || (x.kind == Kind::Init && y.kind != Kind::Init))
        });
        base.union_with(own);
        base.union_with(&bar_sw(global));
        base.union_with(&other.filter(scf));
        base.closure()
    };
    let ghb = hb_of(true, &ra_g, &ra_l);
    let lhb = hb_of(false, &ra_l, &ra_g);
    // Axiom 1.
    if ghb.is_reflexive_somewhere() || lhb.is_reflexive_somewhere() {
        return Err(OpenClAxiom::HbCycle);
    }
    let mut hb = ghb.clone();
    hb.union_with(&lhb);
    // Axiom 2: irreflexive((rf⁻¹)? ; co ; rf? ; hb_r).
    let rf_inv = transpose(&rf, n);
    let eco = rf_inv
        .with_identity(|_| true)
        .compose(&co)
        .compose(&rf.with_identity(|_| true));
    for h in [&ghb, &lhb] {
        if (0..n).any(|a| (0..n).any(|b| eco.has(a, b) && h.has(b, a))) {
            return Err(OpenClAxiom::Coherence);
        }
    }
    // Axiom 3: irreflexive(rf ; hb).
    if (0..n).any(|w| (0..n).any(|x| rf.has(w, x) && hb.has(x, w))) {
        return Err(OpenClAxiom::ReadsFromFuture);
    }
    // Axiom 4: a read of a non-atomic global/local location reads a visible side effect.
    for (x, node) in nodes.iter().enumerate() {
        if !node.is_read() || !node.nal || !(node.g || node.l) {
            continue;
        }
        let h = if node.g { &ghb } else { &lhb };
        let w = (0..n).find(|&w| rf.has(w, x)).expect("every read reads a write");
        let hidden = (0..n).any(|v| nodes[v].is_write() && nodes[v].loc == node.loc && h.has(w, v) && h.has(v, x));
        if !h.has(w, x) || hidden {
            return Err(OpenClAxiom::Visibility);
        }
    }
    // Axiom 6: acyclic(Fsb? ; (fr ∪ co ∪ ghb ∪ lhb) ; sbF?) over inclusive SC pairs.
    if nodes.iter().filter(|x| x.sc()).count() >= 2 {
        let fr = rf_inv.compose(&co).filter(|a, b| a != b);
        let mut mid = fr;
        mid.union_with(&co);
        mid.union_with(&hb);
        let fsb = m.rel(|a, b| a == b || (nodes[a].kind == Kind::Fence && m.po(a, b)));
        let sbf = m.rel(|a, b| a == b || (nodes[b].kind == Kind::Fence && m.po(a, b)));
        let scp = fsb
            .compose(&mid)
            .compose(&sbf)
            .filter(|a, b| nodes[a].sc() && nodes[b].sc() && m.incl(a, b));
        if scp.has_cycle() {
            return Err(OpenClAxiom::ScopedSc);
        }
    }
    // Races: conflicting, different threads, unordered by hb, not inclusive.
    let mut out = Judgement::default();
    let mut sw = ra_g;
    sw.union_with(&ra_l);
    sw.union_with(&bar_sw(true));
    sw.union_with(&bar_sw(false));
    let ids: Vec<EventId> = nodes.iter().map(|x| x.id).collect();
    out.sw = super::sync_edges::edges_of(&sw, &ids);
    for a in 0..n {
        for b in a + 1..n {
            let (x, y) = (&nodes[a], &nodes[b]);
            let conflict = x.kind != Kind::Init
                && y.kind != Kind::Init
                && x.loc.is_some()
                && x.loc == y.loc
                && (x.is_write() || y.is_write());
            let data = conflict && m.thread(a) != m.thread(b) && !hb.has(a, b) && !hb.has(b, a) && !m.incl(a, b);
            if data || (conflict && m.unsequenced_pair(a, b)) {
                let part = |node: &Node, other_writes: bool| {
                    // Name an RMW by the part that conflicts.
                    if node.kind == Kind::Rmw && !other_writes {
                        EventId::new(node.id.thread, node.id.index + 1)
                    } else {
                        node.id
                    }
                };
                out.races.push((part(x, y.is_write()), part(y, x.is_write())));
            }
        }
    }
    // Barrier divergence: an instance some member of the work-group never reaches.
    for x in nodes.iter().filter(|x| x.kind == Kind::Entry) {
        let Some((label, k)) = &x.barrier else { continue };
        let Some(p) = g.placement(x.id.thread).gpu else {
            continue;
        };
        for t in 0..g.num_threads() as ThreadId {
            let member = t != x.id.thread
                && g.thread_len(t) > 0
                && g.placement(t)
                    .gpu
                    .is_some_and(|q| q.device == p.device && q.block == p.block);
            let reached = || {
                nodes
                    .iter()
                    .any(|y| y.kind == Kind::Entry && y.id.thread == t && y.barrier == x.barrier)
            };
            if member && !reached() {
                out.divergence.push(Divergence {
                    thread: x.id.thread,
                    label: label.clone(),
                    occurrence: *k,
                    missing: t,
                });
            }
        }
    }
    Ok(out)
}
