//! The classic litmus families, each in a relaxed, a release/acquire and a
//! seq_cst variant, checked under `rc11` and `sc` against outcome sets and
//! execution counts derived by hand from the models.
//!
//! Conventions used in the derivations below:
//!
//! * An execution is a consistent graph: an rf choice for every read and a
//!   total mo per location (the initial write first). The loads `main` does
//!   after joining every thread happen after every write, so coherence makes
//!   them read the mo-maximal write: they never add executions.
//! * `rc11` is Lahav et al. (PLDI 2017) with C++20 release sequences:
//!   irreflexive(hb ; eco?), RMW atomicity, acyclic(psc) over seq_cst
//!   events, acyclic(po ∪ rf). `sc` is acyclic(po ∪ rf ∪ mo ∪ fr), so every
//!   variant of a family has the same outcomes and executions under `sc`.
//! * When every access is seq_cst, rf ⊆ sw ⊆ hb, so rf ⊆ hb|loc ⊆ scb and
//!   psc ⊇ po ∪ rf ∪ mo ∪ fr: the seq_cst variant under `rc11` has exactly
//!   the executions of `sc`.
//! * None of these programs has an RMW, so atomicity never bites, and no
//!   thread both reads and writes one location, so each mo per location is
//!   just an order of the (at most two) non-initial writes.

#[path = "../common/mod.rs"]
mod common;

use common::both;
use scopecheck::sync::atomic::{fence, AtomicUsize, Ordering};
use scopecheck::sync::Arc;
use scopecheck::thread::spawn;
use scopecheck::MemoryModel::{self, Rc11, Sc};
use std::collections::BTreeSet;
use std::fmt::Debug;

mod families;
mod release_sequences;

use families::*;

/// Two registers (or values) recorded per execution.
type R2 = (usize, usize);
/// Three registers recorded per execution.
type R3 = (usize, usize, usize);
/// Four registers recorded per execution.
type R4 = (usize, usize, usize, usize);

/// The three ways each family is instantiated.
#[derive(Copy, Clone, Debug)]
enum V {
    /// Every access `Relaxed`.
    Rlx,
    /// Stores `Release`, loads `Acquire`.
    RelAcq,
    /// Every access `SeqCst`.
    SeqCst,
}

use V::{RelAcq, Rlx, SeqCst};

impl V {
    fn st(self) -> Ordering {
        match self {
            Rlx => Ordering::Relaxed,
            RelAcq => Ordering::Release,
            SeqCst => Ordering::SeqCst,
        }
    }

    fn ld(self) -> Ordering {
        match self {
            Rlx => Ordering::Relaxed,
            RelAcq => Ordering::Acquire,
            SeqCst => Ordering::SeqCst,
        }
    }
}

/// A fresh shared location holding 0.
fn loc() -> Arc<AtomicUsize> {
    Arc::new(AtomicUsize::new(0))
}

/// Runs `body` with both strategies under `model` and checks its outcome set
/// and its number of consistent executions.
#[track_caller]
fn expect<T, F>(model: MemoryModel, body: F, outcomes: BTreeSet<T>, executions: u64)
where
    T: Ord + Clone + Debug + 'static,
    F: Fn(&dyn Fn(T)) + Clone,
{
    let (seen, n) = both(model, body);
    assert_eq!(seen, outcomes, "outcome set under {model:?}");
    assert_eq!(n, executions, "number of executions under {model:?}");
}

// ---------------------------------------------------------------------------
// SB
// ---------------------------------------------------------------------------

// Relaxed / rel-acq under rc11: each read reads init or the other thread's
// write (2 × 2 = 4 executions). With only po in hb (rel-acq adds sw only into
// the reading thread, after its last access), no coherence constraint applies,
// and psc is empty: all 4 outcomes, 4 executions.
#[test]
fn sb_relaxed_rc11() {
    expect(Rc11, sb(Rlx), BTreeSet::from([(0, 0), (0, 1), (1, 0), (1, 1)]), 4);
}

#[test]
fn sb_relacq_rc11() {
    expect(Rc11, sb(RelAcq), BTreeSet::from([(0, 0), (0, 1), (1, 0), (1, 1)]), 4);
}

// seq_cst: r0=r1=0 gives the psc cycle Wx →po Ry →fr Wy →po Rx →fr Wx.
// The other three rf choices are SC interleavings: 3 outcomes, 3 executions.
#[test]
fn sb_seqcst_rc11() {
    expect(Rc11, sb(SeqCst), BTreeSet::from([(0, 1), (1, 0), (1, 1)]), 3);
}

// SC fences: with r0=r1=0, F0 →po Ry →fr Wy →po F1 is in psc_base
// ([F^sc];hb;fr;hb;[F^sc]) and symmetrically F1 → F0: a psc cycle. The other
// three rf choices are fine: 3 outcomes, 3 executions.
#[test]
fn sb_fenced_rc11() {
    expect(Rc11, sb_fenced(), BTreeSet::from([(0, 1), (1, 0), (1, 1)]), 3);
}

// sc: r0=r1=0 is the cycle Wx →po Ry →fr Wy →po Rx →fr Wx; 3 and 3 for
// every variant.
#[test]
fn sb_relaxed_sc() {
    expect(Sc, sb(Rlx), BTreeSet::from([(0, 1), (1, 0), (1, 1)]), 3);
}

#[test]
fn sb_relacq_sc() {
    expect(Sc, sb(RelAcq), BTreeSet::from([(0, 1), (1, 0), (1, 1)]), 3);
}

#[test]
fn sb_seqcst_sc() {
    expect(Sc, sb(SeqCst), BTreeSet::from([(0, 1), (1, 0), (1, 1)]), 3);
}

#[test]
fn sb_fenced_sc() {
    expect(Sc, sb_fenced(), BTreeSet::from([(0, 1), (1, 0), (1, 1)]), 3);
}

// ---------------------------------------------------------------------------
// MP
// ---------------------------------------------------------------------------

// Relaxed: two reads, two rf choices each, no hb across threads: 4 and 4.
#[test]
fn mp_relaxed_rc11() {
    expect(Rc11, mp(Rlx), BTreeSet::from([(0, 0), (0, 1), (1, 0), (1, 1)]), 4);
}

// Rel-acq: r0=1 gives Wy →sw Ry, so Wx →hb Rx; reading init then puts
// Rx →fr Wx, and hb;fr is reflexive (coherence). (flag=1, data=0) is gone:
// 3 outcomes, 3 executions.
#[test]
fn mp_relacq_rc11() {
    expect(Rc11, mp(RelAcq), BTreeSet::from([(0, 0), (0, 1), (1, 1)]), 3);
}

#[test]
fn mp_seqcst_rc11() {
    expect(Rc11, mp(SeqCst), BTreeSet::from([(0, 0), (0, 1), (1, 1)]), 3);
}

#[test]
fn mp_relaxed_sc() {
    expect(Sc, mp(Rlx), BTreeSet::from([(0, 0), (0, 1), (1, 1)]), 3);
}

#[test]
fn mp_relacq_sc() {
    expect(Sc, mp(RelAcq), BTreeSet::from([(0, 0), (0, 1), (1, 1)]), 3);
}

#[test]
fn mp_seqcst_sc() {
    expect(Sc, mp(SeqCst), BTreeSet::from([(0, 0), (0, 1), (1, 1)]), 3);
}

// ---------------------------------------------------------------------------
// LB
// ---------------------------------------------------------------------------

// Every order, every model: r0=r1=1 is the cycle Rx →po Wy →rf Ry →po Wx →rf Rx
// in po ∪ rf (forbidden by rc11's no-thin-air axiom and by sc). The other three
// rf choices are consistent: 3 outcomes, 3 executions.
#[test]
fn lb_relaxed_rc11() {
    expect(Rc11, lb(Rlx), BTreeSet::from([(0, 0), (0, 1), (1, 0)]), 3);
}

#[test]
fn lb_relacq_rc11() {
    expect(Rc11, lb(RelAcq), BTreeSet::from([(0, 0), (0, 1), (1, 0)]), 3);
}

#[test]
fn lb_seqcst_rc11() {
    expect(Rc11, lb(SeqCst), BTreeSet::from([(0, 0), (0, 1), (1, 0)]), 3);
}

#[test]
fn lb_relaxed_sc() {
    expect(Sc, lb(Rlx), BTreeSet::from([(0, 0), (0, 1), (1, 0)]), 3);
}

#[test]
fn lb_relacq_sc() {
    expect(Sc, lb(RelAcq), BTreeSet::from([(0, 0), (0, 1), (1, 0)]), 3);
}

#[test]
fn lb_seqcst_sc() {
    expect(Sc, lb(SeqCst), BTreeSet::from([(0, 0), (0, 1), (1, 0)]), 3);
}

// ---------------------------------------------------------------------------
// IRIW
// ---------------------------------------------------------------------------

/// Every (r0, r1, r2, r3) in {0,1}^4.
fn all4() -> BTreeSet<R4> {
    BTreeSet::from([
        (0, 0, 0, 0),
        (0, 0, 0, 1),
        (0, 0, 1, 0),
        (0, 0, 1, 1),
        (0, 1, 0, 0),
        (0, 1, 0, 1),
        (0, 1, 1, 0),
        (0, 1, 1, 1),
        (1, 0, 0, 0),
        (1, 0, 0, 1),
        (1, 0, 1, 0),
        (1, 0, 1, 1),
        (1, 1, 0, 0),
        (1, 1, 0, 1),
        (1, 1, 1, 0),
        (1, 1, 1, 1),
    ])
}

/// {0,1}^4 without the weak outcome (1, 0, 1, 0).
fn all4_but_weak() -> BTreeSet<R4> {
    let mut s = all4();
    s.remove(&(1, 0, 1, 0));
    s
}

// Relaxed: four reads, two rf choices each, one write per location (mo
// fixed), no hb across threads: 16 outcomes, 16 executions.
#[test]
fn iriw_relaxed_rc11() {
    expect(Rc11, iriw(Rlx), all4(), 16);
}

// Rel-acq: sw only goes from a writer (whose only event is its store) into a
// reader; a reader's other read is of the other location, whose writer is
// never hb-before it. No coherence constraint, no psc: the weak outcome is
// allowed, 16 outcomes, 16 executions.
#[test]
fn iriw_relacq_rc11() {
    expect(Rc11, iriw(RelAcq), all4(), 16);
}

// seq_cst (= sc): (1,0,1,0) is the cycle Wx →rf Rx(T2) →po Ry(T2) →fr Wy
// →rf Ry(T3) →po Rx(T3) →fr Wx. Every other combination is an interleaving:
// a reader's pair constrains only the order of its reads against the two
// writes, and only the weak pair of pairs asks for Wx before Wy and Wy before
// Wx. 15 outcomes, 15 executions.
#[test]
fn iriw_seqcst_rc11() {
    expect(Rc11, iriw(SeqCst), all4_but_weak(), 15);
}

#[test]
fn iriw_relaxed_sc() {
    expect(Sc, iriw(Rlx), all4_but_weak(), 15);
}

#[test]
fn iriw_relacq_sc() {
    expect(Sc, iriw(RelAcq), all4_but_weak(), 15);
}

#[test]
fn iriw_seqcst_sc() {
    expect(Sc, iriw(SeqCst), all4_but_weak(), 15);
}

// ---------------------------------------------------------------------------
// 2+2W
// ---------------------------------------------------------------------------

// Relaxed / rel-acq (release stores, no loads, so no sw): the only choices are
// mo on x (2 orders) and mo on y (2 orders), and hb is just po, so all
// 4 are consistent, one final (x, y) each. The weak (1, 1) is allowed.
#[test]
fn two_plus_two_w_relaxed_rc11() {
    expect(
        Rc11,
        two_plus_two_w(Rlx),
        BTreeSet::from([(1, 1), (1, 2), (2, 1), (2, 2)]),
        4,
    );
}

#[test]
fn two_plus_two_w_relacq_rc11() {
    expect(
        Rc11,
        two_plus_two_w(RelAcq),
        BTreeSet::from([(1, 1), (1, 2), (2, 1), (2, 2)]),
        4,
    );
}

// seq_cst (= sc): final (1, 1) is the cycle Wx1 →po Wy2 →mo Wy1 →po Wx2 →mo Wx1.
// 3 outcomes, 3 executions.
#[test]
fn two_plus_two_w_seqcst_rc11() {
    expect(
        Rc11,
        two_plus_two_w(SeqCst),
        BTreeSet::from([(1, 2), (2, 1), (2, 2)]),
        3,
    );
}

#[test]
fn two_plus_two_w_relaxed_sc() {
    expect(Sc, two_plus_two_w(Rlx), BTreeSet::from([(1, 2), (2, 1), (2, 2)]), 3);
}

#[test]
fn two_plus_two_w_relacq_sc() {
    expect(Sc, two_plus_two_w(RelAcq), BTreeSet::from([(1, 2), (2, 1), (2, 2)]), 3);
}

#[test]
fn two_plus_two_w_seqcst_sc() {
    expect(Sc, two_plus_two_w(SeqCst), BTreeSet::from([(1, 2), (2, 1), (2, 2)]), 3);
}

// ---------------------------------------------------------------------------
// R
// ---------------------------------------------------------------------------

// Relaxed / rel-acq: rf of Rx (2) × mo on y (2) = 4 graphs. The only sw is
// Wx → Rx when r0=1, which ends T1; mo is not in hb, so coherence never sees
// Wy1 →mo Wy2 →po Rx →fr Wx →po Wy1 (it would need hb from T0 into T1).
// psc is empty. All 4 consistent: (r0, y) ∈ {0,1} × {1,2}, weak (0, 2) allowed.
#[test]
fn r_relaxed_rc11() {
    expect(Rc11, r(Rlx), BTreeSet::from([(0, 1), (0, 2), (1, 1), (1, 2)]), 4);
}

#[test]
fn r_relacq_rc11() {
    expect(Rc11, r(RelAcq), BTreeSet::from([(0, 1), (0, 2), (1, 1), (1, 2)]), 4);
}

// seq_cst (= sc): (0, 2) is the cycle Wx →po Wy1 →mo Wy2 →po Rx →fr Wx.
// 3 outcomes, 3 executions.
#[test]
fn r_seqcst_rc11() {
    expect(Rc11, r(SeqCst), BTreeSet::from([(0, 1), (1, 1), (1, 2)]), 3);
}

#[test]
fn r_relaxed_sc() {
    expect(Sc, r(Rlx), BTreeSet::from([(0, 1), (1, 1), (1, 2)]), 3);
}

#[test]
fn r_relacq_sc() {
    expect(Sc, r(RelAcq), BTreeSet::from([(0, 1), (1, 1), (1, 2)]), 3);
}

#[test]
fn r_seqcst_sc() {
    expect(Sc, r(SeqCst), BTreeSet::from([(0, 1), (1, 1), (1, 2)]), 3);
}

// ---------------------------------------------------------------------------
// S
// ---------------------------------------------------------------------------

// Relaxed: rf of Ry (2) × mo on x (2) = 4 graphs, hb is po only: all
// consistent, (r0, x) ∈ {0,1} × {1,2}; the weak (1, 2) is allowed.
#[test]
fn s_relaxed_rc11() {
    expect(Rc11, s(Rlx), BTreeSet::from([(0, 1), (0, 2), (1, 1), (1, 2)]), 4);
}

// Rel-acq: r0=1 gives Wy →sw Ry, so Wx2 →hb Wx1 and mo must put Wx2 first
// (final x=1): one graph. r0=0: no sw, both mo orders: two graphs.
// 3 outcomes, 3 executions.
#[test]
fn s_relacq_rc11() {
    expect(Rc11, s(RelAcq), BTreeSet::from([(0, 1), (0, 2), (1, 1)]), 3);
}

#[test]
fn s_seqcst_rc11() {
    expect(Rc11, s(SeqCst), BTreeSet::from([(0, 1), (0, 2), (1, 1)]), 3);
}

#[test]
fn s_relaxed_sc() {
    expect(Sc, s(Rlx), BTreeSet::from([(0, 1), (0, 2), (1, 1)]), 3);
}

#[test]
fn s_relacq_sc() {
    expect(Sc, s(RelAcq), BTreeSet::from([(0, 1), (0, 2), (1, 1)]), 3);
}

#[test]
fn s_seqcst_sc() {
    expect(Sc, s(SeqCst), BTreeSet::from([(0, 1), (0, 2), (1, 1)]), 3);
}

// ---------------------------------------------------------------------------
// WRC
// ---------------------------------------------------------------------------

/// Every (r0, r1, r2) in {0,1}^3.
fn all3() -> BTreeSet<R3> {
    BTreeSet::from([
        (0, 0, 0),
        (0, 0, 1),
        (0, 1, 0),
        (0, 1, 1),
        (1, 0, 0),
        (1, 0, 1),
        (1, 1, 0),
        (1, 1, 1),
    ])
}

/// {0,1}^3 without the weak outcome (1, 1, 0).
fn all3_but_weak() -> BTreeSet<R3> {
    let mut s = all3();
    s.remove(&(1, 1, 0));
    s
}

// Relaxed: three reads, two rf choices each, one write per location, hb is
// po only and po ∪ rf cannot cycle (T0 has no read): 8 and 8.
#[test]
fn wrc_relaxed_rc11() {
    expect(Rc11, wrc(Rlx), all3(), 8);
}

// Rel-acq: (1,1,0) gives Wx →sw Rx(T1) →po Wy →sw Ry(T2) →po Rx(T2), so
// Wx →hb Rx(T2) →fr Wx: coherence. The rest are fine: 7 and 7.
#[test]
fn wrc_relacq_rc11() {
    expect(Rc11, wrc(RelAcq), all3_but_weak(), 7);
}

#[test]
fn wrc_seqcst_rc11() {
    expect(Rc11, wrc(SeqCst), all3_but_weak(), 7);
}

#[test]
fn wrc_relaxed_sc() {
    expect(Sc, wrc(Rlx), all3_but_weak(), 7);
}

#[test]
fn wrc_relacq_sc() {
    expect(Sc, wrc(RelAcq), all3_but_weak(), 7);
}

#[test]
fn wrc_seqcst_sc() {
    expect(Sc, wrc(SeqCst), all3_but_weak(), 7);
}

// ---------------------------------------------------------------------------
// ISA2
// ---------------------------------------------------------------------------

// Relaxed: three reads, two rf choices each, one write per location, no hb
// across threads, po ∪ rf acyclic (T0 has no read): 8 and 8.
#[test]
fn isa2_relaxed_rc11() {
    expect(Rc11, isa2(Rlx), all3(), 8);
}

// Rel-acq: (1,1,0) gives Wx →po Wy →sw Ry →po Wz →sw Rz →po Rx, so
// Wx →hb Rx →fr Wx: coherence. 7 and 7.
#[test]
fn isa2_relacq_rc11() {
    expect(Rc11, isa2(RelAcq), all3_but_weak(), 7);
}

#[test]
fn isa2_seqcst_rc11() {
    expect(Rc11, isa2(SeqCst), all3_but_weak(), 7);
}

#[test]
fn isa2_relaxed_sc() {
    expect(Sc, isa2(Rlx), all3_but_weak(), 7);
}

#[test]
fn isa2_relacq_sc() {
    expect(Sc, isa2(RelAcq), all3_but_weak(), 7);
}

#[test]
fn isa2_seqcst_sc() {
    expect(Sc, isa2(SeqCst), all3_but_weak(), 7);
}

// ---------------------------------------------------------------------------
// CoRR
// ---------------------------------------------------------------------------

// Every order, every model: (1, 0) is Rx0 →po Rx1 (hb) with Rx1 →fr Wx →rf Rx0,
// so hb;eco is reflexive (and po ∪ rf ∪ fr cycles for sc). The other three
// rf pairs are consistent: 3 outcomes, 3 executions.
#[test]
fn corr_relaxed_rc11() {
    expect(Rc11, corr(Rlx), BTreeSet::from([(0, 0), (0, 1), (1, 1)]), 3);
}

#[test]
fn corr_relacq_rc11() {
    expect(Rc11, corr(RelAcq), BTreeSet::from([(0, 0), (0, 1), (1, 1)]), 3);
}

#[test]
fn corr_seqcst_rc11() {
    expect(Rc11, corr(SeqCst), BTreeSet::from([(0, 0), (0, 1), (1, 1)]), 3);
}

#[test]
fn corr_relaxed_sc() {
    expect(Sc, corr(Rlx), BTreeSet::from([(0, 0), (0, 1), (1, 1)]), 3);
}

#[test]
fn corr_relacq_sc() {
    expect(Sc, corr(RelAcq), BTreeSet::from([(0, 0), (0, 1), (1, 1)]), 3);
}

#[test]
fn corr_seqcst_sc() {
    expect(Sc, corr(SeqCst), BTreeSet::from([(0, 0), (0, 1), (1, 1)]), 3);
}

// ---------------------------------------------------------------------------
// CoWW
// ---------------------------------------------------------------------------

// Every order, every model: Wx1 →po Wx2 is hb, so mo must agree (Wx2 →mo Wx1
// would make hb;mo reflexive): one graph, final x = 2.
#[test]
fn coww_relaxed_rc11() {
    expect(Rc11, coww(Rlx), BTreeSet::from([2]), 1);
}

#[test]
fn coww_relacq_rc11() {
    expect(Rc11, coww(RelAcq), BTreeSet::from([2]), 1);
}

#[test]
fn coww_seqcst_rc11() {
    expect(Rc11, coww(SeqCst), BTreeSet::from([2]), 1);
}

#[test]
fn coww_relaxed_sc() {
    expect(Sc, coww(Rlx), BTreeSet::from([2]), 1);
}

#[test]
fn coww_relacq_sc() {
    expect(Sc, coww(RelAcq), BTreeSet::from([2]), 1);
}

#[test]
fn coww_seqcst_sc() {
    expect(Sc, coww(SeqCst), BTreeSet::from([2]), 1);
}
