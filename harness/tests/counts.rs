//! Exact execution counts of the optimal explorer (each consistent execution
//! graph exactly once), and agreement with the reference enumerator on the
//! instances small enough for it.

mod common;

use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::sync::Arc;
use scopecheck::{thread, Builder, MemoryModel, Strategy};

fn join_all(hs: Vec<thread::JoinHandle<()>>) {
    for h in hs {
        h.join().unwrap();
    }
}

/// N threads, each doing `vars.len()` relaxed fetch_adds, one per variable in order.
fn fetch_adds(n: usize, vars: usize) -> impl Fn() + Clone {
    move || {
        let xs: Arc<Vec<AtomicUsize>> = Arc::new((0..vars).map(|_| AtomicUsize::new(0)).collect());
        let hs = (0..n)
            .map(|_| {
                let xs = xs.clone();
                thread::spawn(move || {
                    for x in xs.iter() {
                        x.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        join_all(hs);
        for x in xs.iter() {
            assert_eq!(x.load(Ordering::Relaxed), n);
        }
    }
}

/// Thread i (1..=n) does a relaxed strong compare_exchange of x from i-1 to i.
fn rotation(n: usize) -> impl Fn() + Clone {
    move || {
        let x = Arc::new(AtomicUsize::new(0));
        let hs = (1..=n)
            .map(|i| {
                let x = x.clone();
                thread::spawn(move || {
                    let _ = x.compare_exchange(i - 1, i, Ordering::Relaxed, Ordering::Relaxed);
                })
            })
            .collect();
        join_all(hs);
    }
}

/// One release store of 42 and n acquire readers.
fn readers(n: usize) -> impl Fn() + Clone {
    move || {
        let x = Arc::new(AtomicUsize::new(0));
        let x1 = x.clone();
        let mut hs = vec![thread::spawn(move || x1.store(42, Ordering::Release))];
        for _ in 0..n {
            let x = x.clone();
            hs.push(thread::spawn(move || {
                let v = x.load(Ordering::Acquire);
                assert!(v == 0 || v == 42);
            }));
        }
        join_all(hs);
    }
}

fn count(strategy: Strategy, f: impl Fn()) -> u64 {
    let mut b = Builder::new();
    b.strategy = strategy;
    let r = b.explore(f);
    assert!(r.failures().is_empty(), "{r}");
    assert!(r.is_complete(), "{r}");
    r.executions()
}

fn exhaustive(f: impl Fn()) -> u64 {
    count(Strategy::Exhaustive, f)
}

fn reference(f: impl Fn()) -> u64 {
    count(Strategy::Reference, f)
}

fn factorial(n: u64) -> u64 {
    (1..=n).product()
}

#[test]
fn n_threads_one_fetch_add_is_n_factorial() {
    for n in 2..=7 {
        assert_eq!(exhaustive(fetch_adds(n, 1)), factorial(n as u64), "n = {n}");
    }
}

#[test]
fn n_threads_two_fetch_adds_is_n_factorial_squared() {
    for n in 2..=4 {
        let f = factorial(n as u64);
        assert_eq!(exhaustive(fetch_adds(n, 2)), f * f, "n = {n}");
    }
}

/// Executions of the compare-exchange rotation for n = 2, 3, ...
const ROTATION: [u64; 8] = [2, 5, 14, 43, 144, 523, 2048, 8597];

#[test]
fn compare_exchange_rotation() {
    for (n, &want) in (2..=9).zip(ROTATION.iter()) {
        assert_eq!(exhaustive(rotation(n)), want, "n = {n}");
    }
}

#[test]
fn acquire_readers_of_one_release_store() {
    for n in 1..=10 {
        assert_eq!(exhaustive(readers(n)), 1 << n, "n = {n}");
    }
}

#[test]
fn two_threads_ten_fetch_adds() {
    // mo interleaves two chains of 10 RMWs: C(20, 10).
    let f = || {
        let x = Arc::new(AtomicUsize::new(0));
        let x1 = x.clone();
        let t = thread::spawn(move || {
            for _ in 0..10 {
                x1.fetch_add(1, Ordering::Relaxed);
            }
        });
        for _ in 0..10 {
            x.fetch_add(1, Ordering::Relaxed);
        }
        t.join().unwrap();
        assert_eq!(x.load(Ordering::Relaxed), 20);
    };
    assert_eq!(exhaustive(f), 184756);
}

#[test]
fn reference_agrees_on_small_instances() {
    // The reference tries every interleaving, so only small instances are feasible.
    for n in 2..=3 {
        assert_eq!(reference(fetch_adds(n, 1)), factorial(n as u64));
    }
    assert_eq!(reference(fetch_adds(2, 2)), 4);
    for n in 2..=4 {
        assert_eq!(reference(rotation(n)), ROTATION[n - 2], "rotation n = {n}");
    }
    for n in 1..=3 {
        assert_eq!(reference(readers(n)), 1 << n, "readers n = {n}");
    }
}

#[test]
fn sc_counts_equal_rc11_counts_for_rmw_only_programs() {
    // With only RMWs on one location every RC11 execution is SC.
    for n in 2..=4 {
        let (_, k) = common::both(MemoryModel::Sc, |rec: &dyn Fn(usize)| {
            fetch_adds(n, 1)();
            rec(0);
        });
        assert_eq!(k, factorial(n as u64));
    }
}

#[test]
fn random_exploration_is_seeded_and_bounded() {
    // The outcome of every execution, in the order they ran.
    let run = |seed| {
        let mut b = Builder::new();
        b.strategy = Strategy::Random { seed, iterations: 50 };
        let seq = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let s2 = seq.clone();
        let r = b.explore(move || {
            let rec = |v: Vec<usize>| s2.borrow_mut().push(v);
            let x = Arc::new(AtomicUsize::new(0));
            let log = Arc::new(std::sync::Mutex::new(Vec::new()));
            let hs = (0..3)
                .map(|i| {
                    let (x, log) = (x.clone(), log.clone());
                    thread::spawn(move || {
                        let v = x.fetch_add(1, Ordering::Relaxed);
                        log.lock().unwrap().push((v, i));
                    })
                })
                .collect();
            join_all(hs);
            let mut l = log.lock().unwrap().clone();
            l.sort();
            rec(l.into_iter().map(|(_, i)| i).collect());
        });
        assert_eq!(r.runs(), 50);
        assert!(r.failures().is_empty());
        let v = seq.borrow().clone();
        v
    };
    let a = run(7);
    assert_eq!(a.len(), 50);
    assert_eq!(a, run(7), "same seed, same executions in the same order");
    assert_ne!(a, run(8), "another seed, another sequence");
    // 50 random executions of 6 equally likely orders find them all.
    let distinct: std::collections::BTreeSet<_> = a.iter().cloned().collect();
    assert_eq!(distinct.len(), 6);
}
