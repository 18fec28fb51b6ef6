//! One atomic core (issue 19 item 4): the std-shaped atomics, `AtomicRef`,
//! `Buffer::atomic` and memory-kind atomics all act on the same kind of
//! checker location, so they combine: an `AtomicRef` over a `Buffer`
//! element (seed 002's `atomic_ref<int, ...>(sum_acc[0])`), an `AtomicRef`
//! over a `Plain` cell in a memory kind, and a `Buffer` allocated in a
//! memory kind. Each combination with its exact outcome set, execution count
//! or verdict.

mod common;

use common::{both, builder, outcomes, race_space, the_failure};
use scopecheck::gpu::{launch, Buffer, DeviceAttributes, Launch, MemoryKind, Platform};
use scopecheck::scope::{Placement, Scope};
use scopecheck::sync::atomic::Ordering;
use scopecheck::sync::atomic_ref::{address_space, memory_order, memory_scope, thread_scope, AtomicRef, Plain};
use scopecheck::sync::Arc;
use scopecheck::thread::{spawn, spawn_at};
use scopecheck::{FailureKind, MemoryModel, Report, Strategy};
use std::collections::BTreeSet;

fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    items.into_iter().collect()
}

// ------------------------------------------------- AtomicRef over a Buffer

/// Seed 002's second kernel as the seed writes it: every work-item adds its
/// element through `atomic_ref<int, memory_order::relaxed, scope,
/// address_space::global_space>(sum_acc[0])`.
fn seed_002_atomic_ref(n: u32, cfg: Launch, scope: Scope) -> impl Fn(&dyn Fn(u32)) + Clone {
    move |rec: &dyn Fn(u32)| {
        let data: Vec<u32> = (1..=n).collect();
        let buf = Buffer::from_slice(&data);
        let sum_buf = Buffer::new(1, 0u32);
        launch(
            cfg,
            |_| (),
            |ctx| {
                let glob_id = ctx.global_idx() as usize;
                let v = AtomicRef::sycl_in(sum_buf.at(0), memory_order::relaxed, scope, address_space::global_space);
                v.fetch_add(buf.get(glob_id));
            },
        );
        rec(sum_buf.get(0));
    }
}

#[test]
fn seed_002_atomic_ref_over_a_buffer_element_sums_in_every_order() {
    // 3! mo orders of the three relaxed RMWs, all summing to 6; cross-checked.
    let (o, n) = both(
        MemoryModel::Src11,
        seed_002_atomic_ref(3, Launch::new(1, 3), memory_scope::device),
    );
    assert_eq!(o, set([6]));
    assert_eq!(n, 6);
    // Two work-groups of two at device scope: 4! orders, no scope mismatch.
    let (o, r) = outcomes(
        &builder(MemoryModel::Src11, Strategy::Exhaustive),
        seed_002_atomic_ref(4, Launch::new(2, 2), memory_scope::device),
    );
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(o, set([10]));
    assert_eq!(r.executions(), 24);
}

#[test]
fn seed_002_atomic_ref_at_work_group_scope_across_groups_is_a_scope_mismatch() {
    let r = builder(MemoryModel::Src11, Strategy::Exhaustive).explore(|| {
        seed_002_atomic_ref(4, Launch::new(2, 2), memory_scope::work_group)(&|_| {});
    });
    let f = the_failure(&r, FailureKind::HeterogeneousRace);
    assert!(f.fix().unwrap().starts_with("use device scope"), "{:?}", f.fix());
}

/// `buf.atomic(0)`, an `AtomicRef` on `buf.at(0)` and the element's DRFrlx
/// operations are one location: their RMWs add up and are ordered in mo
/// like any three RMWs of one location (3! = 6 executions).
#[test]
fn every_front_end_on_one_buffer_element_is_one_location() {
    let (o, n) = both(MemoryModel::Src11, |rec: &dyn Fn(u32)| {
        let sum = Buffer::new(1, 0u32);
        launch(
            Launch::new(1, 3),
            |_| (),
            |ctx| match ctx.thread_idx() {
                0 => {
                    sum.atomic(0).fetch_add(1, Ordering::Relaxed, Scope::Device);
                }
                1 => {
                    AtomicRef::cuda(sum.at(0), thread_scope::device).fetch_add_with(2, memory_order::relaxed);
                }
                _ => AtomicRef::sycl(sum.at(0), memory_order::relaxed, memory_scope::device)
                    .rlx(None)
                    .fetch_add(4)
                    .discard(),
            },
        );
        rec(sum.get(0));
    });
    assert_eq!(o, set([7]));
    assert_eq!(n, 6);
}

/// A plain read of a buffer element racing an `AtomicRef` store to it is a
/// data race, as for any other plain access.
#[test]
fn a_plain_read_racing_an_atomic_ref_on_the_element_is_a_data_race() {
    let r = builder(MemoryModel::Src11, Strategy::Exhaustive).explore(|| {
        let b = Buffer::new(2, 0u32);
        launch(
            Launch::new(1, 2),
            |_| (),
            |ctx| {
                if ctx.thread_idx() == 0 {
                    AtomicRef::cuda(b.at(1), thread_scope::block).store(1);
                } else {
                    let _ = b.get(1);
                }
            },
        );
    });
    let f = the_failure(&r, FailureKind::DataRace);
    let (_, what) = race_space(f);
    assert!(what.iter().any(|w| w.starts_with("load(na)")), "{what:?}");
    assert!(what.iter().any(|w| w.starts_with("store(sc)")), "{what:?}");
}

/// A buffer element has its buffer's address space, so asserting another
/// one is SYCL's undefined behaviour, reported at the call.
#[test]
fn an_atomic_ref_asserting_another_space_than_the_buffers_panics() {
    let r = builder(MemoryModel::Src11, Strategy::Exhaustive).explore(|| {
        let b = Buffer::new(1, 0u32);
        let _ = AtomicRef::sycl_in(
            b.at(0),
            memory_order::relaxed,
            memory_scope::device,
            address_space::local_space,
        );
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(
        f.message().contains("asserts address_space::local_space") && f.message().contains("was made in global_space"),
        "{}",
        f.message()
    );
    // And a local buffer's element is in local_space.
    let r = builder(MemoryModel::Src11, Strategy::Exhaustive).explore(|| {
        launch(
            Launch::new(1, 1),
            |_| Buffer::<u32>::local(1),
            |ctx| {
                let r = AtomicRef::sycl_in(
                    ctx.shared().at(0),
                    memory_order::relaxed,
                    memory_scope::work_group,
                    address_space::local_space,
                );
                r.fetch_add(1);
                assert_eq!(r.load(), 1);
            },
        );
    });
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(r.executions(), 1);
}

#[test]
fn an_out_of_bounds_element_panics_at_the_call() {
    let r = builder(MemoryModel::Src11, Strategy::Exhaustive).explore(|| {
        let b = Buffer::new(2, 0u32);
        let _ = AtomicRef::cuda(b.at(2), thread_scope::device);
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(
        f.message()
            .contains("the global buffer has 2 elements but the index is 2"),
        "{}",
        f.message()
    );
}

// --------------------------------------------------------- memory kinds

/// What a run concluded: no failure after this many executions, or a data
/// race whose cause names this attribute.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Atomic(u64),
    Plain(&'static str),
}

fn verdict(r: &Report) -> Verdict {
    match r.failures() {
        [] => {
            assert!(r.is_complete(), "{r}");
            Verdict::Atomic(r.executions())
        }
        [f] => {
            assert_eq!(f.kind(), FailureKind::DataRace, "{r}");
            let cause = f.cause().expect("the race says why the atomic is plain");
            assert!(cause.contains("seed 001, Atomicity"), "{cause}");
            let names = [
                "concurrentManagedAccess",
                "hostNativeAtomicSupported",
                "pageableMemoryAccess",
            ];
            let named: Vec<&str> = names.into_iter().filter(|n| cause.contains(n)).collect();
            assert_eq!(named.len(), 1, "{cause}");
            Verdict::Plain(named[0])
        }
        _ => panic!("more than one failure: {r}"),
    }
}

/// How the memory-kind location is made and accessed.
#[derive(Copy, Clone, Debug)]
enum Front {
    /// `Plain::in_memory(kind, 0)` through `AtomicRef::cuda(.., scope)`.
    PlainRef,
    /// `Buffer::new_in(kind, 2, 0)`, element 1, through `atomic(1)`.
    BufferAtomic,
    /// `Buffer::new_in(kind, 2, 0)`, element 1, through an `AtomicRef` on `at(1)`.
    BufferRef,
}

/// A host thread and a GPU thread each `fetch_add(1)` at `scope`, unordered.
fn host_and_gpu(front: Front, kind: MemoryKind, attrs: DeviceAttributes, scope: Scope) -> Verdict {
    pair(front, kind, attrs, scope, true)
}

/// Two threads each `fetch_add(1)` at `scope`, unordered: the first a host
/// thread (`host`) or a GPU thread of block 1, the second a GPU thread of
/// block 0.
fn pair(front: Front, kind: MemoryKind, attrs: DeviceAttributes, scope: Scope, host: bool) -> Verdict {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive).platform(Platform::new(attrs));
    let r = b.explore(move || {
        let cell = Arc::new(Plain::in_memory(kind, 0u32));
        let buf = Arc::new(Buffer::new_in(kind, 2, 0u32));
        assert_eq!((cell.memory_kind(), buf.memory_kind()), (Some(kind), Some(kind)));
        let add = move |cell: &Plain<u32>, buf: &Buffer<u32>| match front {
            Front::PlainRef => AtomicRef::cuda(cell, scope).fetch_add_with(1, memory_order::relaxed),
            Front::BufferAtomic => buf.atomic(1).fetch_add(1, Ordering::Relaxed, scope),
            Front::BufferRef => AtomicRef::cuda(buf.at(1), scope).fetch_add_with(1, memory_order::relaxed),
        };
        let (c1, b1) = (cell.clone(), buf.clone());
        let first = if host {
            spawn(move || {
                add(&c1, &b1);
            })
        } else {
            spawn_at(Placement::gpu(0, 1, 0, 0), move || {
                add(&c1, &b1);
            })
        };
        let gpu = spawn_at(Placement::gpu(0, 0, 0, 0), move || {
            add(&cell, &buf);
        });
        first.join().unwrap();
        gpu.join().unwrap();
    });
    verdict(&r)
}

#[test]
fn system_scope_atomics_on_plain_cells_and_buffers_follow_their_memory_kind() {
    use Verdict::*;
    let none = DeviceAttributes::NONE;
    let cases = [
        (MemoryKind::Managed, "concurrentManagedAccess"),
        (MemoryKind::Mapped, "hostNativeAtomicSupported"),
        (MemoryKind::System, "pageableMemoryAccess"),
    ];
    for front in [Front::PlainRef, Front::BufferAtomic, Front::BufferRef] {
        for (kind, attr) in cases {
            // Without the attribute a system-scope RMW is a plain access.
            assert_eq!(
                host_and_gpu(front, kind, none, Scope::System),
                Plain(attr),
                "{front:?} {kind:?}"
            );
            // With it, the two RMWs in either mo order.
            assert_eq!(
                host_and_gpu(front, kind, DeviceAttributes::ALL, Scope::System),
                Atomic(2),
                "{front:?} {kind:?}"
            );
        }
    }
}

/// Seed 001: an object in GPU memory is atomic at system scope only if no
/// host thread accesses it; a device buffer reached by two GPU threads of
/// one device is atomic, one reached by a host thread is not.
#[test]
fn a_device_buffer_is_atomic_between_gpu_threads_only() {
    let run = |host: bool| {
        let b = builder(MemoryModel::Src11, Strategy::Exhaustive).platform(Platform::new(DeviceAttributes::ALL));
        b.explore(move || {
            let buf = Arc::new(Buffer::on_device(0, 1, 0u32));
            assert_eq!(buf.memory_kind(), Some(MemoryKind::Device));
            let b1 = buf.clone();
            let first = if host {
                spawn(move || {
                    AtomicRef::cuda(b1.at(0), thread_scope::system).fetch_add(1);
                })
            } else {
                spawn_at(Placement::gpu(0, 1, 0, 0), move || {
                    AtomicRef::cuda(b1.at(0), thread_scope::system).fetch_add(1);
                })
            };
            let second = spawn_at(Placement::gpu(0, 0, 0, 0), move || {
                buf.atomic(0).fetch_add(1, Ordering::Relaxed, Scope::System);
            });
            first.join().unwrap();
            second.join().unwrap();
        })
    };
    let r = run(false);
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(r.executions(), 2);
    let r = run(true);
    let f = the_failure(&r, FailureKind::DataRace);
    assert!(f.cause().unwrap().contains("host thread"), "{:?}", f.cause());
}

/// Narrower scopes are atomic in every memory kind, through every front
/// end, between two GPU threads of one device (without any attribute).
#[test]
fn device_scope_is_atomic_in_every_kind_through_every_front_end() {
    for front in [Front::PlainRef, Front::BufferAtomic, Front::BufferRef] {
        for kind in [MemoryKind::Managed, MemoryKind::Mapped, MemoryKind::System] {
            assert_eq!(
                pair(front, kind, DeviceAttributes::NONE, Scope::Device, false),
                Verdict::Atomic(2),
                "{front:?} {kind:?}"
            );
            // The same at system scope: only the memory kind's rule can
            // make it plain, and here the attribute is missing.
            assert!(
                matches!(
                    pair(front, kind, DeviceAttributes::NONE, Scope::System, false),
                    Verdict::Plain(_)
                ),
                "{front:?} {kind:?}"
            );
        }
    }
}

/// Outcomes through a buffer in managed memory are those of any buffer:
/// message passing with a release/acquire flag pair in one element, data in
/// the other, read back after the kernel.
#[test]
fn message_passing_through_a_managed_buffer() {
    let (o, n) = both(MemoryModel::Src11, |rec: &dyn Fn((u32, u32))| {
        let buf = Buffer::new_in(MemoryKind::Managed, 2, 0u32);
        let seen = Buffer::new(2, 0u32);
        launch(
            Launch::new(2, 1),
            |_| (),
            |ctx| {
                if ctx.block_idx() == 0 {
                    buf.set(0, 42);
                    AtomicRef::cuda(buf.at(1), thread_scope::device).store_with(1, memory_order::release);
                } else {
                    let f = buf.atomic(1).load(Ordering::Acquire, Scope::Device);
                    seen.set(0, f);
                    if f == 1 {
                        seen.set(1, buf.get(0));
                    }
                }
            },
        );
        rec((seen.get(0), seen.get(1)));
    });
    assert_eq!(o, set([(0, 0), (1, 42)]));
    assert_eq!(n, 2);
}
