//! The illegal races of DRFrlx (seed 004, section 3, versions 1 to 4 of the
//! definition), found in one complete SC execution graph.
//!
//! Each definition is written next to the code that implements it. The
//! paper's definitions are stated over an SC total order T; the graph does
//! not store one, but every order the definitions use is fixed by the graph:
//! for two conflicting accesses of one location, T puts the write first iff
//! it is mo-before-or-equal the write the other reads (or mo-before the
//! other write), so any linear extension of po | rf | mo | fr gives the same
//! answers. Tracked cells (data) carry no rf or mo; two of them are either
//! ordered by hb1, and T agrees, or they form a data race, which is reported
//! whatever T says.

use super::{AccessClass, RlxClass};
use crate::clock::Clock;
use crate::event::{Event, EventId, EventKind, Loc, RmwOp, SourceLoc, ThreadId, Value, ValueType};
use crate::graph::ExecutionGraph;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;

mod paths;
use paths::PathCtx;

/// The kinds of illegal race, in the order a pair is classified (a pair that
/// is several kinds is reported as the first).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RaceKind {
    /// A race where at least one access is data (DRF0/DRF1).
    Data,
    /// A quantum access racing with a non-quantum one (section 3.4.3).
    Quantum,
    /// A race with a commutative access where the pair does not commute or
    /// a loaded value is used (section 3.2.3).
    Commutative,
    /// A race with a speculative access where both store or the racing
    /// load's value is used (section 3.5.3).
    Speculative,
    /// A race with a non-ordering access that is the only thing ordering
    /// two other conflicting accesses (section 3.3.3).
    NonOrdering,
    /// A race of a relaxed atomic that was given no class: the program is
    /// not DRFrlx until it has one (inference says which would do).
    Unclassified,
}

impl RaceKind {
    /// How reports name it.
    pub fn name(self) -> &'static str {
        match self {
            RaceKind::Data => "data race",
            RaceKind::Quantum => "quantum race",
            RaceKind::Commutative => "commutative race",
            RaceKind::Speculative => "speculative race",
            RaceKind::NonOrdering => "non-ordering race",
            RaceKind::Unclassified => "race of an unclassified relaxed atomic",
        }
    }
}

impl fmt::Display for RaceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One racing pair that is illegal under DRFrlx.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalRace {
    /// The kind (the first that applies, in [`RaceKind`]'s order).
    pub kind: RaceKind,
    /// Every kind that applies to the pair.
    pub kinds: Vec<RaceKind>,
    /// The access first in the SC total order, and the second.
    pub first: EventId,
    /// The second access.
    pub second: EventId,
    /// Their source lines.
    pub first_src: SourceLoc,
    /// The second's source line.
    pub second_src: SourceLoc,
    /// Their classes.
    pub first_class: AccessClass,
    /// The second's class.
    pub second_class: AccessClass,
    /// Why the pair is illegal, in words (which rule, on which values).
    pub why: String,
    /// For a non-ordering race: the ordering path A ... first -> second ... B,
    /// one line per access, and why no valid path from A to B exists.
    pub path: Option<Vec<String>>,
}

/// Classes to judge the graph with in place of the ones the program gave:
/// class inference asks "would the program be legal if the access at this
/// line had class C?" without running it again.
#[derive(Clone, Debug, Default)]
pub struct ClassOverride {
    /// Accesses issued at these lines take these classes.
    pub sites: Vec<(SourceLoc, AccessClass)>,
    /// Other unclassified relaxed atomics take this class (`None`: they stay
    /// unclassified). Inference judges one line at a time and treats the
    /// other unclassified ones as paired, the class that is always allowed.
    pub unclassified_as: Option<AccessClass>,
    /// Accesses issued at these lines count as observed whatever the graph
    /// says (unclassified atomics used through std's API return plain
    /// values, so whether the program used them is unknown: assume it did).
    pub assume_observed: Vec<SourceLoc>,
}

impl ClassOverride {
    fn class(&self, e: &Event) -> Option<AccessClass> {
        let c = AccessClass::of(e)?;
        if c == AccessClass::Data {
            return Some(c);
        }
        if let Some(&(_, o)) = self.sites.iter().find(|(s, _)| *s == e.src) {
            return Some(o);
        }
        Some(match (c, self.unclassified_as) {
            (AccessClass::Unclassified, Some(o)) => o,
            _ => c,
        })
    }
}

/// One memory operation (an RMW's read and write parts are one operation).
#[derive(Clone, Debug)]
struct Access {
    first: EventId,
    last: EventId,
    loc: Loc,
    reads: bool,
    writes: bool,
    class: AccessClass,
    observed: bool,
    /// A tracked cell: no rf or mo.
    cell: bool,
    /// mo position of the write (writes), or of the write read (reads).
    pos: usize,
    /// For commutativity: the value the location held just before the
    /// write, and what the write does to it.
    before: Value,
    effect: Effect,
    ty: ValueType,
}

#[derive(Copy, Clone, Debug)]
enum Effect {
    /// A load, or a failed compare-exchange: it writes nothing.
    Read,
    /// A store of a value.
    Store(Value),
    /// A successful RMW.
    Rmw(RmwOp),
}

impl Effect {
    fn apply(self, ty: ValueType, v: Value) -> Value {
        match self {
            Effect::Read => v,
            Effect::Store(x) => x,
            Effect::Rmw(op) => op.apply(ty, v).unwrap_or(v),
        }
    }
}

/// Dense numbering of a graph's events.
struct Index {
    base: HashMap<ThreadId, usize>,
    ids: Vec<EventId>,
}

impl Index {
    fn new(g: &ExecutionGraph) -> Index {
        let mut base = HashMap::new();
        let mut ids = Vec::new();
        for t in 0..g.num_threads() as ThreadId {
            if !g.has_thread(t) {
                continue;
            }
            base.insert(t, ids.len());
            for i in 0..g.thread_len(t) {
                ids.push(EventId::new(t, i));
            }
        }
        Index { base, ids }
    }
    fn of(&self, e: EventId) -> usize {
        self.base[&e.thread] + e.index as usize
    }
}

/// A set of events, one bit each.
#[derive(Clone, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn has(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    fn union(&mut self, o: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= *b;
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum EdgeKind {
    /// Program order, and the thread-creation, join and barrier edges that
    /// order like it (they are hb1 edges: the paper's join_workers is a
    /// barrier of paired atomics).
    Po,
    /// Conflict order between two conflicting accesses; `valid` per
    /// section 3.3.3's conditions (1) and (3).
    Co { valid: bool },
    /// From an RMW's read to its own write: one access, so the edge
    /// connects but is not a program-order edge between two operations (an
    /// ordering path needs a po edge between distinct operations).
    Within,
}

/// Finds the illegal races of `g`, a complete SC-consistent execution, with
/// the classes `classes` gives (the program's own when it is the default).
///
/// Observations are the graph's `Observe` events. Returns one entry per
/// racing pair of accesses, or an error when the graph is not an SC
/// execution (a checker bug: callers run this on `sc` explorations only).
pub fn analyze(g: &ExecutionGraph, classes: &ClassOverride) -> Result<Vec<IllegalRace>, String> {
    let idx = Index::new(g);
    let n = idx.ids.len();
    let accesses = collect_accesses(g, classes);
    let access_at: HashMap<EventId, usize> = accesses.iter().enumerate().map(|(i, a)| (a.first, i)).collect();

    // hb1 = (po | so1)+ (section 2.3.2), plus the thread-creation, join and
    // barrier edges. so1: X so1 Y iff X is a paired write, Y a paired read of
    // the same location, and X is before Y in T.
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, &e) in idx.ids.iter().enumerate() {
        if e.index > 0 {
            deps[i].push(idx.of(EventId::new(e.thread, e.index - 1)));
        }
        match &g.event(e).kind {
            EventKind::Start { parent: Some(p) } => deps[i].push(idx.of(*p)),
            EventKind::Join { target } => deps[i].push(idx.of(EventId::new(*target, g.thread_len(*target) - 1))),
            EventKind::Barrier { partners, .. } => deps[i].extend(partners.iter().map(|&p| idx.of(p))),
            _ => {}
        }
    }
    let po_deps = deps.clone();
    let paired = |a: &Access| a.class == AccessClass::Paired && !a.cell;
    for r in accesses.iter().filter(|a| a.reads && paired(a)) {
        for w in accesses
            .iter()
            .filter(|w| w.writes && paired(w) && w.loc == r.loc && w.first != r.first)
        {
            if before_in_t(w, r) {
                deps[idx.of(r.first)].push(idx.of(w.last));
            }
        }
    }
    let order = topological(&deps).ok_or("the graph's po | so1 has a cycle: it is not an SC execution")?;
    let mut hb1: Vec<Clock> = vec![Clock::new(); n];
    for &i in &order {
        let mut c = Clock::new();
        for &d in &deps[i] {
            c.join(&hb1[d]);
        }
        c.include(idx.ids[i]);
        hb1[i] = c;
    }
    let hb1_before = |a: &Access, b: &Access| hb1[idx.of(b.first)].contains(a.last);

    // Races (section 2.3.2): different threads, conflicting, not ordered by
    // hb1 either way; initial writes are not accesses here.
    let mut races: Vec<(usize, usize)> = Vec::new();
    for i in 0..accesses.len() {
        for j in i + 1..accesses.len() {
            let (a, b) = (&accesses[i], &accesses[j]);
            if a.first.thread == b.first.thread || a.loc != b.loc || !(a.writes || b.writes) {
                continue;
            }
            if hb1_before(a, b) || hb1_before(b, a) {
                continue;
            }
            // Order the pair as T does (cells: either order is an SC total
            // order, and they are data races whichever is first).
            if a.cell || b.cell || before_in_t(a, b) {
                races.push((i, j));
            } else {
                races.push((j, i));
            }
        }
    }
    if races.is_empty() {
        return Ok(Vec::new());
    }

    // The program/conflict graph of section 3.3.3: po edges and conflict
    // order edges between every two conflicting accesses, as T orders them.
    let mut edges: Vec<Vec<(usize, EdgeKind)>> = vec![Vec::new(); n];
    let rmw_halves: HashSet<(usize, usize)> = accesses
        .iter()
        .filter(|a| a.first != a.last)
        .map(|a| (idx.of(a.first), idx.of(a.last)))
        .collect();
    for (i, d) in po_deps.iter().enumerate() {
        for &p in d {
            let kind = if rmw_halves.contains(&(p, i)) {
                EdgeKind::Within
            } else {
                EdgeKind::Po
            };
            edges[p].push((i, kind));
        }
    }
    for (i, a) in accesses.iter().enumerate() {
        for b in accesses.iter().skip(i + 1) {
            if a.loc != b.loc || !(a.writes || b.writes) || a.first.thread == b.first.thread {
                continue;
            }
            let (x, y) = if a.cell || b.cell {
                if hb1_before(a, b) {
                    (a, b)
                } else if hb1_before(b, a) {
                    (b, a)
                } else {
                    continue;
                }
            } else if before_in_t(a, b) {
                (a, b)
            } else {
                (b, a)
            };
            // Valid edges (section 3.3.3): (1) hb1, or (3) between paired
            // and/or unpaired accesses. Condition (2), accesses to the same
            // address, is a property of the whole path (herd's valid path 1
            // in listing 7 keeps every edge on one location); it is checked
            // separately below.
            let pu = |c: AccessClass| c == AccessClass::Paired || c.is(RlxClass::Unpaired);
            let valid = hb1_before(x, y) || (pu(x.class) && pu(y.class));
            edges[idx.of(x.last)].push((idx.of(y.first), EdgeKind::Co { valid }));
        }
    }
    let topo = topological_edges(&edges).ok_or("the program/conflict graph has a cycle: not an SC execution")?;
    // reach: ≥ 0 edges; reach_po: a path with at least one po edge;
    // valid_po: the same using valid edges only.
    let mut reach = vec![Bits::new(n); n];
    let mut reach_po = vec![Bits::new(n); n];
    let mut valid_po = vec![Bits::new(n); n];
    let mut valid_any = vec![Bits::new(n); n];
    for &i in topo.iter().rev() {
        let mut r = Bits::new(n);
        let mut rp = Bits::new(n);
        let mut vp = Bits::new(n);
        let mut va = Bits::new(n);
        r.set(i);
        va.set(i);
        for &(m, k) in &edges[i] {
            r.union(&reach[m]);
            rp.union(&reach_po[m]);
            match k {
                EdgeKind::Po => {
                    rp.union(&reach[m]);
                    vp.union(&valid_any[m]);
                    vp.union(&valid_po[m]);
                    va.union(&valid_any[m]);
                }
                EdgeKind::Co { valid: true } | EdgeKind::Within => {
                    vp.union(&valid_po[m]);
                    va.union(&valid_any[m]);
                }
                EdgeKind::Co { valid: false } => {}
            }
        }
        reach[i] = r;
        reach_po[i] = rp;
        valid_po[i] = vp;
        valid_any[i] = va;
    }

    let mut out = Vec::new();
    for &(i, j) in &races {
        let (x, y) = (&accesses[i], &accesses[j]);
        let mut kinds = Vec::new();
        let mut why = Vec::new();
        // Data race: at least one is data.
        if x.class == AccessClass::Data || y.class == AccessClass::Data {
            kinds.push(RaceKind::Data);
            why.push("at least one of the two is a non-atomic (data) access".to_string());
        }
        // Quantum race: one is quantum, the other is not.
        let qx = x.class.is(RlxClass::Quantum);
        let qy = y.class.is(RlxClass::Quantum);
        if qx != qy {
            kinds.push(RaceKind::Quantum);
            why.push(
                "a quantum access races with a non-quantum one (quantum accesses may race only with each other)".into(),
            );
        }
        // Commutative race: at least one commutative, and the two are not
        // commutative with respect to each other (checked on the values of
        // this execution) or a loaded value is used.
        if x.class.is(RlxClass::Commutative) || y.class.is(RlxClass::Commutative) {
            if let Some(reason) = not_commutative(x, y) {
                kinds.push(RaceKind::Commutative);
                why.push(reason);
            } else if (x.reads && x.observed) || (y.reads && y.observed) {
                kinds.push(RaceKind::Commutative);
                why.push("the value loaded by one of them is used by its thread".into());
            }
        }
        // Speculative race: at least one speculative, and both store or the
        // racing load's value is used.
        if x.class.is(RlxClass::Speculative) || y.class.is(RlxClass::Speculative) {
            if x.writes && y.writes {
                kinds.push(RaceKind::Speculative);
                why.push("both accesses store".into());
            } else if (x.reads && x.observed) || (y.reads && y.observed) {
                kinds.push(RaceKind::Speculative);
                why.push("the racing load's value is used by its thread".into());
            }
        }
        // Non-ordering race: both atomic, at least one non-ordering, and
        // X -co-> Y lies on an ordering path from A to B with no valid path
        // from A to B.
        let mut path = None;
        if x.class.is_atomic()
            && y.class.is_atomic()
            && (x.class.is(RlxClass::NonOrdering) || y.class.is(RlxClass::NonOrdering))
        {
            let ctx = PathCtx {
                g,
                idx: &idx,
                edges: &edges,
                reach: &reach,
                reach_po: &reach_po,
                valid_po: &valid_po,
                accesses: &accesses,
                access_at: &access_at,
                hb1: &hb1,
            };
            if let Some(p) = ctx.unguarded_ordering_path(x, y) {
                kinds.push(RaceKind::NonOrdering);
                why.push("the pair is the only order between two other conflicting accesses".into());
                path = Some(p);
            }
        }
        // A relaxed atomic without a class races: DRFrlx needs every
        // operation distinguished.
        if x.class == AccessClass::Unclassified || y.class == AccessClass::Unclassified {
            kinds.push(RaceKind::Unclassified);
            why.push("a relaxed atomic without a DRFrlx class races".into());
        }
        if kinds.is_empty() {
            continue;
        }
        out.push(IllegalRace {
            kind: kinds[0],
            kinds,
            first: x.first,
            second: y.first,
            first_src: g.event(x.first).src,
            second_src: g.event(y.first).src,
            first_class: x.class,
            second_class: y.class,
            why: why[0].clone(),
            path,
        });
    }
    Ok(out)
}

/// The memory operations of `g` with their classes.
fn collect_accesses(g: &ExecutionGraph, classes: &ClassOverride) -> Vec<Access> {
    let observed: Vec<EventId> = g
        .events()
        .filter_map(|(_, e)| match e.kind {
            EventKind::Observe { of } => Some(of),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for t in 0..g.num_threads() as ThreadId {
        if !g.has_thread(t) {
            continue;
        }
        let evs = g.thread_events(t);
        for (i, e) in evs.iter().enumerate() {
            let id = EventId::new(t, i as u32);
            let Some(class) = classes.class(e) else { continue };
            let acc = match &e.kind {
                EventKind::Cell { loc, write } => Access {
                    first: id,
                    last: id,
                    loc: *loc,
                    reads: !write,
                    writes: *write,
                    class,
                    observed: false,
                    cell: true,
                    pos: 0,
                    before: 0,
                    effect: Effect::Read,
                    ty: ValueType::U64,
                },
                EventKind::Read(r) => {
                    let exclusive = r.is_exclusive() && i + 1 < evs.len();
                    let last = if exclusive { EventId::new(t, i as u32 + 1) } else { id };
                    let (effect, ty) = match r.rmw {
                        Some((op, ty, ..)) if exclusive => (Effect::Rmw(op), ty),
                        Some((_, ty, ..)) => (Effect::Read, ty),
                        None => (Effect::Read, ValueType::U64),
                    };
                    Access {
                        first: id,
                        last,
                        loc: r.loc,
                        reads: true,
                        writes: exclusive,
                        class,
                        observed: observed.contains(&id) || classes.assume_observed.contains(&e.src),
                        cell: false,
                        pos: if exclusive {
                            g.mo_position(r.loc, last)
                        } else {
                            g.mo_position(r.loc, r.rf)
                        },
                        before: r.value,
                        effect,
                        ty,
                    }
                }
                EventKind::Write(w) if !w.rmw => {
                    let pos = g.mo_position(w.loc, id);
                    Access {
                        first: id,
                        last: id,
                        loc: w.loc,
                        reads: false,
                        writes: true,
                        class,
                        observed: false,
                        cell: false,
                        pos,
                        before: g.write_value(w.loc, g.mo_at(w.loc, pos - 1)),
                        effect: Effect::Store(w.value),
                        ty: ValueType::U64,
                    }
                }
                _ => continue,
            };
            out.push(acc);
        }
    }
    out
}

/// Whether conflicting atomic accesses `a` and `b` (same location, not
/// cells) are in this order in T: a write is before another write iff it is
/// mo-before it; a write is before a read iff it is mo-before-or-equal the
/// write the read reads.
fn before_in_t(a: &Access, b: &Access) -> bool {
    match (a.writes, b.writes) {
        (true, true) => a.pos < b.pos,
        (true, false) => a.pos <= b.pos,
        (false, true) => a.pos < b.pos,
        (false, false) => a.first < b.first,
    }
}

/// Section 3.2.3: "two stores or RMWs to a single memory location M are
/// commutative with respect to each other if they can be performed in any
/// order and yield the same value for M". Checked on this execution's
/// values: both orders are applied to the value M held before the first.
fn not_commutative(x: &Access, y: &Access) -> Option<String> {
    let load = |a: &Access| matches!(a.effect, Effect::Read);
    if load(x) || load(y) {
        return Some("a load is not commutative with a store or RMW (its value depends on the order)".into());
    }
    let v0 = x.before;
    let xy = y.effect.apply(y.ty, x.effect.apply(x.ty, v0));
    let yx = x.effect.apply(x.ty, y.effect.apply(y.ty, v0));
    if xy != yx {
        return Some(format!(
            "they do not commute: from {v0}, one order leaves {xy} and the other {yx}"
        ));
    }
    None
}

/// Kahn's algorithm over dependency lists (`deps[i]`: what must come before
/// `i`). `None` on a cycle.
fn topological(deps: &[Vec<usize>]) -> Option<Vec<usize>> {
    let n = deps.len();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indeg = vec![0usize; n];
    for (i, d) in deps.iter().enumerate() {
        for &p in d {
            succ[p].push(i);
            indeg[i] += 1;
        }
    }
    kahn(&succ, indeg)
}

fn topological_edges(edges: &[Vec<(usize, EdgeKind)>]) -> Option<Vec<usize>> {
    let n = edges.len();
    let succ: Vec<Vec<usize>> = edges.iter().map(|e| e.iter().map(|&(m, _)| m).collect()).collect();
    let mut indeg = vec![0usize; n];
    for s in &succ {
        for &m in s {
            indeg[m] += 1;
        }
    }
    kahn(&succ, indeg)
}

fn kahn(succ: &[Vec<usize>], mut indeg: Vec<usize>) -> Option<Vec<usize>> {
    let mut ready: VecDeque<usize> = (0..succ.len()).filter(|&i| indeg[i] == 0).collect();
    let mut order = Vec::with_capacity(succ.len());
    while let Some(i) = ready.pop_front() {
        order.push(i);
        for &m in &succ[i] {
            indeg[m] -= 1;
            if indeg[m] == 0 {
                ready.push_back(m);
            }
        }
    }
    (order.len() == succ.len()).then_some(order)
}
