//! The RC11 family: `rc11` (Lahav et al., PLDI 2017, with C11's release
//! sequences), `cpp20` (C++20's release sequences: RMW chains only; Rust's
//! model and the default) and `src11` (scoped RC11, docs/semantics.md §4).
//! They differ only in how views synchronize ([`SyncRules`]); coherence
//! holds by construction (the floor, `coherence.rs`), no thin air and
//! atomicity by construction too, so what is left to check on a graph
//! under construction is psc acyclicity, and only once two seq_cst events
//! exist.

use super::relations::{Axiom, Relations};
use super::semantics::Semantics;
use super::{psc, sc};
use crate::graph::{ExecutionGraph, SyncRules};

/// `rc11`: RC11 as published (herd's `rc11.cat`).
pub struct Rc11Model;
/// `cpp20`: RC11 with C++20's release sequences.
pub struct Cpp20Model;
/// `src11`: scoped RC11.
pub struct Src11Model;

/// Whether psc can be cyclic: only with two seq_cst events (one of them
/// may be the access being added).
fn psc_check_needed(sc_events: usize, new_sc: bool) -> bool {
    new_sc || sc_events >= 2
}

/// RC11's psc axiom on a graph under construction, cheapest test first:
/// the linear psc over the seq_cst accesses, else po ∪ eco acyclicity
/// (psc ⊆ (po ∪ eco)+), else the relation algebra.
fn psc_acyclic(g: &ExecutionGraph, rules: SyncRules) -> Result<(), Axiom> {
    if g.sc_events() < 2 {
        return Ok(());
    }
    crate::work::full_check();
    if let Some(ok) = psc::acyclic(g, rules.scoped) {
        debug_assert_eq!(
            ok,
            !Relations::of(g, rules).psc(g).has_cycle(),
            "checker invariant: psc over the seq_cst accesses agrees with the relation algebra"
        );
        return if ok { Ok(()) } else { Err(Axiom::Psc) };
    }
    if sc::po_eco_acyclic(g) {
        // psc ⊆ (po ∪ eco)+: no psc cycle either.
        debug_assert!(
            !Relations::of(g, rules).psc(g).has_cycle(),
            "checker invariant: psc is acyclic when po ∪ eco is"
        );
        return Ok(());
    }
    if Relations::of(g, rules).psc(g).has_cycle() {
        Err(Axiom::Psc)
    } else {
        Ok(())
    }
}

/// The RC11 family's answers, the same for each but for its rules.
macro_rules! rc11_family {
    ($ty:ident, $name:literal, $aliases:expr, $code:literal, $same_thread_rs:literal, $scoped:literal) => {
        impl Semantics for $ty {
            const NAME: &'static str = $name;
            const ALIASES: &'static [&'static str] = $aliases;
            const CODE: u8 = $code;
            const SYNC: SyncRules = SyncRules {
                all_sc: false,
                same_thread_rs: $same_thread_rs,
                scoped: $scoped,
            };
            const COHERENT: bool = true;
            const HB_RACES: bool = true;

            fn check_needed(sc_events: usize, new_sc: bool) -> bool {
                psc_check_needed(sc_events, new_sc)
            }

            fn check_graph(g: &ExecutionGraph) -> Result<(), Axiom> {
                psc_acyclic(g, Self::SYNC)
            }

            fn consistent_declarative(g: &ExecutionGraph) -> Result<(), Axiom> {
                Relations::of(g, Self::SYNC).check(g, false)
            }
        }
    };
}

rc11_family!(Rc11Model, "rc11", &[], 1, true, false);
rc11_family!(Cpp20Model, "cpp20", &["c++20", "rust"], 2, false, false);
rc11_family!(Src11Model, "src11", &[], 3, true, true);
