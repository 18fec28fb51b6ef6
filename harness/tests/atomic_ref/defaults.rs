//! SYCL's default-order rules and per-call order overrides.

use super::*;

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
