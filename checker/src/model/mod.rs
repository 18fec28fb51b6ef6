//! Memory models: which writes a read may read, where a write may go in mo,
//! and whether a graph is consistent.
//!
//! The explorer asks the incremental questions ([`MemoryModel::rf_candidates`],
//! [`MemoryModel::mo_placements`], [`MemoryModel::check_graph`]); the
//! reference enumerator asks only [`MemoryModel::consistent_declarative`],
//! which derives every relation from scratch.

pub mod c11;
pub mod gpu;
pub mod gpu_rust;
pub mod opencl;
pub mod psc;
pub mod ptx;
pub mod relations;
pub mod sc;
pub mod sync_edges;
pub mod vulkan;

use crate::event::*;
use crate::graph::{ExecutionGraph, SyncRules, View};
use relations::{Axiom, Relations};
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

impl MemoryModel {
    /// The model's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            MemoryModel::Sc => "sc",
            MemoryModel::Rc11 => "rc11",
            MemoryModel::Cpp20 => "cpp20",
            MemoryModel::Src11 => "src11",
            MemoryModel::Porf => "porf",
            MemoryModel::C11 => "c11",
            MemoryModel::Ptx75 => "ptx7.5",
            MemoryModel::Vulkan => "vulkan",
        }
    }

    /// Parses the name of a model a user may choose. `porf` is not one: it
    /// is the `opencl` model's base (no coherence, no races), not a model to
    /// check a program under.
    pub fn from_name(s: &str) -> Option<MemoryModel> {
        match s {
            "sc" => Some(MemoryModel::Sc),
            "rc11" => Some(MemoryModel::Rc11),
            "cpp20" | "c++20" | "rust" => Some(MemoryModel::Cpp20),
            "src11" => Some(MemoryModel::Src11),
            "c11" => Some(MemoryModel::C11),
            "ptx7.5" => Some(MemoryModel::Ptx75),
            "vulkan" => Some(MemoryModel::Vulkan),
            _ => None,
        }
    }

    /// A GPU hardware model (`ptx7.5`, `vulkan`): judged on complete graphs
    /// by [`gpu_rust::judge`].
    #[inline]
    pub fn is_hardware(self) -> bool {
        matches!(self, MemoryModel::Ptx75 | MemoryModel::Vulkan)
    }

    /// Whether graphs are enumerated under the permissive `porf` base (every
    /// rf and mo choice, no coherence, no synchronization, no races of the
    /// engine's own): `porf` and the hardware models.
    #[inline]
    pub fn porf_base(self) -> bool {
        self == MemoryModel::Porf || self.is_hardware()
    }

    /// Whether the model lets po ∪ rf be cyclic (it has no no-thin-air
    /// axiom): then the optimal explorer also builds graphs with such
    /// cycles (`explore/cyclic.rs`). Only `c11`; every other model keeps
    /// its po ∪ rf-acyclic exploration unchanged.
    #[inline]
    pub fn allows_porf_cycles(self) -> bool {
        self == MemoryModel::C11
    }

    /// Whether graphs `a` and `b` (the same events) have the same
    /// happens-before, by the model's definition (for promised reads:
    /// `engine/promised.rs`).
    pub fn same_hb(self, a: &ExecutionGraph, b: &ExecutionGraph) -> bool {
        if self == MemoryModel::C11 {
            return c11::C11::of(a, c11::Judge::Complete).hb == c11::C11::of(b, c11::Judge::Complete).hb;
        }
        Relations::of(a, self.sync_rules()).hb == Relations::of(b, self.sync_rules()).hb
    }

    /// The synchronization rules views are computed with.
    pub fn sync_rules(self) -> SyncRules {
        SyncRules {
            all_sc: self == MemoryModel::Sc,
            same_thread_rs: matches!(self, MemoryModel::Rc11 | MemoryModel::Src11),
            scoped: self == MemoryModel::Src11,
        }
    }

    /// The mo position every access of thread `t` at `loc` must be at or
    /// after, given `hb` (the view of its po-predecessor): the mo-maximal of
    /// the writes in `hb` and of the writes read by reads in `hb`. This is
    /// what irreflexive(hb ; eco?) asks of a new access (CoWW, CoWR, CoRW, CoRR),
    /// with the hb of the location's memory space (`space.rs`, rule 4).
    pub fn coherence_floor(g: &ExecutionGraph, loc: Loc, hb: View, skip: Option<EventId>) -> usize {
        let d = g.loc(loc).expect("accessed location exists");
        let space = d.space;
        match d.mo.last() {
            None => return 0,
            // The mo-last write is in hb: nothing is later.
            Some(&w) if hb.contains_in(space, w) => return d.mo.len(),
            Some(_) => {}
        }
        // The writes read by reads in hb that are not in hb themselves (those
        // in hb are found by the scan below anyway). Of one thread's reads
        // in hb (a prefix of them), the last read the mo-latest write
        // (CoRR), so one read per thread is enough.
        let mut read: SmallVec<[EventId; 8]> = SmallVec::new();
        for t in 0..d.thread_slots() as ThreadId {
            let rs = d.thread_reads(t);
            let mut k = rs.partition_point(|&i| i < hb.get_in(space, t));
            if k > 0 && skip == Some(EventId::new(t, rs[k - 1])) {
                k -= 1;
            }
            if k == 0 {
                continue;
            }
            let rf = g.event(EventId::new(t, rs[k - 1])).as_read().expect("read").rf;
            if !rf.is_init() && !hb.contains_in(space, rf) {
                read.push(rf);
            }
        }
        // The floor is just after the mo-latest write that is in hb or read
        // in hb; scanning mo from its end finds it without asking any
        // write's position.
        let floor_with = |read: &[EventId]| {
            d.mo.iter()
                .rposition(|w| hb.contains_in(space, *w) || read.contains(w))
                .map_or(0, |i| i + 1)
        };
        let floor = floor_with(&read);
        #[cfg(debug_assertions)]
        {
            let scanned = crate::work::uncounted(|| {
                let all: Vec<EventId> = d
                    .reads
                    .iter()
                    .filter(|&&r| Some(r) != skip && hb.contains_in(space, r))
                    .map(|&r| g.event(r).as_read().expect("read").rf)
                    .collect();
                floor_with(&all)
            });
            debug_assert_eq!(
                floor, scanned,
                "checker invariant: a thread's later reads of a location read mo-later writes"
            );
        }
        floor
    }

    /// The writes the read that thread `t` is about to add at `loc` may read
    /// under the coherence axiom, in mo order (initial write first). For `sc`
    /// and for seq_cst the caller still filters them with [`Self::check_graph`].
    pub fn rf_candidates(g: &ExecutionGraph, t: ThreadId, loc: Loc) -> Candidates {
        let hb = Self::base_hb(g, t);
        Self::candidates_from(g, loc, Self::coherence_floor(g, loc, hb, None))
    }

    /// The writes a read of thread `t` at `loc` may read under this model:
    /// [`Self::rf_candidates`], or every write of `loc` under `porf`.
    pub fn read_candidates(self, g: &ExecutionGraph, t: ThreadId, loc: Loc) -> Candidates {
        Self::candidates_from(g, loc, self.read_floor(g, t, loc))
    }

    /// The mo position of the first write a read of thread `t` at `loc`
    /// may read (every later one may be read too): the coherence floor, or
    /// 0 under `porf`.
    pub fn read_floor(self, g: &ExecutionGraph, t: ThreadId, loc: Loc) -> usize {
        if self.porf_base() {
            0
        } else {
            Self::coherence_floor(g, loc, Self::base_hb(g, t), None)
        }
    }

    /// The writes of `loc` from mo position `floor` on.
    fn candidates_from(g: &ExecutionGraph, loc: Loc, floor: usize) -> Candidates {
        let mo = &g.loc(loc).expect("loc").mo;
        let mut c = Candidates::new();
        if floor == 0 {
            c.push(EventId::INIT);
        }
        c.extend_from_slice(&mo[floor.saturating_sub(1)..]);
        c
    }

    /// The mo positions (as for [`ExecutionGraph::insert_mo`]) where a plain
    /// write of thread `t` at `loc` may go: after the coherence floor, and
    /// never between an RMW's write and the write it read.
    pub fn mo_placements(g: &ExecutionGraph, t: ThreadId, loc: Loc) -> Places {
        let hb = Self::base_hb(g, t);
        Self::placements_from(g, loc, Self::coherence_floor(g, loc, hb, None))
    }

    /// The mo positions a plain write of thread `t` at `loc` may take under
    /// this model: [`Self::mo_placements`], or every place that does not split
    /// an RMW from the write it read under `porf`.
    pub fn write_placements(self, g: &ExecutionGraph, t: ThreadId, loc: Loc) -> Places {
        if self.porf_base() {
            Self::placements_from(g, loc, 0)
        } else {
            Self::mo_placements(g, t, loc)
        }
    }

    /// The mo positions after `floor` that keep every RMW right after its source.
    fn placements_from(g: &ExecutionGraph, loc: Loc, floor: usize) -> Places {
        let d = g.loc(loc).expect("loc");
        let n = d.mo.len();
        (floor + 1..=n + 1)
            .filter(|&p| {
                // inserting at p puts the write between mo positions p-1 and p
                p > n || !g.event(d.mo[p - 1]).as_write().expect("write").rmw || {
                    // mo[p-1] is an RMW write: it must stay right after what it read
                    let w = d.mo[p - 1];
                    let rd = g
                        .event(EventId::new(w.thread, w.index - 1))
                        .as_read()
                        .expect("rmw read");
                    g.mo_position(loc, rd.rf) != p - 1
                }
            })
            .collect()
    }

    /// The hb view of the po-predecessor of thread `t`'s next event.
    pub fn base_hb(g: &ExecutionGraph, t: ThreadId) -> View<'_> {
        match g.thread_len(t) {
            0 => View::empty(),
            n => g.hb(EventId::new(t, n - 1)),
        }
    }

    /// The axioms the incremental construction does not guarantee by itself:
    /// psc acyclicity for `rc11` (only when two seq_cst events exist), the
    /// whole of SC for `sc`.
    pub fn check_graph(self, g: &ExecutionGraph) -> Result<(), Axiom> {
        match self {
            MemoryModel::Sc => {
                crate::work::full_check();
                let ok = sc::consistent(g);
                debug_assert_eq!(
                    ok,
                    Relations::of(g, self.sync_rules()).check(g, true).is_ok(),
                    "checker invariant: the linear SC check agrees with the relation algebra"
                );
                if ok {
                    Ok(())
                } else {
                    Err(Axiom::SequentialConsistency)
                }
            }
            // No thin air and atomicity hold by construction.
            MemoryModel::Porf | MemoryModel::Ptx75 | MemoryModel::Vulkan => Ok(()),
            // Coherence under C++20's hb holds by construction (the floor);
            // C11's seq_cst axiom on the graph so far. C11's own release
            // sequences and NaRf wait for the complete graph
            // (Self::check_complete): they are not monotone.
            MemoryModel::C11 => {
                if g.sc_events() < 2 {
                    return Ok(());
                }
                crate::work::full_check();
                c11::check(g, c11::Judge::Prefix)
            }
            MemoryModel::Rc11 | MemoryModel::Cpp20 | MemoryModel::Src11 => {
                if g.sc_events() < 2 {
                    return Ok(());
                }
                crate::work::full_check();
                if let Some(ok) = psc::acyclic(g, self.sync_rules().scoped) {
                    debug_assert_eq!(
                        ok,
                        !Relations::of(g, self.sync_rules()).psc(g).has_cycle(),
                        "checker invariant: psc over the seq_cst accesses agrees with the relation algebra"
                    );
                    return if ok { Ok(()) } else { Err(Axiom::Psc) };
                }
                if sc::po_eco_acyclic(g) {
                    // psc ⊆ (po ∪ eco)+: no psc cycle either.
                    debug_assert!(
                        !Relations::of(g, self.sync_rules()).psc(g).has_cycle(),
                        "checker invariant: psc is acyclic when po ∪ eco is"
                    );
                    return Ok(());
                }
                let rel = Relations::of(g, self.sync_rules());
                if rel.psc(g).has_cycle() {
                    Err(Axiom::Psc)
                } else {
                    Ok(())
                }
            }
        }
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

    /// The axioms a complete execution is judged by beyond those its
    /// construction checked: under `c11`, every axiom of C11 (its release
    /// sequences and NaRf are not monotone, so graphs under construction
    /// are judged only by the rest); under every other model, none.
    pub fn check_complete(self, g: &ExecutionGraph) -> Result<(), Axiom> {
        match self {
            MemoryModel::C11 => c11::check(g, c11::Judge::Complete),
            MemoryModel::Ptx75 | MemoryModel::Vulkan => {
                gpu_rust::judge(g, self).map(|_| ()).map_err(|_| Axiom::HardwareModel)
            }
            _ => Ok(()),
        }
    }

    /// Every axiom of the model, from the definitions alone (for `c11`,
    /// those that hold of every prefix of a consistent execution; see
    /// [`Self::check_complete`]).
    pub fn consistent_declarative(self, g: &ExecutionGraph) -> Result<(), Axiom> {
        if self == MemoryModel::C11 {
            return c11::check(g, c11::Judge::Prefix);
        }
        let rel = Relations::of(g, self.sync_rules());
        if self == MemoryModel::Porf {
            return rel.check_porf();
        }
        if self.is_hardware() {
            rel.check_porf()?;
            return gpu_rust::judge(g, self).map(|_| ()).map_err(|_| Axiom::HardwareModel);
        }
        rel.check(g, self == MemoryModel::Sc)
    }
}
