//! `porf`, the permissive base of declarative models (`opencl`, and the
//! hardware models of `gpu_rust.rs`): a read may read any write of its
//! location not porf-after it and a write may take any place in mo that
//! splits no RMW, subject only to RMW atomicity and no thin air
//! (acyclic(po ∪ rf)). Nothing synchronizes and no coherence is enforced;
//! a model built on it judges each complete graph itself.

use super::relations::{Axiom, Relations};
use super::semantics::Semantics;
use crate::event::EventId;
use crate::graph::{ExecutionGraph, SyncRules};

/// `porf`: the base, not a model to check a program under (it reports no
/// races).
pub struct PorfModel;

/// The rules views are computed with on the `porf` base: none of them
/// matter to its judgement (the client model derives its own relations),
/// so the cheapest, C++20's.
pub(super) const PORF_SYNC: SyncRules = SyncRules {
    all_sc: false,
    same_thread_rs: false,
    scoped: false,
};

impl Semantics for PorfModel {
    const NAME: &'static str = "porf";
    const CHOOSABLE: bool = false;
    const CODE: u8 = 4;
    const SYNC: SyncRules = PORF_SYNC;
    const COHERENT: bool = false;
    const HB_RACES: bool = false;

    /// No thin air and atomicity hold by construction.
    fn check_needed(_sc_events: usize, _new_sc: bool) -> bool {
        false
    }

    fn check_graph(_g: &ExecutionGraph) -> Result<(), Axiom> {
        Ok(())
    }

    fn consistent_declarative(g: &ExecutionGraph) -> Result<(), Axiom> {
        Relations::of(g, Self::SYNC).check_porf()
    }

    fn sync_edges(_g: &ExecutionGraph) -> Option<Vec<(EventId, EventId)>> {
        None
    }
}
