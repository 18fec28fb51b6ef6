//! Scopes: CUDA message passing at device and block scope, per-call scope
//! overrides, races between plain and atomic accesses, and GPU local and
//! global memory.

use super::*;

/// Where `needle` stands in this file, as reports name it.
fn at(needle: &str) -> String {
    position(file!(), include_str!("scopes.rs"), needle)
}

/// Seed 001's message passing with `cuda::atomic_ref`s: thread 0 of block
/// 0 writes `x` plainly and raises the flag through a reference at
/// `store_scope`; thread 0 of block 1 waits through a device-scope one.
fn cuda_mp(store_scope: scopecheck::scope::Scope) -> impl Fn(&dyn Fn((i32, i32))) + Clone {
    move |rec: &dyn Fn((i32, i32))| {
        let x = Arc::new(Plain::new(0i32));
        let f = Arc::new(Plain::new(0i32));
        let (x0, f0) = (x.clone(), f.clone());
        let w = spawn_at(Placement::gpu(0, 0, 0, 0), move || {
            x0.write(42);
            AtomicRef::cuda(&*f0, store_scope).store_with(1, Ordering::Release);
        });
        let (x1, f1) = (x.clone(), f.clone());
        let r = spawn_at(Placement::gpu(0, 1, 0, 0), move || {
            let flag = AtomicRef::cuda(&*f1, thread_scope::device);
            let seen = flag.load_with(Ordering::Acquire);
            (seen, if seen == 1 { x1.read() } else { 0 })
        });
        w.join().unwrap();
        rec(r.join().unwrap());
    }
}

#[test]
fn cuda_device_scope_message_passing_is_correct() {
    let (o, n) = both(MemoryModel::Src11, cuda_mp(thread_scope::device));
    assert_eq!(o, set([(0, 0), (1, 42)]));
    assert_eq!(n, 2);
}

#[test]
fn cuda_block_scope_flag_is_a_heterogeneous_race_and_lets_a_data_race_through() {
    let mut b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    b.record_races = true;
    let (o, r) = outcomes(&b, cuda_mp(thread_scope::block));
    let mut kinds: Vec<FailureKind> = r.failures().iter().map(|f| f.kind()).collect();
    kinds.sort_by_key(|k| k.name());
    assert_eq!(
        kinds,
        vec![FailureKind::DataRace, FailureKind::HeterogeneousRace],
        "{r}"
    );
    for f in r.failures() {
        assert!(f.fix().unwrap().starts_with("use device scope"), "{:?}", f.fix());
    }
    // The flag's store and load race whatever the load reads; once the flag
    // is seen, `x` is not published to the reader, which may read 0.
    assert_eq!(o, set([(0, 0), (1, 0), (1, 42)]));
    assert_eq!((r.executions(), r.racy_executions()), (3, 3));
}

/// Without a default, a per-call scope fixes the block-scope reference.
#[test]
fn a_per_call_scope_overrides_the_default_scope() {
    let (o, n) = both(MemoryModel::Src11, |rec: &dyn Fn(u32)| {
        let c = Arc::new(Plain::new(0u32));
        let hs: Vec<_> = (0..2)
            .map(|b| {
                let c = c.clone();
                spawn_at(Placement::gpu(0, b, 0, 0), move || {
                    let r = AtomicRef::sycl(&*c, memory_order::relaxed, memory_scope::work_group);
                    r.fetch_add_scoped(1, memory_order::relaxed, memory_scope::device);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        rec(c.read());
    });
    assert_eq!(o, set([2]));
    assert_eq!(n, 2);
}

/// Plain accesses of a cell that is also used atomically are race-checked.
#[test]
fn a_plain_read_racing_an_atomic_write_is_a_data_race() {
    let r = builder(MemoryModel::Src11, Strategy::Exhaustive).explore(|| {
        let c = Arc::new(Plain::new(0u32));
        let c1 = c.clone();
        let t = spawn(move || {
            AtomicRef::sycl(&*c1, memory_order::seq_cst, memory_scope::system).store(1);
        });
        let _ = c.read();
        t.join().unwrap();
    });
    the_failure(&r, FailureKind::DataRace);
}

/// docs/atomic-ref.md's first example: a device-scope counter bumped by
/// the four work-items of two work-groups is correct (one execution per
/// order of the four RMWs); at work-group scope it is a heterogeneous race.
#[test]
fn the_docs_counter_example() {
    use scopecheck::gpu::{launch, Launch};
    let counter = |scope| {
        move || {
            let count = Plain::new(0u32);
            launch(
                Launch::new(2, 2),
                |_| (),
                |_item| {
                    AtomicRef::sycl(&count, memory_order::relaxed, scope).fetch_add(1);
                },
            );
            assert_eq!(count.read(), 4);
        }
    };
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(counter(memory_scope::device));
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(r.executions(), 24);
    let r = b.explore(counter(memory_scope::work_group));
    the_failure(&r, FailureKind::HeterogeneousRace);
}

/// Seed 002's third reduction, in miniature: each work-group counts into
/// its own local-memory cell at work-group scope, waits at the
/// work-group barrier, and its first work-item adds the group's count to a
/// global cell at device scope. Two work-groups of two: two orders of the
/// local adds in each group, two of the global adds.
#[test]
fn local_memory_counts_at_work_group_scope_and_global_at_device_scope() {
    use scopecheck::gpu::{launch, Launch};
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (o, r) = outcomes(&b, |rec: &dyn Fn((u32, u32))| {
        let total = Plain::global(0u32);
        let seen = [Plain::new(0u32), Plain::new(0u32)];
        launch(
            Launch::new(2, 2),
            |_| Plain::local(0u32),
            |item| {
                let local = || {
                    AtomicRef::sycl_in(
                        item.shared(),
                        memory_order::relaxed,
                        memory_scope::work_group,
                        address_space::local_space,
                    )
                };
                local().fetch_add(1);
                item.sync_threads();
                if item.thread_idx() == 0 {
                    let count = local().load();
                    seen[item.block_idx() as usize].write(count);
                    AtomicRef::sycl_in(
                        &total,
                        memory_order::relaxed,
                        memory_scope::device,
                        address_space::global_space,
                    )
                    .fetch_add(count);
                }
            },
        );
        assert_eq!(seen[0].read(), seen[1].read());
        rec((seen[0].read(), total.read()));
    });
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o, set([(2, 4)]));
    assert_eq!(r.executions(), 8);
}

/// A `Plain::local` cell lives in local memory: a barrier fencing only
/// local memory orders a handoff through it (one execution, no race), and
/// one fencing only global memory does not (a data race that names the
/// fence). The cell once sat in global memory whatever its address space.
#[test]
fn a_local_plain_cell_follows_local_barriers() {
    use scopecheck::gpu::{launch, FenceSpace, Launch};
    let handoff = |fence: FenceSpace| {
        let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
        outcomes(&b, |rec: &dyn Fn(u32)| {
            let got = Plain::new(0u32);
            launch(
                Launch::new(1, 2),
                |_| Plain::<u32>::local(0),
                |item| {
                    if item.thread_idx() == 0 {
                        item.shared().write(7);
                    }
                    item.barrier(fence);
                    if item.thread_idx() == 1 {
                        got.write(item.shared().read());
                    }
                },
            );
            rec(got.read());
        })
    };
    let (o, r) = handoff(FenceSpace::Local);
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!((o, r.executions()), (set([7]), 1));
    let (_, r) = handoff(FenceSpace::Global);
    let f = the_failure(&r, FailureKind::DataRace);
    let (write, read) = (at("write(7)"), at("got.write(item.shared().^read())"));
    assert_eq!(
        f.message(),
        format!(
            "data race on loc0.2 in local memory (created at {}): `store(na) loc0.2 := 7` (thread 1, {write}) and \
             `load(na) loc0.2 = 7 (rf T1.1)` (thread 2, {read}) conflict and neither happens before the other; \
             the barrier between {write} and {read} fences only global memory, and this location is in local memory",
            at("Plain::<u32>::local(0)")
        )
    );
}
