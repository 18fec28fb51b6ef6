//! The orders of each location's writes that the po ∪ rf-cyclic
//! enumeration (`cyclic.rs`'s `validate`) tries under a GPU model, and
//! under C11 ([`Rules::C`], below): only
//! those that keep a thread's writes in program order where the model
//! forces it and each RMW's atomicity under the rf choice tried
//! ([`Atomicity`], found by [`search`]), instead of every permutation; and
//! what the rf choices can know beforehand ([`Bound`]: pairs of RMWs
//! reading writes that leave no order).
//!
//! Two writes of one thread to one location, `a` before `b` in po, must be
//! in that order in mo when
//! - PTX (`ptx6.0`, `ptx7.5`): both go through the same proxy to the same
//!   virtual address. Then `(a, b)` is in `cause` (`po ⊆ cause-base`, and
//!   `proxy-preserved-cause-base` keeps same-proxy, same-address pairs), so
//!   `axiom-Coherence` puts it in co, and the engine's mo must extend co
//!   (`model/ptx.rs`);
//! - Vulkan: both are atomics (same virtual address; one thread is always
//!   in scope of itself). Then `(a, b)` is in `locord` (`hb & int & vloc`,
//!   `po ⊆ hb`), and `b` before `a` in mo would put `(b, a)` in `asmo`: a
//!   cycle of `consistency-cycle` (`vulkan::coherent_enough` rejects it).
//!
//! - C11: always. `b` before `a` in mo with `a` po-before `b` (`a hb b`) is
//!   a cycle of `mo ; hb`, which C11's Coh (`irreflexive((fr | mo) ; rf? ;
//!   hb)`) rejects. An RMW reads its write's immediate mo-predecessor
//!   (`irreflexive(fr ; mo)` and `irreflexive(mo ; rf)` on an RMW): no write
//!   may come between, and the RMW's write never before the write it
//!   reads. (OpenCL too when every location lies in a memory region,
//!   `cyclic.rs`'s `po_in_hb`: then po between one thread's accesses to a
//!   location is in that region's hb, and its atomicity axiom is C11's.) And a
//!   read never reads the initial write or an own write that an own write
//!   po-between hides (`w mo w'` by the rule above, `w' hb r`: `fr ; hb`),
//!   which [`Bound::possible`] says before any rf is tried.
//!
//! Every order left out is one the model's judge rejects whatever the rf,
//! so the consistent executions are the same; `tests/litmus_gpu_orders.rs`
//! checks it by running the public tests with every order too (the
//! cross-check `CrossChecks::every_order` of the run's options) and
//! comparing every outcome and count. A location with more
//! than [`MAX_WRITES`] writes keeps every permutation, and its RMWs'
//! atomicity is checked on each graph before the judge
//! ([`Orders::atomic_ok`]).

use super::gpu_model::GpuModel;
use scopecheck_checker::event::{EventId, EventKind, Loc, ThreadId};
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::model::gpu::{GpuEnv, GpuOp, GpuOrder, Proxy};
use std::collections::{HashMap, HashSet};

mod search;

/// Writes of one location whose orders are searched ([`search`]), at most
/// (the search keeps sets of writes as 64-bit masks); a location with more
/// keeps every permutation and the check of [`Orders::atomic_ok`].
pub const MAX_WRITES: usize = 64;

/// Whose rules the orders keep (see the module comment).
#[derive(Copy, Clone)]
pub enum Rules<'a> {
    /// A GPU hardware model, with the test's side table.
    Gpu(GpuModel, &'a GpuEnv),
    /// C11 (`c11`), and OpenCL with every location in a memory region.
    C,
}

/// The write orders to try, location by location, with the one tried now.
pub struct Orders {
    /// Per location: its writes, and how its orders are found.
    locs: Vec<LocOrders>,
    /// The RMWs' atomicity, when checked before the judge ([`Atomicity`]).
    atomicity: Option<Atomicity>,
    /// What the rf choices can know before any order is tried.
    bound: Bound,
}

/// What the rf choices can know before any order is tried, from each
/// (RMW read, write it reads) pair and from each two of them
/// ([`Atomicity`] says why each holds).
#[derive(Clone, Default)]
pub struct Bound {
    /// The pairs whose RMW's write must come after the write it reads in mo.
    after: HashSet<(EventId, EventId)>,
    /// (RMW read, write it reads, write `x`): `x` may not come between
    /// them in mo. When every other write of the location is so, the RMW
    /// is bound to the write it reads: it follows it immediately.
    forbids: HashSet<(EventId, EventId, EventId)>,
    /// The pairs that leave no order: the RMW's write must come after the
    /// write it reads, and coherence puts it before (its thread's write,
    /// po-after it).
    impossible: HashSet<(EventId, EventId)>,
    /// Each RMW's write part, by its read part.
    write_of: HashMap<EventId, EventId>,
    /// Under C11 ([`Rules::C`]): the (earlier, later) pairs of one thread's
    /// reads of one location, in po, whose rf choices coherence relates
    /// ([`Bound::reads_back`]).
    read_pairs: HashSet<(EventId, EventId)>,
}

impl Bound {
    /// Whether the read `r` may read `w` at all (see [`Bound::impossible`]).
    pub fn possible(&self, r: EventId, w: EventId) -> bool {
        !self.impossible.contains(&(r, w))
    }

    /// Whether the RMW reads `a` and `b`, reading the writes `wa` and `wb`,
    /// leave no order, both writes having to come after the write each
    /// reads: both read one write and neither's write may come between it
    /// and the other's (two RMWs bound to one write, for example); or each
    /// reads the other's write. The rf choices are enumerated without such
    /// pairs.
    pub fn conflict(&self, (a, wa): (EventId, EventId), (b, wb): (EventId, EventId)) -> bool {
        if self.reads_back((a, wa), (b, wb)) || self.reads_back((b, wb), (a, wa)) {
            return true;
        }
        if a == b || !self.after.contains(&(a, wa)) || !self.after.contains(&(b, wb)) {
            return false;
        }
        let (Some(&ra), Some(&rb)) = (self.write_of.get(&a), self.write_of.get(&b)) else {
            return false;
        };
        if wa == wb {
            self.forbids.contains(&(a, wa, rb)) && self.forbids.contains(&(b, wb, ra))
        } else {
            wa == rb && wb == ra
        }
    }
}

impl Bound {
    /// Under C11: whether `r2`, po-after `r1` in its thread and of the same
    /// location, reading `w2` while `r1` reads `w1` breaks coherence
    /// whatever mo is: `w2` is then forced mo-before `w1` (the initial
    /// write; a write po-before `w1` in `w1`'s thread, by `irreflexive(mo ;
    /// hb)`; a write of the readers' thread po-before `r1`, which `r1`'s
    /// read of `w1` puts mo-before `w1` by Coh), so `r2 fr w1`, `w1 rf r1`,
    /// `r1 hb r2`: a cycle of `fr ; rf ; hb` (Coh). The rf choices are
    /// enumerated without such pairs.
    fn reads_back(&self, (r1, w1): (EventId, EventId), (r2, w2): (EventId, EventId)) -> bool {
        if w1 == w2 || !self.read_pairs.contains(&(r1, r2)) {
            return false;
        }
        w2.is_init()
            || (!w1.is_init() && w2.thread == w1.thread && w2.index < w1.index)
            || (w2.thread == r1.thread && w2.index < r1.index)
    }
}

/// How one location's orders are found.
enum LocOrders {
    /// Every permutation, walked lexicographically in place (not a GPU
    /// model, the cross-check of every order, or more than [`MAX_WRITES`]
    /// writes); the
    /// atomicity of its RMWs is checked on each graph by [`Orders::atomic_ok`].
    Every(Loc),
    /// Only the orders that keep the forced pairs and each RMW's atomicity
    /// under the rf choice tried ([`search::Search`]).
    Search(search::Search),
}

/// What an RMW's atomicity asks of the writes mo puts between the write it
/// reads and its own write. A graph it rejects is one the judge rejects:
/// - PTX `axiom-Atomicity`: a write `w'` morally strong with the RMW's read
///   and write, and (unless the RMW reads the initial write) with the write
///   it reads, lies between them in mo: then `fr` (`rf^-1; co`, co holding
///   the initial write first and mo on morally strong pairs) and `co` put
///   it in `((morally-strong & fr); (morally-strong & co)) & rmw`;
/// - Vulkan `atomic`: such a `w'` of another thread, in `mutordatom` with
///   the RMW's write and (unless the RMW reads the initial write) with the
///   write it reads: `rf^-1; asmo` and the initial write's `fr` are in
///   `fr`, so `(fre; (asmo & ext)) & rmw` is not empty;
/// - Vulkan, `w'` of the RMW's own thread po-before it, in `mutordatom` with
///   its write and (unless it reads the initial write) with the write it
///   reads: `(r, w')` is in `fr` as above and `(w', r)` in `locord`
///   (`hb & int & vloc`, `po ⊆ hb`), a cycle of `consistency-cycle`.
///
/// And the RMW's write may not come before the write `w` it reads in mo
/// ([`Atomicity::reversed_rejected`]): PTX, when `w` is morally strong with
/// the read and the write (`observation` from `w` to the read, which is
/// `cause`-before the write: `po` in `cause-base`, same proxy and address,
/// so `axiom-Coherence` wants `w` co-before the write); Vulkan, when `w`
/// and the write are in `mutordatom` (`locord` from the read to the
/// write, `asmo` back to `w`, `rf` to the read: `consistency-cycle`).
struct Atomicity {
    /// `None`: C11.
    model: Option<GpuModel>,
    /// Per RMW: its read, its write, and its location's writes with the
    /// pairs the rule relates (read-or-write part, other write) as a set.
    rmws: Vec<(EventId, EventId, Loc)>,
    related: HashSet<(EventId, EventId)>,
}

impl Orders {
    /// The orders of `locs`' writes (each location's writes of `base`)
    /// under `rules`; with `rules` `None` or `every_order` (the run's
    /// cross-check, `CrossChecks::every_order`), every permutation, as
    /// before this pruning.
    pub fn new(base: &ExecutionGraph, rules: Option<Rules>, every_order: bool, locs: &[(Loc, Vec<EventId>)]) -> Orders {
        let rules = rules.filter(|_| !every_order);
        let before = rules.map(|r| match r {
            Rules::Gpu(m, env) => forced(base, m, env),
            Rules::C => in_po(base),
        });
        let atomicity = rules.map(|r| match r {
            Rules::Gpu(m, env) => Atomicity::of(base, m, env),
            Rules::C => Atomicity::c(base),
        });
        let mut bound = Bound::default();
        if let Some(Rules::C) = rules {
            hidden_writes(base, &mut bound);
        }
        let locs = locs
            .iter()
            .map(|(loc, ws)| match (&before, &atomicity) {
                (Some(before), Some(a)) if ws.len() <= MAX_WRITES => {
                    let rmws: Vec<(EventId, EventId)> = a
                        .rmws
                        .iter()
                        .filter(|(_, _, l)| l == loc)
                        .map(|&(r, w, _)| (r, w))
                        .collect();
                    LocOrders::Search(search::Search::new(ws, before, rmws, a, &mut bound))
                }
                _ => LocOrders::Every(*loc),
            })
            .collect();
        Orders { locs, atomicity, bound }
    }

    /// What the rf choices can know before any order is tried.
    pub fn bound(&self) -> &Bound {
        &self.bound
    }

    /// The first order of every location (`locs` as given to
    /// [`new`](Self::new)) for the rf of `g` (its reads' writes set), or
    /// `None` when some location has no order its RMWs' atomicity allows
    /// under that rf (the rf choice gives no consistent graph).
    pub fn start(&mut self, g: &ExecutionGraph, locs: &[(Loc, Vec<EventId>)]) -> Option<Vec<Vec<EventId>>> {
        let mut out = Vec::with_capacity(locs.len());
        for ((_, ws), how) in locs.iter().zip(&mut self.locs) {
            match how {
                LocOrders::Every(_) => {
                    let mut v = ws.clone();
                    v.sort();
                    out.push(v);
                }
                LocOrders::Search(s) => out.push(s.start(g)?),
            }
        }
        Some(out)
    }

    /// False when `g` (its rf and mo set) breaks the atomicity of an RMW
    /// of a location whose orders are not searched (every permutation), as
    /// the model's judge would find ([`Atomicity`]); true decides nothing.
    /// The searched locations' orders keep it already.
    pub fn atomic_ok(&self, g: &ExecutionGraph) -> bool {
        let Some(a) = &self.atomicity else { return true };
        let every: Vec<Loc> = self
            .locs
            .iter()
            .filter_map(|l| match l {
                LocOrders::Every(loc) => Some(*loc),
                LocOrders::Search(_) => None,
            })
            .collect();
        if every.is_empty() {
            return true;
        }
        for &(r, wr, loc) in a.rmws.iter().filter(|(_, _, l)| every.contains(l)) {
            let Some(rd) = g.event(r).as_read() else { continue };
            let w = rd.rf;
            let Some(d) = g.loc(loc) else { continue };
            let Some(end) = d.mo.iter().position(|&x| x == wr) else {
                continue;
            };
            let start = if w.is_init() {
                0
            } else {
                match d.mo.iter().position(|&x| x == w) {
                    Some(p) if p < end => p + 1,
                    _ => continue,
                }
            };
            if d.mo[start..end].iter().any(|&x| a.between_rejected(r, w, x, wr)) {
                return false;
            }
        }
        true
    }

    /// Steps `perms` to the next combination of orders (an odometer over
    /// the locations); false after the last, with `perms` back at the first.
    pub fn next(&mut self, perms: &mut [Vec<EventId>]) -> bool {
        for (p, how) in perms.iter_mut().zip(&mut self.locs) {
            match how {
                LocOrders::Search(s) => {
                    if s.next() {
                        s.current(p);
                        return true;
                    }
                    s.restart();
                    s.current(p);
                }
                LocOrders::Every(_) => {
                    if next_permutation(p) {
                        return true;
                    }
                }
            }
        }
        false
    }
}

/// The (earlier, later) write pairs `model` keeps in po order (module
/// comment). The graph's reads need not have their writes yet.
fn forced(base: &ExecutionGraph, model: GpuModel, env: &GpuEnv) -> Vec<(EventId, EventId)> {
    let mut out = Vec::new();
    for t in 0..base.num_threads() as ThreadId {
        // This thread's writes with the attributes the side table gives
        // them (as `Nodes::of` looks them up), in po.
        let mut writes: Vec<(EventId, Loc, &GpuOp)> = Vec::new();
        for (i, e) in base.thread_events(t).iter().enumerate() {
            let id = EventId::new(t, i as u32);
            let EventKind::Write(w) = &e.kind else { continue };
            let Some(op) = env
                .by_event
                .get(&id)
                .or_else(|| env.ops.get(&(e.src.line, e.src.column)))
            else {
                continue;
            };
            writes.push((id, w.loc, op));
        }
        for (k, &(a, la, oa)) in writes.iter().enumerate() {
            for &(b, lb, ob) in &writes[k + 1..] {
                if la != lb || oa.vaddr != ob.vaddr {
                    continue;
                }
                let keep = match model {
                    GpuModel::Ptx60 | GpuModel::Ptx75 => oa.proxy == ob.proxy,
                    GpuModel::Vulkan | GpuModel::VulkanNoChains => {
                        oa.atomic && ob.atomic && oa.scope.is_some() && ob.scope.is_some()
                    }
                };
                if keep {
                    out.push((a, b));
                }
            }
        }
    }
    out
}

/// Every (earlier, later) pair of one thread's writes to one location, in
/// po: the pairs C11 keeps in mo.
fn in_po(base: &ExecutionGraph) -> Vec<(EventId, EventId)> {
    let mut out = Vec::new();
    for t in 0..base.num_threads() as ThreadId {
        let writes: Vec<(EventId, Loc)> = base
            .thread_events(t)
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.as_write().map(|w| (EventId::new(t, i as u32), w.loc)))
            .collect();
        for (k, &(a, la)) in writes.iter().enumerate() {
            out.extend(writes[k + 1..].iter().filter(|(_, lb)| *lb == la).map(|&(b, _)| (a, b)));
        }
    }
    out
}

/// Under C11, the (read, write) pairs no rf may hold: a read of
/// the initial write, or of an own write `w`, with an own write `w'` of the
/// location po-between (`in_po` orders them in mo; the initial write is
/// mo-first): `w mo w'`, so `r fr w'`, and `w' hb r` (module comment).
/// And the pairs of reads whose rf choices [`Bound::reads_back`] judges.
fn hidden_writes(base: &ExecutionGraph, bound: &mut Bound) {
    for t in 0..base.num_threads() as ThreadId {
        // The thread's writes and reads so far, per location, in po.
        let mut so_far: HashMap<Loc, Vec<EventId>> = HashMap::new();
        let mut read: HashMap<Loc, Vec<EventId>> = HashMap::new();
        for (i, e) in base.thread_events(t).iter().enumerate() {
            let id = EventId::new(t, i as u32);
            match &e.kind {
                EventKind::Write(w) => so_far.entry(w.loc).or_default().push(id),
                EventKind::Read(r) => {
                    let earlier = read.entry(r.loc).or_default();
                    bound.read_pairs.extend(earlier.iter().map(|&r1| (r1, id)));
                    earlier.push(id);
                    let Some(own) = so_far.get(&r.loc).filter(|o| !o.is_empty()) else {
                        continue;
                    };
                    bound.impossible.insert((id, EventId::INIT));
                    for &w in &own[..own.len() - 1] {
                        bound.impossible.insert((id, w));
                    }
                }
                _ => {}
            }
        }
    }
}

impl Atomicity {
    /// C11's atomicity: every RMW reads its write's immediate mo-predecessor
    /// (module comment).
    fn c(base: &ExecutionGraph) -> Atomicity {
        let mut rmws = Vec::new();
        for t in 0..base.num_threads() as ThreadId {
            for (i, e) in base.thread_events(t).iter().enumerate() {
                if let Some(w) = e.as_write().filter(|w| w.rmw && i > 0) {
                    rmws.push((EventId::new(t, i as u32 - 1), EventId::new(t, i as u32), w.loc));
                }
            }
        }
        Atomicity {
            model: None,
            rmws,
            related: HashSet::new(),
        }
    }

    fn of(base: &ExecutionGraph, model: GpuModel, env: &GpuEnv) -> Atomicity {
        // Every access with its attributes (as `Nodes::of` looks them up).
        let mut acc: Vec<(EventId, ThreadId, Loc, bool, GpuOrder, &GpuOp)> = Vec::new();
        let mut rmws = Vec::new();
        for t in 0..base.num_threads() as ThreadId {
            let evs = base.thread_events(t);
            for (i, e) in evs.iter().enumerate() {
                let id = EventId::new(t, i as u32);
                let Some(op) = env
                    .by_event
                    .get(&id)
                    .or_else(|| env.ops.get(&(e.src.line, e.src.column)))
                else {
                    continue;
                };
                let (loc, write, part) = match &e.kind {
                    EventKind::Read(r) => (r.loc, false, r.is_exclusive()),
                    EventKind::Write(w) => (w.loc, true, w.rmw),
                    _ => continue,
                };
                // An RMW's read keeps the acquire half of its order, its
                // write the release half (`Nodes::of`); either is strong.
                let order = if part && op.order != GpuOrder::Weak {
                    GpuOrder::Relaxed
                } else {
                    op.order
                };
                if write && part && i > 0 {
                    rmws.push((EventId::new(t, i as u32 - 1), id, loc));
                }
                acc.push((id, t, loc, write, order, op));
            }
        }
        let mut related = HashSet::new();
        for &(a, ta, la, _, oa_order, oa) in &acc {
            for &(b, tb, lb, b_write, ob_order, ob) in &acc {
                if a == b || la != lb || !b_write || oa.vaddr != ob.vaddr {
                    continue;
                }
                let rel = match model {
                    GpuModel::Ptx60 | GpuModel::Ptx75 => {
                        let includes =
                            |t: ThreadId, u: ThreadId, op: &GpuOp| op.scope.is_some_and(|s| env.same_group(t, u, s));
                        let strong = oa_order != GpuOrder::Weak && ob_order != GpuOrder::Weak;
                        let ms1 = ta == tb || (strong && includes(ta, tb, oa) && includes(tb, ta, ob));
                        let proxy = |p: Proxy| if p == Proxy::Alias { Proxy::Generic } else { p };
                        ms1 && (model == GpuModel::Ptx60 || proxy(oa.proxy) == proxy(ob.proxy))
                    }
                    GpuModel::Vulkan | GpuModel::VulkanNoChains => {
                        let inscope = match (oa.scope, ob.scope) {
                            (Some(x), Some(y)) => {
                                let l = x.min(y);
                                l == 3 || ta == tb || env.same_group(ta, tb, l)
                            }
                            _ => false,
                        };
                        oa.atomic && ob.atomic && inscope
                    }
                };
                if rel {
                    related.insert((a, b));
                    related.insert((b, a));
                }
            }
        }
        Atomicity {
            model: Some(model),
            rmws,
            related,
        }
    }

    /// Whether every graph in which the RMW (read `r`, write `wr`) reads
    /// `w` and mo puts the write `x` between `w` and `wr` is one the
    /// model's judge rejects (the rules of [`Atomicity`]).
    fn between_rejected(&self, r: EventId, w: EventId, x: EventId, wr: EventId) -> bool {
        let Some(model) = self.model else {
            // C11: no write at all.
            return true;
        };
        let with_w = w.is_init() || self.related.contains(&(w, x));
        if !with_w || !self.related.contains(&(x, wr)) {
            return false;
        }
        match model {
            GpuModel::Ptx60 | GpuModel::Ptx75 => self.related.contains(&(r, x)),
            // Another thread's write (`atomic`), or one of the RMW's own
            // thread po-before it (`consistency-cycle`).
            GpuModel::Vulkan | GpuModel::VulkanNoChains => x.thread != r.thread || x.index < r.index,
        }
    }

    /// Whether every graph in which the RMW (read `r`, write `wr`) reads
    /// the write `w` and mo puts `wr` before `w` is one the model's judge
    /// rejects (see [`Atomicity`]).
    fn reversed_rejected(&self, r: EventId, w: EventId, wr: EventId) -> bool {
        let Some(model) = self.model else {
            // C11: never.
            return true;
        };
        if w.is_init() {
            return true;
        }
        match model {
            GpuModel::Ptx60 | GpuModel::Ptx75 => self.related.contains(&(r, w)) && self.related.contains(&(w, wr)),
            GpuModel::Vulkan | GpuModel::VulkanNoChains => self.related.contains(&(w, wr)),
        }
    }
}

/// The next permutation in lexicographic order; at the last one, sorts
/// back to the first and returns false.
fn next_permutation(v: &mut [EventId]) -> bool {
    let n = v.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && v[i - 1] >= v[i] {
        i -= 1;
    }
    if i == 0 {
        v.reverse();
        return false;
    }
    let mut j = n - 1;
    while v[j] <= v[i - 1] {
        j -= 1;
    }
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}
