//! The original C11 model, as herd's and Dat3M's `c11.cat` define it
//! (Batty, Owens, Sarkar, Sewell, Weber, POPL 2011, with the SC axiom of
//! Batty, Donaldson, Wickerson, "Overhauling SC atomics in C11 and
//! OpenCL", POPL 2016). A reference model for litmus tests and for
//! comparing with other tools: what Rust code should be checked under is
//! `cpp20`.
//!
//! It differs from RC11 in three ways that change outcomes:
//! - no no-thin-air axiom: po ∪ rf may be cyclic (load buffering is allowed);
//! - release sequences are C11's: the mo-contiguous run of same-thread
//!   writes and RMWs after the head (an interrupting write of another thread
//!   ends the sequence), not RC11's `po|loc` plus RMW chains;
//! - the seq_cst axiom is `Spartial`: acyclicity of `scp` between seq_cst
//!   events, where `scp` holds all of hb (RC11's psc only `po|≠loc ; hb ;
//!   po|≠loc` and `hb|loc`) but only part of fr (RC11's psc all of it), and
//!   seq_cst fences order less.
//!
//! A non-atomic read must read a visible side effect (`NaRf`); `consume`
//! is not modelled (the litmus front end reads it as acquire, so `dob` is
//! empty). An RMW is two events here (read part, write part, related by
//! rmw), one in herd; the axioms below are written for that (see `Rmw`).
//!
//! Two relations of the model are not monotone in the graph: C11's release
//! sequence ends at an interrupting write, so adding a write can remove
//! synchronization, and `vis` excludes a write with another hb-between, so
//! adding hb can remove a visible side effect. A graph under construction
//! is judged with [`Judge::Prefix`] (C++20's RMW-chain release sequences,
//! which every extension's C11 release sequences contain, and no `NaRf`):
//! it never rejects a prefix of a consistent execution. A complete graph is
//! judged with [`Judge::Complete`], every axiom as written.

use super::relations::{Axiom, Rel, Relations};
use super::semantics::Semantics;
use super::sync_edges::edges_of;
use crate::event::*;
use crate::graph::{ExecutionGraph, SyncRules};
use std::collections::HashSet;

/// `c11`: graphs are explored with C++20's coherence and views (a sound
/// over-approximation: C11's hb holds C++20's), may have po ∪ rf cycles,
/// and are judged by C11's axioms: the monotone ones on every graph under
/// construction, all of them on complete graphs (docs/c11-model.md).
pub struct C11Model;

impl Semantics for C11Model {
    const NAME: &'static str = "c11";
    const CODE: u8 = 5;
    // C++20's rules: views under construction hold only the
    // synchronization every extension keeps (see the module's notes).
    const SYNC: SyncRules = SyncRules {
        all_sc: false,
        same_thread_rs: false,
        scoped: false,
    };
    const COHERENT: bool = true;
    const HB_RACES: bool = true;
    const PORF_CYCLES: bool = true;

    fn check_needed(sc_events: usize, new_sc: bool) -> bool {
        new_sc || sc_events >= 2
    }

    /// Coherence under C++20's hb holds by construction (the floor); C11's
    /// seq_cst axiom on the graph so far. C11's own release sequences and
    /// NaRf wait for the complete graph: they are not monotone.
    fn check_graph(g: &ExecutionGraph) -> Result<(), Axiom> {
        if g.sc_events() < 2 {
            return Ok(());
        }
        crate::work::full_check();
        check(g, Judge::Prefix)
    }

    fn judge_complete(g: &ExecutionGraph) -> Result<Vec<(EventId, EventId)>, Axiom> {
        check(g, Judge::Complete).map(|()| Vec::new())
    }

    fn consistent_declarative(g: &ExecutionGraph) -> Result<(), Axiom> {
        check(g, Judge::Prefix)
    }

    fn same_hb(a: &ExecutionGraph, b: &ExecutionGraph) -> bool {
        C11::of(a, Judge::Complete).hb == C11::of(b, Judge::Complete).hb
    }

    fn sync_edges(g: &ExecutionGraph) -> Option<Vec<(EventId, EventId)>> {
        let m = C11::of(g, Judge::Complete);
        Some(edges_of(&m.sw, &m.base.ids))
    }
}

/// How much of the model a graph is judged by.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Judge {
    /// A graph that may still grow: the monotone part of the axioms (see
    /// the module documentation).
    Prefix,
    /// A complete execution: every axiom.
    Complete,
}

/// The C11 relations of a graph.
pub struct C11 {
    /// po, rf, mo, fr and rmw (the RC11 derivations of sw and hb in it are
    /// not used).
    pub base: Relations,
    /// Sequenced-before: one thread's own order.
    pub sb: Rel,
    /// Synchronizes-with (swra ∪ asw from the initial writes).
    pub sw: Rel,
    /// Happens-before: (po ∪ sw)+ (c11.cat's `sb | ithb` without `dob`).
    pub hb: Rel,
}

fn order_of(e: &Event) -> Option<Order> {
    match &e.kind {
        EventKind::Read(r) => Some(r.order),
        EventKind::Write(w) => Some(w.order),
        EventKind::Fence { order } => Some(*order),
        _ => None,
    }
}

impl C11 {
    /// Derives the C11 relations of `g`.
    pub fn of(g: &ExecutionGraph, judge: Judge) -> C11 {
        C11::of_unsequenced(g, judge, &HashSet::new())
    }

    /// Derives the C11 relations of `g` where the pairs in `unsequenced`
    /// (a po-before b in the graph) are not sequenced: the operands of one
    /// C operator, which the front end issued in some order. They are
    /// taken out of po (and so of sb and hb).
    pub fn of_unsequenced(g: &ExecutionGraph, judge: Judge, unsequenced: &HashSet<(EventId, EventId)>) -> C11 {
        // Plain rules: the base's own sw/hb are not used, only po, rf, mo,
        // fr and rmw, which do not depend on them.
        let mut base = Relations::of(g, SyncRules::default());
        if !unsequenced.is_empty() {
            let ids = &base.ids;
            base.po = base.po.filter(|a, b| !unsequenced.contains(&(ids[a], ids[b])));
        }
        let n = base.ids.len();
        let init = |i: usize| base.init_loc[i].is_some();
        let ev = |i: usize| (!init(i)).then(|| g.event(base.ids[i]));
        let ord = |i: usize| ev(i).and_then(order_of);
        let is_w = |i: usize| init(i) || ev(i).is_some_and(|e| e.as_write().is_some());
        let is_r = |i: usize| ev(i).is_some_and(|e| e.as_read().is_some());
        let is_f = |i: usize| ev(i).is_some_and(|e| matches!(e.kind, EventKind::Fence { .. }));
        let is_rmw_w = |i: usize| ev(i).and_then(|e| e.as_write()).is_some_and(|w| w.rmw);
        let atomic = |i: usize| ord(i).is_some_and(|o| o.is_atomic());
        // crel = REL | (SC & (W | F)) | ACQ_REL;  cacq = ACQ | (SC & (R | F)) | ACQ_REL
        let crel = |i: usize| (is_w(i) || is_f(i)) && ord(i).is_some_and(|o| o.is_release());
        let cacq = |i: usize| (is_r(i) || is_f(i)) && ord(i).is_some_and(|o| o.is_acquire());
        let same_thread = |a: usize, b: usize| !init(a) && !init(b) && base.ids[a].thread == base.ids[b].thread;
        // sb = po of one thread (spawn and join edges order execution and
        // are in hb, as herd's asw is, but a fence does not reach another
        // thread's writes through them).
        let sb = base.po.filter(same_thread);
        let rs = match judge {
            // let rs_prime = int | (_ * (R & W))
            // let rs = mo & rs_prime \ ((mo \ rs_prime) ; mo)
            Judge::Complete => {
                let prime = |a: usize, b: usize| same_thread(a, b) || is_rmw_w(b);
                let breaks = base.mo.filter(|a, b| !prime(a, b)).compose(&base.mo);
                base.mo.filter(|a, b| prime(a, b) && !breaks.has(a, b))
            }
            // Every RMW chain from the head is mo-contiguous in a consistent
            // extension (atomicity), so it is in C11's sequence there.
            Judge::Prefix => base.rf.compose(&base.rmw).closure(),
        };
        let rs_opt = rs.with_identity(|_| true);
        // swra = ext & ([crel] ; fsb? ; [A & W] ; rs? ; rf ; [R & A] ; sbf? ; [cacq])
        let mut left = Rel::new(n);
        let mut right = Rel::new(n);
        for a in 0..n {
            if crel(a) && is_w(a) && atomic(a) {
                left.add(a, a);
            }
            if is_r(a) && atomic(a) && cacq(a) {
                right.add(a, a);
            }
            for b in 0..n {
                if !sb.has(a, b) {
                    continue;
                }
                if is_f(a) && crel(a) && is_w(b) && atomic(b) {
                    left.add(a, b);
                }
                if is_r(a) && atomic(a) && is_f(b) && cacq(b) {
                    right.add(a, b);
                }
            }
        }
        let mut sw = left
            .compose(&rs_opt)
            .compose(&base.rf)
            .compose(&right)
            .filter(|a, b| !same_thread(a, b));
        // pp_asw: the initial writes happen before every other event.
        for a in (0..n).filter(|&a| init(a)) {
            for b in (0..n).filter(|&b| !init(b)) {
                sw.add(a, b);
            }
        }
        // let ithbr = sw | dob | (sw ; sb);  let ithb = (ithbr | (sb ; ithbr))+
        // let hb = sb | ithb  — with dob empty, (po ∪ sw)+.
        let mut hb = base.po.clone();
        hb.union_with(&sw);
        let hb = hb.closure();
        C11 { base, sb, sw, hb }
    }

    /// Judges `g` by the model's axioms (see [`Judge`]).
    pub fn check(&self, g: &ExecutionGraph, judge: Judge) -> Result<(), Axiom> {
        let b = &self.base;
        let n = b.ids.len();
        let hb = &self.hb;
        // acyclic hb as Hb
        if hb.is_reflexive_somewhere() {
            return Err(Axiom::Coherence);
        }
        // irreflexive ((fr | mo) ; rf? ; hb) as Coh
        let mut frmo = b.fr.clone();
        frmo.union_with(&b.mo);
        let rf_opt = b.rf.with_identity(|_| true);
        if frmo.compose(&rf_opt).compose(hb).is_reflexive_somewhere() {
            return Err(Axiom::Coherence);
        }
        // irreflexive (rf ; hb) as Rf
        if b.rf.compose(hb).is_reflexive_somewhere() {
            return Err(Axiom::Coherence);
        }
        // empty rmw & (fre ; coe) as atomic; irreflexive (mo ; mo ; rf^-1) as Rmw
        // (one RMW event in herd; here: no write between the read part's
        // source and the write part in mo).
        let fr_mo = b.fr.compose(&b.mo);
        if (0..n).any(|r| (0..n).any(|w| b.rmw.has(r, w) && fr_mo.has(r, w))) {
            return Err(Axiom::Atomicity);
        }
        // irreflexive (rf | mo ; rf) as Rmw: the RMW reads neither its own
        // write nor a write mo-after it.
        let mo_rf = b.mo.compose(&b.rf);
        if (0..n).any(|r| (0..n).any(|w| b.rmw.has(r, w) && (b.rf.has(w, r) || mo_rf.has(w, r)))) {
            return Err(Axiom::Atomicity);
        }
        let init = |i: usize| b.init_loc[i].is_some();
        let ev = |i: usize| (!init(i)).then(|| g.event(b.ids[i]));
        let loc = |i: usize| match b.init_loc[i] {
            Some(l) => Some(l),
            None => g.event(b.ids[i]).loc(),
        };
        let is_w = |i: usize| init(i) || ev(i).is_some_and(|e| e.as_write().is_some());
        if judge == Judge::Complete {
            // let vis = (hbl & (W * R)) \ (hbl ; [W] ; hbl)
            // empty ((rf ; [R \ A]) \ vis) as NaRf
            let hbl = hb.filter(|x, y| loc(x).is_some() && loc(x) == loc(y));
            let between = hbl.filter(|_, y| is_w(y)).compose(&hbl);
            for r in 0..n {
                let Some(rd) = ev(r).and_then(|e| e.as_read()) else {
                    continue;
                };
                if rd.order.is_atomic() {
                    continue;
                }
                let Some(w) = (0..n).find(|&w| b.rf.has(w, r)) else {
                    continue;
                };
                if !hbl.has(w, r) || between.has(w, r) {
                    return Err(Axiom::NonAtomicRead);
                }
            }
        }
        // acyclic (((SC * SC) & scp) \ id) as Spartial
        let sc = |i: usize| ev(i).is_some_and(|e| e.is_sc());
        if (0..n).filter(|&i| sc(i)).count() >= 2 && self.scp(g).filter(|x, y| x != y && sc(x) && sc(y)).has_cycle() {
            return Err(Axiom::Psc);
        }
        Ok(())
    }

    /// c11.cat's `scp` (before its restriction to seq_cst events):
    /// hb | fsb? ; mo ; sbf? | rf^-1 ; [SC] ; mo | rf^-1 ; hbl ; [W]
    ///    | fsb ; fr | fr ; sbf | fsb ; fr ; sbf
    fn scp(&self, g: &ExecutionGraph) -> Rel {
        let b = &self.base;
        let init = |i: usize| b.init_loc[i].is_some();
        let ev = |i: usize| (!init(i)).then(|| g.event(b.ids[i]));
        let is_f = |i: usize| ev(i).is_some_and(|e| matches!(e.kind, EventKind::Fence { .. }));
        let is_w = |i: usize| init(i) || ev(i).is_some_and(|e| e.as_write().is_some());
        let sc = |i: usize| ev(i).is_some_and(|e| e.is_sc());
        let loc = |i: usize| match b.init_loc[i] {
            Some(l) => Some(l),
            None => g.event(b.ids[i]).loc(),
        };
        let fsb = self.sb.filter(|a, _| is_f(a));
        let sbf = self.sb.filter(|_, c| is_f(c));
        let fsb_opt = fsb.with_identity(|_| true);
        let sbf_opt = sbf.with_identity(|_| true);
        let n = b.ids.len();
        let mut rf_inv = Rel::new(n);
        for a in 0..n {
            for c in 0..n {
                if b.rf.has(a, c) {
                    rf_inv.add(c, a);
                }
            }
        }
        let mut scp = self.hb.clone();
        scp.union_with(&fsb_opt.compose(&b.mo).compose(&sbf_opt));
        scp.union_with(&rf_inv.filter(|_, w| sc(w)).compose(&b.mo));
        let hbl_w = self.hb.filter(|x, y| loc(x).is_some() && loc(x) == loc(y) && is_w(y));
        scp.union_with(&rf_inv.compose(&hbl_w));
        scp.union_with(&fsb.compose(&b.fr));
        scp.union_with(&b.fr.compose(&sbf));
        scp.union_with(&fsb.compose(&b.fr).compose(&sbf));
        scp
    }
}

/// Judges `g` under C11 (see [`Judge`]).
pub fn check(g: &ExecutionGraph, judge: Judge) -> Result<(), Axiom> {
    C11::of(g, judge).check(g, judge)
}

/// [`check`] with the pairs in `unsequenced` not sequenced (see
/// [`C11::of_unsequenced`]).
pub fn check_unsequenced(
    g: &ExecutionGraph,
    judge: Judge,
    unsequenced: &HashSet<(EventId, EventId)>,
) -> Result<(), Axiom> {
    C11::of_unsequenced(g, judge, unsequenced).check(g, judge)
}

/// The data races of a complete C11 execution (c11.cat's `dr`): two
/// accesses of different threads to one location, one a write and one not
/// atomic, neither happening before the other.
pub fn races(g: &ExecutionGraph) -> Vec<(EventId, EventId)> {
    races_unsequenced(g, &HashSet::new())
}

/// [`races`] with the pairs in `unsequenced` not sequenced, and also the
/// unsequenced races among them (herd's c11.cat `ur`): two unsequenced
/// accesses of one thread to one location, one a write.
pub fn races_unsequenced(g: &ExecutionGraph, unsequenced: &HashSet<(EventId, EventId)>) -> Vec<(EventId, EventId)> {
    let m = C11::of_unsequenced(g, Judge::Complete, unsequenced);
    let b = &m.base;
    let n = b.ids.len();
    let access = |i: usize| -> Option<(Loc, bool, bool)> {
        if b.init_loc[i].is_some() {
            return None;
        }
        match &g.event(b.ids[i]).kind {
            EventKind::Read(r) => Some((r.loc, false, r.order.is_atomic())),
            EventKind::Write(w) => Some((w.loc, true, w.order.is_atomic())),
            _ => None,
        }
    };
    let mut out = Vec::new();
    for a in 0..n {
        let Some((la, wa, aa)) = access(a) else { continue };
        for c in a + 1..n {
            let Some((lc, wc, ac)) = access(c) else { continue };
            let conflict = la == lc && (wa || wc);
            let unseq = unsequenced.contains(&(b.ids[a], b.ids[c])) || unsequenced.contains(&(b.ids[c], b.ids[a]));
            let plain = !aa || !ac;
            let data = plain && b.ids[a].thread != b.ids[c].thread && !m.hb.has(a, c) && !m.hb.has(c, a);
            let racy = conflict && (unseq || data);
            if racy {
                out.push((b.ids[a], b.ids[c]));
            }
        }
    }
    out
}
