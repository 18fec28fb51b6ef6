//! The `c11` model (docs/c11-model.md): C11 as herd's and Dat3M's
//! `c11.cat` define it. Each test pins an exact outcome set where C11 and
//! RC11 differ (release sequences, the seq_cst axiom, non-atomic reads),
//! the explorer against the reference enumerator, and a Rust program under
//! `MemoryModel::C11`.

use scopecheck::litmus::output::state_text;
use scopecheck::litmus::{check_file, check_source, LitmusModel, Options, TestResult};
use scopecheck::{MemoryModel, Strategy};
use std::collections::BTreeSet;
use std::path::Path;

/// Runs `src` on the explorers only (no executions with a cycle in po ∪
/// rf): what these tests pin needs none, and the cyclic enumeration of the
/// three-thread test below takes minutes (docs/c11-model.md section 4);
/// `porf_cycles.rs` tests it.
fn run(src: &str, model: MemoryModel, strategy: Strategy) -> TestResult {
    let opts = Options {
        model: Some(LitmusModel::Engine(model)),
        strategy,
        porf_cycles: false,
        ..Options::default()
    };
    check_source("t.litmus", src, &opts).unwrap_or_else(|e| panic!("{}", e.located("t.litmus")))
}

fn states(r: &TestResult) -> BTreeSet<String> {
    r.states.keys().map(state_text).collect()
}

fn set(v: &[&str]) -> BTreeSet<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// C11's release sequence is the mo-contiguous run of the head's thread's
/// writes and RMWs: P1's store between P0's release store and P0's later
/// store ends it, so reading the later store does not synchronize with the
/// release. RC11 (as published) continues the sequence through any later
/// store of the same thread, so it forbids d=0 here; C++20 has no
/// same-thread part at all, so it allows it too.
const RS_INTERRUPTED: &str = "C rs_interrupted
{ [x] = 0; [d] = 0; }
P0 (atomic_int* x, atomic_int* d) {
  atomic_store_explicit(d, 1, memory_order_relaxed);
  atomic_store_explicit(x, 1, memory_order_release);
  atomic_store_explicit(x, 3, memory_order_relaxed);
}
P1 (atomic_int* x) {
  int r2 = atomic_load_explicit(x, memory_order_relaxed);
  if (r2 == 1) { atomic_store_explicit(x, 2, memory_order_relaxed); }
}
P2 (atomic_int* x, atomic_int* d) {
  int r0 = atomic_load_explicit(x, memory_order_acquire);
  int r1 = atomic_load_explicit(d, memory_order_relaxed);
}
exists (1:r2=1 /\\ 2:r0=3 /\\ 2:r1=0 /\\ x=3)
";

#[test]
fn an_interrupted_release_sequence_does_not_synchronize_under_c11() {
    let holds = |m| run(RS_INTERRUPTED, m, Strategy::Exhaustive).positive > 0;
    assert!(holds(MemoryModel::C11));
    assert!(holds(MemoryModel::Cpp20));
    assert!(!holds(MemoryModel::Rc11));
    // Without P1's interrupting store the sequence reaches x=3 under C11 too.
    let direct = RS_INTERRUPTED.replace(
        "if (r2 == 1) { atomic_store_explicit(x, 2, memory_order_relaxed); }",
        "",
    );
    let direct = direct.replace("1:r2=1 /\\ ", "");
    let r = run(&direct, MemoryModel::C11, Strategy::Exhaustive);
    assert_eq!(r.positive, 0, "{:?}", states(&r));
}

/// C11's seq_cst axiom orders every hb edge between seq_cst events (RC11's
/// psc only those that start and end with a po step to another location,
/// or stay at one location): with acquire readers, IRIW's non-SC outcome is
/// allowed by RC11 and forbidden by C11. herd answers 1 under rc11.cat;
/// Dat3M's C11 expectation is 0.
#[test]
fn iriw_with_acquire_reads_is_forbidden_by_c11_and_allowed_by_rc11() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus/public/c11/IRIW-sc-sc-acq-sc-acq-sc.litmus");
    let at = |m| {
        let opts = Options {
            model: Some(LitmusModel::Engine(m)),
            ..Options::default()
        };
        check_file(&f, &opts).unwrap()
    };
    let (c, rc) = (at(MemoryModel::C11), at(MemoryModel::Rc11));
    assert_eq!((c.positive, c.executions), (0, 15));
    assert_eq!((rc.positive, rc.executions), (1, 16));
}

/// A non-atomic read must read a visible side effect (NaRf): in message
/// passing with a relaxed flag nothing synchronizes, so the only write to
/// `*x` that happens before P1's plain read is the initial one, and the
/// execution where it reads P0's `*x = 1` is not a C11 execution (RC11 keeps
/// it and reports the race). Dat3M's C11 expectation: the condition holds.
#[test]
fn a_non_atomic_read_reads_a_visible_side_effect() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus/public/c11/mp_relaxed.litmus");
    let opts = Options {
        model: Some(LitmusModel::Engine(MemoryModel::C11)),
        ..Options::default()
    };
    let r = check_file(&f, &opts).unwrap();
    assert_eq!(
        states(&r),
        set(&["1:r0=0; 1:r1=-1;", "1:r0=1; 1:r1=0;"]),
        "{:?}",
        states(&r)
    );
    assert_eq!((r.executions, r.blocked), (2, 1));
}

/// Load buffering as a Rust program under `MemoryModel::C11`: the optimal
/// explorer also builds executions with a cycle in po ∪ rf (a read promised
/// the value of a po ∪ rf-later write, kept when the re-run program writes
/// it; docs/c11-model.md section 4), so r1 = r2 = 1 is an outcome, and each
/// of the four executions is counted once. So does the reference
/// enumerator, with guessed values of its own (`engine/guessed.rs`); with
/// `porf_cycles` off it has the three po ∪ rf-acyclic ones. (Outcomes are
/// taken from the run's histogram, which sees only the executions the
/// model's verdict keeps.)
#[test]
fn rust_load_buffering_under_c11_has_every_outcome() {
    use scopecheck::gpu::record;
    use scopecheck::sync::atomic::{AtomicUsize, Ordering};
    use scopecheck::sync::Arc;
    use scopecheck::{thread, Builder};
    let all = &["r=(0, 0)", "r=(0, 1)", "r=(1, 0)", "r=(1, 1)"][..];
    for (strategy, cycles, want, executions) in [
        (Strategy::Exhaustive, true, all, 4),
        (Strategy::Reference, true, all, 4),
        (Strategy::Reference, false, &all[..3], 3),
    ] {
        let mut b = Builder::new();
        b.model = MemoryModel::C11;
        b.strategy = strategy.clone();
        b.porf_cycles = cycles;
        let r = b.explore(|| {
            let (x, y) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
            let (x1, y1) = (x.clone(), y.clone());
            let h = thread::spawn(move || {
                let r1 = x1.load(Ordering::Relaxed);
                y1.store(1, Ordering::Relaxed);
                r1
            });
            let r2 = y.load(Ordering::Relaxed);
            x.store(1, Ordering::Relaxed);
            let r1 = h.join().unwrap();
            record("r", (r1, r2));
        });
        assert!(r.failures().is_empty() && r.is_complete(), "{r}");
        assert_eq!(r.outcome_set(), set(want), "{strategy:?}");
        // (The reference enumerator reaches a graph once per interleaving;
        // its histogram, like its execution count, counts graphs.)
        assert!(r.outcomes().values().all(|&n| n == 1), "{:?}", r.outcomes());
        assert_eq!(r.executions(), executions, "{strategy:?}");
    }
}
