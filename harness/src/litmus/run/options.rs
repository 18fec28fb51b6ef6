//! What a litmus check is asked for: the model ([`LitmusModel`]) and the
//! [`Options`] of the run.

use super::*;

/// The models a litmus test can be checked under: any model of the engine,
/// or OpenCL's (`docs/opencl-model.md`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LitmusModel {
    /// A model the engine explores under (`sc`, `rc11`, `cpp20`, `src11`,
    /// `c11`).
    Engine(MemoryModel),
    /// OpenCL 2.0's scoped C11 (POPL'16, herd's and Dat3M's `opencl.cat`):
    /// graphs explored under the engine's `porf` and judged by
    /// [`scopecheck_checker::model::opencl::check`], and those with a cycle
    /// in po ∪ rf found by `cyclic.rs`.
    OpenCl,
    /// A GPU hardware model for Dat3M's PTX and Vulkan tests
    /// (docs/gpu-models.md): graphs explored under the engine's `porf`
    /// and judged by the model's axioms.
    Gpu(GpuModel),
}

impl LitmusModel {
    /// The name used on the command line and in expectation files.
    pub fn name(self) -> &'static str {
        match self {
            LitmusModel::Engine(m) => m.name(),
            LitmusModel::OpenCl => "opencl",
            LitmusModel::Gpu(m) => m.name(),
        }
    }

    /// The model a test's dialect implies: `rc11` for C, `opencl` for OpenCL.
    pub fn default_for(arch: Arch) -> LitmusModel {
        match arch {
            Arch::C => LitmusModel::Engine(MemoryModel::Rc11),
            Arch::OpenCl => LitmusModel::OpenCl,
            Arch::Ptx => LitmusModel::Gpu(GpuModel::Ptx75),
            Arch::Vulkan => LitmusModel::Gpu(GpuModel::Vulkan),
        }
    }
}

impl fmt::Display for LitmusModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for LitmusModel {
    type Err = String;
    fn from_str(s: &str) -> Result<LitmusModel, String> {
        let lower = s.to_ascii_lowercase();
        if lower == "opencl" {
            return Ok(LitmusModel::OpenCl);
        }
        if let Some(m) = GpuModel::from_name(&lower) {
            return Ok(LitmusModel::Gpu(m));
        }
        MemoryModel::from_name(&lower).map(LitmusModel::Engine).ok_or_else(|| {
            format!(
                "unknown model `{s}` (expected sc, rc11, cpp20, src11, c11, opencl, ptx6.0, ptx7.5, vulkan or \
                 vulkan-nochains)"
            )
        })
    }
}

/// How to check litmus tests.
#[derive(Clone, Debug)]
pub struct Options {
    /// The model; `None` picks it from the test's dialect.
    pub model: Option<LitmusModel>,
    /// Iterations a `while` loop may run before the execution is discarded.
    pub unroll: u32,
    /// Exploration strategy (exhaustive by default).
    pub strategy: Strategy,
    /// Stop after this many executions (the result then says it is incomplete).
    pub max_executions: Option<u64>,
    /// Stop after this long.
    pub max_duration: Option<Duration>,
    /// Keep a copy of the first witness execution's graph.
    pub witness: bool,
    /// Under the models that allow cycles in po ∪ rf (`c11`, `opencl`), find
    /// the executions that have one too (`cyclic.rs`; default). `false`
    /// keeps to the explorers' po ∪ rf-acyclic executions, for cross-checks.
    pub porf_cycles: bool,
    /// Under `c11` with the exhaustive strategy: find the executions with
    /// a cycle in po ∪ rf with the optimal explorer's promised reads
    /// (docs/c11-model.md section 4) instead of `cyclic.rs`'s enumeration
    /// (the reference it is compared with: tests/c11_explorer_vs_oracle.rs).
    pub explorer_cycles: bool,
    /// The checker's cross-checks of its own shortcuts ([`CrossChecks`]):
    /// none by default. Set per run, so runs of one process with different
    /// settings do not see each other's.
    pub cross_checks: CrossChecks,
}

/// The checker's cross-checks of its own shortcuts: each switch makes the
/// po ∪ rf-cyclic enumeration (`cyclic.rs`) take the slower way a shortcut
/// stands for, so that a test can compare the two answers, which must be
/// the same (states, counts, races and completeness). Self-tests of the
/// checker, not settings a user needs: the default is every shortcut.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CrossChecks {
    /// Every write order: under a GPU model, try every permutation of each
    /// location's writes, not only the orders that keep what the model
    /// forces and each RMW's atomicity (`gpu_orders.rs`).
    pub every_order: bool,
    /// All threads at once: run the test with every thread and the
    /// promising thread together, not each thread alone with the promising
    /// thread and their ways combined (`gpu_split.rs`).
    pub all_at_once: bool,
    /// Judge every execution whole: each execution built from Vulkan's free
    /// reads location by location (`gpu_free.rs`) is judged as a whole
    /// graph too (the model's full check, with its races), and a
    /// disagreement is an internal error of the checker. Off, the location
    /// by location judgement alone decides (exact for `vulkan.cat`): the
    /// whole judgement costs two full checks per execution.
    pub judge_whole: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            model: None,
            unroll: 2,
            strategy: Strategy::Exhaustive,
            max_executions: None,
            max_duration: None,
            witness: false,
            porf_cycles: true,
            explorer_cycles: false,
            cross_checks: CrossChecks::default(),
        }
    }
}

impl FromStr for CrossChecks {
    type Err = String;
    /// A comma-separated list of the cross-checks' names: `every-order`,
    /// `all-at-once`, `judge-whole` (the command's hidden `--cross-check`).
    fn from_str(s: &str) -> Result<CrossChecks, String> {
        let mut checks = CrossChecks::default();
        for name in s.split(',').map(str::trim) {
            match name {
                "every-order" => checks.every_order = true,
                "all-at-once" => checks.all_at_once = true,
                "judge-whole" => checks.judge_whole = true,
                _ => {
                    return Err(format!(
                        "unknown cross-check `{name}` (expected every-order, all-at-once or judge-whole, \
                         comma-separated)"
                    ))
                }
            }
        }
        Ok(checks)
    }
}
