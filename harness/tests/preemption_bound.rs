//! The preemption bound (`Builder::preemption_bound`, `LOOM_MAX_PREEMPTIONS`)
//! against its oracle: the reference enumerator bounded the same way
//! (every interleaving with at most k preemptions, counted as loom counts
//! them) gives the set of graphs within the bound; the bounded optimal
//! explorer must explore every one of them, and with a large bound exactly
//! what the unbounded explorer explores.

mod common;

use scopecheck::sync::atomic::{fence, AtomicUsize, Ordering};
use scopecheck::sync::{Arc, Mutex};
use scopecheck::{thread, Builder};
use scopecheck_checker::engine::ExecutionEnd;
use scopecheck_checker::explore::reference::canonical_key;
use scopecheck_instrument::rt::{run_with, RunConfig, StrategyChoice};
use std::collections::BTreeSet;

use common::Gen;

#[derive(Clone, Copy, Debug)]
enum Instr {
    Load(usize, Ordering),
    Store(usize, usize, Ordering),
    FetchAdd(usize, Ordering),
    Cas(usize, usize, usize),
    Fence,
    /// A load; the next instruction runs only if it read 0 (control dependence).
    LoadSkip(usize),
    Yield,
    /// Locks the mutex, adds 1 to location 0 in it, unlocks.
    Locked,
}

fn program(seed: u64) -> (Vec<Instr>, Vec<Vec<Instr>>) {
    let mut g = Gen(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let threads = 2 + g.below(2) as usize;
    let instr = |g: &mut Gen| {
        let loc = g.below(2) as usize;
        let ord = [Ordering::Relaxed, Ordering::Release, Ordering::SeqCst][g.below(3) as usize];
        let lord = [Ordering::Relaxed, Ordering::Acquire, Ordering::SeqCst][g.below(3) as usize];
        match g.below(9) {
            0 | 1 => Instr::Load(loc, lord),
            2 | 3 => Instr::Store(loc, 1 + g.below(2) as usize, ord),
            4 => Instr::FetchAdd(loc, ord),
            5 => Instr::Cas(loc, g.below(2) as usize, 2),
            6 => Instr::LoadSkip(loc),
            7 => [Instr::Yield, Instr::Fence][g.below(2) as usize],
            // (A mutex in three threads makes the reference slow.)
            _ if threads == 2 => Instr::Locked,
            _ => Instr::Yield,
        }
    };
    let main: Vec<Instr> = (0..g.below(2)).map(|_| instr(&mut g)).collect();
    let bodies = (0..threads)
        .map(|_| {
            let len = 1 + g.below(if threads == 2 { 3 } else { 2 }) as usize;
            (0..len).map(|_| instr(&mut g)).collect()
        })
        .collect();
    (main, bodies)
}

struct Shared {
    locs: [AtomicUsize; 2],
    m: Mutex<()>,
}

fn exec(s: &Shared, body: &[Instr]) {
    let mut skip = false;
    for &i in body {
        if std::mem::take(&mut skip) {
            continue;
        }
        match i {
            Instr::Load(l, o) => {
                s.locs[l].load(o);
            }
            Instr::Store(l, v, o) => s.locs[l].store(v, o),
            Instr::FetchAdd(l, o) => {
                s.locs[l].fetch_add(1, o);
            }
            Instr::Cas(l, old, new) => {
                let _ = s.locs[l].compare_exchange(old, new, Ordering::AcqRel, Ordering::Acquire);
            }
            Instr::Fence => fence(Ordering::SeqCst),
            Instr::LoadSkip(l) => skip = s.locs[l].load(Ordering::Acquire) != 0,
            Instr::Yield => thread::yield_now(),
            Instr::Locked => {
                let _g = s.m.lock().unwrap();
                s.locs[0].fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

fn run_program(main: &[Instr], bodies: &[Vec<Instr>]) {
    let s = Arc::new(Shared {
        locs: [AtomicUsize::new(0), AtomicUsize::new(0)],
        m: Mutex::new(()),
    });
    let hs: Vec<_> = bodies
        .iter()
        .map(|b| {
            let (s, b) = (s.clone(), b.clone());
            thread::spawn(move || exec(&s, &b))
        })
        .collect();
    exec(&s, main);
    for h in hs {
        h.join().unwrap();
    }
}

/// The complete graphs a run explores, and how many complete executions it ran.
fn graphs(strategy: StrategyChoice, bound: Option<u32>, f: &dyn Fn()) -> (BTreeSet<String>, u64) {
    let config = RunConfig {
        strategy,
        preemption_bound: bound,
        ..RunConfig::default()
    };
    let mut seen = BTreeSet::new();
    let r = run_with(&config, f, &mut |g, end| {
        if end == ExecutionEnd::Complete {
            seen.insert(canonical_key(g));
        }
    });
    assert!(r.failures.is_empty(), "{:?}", r.failures.first().map(|f| f.message()));
    assert!(r.complete, "{:?}", r.incomplete_reason);
    (seen, r.stats.complete)
}

#[test]
fn the_bounded_explorer_covers_the_bounded_reference_on_generated_programs() {
    let mut strictly_fewer = 0;
    for seed in 0..120 {
        let (main, bodies) = program(seed);
        let f = || run_program(&main, &bodies);
        let (all, n_all) = graphs(StrategyChoice::Exhaustive, None, &f);
        for k in 0..=2 {
            let (oracle, _) = graphs(StrategyChoice::Reference, Some(k), &f);
            let (bounded, n) = graphs(StrategyChoice::Exhaustive, Some(k), &f);
            let missing: Vec<_> = oracle.difference(&bounded).collect();
            assert!(
                missing.is_empty(),
                "seed {seed} ({main:?} {bodies:?}), bound {k}: {} graph(s) within the bound not explored, e.g.\n{}",
                missing.len(),
                missing[0]
            );
            assert!(bounded.is_subset(&all), "seed {seed}, bound {k}");
            // Each graph once: the bounded explorer is still optimal.
            assert_eq!(
                n,
                bounded.len() as u64,
                "seed {seed}, bound {k}: a graph explored twice"
            );
            if n < n_all {
                strictly_fewer += 1;
            }
        }
        let (large, _) = graphs(StrategyChoice::Exhaustive, Some(50), &f);
        assert_eq!(large, all, "seed {seed}: a large bound must explore what no bound does");
    }
    // The bound prunes: it is not a test that cannot fail by exploring everything.
    assert!(strictly_fewer >= 10, "the bound pruned only {strictly_fewer} times");
    eprintln!("the bound explored fewer executions in {strictly_fewer} of 360 runs");
}

/// `threads` threads, each `ops` relaxed `fetch_add`s on one location.
fn adders(threads: usize, ops: usize) -> impl Fn() {
    move || {
        let x = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (0..threads)
            .map(|_| {
                let x = x.clone();
                thread::spawn(move || {
                    for _ in 0..ops {
                        x.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
    }
}

#[test]
fn exact_counts_of_n_threads_of_k_adds_under_bounds_0_1_2() {
    // (threads, adds each, bound) -> (graphs within the bound by the
    // reference, complete executions of the bounded explorer).
    // (The bounded explorer runs more: its slack keeps graphs a revisit
    // may still turn into ones within the bound.)
    let cases = [
        (2, 2, 0, 2, 3),
        (2, 2, 1, 4, 6),
        (2, 2, 2, 6, 6),
        (2, 3, 0, 2, 4),
        (2, 3, 1, 6, 12),
        (2, 3, 2, 14, 17),
        (3, 1, 0, 6, 6),
        (3, 2, 0, 6, 46),
        (3, 2, 1, 24, 90),
        (3, 2, 2, 60, 90),
    ];
    let mut got = Vec::new();
    for &(n, k, b, _, _) in &cases {
        let f = adders(n, k);
        let (oracle, _) = graphs(StrategyChoice::Reference, Some(b), &f);
        let (bounded, runs) = graphs(StrategyChoice::Exhaustive, Some(b), &f);
        assert!(oracle.is_subset(&bounded), "{n}x{k}, bound {b}");
        got.push((n, k, b, oracle.len() as u64, runs));
    }
    assert_eq!(got, cases.to_vec());
}

#[test]
fn the_parallel_explorer_honours_the_bound() {
    // The same graphs are kept and cut whichever explorer thread holds
    // them: counts equal the sequential bounded run's, and the report
    // states the bound.
    for (n, k, b) in [(2, 3, 1u32), (3, 2, 0), (3, 2, 1)] {
        let mut builder = Builder::new();
        builder.budget = None;
        builder.preemption_bound = Some(b as usize);
        let one = builder.explore(adders(n, k));
        let par = builder.explore_parallel(2, adders(n, k));
        assert!(one.is_complete() && par.is_complete(), "{n}x{k}, bound {b}");
        assert_eq!(
            (par.executions(), par.pruned(), par.preemption_bound()),
            (one.executions(), one.pruned(), Some(b)),
            "{n}x{k}, bound {b}"
        );
    }
}

#[test]
fn a_bounded_report_says_what_it_covered() {
    let mut b = Builder::new();
    b.budget = None;
    b.preemption_bound = Some(1);
    let r = b.explore(adders(2, 3));
    assert!(r.is_complete());
    assert_eq!(r.preemption_bound(), Some(1));
    // 12 of the 20 (2 threads of 3 adds have C(6,3) = 20 executions).
    assert_eq!(r.executions(), 12);
    let text = r.to_string();
    assert!(
        text.contains(&format!(
            "complete up to 1 preemption(s): every execution with at most 1 preemption(s) was explored (some with \
             more too; {} cut past the bound)",
            r.pruned()
        )),
        "{text}"
    );
    b.preemption_bound = None;
    let r = b.explore(adders(2, 3));
    assert_eq!((r.executions(), r.pruned(), r.coverage()), (20, 0, None));
    assert!(!r.to_string().contains("preemption"), "{r}");
}

#[test]
fn loom_max_preemptions_sets_the_bound_and_a_budget() {
    // (The only test of this file that sets the environment; the others
    // set every field they rely on.)
    std::env::set_var("LOOM_MAX_PREEMPTIONS", " 3 ");
    let b = Builder::new();
    std::env::remove_var("LOOM_MAX_PREEMPTIONS");
    assert_eq!(b.preemption_bound, Some(3));
    assert_eq!(b.budget, Some(std::time::Duration::from_secs(1)));
    let b = Builder::new();
    assert_eq!((b.preemption_bound, b.budget), (None, None));
}
