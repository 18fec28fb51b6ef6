//! The GPU progress models of Sorensen et al. for Rust kernels
//! (`Progress::Gpu`: hsa, obe, lobe, hsa_obe; `checker/src/progress_model.rs`),
//! next to `Fair`: a spin-wait on another block's (or work-item's) write
//! ends or hangs depending on who waits for whom, with exact verdicts.

mod common;

use common::{builder, the_failure};
use scopecheck::gpu::{launch, Launch};
use scopecheck::hint;
use scopecheck::scope::Scope;
use scopecheck::sync::atomic::{AtomicU32, Ordering};
use scopecheck::{FailureKind, GpuProgress, HangInfo, MemoryModel, Progress, Report, Strategy};

/// `grid` blocks of `block` threads; global thread `writer` sets a flag,
/// global thread `waiter` spins until it sees it.
fn spin(grid: u32, block: u32, waiter: u32, writer: u32) -> impl Fn() + Copy {
    move || {
        let flag = AtomicU32::new(0);
        launch(
            Launch::new(grid, block),
            |_| (),
            |ctx| {
                if ctx.global_idx() == writer {
                    flag.store_scoped(1, Ordering::Release, Scope::Device);
                } else if ctx.global_idx() == waiter {
                    while flag.load_scoped(Ordering::Acquire, Scope::Device) == 0 {
                        hint::spin_loop();
                    }
                }
            },
        );
    }
}

fn run(p: Progress, strategy: &Strategy, f: impl Fn()) -> Report {
    builder(MemoryModel::Src11, strategy.clone()).progress(p).explore(f)
}

const MODELS: [Progress; 5] = [
    Progress::Fair,
    Progress::Gpu(GpuProgress::Obe),
    Progress::Gpu(GpuProgress::Hsa),
    Progress::Gpu(GpuProgress::Lobe),
    Progress::Gpu(GpuProgress::HsaObe),
];

/// Whether each model (fair, obe, hsa, lobe, hsa_obe) lets the program end,
/// and the hang's threads where it does not.
fn verdicts(f: impl Fn() + Copy, strategy: &Strategy) -> Vec<Option<HangInfo>> {
    MODELS
        .iter()
        .map(|&p| {
            let r = run(p, strategy, f);
            if r.failures().is_empty() {
                None
            } else {
                Some(
                    the_failure(&r, FailureKind::Hang)
                        .hang()
                        .cloned()
                        .expect("a hang names its threads"),
                )
            }
        })
        .collect()
}

fn hang(waiting: u32, awaited: u32) -> Option<HangInfo> {
    Some(HangInfo {
        waiting: vec![waiting],
        awaited: vec![awaited],
    })
}

/// Block 1 spins on block 0's write: ends under fair, hsa (block 0 is the
/// lowest), lobe (block 1 started, so block 0 runs) and hsa_obe; under obe
/// block 0 need never start. Engine threads: 1 is block 0's, 2 block 1's.
#[test]
fn higher_block_waits_for_lower() {
    for strategy in [Strategy::Exhaustive, Strategy::Reference] {
        let v = verdicts(spin(2, 1, 1, 0), &strategy);
        assert_eq!(v, vec![None, hang(2, 1), None, None, None], "{strategy:?}");
    }
}

/// Block 0 spins on block 1's write: only fair runs block 1 for sure.
#[test]
fn lower_block_waits_for_higher() {
    for strategy in [Strategy::Exhaustive, Strategy::Reference] {
        let v = verdicts(spin(2, 1, 0, 1), &strategy);
        assert_eq!(
            v,
            vec![None, hang(1, 2), hang(1, 2), hang(1, 2), hang(1, 2)],
            "{strategy:?}"
        );
    }
}

/// Next to the occupancy-bound model: with both blocks resident, block 0's
/// wait for block 1 ends; with one slot, block 1 is never dispatched; hsa
/// starves block 1 whatever the slots.
#[test]
fn against_occupancy_bound() {
    let f = spin(2, 1, 0, 1);
    let r = run(
        Progress::OccupancyBound { resident_blocks: 2 },
        &Strategy::Exhaustive,
        f,
    );
    assert!(r.failures().is_empty(), "{r}");
    let r = run(
        Progress::OccupancyBound { resident_blocks: 1 },
        &Strategy::Exhaustive,
        f,
    );
    assert_eq!(the_failure(&r, FailureKind::Hang).hang().cloned(), hang(1, 2));
    let r = run(Progress::Gpu(GpuProgress::Hsa), &Strategy::Exhaustive, f);
    assert_eq!(the_failure(&r, FailureKind::Hang).hang().cloned(), hang(1, 2));
}

/// The same rules between the work-items of one block.
#[test]
fn work_items_of_one_block() {
    let v = verdicts(spin(1, 2, 1, 0), &Strategy::Exhaustive);
    assert_eq!(v, vec![None, hang(2, 1), None, None, None]);
    let v = verdicts(spin(1, 2, 0, 1), &Strategy::Exhaustive);
    assert_eq!(v, vec![None, hang(1, 2), hang(1, 2), hang(1, 2), hang(1, 2)]);
}

/// Where the programs end, the executions are the fair model's (the model
/// changes no finite execution, only which waits are hangs).
#[test]
fn ending_runs_explore_the_fair_executions() {
    let fair = run(Progress::Fair, &Strategy::Exhaustive, spin(2, 1, 1, 0)).executions();
    for p in [GpuProgress::Hsa, GpuProgress::Lobe, GpuProgress::HsaObe] {
        let r = run(Progress::Gpu(p), &Strategy::Exhaustive, spin(2, 1, 1, 0));
        assert_eq!(r.executions(), fair, "{p}");
    }
}

#[test]
fn names_and_hang_message() {
    assert_eq!(Progress::Gpu(GpuProgress::HsaObe).to_string(), "hsa_obe");
    let r = run(Progress::Gpu(GpuProgress::Hsa), &Strategy::Exhaustive, spin(2, 1, 0, 1));
    let f = the_failure(&r, FailureKind::Hang);
    assert!(
        f.message()
            .contains("under the hsa progress model the scheduler may keep running the spinning thread"),
        "{}",
        f.message()
    );
}
