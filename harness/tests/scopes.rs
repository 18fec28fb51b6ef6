//! Scoped atomics under `src11` written with the shim: seed 001's
//! message-passing example, heterogeneous races with their fix, and the
//! models' agreement at system scope.

mod common;

use common::{both, builder};
use scopecheck::cell::UnsafeCell;
use scopecheck::scope::{Placement, Scope};
use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::sync::Arc;
use scopecheck::thread::spawn_at;
use scopecheck::{FailureKind, MemoryModel, Strategy};

/// Seed 001's message passing: thread 0 of block 0 writes `x` and raises a
/// flag; thread 0 of block 1 waits for the flag and reads `x`. The flag's
/// release is at `release_scope`, its acquire at device scope.
fn message_passing(release_scope: Scope) -> impl Fn(&dyn Fn((usize, usize))) + Clone {
    move |rec: &dyn Fn((usize, usize))| {
        let x = Arc::new(UnsafeCell::new(0usize));
        let flag = Arc::new(AtomicUsize::new(0));
        let (x0, f0) = (x.clone(), flag.clone());
        let writer = spawn_at(Placement::gpu(0, 0, 0, 0), move || {
            x0.with_mut(|p| unsafe { *p = 42 });
            f0.store_scoped(1, Ordering::Release, release_scope);
        });
        let (x1, f1) = (x.clone(), flag.clone());
        let reader = spawn_at(Placement::gpu(0, 1, 0, 0), move || {
            let seen = f1.load_scoped(Ordering::Acquire, Scope::Device);
            let data = if seen == 1 { x1.with(|p| unsafe { *p }) } else { 0 };
            (seen, data)
        });
        writer.join().unwrap();
        rec(reader.join().unwrap());
    }
}

#[test]
fn device_scope_message_passing_is_correct() {
    let (o, n) = both(MemoryModel::Src11, message_passing(Scope::Device));
    assert_eq!(o, [(0, 0), (1, 42)].into_iter().collect());
    assert_eq!(n, 2);
}

#[test]
fn block_scope_release_is_a_heterogeneous_race_and_a_data_race_with_the_fix() {
    let mut b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    b.record_races = true;
    let body = message_passing(Scope::Block);
    let report = b.explore(move || body(&|_| {}));
    // One report per racing pair of lines: the flag (scope mismatch) and the data.
    let mut kinds: Vec<FailureKind> = report.failures().iter().map(|f| f.kind()).collect();
    kinds.sort_by_key(|k| k.name());
    assert_eq!(
        kinds,
        vec![FailureKind::DataRace, FailureKind::HeterogeneousRace],
        "{report}"
    );
    let het = report
        .failures()
        .iter()
        .find(|f| f.kind() == FailureKind::HeterogeneousRace)
        .unwrap();
    assert!(het.message().contains("block scope"), "{}", het.message());
    assert!(
        het.message().contains("(device 0, block 1, warp 0, lane 0)"),
        "{}",
        het.message()
    );
    assert!(het.fix().unwrap().starts_with("use device scope"), "{:?}", het.fix());
    let data = report
        .failures()
        .iter()
        .find(|f| f.kind() == FailureKind::DataRace)
        .unwrap();
    assert!(data.message().contains("at block scope"), "{}", data.message());
    assert!(
        data.message()
            .contains("does not reach thread 2 at (device 0, block 1, warp 0, lane 0)"),
        "{}",
        data.message()
    );
    assert!(data.fix().unwrap().starts_with("use device scope"), "{:?}", data.fix());
}

/// The same program with the scopes left at system scope (plain `store` and
/// `load`) is the rc11 program: the two models agree on outcomes and counts.
#[test]
fn system_scope_src11_is_rc11_on_message_passing() {
    let body = |rec: &dyn Fn((usize, usize))| {
        let data = Arc::new(AtomicUsize::new(0));
        let flag = Arc::new(AtomicUsize::new(0));
        let (d0, f0) = (data.clone(), flag.clone());
        let w = spawn_at(Placement::gpu(0, 0, 0, 0), move || {
            d0.store(42, Ordering::Relaxed);
            f0.store(1, Ordering::Release);
        });
        let (d1, f1) = (data.clone(), flag.clone());
        let r = spawn_at(Placement::gpu(0, 1, 0, 0), move || {
            (f1.load(Ordering::Acquire), d1.load(Ordering::Relaxed))
        });
        w.join().unwrap();
        rec(r.join().unwrap());
    };
    let (a, na) = both(MemoryModel::Src11, body);
    let (b, nb) = both(MemoryModel::Rc11, body);
    assert_eq!((a.clone(), na), (b, nb));
    assert_eq!(a, [(0, 0), (0, 42), (1, 42)].into_iter().collect());
}

/// Narrowing a scope never removes an outcome (docs/architecture.md, checks): store
/// buffering across two blocks with seq_cst accesses at device scope and at
/// block scope. With races recorded rather than fatal, every execution runs
/// to its end, so the outcome sets compare.
#[test]
fn narrowing_a_scope_adds_outcomes() {
    let sb = |scope: Scope| {
        move |rec: &dyn Fn((usize, usize))| {
            let (x, y) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
            let (x0, y0) = (x.clone(), y.clone());
            let p0 = spawn_at(Placement::gpu(0, 0, 0, 0), move || {
                x0.store_scoped(1, Ordering::SeqCst, scope);
                y0.load_scoped(Ordering::SeqCst, scope)
            });
            let (x1, y1) = (x.clone(), y.clone());
            let p1 = spawn_at(Placement::gpu(0, 1, 0, 0), move || {
                y1.store_scoped(1, Ordering::SeqCst, scope);
                x1.load_scoped(Ordering::SeqCst, scope)
            });
            rec((p0.join().unwrap(), p1.join().unwrap()));
        }
    };
    let mut b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    b.record_races = true;
    let collect = |scope: Scope| {
        let (o, r) = common::outcomes(&b, sb(scope));
        let kinds: Vec<FailureKind> = r.failures().iter().map(|f| f.kind()).collect();
        (o, kinds, r.executions(), r.racy_executions())
    };
    let (device, device_failures, n_device, racy_device) = collect(Scope::Device);
    let (block, block_failures, n_block, racy_block) = collect(Scope::Block);
    assert_eq!(device, [(0, 1), (1, 0), (1, 1)].into_iter().collect());
    assert!(device_failures.is_empty());
    assert_eq!((n_device, racy_device), (3, 0));
    assert_eq!(block, [(0, 0), (0, 1), (1, 0), (1, 1)].into_iter().collect());
    assert!(device.is_subset(&block));
    // One report per racing pair of lines: x (P0's store, P1's load) and y.
    assert_eq!(block_failures, vec![FailureKind::HeterogeneousRace; 2]);
    assert_eq!((n_block, racy_block), (4, 4));
}
