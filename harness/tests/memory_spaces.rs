//! The memory-space rules of `checker/src/space.rs` one by one, on small
//! kernels, each cross-checked with the reference enumerator (which derives
//! hb per space from the relations, independently of the clocks).

mod common;

use common::{both, builder, race_space, the_failure};
use scopecheck::gpu::{launch, Buffer, FenceSpace, Launch, Space};
use scopecheck::scope::Scope;
use scopecheck::sync::atomic::Ordering;
use scopecheck::{FailureKind, MemoryModel, Strategy};

/// Rule 4 (coherence per space): work-item 0 stores 1 relaxed into an
/// atomic element in `space`, both pass a barrier fencing `fence`, work-item
/// 1 loads it relaxed. If the barrier fences the space, the store is in the
/// load's view and coherence forces 1 (one execution); if not, the load may
/// also read the initial 0 (two executions). Atomics never race here.
fn atomic_handoff(space: Space, fence: FenceSpace) -> impl Fn(&dyn Fn(u32)) + Clone {
    move |rec: &dyn Fn(u32)| {
        let global = Buffer::new(1, 0u32);
        let seen = Buffer::new(1, 0u32);
        launch(
            Launch::new(1, 2),
            |_| Buffer::<u32>::local(1),
            |ctx| {
                let buf = if space == Space::Global { &global } else { ctx.shared() };
                if ctx.thread_idx() == 0 {
                    buf.atomic(0).store(1, Ordering::Relaxed, Scope::Block);
                }
                ctx.barrier(fence);
                if ctx.thread_idx() == 1 {
                    seen.set(0, buf.atomic(0).load(Ordering::Relaxed, Scope::Block));
                }
            },
        );
        rec(seen.get(0));
    }
}

#[test]
fn coherence_uses_the_hb_of_the_locations_space() {
    for (space, fence, outcomes, executions) in [
        (Space::Global, FenceSpace::Both, vec![1], 1),
        (Space::Global, FenceSpace::Global, vec![1], 1),
        (Space::Global, FenceSpace::Local, vec![0, 1], 2),
        (Space::Local, FenceSpace::Both, vec![1], 1),
        (Space::Local, FenceSpace::Local, vec![1], 1),
        (Space::Local, FenceSpace::Global, vec![0, 1], 2),
    ] {
        let (o, n) = both(MemoryModel::Src11, atomic_handoff(space, fence));
        assert_eq!(
            o,
            outcomes.into_iter().collect(),
            "{space} atomic across a {fence} barrier"
        );
        assert_eq!(n, executions, "{space} atomic across a {fence} barrier");
    }
}

/// Rule 5 (paths mix the rules): in block 0, work-item 0 writes global
/// data, both work-items pass a barrier, then work-item 1 releases a flag at
/// device scope; in block 1, work-item 0 acquires the flag and reads the
/// data. The path write -> barrier -> release -> acquire -> read is in hb of
/// global memory only if the barrier fences global memory; with a
/// local-only barrier the read races with the write, and the report names
/// the barrier's fence.
#[test]
fn a_barrier_edge_then_release_acquire_orders_only_the_barriers_spaces() {
    let body = |fence: FenceSpace| {
        move || {
            let data = Buffer::new(1, 0u32);
            let flag = Buffer::new(1, 0u32);
            launch(
                Launch::new(2, 2),
                |_| (),
                |ctx| match (ctx.block_idx(), ctx.thread_idx()) {
                    (0, t) => {
                        if t == 0 {
                            data.set(0, 5);
                        }
                        ctx.barrier(fence);
                        if t == 1 {
                            flag.atomic(0).store(1, Ordering::Release, Scope::Device);
                        }
                    }
                    (_, t) => {
                        ctx.barrier(FenceSpace::Both);
                        if t == 0 && flag.atomic(0).load(Ordering::Acquire, Scope::Device) == 1 {
                            let _ = data.get(0);
                        }
                    }
                },
            );
        }
    };
    for fence in [FenceSpace::Global, FenceSpace::Both] {
        for strategy in [Strategy::Exhaustive, Strategy::Reference] {
            let r = builder(MemoryModel::Src11, strategy).explore(body(fence));
            assert!(r.failures().is_empty(), "{fence}: {r}");
            // The acquire reads 0 or 1; with 1 the plain read has one candidate.
            assert_eq!(r.executions(), 2, "{fence}");
        }
    }
    for strategy in [Strategy::Exhaustive, Strategy::Reference] {
        let r = builder(MemoryModel::Src11, strategy).explore(body(FenceSpace::Local));
        let f = the_failure(&r, FailureKind::DataRace);
        assert!(f.message().contains("fences only local memory"), "{}", f.message());
    }
}

/// A race on local memory says so in its report.
#[test]
fn a_local_race_names_local_memory() {
    let r = builder(MemoryModel::Src11, Strategy::Exhaustive).explore(|| {
        launch(
            Launch::new(1, 2),
            |_| Buffer::<u32>::local(1),
            |ctx| {
                if ctx.thread_idx() == 0 {
                    ctx.shared().set(0, 1);
                } else {
                    let _ = ctx.shared().get(0);
                }
            },
        )
    });
    let f = the_failure(&r, FailureKind::DataRace);
    assert!(f.message().contains("in local memory (created at"), "{}", f.message());
}

/// Each block has its own instance of local memory: the same index in two
/// blocks is two locations, so writes of different blocks never race.
#[test]
fn each_block_has_its_own_local_memory() {
    let body = |rec: &dyn Fn(Vec<u32>)| {
        let out = Buffer::new(2, 0u32);
        launch(
            Launch::new(2, 1),
            |_| Buffer::<u32>::local(1),
            |ctx| {
                let b = ctx.block_idx();
                ctx.shared().set(0, 10 + b);
                ctx.sync_threads();
                out.set(b as usize, ctx.shared().get(0));
            },
        );
        rec(out.to_vec());
    };
    let (o, n) = both(MemoryModel::Src11, body);
    assert_eq!(o, [vec![10, 11]].into_iter().collect());
    assert_eq!(n, 1);
}

/// Out-of-bounds indices panic at the caller, like a slice's.
#[test]
fn an_index_out_of_bounds_is_the_users_panic() {
    let r = builder(MemoryModel::Src11, Strategy::Exhaustive).explore(|| {
        let b = Buffer::new(2, 0u8);
        b.set(2, 1);
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(
        f.message()
            .contains("index out of bounds: the global buffer has 2 elements but the index is 2"),
        "{}",
        f.message()
    );
    // The panic is located at the test's `set` call.
    assert!(f.message().contains(&format!("(at {}:", file!())), "{}", f.message());
}

/// Signed elements wrap and compare as their type does.
#[test]
fn signed_elements_wrap_and_compare_signed() {
    let (o, n) = both(MemoryModel::Src11, |rec: &dyn Fn((i8, i8, i8))| {
        let b = Buffer::from_slice(&[-3i8, 127]);
        let old_min = b.atomic(0).fetch_min(-5, Ordering::Relaxed, Scope::System);
        b.atomic(1).fetch_add(1, Ordering::Relaxed, Scope::System);
        rec((old_min, b.get(0), b.get(1)));
    });
    assert_eq!(o, [(-3, -5, -128)].into_iter().collect());
    assert_eq!(n, 1);
}

/// One local buffer made on the host and shared by two blocks is a misuse:
/// local memory has one instance per block. Work-items index it by their
/// local id, which repeats in every block, so an element is reached from
/// both blocks (the check is per element).
#[test]
fn local_memory_shared_by_two_blocks_is_a_misuse() {
    let r = builder(MemoryModel::Src11, Strategy::Exhaustive).explore(|| {
        let scratch = Buffer::<u32>::local(1);
        launch(
            Launch::new(2, 1),
            |_| (),
            |ctx| scratch.set(ctx.thread_idx() as usize, 1),
        )
    });
    let f = the_failure(&r, FailureKind::Misuse);
    assert!(f.message().contains("is used by two blocks"), "{}", f.message());
    assert!(f.fix().unwrap_or_default().contains("per-block closure"));
}

/// The host cannot reach local memory.
#[test]
fn local_memory_on_the_host_is_a_misuse() {
    let r = builder(MemoryModel::Src11, Strategy::Exhaustive).explore(|| {
        let scratch = Buffer::<u32>::local(1);
        let _ = scratch.get(0);
    });
    let f = the_failure(&r, FailureKind::Misuse);
    assert!(
        f.message().contains("(a host thread) accessed local memory"),
        "{}",
        f.message()
    );
}

/// What one work-item does to the shared element.
#[derive(Copy, Clone, Debug)]
enum Access {
    PlainWrite,
    AtomicWrite,
    PlainRead,
    AtomicRead,
}

/// The clocks (exhaustive explorer) and the relations (reference
/// enumerator) agree on every two-work-item handoff across a barrier: each
/// space, each fence, each pair of accesses before and after it. Where the
/// barrier fences the element's space the pair is ordered (no race, reads
/// see the write, one execution); elsewhere a plain access races (and the
/// report says the barrier fences only the other space, and how to fix it)
/// and two atomics are unordered (an atomic read may see either value; two
/// stores take either order: two executions).
#[test]
fn clocks_and_relations_agree_on_every_handoff() {
    use Access::*;
    let mut racy = 0;
    let mut programs = 0;
    for space in [Space::Global, Space::Local] {
        for fence in [FenceSpace::Local, FenceSpace::Global, FenceSpace::Both] {
            for first in [PlainWrite, AtomicWrite] {
                for second in [PlainWrite, AtomicWrite, PlainRead, AtomicRead] {
                    let body = move |rec: &dyn Fn(u32)| {
                        let global = Buffer::new(1, 0u32);
                        let seen = Buffer::new(1, 9u32);
                        launch(
                            Launch::new(1, 2),
                            |_| Buffer::<u32>::local(1),
                            |ctx| {
                                let buf = if space == Space::Global { &global } else { ctx.shared() };
                                let me = ctx.thread_idx();
                                let act = |a: Access| match a {
                                    PlainWrite => buf.set(0, 1 + me),
                                    AtomicWrite => buf.atomic(0).store(1 + me, Ordering::Relaxed, Scope::Block),
                                    PlainRead => seen.set(0, buf.get(0)),
                                    AtomicRead => seen.set(0, buf.atomic(0).load(Ordering::Relaxed, Scope::Block)),
                                };
                                if me == 0 {
                                    act(first);
                                }
                                ctx.barrier(fence);
                                if me == 1 {
                                    act(second);
                                }
                            },
                        );
                        rec(seen.get(0));
                    };
                    let what = format!("{first:?} / {fence} barrier / {second:?} on {space} memory");
                    let (o1, r1) = common::outcomes(&builder(MemoryModel::Src11, Strategy::Exhaustive), body);
                    let (o2, r2) = common::outcomes(&builder(MemoryModel::Src11, Strategy::Reference), body);
                    let kinds = |r: &scopecheck::Report| r.failures().iter().map(|f| f.kind()).collect::<Vec<_>>();
                    assert_eq!(kinds(&r1), kinds(&r2), "{what}");
                    programs += 1;
                    let plain = matches!(first, PlainWrite) || matches!(second, PlainWrite | PlainRead);
                    if fence.fences(space) || !plain {
                        assert!(r1.failures().is_empty(), "{what}: {r1}");
                        assert_eq!(o1, o2, "{what}");
                        assert_eq!(r1.executions(), r2.executions(), "{what}");
                        let expect: Vec<u32> = match (second, fence.fences(space)) {
                            (PlainRead | AtomicRead, true) => vec![1],
                            (AtomicRead, false) => vec![0, 1],
                            _ => vec![9],
                        };
                        assert_eq!(o1, expect.into_iter().collect(), "{what}");
                        assert_eq!(r1.executions(), if fence.fences(space) { 1 } else { 2 }, "{what}");
                    } else {
                        let other = if space == Space::Global { "local" } else { "global" };
                        for r in [&r1, &r2] {
                            let f = the_failure(r, FailureKind::DataRace);
                            assert_eq!(race_space(f).0, space, "{what}");
                            let cause = f.cause().unwrap_or_default();
                            assert!(
                                cause.contains(&format!(
                                    "fences only {other} memory, and this location is in {space} memory"
                                )),
                                "{what}: {cause}"
                            );
                            assert!(
                                f.fix().unwrap_or_default().contains("FenceSpace::Both"),
                                "{what}: {:?}",
                                f.fix()
                            );
                        }
                        racy += 1;
                    }
                }
            }
        }
    }
    // 2 spaces x 3 fences x 2 x 4 accesses; the racy ones are the pairs with
    // a plain access (6 of the 8) across the fence that misses the space (2 of 6).
    assert_eq!((programs, racy), (48, 12));
}

/// A release fence reaches only writes of its own thread (C11's `[F]; sb`):
/// work-item 0 of block 0 writes data (relaxed) and fences (release), the
/// block passes a barrier, work-item 1 stores a flag relaxed, and a
/// work-item of block 1 acquires the flag and reads data. The barrier does
/// not carry work-item 0's fence to work-item 1's store, so nothing orders
/// data for block 1: having seen the flag, it may still read data's initial
/// value. The clocks and the relations must agree on that.
#[test]
fn a_release_fence_does_not_cross_a_barrier() {
    let body = |rec: &dyn Fn((u32, u32))| {
        let data = Buffer::new(1, 0u32);
        let flag = Buffer::new(1, 0u32);
        let seen = Buffer::new(2, 9u32);
        launch(
            Launch::new(2, 2),
            |_| (),
            |ctx| match (ctx.block_idx(), ctx.thread_idx()) {
                (0, t) => {
                    if t == 0 {
                        data.atomic(0).store(5, Ordering::Relaxed, Scope::Device);
                        scopecheck::sync::atomic::fence_scoped(Ordering::Release, Scope::Device);
                    }
                    ctx.sync_threads();
                    if t == 1 {
                        flag.atomic(0).store(1, Ordering::Relaxed, Scope::Device);
                    }
                }
                (_, t) => {
                    if t == 0 {
                        let f = flag.atomic(0).load(Ordering::Acquire, Scope::Device);
                        seen.set(0, f);
                        if f == 1 {
                            seen.set(1, data.atomic(0).load(Ordering::Relaxed, Scope::Device));
                        }
                    }
                    ctx.sync_threads();
                }
            },
        );
        rec((seen.get(0), seen.get(1)));
    };
    let (o, n) = both(MemoryModel::Src11, body);
    assert_eq!(o, [(0, 9), (1, 0), (1, 5)].into_iter().collect());
    assert_eq!(n, 3);
}
