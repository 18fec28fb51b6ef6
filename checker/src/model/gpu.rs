//! What the GPU hardware models (`ptx6.0`, `ptx7.5`, `vulkan`,
//! `vulkan-nochains`; docs/gpu-models.md) know about a litmus test that the
//! engine's events do not carry: each instruction's order, scope, proxy,
//! storage class and semantics, each thread's place in the hierarchy, and
//! the virtual address each access names.
//!
//! The front end builds a [`GpuEnv`]; [`Nodes::of`] turns a complete graph
//! into the nodes the models' relations range over. As in Dat3M, an RMW is
//! two nodes, its read and its write, related by `rmw`: an `acq_rel` RMW's
//! read acquires and its write releases. The initial writes (IW) are nodes
//! in no thread.

use crate::event::*;
use crate::graph::ExecutionGraph;
use std::collections::HashMap;

/// The order (PTX "semantics") of an instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum GpuOrder {
    /// PTX `weak`, a Vulkan non-atomic access.
    #[default]
    Weak,
    /// `relaxed` (a Vulkan atomic without semantics).
    Relaxed,
    /// `acquire` / `acq`.
    Acquire,
    /// `release` / `rel`.
    Release,
    /// `acq_rel`.
    AcqRel,
    /// `sc` (PTX fences).
    Sc,
}

impl GpuOrder {
    /// Acquire semantics (ACQ in the cat files; acq_rel and sc included).
    pub fn acquire(self) -> bool {
        matches!(self, GpuOrder::Acquire | GpuOrder::AcqRel | GpuOrder::Sc)
    }
    /// Release semantics (REL; acq_rel and sc included).
    pub fn release(self) -> bool {
        matches!(self, GpuOrder::Release | GpuOrder::AcqRel | GpuOrder::Sc)
    }
}

/// A PTX proxy (ptx-v7.5.cat's GEN, SUR, TEX, CON; ALIAS for `fence.proxy.alias`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Proxy {
    /// The generic proxy (plain `ld`/`st`/`atom`, every non-proxy fence).
    #[default]
    Generic,
    /// Surface (`sust`, `suld`, `fence.proxy.surface`).
    Surface,
    /// Texture (`tld`, `fence.proxy.texture`).
    Texture,
    /// Constant (`cold`, `fence.proxy.constant`).
    Constant,
    /// `fence.proxy.alias` (tagged GEN and ALIAS).
    Alias,
}

/// What kind of instruction an event came from.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum GpuKind {
    /// A load, store or RMW (`ld`, `st`, `atom`, `red`, `rmw`, ...).
    #[default]
    Access,
    /// A fence (`fence.*`, `membar.*`).
    Fence,
    /// A barrier (`bar.cta.sync N`, `bar.cta.sync F, N, Q`, `cbar... N`).
    Barrier {
        /// Its logical id (barriers with the same id meet: syncbar);
        /// `None` when a register gives it: the value of the write just
        /// before the barrier in po (the front end's hidden store).
        id: Option<i64>,
        /// The number of threads that must arrive before any passes
        /// (`None`: every thread reaching a barrier with this id).
        quorum: Option<u32>,
        /// `bar.cta.arrive`: arrives without waiting.
        arrive: bool,
    },
    /// Vulkan `avdevice`: availability to the device domain.
    AvDevice,
    /// Vulkan `visdevice`: visibility from the device domain.
    VisDevice,
}

/// One instruction's attributes, keyed by its source position in [`GpuEnv::ops`].
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct GpuOp {
    /// What it is.
    pub kind: GpuKind,
    /// Its order (PTX `weak` and Vulkan non-atomics: [`GpuOrder::Weak`]).
    pub order: GpuOrder,
    /// Vulkan: an atomic (`.atom`). PTX: unused (strength follows `order`).
    pub atomic: bool,
    /// Its scope as a level: 0 subgroup, 1 CTA / workgroup, 2 GPU / queue
    /// family, 3 system / device. `None` when it names none.
    pub scope: Option<u8>,
    /// PTX: its proxy.
    pub proxy: Proxy,
    /// The virtual address it names (accesses; `vloc` compares these).
    pub vaddr: Option<String>,
    /// Vulkan: storage classes it accesses (bit i for `sc<i>`).
    pub sc: u8,
    /// Vulkan: storage classes its semantics cover (bit i for `semsc<i>`).
    pub semsc: u8,
    /// Vulkan: `.av` (availability operation).
    pub av: bool,
    /// Vulkan: `.vis` (visibility operation).
    pub vis: bool,
    /// Vulkan: `.semav` (availability semantics).
    pub semav: bool,
    /// Vulkan: `.semvis` (visibility semantics).
    pub semvis: bool,
    /// Vulkan: non-private (`.nonpriv`, and implied by atomics, av and vis).
    pub nonpriv: bool,
}

/// The side table of a GPU litmus test.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuEnv {
    /// Each instruction's attributes, by (line, column) of the instruction.
    pub ops: HashMap<(u32, u32), GpuOp>,
    /// Each engine thread's place: `[subgroup, CTA / workgroup, GPU / queue
    /// family]` (PTX leaves the subgroup at the thread's own index).
    pub places: HashMap<ThreadId, [u32; 3]>,
    /// Attributes by event, looked up before [`GpuEnv::ops`]: Rust programs
    /// (`gpu_rust.rs`), where one call site may run with different orders.
    pub by_event: HashMap<EventId, GpuOp>,
    /// Vulkan's `ssw` declarations `(a, b)`: every event of engine thread
    /// `a` system-synchronizes-with every event of thread `b` (Dat3M's
    /// sync sets; not symmetric, not transitive: vulkan.cat closes it).
    pub ssw: Vec<(ThreadId, ThreadId)>,
}

impl GpuEnv {
    /// Whether threads `a` and `b` share the group of `level` (0 subgroup,
    /// 1 CTA / workgroup, 2 GPU / queue family, 3 everything): the same id
    /// at that level and every level above it.
    pub fn same_group(&self, a: ThreadId, b: ThreadId, level: u8) -> bool {
        let (Some(pa), Some(pb)) = (self.places.get(&a), self.places.get(&b)) else {
            return false;
        };
        (level as usize..3).all(|i| pa[i] == pb[i])
    }
}

/// The kind of a node.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An initial write (IW).
    Init,
    /// A read (R).
    Read,
    /// A write (W).
    Write,
    /// A fence, barrier or device-domain av/vis operation.
    Fence,
}

/// One node: an event of the graph (an RMW's two parts are one node).
#[derive(Clone, Debug)]
pub struct Node {
    /// The event (an RMW's read part; `INIT` for an initial write).
    pub id: EventId,
    /// Its kind.
    pub kind: NodeKind,
    /// The physical location (accesses and initial writes).
    pub loc: Option<Loc>,
    /// The instruction's attributes (default for initial writes).
    pub op: GpuOp,
    /// This node's own order: an RMW's read keeps only the acquire half
    /// of the instruction's order and its write only the release half.
    pub order: GpuOrder,
    /// Part of an RMW (Dat3M's RMW tag).
    pub rmw: bool,
    /// A barrier's logical id (static or read from the hidden store).
    pub bar_id: Option<i64>,
}

impl Node {
    /// R.
    pub fn is_read(&self) -> bool {
        self.kind == NodeKind::Read
    }
    /// W (initial writes included).
    pub fn is_write(&self) -> bool {
        matches!(self.kind, NodeKind::Init | NodeKind::Write)
    }
    /// M: a memory access (initial writes included).
    pub fn is_mem(&self) -> bool {
        self.kind != NodeKind::Fence
    }
    /// F.
    pub fn is_fence(&self) -> bool {
        self.kind == NodeKind::Fence
    }
}

/// The nodes of a graph, with rf and the engine's mo chains over them.
pub struct Nodes {
    /// The nodes: initial writes first, then each thread's events in po.
    pub nodes: Vec<Node>,
    /// rf as (write node, read node) pairs.
    pub rf: Vec<(usize, usize)>,
    /// rmw as (read part, write part) pairs.
    pub rmw: Vec<(usize, usize)>,
    /// Per location, its writes' nodes in the engine's mo, initial write first.
    pub chains: Vec<Vec<usize>>,
    /// Each event's node, by thread and index (`refresh` looks up every
    /// rf and mo edge: a table, not a hash map).
    index: Vec<Vec<Option<usize>>>,
    /// Each location's initial write's node.
    init: HashMap<Loc, usize>,
}

impl Nodes {
    /// The nodes of complete graph `g`, with attributes from `env` (events
    /// `env` does not know, such as the test harness's own, are left out).
    pub fn of(g: &ExecutionGraph, env: &GpuEnv) -> Nodes {
        let mut nodes = Vec::new();
        let mut index: Vec<Vec<Option<usize>>> = Vec::new();
        let mut init = HashMap::new();
        for (loc, d) in g.locs() {
            if d.kind == LocKind::Cell {
                continue;
            }
            init.insert(*loc, nodes.len());
            nodes.push(Node {
                id: EventId::INIT,
                kind: NodeKind::Init,
                loc: Some(*loc),
                op: GpuOp::default(),
                order: GpuOrder::Weak,
                rmw: false,
                bar_id: None,
            });
        }
        let mut rmw = Vec::new();
        for t in 0..g.num_threads() as ThreadId {
            for (i, e) in g.thread_events(t).iter().enumerate() {
                let id = EventId::new(t, i as u32);
                let Some(op) = env
                    .by_event
                    .get(&id)
                    .or_else(|| env.ops.get(&(e.src.line, e.src.column)))
                else {
                    continue;
                };
                let (kind, loc, part) = match &e.kind {
                    EventKind::Read(r) => (NodeKind::Read, Some(r.loc), r.is_exclusive()),
                    EventKind::Write(w) => (NodeKind::Write, Some(w.loc), w.rmw),
                    // A Rust kernel's block barrier (`gpu_rust.rs`; litmus
                    // barriers are fences with a barrier's attributes).
                    EventKind::Fence { .. } | EventKind::Barrier { .. } => (NodeKind::Fence, None, false),
                    _ => continue,
                };
                let order = match (kind, part) {
                    (NodeKind::Read, true) if op.order.acquire() => GpuOrder::Acquire,
                    (NodeKind::Write, true) if op.order.release() => GpuOrder::Release,
                    (_, true) => GpuOrder::Relaxed,
                    _ => op.order,
                };
                if kind == NodeKind::Write && part {
                    rmw.push((nodes.len() - 1, nodes.len()));
                }
                let bar_id = match op.kind {
                    GpuKind::Barrier { id: Some(b), .. } => Some(b),
                    // A register id: the value of the hidden store just before.
                    GpuKind::Barrier { id: None, .. } => i
                        .checked_sub(1)
                        .and_then(|j| g.thread_events(t)[j].as_write())
                        .map(|w| w.value as i64),
                    _ => None,
                };
                let (th, ix) = (id.thread as usize, id.index as usize);
                if index.len() <= th {
                    index.resize(th + 1, Vec::new());
                }
                if index[th].len() <= ix {
                    index[th].resize(ix + 1, None);
                }
                index[th][ix] = Some(nodes.len());
                nodes.push(Node {
                    id,
                    kind,
                    loc,
                    op: op.clone(),
                    order,
                    rmw: part,
                    bar_id,
                });
            }
        }
        let mut ns = Nodes {
            nodes,
            rf: Vec::new(),
            rmw,
            chains: Vec::new(),
            index,
            init,
        };
        ns.refresh(g);
        ns
    }

    /// Takes rf and the mo chains from `g`, a graph with the same events
    /// as the one these nodes were built from (only rf, mo and read values
    /// differ): the graphs of one combination share their nodes, which
    /// were built again for each before.
    pub fn refresh(&mut self, g: &ExecutionGraph) {
        self.rf.clear();
        for (x, node) in self.nodes.iter().enumerate() {
            if node.is_read() {
                let r = g.event(node.id).as_read().expect("read node is a read");
                let w = if r.rf.is_init() {
                    self.init[&r.loc]
                } else {
                    self.node_of(r.rf).expect("a read's write has a node")
                };
                self.rf.push((w, x));
            }
        }
        self.chains.clear();
        for (loc, d) in g.locs() {
            if d.kind == LocKind::Cell {
                continue;
            }
            let mut c = vec![self.init[loc]];
            c.extend(d.mo.iter().filter_map(|&w| self.node_of(w)));
            self.chains.push(c);
        }
    }

    /// The node of event `e`, if it has one.
    fn node_of(&self, e: EventId) -> Option<usize> {
        *self.index.get(e.thread as usize)?.get(e.index as usize)?
    }

    /// The choices of `syncbar` (barrier a's arrival before barrier b
    /// passes), over barriers whose threads share the group `level`: with
    /// no quorum, one choice relating every two barriers with the same id;
    /// with quorums, one choice per arrival order of the k barriers with
    /// that id that opens the barrier: it opens at the first arrival whose
    /// own quorum the arrivals so far reach (a barrier without a quorum in
    /// such a class needs the largest quorum given), the barriers up to
    /// that one meet, and every later one passes after all before it. No
    /// order opening it (k below every quorum reached in time) leaves no
    /// choice at all: the execution hangs. The opening rule is the one the
    /// liveness search runs, so barriers whose quorums differ are judged
    /// the same whatever order the graph lists them in. `bar.arrive` never
    /// waits.
    pub fn syncbar_choices(&self, env: &GpuEnv, level: u8) -> Vec<Vec<(usize, usize)>> {
        let n = self.nodes.len();
        let bar = |a: usize| match self.nodes[a].op.kind {
            GpuKind::Barrier { quorum, arrive, .. } if self.nodes[a].is_fence() => Some((quorum, arrive)),
            _ => None,
        };
        let group = |a: usize, b: usize| match (self.thread(a), self.thread(b)) {
            (Some(x), Some(y)) => x == y || env.same_group(x, y, level),
            _ => false,
        };
        // Classes: barriers with the same id and group.
        let mut classes: Vec<Vec<usize>> = Vec::new();
        for a in (0..n).filter(|&a| bar(a).is_some()) {
            match classes
                .iter_mut()
                .find(|c| self.nodes[c[0]].bar_id == self.nodes[a].bar_id && group(c[0], a))
            {
                Some(c) => c.push(a),
                None => classes.push(vec![a]),
            }
        }
        let mut choices: Vec<Vec<(usize, usize)>> = vec![Vec::new()];
        for class in classes {
            let quorum = class.iter().filter_map(|&a| bar(a).and_then(|b| b.0)).max();
            let waits = |b: usize| !bar(b).is_some_and(|x| x.1);
            let options: Vec<Vec<(usize, usize)>> = match quorum {
                None => vec![class
                    .iter()
                    .flat_map(|&a| class.iter().map(move |&b| (a, b)))
                    .filter(|&(a, b)| a != b && waits(b))
                    .collect()],
                Some(top) => {
                    // What the barrier arriving at position i needs: its own
                    // quorum (one without takes the largest of the class).
                    let need = |i: usize| bar(class[i]).and_then(|b| b.0).unwrap_or(top) as usize;
                    let mut out = Vec::new();
                    let mut perm: Vec<usize> = (0..class.len()).collect();
                    loop {
                        // The arrival that opens the barrier, if any does.
                        if let Some(open) = (0..perm.len()).find(|&p| p + 1 >= need(perm[p])) {
                            let mut edges = Vec::new();
                            for (pb, &ib) in perm.iter().enumerate() {
                                let upto = (pb + 1).max(open + 1);
                                for &ia in &perm[..upto] {
                                    let (a, b) = (class[ia], class[ib]);
                                    if a != b && waits(b) {
                                        edges.push((a, b));
                                    }
                                }
                            }
                            out.push(edges);
                        }
                        if !next_permutation(&mut perm) {
                            break;
                        }
                    }
                    if out.is_empty() {
                        return Vec::new();
                    }
                    out
                }
            };
            choices = choices
                .iter()
                .flat_map(|c| {
                    options.iter().map(move |o| {
                        let mut x = c.clone();
                        x.extend(o);
                        x
                    })
                })
                .collect();
        }
        choices
    }

    /// The node's engine thread (`None` for initial writes).
    pub fn thread(&self, i: usize) -> Option<ThreadId> {
        let id = self.nodes[i].id;
        (!id.is_init()).then_some(id.thread)
    }

    /// po: the same thread, `a` first.
    pub fn po(&self, a: usize, b: usize) -> bool {
        let (x, y) = (self.nodes[a].id, self.nodes[b].id);
        !x.is_init() && !y.is_init() && x.thread == y.thread && x.index < y.index
    }

    /// loc: the same physical location.
    pub fn same_loc(&self, a: usize, b: usize) -> bool {
        self.nodes[a].loc.is_some() && self.nodes[a].loc == self.nodes[b].loc
    }

    /// vloc: the same virtual address (an initial write is at every
    /// virtual address of its location).
    pub fn same_vloc(&self, a: usize, b: usize) -> bool {
        let (x, y) = (&self.nodes[a], &self.nodes[b]);
        self.same_loc(a, b) && (x.kind == NodeKind::Init || y.kind == NodeKind::Init || x.op.vaddr == y.op.vaddr)
    }
}

/// Steps `p` to the next permutation in lexicographic order; false after the last.
pub fn next_permutation(p: &mut [usize]) -> bool {
    let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else {
        return false;
    };
    let j = (i..p.len())
        .rev()
        .find(|&j| p[j] > p[i - 1])
        .expect("a larger element exists");
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

/// Relation algebra over [`Rel`](crate::model::relations::Rel) for the cat definitions (small graphs:
/// the pairwise forms are clear and fast enough).
pub mod alg {
    use crate::model::relations::Rel;

    /// The relation `{(a, b) | f(a, b)}` over `n` nodes.
    pub fn tab(n: usize, f: impl Fn(usize, usize) -> bool) -> Rel {
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
    /// `[S]`: the identity on the nodes in `s`.
    pub fn id(n: usize, s: impl Fn(usize) -> bool) -> Rel {
        let mut r = Rel::new(n);
        for a in (0..n).filter(|&a| s(a)) {
            r.add(a, a);
        }
        r
    }
    /// `r ∪ o`.
    pub fn union(r: &Rel, o: &Rel) -> Rel {
        let mut u = r.clone();
        u.union_with(o);
        u
    }
    /// The union of several relations over `n` nodes.
    pub fn unions(n: usize, all: &[&Rel]) -> Rel {
        let mut u = Rel::new(n);
        for r in all {
            u.union_with(r);
        }
        u
    }
    /// `r ∩ o`.
    pub fn inter(_n: usize, r: &Rel, o: &Rel) -> Rel {
        let mut x = r.clone();
        x.intersect_with(o);
        x
    }
    /// `r \ o`.
    pub fn minus(_n: usize, r: &Rel, o: &Rel) -> Rel {
        let mut x = r.clone();
        x.subtract(o);
        x
    }
    /// `r⁻¹`.
    pub fn inv(_n: usize, r: &Rel) -> Rel {
        r.transpose()
    }
    /// `r?`: with the identity on every node.
    pub fn opt(r: &Rel) -> Rel {
        r.with_identity(|_| true)
    }
    /// `r*`.
    pub fn star(r: &Rel) -> Rel {
        opt(&r.closure())
    }
    /// `r1 ; r2 ; ...`.
    pub fn seq(all: &[&Rel]) -> Rel {
        let mut it = all.iter();
        let mut acc = (*it.next().expect("at least one relation")).clone();
        for r in it {
            acc = acc.compose(r);
        }
        acc
    }
    /// Whether `r` is empty.
    pub fn is_empty(_n: usize, r: &Rel) -> bool {
        r.is_empty()
    }
    /// The first pair of `r`, if any (for diagnostics).
    pub fn first(n: usize, r: &Rel) -> Option<(usize, usize)> {
        (0..n)
            .flat_map(|a| (0..n).map(move |b| (a, b)))
            .find(|&(a, b)| r.has(a, b))
    }
}
