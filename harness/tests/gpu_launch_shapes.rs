//! Launch shapes and thread groups beyond one dimension and whole warps:
//! 2-D and 3-D launches with CUDA's indices, partial warp barriers
//! (`__syncwarp(mask)`, tiles), block clusters (cluster scope and the
//! cluster barrier), and memory synchronization domains.

mod common;

use common::{both, builder, outcomes, the_failure};
use scopecheck::cell::UnsafeCell;
use scopecheck::gpu::{launch, record, Dim3, Launch};
use scopecheck::scope::Scope;
use scopecheck::sync::atomic::{AtomicU32, Ordering};
use scopecheck::{FailureKind, MemoryModel, Strategy};
use std::collections::BTreeSet;

fn read(c: &UnsafeCell<u32>) -> u32 {
    c.with(|p| unsafe { *p })
}

fn write(c: &UnsafeCell<u32>, v: u32) {
    c.with_mut(|p| unsafe { *p = v })
}

/// A 3-D launch runs one thread per (block, thread) index pair, with
/// CUDA's linearization (x fastest), warps cut from the linear thread
/// index, and the 1-D accessors giving the linear indices.
#[test]
fn a_3d_launch_has_cudas_indices() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| {
        launch(
            Launch::new((2, 1, 2), (3, 2, 1)).warp_size(4),
            |_| (),
            |ctx| {
                let (bi, ti) = (ctx.block_idx_3d(), ctx.thread_idx_3d());
                assert_eq!(ctx.block_idx(), bi.x + 2 * bi.z);
                assert_eq!(ctx.thread_idx(), ti.x + 3 * ti.y);
                assert_eq!(ctx.block_dim_3d(), Dim3::new(3, 2, 1));
                assert_eq!(ctx.grid_dim_3d(), Dim3::new(2, 1, 2));
                assert_eq!((ctx.block_dim(), ctx.grid_dim()), (6, 4));
                assert_eq!(ctx.warp(), ctx.thread_idx() / 4);
                record(
                    format!("g{:02}", ctx.global_idx()),
                    (bi.x, bi.y, bi.z, ti.x, ti.y, ti.z, ctx.warp(), ctx.lane()),
                );
            },
        );
    });
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(r.executions(), 1);
    let outcome = r.outcomes().keys().next().unwrap().clone();
    assert_eq!(r.outcomes().len(), 1);
    assert_eq!(outcome.0.len(), 24);
    assert_eq!(outcome.get("g00"), Some("(0, 0, 0, 0, 0, 0, 0, 0)"));
    assert_eq!(outcome.get("g05"), Some("(0, 0, 0, 2, 1, 0, 1, 1)"));
    assert_eq!(outcome.get("g06"), Some("(1, 0, 0, 0, 0, 0, 0, 0)"));
    assert_eq!(outcome.get("g23"), Some("(1, 0, 1, 2, 1, 0, 1, 1)"));
    // Every (block, thread) pair once.
    let pairs: BTreeSet<&str> = outcome.0.values().map(|v| &v[..16]).collect();
    assert_eq!(pairs.len(), 24);
}

/// A 2-D block's barrier waits for all of its threads (a block of 2x2
/// exchanging through shared memory in a 2-D grid of 2x1).
#[test]
fn a_2d_block_barrier_holds_every_thread() {
    let body = |rec: &dyn Fn(Vec<u32>)| {
        let slots: Vec<UnsafeCell<u32>> = (0..8).map(|_| UnsafeCell::new(0)).collect();
        let seen: Vec<AtomicU32> = (0..8).map(|_| AtomicU32::new(0)).collect();
        launch(
            Launch::new((2, 1), (2, 2)),
            |_| (),
            |ctx| {
                let me = ctx.global_idx() as usize;
                write(&slots[me], me as u32 + 1);
                ctx.sync_threads();
                let t = ctx.thread_idx_3d();
                // The thread at the transposed position of the same block.
                let other = ctx.block_idx() * 4 + t.y + 2 * t.x;
                seen[me].store(read(&slots[other as usize]), Ordering::Relaxed);
            },
        );
        rec(seen.iter().map(|s| s.load(Ordering::Relaxed)).collect());
    };
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (o, r) = outcomes(&b, body);
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o, [vec![1, 3, 2, 4, 5, 7, 6, 8]].into_iter().collect());
    assert_eq!(r.executions(), 1);
}

#[test]
fn a_bad_shape_is_refused_at_the_launch() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| launch(Launch::new((3, 1), 1).cluster(2), |_| (), |_| {}));
    let f = the_failure(&r, FailureKind::Panic);
    assert!(
        f.message().contains("is not a whole number of clusters"),
        "{}",
        f.message()
    );
    let r = b.explore(|| launch(Launch::new((2, 0, 1), 1), |_| (), |_| {}));
    assert!(the_failure(&r, FailureKind::Panic)
        .message()
        .contains("at least one block"));
}

/// `__syncwarp(mask)`: lanes 0 and 1 of a three-lane warp exchange through
/// plain memory across a barrier on their two lanes; lane 2 never joins.
#[test]
fn a_masked_warp_barrier_orders_its_lanes() {
    let body = |rec: &dyn Fn(Vec<u32>)| {
        let slots: Vec<UnsafeCell<u32>> = (0..3).map(|_| UnsafeCell::new(0)).collect();
        let seen: Vec<AtomicU32> = (0..2).map(|_| AtomicU32::new(0)).collect();
        launch(
            Launch::new(1, 3),
            |_| (),
            |ctx| {
                let me = ctx.lane() as usize;
                write(&slots[me], me as u32 + 1);
                if me < 2 {
                    ctx.sync_warp_mask(0b11);
                    seen[me].store(read(&slots[1 - me]), Ordering::Relaxed);
                }
            },
        );
        rec(seen.iter().map(|s| s.load(Ordering::Relaxed)).collect());
    };
    let (o, n) = both(MemoryModel::Src11, body);
    assert_eq!(o, [vec![2, 1]].into_iter().collect());
    assert_eq!(n, 1);
}

/// A tile of two lanes (`tiled_partition<2>`): lanes 0-1 and 2-3 each meet
/// at their own barrier.
#[test]
fn tiles_meet_separately() {
    let body = |rec: &dyn Fn(Vec<u32>)| {
        let slots: Vec<UnsafeCell<u32>> = (0..4).map(|_| UnsafeCell::new(0)).collect();
        let seen: Vec<AtomicU32> = (0..4).map(|_| AtomicU32::new(0)).collect();
        launch(
            Launch::new(1, 4),
            |_| (),
            |ctx| {
                let me = ctx.lane() as usize;
                write(&slots[me], me as u32 + 1);
                ctx.sync_tile(2);
                seen[me].store(read(&slots[me ^ 1]), Ordering::Relaxed);
            },
        );
        rec(seen.iter().map(|s| s.load(Ordering::Relaxed)).collect());
    };
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (o, r) = outcomes(&b, body);
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o, [vec![2, 1, 4, 3]].into_iter().collect());
    assert_eq!(r.executions(), 1);
}

/// A thread whose own lane is not in the mask is barrier divergence,
/// reported at the call.
#[test]
fn a_mask_without_the_callers_lane_is_divergence() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| {
        launch(Launch::new(1, 2), |_| (), |ctx| ctx.sync_warp_mask(0b01));
    });
    let f = the_failure(&r, FailureKind::BarrierDivergence);
    assert!(
        f.message()
            .contains("lane 1 (thread 1 of block 0) calls __syncwarp with mask 0x1, which does not name its own lane"),
        "{}",
        f.message()
    );
    assert!(f.location().is_some());
}

/// Lanes meeting with different masks each wait for lanes that never come:
/// barrier divergence, naming both barriers.
#[test]
fn divergent_masks_are_divergence() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| {
        launch(
            Launch::new(1, 3),
            |_| (),
            |ctx| {
                if ctx.lane() == 0 {
                    ctx.sync_warp_mask(0b011);
                } else {
                    ctx.sync_warp_mask(0b111);
                }
            },
        );
    });
    let f = the_failure(&r, FailureKind::BarrierDivergence);
    assert!(f.message().contains("lanes {0, 1} of warp 0"), "{}", f.message());
    assert!(
        f.message().contains("at the barrier of lanes {0, 1, 2} of warp 0"),
        "{}",
        f.message()
    );
}

/// Clusters of two blocks: the cluster barrier orders the two blocks of a
/// cluster; a block of another cluster reading across it races.
#[test]
fn the_cluster_barrier_orders_its_blocks_only() {
    let body = |reader: u32| {
        move |rec: &dyn Fn(u32)| {
            let data = UnsafeCell::new(0u32);
            let got = AtomicU32::new(0);
            launch(
                Launch::new(4, 1).cluster(2),
                |_| (),
                |ctx| {
                    assert_eq!(ctx.cluster_idx(), ctx.block_idx() / 2);
                    assert_eq!(ctx.cluster_rank(), ctx.block_idx() % 2);
                    if ctx.block_idx() == 0 {
                        write(&data, 42);
                    }
                    ctx.sync_cluster();
                    if ctx.block_idx() == reader {
                        got.store(read(&data), Ordering::Relaxed);
                    }
                },
            );
            rec(got.load(Ordering::Relaxed));
        }
    };
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (o, r) = outcomes(&b, body(1));
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o, [42].into_iter().collect());
    assert_eq!(r.executions(), 1);
    let (_, r) = outcomes(&b, body(2));
    the_failure(&r, FailureKind::DataRace);
}

/// Message passing between two blocks at cluster scope: fine within a
/// cluster, a heterogeneous race across clusters (fix: device scope).
#[test]
fn cluster_scope_reaches_the_cluster() {
    let mp = |reader: u32| {
        move |rec: &dyn Fn((u32, u32))| {
            let data = AtomicU32::new(0);
            let flag = AtomicU32::new(0);
            let got = [AtomicU32::new(9), AtomicU32::new(9)];
            launch(
                Launch::new(4, 1).cluster(2),
                |_| (),
                |ctx| {
                    if ctx.block_idx() == 0 {
                        data.store(1, Ordering::Relaxed);
                        flag.store_scoped(1, Ordering::Release, Scope::Cluster);
                    } else if ctx.block_idx() == reader {
                        got[0].store(flag.load_scoped(Ordering::Acquire, Scope::Cluster), Ordering::Relaxed);
                        got[1].store(data.load(Ordering::Relaxed), Ordering::Relaxed);
                    }
                },
            );
            rec((got[0].load(Ordering::Relaxed), got[1].load(Ordering::Relaxed)));
        }
    };
    let (o, n) = both(MemoryModel::Src11, mp(1));
    assert_eq!(o, [(0, 0), (0, 1), (1, 1)].into_iter().collect());
    assert_eq!(n, 3);
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (_, r) = outcomes(&b, mp(2));
    let f = the_failure(&r, FailureKind::HeterogeneousRace);
    assert!(f.fix().is_some_and(|x| x.contains("device scope")), "{f:?}");
}

/// Memory synchronization domains: two kernels running at once on one
/// device, one in domain 0 and one in domain `other`, pass a message at
/// `scope`. Device scope reaches only the same domain; system scope
/// crosses domains.
fn domains(other: u32, scope: Scope) -> impl Fn(&dyn Fn((u32, u32))) + Clone {
    move |rec: &dyn Fn((u32, u32))| {
        let data = AtomicU32::new(0);
        let flag = AtomicU32::new(0);
        let got = [AtomicU32::new(9), AtomicU32::new(9)];
        scopecheck::thread::scope(|s| {
            s.spawn(|| {
                launch(
                    Launch::new(1, 1),
                    |_| (),
                    |_| {
                        data.store(1, Ordering::Relaxed);
                        flag.store_scoped(1, Ordering::Release, scope);
                    },
                )
            });
            s.spawn(|| {
                launch(
                    Launch::new(1, 1).domain(other),
                    |_| (),
                    |ctx| {
                        assert_eq!(ctx.domain(), other);
                        got[0].store(flag.load_scoped(Ordering::Acquire, scope), Ordering::Relaxed);
                        got[1].store(data.load(Ordering::Relaxed), Ordering::Relaxed);
                    },
                )
            });
        });
        rec((got[0].load(Ordering::Relaxed), got[1].load(Ordering::Relaxed)));
    }
}

#[test]
fn device_scope_stays_within_a_domain() {
    let mp = [(0, 0), (0, 1), (1, 1)].into_iter().collect();
    let (o, n) = both(MemoryModel::Src11, domains(0, Scope::Device));
    assert_eq!(o, mp);
    assert_eq!(n, 3);
    let (o, n) = both(MemoryModel::Src11, domains(1, Scope::System));
    assert_eq!(o, mp);
    assert_eq!(n, 3);
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (_, r) = outcomes(&b, domains(1, Scope::Device));
    let f = the_failure(&r, FailureKind::HeterogeneousRace);
    assert!(f.fix().is_some_and(|x| x.contains("system scope")), "{f:?}");
    assert!(f.message().contains("domain 1"), "{}", f.message());
}
