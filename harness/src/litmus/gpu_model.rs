//! The GPU hardware models a litmus test can be checked under (`ptx6.0`,
//! `ptx7.5`, `vulkan`, `vulkan-nochains`; docs/gpu-models.md): their names,
//! the side table the front end gives them, and the judgement of one
//! complete graph.

use super::ast::Test;
use super::gpu::Dialect;
use scopecheck_checker::event::{EventId, ThreadId};
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::model::gpu::GpuEnv;
use scopecheck_checker::model::ptx::{self, PtxVersion};
use scopecheck_checker::model::vulkan;

/// A GPU hardware model.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GpuModel {
    /// Dat3M's `ptx-v6.0.cat`.
    Ptx60,
    /// Dat3M's `ptx-v7.5.cat` (the default for `PTX` tests).
    Ptx75,
    /// Dat3M's `vulkan.cat`, with availability / visibility chains (the
    /// default for `VULKAN` tests).
    Vulkan,
    /// Dat3M's `vulkan-nochains.cat`.
    VulkanNoChains,
}

impl GpuModel {
    /// Every GPU model.
    pub const ALL: [GpuModel; 4] = [
        GpuModel::Ptx60,
        GpuModel::Ptx75,
        GpuModel::Vulkan,
        GpuModel::VulkanNoChains,
    ];

    /// The name on the command line and in expectation files.
    pub fn name(self) -> &'static str {
        match self {
            GpuModel::Ptx60 => "ptx6.0",
            GpuModel::Ptx75 => "ptx7.5",
            GpuModel::Vulkan => "vulkan",
            GpuModel::VulkanNoChains => "vulkan-nochains",
        }
    }

    /// The model named `s` (lower case).
    pub fn from_name(s: &str) -> Option<GpuModel> {
        GpuModel::ALL.into_iter().find(|m| m.name() == s)
    }

    /// The dialect whose tests the model judges.
    pub fn dialect(self) -> Dialect {
        match self {
            GpuModel::Ptx60 | GpuModel::Ptx75 => Dialect::Ptx,
            GpuModel::Vulkan | GpuModel::VulkanNoChains => Dialect::Vulkan,
        }
    }

    /// The default model of a dialect.
    pub fn default_for(d: Dialect) -> GpuModel {
        match d {
            Dialect::Ptx => GpuModel::Ptx75,
            Dialect::Vulkan => GpuModel::Vulkan,
        }
    }

    /// Whether the model defines data races (Vulkan's `dr`; PTX's cat files flag none).
    pub fn has_races(self) -> bool {
        self.dialect() == Dialect::Vulkan
    }
}

/// The side table of a GPU test (engine thread `t + 1` runs its `t`-th thread).
pub fn env_of(test: &Test) -> GpuEnv {
    let mut env = GpuEnv::default();
    if let Some(gpu) = &test.gpu {
        env.ops = gpu.ops.clone();
        for (t, p) in gpu.places.iter().enumerate() {
            env.places.insert(t as ThreadId + 1, *p);
        }
        env.ssw = gpu
            .ssw
            .iter()
            .map(|&(a, b)| (a as ThreadId + 1, b as ThreadId + 1))
            .collect();
    }
    env
}

/// Judges complete graph `g`: `Err` names the violated axiom; `Ok` lists
/// the racing pairs of a consistent graph.
pub fn judge(model: GpuModel, env: &GpuEnv, g: &ExecutionGraph) -> Result<Vec<(EventId, EventId)>, String> {
    match model {
        GpuModel::Ptx60 => ptx::check(g, env, PtxVersion::V60)
            .map(|()| Vec::new())
            .map_err(|a| format!("{a:?}")),
        GpuModel::Ptx75 => ptx::check(g, env, PtxVersion::V75)
            .map(|()| Vec::new())
            .map_err(|a| format!("{a:?}")),
        GpuModel::Vulkan => vulkan::check(g, env, true).map_err(|a| format!("{a:?}")),
        GpuModel::VulkanNoChains => vulkan::check(g, env, false).map_err(|a| format!("{a:?}")),
    }
}
