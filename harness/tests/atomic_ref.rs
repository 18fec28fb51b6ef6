//! Scoped atomic references (`scopecheck::sync::atomic_ref`, seed 003 and
//! seed 001): every operation's result, SYCL's default-order rules,
//! per-call overrides, scopes, floating-point and pointer arithmetic, and
//! the errors for orders and types an atomic reference cannot have.

mod common;

use common::{both, builder, outcomes, position, the_failure};
use scopecheck::scope::Placement;
use scopecheck::sync::atomic_ref::{
    address_space, memory_order, memory_scope, thread_scope, AddressSpace, AtomicRef, AtomicValue, Ordering, Plain,
    ValueKind,
};
use scopecheck::sync::Arc;
use scopecheck::thread::{spawn, spawn_at};
use scopecheck::{Builder, FailureKind, MemoryModel, Report, Strategy};
use std::collections::BTreeSet;

fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    items.into_iter().collect()
}

/// Runs a single-threaded body that records one outcome; asserts it has
/// exactly one execution and no failure, and returns the outcome.
fn only<T: Ord + Clone + std::fmt::Debug + 'static>(body: impl Fn(&dyn Fn(T))) -> T {
    let (o, r) = outcomes(&builder(MemoryModel::Cpp20, Strategy::Exhaustive), body);
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(r.executions(), 1, "{r}");
    assert_eq!(o.len(), 1);
    o.into_iter().next().unwrap()
}

/// Explores `body` and returns the report of its single failure, a panic.
fn the_panic(body: impl Fn()) -> scopecheck::Failure {
    let r: Report = Builder::new().explore(body);
    the_failure(&r, FailureKind::Panic).clone()
}

// ---------------------------------------------------------------- results

#[test]
fn integer_operations_return_the_old_value_and_leave_the_new() {
    let got = only(|rec: &dyn Fn(Vec<i64>)| {
        let c = Plain::new(5i32);
        let r = AtomicRef::sycl(&c, memory_order::relaxed, memory_scope::device);
        let mut v: Vec<i64> = vec![];
        v.push(r.load() as i64); // 5
        r.store(7);
        v.push(r.exchange(-2) as i64); // 7
        v.push(r.fetch_add(i32::MAX) as i64); // -2 -> i32::MAX - 2
        v.push(r.fetch_add(5) as i64); // wraps to i32::MIN + 2
        v.push(r.fetch_sub(3) as i64); // i32::MIN + 2 -> i32::MAX (wraps)
        v.push(r.fetch_and(0x0ff0) as i64); // -> 0x0ff0
        v.push(r.fetch_or(0x7000_0001) as i64); // -> 0x7000_0ff1
        v.push(r.fetch_xor(0x7000_0000) as i64); // -> 0x0ff1
        v.push(r.fetch_min(-9) as i64); // signed: -> -9
        v.push(r.fetch_max(-10) as i64); // stays -9
        v.push(r.fetch_max(12) as i64); // -> 12
        v.push(match r.compare_exchange_strong(12, 40) {
            Ok(x) => x as i64,
            Err(_) => -1,
        });
        v.push(match r.compare_exchange_strong(12, 50) {
            Ok(_) => -1,
            Err(x) => x as i64, // 40
        });
        v.push(c.read() as i64); // plain read of the same cell
        rec(v);
    });
    let min = i32::MIN as i64;
    let max = i32::MAX as i64;
    assert_eq!(
        got,
        vec![
            5,
            7,
            -2,
            max - 2,
            min + 2,
            max,
            0x0ff0,
            0x7000_0ff1,
            0x0ff1,
            -9,
            -9,
            12,
            40,
            40
        ]
    );
}

#[test]
fn unsigned_and_64_bit_integers_compare_and_wrap_as_their_type() {
    let got = only(|rec: &dyn Fn(Vec<u64>)| {
        let a = Plain::new(1u32);
        let r = AtomicRef::sycl(&a, memory_order::seq_cst, memory_scope::work_group);
        let mut v = vec![r.fetch_min(u32::MAX) as u64]; // unsigned: stays 1
        v.push(r.fetch_sub(2) as u64); // 1 -> u32::MAX
        v.push(r.fetch_max(7) as u64); // stays u32::MAX
        v.push(r.load() as u64);
        let b = Plain::new(-1i64);
        let s = AtomicRef::cuda(&b, thread_scope::device);
        v.push(s.fetch_max(3) as u64); // signed: -1 -> 3
        v.push(s.fetch_add(i64::MAX) as u64); // 3 -> wraps
        v.push(s.load() as u64);
        let c = Plain::new(usize::MAX);
        let u = AtomicRef::cuda(&c, thread_scope::system);
        v.push(u.fetch_add(2) as u64); // wraps to 1
        v.push(u.fetch_and(3) as u64);
        v.push(u.load() as u64);
        rec(v);
    });
    assert_eq!(
        got,
        vec![
            1,
            1,
            u32::MAX as u64,
            u32::MAX as u64,
            -1i64 as u64,
            3,
            (3i64.wrapping_add(i64::MAX)) as u64,
            u64::MAX,
            1,
            1
        ]
    );
}

#[test]
fn a_weak_compare_exchange_may_fail_spuriously_once_per_value() {
    let b = builder(MemoryModel::Cpp20, Strategy::Exhaustive);
    let (o, r) = outcomes(&b, |rec: &dyn Fn(Result<u32, u32>)| {
        let c = Plain::new(3u32);
        let x = AtomicRef::sycl(&c, memory_order::acq_rel, memory_scope::device);
        rec(x.compare_exchange_weak(3, 4));
    });
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(o, set([Ok(3), Err(3)]));
    assert_eq!(r.executions(), 2);
}

#[test]
fn pointers_move_in_units_of_the_pointee() {
    let got = only(|rec: &dyn Fn(Vec<usize>)| {
        let base = 0x1000usize;
        let c = Plain::new(base as *mut u64);
        let r = AtomicRef::sycl(&c, memory_order::relaxed, memory_scope::device);
        let mut v = vec![r.fetch_add(3) as usize]; // 0x1000 -> 0x1018
        v.push(r.fetch_sub(1) as usize); // 0x1018 -> 0x1010
        v.push(r.fetch_add(-2) as usize); // 0x1010 -> 0x1000
        v.push(r.load() as usize);
        let h = Plain::new(base as *const u16);
        let s = AtomicRef::cuda(&h, thread_scope::block);
        v.push(s.fetch_add(5) as usize); // 0x1000 -> 0x100a
        v.push(s.exchange(std::ptr::null()) as usize);
        v.push(s.load() as usize);
        rec(v);
    });
    assert_eq!(got, vec![0x1000, 0x1018, 0x1010, 0x1000, 0x1000, 0x100a, 0]);
}

#[test]
fn float_operations_compute_exact_ieee_values() {
    let got = only(|rec: &dyn Fn(Vec<u64>)| {
        let a = Plain::new(0.1f32);
        let r = AtomicRef::sycl(&a, memory_order::relaxed, memory_scope::device);
        let mut v = vec![r.fetch_add(0.2).to_bits() as u64]; // 0.1
        v.push(r.load().to_bits() as u64); // the f32 nearest 0.3
        v.push(r.fetch_sub(f32::INFINITY).to_bits() as u64);
        v.push(r.fetch_max(f32::NAN).to_bits() as u64); // -inf, NaN loses
        v.push(r.fetch_max(-0.0).to_bits() as u64); // -inf -> -0.0
        v.push(r.fetch_max(0.0).to_bits() as u64); // -0.0 -> +0.0
        v.push(r.load().to_bits() as u64);
        let b = Plain::new(0.1f64);
        let s = AtomicRef::cuda(&b, thread_scope::device);
        v.push(s.fetch_add(0.2).to_bits());
        v.push(s.load().to_bits()); // 0.30000000000000004
        v.push(s.fetch_min(-1e300).to_bits());
        v.push(s.fetch_sub(1e300).to_bits());
        v.push(s.load().to_bits()); // -2e300
        v.push(s.fetch_add(f64::INFINITY).to_bits());
        v.push(s.fetch_add(f64::NEG_INFINITY).to_bits()); // inf - inf: NaN
        v.push(s.load().to_bits());
        v.push(
            s.compare_exchange_strong(f64::NAN, 1.0)
                .map_or(u64::MAX, |x| x.to_bits()),
        ); // the same bits
        v.push(s.load().to_bits());
        rec(v);
    });
    let f = |x: f32| x.to_bits() as u64;
    let d = |x: f64| x.to_bits();
    assert_eq!(
        got,
        vec![
            f(0.1),
            f(0.1 + 0.2),
            f(0.1 + 0.2),
            f(f32::NEG_INFINITY),
            f(f32::NEG_INFINITY),
            f(-0.0),
            f(0.0),
            d(0.1),
            0x3fd3_3333_3333_3334,
            d(0.1 + 0.2),
            d(-1e300),
            d(-2e300),
            d(-2e300),
            d(f64::INFINITY),
            0x7ff8_0000_0000_0000,
            0x7ff8_0000_0000_0000,
            d(1.0),
        ]
    );
    // The checker's NaN is Rust's f64::NAN, so the compare-exchange above matched it.
    assert_eq!(f64::NAN.to_bits(), 0x7ff8_0000_0000_0000);
}

/// Three threads add 1e20, -1e20 and 1 to an f32 at 0: float addition is
/// not associative, so the final value depends on the order of the RMWs
/// (one execution per order of the three in mo).
#[test]
fn concurrent_float_adds_see_every_order_exactly() {
    let (o, n) = both(MemoryModel::Src11, |rec: &dyn Fn([u32; 4])| {
        let cell = Arc::new(Plain::new(0.0f32));
        let adders: Vec<_> = [1e20f32, -1e20, 1.0]
            .into_iter()
            .enumerate()
            .map(|(i, x)| {
                let c = cell.clone();
                spawn_at(Placement::gpu(0, 0, 0, i as u32), move || {
                    AtomicRef::sycl(&*c, memory_order::relaxed, memory_scope::work_group).fetch_add(x)
                })
            })
            .collect();
        let olds: Vec<f32> = adders.into_iter().map(|h| h.join().unwrap()).collect();
        rec([
            olds[0].to_bits(),
            olds[1].to_bits(),
            olds[2].to_bits(),
            cell.read().to_bits(),
        ]);
    });
    let t = |a: f32, b: f32, c: f32, fin: f32| [a.to_bits(), b.to_bits(), c.to_bits(), fin.to_bits()];
    assert_eq!(
        o,
        set([
            t(0.0, 1e20, 0.0, 1.0),    // +1e20, -1e20, +1
            t(0.0, 1e20, 1e20, 0.0),   // +1e20, +1 (absorbed), -1e20
            t(-1e20, 0.0, 0.0, 1.0),   // -1e20, +1e20, +1
            t(-1e20, 0.0, -1e20, 0.0), // -1e20, +1 (absorbed), +1e20
            t(1.0, 1e20, 0.0, 0.0),    // +1, +1e20, -1e20
            t(-1e20, 1.0, 0.0, 0.0),   // +1, -1e20, +1e20
        ])
    );
    assert_eq!(n, 6);
}

#[test]
fn user_types_of_four_or_eight_bytes_have_load_store_exchange_and_cas() {
    #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct Pair(u16, u16);
    impl AtomicValue for Pair {
        const KIND: ValueKind = ValueKind::Other;
        fn to_bits(self) -> u64 {
            (self.0 as u64) << 16 | self.1 as u64
        }
        fn from_bits(b: u64) -> Pair {
            Pair((b >> 16) as u16, b as u16)
        }
    }
    let got = only(|rec: &dyn Fn(Vec<Pair>)| {
        let c = Plain::new(Pair(1, 2));
        let r = AtomicRef::cuda(&c, thread_scope::block);
        let mut v = vec![r.load()];
        v.push(r.exchange(Pair(3, 4)));
        v.push(r.compare_exchange_strong(Pair(3, 4), Pair(5, 6)).unwrap());
        v.push(r.compare_exchange_weak(Pair(0, 0), Pair(7, 7)).unwrap_err());
        r.store(Pair(8, 9));
        v.push(c.read());
        rec(v);
    });
    assert_eq!(got, vec![Pair(1, 2), Pair(1, 2), Pair(3, 4), Pair(5, 6), Pair(8, 9)]);
}

#[test]
fn static_members_and_default_orders() {
    type R<'a> = AtomicRef<'a, i32>;
    assert_eq!(R::REQUIRED_ALIGNMENT, 4);
    assert_eq!(AtomicRef::<'_, f64>::REQUIRED_ALIGNMENT, 8);
    assert_eq!(AtomicRef::<'_, *mut u8>::REQUIRED_ALIGNMENT, 8);
    const { assert!(R::IS_ALWAYS_LOCK_FREE) };
    scopecheck::model(|| {
        let c = Plain::new(0i32);
        let defaults = |r: R<'_>| {
            (
                r.default_read_order(),
                r.default_write_order(),
                r.default_read_modify_write_order(),
            )
        };
        use Ordering::*;
        let rlx = AtomicRef::sycl(&c, memory_order::relaxed, memory_scope::sub_group);
        assert_eq!(defaults(rlx), (Relaxed, Relaxed, Relaxed));
        assert_eq!(rlx.default_scope(), scopecheck::scope::Scope::Warp);
        let ar = AtomicRef::sycl(&c, memory_order::acq_rel, memory_scope::work_item);
        assert_eq!(defaults(ar), (Acquire, Release, AcqRel));
        assert_eq!(ar.default_scope(), scopecheck::scope::Scope::Thread);
        let sc = AtomicRef::sycl_in(
            &c,
            memory_order::seq_cst,
            memory_scope::system,
            address_space::global_space,
        );
        assert_eq!(defaults(sc), (SeqCst, SeqCst, SeqCst));
        assert_eq!(sc.address_space(), AddressSpace::Global);
        let cu = AtomicRef::cuda(&c, thread_scope::block);
        assert_eq!(defaults(cu), (SeqCst, SeqCst, SeqCst));
        assert_eq!(cu.default_scope(), scopecheck::scope::Scope::Block);
        assert!(cu.is_lock_free());
    });
}

// ---------------------------------------------------- default-order rules

/// Message passing through two atomic references with default order
/// `order`: the data with relaxed stores and loads, the flag with the
/// defaults. Outcome: (flag seen, data seen).
fn mp_defaults(order: Ordering) -> impl Fn(&dyn Fn((u32, u32))) + Clone {
    move |rec: &dyn Fn((u32, u32))| {
        let data = Arc::new(Plain::new(0u32));
        let flag = Arc::new(Plain::new(0u32));
        let (d0, f0) = (data.clone(), flag.clone());
        let w = spawn(move || {
            AtomicRef::sycl(&*d0, memory_order::relaxed, memory_scope::system).store(1);
            AtomicRef::sycl(&*f0, order, memory_scope::system).store(1);
        });
        let (d1, f1) = (data.clone(), flag.clone());
        let r = spawn(move || {
            let f = AtomicRef::sycl(&*f1, order, memory_scope::system).load();
            let d = AtomicRef::sycl(&*d1, memory_order::relaxed, memory_scope::system).load();
            (f, d)
        });
        w.join().unwrap();
        rec(r.join().unwrap());
    }
}

#[test]
fn relaxed_default_makes_loads_and_stores_relaxed() {
    let (o, n) = both(MemoryModel::Cpp20, mp_defaults(memory_order::relaxed));
    assert_eq!(o, set([(0, 0), (0, 1), (1, 0), (1, 1)]));
    assert_eq!(n, 4);
}

#[test]
fn acq_rel_default_makes_loads_acquire_and_stores_release() {
    let (o, n) = both(MemoryModel::Cpp20, mp_defaults(memory_order::acq_rel));
    assert_eq!(o, set([(0, 0), (0, 1), (1, 1)]));
    assert_eq!(n, 3);
}

/// Store buffering through references with default order `order`.
fn sb_defaults(order: Ordering) -> impl Fn(&dyn Fn((u32, u32))) + Clone {
    move |rec: &dyn Fn((u32, u32))| {
        let x = Arc::new(Plain::new(0u32));
        let y = Arc::new(Plain::new(0u32));
        let (x0, y0) = (x.clone(), y.clone());
        let p = spawn(move || {
            AtomicRef::sycl(&*x0, order, memory_scope::device).store(1);
            AtomicRef::sycl(&*y0, order, memory_scope::device).load()
        });
        let (x1, y1) = (x.clone(), y.clone());
        let q = spawn(move || {
            AtomicRef::sycl(&*y1, order, memory_scope::device).store(1);
            AtomicRef::sycl(&*x1, order, memory_scope::device).load()
        });
        rec((p.join().unwrap(), q.join().unwrap()));
    }
}

#[test]
fn seq_cst_default_stays_seq_cst_and_acq_rel_does_not() {
    let (o, n) = both(MemoryModel::Cpp20, sb_defaults(memory_order::seq_cst));
    assert_eq!(o, set([(0, 1), (1, 0), (1, 1)]));
    assert_eq!(n, 3);
    let (o, n) = both(MemoryModel::Cpp20, sb_defaults(memory_order::acq_rel));
    assert_eq!(o, set([(0, 0), (0, 1), (1, 0), (1, 1)]));
    assert_eq!(n, 4);
}

/// With a relaxed default, per-call orders make the message passing right;
/// one-order compare-exchanges take the derived failure order.
#[test]
fn per_call_orders_override_the_default() {
    let (o, n) = both(MemoryModel::Cpp20, |rec: &dyn Fn((u32, u32))| {
        let data = Arc::new(Plain::new(0u32));
        let flag = Arc::new(Plain::new(0u32));
        let (d0, f0) = (data.clone(), flag.clone());
        let w = spawn(move || {
            AtomicRef::sycl(&*d0, memory_order::relaxed, memory_scope::system).store(1);
            let f = AtomicRef::sycl(&*f0, memory_order::relaxed, memory_scope::system);
            // acq_rel success, acquire failure (derived): the write releases.
            f.compare_exchange_strong_with(0, 1, memory_order::acq_rel).unwrap();
        });
        let (d1, f1) = (data.clone(), flag.clone());
        let r = spawn(move || {
            let f = AtomicRef::sycl(&*f1, memory_order::relaxed, memory_scope::system);
            // A failing compare-exchange reads with its failure order: acquire.
            let seen = match f.compare_exchange_strong_with(7, 8, (memory_order::relaxed, memory_order::acquire)) {
                Ok(v) | Err(v) => v,
            };
            let d = AtomicRef::sycl(&*d1, memory_order::relaxed, memory_scope::system).load_with(memory_order::relaxed);
            (seen, d)
        });
        w.join().unwrap();
        rec(r.join().unwrap());
    });
    assert_eq!(o, set([(0, 0), (0, 1), (1, 1)]));
    assert_eq!(n, 3);
}

// ----------------------------------------------------------------- scopes

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

// ------------------------------------------------------------------ errors

/// Where `needle` stands in this file, as reports name it.
fn at(needle: &str) -> String {
    position(file!(), include_str!("atomic_ref.rs"), needle)
}

/// Asserts that `f` is thread 0's panic saying exactly `what`, raised at
/// the call that starts with `call` in this file (the caller's line, not
/// the shim's).
#[track_caller]
fn assert_panic(f: &scopecheck::Failure, what: &str, call: &str) {
    assert_eq!(f.message(), format!("thread 0 panicked: {what} (at {})", at(call)));
}

#[test]
fn a_release_load_is_an_error_at_the_call() {
    let f = the_panic(|| {
        let c = Plain::new(0i32);
        let r = AtomicRef::sycl(&c, memory_order::relaxed, memory_scope::device);
        r.load_with(memory_order::release);
    });
    assert_panic(
        &f,
        "there is no such thing as a release load (sycl::atomic_ref<i32>: a load order must be relaxed, acquire \
         or seq_cst)",
        "load_with(memory_order::release)",
    );
}

#[test]
fn an_acquire_release_load_is_an_error() {
    let f = the_panic(|| {
        let c = Plain::new(0u64);
        AtomicRef::cuda(&c, thread_scope::device).load_scoped(Ordering::AcqRel, thread_scope::block);
    });
    assert_panic(
        &f,
        "there is no such thing as an acquire-release load (cuda::atomic_ref<u64>: a load order must be relaxed, \
         acquire or seq_cst)",
        "load_scoped(Ordering::AcqRel, thread_scope::block)",
    );
}

#[test]
fn acquire_and_acquire_release_stores_are_errors() {
    let f = the_panic(|| {
        let c = Plain::new(0u32);
        let r = AtomicRef::sycl(&c, memory_order::seq_cst, memory_scope::device);
        r.store_with(1, memory_order::acquire);
    });
    assert_panic(
        &f,
        "there is no such thing as an acquire store (sycl::atomic_ref<u32>: a store order must be relaxed, \
         release or seq_cst)",
        "store_with(1, memory_order::acquire)",
    );
    let f = the_panic(|| {
        let c = Plain::new(0.5f32);
        AtomicRef::sycl(&c, memory_order::seq_cst, memory_scope::device).store_scoped(
            1.0,
            memory_order::acq_rel,
            memory_scope::system,
        );
    });
    assert_panic(
        &f,
        "there is no such thing as an acquire-release store (sycl::atomic_ref<f32>: a store order must be \
         relaxed, release or seq_cst)",
        "store_scoped(",
    );
}

#[test]
fn release_and_acquire_release_failure_orders_are_errors() {
    let f = the_panic(|| {
        let c = Plain::new(0i64);
        let _ = AtomicRef::sycl(&c, memory_order::relaxed, memory_scope::device).compare_exchange_weak_with(
            0,
            1,
            (memory_order::seq_cst, memory_order::release),
        );
    });
    assert_panic(
        &f,
        "there is no such thing as a release failure ordering (sycl::atomic_ref<i64>: a compare-exchange's \
         failure order must be relaxed, acquire or seq_cst)",
        "compare_exchange_weak_with(",
    );
    let f = the_panic(|| {
        let c = Plain::new(0i64);
        let _ = AtomicRef::cuda(&c, thread_scope::device).compare_exchange_strong_scoped(
            0,
            1,
            (Ordering::AcqRel, Ordering::AcqRel),
            thread_scope::system,
        );
    });
    assert_panic(
        &f,
        "there is no such thing as an acquire-release failure ordering (cuda::atomic_ref<i64>: a \
         compare-exchange's failure order must be relaxed, acquire or seq_cst)",
        "compare_exchange_strong_scoped(",
    );
}

/// The default orders never produce an invalid order: every operation with
/// defaults runs under each default order SYCL allows.
#[test]
fn every_default_order_is_valid_for_every_operation() {
    for order in [memory_order::relaxed, memory_order::acq_rel, memory_order::seq_cst] {
        let r = Builder::new().explore(move || {
            let c = Plain::new(1u32);
            let r = AtomicRef::sycl(&c, order, memory_scope::device);
            r.store(r.load());
            r.exchange(2);
            let _ = r.compare_exchange_strong(2, 3);
            let _ = r.compare_exchange_strong(9, 3);
            r.fetch_add(1);
            r.fetch_sub(1);
            r.fetch_and(7);
            r.fetch_or(8);
            r.fetch_xor(1);
            r.fetch_min(4);
            r.fetch_max(5);
            assert_eq!(c.read(), 5);
        });
        assert!(r.failures().is_empty(), "{order:?}: {r}");
        assert_eq!(r.executions(), 1);
    }
}

#[test]
fn sycl_default_order_must_be_relaxed_acq_rel_or_seq_cst() {
    let why = "sycl::atomic_ref<i32>: the default order must be relaxed, acq_rel or seq_cst (SYCL defines \
               default_read_order and default_write_order only for those)";
    let f = the_panic(|| {
        let c = Plain::new(0i32);
        let _ = AtomicRef::sycl(&c, memory_order::acquire, memory_scope::device);
    });
    assert_panic(
        &f,
        &format!("{why}, not Acquire"),
        "AtomicRef::sycl(&c, memory_order::acquire",
    );
    let f = the_panic(|| {
        let c = Plain::new(0i32);
        let _ = AtomicRef::sycl(&c, memory_order::release, memory_scope::device);
    });
    assert_panic(
        &f,
        &format!("{why}, not Release"),
        "AtomicRef::sycl(&c, memory_order::release",
    );
}

#[test]
fn sycl_types_are_its_integers_floats_and_pointers() {
    let types = "T must be int, unsigned int, long, unsigned long, long long, unsigned long long, float, double or \
                 a pointer, of 4 or 8 bytes (i32, u32, i64, u64, isize, usize, f32, f64, *mut U, *const U)";
    let f = the_panic(|| {
        let small = Plain::new(0u8);
        let _ = AtomicRef::sycl(&small, memory_order::relaxed, memory_scope::device);
    });
    assert_panic(
        &f,
        &format!("sycl::atomic_ref<u8>: {types}; u8 is a 1-byte unsigned integer"),
        "AtomicRef::sycl(&small,",
    );
    let f = the_panic(|| {
        let flag = Plain::new(true);
        let _ = AtomicRef::sycl(&flag, memory_order::relaxed, memory_scope::device);
    });
    assert_panic(
        &f,
        &format!("sycl::atomic_ref<bool>: {types}; bool is a 1-byte bool"),
        "AtomicRef::sycl(&flag,",
    );
}

#[test]
fn cuda_types_must_have_four_or_eight_bytes() {
    let f = the_panic(|| {
        let short = Plain::new(0i16);
        let _ = AtomicRef::cuda(&short, thread_scope::block);
    });
    assert_panic(
        &f,
        "cuda::atomic_ref<i16>: the checker models atomic references to 4- and 8-byte objects, and this type has \
         2 bytes",
        "AtomicRef::cuda(&short,",
    );
}

#[test]
fn plain_cells_hold_at_most_eight_bytes() {
    #[derive(Copy, Clone)]
    struct Wide([u64; 2]);
    impl AtomicValue for Wide {
        const KIND: ValueKind = ValueKind::Other;
        fn to_bits(self) -> u64 {
            self.0[0]
        }
        fn from_bits(b: u64) -> Wide {
            Wide([b, 0])
        }
    }
    let f = the_panic(|| {
        let _ = Plain::new(Wide([1, 2]));
    });
    assert_panic(
        &f,
        "scopecheck: a checker location holds values of at most 8 bytes (it keeps each one as a 64-bit pattern), \
         and atomic_ref::plain_cells_hold_at_most_eight_bytes::Wide does not fit: this type has 16",
        "Plain::new(Wide([1, 2]))",
    );
}

#[test]
fn an_asserted_address_space_must_match_the_cells() {
    let f = the_panic(|| {
        let c = Plain::local(0i32);
        let asserted = address_space::global_space;
        let _ = AtomicRef::sycl_in(&c, memory_order::relaxed, memory_scope::work_group, asserted);
    });
    assert_panic(
        &f,
        "sycl::atomic_ref<i32> asserts address_space::global_space, but Plain<i32>(loc0.0) was made in \
         local_space (SYCL: a mismatched address space is undefined behaviour)",
        "AtomicRef::sycl_in(&c, memory_order::relaxed, memory_scope::work_group, asserted)",
    );
    // A matching assertion, and any assertion on a cell whose space was not
    // said, are fine. (Local memory is reached only inside a kernel: a host
    // thread touching it is a misuse of its own.)
    scopecheck::model(|| {
        use scopecheck::gpu::{launch, Launch};
        let g = Plain::global(0i32);
        let n = Plain::new(0i32);
        launch(
            Launch::new(1, 1),
            |_| Plain::local(0i32),
            |item| {
                let l = item.shared();
                AtomicRef::sycl_in(
                    l,
                    memory_order::relaxed,
                    memory_scope::work_group,
                    address_space::local_space,
                )
                .store(1);
                AtomicRef::sycl_in(
                    l,
                    memory_order::relaxed,
                    memory_scope::device,
                    address_space::generic_space,
                )
                .store(2);
                assert_eq!(l.read(), 2);
            },
        );
        AtomicRef::sycl_in(
            &g,
            memory_order::relaxed,
            memory_scope::device,
            address_space::global_space,
        )
        .store(1);
        AtomicRef::sycl_in(
            &n,
            memory_order::relaxed,
            memory_scope::device,
            address_space::local_space,
        )
        .store(1);
        assert_eq!((g.read(), n.read()), (1, 1));
    });
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

/// A pointer whose address changes from one execution to the next (here a
/// std counter stands in for a heap address) is taken from the running
/// execution: the load returns the initial null or this execution's
/// pointer, never one recorded in an earlier execution
/// (docs/heap-addresses.md; an integer that changes so is a
/// nondeterministic program: heap_pointers.rs).
#[test]
fn a_stored_pointer_that_differs_between_executions_is_the_running_executions() {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let seen = std::cell::RefCell::new(BTreeSet::new());
    let r = Builder::new().explore(|| {
        let fresh = (0x1000 + 8 * RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) as *mut u64;
        let cell = Arc::new(Plain::new(std::ptr::null_mut::<u64>()));
        let c1 = cell.clone();
        let f = fresh as usize;
        let t = spawn(move || AtomicRef::cuda(&*c1, thread_scope::system).store(f as *mut u64));
        let got = AtomicRef::cuda(&*cell, thread_scope::system).load();
        t.join().unwrap();
        seen.borrow_mut().insert(if got.is_null() {
            "null"
        } else if got == fresh {
            "this execution's"
        } else {
            "another execution's"
        });
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(r.executions(), 2);
    assert_eq!(*seen.borrow(), BTreeSet::from(["null", "this execution's"]));
}

/// The same for a cell's initial value.
#[test]
fn an_initial_pointer_that_differs_between_executions_is_the_running_executions() {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let seen = std::cell::RefCell::new(BTreeSet::new());
    let r = Builder::new().explore(|| {
        let fresh = (0x1000 + 8 * RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) as *mut u64;
        let cell = Arc::new(Plain::new(fresh));
        let c1 = cell.clone();
        let t = spawn(move || AtomicRef::cuda(&*c1, thread_scope::system).store(std::ptr::null_mut()));
        let got = AtomicRef::cuda(&*cell, thread_scope::system).load();
        t.join().unwrap();
        seen.borrow_mut().insert(if got.is_null() {
            "null"
        } else if got == fresh {
            "this execution's"
        } else {
            "another execution's"
        });
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(r.executions(), 2);
    assert_eq!(*seen.borrow(), BTreeSet::from(["null", "this execution's"]));
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
