//! Scoped atomic references (`scopecheck::sync::atomic_ref`, seed 003 and
//! seed 001): every operation's result, SYCL's default-order rules,
//! per-call overrides, scopes, floating-point and pointer arithmetic, and
//! the errors for orders and types an atomic reference cannot have.

#[path = "../common/mod.rs"]
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

mod defaults;
mod errors;
mod scopes;

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
