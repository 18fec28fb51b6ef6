//! Relations over the events of a graph as bit matrices, and the memory
//! models' axioms written directly from their definitions.
//!
//! This is the slow, obviously-correct side of the checker: it derives hb,
//! eco, psc, ... from po, rf and mo alone, never from the incremental views
//! the explorer keeps. The reference enumerator judges every graph with it,
//! and the explorer uses it for the seq_cst (psc) axiom and for `sc`.

use crate::event::*;
use crate::graph::{ExecutionGraph, SyncRules};

/// A binary relation over `n` nodes, as a bit matrix.
#[derive(Clone, PartialEq, Eq)]
pub struct Rel {
    n: usize,
    words: usize,
    bits: Vec<u64>,
}

impl Rel {
    /// The empty relation over `n` nodes.
    pub fn new(n: usize) -> Rel {
        let words = n.div_ceil(64).max(1);
        Rel {
            n,
            words,
            bits: vec![0; n * words],
        }
    }
    /// Adds the pair (a, b).
    #[inline]
    pub fn add(&mut self, a: usize, b: usize) {
        self.bits[a * self.words + b / 64] |= 1 << (b % 64);
    }
    /// Whether (a, b) is in the relation.
    #[inline]
    pub fn has(&self, a: usize, b: usize) -> bool {
        self.bits[a * self.words + b / 64] & (1 << (b % 64)) != 0
    }
    fn row(&self, a: usize) -> &[u64] {
        &self.bits[a * self.words..(a + 1) * self.words]
    }
    /// Union in place.
    pub fn union_with(&mut self, o: &Rel) {
        for (x, y) in self.bits.iter_mut().zip(&o.bits) {
            *x |= *y;
        }
    }
    /// The `b` with `(a, b)` in the relation, in order, word by word (only
    /// the set bits: most rows are sparse).
    #[inline]
    fn successors(&self, a: usize) -> impl Iterator<Item = usize> + '_ {
        self.row(a).iter().enumerate().flat_map(|(wi, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = wi * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    b
                })
            })
        })
    }
    /// Relational composition `self ; o`.
    pub fn compose(&self, o: &Rel) -> Rel {
        let mut r = Rel::new(self.n);
        let w = self.words;
        for a in 0..self.n {
            for b in self.successors(a) {
                for j in 0..w {
                    r.bits[a * w + j] |= o.bits[b * w + j];
                }
            }
        }
        r
    }
    /// Transitive closure (Warshall).
    pub fn closure(&self) -> Rel {
        let mut r = self.clone();
        let w = self.words;
        let mut rowk = vec![0u64; w];
        for k in 0..self.n {
            rowk.copy_from_slice(r.row(k));
            if rowk.iter().all(|&x| x == 0) {
                // Nothing to pass on through k.
                continue;
            }
            for a in 0..self.n {
                if r.has(a, k) {
                    for (d, s) in r.bits[a * w..(a + 1) * w].iter_mut().zip(&rowk) {
                        *d |= *s;
                    }
                }
            }
        }
        r
    }
    /// Intersection in place.
    pub fn intersect_with(&mut self, o: &Rel) {
        for (x, y) in self.bits.iter_mut().zip(&o.bits) {
            *x &= *y;
        }
    }
    /// Difference in place (`self \ o`).
    pub fn subtract(&mut self, o: &Rel) {
        for (x, y) in self.bits.iter_mut().zip(&o.bits) {
            *x &= !*y;
        }
    }
    /// The converse relation.
    pub fn transpose(&self) -> Rel {
        let mut r = Rel::new(self.n);
        for a in 0..self.n {
            for b in self.successors(a) {
                r.add(b, a);
            }
        }
        r
    }
    /// Whether the relation has no pair.
    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|&x| x == 0)
    }
    /// The number of nodes it ranges over.
    pub fn size(&self) -> usize {
        self.n
    }
    /// Whether some node is related to itself.
    pub fn is_reflexive_somewhere(&self) -> bool {
        (0..self.n).any(|a| self.has(a, a))
    }
    /// Whether the relation has a cycle.
    ///
    /// By elimination (Kahn): nodes with no predecessor left are removed
    /// until none is; a cycle remains exactly when some node stays. Linear
    /// in the words of the matrix, where the closure was cubic.
    pub fn has_cycle(&self) -> bool {
        // Predecessors per node, and the nodes still in.
        let mut preds = vec![0u32; self.n];
        for a in 0..self.n {
            for b in self.successors(a) {
                preds[b] += 1;
            }
        }
        let mut ready: Vec<usize> = (0..self.n).filter(|&a| preds[a] == 0).collect();
        let mut removed = 0;
        while let Some(a) = ready.pop() {
            removed += 1;
            for b in self.successors(a) {
                preds[b] -= 1;
                if preds[b] == 0 {
                    ready.push(b);
                }
            }
        }
        removed < self.n
    }
    /// The relation restricted to pairs whose ends satisfy the predicates.
    pub fn filter(&self, keep: impl Fn(usize, usize) -> bool) -> Rel {
        let mut r = Rel::new(self.n);
        for a in 0..self.n {
            for b in 0..self.n {
                if self.has(a, b) && keep(a, b) {
                    r.add(a, b);
                }
            }
        }
        r
    }
    /// Adds the identity on the nodes that satisfy `p` (turns R into R? on them).
    pub fn with_identity(&self, p: impl Fn(usize) -> bool) -> Rel {
        let mut r = self.clone();
        for a in 0..self.n {
            if p(a) {
                r.add(a, a);
            }
        }
        r
    }
}

/// A violated axiom, for diagnostics.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Axiom {
    /// irreflexive(hb ; eco?)
    Coherence,
    /// rmw ∩ (fr ; mo) = ∅
    Atomicity,
    /// acyclic(psc)
    Psc,
    /// acyclic(po ∪ rf)
    NoThinAir,
    /// acyclic(po ∪ rf ∪ mo ∪ fr)
    SequentialConsistency,
    /// A non-atomic read reads a write that is not a visible side effect
    /// (C11's `NaRf`: rf ; [R \ A] ⊆ vis).
    NonAtomicRead,
    /// An axiom of a GPU hardware model's cat file (`ptx7.5`, `vulkan`).
    HardwareModel,
}

/// The base relations of a graph, derived from po, rf and mo.
pub struct Relations {
    /// Events by dense index (initial writes get indices too: one per location).
    pub ids: Vec<EventId>,
    /// For initial writes, their location.
    pub init_loc: Vec<Option<Loc>>,
    /// Program order (with spawn -> start and end -> join), transitive.
    pub po: Rel,
    /// Reads-from.
    pub rf: Rel,
    /// Modification order, transitive (initial write first).
    pub mo: Rel,
    /// From-reads: rf⁻¹ ; mo.
    pub fr: Rel,
    /// RMW pairs (read part, write part).
    pub rmw: Rel,
    /// Whether synchronization and psc need mutual scope inclusion.
    scoped: bool,
    /// Synchronizes-with (release event to acquire event).
    pub sw: Rel,
    /// Happens-before, derived from sw per RC11 with C++20 release sequences,
    /// for accesses to global memory (barrier edges only from barriers that
    /// fence global memory; `space.rs`, rule 3).
    pub hb: Rel,
    /// Happens-before for accesses to local memory (barrier edges only from
    /// barriers that fence local memory). `None` when every barrier fences
    /// both spaces: it is then `hb` (see [`Relations::hb_of`]).
    pub hb_local: Option<Rel>,
}

fn order_of(e: &Event) -> Option<Order> {
    match &e.kind {
        EventKind::Read(r) => Some(r.order),
        EventKind::Write(w) => Some(w.order),
        EventKind::Fence { order } => Some(*order),
        _ => None,
    }
}

impl Relations {
    /// Derives the relations of `g`, synchronizing as `rules` say (with
    /// `all_sc`, every atomic access counts as acquire/release).
    pub fn of(g: &ExecutionGraph, rules: SyncRules) -> Relations {
        let sc_sync = rules.all_sc;
        let mut ids = Vec::new();
        let mut init_loc = Vec::new();
        let mut index = std::collections::HashMap::new();
        let mut init_index = std::collections::HashMap::new();
        for (loc, d) in g.locs() {
            if d.kind != LocKind::Cell {
                init_index.insert(*loc, ids.len());
                ids.push(EventId::INIT);
                init_loc.push(Some(*loc));
            }
        }
        for (id, _) in g.events() {
            index.insert(id, ids.len());
            ids.push(id);
            init_loc.push(None);
        }
        let n = ids.len();
        let idx = |e: EventId, loc: Loc| -> usize {
            if e.is_init() {
                init_index[&loc]
            } else {
                index[&e]
            }
        };
        let mut po1 = Rel::new(n);
        // Barrier edges, by the space they order: a barrier is in po (it
        // orders execution: porf, psc, sc) but in hb only for its spaces.
        let mut bar_global = Rel::new(n);
        let mut bar_local = Rel::new(n);
        let mut partial_barrier = false;
        let mut rf = Rel::new(n);
        let mut mo = Rel::new(n);
        let mut rmw = Rel::new(n);
        for (id, e) in g.events() {
            let i = index[&id];
            if id.index > 0 {
                po1.add(index[&EventId::new(id.thread, id.index - 1)], i);
            }
            match &e.kind {
                EventKind::Start { parent: Some(p) } => po1.add(index[p], i),
                EventKind::Join { target } => {
                    let end = EventId::new(*target, g.thread_len(*target) - 1);
                    po1.add(index[&end], i);
                }
                EventKind::Barrier { partners, fence, .. } => {
                    partial_barrier |= *fence != FenceSpace::Both;
                    for p in partners {
                        if fence.fences(Space::Global) {
                            bar_global.add(index[p], i);
                        }
                        if fence.fences(Space::Local) {
                            bar_local.add(index[p], i);
                        }
                    }
                }
                // A promised read (`graph/promises.rs`) reads a write po ∪
                // rf-after it, not known until the execution ends: its
                // placeholder (the initial write) is no rf edge, or a
                // graph under construction would be judged as if it read
                // that (a read after an own write of its location, a
                // seq_cst read, would break coherence or the seq_cst axiom
                // it keeps when it reads its write).
                EventKind::Read(r) if g.promise_at(id.thread, id.index).is_none() => rf.add(idx(r.rf, r.loc), i),
                EventKind::Write(w) if w.rmw => rmw.add(index[&EventId::new(id.thread, id.index - 1)], i),
                _ => {}
            }
        }
        for (loc, d) in g.locs() {
            if d.kind == LocKind::Cell {
                continue;
            }
            let mut chain = vec![init_index[loc]];
            chain.extend(d.mo.iter().map(|w| index[w]));
            for a in 0..chain.len() {
                for b in a + 1..chain.len() {
                    mo.add(chain[a], chain[b]);
                }
            }
        }
        let po = {
            let mut all = po1.clone();
            all.union_with(&bar_global);
            all.union_with(&bar_local);
            all.closure()
        };
        let mut rf_inv = Rel::new(n);
        for a in 0..n {
            for b in 0..n {
                if rf.has(a, b) {
                    rf_inv.add(b, a);
                }
            }
        }
        let fr = rf_inv.compose(&mo);
        // Events by role.
        let ev = |i: usize| -> Option<&Event> {
            if init_loc[i].is_some() {
                None
            } else {
                Some(g.event(ids[i]))
            }
        };
        let ord = |i: usize| ev(i).and_then(order_of);
        let is_write = |i: usize| init_loc[i].is_some() || ev(i).is_some_and(|e| e.as_write().is_some());
        let is_read = |i: usize| ev(i).is_some_and(|e| e.as_read().is_some());
        let is_fence = |i: usize| ev(i).is_some_and(|e| matches!(e.kind, EventKind::Fence { .. }));
        let atomic = |i: usize| ord(i).is_some_and(|o| o.is_atomic());
        let rel = |i: usize| ord(i).is_some_and(|o| o.is_release() || (sc_sync && o.is_atomic()));
        let acq = |i: usize| ord(i).is_some_and(|o| o.is_acquire() || (sc_sync && o.is_atomic()));
        // rs = [W] ; (rf ; rmw)*                (C++20 release sequences, P0982R1)
        // rs = [W] ; po|loc? ; [W] ; (rf ; rmw)*  (C11's, RC11 as published: Lahav et al., PLDI 2017, §3)
        // Scoped models (docs/semantics.md §4): a read takes part in
        // synchronization only with a write it is mutually scope-inclusive
        // with, and a release only with an acquire it is mutually inclusive
        // with. The explorer's incremental form of the same rule is
        // `graph/sw.rs`; this is its independent cross-check.
        let incl = |a: usize, b: usize| {
            !rules.scoped || init_loc[a].is_some() || init_loc[b].is_some() || g.inclusive(ids[a], ids[b])
        };
        let rf_sync = if rules.scoped { rf.filter(incl) } else { rf.clone() };
        // RC11's po in rs and around fences in sw is sequenced-before: one
        // thread's own order. `po` here also holds spawn, join and barrier
        // edges (they order execution and feed hb), but a release fence
        // does not reach another thread's writes through them, nor does a
        // write continue another thread's release sequence, as the views
        // have it (`graph/sw.rs` keeps fences and release heads per thread).
        let sb = po.filter(|a, b| init_loc[a].is_none() && init_loc[b].is_none() && ids[a].thread == ids[b].thread);
        let rfrmw = rf_sync.compose(&rmw).closure().with_identity(is_write);
        let mut rs = rfrmw.filter(|a, b| is_write(a) && atomic(a) && is_write(b));
        if rules.same_thread_rs {
            let loc = |i: usize| match init_loc[i] {
                Some(l) => Some(l),
                None => ev(i).and_then(|e| e.as_write()).map(|w| w.loc),
            };
            let po_loc_w = sb.filter(|a, b| is_write(a) && atomic(a) && is_write(b) && atomic(b) && loc(a) == loc(b));
            rs.union_with(&po_loc_w.compose(&rfrmw));
        }
        // sw = [E⊒rel] ; ([F] ; po)? ; rs ; rf ; [R⊒rlx] ; (po ; [F])? ; [E⊒acq]   (RC11 §3)
        let left = sb.filter(|a, _| is_fence(a) && rel(a)).with_identity(rel);
        let rf_atomic = rf_sync.filter(|_, b| is_read(b) && atomic(b));
        let right = sb.filter(|_, b| is_fence(b) && acq(b)).with_identity(acq);
        let mut sw = left.compose(&rs).compose(&rf_atomic).compose(&right);
        if rules.scoped {
            sw = sw.filter(incl);
        }
        // hb = (po ∪ sw)+ (RC11 §3); with barriers, hb_s = (po ∪ bar_s ∪ sw)+
        // for each space s (`space.rs`, rules 3 and 5).
        let hb_in = |bar: &Rel| {
            // (po ∪ bar ∪ sw)+: one closure ((A ∪ B)+ = (A+ ∪ B)+).
            let mut hb1 = po1.clone();
            hb1.union_with(bar);
            hb1.union_with(&sw);
            hb1.closure()
        };
        let (hb, hb_local) = if partial_barrier {
            (hb_in(&bar_global), Some(hb_in(&bar_local)))
        } else {
            let mut hb1 = po.clone();
            hb1.union_with(&sw);
            (hb1.closure(), None)
        };
        let sw_kept = sw;
        Relations {
            ids,
            init_loc,
            po,
            rf,
            mo,
            fr,
            rmw,
            hb,
            hb_local,
            sw: sw_kept,
            scoped: rules.scoped,
        }
    }

    fn loc_of(&self, g: &ExecutionGraph, i: usize) -> Option<Loc> {
        match self.init_loc[i] {
            Some(l) => Some(l),
            None => g.event(self.ids[i]).loc(),
        }
    }

    fn event<'g>(&self, g: &'g ExecutionGraph, i: usize) -> Option<&'g Event> {
        if self.init_loc[i].is_some() {
            None
        } else {
            Some(g.event(self.ids[i]))
        }
    }

    /// Happens-before for accesses to memory of `space`.
    pub fn hb_of(&self, space: Space) -> &Rel {
        match (space, &self.hb_local) {
            (Space::Local, Some(hb)) => hb,
            _ => &self.hb,
        }
    }

    /// eco = (rf ∪ mo ∪ fr)+
    pub fn eco(&self) -> Rel {
        let mut r = self.rf.clone();
        r.union_with(&self.mo);
        r.union_with(&self.fr);
        r.closure()
    }

    /// The dense index of event `e` (not for initial writes).
    pub fn index_of(&self, e: EventId) -> Option<usize> {
        self.ids.iter().position(|&x| x == e && !e.is_init())
    }

    /// RC11's psc = psc_base ∪ psc_F over seq_cst events.
    pub fn psc(&self, g: &ExecutionGraph) -> Rel {
        let n = self.ids.len();
        let sc = |i: usize| self.event(g, i).is_some_and(|e| e.is_sc());
        let fsc = |i: usize| {
            self.event(g, i)
                .is_some_and(|e| matches!(e.kind, EventKind::Fence { order } if order.is_sc()))
        };
        let same_loc = |a: usize, b: usize| {
            let (la, lb) = (self.loc_of(g, a), self.loc_of(g, b));
            la.is_some() && la == lb
        };
        // scb = po ∪ po|≠loc ; hb ; po|≠loc ∪ hb|loc ∪ mo ∪ fr
        let po_nloc = self.po.filter(|a, b| !same_loc(a, b));
        let mut scb = self.po.clone();
        scb.union_with(&po_nloc.compose(&self.hb).compose(&po_nloc));
        scb.union_with(&self.hb.filter(same_loc));
        scb.union_with(&self.mo);
        scb.union_with(&self.fr);
        // ([E^sc] ∪ [F^sc] ; hb?) ; scb ; ([E^sc] ∪ hb? ; [F^sc])
        let mut left = Rel::new(n);
        let mut right = Rel::new(n);
        for a in 0..n {
            if sc(a) {
                left.add(a, a);
                right.add(a, a);
            }
            if fsc(a) {
                for b in 0..n {
                    if self.hb.has(a, b) {
                        left.add(a, b);
                    }
                    if self.hb.has(b, a) {
                        right.add(b, a);
                    }
                }
            }
        }
        let mut psc = left.compose(&scb).compose(&right);
        // psc_F = [F^sc] ; (hb ∪ hb ; eco ; hb) ; [F^sc]
        let mut mid = self.hb.clone();
        mid.union_with(&self.hb.compose(&self.eco()).compose(&self.hb));
        psc.union_with(&mid.filter(|a, b| fsc(a) && fsc(b)));
        // Scoped models order only mutually scope-inclusive seq_cst events.
        psc.filter(|a, b| sc(a) && sc(b) && (!self.scoped || g.inclusive(self.ids[a], self.ids[b])))
    }

    /// Atomicity: no write between an RMW's source and its write in mo
    /// (rmw ∩ (fr ; mo) = ∅).
    fn atomicity(&self) -> Result<(), Axiom> {
        let fr_mo = self.fr.compose(&self.mo);
        if self.rmw.filter(|a, b| fr_mo.has(a, b)).bits.iter().any(|&w| w != 0) {
            return Err(Axiom::Atomicity);
        }
        Ok(())
    }

    /// No thin air: acyclic(po ∪ rf).
    fn no_thin_air(&self) -> Result<(), Axiom> {
        let mut porf = self.po.clone();
        porf.union_with(&self.rf);
        if porf.has_cycle() {
            return Err(Axiom::NoThinAir);
        }
        Ok(())
    }

    /// The `porf` model's axioms: RMW atomicity and acyclic(po ∪ rf).
    pub fn check_porf(&self) -> Result<(), Axiom> {
        self.atomicity()?;
        self.no_thin_air()
    }

    /// Checks every axiom of `model`; returns the first violated one.
    pub fn check(&self, g: &ExecutionGraph, sc_model: bool) -> Result<(), Axiom> {
        self.atomicity()?;
        let eco = self.eco();
        if sc_model {
            let mut all = self.po.clone();
            all.union_with(&eco);
            if all.has_cycle() {
                return Err(Axiom::SequentialConsistency);
            }
            return Ok(());
        }
        // irreflexive(hb ; eco?), with the hb of each location's space
        // (eco relates accesses of one location only); one hb for both
        // spaces when no barrier fences only one.
        let incoherent = self.hb.is_reflexive_somewhere()
            || match &self.hb_local {
                None => self.hb.compose(&eco).is_reflexive_somewhere(),
                Some(hb_local) => {
                    let local = |i: usize| self.loc_of(g, i).is_some_and(|l| g.space_of(l) == Space::Local);
                    self.hb.compose(&eco.filter(|a, _| !local(a))).is_reflexive_somewhere()
                        || hb_local.compose(&eco.filter(|a, _| local(a))).is_reflexive_somewhere()
                }
            };
        if incoherent {
            return Err(Axiom::Coherence);
        }
        self.no_thin_air()?;
        if self.psc(g).has_cycle() {
            return Err(Axiom::Psc);
        }
        Ok(())
    }
}
