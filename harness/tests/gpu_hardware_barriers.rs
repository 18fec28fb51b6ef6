//! Block barriers (`sync_threads`) in Rust kernels under the GPU hardware
//! models (docs/gpu-models.md section 7): PTX's `bar.cta.sync` and
//! Vulkan's workgroup control barrier, judged by the cat models' `syncbar`.
//! Exact outcome sets, with the optimal explorer and the reference
//! enumerator agreeing; the barriers the models lack are refused.

mod common;

use common::builder;
use scopecheck::gpu::{launch, record, FenceSpace, Launch};
use scopecheck::sync::atomic_ref::Plain;
use scopecheck::{FailureKind, MemoryModel, Report, Strategy};
use std::collections::BTreeSet;

/// Explores `body` under `model` with both strategies; they must agree on
/// the outcome set and the execution count.
fn both(model: MemoryModel, body: impl Fn() + Clone) -> (Report, BTreeSet<String>) {
    let r1 = builder(model, Strategy::Exhaustive).explore(body.clone());
    let r2 = builder(model, Strategy::Reference).explore(body);
    assert_eq!(r1.outcome_set(), r2.outcome_set(), "{model:?}:\n{r1}\n{r2}");
    assert_eq!(r1.executions(), r2.executions(), "{model:?}:\n{r1}\n{r2}");
    assert_eq!(r1.failures().len(), r2.failures().len(), "{model:?}:\n{r1}\n{r2}");
    let o = r1.outcome_set();
    (r1, o)
}

fn set(v: &[&str]) -> BTreeSet<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// One block of two threads, `blocks` blocks: thread 0 of block 0 writes
/// plain data, every thread meets at `sync` (when given), then thread 1 of
/// the last block reads the data plainly.
fn handoff(blocks: u32, sync: bool) -> impl Fn() + Clone {
    move || {
        let data = Plain::new(0u32);
        launch(
            Launch::new(blocks, 2),
            |_| (),
            |ctx| {
                if ctx.block_idx() == 0 && ctx.thread_idx() == 0 {
                    data.write(1);
                }
                if sync {
                    ctx.sync_threads();
                }
                if ctx.block_idx() == blocks - 1 && ctx.thread_idx() == 1 {
                    record("d", data.read());
                }
            },
        );
    }
}

#[test]
fn sync_threads_hands_plain_data_over_within_a_block() {
    for model in [MemoryModel::Ptx75, MemoryModel::Vulkan, MemoryModel::Src11] {
        let (r, o) = both(model, handoff(1, true));
        assert!(r.failures().is_empty(), "{model:?}: {r}");
        assert!(r.is_complete(), "{model:?}: {r}");
        assert_eq!(o, set(&["d=1"]), "{model:?}: {r}");
        assert_eq!(r.executions(), 1, "{model:?}: {r}");
    }
}

#[test]
fn without_the_barrier_the_read_may_be_stale_or_race() {
    // PTX defines no races: both values.
    let (r, o) = both(MemoryModel::Ptx75, handoff(1, false));
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o, set(&["d=0", "d=1"]), "{r}");
    // Vulkan and src11: the plain write and read race.
    for model in [MemoryModel::Vulkan, MemoryModel::Src11] {
        let (r, _) = both(model, handoff(1, false));
        assert_eq!(r.failures().len(), 1, "{model:?}: {r}");
        assert_eq!(r.failures()[0].kind(), FailureKind::DataRace, "{model:?}: {r}");
    }
}

#[test]
fn a_block_barrier_orders_nothing_across_blocks() {
    // The writer is in block 0, the reader in block 1: their barriers do
    // not meet.
    let (r, o) = both(MemoryModel::Ptx75, handoff(2, true));
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o, set(&["d=0", "d=1"]), "{r}");
    let (r, _) = both(MemoryModel::Vulkan, handoff(2, true));
    assert_eq!(r.failures().len(), 1, "{r}");
    assert_eq!(r.failures()[0].kind(), FailureKind::DataRace, "{r}");
}

#[test]
fn the_kth_barriers_meet_and_hand_over_in_turn() {
    // Two rounds in one block: thread 0 writes 1, barrier, thread 1 reads
    // and writes 2, barrier, thread 0 reads. Each read sees the write
    // before the barrier between them.
    let body = || {
        let data = Plain::new(0u32);
        launch(
            Launch::new(1, 2),
            |_| (),
            |ctx| {
                if ctx.thread_idx() == 0 {
                    data.write(1);
                }
                ctx.sync_threads();
                if ctx.thread_idx() == 1 {
                    record("a", data.read());
                    data.write(2);
                }
                ctx.sync_threads();
                if ctx.thread_idx() == 0 {
                    record("b", data.read());
                }
            },
        );
    };
    for model in [MemoryModel::Ptx75, MemoryModel::Vulkan] {
        let (r, o) = both(model, body);
        assert!(r.failures().is_empty(), "{model:?}: {r}");
        assert_eq!(o, set(&["a=1; b=2"]), "{model:?}: {r}");
        assert_eq!(r.executions(), 1, "{model:?}: {r}");
    }
}

/// The one failure of a kernel whose block 0 meets at `sync` under
/// `model`: a misuse naming the model and saying `why`.
fn refused(model: MemoryModel, sync: fn(&scopecheck::gpu::ThreadCtx<'_, ()>), why: &str) {
    let r = builder(model, Strategy::Exhaustive).explore(move || {
        launch(Launch::new(1, 2), |_| (), sync);
    });
    assert_eq!(r.failures().len(), 1, "{r}");
    let f = &r.failures()[0];
    assert_eq!(f.kind(), FailureKind::Misuse, "{r}");
    assert!(f.message().contains(why), "want {why:?} in: {}", f.message());
    assert!(f.message().contains("gpu_hardware_barriers.rs:"), "{}", f.message());
    assert!(f.message().contains(model.name()), "{}", f.message());
}

#[test]
fn barriers_the_models_lack_are_refused() {
    for model in [MemoryModel::Ptx75, MemoryModel::Vulkan] {
        refused(model, |c| c.sync_warp(), "a warp or tile barrier");
        refused(model, |c| c.sync_grid(), "a cluster or grid barrier");
        refused(model, |c| c.barrier(FenceSpace::Local), "orders only one memory space");
    }
}

/// Two threads of one block each write `x` (plain, or relaxed atomics at
/// block scope), then meet, then thread 0 reads it.
fn two_writes(atomic: bool) -> impl Fn() + Clone {
    move || {
        let x = Plain::new(0u32);
        launch(
            Launch::new(1, 2),
            |_| (),
            |ctx| {
                let v = ctx.thread_idx() + 1;
                let a = scopecheck::sync::atomic_ref::AtomicRef::cuda(&x, scopecheck::scope::Scope::Block);
                if atomic {
                    a.store_with(v, scopecheck::sync::atomic::Ordering::Relaxed);
                } else {
                    x.write(v);
                }
                ctx.sync_threads();
                if ctx.thread_idx() == 0 {
                    record(
                        "x",
                        if atomic {
                            a.load_with(scopecheck::sync::atomic::Ordering::Relaxed)
                        } else {
                            x.read()
                        },
                    );
                }
            },
        );
    }
}

#[test]
fn vulkan_counts_an_execution_once_whatever_the_order_of_writes_it_never_reads_apart() {
    // Plain writes: vulkan.cat orders them by nothing (`asmo` holds atomics
    // only), so the two orders of the engine are one execution, racy (the
    // writes race), and the read after the barrier may see either value.
    let mut b = builder(MemoryModel::Vulkan, Strategy::Exhaustive);
    b.record_races = true;
    let r = b.explore(two_writes(false));
    assert_eq!(r.failures().len(), 1, "{r}");
    assert_eq!(r.failures()[0].kind(), FailureKind::DataRace, "{r}");
    assert_eq!(r.outcome_set(), set(&["x=1", "x=2"]), "{r}");
    assert_eq!((r.executions(), r.racy_executions()), (2, 2), "{r}");
    // Atomics in each other's scope: their order is `asmo`, read by the
    // model (the read after the barrier sees the later one): two
    // executions, each with its own outcome.
    let (r, o) = both(MemoryModel::Vulkan, two_writes(true));
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o, set(&["x=1", "x=2"]), "{r}");
    assert_eq!(r.executions(), 2, "{r}");
}
