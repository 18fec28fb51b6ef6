//! Memory kinds (seed 001, "Atomicity"): whether a system-scope atomic is
//! atomic depends on the memory it affects and on the device attributes.
//! Each kind x attribute combination, for read-modify-writes and for loads
//! and stores, with the verdict and the attribute the report names.

mod common;

use common::{builder, the_failure};
use scopecheck::gpu::{alloc_in, alloc_on_device, launch, DeviceAttributes, Launch, MemoryKind, Platform};
use scopecheck::scope::Scope;
use scopecheck::sync::atomic::Ordering;
use scopecheck::{FailureKind, MemoryModel, Report, Strategy};

/// What a run concluded.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// No failure, after this many executions.
    Atomic(u64),
    /// A data race whose cause names this attribute (or condition).
    Plain(&'static str),
}

const NAMES: [&str; 5] = [
    "pageableMemoryAccess",
    "concurrentManagedAccess",
    "hostNativeAtomicSupported",
    "host thread",
    "cudaDevP2PAttrNativeAtomicSupported",
];

fn verdict(r: &Report) -> Verdict {
    match r.failures() {
        [] => {
            assert!(r.is_complete(), "{r}");
            Verdict::Atomic(r.executions())
        }
        [f] => {
            assert_eq!(f.kind(), FailureKind::DataRace, "{r}");
            let cause = f.cause().expect("the race says why the atomic is plain");
            assert!(f.message().ends_with(cause), "{}", f.message());
            assert!(cause.contains("seed 001, Atomicity"), "{cause}");
            let named: Vec<&str> = NAMES.into_iter().filter(|n| cause.contains(n)).collect();
            assert_eq!(named.len(), 1, "{cause}");
            Verdict::Plain(named[0])
        }
        _ => panic!("more than one failure: {r}"),
    }
}

/// The two accesses each test makes, by a host thread (thread 1) and a GPU
/// thread (thread 2, device 0), unordered.
#[derive(Copy, Clone, Debug)]
enum Pair {
    /// Both `fetch_add(1)`: two mo orders.
    Rmws,
    /// The GPU stores 1, the host loads: the load reads 0 or 1.
    StoreLoad,
}

fn host_and_gpu(kind: MemoryKind, attrs: DeviceAttributes, pair: Pair, scope: Scope) -> Verdict {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive).platform(Platform::new(attrs));
    let r = b.explore(move || {
        let x = alloc_in(kind, 0u32);
        scopecheck::thread::scope(|s| {
            s.spawn(|| match pair {
                Pair::Rmws => {
                    x.fetch_add(1, Ordering::Relaxed, scope);
                }
                Pair::StoreLoad => {
                    x.load(Ordering::Relaxed, scope);
                }
            });
            launch(
                Launch::new(1, 1),
                |_| (),
                |_| match pair {
                    Pair::Rmws => {
                        x.fetch_add(1, Ordering::Relaxed, scope);
                    }
                    Pair::StoreLoad => x.store(1, Ordering::Relaxed, scope),
                },
            );
        });
    });
    verdict(&r)
}

/// Every combination of the three attributes, as (name, attributes).
fn attribute_sets() -> Vec<(&'static str, DeviceAttributes)> {
    let mut v = Vec::new();
    for bits in 0..8u8 {
        let a = DeviceAttributes {
            concurrent_managed_access: bits & 1 != 0,
            host_native_atomic_supported: bits & 2 != 0,
            pageable_memory_access: bits & 4 != 0,
        };
        v.push((
            ["none", "cma", "hna", "cma+hna", "pma", "cma+pma", "hna+pma", "all"][bits as usize],
            a,
        ));
    }
    v
}

#[test]
fn system_scope_read_modify_writes_by_host_and_gpu() {
    use Verdict::*;
    for (name, a) in attribute_sets() {
        // Seed 001: "it affects an object in GPU memory, only GPU threads
        // access it, and ...": a host thread accesses it, whatever the attributes.
        assert_eq!(
            host_and_gpu(MemoryKind::Device, a, Pair::Rmws, Scope::System),
            Plain("host thread"),
            "{name}"
        );
        let want = |ok: bool, attr| if ok { Atomic(2) } else { Plain(attr) };
        assert_eq!(
            host_and_gpu(MemoryKind::Managed, a, Pair::Rmws, Scope::System),
            want(a.concurrent_managed_access, "concurrentManagedAccess"),
            "{name}"
        );
        assert_eq!(
            host_and_gpu(MemoryKind::Mapped, a, Pair::Rmws, Scope::System),
            want(a.host_native_atomic_supported, "hostNativeAtomicSupported"),
            "{name}"
        );
        assert_eq!(
            host_and_gpu(MemoryKind::System, a, Pair::Rmws, Scope::System),
            want(a.pageable_memory_access, "pageableMemoryAccess"),
            "{name}"
        );
    }
}

#[test]
fn system_scope_loads_and_stores_by_host_and_gpu() {
    use Verdict::*;
    for (name, a) in attribute_sets() {
        let want = |ok: bool, attr| if ok { Atomic(2) } else { Plain(attr) };
        assert_eq!(
            host_and_gpu(MemoryKind::Device, a, Pair::StoreLoad, Scope::System),
            Plain("host thread"),
            "{name}"
        );
        assert_eq!(
            host_and_gpu(MemoryKind::Managed, a, Pair::StoreLoad, Scope::System),
            want(a.concurrent_managed_access, "concurrentManagedAccess"),
            "{name}"
        );
        // "it is a load or store that affects a naturally-aligned object of
        // sizes 1, 2, 4, 8, or 16 bytes on mapped memory": atomic whatever
        // hostNativeAtomicSupported says.
        assert_eq!(
            host_and_gpu(MemoryKind::Mapped, a, Pair::StoreLoad, Scope::System),
            Atomic(2),
            "{name}"
        );
        assert_eq!(
            host_and_gpu(MemoryKind::System, a, Pair::StoreLoad, Scope::System),
            want(a.pageable_memory_access, "pageableMemoryAccess"),
            "{name}"
        );
    }
}

/// The report says which attribute is missing, and how to fix it.
#[test]
fn the_report_names_the_missing_attribute() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| {
        let x = alloc_in(MemoryKind::Managed, 0u32);
        scopecheck::thread::scope(|s| {
            s.spawn(|| x.fetch_add(1, Ordering::Relaxed, Scope::System));
            launch(
                Launch::new(1, 1),
                |_| (),
                |_| {
                    x.fetch_add(1, Ordering::Relaxed, Scope::System);
                },
            );
        });
    });
    let f = the_failure(&r, FailureKind::DataRace);
    assert!(
        f.message().contains(
            "`fetch_add` at system scope on managed memory is atomic only if concurrentManagedAccess \
             is 1 (seed 001, Atomicity), and this platform has concurrentManagedAccess = 0, so it is a plain access"
        ),
        "{}",
        f.message()
    );
    assert!(
        f.fix()
            .is_some_and(|x| x.contains("DeviceAttributes::concurrent_managed_access")),
        "{:?}",
        f.fix()
    );
}

/// Seed 001: "it specifies a scope other than thread_scope_system": GPU
/// threads of two blocks using device scope on managed, mapped or
/// system-allocated memory are atomic even with every attribute 0.
#[test]
fn narrower_scopes_are_atomic_in_every_kind() {
    for kind in MemoryKind::ALL {
        let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
        let r = b.explore(move || {
            let x = alloc_in(kind, 0u32);
            launch(
                Launch::new(2, 1),
                |_| (),
                |_| {
                    x.fetch_add(1, Ordering::Relaxed, Scope::Device);
                },
            );
            assert_eq!(x.load(Ordering::Relaxed, Scope::System), 2);
        });
        // The host's final load is after the kernel (hb): no race with it.
        assert_eq!(verdict(&r), Verdict::Atomic(2), "{kind}");
    }
}

/// Device memory used only by GPU threads. Two threads of one device: "only
/// GPU threads from a single GPU concurrently access it". Threads of two
/// devices: atomic only with native peer atomics from the accessing device
/// to the one the object resides on.
#[test]
fn device_memory_between_gpus() {
    let run = |platform: Platform, devices: (u32, u32), home: u32| {
        let b = builder(MemoryModel::Src11, Strategy::Exhaustive).platform(platform);
        let r = b.explore(move || {
            let x = alloc_on_device(home, 0u32);
            scopecheck::thread::scope(|s| {
                s.spawn(|| {
                    launch(
                        Launch::new(1, 1).device(devices.0),
                        |_| (),
                        |_| {
                            x.fetch_add(1, Ordering::Relaxed, Scope::System);
                        },
                    )
                });
                launch(
                    Launch::new(1, 1).device(devices.1),
                    |_| (),
                    |_| {
                        x.fetch_add(1, Ordering::Relaxed, Scope::System);
                    },
                );
            });
        });
        verdict(&r)
    };
    use Verdict::*;
    let none = Platform::new(DeviceAttributes::NONE);
    assert_eq!(run(none.clone(), (0, 0), 0), Atomic(2));
    // Two blocks of device 1 on memory of device 0: still a single GPU.
    assert_eq!(run(none.clone(), (1, 1), 0), Atomic(2));
    assert_eq!(
        run(none.clone(), (0, 1), 0),
        Plain("cudaDevP2PAttrNativeAtomicSupported")
    );
    // Peer atomics from 1 to 0 are what memory on device 0 needs.
    assert_eq!(run(none.clone().with_peer_native_atomics(1, 0), (0, 1), 0), Atomic(2));
    assert_eq!(
        run(none.clone().with_peer_native_atomics(0, 1), (0, 1), 0),
        Plain("cudaDevP2PAttrNativeAtomicSupported")
    );
    // The device attributes do not help device memory.
    assert_eq!(
        run(Platform::new(DeviceAttributes::ALL), (0, 1), 0),
        Plain("cudaDevP2PAttrNativeAtomicSupported")
    );
    // Memory on device 2, accessed from 0 and 1: both need peer atomics to 2.
    let one = none.clone().with_peer_native_atomics(0, 2);
    assert_eq!(
        run(one.clone(), (0, 1), 2),
        Plain("cudaDevP2PAttrNativeAtomicSupported")
    );
    assert_eq!(run(one.with_peer_native_atomics(1, 2), (0, 1), 2), Atomic(2));
}

/// A host access to device memory makes its system-scope atomics plain
/// even when it happens after the kernel: the seed's condition is that only
/// GPU threads access the object, and the GPU threads' accesses race.
#[test]
fn a_host_access_after_the_kernel_still_disqualifies_device_memory() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| {
        let x = alloc_on_device(0, 0u32);
        launch(
            Launch::new(2, 1),
            |_| (),
            |_| {
                x.fetch_add(1, Ordering::Relaxed, Scope::System);
            },
        );
        x.load(Ordering::Relaxed, Scope::System);
    });
    assert_eq!(verdict(&r), Verdict::Plain("host thread"));
    let f = the_failure(&r, FailureKind::DataRace);
    // The race is between the two kernel threads (1 and 2).
    let threads: Vec<u32> = f.events().iter().map(|e| e.id.thread).collect();
    assert_eq!(threads, vec![1, 2], "{}", f.message());
    // Without the host's load, the same kernel is fine.
    let r = b.explore(|| {
        let x = alloc_on_device(0, 0u32);
        launch(
            Launch::new(2, 1),
            |_| (),
            |_| {
                x.fetch_add(1, Ordering::Relaxed, Scope::System);
            },
        );
    });
    assert_eq!(verdict(&r), Verdict::Atomic(2));
}

/// Ordered accesses never race, whatever the memory kind: a host store
/// before the launch and a GPU RMW after it on mapped memory without
/// hostNativeAtomicSupported.
#[test]
fn ordered_accesses_are_fine_in_every_kind() {
    for kind in [MemoryKind::Managed, MemoryKind::Mapped, MemoryKind::System] {
        let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
        let r = b.explore(move || {
            let x = alloc_in(kind, 0u32);
            x.fetch_add(5, Ordering::Relaxed, Scope::System);
            launch(
                Launch::new(1, 1),
                |_| (),
                |_| {
                    x.fetch_add(1, Ordering::Relaxed, Scope::System);
                },
            );
            assert_eq!(x.load(Ordering::Relaxed, Scope::System), 6);
        });
        assert_eq!(verdict(&r), Verdict::Atomic(1), "{kind}");
    }
}

/// The rule holds under the unscoped models too (every operation of the
/// plain shim is at system scope there).
#[test]
fn memory_kinds_under_rc11() {
    let b = builder(MemoryModel::Rc11, Strategy::Exhaustive);
    let r = b.explore(|| {
        let x = alloc_in(MemoryKind::System, 0u64);
        scopecheck::thread::scope(|s| {
            s.spawn(|| x.swap(1, Ordering::SeqCst, Scope::System));
            s.spawn(|| x.swap(2, Ordering::SeqCst, Scope::System));
        });
    });
    assert_eq!(verdict(&r), Verdict::Plain("pageableMemoryAccess"));
    let r = b
        .clone()
        .platform(Platform::new(DeviceAttributes {
            pageable_memory_access: true,
            ..DeviceAttributes::NONE
        }))
        .explore(|| {
            let x = alloc_in(MemoryKind::System, 0u64);
            scopecheck::thread::scope(|s| {
                s.spawn(|| x.swap(1, Ordering::SeqCst, Scope::System));
                s.spawn(|| x.swap(2, Ordering::SeqCst, Scope::System));
            });
        });
    assert_eq!(verdict(&r), Verdict::Atomic(2));
}

/// The seed's conditions for managed, mapped and system-allocated memory do
/// not ask who accesses the object: two GPU threads (blocks 0 and 1 of
/// device 0) doing system-scope read-modify-writes get the same verdicts as
/// a host and a GPU thread.
#[test]
fn gpu_only_system_scope_rmws_follow_the_same_rule() {
    use Verdict::*;
    for (name, a) in attribute_sets() {
        let run = |kind: MemoryKind| {
            let b = builder(MemoryModel::Src11, Strategy::Exhaustive).platform(Platform::new(a));
            verdict(&b.explore(move || {
                let x = alloc_in(kind, 0u32);
                launch(
                    Launch::new(2, 1),
                    |_| (),
                    |_| {
                        x.fetch_add(1, Ordering::Relaxed, Scope::System);
                    },
                );
            }))
        };
        let want = |ok: bool, attr| if ok { Atomic(2) } else { Plain(attr) };
        assert_eq!(run(MemoryKind::Device), Atomic(2), "{name}");
        assert_eq!(
            run(MemoryKind::Managed),
            want(a.concurrent_managed_access, "concurrentManagedAccess"),
            "{name}"
        );
        assert_eq!(
            run(MemoryKind::Mapped),
            want(a.host_native_atomic_supported, "hostNativeAtomicSupported"),
            "{name}"
        );
        assert_eq!(
            run(MemoryKind::System),
            want(a.pageable_memory_access, "pageableMemoryAccess"),
            "{name}"
        );
    }
}
