//! Rust kernels under the GPU hardware models `ptx7.5` and `vulkan`
//! (issue 18 item 5; docs/gpu-models.md section 8): the shim's scoped
//! operations judged by Dat3M's cat models, next to the same programs
//! under `src11`, and the operations the models have no mapping for,
//! refused with which operation, where and why.

mod common;

use common::builder;
use scopecheck::gpu::{launch, record, Launch};
use scopecheck::scope::Scope;
use scopecheck::sync::atomic::{fence_scoped, AtomicU32, Ordering};
use scopecheck::sync::atomic_ref::{AtomicRef, Plain};
use scopecheck::{FailureKind, MemoryModel, Report, Strategy};
use std::collections::BTreeSet;

/// The outcome set of `body` under `model`, checked to be the same with
/// the optimal explorer and the reference enumerator (same execution
/// count too), with no failure; returns (outcomes, executions).
fn run(model: MemoryModel, body: impl Fn() + Clone) -> (BTreeSet<String>, u64) {
    let r1 = builder(model, Strategy::Exhaustive).explore(body.clone());
    let r2 = builder(model, Strategy::Reference).explore(body);
    for r in [&r1, &r2] {
        assert!(r.failures().is_empty(), "{model:?}: {r}");
        assert!(r.is_complete(), "{model:?}: {r}");
    }
    let (o1, o2) = (outcome_set(&r1), outcome_set(&r2));
    assert_eq!(o1, o2, "explorer and reference disagree under {model:?}");
    assert_eq!(r1.executions(), r2.executions(), "execution counts under {model:?}");
    // Every program here has exactly one consistent execution per outcome
    // (the graphs the model rejects are not counted).
    assert!(
        r1.outcomes().values().all(|&n| n == 1),
        "{model:?}: {:?}",
        r1.outcomes()
    );
    assert_eq!(r1.executions(), o1.len() as u64, "{model:?}");
    (o1, r1.executions())
}

fn outcome_set(r: &Report) -> BTreeSet<String> {
    r.outcome_set()
}

fn set(v: &[&str]) -> BTreeSet<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Message passing from block 0 to block 1: a relaxed data store, the flag
/// stored with `rel` at `rel_scope`, read with `acq` at `acq_scope`, then
/// the data read relaxed.
fn mp(rel: Ordering, rel_scope: Scope, acq: Ordering, acq_scope: Scope) -> impl Fn() + Clone {
    move || {
        let data = AtomicU32::new(0);
        let flag = AtomicU32::new(0);
        launch(
            Launch::new(2, 1),
            |_| (),
            |ctx| {
                if ctx.block_idx() == 0 {
                    data.store_scoped(1, Ordering::Relaxed, Scope::Device);
                    flag.store_scoped(1, rel, rel_scope);
                } else {
                    let f = flag.load_scoped(acq, acq_scope);
                    let d = data.load_scoped(Ordering::Relaxed, Scope::Device);
                    record("fd", (f, d));
                }
            },
        );
    }
}

const ALL_MP: [&str; 4] = ["fd=(0, 0)", "fd=(0, 1)", "fd=(1, 0)", "fd=(1, 1)"];
const NO_STALE: [&str; 3] = ["fd=(0, 0)", "fd=(0, 1)", "fd=(1, 1)"];

#[test]
fn device_scope_release_acquire_across_blocks_has_no_stale_read() {
    let body = mp(Ordering::Release, Scope::Device, Ordering::Acquire, Scope::Device);
    for model in [MemoryModel::Ptx75, MemoryModel::Vulkan, MemoryModel::Src11] {
        let (o, _) = run(model, body.clone());
        assert_eq!(o, set(&NO_STALE), "{model:?}");
    }
}

#[test]
fn relaxed_flag_lets_the_data_read_be_stale() {
    let body = mp(Ordering::Relaxed, Scope::Device, Ordering::Relaxed, Scope::Device);
    for model in [MemoryModel::Ptx75, MemoryModel::Vulkan, MemoryModel::Src11] {
        let (o, _) = run(model, body.clone());
        assert_eq!(o, set(&ALL_MP), "{model:?}");
    }
}

#[test]
fn block_scope_across_blocks_allows_the_stale_read_under_ptx() {
    // Block (CTA) scope does not include the other block: the release and
    // acquire are not morally strong, so nothing synchronizes. PTX defines
    // no races.
    let body = mp(Ordering::Release, Scope::Block, Ordering::Acquire, Scope::Block);
    let (o, n) = run(MemoryModel::Ptx75, body.clone());
    assert_eq!(o, set(&ALL_MP));
    assert_eq!(n, 4);
    // Vulkan calls the flag accesses a race (atomics whose scopes do not
    // include each other's thread are in `dr`), and so does src11.
    for model in [MemoryModel::Vulkan, MemoryModel::Src11] {
        for strategy in [Strategy::Exhaustive, Strategy::Reference] {
            let r = builder(model, strategy).explore(body.clone());
            assert_eq!(r.failures().len(), 1, "{r}");
            assert_eq!(r.failures()[0].kind(), FailureKind::HeterogeneousRace, "{r}");
        }
    }
    // Kept going through the race, Vulkan allows the stale read too.
    let mut b = builder(MemoryModel::Vulkan, Strategy::Exhaustive);
    b.record_races = true;
    let r = b.explore(body);
    assert_eq!(r.failures().len(), 1, "{r}");
    assert!(r.failures()[0].message().contains("block scope"), "{r}");
    assert_eq!(r.outcome_set(), set(&ALL_MP));
    assert_eq!((r.executions(), r.racy_executions()), (4, 4));
}

#[test]
fn cluster_scope_is_taken_as_block_scope() {
    // Clusters are narrower than the device: ptx7.5 has no cluster scope,
    // so cluster scope is judged as the block's (never fewer behaviours).
    let body = mp(Ordering::Release, Scope::Cluster, Ordering::Acquire, Scope::Cluster);
    let (o, _) = run(MemoryModel::Ptx75, body);
    assert_eq!(o, set(&ALL_MP));
}

/// Store buffering between two blocks: each stores 1 to its own location,
/// then (after a fence when `fence` is given) reads the other's.
fn sb(order: Ordering, fence: Option<Ordering>) -> impl Fn() + Clone {
    move || {
        let x = AtomicU32::new(0);
        let y = AtomicU32::new(0);
        launch(
            Launch::new(2, 1),
            |_| (),
            |ctx| {
                let (mine, other, key) = if ctx.block_idx() == 0 {
                    (&x, &y, "r0")
                } else {
                    (&y, &x, "r1")
                };
                mine.store_scoped(1, store_order(order), Scope::Device);
                if let Some(f) = fence {
                    fence_scoped(f, Scope::Device);
                }
                record(key, other.load_scoped(load_order(order), Scope::Device));
            },
        );
    }
}

fn store_order(o: Ordering) -> Ordering {
    if o == Ordering::Acquire {
        Ordering::Relaxed
    } else {
        o
    }
}

fn load_order(o: Ordering) -> Ordering {
    if o == Ordering::Release {
        Ordering::Relaxed
    } else {
        o
    }
}

const ALL_SB: [&str; 4] = ["r0=0; r1=0", "r0=0; r1=1", "r0=1; r1=0", "r1=1; r0=1"];

fn sb_set(v: &[&str]) -> BTreeSet<String> {
    // Outcome strings list keys in order; normalise the table's spelling.
    v.iter()
        .map(|s| {
            let mut parts: Vec<&str> = s.split("; ").collect();
            parts.sort();
            parts.join("; ")
        })
        .collect()
}

#[test]
fn store_buffering_relaxed_allows_both_zero() {
    for model in [MemoryModel::Ptx75, MemoryModel::Vulkan, MemoryModel::Src11] {
        let (o, _) = run(model, sb(Ordering::Relaxed, None));
        assert_eq!(o, sb_set(&ALL_SB), "{model:?}");
    }
}

#[test]
fn store_buffering_release_acquire_allows_both_zero() {
    // Release/acquire alone orders no store before a later load (PTX, Vulkan, C++ alike).
    for model in [MemoryModel::Ptx75, MemoryModel::Vulkan, MemoryModel::Src11] {
        let (o, _) = run(model, sb(Ordering::Release, None));
        assert_eq!(o, sb_set(&ALL_SB), "{model:?}");
        let (o, _) = run(model, sb(Ordering::Acquire, None));
        assert_eq!(o, sb_set(&ALL_SB), "{model:?}");
    }
}

#[test]
fn store_buffering_with_seqcst_fences_forbids_both_zero() {
    // The CUDA mapping of SeqCst: fence.sc at the scope, then relaxed accesses.
    let body = sb(Ordering::Relaxed, Some(Ordering::SeqCst));
    let want = sb_set(&["r0=0; r1=1", "r0=1; r1=0", "r0=1; r1=1"]);
    for model in [MemoryModel::Ptx75, MemoryModel::Src11] {
        let (o, _) = run(model, body.clone());
        assert_eq!(o, want, "{model:?}");
    }
    // An acq_rel fence (fence.acq_rel) does not forbid it.
    let (o, _) = run(MemoryModel::Ptx75, sb(Ordering::Relaxed, Some(Ordering::AcqRel)));
    assert_eq!(o, sb_set(&ALL_SB));
}

#[test]
fn warp_scope_within_one_warp_synchronizes_under_vulkan() {
    // Two threads of one block's first warp (one subgroup): subgroup scope
    // includes both, so release/acquire at warp scope forbids the stale read.
    let body = move || {
        let data = AtomicU32::new(0);
        let flag = AtomicU32::new(0);
        launch(
            Launch::new(1, 2),
            |_| (),
            |ctx| {
                if ctx.thread_idx() == 0 {
                    data.store_scoped(1, Ordering::Relaxed, Scope::Warp);
                    flag.store_scoped(1, Ordering::Release, Scope::Warp);
                } else {
                    let f = flag.load_scoped(Ordering::Acquire, Scope::Warp);
                    let d = data.load_scoped(Ordering::Relaxed, Scope::Warp);
                    record("fd", (f, d));
                }
            },
        );
    };
    let (o, n) = run(MemoryModel::Vulkan, body);
    assert_eq!(o, set(&NO_STALE));
    assert_eq!(n, 3);
    // Across blocks, warp scope includes neither side: a race under Vulkan.
    let body = mp(Ordering::Release, Scope::Warp, Ordering::Acquire, Scope::Warp);
    let r = builder(MemoryModel::Vulkan, Strategy::Exhaustive).explore(body);
    assert_eq!(r.failures().len(), 1, "{r}");
    assert_eq!(r.failures()[0].kind(), FailureKind::HeterogeneousRace, "{r}");
}

/// The one failure of `body` under `model`: a misuse whose message names
/// this file and `line`, and says `why`.
#[track_caller]
fn refused(model: MemoryModel, body: impl Fn(), line: u32, why: &str) {
    let r = builder(model, Strategy::Exhaustive).explore(body);
    assert_eq!(r.failures().len(), 1, "{r}");
    let f = &r.failures()[0];
    assert_eq!(f.kind(), FailureKind::Misuse, "{r}");
    let at = format!("gpu_hardware_rust.rs:{line}:");
    assert!(f.message().contains(&at), "want {at} in: {}", f.message());
    assert!(f.message().contains(why), "want {why:?} in: {}", f.message());
    assert!(f.message().contains(model.name()), "{}", f.message());
}

/// A kernel of two blocks: block 0 runs `op`, block 1 loads relaxed at device scope.
fn one_op(op: impl Fn(&AtomicU32) + Sync) -> impl Fn() {
    move || {
        let x = AtomicU32::new(0);
        launch(
            Launch::new(2, 1),
            |_| (),
            |ctx| {
                if ctx.block_idx() == 0 {
                    op(&x);
                } else {
                    x.load_scoped(Ordering::Relaxed, Scope::Device);
                }
            },
        );
    }
}

#[test]
fn seqcst_accesses_are_refused_with_the_mapping_to_write() {
    let line = line!() + 1;
    let op = |x: &AtomicU32| x.store_scoped(1, Ordering::SeqCst, Scope::Device);
    refused(MemoryModel::Ptx75, one_op(op), line, "fence_scoped(SeqCst, scope)");
    let line = line!() + 2;
    let op = |x: &AtomicU32| {
        let _ = x.fetch_add_scoped(1, Ordering::SeqCst, Scope::Device);
    };
    refused(
        MemoryModel::Vulkan,
        one_op(op),
        line,
        "`vulkan` has no sequential consistency",
    );
    // A compare-exchange whose failure order is SeqCst: its failed read would be one.
    let line = line!() + 2;
    let op = |x: &AtomicU32| {
        let _ = x.compare_exchange_scoped(5, 6, Ordering::Relaxed, Ordering::SeqCst, Scope::Device);
    };
    refused(MemoryModel::Ptx75, one_op(op), line, "with `SeqCst`");
}

#[test]
fn vulkan_refuses_seqcst_fences() {
    let line = line!() + 1;
    let op = |_: &AtomicU32| fence_scoped(Ordering::SeqCst, Scope::Device);
    refused(
        MemoryModel::Vulkan,
        one_op(op),
        line,
        "no sequentially consistent fence",
    );
    // ptx7.5 takes it (fence.sc).
    let r = builder(MemoryModel::Ptx75, Strategy::Exhaustive).explore(one_op(op));
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(r.executions(), 1);
}

#[test]
fn scopes_the_model_lacks_are_refused() {
    let line = line!() + 1;
    let op = |x: &AtomicU32| x.store_scoped(1, Ordering::Relaxed, Scope::Thread);
    refused(MemoryModel::Ptx75, one_op(op), line, "at thread scope");
    refused(MemoryModel::Vulkan, one_op(op), line, "at thread scope");
    let line = line!() + 2;
    let op = |x: &AtomicU32| {
        let _ = x.load_scoped(Ordering::Acquire, Scope::Warp);
    };
    refused(MemoryModel::Ptx75, one_op(op), line, "at warp scope");
}

#[test]
fn host_thread_accesses_and_plain_cells_are_refused() {
    let line = line!() + 10;
    let body = || {
        let x = AtomicU32::new(0);
        launch(
            Launch::new(1, 1),
            |_| (),
            |_| {
                let _ = x.load(Ordering::Relaxed);
            },
        );
        x.store(1, Ordering::Relaxed);
    };
    refused(MemoryModel::Ptx75, body, line, "by a host thread");
    let line = line!() + 7;
    let body = || {
        let c = scopecheck::cell::UnsafeCell::new(0u32);
        launch(
            Launch::new(1, 1),
            |_| (),
            |_| {
                c.with_mut(|p| unsafe { *p = 1 });
            },
        );
    };
    refused(MemoryModel::Vulkan, body, line, "plain cell access");
    refused(MemoryModel::Ptx75, body, line, "atomic_ref::Plain");
}

#[test]
fn the_hardware_models_are_named_like_the_litmus_ones() {
    for m in [MemoryModel::Ptx75, MemoryModel::Vulkan] {
        assert_eq!(MemoryModel::from_name(m.name()), Some(m));
    }
    assert_eq!(MemoryModel::Ptx75.name(), "ptx7.5");
    assert_eq!(MemoryModel::Vulkan.name(), "vulkan");
}

/// Message passing over `Plain` memory: the data written and read plainly
/// (weak accesses), the flag through `AtomicRef::cuda` at `scope`, stored
/// with `rel` and loaded with `acq`.
fn mp_plain(rel: Ordering, acq: Ordering, scope: Scope) -> impl Fn() + Clone {
    move || {
        let data = Plain::new(0u32);
        let flag = Plain::new(0u32);
        launch(
            Launch::new(2, 1),
            |_| (),
            |ctx| {
                let f = AtomicRef::cuda(&flag, scope);
                if ctx.block_idx() == 0 {
                    data.write(1);
                    f.store_with(1, rel);
                } else if f.load_with(acq) == 1 {
                    record("d", data.read());
                }
            },
        );
    }
}

#[test]
fn atomic_ref_over_plain_memory_maps_like_the_atomics() {
    let (o, _) = run(
        MemoryModel::Ptx75,
        mp_plain(Ordering::Release, Ordering::Acquire, Scope::Device),
    );
    assert_eq!(o, set(&["", "d=1"]));
    let (o, _) = run(
        MemoryModel::Ptx75,
        mp_plain(Ordering::Release, Ordering::Acquire, Scope::Block),
    );
    assert_eq!(o, set(&["", "d=0", "d=1"]));
    // src11 agrees where the program is race free.
    let (o, n) = run(
        MemoryModel::Src11,
        mp_plain(Ordering::Release, Ordering::Acquire, Scope::Device),
    );
    assert_eq!(o, set(&["", "d=1"]));
    assert_eq!(n, 2);
}

#[test]
fn vulkan_reports_data_races_on_plain_memory() {
    // Device scope: the plain accesses are ordered (locord), no race.
    let (o, n) = run(
        MemoryModel::Vulkan,
        mp_plain(Ordering::Release, Ordering::Acquire, Scope::Device),
    );
    assert_eq!(o, set(&["", "d=1"]));
    assert_eq!(n, 2);
    // A relaxed flag orders nothing: the plain write and the read after
    // the flag was seen race (Vulkan's `dr`); PTX defines no races.
    let body = mp_plain(Ordering::Relaxed, Ordering::Relaxed, Scope::Device);
    for strategy in [Strategy::Exhaustive, Strategy::Reference] {
        let r = builder(MemoryModel::Vulkan, strategy).explore(body.clone());
        assert_eq!(r.failures().len(), 1, "{r}");
        let f = &r.failures()[0];
        assert_eq!(f.kind(), FailureKind::DataRace, "{r}");
        assert!(f.message().contains("Vulkan's data-race definition"), "{}", f.message());
        assert!(f.message().contains("`store(na)"), "{}", f.message());
    }
    let (o, n) = run(MemoryModel::Ptx75, body.clone());
    assert_eq!(o, set(&["", "d=0", "d=1"]));
    assert_eq!(n, 3);
    // Kept going through races: every execution completes; the racy ones
    // are those where the reader saw the flag and read the data.
    let mut b = builder(MemoryModel::Vulkan, Strategy::Exhaustive);
    b.record_races = true;
    let r = b.explore(body);
    assert_eq!(r.failures().len(), 1, "{r}");
    assert_eq!(r.outcome_set(), set(&["", "d=0", "d=1"]));
    assert_eq!((r.executions(), r.racy_executions()), (3, 2));
    // Block scope across blocks: the flag's accesses race too (two reports).
    let mut b = builder(MemoryModel::Vulkan, Strategy::Exhaustive);
    b.record_races = true;
    let r = b.explore(mp_plain(Ordering::Release, Ordering::Acquire, Scope::Block));
    let mut kinds: Vec<FailureKind> = r.failures().iter().map(|f| f.kind()).collect();
    kinds.sort_by_key(|k| k.name());
    assert_eq!(kinds, [FailureKind::DataRace, FailureKind::HeterogeneousRace], "{r}");
}
