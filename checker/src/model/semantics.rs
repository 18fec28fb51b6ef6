//! What the engine and the explorers may ask of a memory model, and
//! nothing else: they hold a [`MemoryModel`](super::MemoryModel) and ask it
//! these questions (through its methods, which dispatch here); they never
//! test which model it is.
//!
//! Each model is a type implementing [`Semantics`] in its own file
//! (`sc.rs`, `rc11.rs`, `c11.rs`, `porf.rs`, `gpu_rust.rs`). A new model is
//! a new such type and one variant of `MemoryModel` with its line in
//! `with_semantics!` (`model/mod.rs`): the engine does not change.
//!
//! Most answers are constants, so that the questions asked for every
//! event (whether the model is coherent, how views synchronize) cost what
//! the old tests of the model's name cost: a `match` on the variant that
//! the compiler turns into a table lookup.

use super::relations::{Axiom, Relations};
use super::sync_edges::edges_of;
use crate::event::{EventId, Op};
use crate::graph::{ExecutionGraph, SyncRules};
use crate::scope::Placement;

/// The semantics of one memory model: the answers the engine and the
/// explorers build executions with.
pub trait Semantics {
    /// The model's name on the command line and in reports.
    const NAME: &'static str;
    /// Other names the command line accepts for it.
    const ALIASES: &'static [&'static str] = &[];
    /// Whether a user may choose the model by name (`porf` is a base for
    /// declarative models, not a model to check a program under).
    const CHOOSABLE: bool = true;
    /// The model's byte in replay tokens (`token.rs`): fixed forever, since
    /// printed tokens name models by it.
    const CODE: u8;
    /// How views synchronize: the rules `graph/sw.rs` computes hb and
    /// the release sequences with.
    const SYNC: SyncRules;
    /// Whether executions are explored coherently: a read reads at or
    /// after its coherence floor, a write goes after it, and each RMW's
    /// write sits right after the write it read in mo. Without coherence
    /// (the `porf` base) a read may read any write not porf-after it and
    /// a write may take any place in mo that splits no RMW; only po ∪ rf
    /// acyclicity and atomicity bound the choices (asked with porf views).
    const COHERENT: bool;
    /// Whether the engine finds the program's data races with the model's
    /// happens-before as accesses are added. Without (the `porf` base and
    /// the hardware models built on it) the engine has no hb to find them
    /// with: the model's own complete-graph judgement defines races, if
    /// it has any ([`Semantics::judge_complete`]).
    const HB_RACES: bool;
    /// Whether po ∪ rf may be cyclic (no no-thin-air axiom): the optimal
    /// explorer then also builds such graphs (`explore/cyclic.rs`).
    const PORF_CYCLES: bool = false;
    /// Whether some operations have no meaning under the model and are
    /// refused before they run ([`Semantics::refusal`]). Asked at every
    /// operation, so a constant.
    const REFUSES_OPERATIONS: bool = false;
    /// How reports name the model's own race definition (the races
    /// [`Semantics::judge_complete`] returns).
    const RACE_DEFINITION: &'static str = "the model's data-race definition";

    /// Why operation `op` of a thread placed at `place` has no meaning
    /// under the model (`None`: it has one). Asked only when
    /// [`Semantics::REFUSES_OPERATIONS`].
    fn refusal(_op: &Op, _place: &Placement) -> Option<String> {
        None
    }

    /// Whether [`Semantics::check_graph`] can reject a graph that the
    /// incremental construction built (coherence by the floor, atomicity
    /// by placement) when it holds `sc_events` seq_cst events and the
    /// access being added is seq_cst (`new_sc`). When it cannot, the
    /// engine takes choices unchecked and revisits are not checked.
    fn check_needed(sc_events: usize, new_sc: bool) -> bool;

    /// The axioms the incremental construction does not guarantee by
    /// itself, on a graph under construction (every prefix of a consistent
    /// execution satisfies them).
    fn check_graph(g: &ExecutionGraph) -> Result<(), Axiom>;

    /// The verdict on a complete execution beyond what its construction
    /// checked: `Err` when an axiom that only complete graphs can be
    /// judged by fails (the execution did not happen), else the racing
    /// pairs by the model's own race definition (none for models whose
    /// races the engine finds with hb, [`Semantics::HB_RACES`]).
    fn judge_complete(_g: &ExecutionGraph) -> Result<Vec<(EventId, EventId)>, Axiom> {
        Ok(Vec::new())
    }

    /// Every axiom of the model that holds of every prefix of a consistent
    /// execution, from the definitions alone (the reference enumerator's
    /// check, independent of the incremental one).
    fn consistent_declarative(g: &ExecutionGraph) -> Result<(), Axiom>;

    /// Whether graphs `a` and `b` (the same events) have the same
    /// happens-before by the model's definition.
    fn same_hb(a: &ExecutionGraph, b: &ExecutionGraph) -> bool {
        Relations::of(a, Self::SYNC).hb == Relations::of(b, Self::SYNC).hb
    }

    /// The sw edges of `g` by the model's own relations, for pictures
    /// (`None`: the model's synchronization is not one sw relation of
    /// events). Initial writes are left out.
    fn sync_edges(g: &ExecutionGraph) -> Option<Vec<(EventId, EventId)>> {
        let r = Relations::of(g, Self::SYNC);
        Some(edges_of(&r.sw, &r.ids))
    }
}
