//! Memory models: which writes a read may read, where a write may go in mo,
//! and whether a graph is consistent.
//!
//! Each model is a type implementing [`Semantics`] in a file of its own
//! (`sc.rs`, `rc11.rs`, `c11.rs`, `porf.rs`, `gpu_rust.rs`); the engine and
//! the explorers hold a [`MemoryModel`] and ask it through the methods
//! below, which dispatch to that type (`with_semantics!`), and never test
//! which model it is. The explorer asks the incremental questions
//! ([`MemoryModel::read_candidates`], [`MemoryModel::write_placements`],
//! [`MemoryModel::check_graph`]); the reference enumerator asks only
//! [`MemoryModel::consistent_declarative`], which derives every relation
//! from scratch.

pub mod c11;
pub mod coherence;
pub mod gpu;
pub mod gpu_rust;
pub mod opencl;
pub mod porf;
pub mod psc;
pub mod ptx;
pub mod rc11;
pub mod relations;
pub mod sc;
pub mod semantics;
pub mod sync_edges;
pub mod vulkan;

use crate::event::*;
use crate::graph::{ExecutionGraph, SyncRules, View};
use crate::scope::Placement;
use relations::Axiom;
pub use semantics::Semantics;
use smallvec::SmallVec;

/// The writes a new read may read, in mo order (inline: asked for every
/// read the explorer adds).
pub type Candidates = SmallVec<[EventId; 8]>;

/// The mo positions a new write may take (inline, like [`Candidates`]).
pub type Places = SmallVec<[usize; 8]>;

/// A memory model the checker can explore under.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum MemoryModel {
    /// Sequential consistency: acyclic(po ∪ rf ∪ mo ∪ fr). Every atomic
    /// access synchronizes as if it were seq_cst.
    Sc,
    /// RC11 exactly as Lahav et al. (PLDI 2017) define it, with C11's
    /// release sequences (a release write's sequence includes later writes
    /// of the same thread to the same location). herd's `rc11.cat`; the
    /// model of the `rc11` rows of litmus expectation files.
    Rc11,
    /// C++20's model, which Rust adopts: RC11 with C++20's release sequences
    /// (only RMW chains continue a sequence). It allows everything `rc11`
    /// does and more, so it is the sound default for Rust programs.
    #[default]
    Cpp20,
    /// Scoped RC11 (docs/semantics.md §4), the model of scoped programs: RC11 where
    /// release/acquire synchronization, release sequences and fences need
    /// every participating operation to be mutually scope-inclusive, and psc
    /// relates only mutually inclusive seq_cst events. With every operation
    /// at system scope it is exactly `rc11`.
    Src11,
    /// The permissive base of declarative models (`opencl`): a read may read
    /// any write of its location and a write may take any place in mo, subject
    /// only to RMW atomicity and no thin air (acyclic(po ∪ rf)). No access
    /// synchronizes and no coherence is enforced: a model built on it judges
    /// each complete graph itself (see [`opencl`]). Not for Rust programs: it
    /// reports no races.
    Porf,
    /// The original C11 model as herd's and Dat3M's `c11.cat` define it
    /// ([`c11`]): no no-thin-air axiom, C11's release sequences, and the
    /// seq_cst axiom of Batty et al. (POPL 2016). A reference model, to
    /// compare with herd and Dat3M; Rust programs are checked under `cpp20`.
    /// Graphs are explored with C++20's coherence (a sound over-approximation
    /// of C11's: C11's hb holds C++20's) and judged by C11's axioms; only
    /// po ∪ rf-acyclic executions are explored (see docs/c11-model.md).
    C11,
    /// Dat3M's `ptx-v7.5.cat` for Rust programs (docs/gpu-models.md section
    /// 8): graphs are enumerated under the `porf` base and each complete one
    /// is judged by the PTX model, with the shim's orders and scopes mapped
    /// to PTX's ([`gpu_rust`]).
    Ptx75,
    /// Dat3M's `vulkan.cat` for Rust programs, like [`MemoryModel::Ptx75`].
    Vulkan,
}

/// Evaluates `$body` with `$M` naming the type that holds `$model`'s
/// [`Semantics`]: the one place a variant meets its semantics.
macro_rules! with_semantics {
    ($model:expr, $M:ident => $body:expr) => {
        match $model {
            MemoryModel::Sc => {
                type $M = sc::ScModel;
                $body
            }
            MemoryModel::Rc11 => {
                type $M = rc11::Rc11Model;
                $body
            }
            MemoryModel::Cpp20 => {
                type $M = rc11::Cpp20Model;
                $body
            }
            MemoryModel::Src11 => {
                type $M = rc11::Src11Model;
                $body
            }
            MemoryModel::Porf => {
                type $M = porf::PorfModel;
                $body
            }
            MemoryModel::C11 => {
                type $M = c11::C11Model;
                $body
            }
            MemoryModel::Ptx75 => {
                type $M = gpu_rust::Ptx75Model;
                $body
            }
            MemoryModel::Vulkan => {
                type $M = gpu_rust::VulkanModel;
                $body
            }
        }
    };
}

impl MemoryModel {
    /// Every model, in the order of their token codes.
    pub const ALL: [MemoryModel; 8] = [
        MemoryModel::Sc,
        MemoryModel::Rc11,
        MemoryModel::Cpp20,
        MemoryModel::Src11,
        MemoryModel::Porf,
        MemoryModel::C11,
        MemoryModel::Ptx75,
        MemoryModel::Vulkan,
    ];

    /// The model's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        with_semantics!(self, M => M::NAME)
    }

    /// Parses the name of a model a user may choose. `porf` is not one: it
    /// is the `opencl` model's base (no coherence, no races), not a model to
    /// check a program under.
    pub fn from_name(s: &str) -> Option<MemoryModel> {
        Self::ALL
            .into_iter()
            .find(|&m| with_semantics!(m, M => M::CHOOSABLE && (M::NAME == s || M::ALIASES.contains(&s))))
    }

    /// The model's byte in replay tokens (fixed: printed tokens name
    /// models by it).
    pub fn code(self) -> u8 {
        with_semantics!(self, M => M::CODE)
    }

    /// The model whose token byte is `code`.
    pub fn from_code(code: u8) -> Option<MemoryModel> {
        Self::ALL.into_iter().find(|m| m.code() == code)
    }

    /// Whether executions are explored coherently ([`Semantics::COHERENT`]):
    /// reads from the coherence floor on, writes after it, every RMW right
    /// after its source in mo. Not on the `porf` base.
    #[inline]
    pub fn coherent(self) -> bool {
        with_semantics!(self, M => M::COHERENT)
    }

    /// Whether the engine finds the program's data races with the model's
    /// hb as accesses are added ([`Semantics::HB_RACES`]).
    #[inline]
    pub fn hb_races(self) -> bool {
        with_semantics!(self, M => M::HB_RACES)
    }

    /// Whether some operations have no meaning under the model and are
    /// refused before they run ([`MemoryModel::refusal`]).
    #[inline]
    pub fn refuses_operations(self) -> bool {
        with_semantics!(self, M => M::REFUSES_OPERATIONS)
    }

    /// Why operation `op` of a thread placed at `place` has no meaning
    /// under the model (`None`: it has one).
    pub fn refusal(self, op: &Op, place: &Placement) -> Option<String> {
        with_semantics!(self, M => M::refusal(op, place))
    }

    /// How reports name the race definition of the model's complete-graph
    /// judgement ([`MemoryModel::judge_complete`]).
    pub fn race_definition(self) -> &'static str {
        with_semantics!(self, M => M::RACE_DEFINITION)
    }

    /// Whether the model lets po ∪ rf be cyclic (it has no no-thin-air
    /// axiom): then the optimal explorer also builds graphs with such
    /// cycles (`explore/cyclic.rs`). Only `c11`; every other model keeps
    /// its po ∪ rf-acyclic exploration unchanged.
    #[inline]
    pub fn allows_porf_cycles(self) -> bool {
        with_semantics!(self, M => M::PORF_CYCLES)
    }

    /// Whether graphs `a` and `b` (the same events) have the same
    /// happens-before, by the model's definition (for promised reads:
    /// `engine/promised.rs`).
    pub fn same_hb(self, a: &ExecutionGraph, b: &ExecutionGraph) -> bool {
        with_semantics!(self, M => M::same_hb(a, b))
    }

    /// The synchronization rules views are computed with.
    #[inline]
    pub fn sync_rules(self) -> SyncRules {
        with_semantics!(self, M => M::SYNC)
    }

    /// Whether [`Self::check_graph`] can reject a graph the incremental
    /// construction built, when it holds `sc_events` seq_cst events and
    /// the access being added is seq_cst (`new_sc`): if not, choices are
    /// taken and revisits made unchecked.
    #[inline]
    pub fn check_needed(self, sc_events: usize, new_sc: bool) -> bool {
        with_semantics!(self, M => M::check_needed(sc_events, new_sc))
    }

    /// The mo position every access at `loc` whose po-predecessor's view
    /// is `hb` must be at or after ([`coherence::floor`]), leaving out
    /// read `skip`; 0 on a base without coherence.
    #[inline]
    pub fn floor(self, g: &ExecutionGraph, loc: Loc, hb: View, skip: Option<EventId>) -> usize {
        if self.coherent() {
            coherence::floor(g, loc, hb, skip)
        } else {
            0
        }
    }

    /// The writes a read of thread `t` at `loc` may read under this model,
    /// in mo order (initial write first): from the coherence floor on, or
    /// every write of `loc` without coherence. For `sc` and for seq_cst the
    /// caller still filters them with [`Self::check_graph`].
    pub fn read_candidates(self, g: &ExecutionGraph, t: ThreadId, loc: Loc) -> Candidates {
        coherence::candidates_from(g, loc, self.read_floor(g, t, loc))
    }

    /// The mo position of the first write a read of thread `t` at `loc`
    /// may read (every later one may be read too): the coherence floor, or
    /// 0 without coherence.
    pub fn read_floor(self, g: &ExecutionGraph, t: ThreadId, loc: Loc) -> usize {
        self.floor(g, loc, coherence::base_hb(g, t), None)
    }

    /// The mo positions (as for [`ExecutionGraph::insert_mo`]) a plain
    /// write of thread `t` at `loc` may take under this model: after the
    /// coherence floor (or anywhere without coherence), and never between
    /// an RMW's write and the write it read.
    pub fn write_placements(self, g: &ExecutionGraph, t: ThreadId, loc: Loc) -> Places {
        coherence::placements_from(g, loc, self.floor(g, loc, coherence::base_hb(g, t), None))
    }

    /// The axioms the incremental construction does not guarantee by itself
    /// ([`Semantics::check_graph`]): psc acyclicity for the RC11 family
    /// (only when two seq_cst events exist), the whole of SC for `sc`.
    #[inline]
    pub fn check_graph(self, g: &ExecutionGraph) -> Result<(), Axiom> {
        with_semantics!(self, M => M::check_graph(g))
    }

    /// [`Self::check_graph`] of `g` just after its newest event `e` was
    /// added (nothing reads it yet) to a graph that passed it. An event with
    /// no edge out of it, last in its thread, a write last in mo, a read of
    /// the mo-last write or a fence, lies on no cycle of po ∪ rf ∪ mo ∪ fr, nor of
    /// psc (whose edges all lie in (po ∪ rf ∪ mo ∪ fr)+, see
    /// [`sc::po_eco_acyclic`]), and splits no RMW from what it read: the
    /// graph passes without a look. Checking the whole graph for every such
    /// event made a long run under `sc` (or with seq_cst accesses) cost its
    /// length squared; only other choices (an older write, an earlier mo
    /// place) are checked now. Debug builds check every graph in full.
    pub fn check_added(self, g: &ExecutionGraph, e: EventId) -> Result<(), Axiom> {
        let sink = e.index + 1 == g.thread_len(e.thread)
            && match &g.event(e).kind {
                EventKind::Read(r) => g.mo_max(r.loc) == r.rf,
                EventKind::Write(w) => g.mo_max(w.loc) == e,
                // Nothing is hb-after the newest event of a thread.
                EventKind::Fence { .. } => true,
                _ => false,
            };
        if sink {
            debug_assert!(
                crate::work::uncounted(|| self.check_graph(g).is_ok()),
                "checker invariant: an event with no edge out keeps a consistent graph consistent"
            );
            return Ok(());
        }
        self.check_graph(g)
    }

    /// The model's verdict on a complete execution beyond what its
    /// construction checked ([`Semantics::judge_complete`]): `Err` when it
    /// did not happen (under `c11`, an axiom that is not monotone; under
    /// the hardware models, the cat model), else the racing pairs by the
    /// model's own race definition (Vulkan's `dr`; none for the others).
    pub fn judge_complete(self, g: &ExecutionGraph) -> Result<Vec<(EventId, EventId)>, Axiom> {
        with_semantics!(self, M => M::judge_complete(g))
    }

    /// Whether the model keeps complete execution `g`
    /// ([`Self::judge_complete`] without its races).
    pub fn check_complete(self, g: &ExecutionGraph) -> Result<(), Axiom> {
        self.judge_complete(g).map(|_| ())
    }

    /// Every axiom of the model, from the definitions alone (for `c11`,
    /// those that hold of every prefix of a consistent execution; see
    /// [`Self::check_complete`]).
    pub fn consistent_declarative(self, g: &ExecutionGraph) -> Result<(), Axiom> {
        with_semantics!(self, M => M::consistent_declarative(g))
    }

    /// The sw edges of `g` under this model, by the model's own relations
    /// (for pictures: [`crate::dot`]), initial writes left out; `None` for
    /// a model whose synchronization is not one sw relation of events
    /// (`porf`, which has none, and the hardware models).
    pub fn sync_edges(self, g: &ExecutionGraph) -> Option<Vec<(EventId, EventId)>> {
        with_semantics!(self, M => M::sync_edges(g))
    }
}

#[cfg(test)]
mod rel_tests;
#[cfg(test)]
mod tests;
