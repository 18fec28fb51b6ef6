//! DRFrlx analysis of litmus tests (`scopecheck drfrlx`): the classes
//! written after a relaxed order (`memory_order_relaxed, rlx_commutative`)
//! are judged exactly as the shim's classified atomics are (see
//! [`crate::drfrlx`]): races on the SC executions, the quantum-equivalent
//! program, the weak-model run, and class inference.
//!
//! Observability follows the interpreter: an atomic's value is observed when
//! an expression uses it (a condition, an operand, an address, a stored
//! value), directly or through the register it was assigned to. Assigning
//! it to a register is not a use, and neither is the final condition: in
//! DRFrlx the result of an execution is the memory state at its end.

use super::ast::Test;
use super::interp::{Layout, Program};
use super::parser::parse;
use super::run::{leak_name, litmus_advice, loc_names, observed_vars, validate, Front, LitmusModel, TestError};
use super::workgroups::WorkGroups;
use crate::drfrlx::{Check, DrfReport};
use scopecheck_checker::event::{Order, Scope};
use scopecheck_checker::MemoryModel;

/// Runs the DRFrlx check on the litmus source `src`, read from `file`.
/// `unroll` bounds `while` loops as in `scopecheck litmus`.
pub fn check_drfrlx_source(file: &str, src: &str, check: &Check, unroll: u32) -> Result<DrfReport, TestError> {
    let test = parse(src).map_err(TestError::Parse)?;
    check_drfrlx_test(file, &test, check, unroll)
}

/// Reads `path` and runs the DRFrlx check on it.
pub fn check_drfrlx_file(path: &std::path::Path, check: &Check, unroll: u32) -> Result<DrfReport, TestError> {
    let src = super::limits::read_source(path)?;
    check_drfrlx_source(&path.display().to_string(), &src, check, unroll)
}

/// Runs the DRFrlx check on a parsed test.
pub fn check_drfrlx_test(file: &str, test: &Test, check: &Check, unroll: u32) -> Result<DrfReport, TestError> {
    // DRFrlx classes are written in the C dialect only (`C` and `OPENCL`
    // headers); PTX and Vulkan tests have neither the syntax nor C11's
    // atomics the analysis judges.
    if let Some(gpu) = &test.gpu {
        let dialect = match gpu.dialect {
            super::gpu::Dialect::Ptx => "PTX",
            super::gpu::Dialect::Vulkan => "Vulkan",
        };
        return Err(TestError::Unsupported {
            pos: super::ast::Pos { line: 1, col: 1 },
            message: format!(
                "the DRFrlx analysis judges C-dialect tests (`C` or `OPENCL` header), not {dialect} ones: DRFrlx \
                 classes follow a relaxed order of a C atomic (`memory_order_relaxed, rlx_commutative`), so write \
                 the test in C, with placements (`P0@wg 0, dev 0`) and scopes for GPU memory"
            ),
        });
    }
    // The same static checks as a run under `sc` (names, registers,
    // constructs the interpreter supports); DRFrlx has no scopes, so scoped
    // tests are judged as if every scope were system, but work-group
    // barriers and local memory run as under src11 (barriers are po edges
    // of hb1).
    validate(test, LitmusModel::Engine(MemoryModel::Sc), Front::Drfrlx)?;
    let layout = Layout::of(test).map_err(|(pos, message)| TestError::Invalid { pos, message })?;
    let observed = observed_vars(test);
    let file_static = leak_name(file);
    // Work-group barriers and local memory run as under src11.
    let groups = WorkGroups::of(test, &layout).map_err(|(pos, message)| TestError::Invalid { pos, message })?;
    let prog = Program {
        test,
        layout: &layout,
        file: file_static,
        unroll,
        discarded: Default::default(),
        observed: &observed,
        default_scope: Scope::System,
        final_order: Order::SeqCst,
        opencl: false,
        ghost: Vec::new(),
        own_coherence: false,
        groups: groups.as_ref(),
        cross_checks: Default::default(),
        split_rmws: None,
        cut_ways: None,
    };
    let mut check = check.clone();
    check.loc_names = loc_names(&layout);
    let mut report = check.explore(|| {
        prog.execute();
    });
    litmus_advice(&mut report.failures);
    Ok(report)
}
