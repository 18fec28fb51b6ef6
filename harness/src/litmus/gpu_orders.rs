//! The orders of each location's writes that the po ∪ rf-cyclic
//! enumeration (`cyclic.rs`'s `validate`) tries under a GPU model: only
//! those that keep a thread's writes in program order where the model
//! forces it, instead of every permutation; and a cheap check of each
//! RMW's atomicity before the model's judge ([`Orders::atomic_ok`]).
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
//! Every order left out is one the model's judge rejects whatever the rf,
//! so the consistent executions are the same; `tests/litmus_gpu_orders.rs`
//! checks it by running the public tests with [`EVERY_ORDER`] set too and
//! comparing every outcome and count. A location with more
//! than [`MAX_WRITES`] writes keeps every permutation (the list of orders
//! is built up front).

use super::gpu_model::GpuModel;
use scopecheck_checker::event::{EventId, EventKind, Loc, ThreadId};
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::model::gpu::{GpuEnv, GpuOp, GpuOrder, Proxy};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// When set, every permutation of every location's writes is tried, as
/// before this pruning: the cross-check of `tests/litmus_gpu_orders.rs`
/// (the checker's self-test, not a user setting).
pub static EVERY_ORDER: AtomicBool = AtomicBool::new(false);

/// Writes of one location whose orders are listed up front, at most (8! =
/// 40,320 permutations to filter).
pub const MAX_WRITES: usize = 8;

/// The write orders to try, location by location, with the one tried now.
pub struct Orders {
    /// Per location, the orders allowed (`None`: every permutation, walked
    /// lexicographically in place).
    allowed: Vec<Option<Vec<Vec<EventId>>>>,
    pick: Vec<usize>,
    /// The RMWs' atomicity, when checked before the judge ([`Atomicity`]).
    atomicity: Option<Atomicity>,
}

/// What an RMW's atomicity asks of the writes mo puts between the write it
/// reads and its own write, checked on each graph before the model's judge
/// (cheap: no closure). A graph it rejects is one the judge rejects:
/// - PTX `axiom-Atomicity`: a write `w'` morally strong with the RMW's read
///   and write, and (unless the RMW reads the initial write) with the write
///   it reads, lies between them in mo: then `fr` (`rf^-1; co`, co holding
///   the initial write first and mo on morally strong pairs) and `co` put
///   it in `((morally-strong & fr); (morally-strong & co)) & rmw`;
/// - Vulkan `atomic`: such a `w'` of another thread, in `mutordatom` with
///   the RMW's write and (unless the RMW reads the initial write) with the
///   write it reads: `rf^-1; asmo` and the initial write's `fr` are in
///   `fr`, so `(fre; (asmo & ext)) & rmw` is not empty.
struct Atomicity {
    model: GpuModel,
    /// Per RMW: its read, its write, and its location's writes with the
    /// pairs the rule relates (read-or-write part, other write) as a set.
    rmws: Vec<(EventId, EventId, Loc)>,
    related: std::collections::HashSet<(EventId, EventId)>,
    threads: HashMap<EventId, ThreadId>,
}

impl Orders {
    /// The orders of `locs`' writes (each location's writes of `base`)
    /// under `model`; with `model` `None` (not a GPU model), every
    /// permutation.
    pub fn new(base: &ExecutionGraph, model: Option<(GpuModel, &GpuEnv)>, locs: &[(Loc, Vec<EventId>)]) -> Orders {
        let before = model
            .filter(|_| !EVERY_ORDER.load(Ordering::Relaxed))
            .map(|(m, env)| forced(base, m, env));
        let allowed = locs
            .iter()
            .map(|(_, ws)| {
                let before = before.as_ref()?;
                if ws.len() > MAX_WRITES {
                    return None;
                }
                let mut p = ws.clone();
                p.sort();
                let mut out = Vec::new();
                loop {
                    let pos: HashMap<EventId, usize> = p.iter().enumerate().map(|(i, w)| (*w, i)).collect();
                    let keeps = before
                        .iter()
                        .all(|(a, b)| !(pos.contains_key(a) && pos.contains_key(b)) || pos[a] < pos[b]);
                    if keeps {
                        out.push(p.clone());
                    }
                    if !next_permutation(&mut p) {
                        break;
                    }
                }
                Some(out)
            })
            .collect::<Vec<_>>();
        let atomicity = model
            .filter(|_| !EVERY_ORDER.load(Ordering::Relaxed))
            .map(|(m, env)| Atomicity::of(base, m, env));
        Orders {
            pick: vec![0; allowed.len()],
            allowed,
            atomicity,
        }
    }

    /// The first order of every location (`locs` as given to [`new`](Self::new)).
    pub fn first(&self, locs: &[(Loc, Vec<EventId>)]) -> Vec<Vec<EventId>> {
        locs.iter()
            .zip(&self.allowed)
            .map(|((_, ws), a)| match a {
                Some(list) => list.first().cloned().unwrap_or_default(),
                None => {
                    let mut v = ws.clone();
                    v.sort();
                    v
                }
            })
            .collect()
    }

    /// False when `g` (its rf and mo set) breaks an RMW's atomicity as
    /// the model's judge would find ([`Atomicity`]); true decides nothing.
    pub fn atomic_ok(&self, g: &ExecutionGraph) -> bool {
        let Some(a) = &self.atomicity else { return true };
        for &(r, wr, loc) in &a.rmws {
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
            for &x in &d.mo[start..end] {
                let with_w = w.is_init() || a.related.contains(&(w, x));
                let rule = match a.model {
                    GpuModel::Ptx60 | GpuModel::Ptx75 => a.related.contains(&(r, x)),
                    GpuModel::Vulkan | GpuModel::VulkanNoChains => a.threads.get(&x) != a.threads.get(&r),
                };
                if with_w && rule && a.related.contains(&(x, wr)) {
                    return false;
                }
            }
        }
        true
    }

    /// Whether some location has no allowed order (no graph to try).
    pub fn none_left(&self) -> bool {
        self.allowed.iter().any(|a| a.as_ref().is_some_and(Vec::is_empty))
    }

    /// Steps `perms` to the next combination of orders (an odometer over
    /// the locations); false after the last, with `perms` back at the first.
    pub fn next(&mut self, perms: &mut [Vec<EventId>]) -> bool {
        for (i, p) in perms.iter_mut().enumerate() {
            match &self.allowed[i] {
                Some(list) => {
                    self.pick[i] += 1;
                    if self.pick[i] < list.len() {
                        p.clone_from(&list[self.pick[i]]);
                        return true;
                    }
                    self.pick[i] = 0;
                    if let Some(f) = list.first() {
                        p.clone_from(f);
                    }
                }
                None => {
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

impl Atomicity {
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
        let mut related = std::collections::HashSet::new();
        let mut threads = HashMap::new();
        for &(a, ta, la, _, oa_order, oa) in &acc {
            threads.insert(a, ta);
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
            model,
            rmws,
            related,
            threads,
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
