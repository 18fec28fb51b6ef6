//! The explorer's psc shortcut (`checker/src/model/psc.rs`: psc over the
//! seq_cst accesses alone, from views and mo positions) against the
//! relation algebra's psc, on programs whose seq_cst accesses are ordered
//! across threads by spawn and join as well as by po, hb, mo and fr.
//!
//! Two checks per program: the reference enumerator visits every rf and mo
//! choice (consistent or not), and on each graph it ends with the shortcut
//! and the algebra must give the same verdict; and the optimal explorer,
//! which uses the shortcut, must find exactly the reference's outcomes and
//! execution count.

mod common;

use scopecheck::sync::atomic::{
    AtomicUsize,
    Ordering::{Acquire, Release, SeqCst},
};
use scopecheck::sync::Arc;
use scopecheck::{thread, MemoryModel};
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::model::{psc, relations::Relations};
use scopecheck_instrument::rt::{self, RunConfig, StrategyChoice};
use std::cell::Cell;

/// Runs `body` under the reference enumerator and compares the two psc
/// verdicts on every graph it ends with; returns (graphs compared, graphs
/// with a psc cycle).
fn compare_on_every_graph(model: MemoryModel, body: &dyn Fn()) -> (u64, u64) {
    let config = RunConfig {
        model,
        strategy: StrategyChoice::Reference,
        ..RunConfig::default()
    };
    let rules = model.sync_rules();
    let compared = Cell::new(0u64);
    let cyclic = Cell::new(0u64);
    let result = rt::run_with(&config, body, &mut |g: &ExecutionGraph, _| {
        let algebra = !Relations::of(g, rules).psc(g).has_cycle();
        let shortcut = psc::acyclic(g, rules.scoped).expect("no seq_cst fence or barrier in these programs");
        assert_eq!(shortcut, algebra, "psc verdicts differ on {g:#?}");
        compared.set(compared.get() + 1);
        cyclic.set(cyclic.get() + u64::from(!algebra));
    });
    assert!(result.complete && result.failures.is_empty(), "{:?}", result.failures);
    (compared.get(), cyclic.get())
}

/// Store buffering between two spawned threads, with seq_cst accesses of
/// the main thread before the spawns and after the joins.
fn sb_around_spawn(rec: &dyn Fn(Vec<usize>)) {
    let x = Arc::new(AtomicUsize::new(0));
    let y = Arc::new(AtomicUsize::new(0));
    x.store(1, SeqCst);
    let (x1, y1) = (x.clone(), y.clone());
    let t1 = thread::spawn(move || {
        y1.store(1, SeqCst);
        x1.load(SeqCst)
    });
    let (x2, y2) = (x.clone(), y.clone());
    let t2 = thread::spawn(move || {
        x2.store(2, SeqCst);
        y2.load(SeqCst)
    });
    let a = t1.join().unwrap();
    let b = t2.join().unwrap();
    let c = y.load(SeqCst);
    rec(vec![a, b, c, x.load(SeqCst)]);
}

/// A spawned thread that spawns and joins a thread of its own between
/// seq_cst accesses, beside a thread doing store buffering with it.
fn nested_spawn(rec: &dyn Fn(Vec<usize>)) {
    let x = Arc::new(AtomicUsize::new(0));
    let y = Arc::new(AtomicUsize::new(0));
    let (x1, y1) = (x.clone(), y.clone());
    let t1 = thread::spawn(move || {
        x1.store(1, SeqCst);
        let y3 = y1.clone();
        let inner = thread::spawn(move || y3.load(SeqCst));
        let seen = inner.join().unwrap();
        (seen, y1.load(SeqCst))
    });
    let (x2, y2) = (x.clone(), y.clone());
    let t2 = thread::spawn(move || {
        y2.store(1, SeqCst);
        x2.fetch_add(1, SeqCst)
    });
    let (a, b) = t1.join().unwrap();
    let c = t2.join().unwrap();
    rec(vec![a, b, c]);
}

/// Store buffering whose first edge is a release/acquire message between
/// non-seq_cst accesses: `x=1` reaches T2's seq_cst load of y only through
/// `po|≠loc ; hb ; po|≠loc` (x=1 po z=1 -sw-> z load po y load), so that
/// part of scb alone forbids r1=1, r2=0, r3=0.
fn sb_through_a_message(rec: &dyn Fn(Vec<usize>)) {
    let x = Arc::new(AtomicUsize::new(0));
    let y = Arc::new(AtomicUsize::new(0));
    let z = Arc::new(AtomicUsize::new(0));
    let (x1, z1) = (x.clone(), z.clone());
    let t1 = thread::spawn(move || {
        x1.store(1, SeqCst);
        z1.store(1, Release);
    });
    let (y2, z2) = (y.clone(), z.clone());
    let t2 = thread::spawn(move || (z2.load(Acquire), y2.load(SeqCst)));
    let (x3, y3) = (x.clone(), y.clone());
    let t3 = thread::spawn(move || {
        y3.store(1, SeqCst);
        x3.load(SeqCst)
    });
    t1.join().unwrap();
    let (r1, r2) = t2.join().unwrap();
    let r3 = t3.join().unwrap();
    rec(vec![r1, r2, r3]);
}

// The graph counts are the reference enumerator's (every rf and mo choice,
// each graph ended at its first inconsistent step); that some have a psc
// cycle and some do not is what makes the comparison worth making.

/// All accesses are seq_cst, so the outcomes are SC's: the interleavings of
/// `y=1; a=x` with `x=2; b=y` (never a=1 with b=0), after `x=1` and before
/// the final loads, which read y=1 and x=2.
#[test]
fn sb_around_spawn_agrees_with_the_algebra() {
    let (compared, cyclic) = compare_on_every_graph(MemoryModel::Rc11, &|| sb_around_spawn(&|_| {}));
    assert_eq!((compared, cyclic), (110, 88));
    let (outcomes, executions) = common::both(MemoryModel::Rc11, sb_around_spawn);
    assert_eq!(outcomes, [vec![1, 1, 1, 2], vec![2, 0, 1, 2], vec![2, 1, 1, 2]].into());
    assert_eq!(executions, 3);
}

/// SC again: `y=1` falls before, between or after the inner thread's load
/// and the load after the join; the fetch_add reads 0 only if it precedes
/// `x=1`, which needs `y=1` before both loads.
#[test]
fn nested_spawn_agrees_with_the_algebra() {
    let (compared, cyclic) = compare_on_every_graph(MemoryModel::Rc11, &|| nested_spawn(&|_| {}));
    assert_eq!((compared, cyclic), (103, 44));
    let (outcomes, executions) = common::both(MemoryModel::Rc11, nested_spawn);
    assert_eq!(
        outcomes,
        [vec![0, 0, 1], vec![0, 1, 1], vec![1, 1, 0], vec![1, 1, 1]].into()
    );
    assert_eq!(executions, 4);
}

/// Every combination but r1=1, r2=0, r3=0 (a psc cycle x=1 -> load y -fr->
/// y=1 -po-> load x -fr-> x=1 whose first edge is the middle part of scb),
/// one execution each (each location has one write, so the rf choices are
/// the outcome).
#[test]
fn sb_through_a_message_agrees_with_the_algebra() {
    let (compared, cyclic) = compare_on_every_graph(MemoryModel::Rc11, &|| sb_through_a_message(&|_| {}));
    assert_eq!((compared, cyclic), (1255, 84));
    let (outcomes, executions) = common::both(MemoryModel::Rc11, sb_through_a_message);
    let all: Vec<Vec<usize>> = (0..8)
        .map(|i| vec![i >> 2 & 1, i >> 1 & 1, i & 1])
        .filter(|o| *o != [1, 0, 0])
        .collect();
    assert_eq!(outcomes, all.into_iter().collect());
    assert_eq!(executions, 7);
}
