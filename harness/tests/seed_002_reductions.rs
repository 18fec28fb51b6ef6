//! Seed 002 (oneAPI developer guide, "Local barriers vs global atomics"):
//! the guide's three ways to sum a small vector, written as the guide writes
//! them, under `src11`; then the bugs the tree reduction invites (a missing
//! barrier, a barrier in a divergent branch, one barrier call with different
//! fences). A barrier that fences the wrong memory space is a rule of memory
//! spaces: `memory_spaces.rs` checks every handoff across every fence.
//!
//! Every race-free kernel below is deterministic in its plain accesses, so
//! the execution counts are those of its atomics alone: 1 for the kernels
//! without atomics, n! for n relaxed `fetch_add`s on one location (each
//! order of the RMWs in mo is one execution).

mod common;

use common::{both, builder, outcomes, race_space, the_failure};
use scopecheck::gpu::{launch, Buffer, FenceSpace, Launch, Space};
use scopecheck::scope::Scope;
use scopecheck::sync::atomic::Ordering;
use scopecheck::{FailureKind, MemoryModel, Report, Strategy};

fn explore(body: impl Fn()) -> Report {
    builder(MemoryModel::Src11, Strategy::Exhaustive).explore(body)
}

/// Kernel 1 of the seed: `parallel_for(data_size)`, and only work-item 0
/// walks the vector and writes the sum.
///
/// ```text
/// if (glob_id == 0) { int sum = 0; for (int i = 0; i < N; i++) sum += buf_acc[i]; sum_acc[0] = sum; }
/// ```
fn single_work_item(data: Vec<u32>, cfg: Launch) -> impl Fn(&dyn Fn(u32)) + Clone {
    move |rec: &dyn Fn(u32)| {
        let buf = Buffer::from_slice(&data);
        let sum_buf = Buffer::new(1, 0u32);
        launch(
            cfg,
            |_| (),
            |ctx| {
                let glob_id = ctx.global_idx();
                if glob_id == 0 {
                    let mut sum = 0;
                    for i in 0..buf.len() {
                        sum += buf.get(i);
                    }
                    sum_buf.set(0, sum);
                }
            },
        );
        rec(sum_buf.get(0));
    }
}

/// Kernel 2 of the seed: every work-item adds its element with
/// `atomic_ref<int, memory_order::relaxed, memory_scope::device,
/// address_space::global_space>(sum_acc[0]).fetch_add(buf_acc[glob_id])`.
///
/// (The seed's `sum_acc` is `write_only, noinit`, so its starting value is
/// formally unspecified; the buffer here starts at 0, as the guide means.)
fn global_atomics(data: Vec<u32>, cfg: Launch, scope: Scope) -> impl Fn(&dyn Fn(u32)) + Clone {
    move |rec: &dyn Fn(u32)| {
        let buf = Buffer::from_slice(&data);
        let sum_buf = Buffer::new(1, 0u32);
        launch(
            cfg,
            |_| (),
            |ctx| {
                let glob_id = ctx.global_idx() as usize;
                let v = sum_buf.atomic(0);
                v.fetch_add(buf.get(glob_id), Ordering::Relaxed, scope);
            },
        );
        rec(sum_buf.get(0));
    }
}

/// How the tree reduction is (mis)written.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Tree {
    /// As in the seed.
    Seed,
    /// The barrier of the round with this stride is left out.
    DropBarrier(usize),
    /// The barrier is inside `if (loc_id < i)`: only the active work-items reach it.
    BarrierInBranch,
}

/// Kernel 3 of the seed: one work-group of `wg` work-items; each sums a
/// strided slice of the vector into `scratch[loc_id]` (local memory), then
/// the group halves the active work-items each round, with a local-space
/// barrier before every round.
///
/// ```text
/// for (int i = loc_id; i < data_size; i += num_work_items) sum += buf_acc[i];
/// scratch[loc_id] = sum;
/// for (int i = work_group_size / 2; i > 0; i >>= 1) {
///   item.barrier(sycl::access::fence_space::local_space);
///   if (loc_id < i) scratch[loc_id] += scratch[loc_id + i];
/// }
/// if (loc_id == 0) sum_acc[0] = scratch[0];
/// ```
fn tree_reduction(data: Vec<u32>, wg: u32, how: Tree) -> impl Fn(&dyn Fn(u32)) + Clone {
    move |rec: &dyn Fn(u32)| {
        let buf = Buffer::from_slice(&data);
        let sum_buf = Buffer::new(1, 0u32);
        let data_size = data.len();
        launch(
            Launch::new(1, wg),
            |_| Buffer::<u32>::local(wg as usize),
            |ctx| {
                let scratch = ctx.shared();
                let loc_id = ctx.thread_idx() as usize;
                let num_work_items = wg as usize;
                let mut sum = 0;
                let mut i = loc_id;
                while i < data_size {
                    sum += buf.get(i);
                    i += num_work_items;
                }
                scratch.set(loc_id, sum);
                let mut i = wg as usize / 2;
                while i > 0 {
                    match how {
                        Tree::Seed => ctx.barrier(FenceSpace::Local),
                        Tree::DropBarrier(stride) if stride != i => ctx.barrier(FenceSpace::Local),
                        Tree::DropBarrier(_) | Tree::BarrierInBranch => {}
                    }
                    if loc_id < i {
                        if how == Tree::BarrierInBranch {
                            ctx.barrier(FenceSpace::Local);
                        }
                        scratch.set(loc_id, scratch.get(loc_id) + scratch.get(loc_id + i));
                    }
                    i >>= 1;
                }
                if loc_id == 0 {
                    sum_buf.set(0, scratch.get(0));
                }
            },
        );
        rec(sum_buf.get(0));
    }
}

fn one_to(n: u32) -> Vec<u32> {
    (1..=n).collect()
}

#[test]
fn single_work_item_sums_in_one_execution() {
    // Four work-items in one group, cross-checked with the reference enumerator.
    let (o, n) = both(MemoryModel::Src11, single_work_item(one_to(4), Launch::new(1, 4)));
    assert_eq!(o, [10].into_iter().collect());
    assert_eq!(n, 1);
    // The same with two groups of two: the idle work-items change nothing.
    let (o, r) = outcomes(
        &builder(MemoryModel::Src11, Strategy::Exhaustive),
        single_work_item(one_to(4), Launch::new(2, 2)),
    );
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(o, [10].into_iter().collect());
    assert_eq!(r.executions(), 1);
}

#[test]
fn global_atomics_sum_in_every_order() {
    // Three work-items: the three relaxed RMWs can land in mo in 3! = 6
    // orders, each one execution, all summing to 6. Cross-checked.
    let (o, n) = both(
        MemoryModel::Src11,
        global_atomics(one_to(3), Launch::new(1, 3), Scope::Device),
    );
    assert_eq!(o, [6].into_iter().collect());
    assert_eq!(n, 6);
    // Four work-items in two work-groups: device scope covers both groups,
    // so there is no scope mismatch; 4! = 24 executions, all summing to 10.
    let (o, r) = outcomes(
        &builder(MemoryModel::Src11, Strategy::Exhaustive),
        global_atomics(one_to(4), Launch::new(2, 2), Scope::Device),
    );
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(o, [10].into_iter().collect());
    assert_eq!(r.executions(), 24);
}

#[test]
fn global_atomics_at_work_group_scope_across_groups_are_a_scope_mismatch() {
    // The same kernel with memory_scope::work_group and two work-groups: the
    // RMWs of different groups do not include each other's work-item.
    let r = explore(|| global_atomics(one_to(4), Launch::new(2, 2), Scope::Block)(&|_| {}));
    let f = the_failure(&r, FailureKind::HeterogeneousRace);
    assert_eq!(race_space(f).0, Space::Global);
    assert_eq!(
        f.fix().map(|s| s.starts_with("use device scope")),
        Some(true),
        "{:?}",
        f.fix()
    );
}

#[test]
fn tree_reduction_sums_in_one_execution() {
    // Two work-items, two elements: one round; cross-checked.
    let (o, n) = both(MemoryModel::Src11, tree_reduction(one_to(2), 2, Tree::Seed));
    assert_eq!(o, [3].into_iter().collect());
    assert_eq!(n, 1);
    // Four work-items over eight elements: two rounds, two barriers.
    let (o, r) = outcomes(
        &builder(MemoryModel::Src11, Strategy::Exhaustive),
        tree_reduction(one_to(8), 4, Tree::Seed),
    );
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(o, [36].into_iter().collect());
    assert_eq!(r.executions(), 1);
}

#[test]
fn dropping_either_barrier_of_the_tree_is_a_race_on_scratch() {
    for stride in [2, 1] {
        let r = explore(|| tree_reduction(one_to(8), 4, Tree::DropBarrier(stride))(&|_| {}));
        let f = the_failure(&r, FailureKind::DataRace);
        let (space, what) = race_space(f);
        assert_eq!(space, Space::Local, "stride {stride}: the race is on the scratch array");
        // One side writes scratch, the other reads it; both plain.
        assert!(
            what.iter().any(|w| w.starts_with("store(na)")) && what.iter().any(|w| w.starts_with("load(na)")),
            "stride {stride}: {what:?}"
        );
    }
}

#[test]
fn a_barrier_only_active_work_items_reach_is_divergence() {
    let r = explore(|| tree_reduction(one_to(8), 4, Tree::BarrierInBranch)(&|_| {}));
    let f = the_failure(&r, FailureKind::BarrierDivergence);
    // In the first round work-items 0 and 1 wait; 2 and 3 skip the barrier.
    assert!(f.message().contains("2 of its 4 threads"), "{}", f.message());
}

/// A release/acquire pair after a local-only barrier still orders global
/// memory (atomics order both spaces; `space.rs`, rules 2 and 5), and the
/// barrier still orders local memory on the way.
#[test]
fn atomics_order_both_spaces_across_a_local_barrier() {
    let body = |rec: &dyn Fn((u32, u32))| {
        let data = Buffer::new(1, 0u32);
        let flag = Buffer::new(1, 0u32);
        let seen = Buffer::new(2, 0u32);
        launch(
            Launch::new(1, 2),
            |_| Buffer::<u32>::local(1),
            |ctx| {
                if ctx.thread_idx() == 0 {
                    ctx.shared().set(0, 7);
                    data.set(0, 5);
                    flag.atomic(0).store(1, Ordering::Release, Scope::Block);
                }
                ctx.barrier(FenceSpace::Local);
                if ctx.thread_idx() == 1 && flag.atomic(0).load(Ordering::Acquire, Scope::Block) == 1 {
                    seen.set(0, data.get(0));
                    seen.set(1, ctx.shared().get(0));
                }
            },
        );
        rec((seen.get(0), seen.get(1)));
    };
    let (o, n) = both(MemoryModel::Src11, body);
    // The acquire reads the release (5 and 7 seen) or the initial 0 (then
    // the branch is skipped): two executions, no race.
    assert_eq!(o, [(0, 0), (5, 7)].into_iter().collect());
    assert_eq!(n, 2);
}

/// Thread 0 and 1 meeting at one barrier call with different fence spaces
/// (a fence chosen at run time) diverge.
#[test]
fn one_barrier_call_with_different_fences_is_divergence() {
    let r = explore(|| {
        launch(
            Launch::new(1, 2),
            |_| (),
            |ctx| {
                let fence = if ctx.thread_idx() == 0 {
                    FenceSpace::Local
                } else {
                    FenceSpace::Global
                };
                ctx.barrier(fence);
            },
        )
    });
    let f = the_failure(&r, FailureKind::BarrierDivergence);
    assert!(f.message().contains("fencing local memory") && f.message().contains("fencing global memory"));
}
