//! Memory spaces (docs/semantics.md §2) and the spaces a barrier fences (3.3).
//!
//! A location lives in one space: **global** memory (host memory, atomics,
//! cells, GPU device buffers: visible to every thread that holds it) or
//! **local** memory (CUDA `__shared__`, SYCL/OpenCL local memory: one
//! instance per block, reachable only by that block's threads).
//!
//! Happens-before is kept per space, as OpenCL 2.0 does with its
//! global-happens-before and local-happens-before (and as
//! `docs/opencl-model.md` section 10 asks of `src11`). The rules, each
//! implemented where its comment says:
//!
//! 1. **Program order, spawn, join** order both spaces
//!    (`graph/sw.rs`: a new event starts from its predecessor's view,
//!    both components, and its own prefix counts in both).
//! 2. **Atomic synchronization** (release/acquire, fences, release
//!    sequences) orders both spaces: the view a release publishes is the
//!    whole clock, both components, and an acquire joins it whole
//!    (`Clock::join`).
//! 3. **A barrier orders only the spaces it fences**: a barrier event joins,
//!    from each partner's last event before the barrier, only the
//!    components of the fenced spaces (`Clock::join_space`). A barrier that
//!    fences only local memory therefore does not order global accesses,
//!    and one that fences only global memory does not order local ones.
//! 4. **Races and coherence of an access use the hb of its location's
//!    space**: two conflicting accesses to a local location race unless one
//!    is in the other's local view (`races::pair_races`), and a read of a
//!    local atomic may read any write not hidden by a write in its local
//!    view (`model::coherence::floor`).
//! 5. Transitivity mixes the rules the way a path does: hb_s is
//!    (po ∪ sw ∪ bar_s)+, where bar_s are the edges of the barriers that
//!    fence s. A local-only barrier followed by a release/acquire pair
//!    gives local ordering across both, and never global ordering through
//!    the barrier step.

use std::fmt;

/// The memory space a location is in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Space {
    /// Global (device or host) memory: every location that is not local.
    #[default]
    Global,
    /// Block-local memory (CUDA shared memory, SYCL/OpenCL local memory).
    Local,
}

impl Space {
    /// The space's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Local => "local",
        }
    }
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The spaces a barrier orders (SYCL's `fence_space`, OpenCL's
/// `CLK_LOCAL_MEM_FENCE` / `CLK_GLOBAL_MEM_FENCE` flags). CUDA's
/// `__syncthreads()` fences both.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum FenceSpace {
    /// Only local memory (`fence_space::local_space`).
    Local,
    /// Only global memory (`fence_space::global_space`).
    Global,
    /// Both (`fence_space::global_and_local`, `__syncthreads()`).
    #[default]
    Both,
}

impl FenceSpace {
    /// Whether a barrier with this fence orders accesses to `space`.
    pub fn fences(self, space: Space) -> bool {
        match self {
            FenceSpace::Both => true,
            FenceSpace::Local => space == Space::Local,
            FenceSpace::Global => space == Space::Global,
        }
    }

    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            FenceSpace::Local => "local",
            FenceSpace::Global => "global",
            FenceSpace::Both => "global and local",
        }
    }
}

impl fmt::Display for FenceSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_cover_their_spaces_only() {
        assert!(FenceSpace::Both.fences(Space::Global) && FenceSpace::Both.fences(Space::Local));
        assert!(FenceSpace::Local.fences(Space::Local) && !FenceSpace::Local.fences(Space::Global));
        assert!(FenceSpace::Global.fences(Space::Global) && !FenceSpace::Global.fences(Space::Local));
    }
}
