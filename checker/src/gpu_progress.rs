//! The names of the GPU progress models (Sorensen et al., OOPSLA 2021):
//! a leaf that both the progress state (`progress`, whose `Progress::Gpu`
//! holds one) and the rules (`progress_model`) import.

use std::fmt;

/// A GPU progress model between work-groups and between the threads of one.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GpuProgress {
    /// Occupancy-bound execution as Dat3M's `OBE`: started groups run
    /// fairly; a group not started need never start (in any order, unlike
    /// `Progress::OccupancyBound`'s dispatch order).
    Obe,
    /// Heterogeneous System Architecture: the lowest-id group that can run
    /// is guaranteed to.
    Hsa,
    /// Linear OBE: once a group starts, it and every lower-id group run fairly.
    Lobe,
    /// The guarantees of HSA and OBE together.
    HsaObe,
}

impl GpuProgress {
    /// The model's name (`obe`, `hsa`, `lobe`, `hsa_obe`), as `--progress` spells it.
    pub fn name(self) -> &'static str {
        match self {
            GpuProgress::Obe => "obe",
            GpuProgress::Hsa => "hsa",
            GpuProgress::Lobe => "lobe",
            GpuProgress::HsaObe => "hsa_obe",
        }
    }
}

impl fmt::Display for GpuProgress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
