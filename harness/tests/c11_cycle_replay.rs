//! A failure found in an execution with a cycle in po ∪ rf (`c11`'s
//! promised reads, docs/c11-model.md section 4) prints a token that
//! replays it: the token carries the promises, the replay gives them to
//! the engine again, and a program that no longer keeps a promise makes
//! the replay diverge (neither a failure nor a pass).

mod common;

use common::builder;
use scopecheck::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use scopecheck::sync::Arc;
use scopecheck::{thread, MemoryModel, Report, Strategy};

/// Load buffering whose cyclic outcome a = b = 1 fails an assertion; t1
/// stores `v` to y.
fn lb(v: usize) -> impl Fn() + Clone + Send + 'static {
    move || {
        let (x, y) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (x1, y1) = (x.clone(), y.clone());
        let h = thread::spawn(move || {
            let a = x1.load(Relaxed);
            y1.store(v, Relaxed);
            a
        });
        let b = y.load(Relaxed);
        x.store(1, Relaxed);
        let a = h.join().unwrap();
        assert!(!(a == 1 && b == 1), "the load-buffering cycle");
    }
}

fn replay(token: &str, body: impl Fn() + Clone + Send + 'static) -> Report {
    builder(MemoryModel::C11, Strategy::Replay(token.to_string())).explore(body)
}

#[test]
fn a_failure_in_a_cyclic_execution_replays_to_the_same_failure() {
    let r = builder(MemoryModel::C11, Strategy::Exhaustive).explore(lb(1));
    assert_eq!(r.failures().len(), 1, "{r}");
    let f = &r.failures()[0];
    assert!(f.message().contains("the load-buffering cycle"), "{r}");
    // The report names the write the promised read reads, not its
    // placeholder (the initial write).
    let text = r.to_string();
    assert!(
        text.contains("load(rlx) loc0.1 = 1 (rf T1.2, promised: a write po ∪ rf-after this read)"),
        "{text}"
    );
    let again = replay(f.token(), lb(1));
    assert!(!again.replay_diverged(), "{again}");
    assert_eq!(again.failures().len(), 1, "{again}");
    let g = &again.failures()[0];
    assert_eq!(g.message(), f.message());
    assert_eq!(g.token(), f.token());
    let shown = |g: &scopecheck::Failure| {
        let mut s = String::new();
        scopecheck::report::write_execution(&mut s, g.graph(), &[]).unwrap();
        s
    };
    assert_eq!(shown(g), shown(f));
}

#[test]
fn a_program_that_no_longer_keeps_the_promise_makes_the_replay_diverge() {
    let r = builder(MemoryModel::C11, Strategy::Exhaustive).explore(lb(1));
    let token = r.failures()[0].token().to_string();
    // t1 now stores 2 where the promised read was promised 1.
    let again = replay(&token, lb(2));
    assert!(again.failures().is_empty(), "{again}");
    assert!(again.replay_diverged(), "{again}");
    let d = again.replay_divergence().unwrap();
    assert!(d.contains("a promised value the program did not write"), "{d}");
}

/// Load buffering through two fetch_adds (each promised read an RMW's
/// read part, its write part added as a plain write until the promise is
/// kept: `engine/promised.rs`) whose cyclic outcome fails an assertion.
fn lb_rmw() {
    let (x, y) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (x1, y1) = (x.clone(), y.clone());
    let h = thread::spawn(move || {
        let a = x1.fetch_add(1, Relaxed);
        y1.store(1, Relaxed);
        a
    });
    let b = y.fetch_add(1, Relaxed);
    x.store(1, Relaxed);
    let a = h.join().unwrap();
    assert!(!(a == 1 && b == 1), "the RMW cycle");
}

#[test]
fn a_failure_in_a_cycle_through_rmw_reads_replays_to_the_same_failure() {
    let r = builder(MemoryModel::C11, Strategy::Exhaustive).explore(lb_rmw);
    assert_eq!(r.failures().len(), 1, "{r}");
    let f = &r.failures()[0];
    assert!(f.message().contains("the RMW cycle"), "{r}");
    let again = replay(f.token(), lb_rmw);
    assert!(!again.replay_diverged(), "{again}");
    assert_eq!(again.failures().len(), 1, "{again}");
    assert_eq!(again.failures()[0].message(), f.message());
    assert_eq!(again.failures()[0].token(), f.token());
}
