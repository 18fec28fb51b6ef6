//! The optimal explorer's po ∪ rf-cyclic executions (promised reads) against
//! the reference enumerator's (guessed reads, `engine/guessed.rs`), both on
//! the engine under `c11` (`Options::explorer_cycles`, which runs a litmus
//! test as the engine runs a Rust program, not through the litmus front
//! end's own cyclic enumeration): on generated programs, the same final
//! states, condition verdict, race verdict and number of distinct
//! executions. The reference guesses at every atomic read, so it gets a
//! number of runs per program ([`REFERENCE_RUNS`], a count so the same
//! programs are compared on every machine); one it does not finish is not
//! compared (11 of the 24 default ones are). The general generator's small
//! programs rarely have a cycle (none of these 11 do; load-buffering
//! shapes are compared in `harness/tests/differential.rs`): here the check
//! is that neither side's promises or guesses invent an execution the
//! other does not find. docs/c11-model.md section 4.
//!
//! `SCOPECHECK_FUZZ_CASES=N` changes the number of programs.

use arbitrary::Unstructured;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use scopecheck::litmus::{check_source, LitmusModel, Options, TestResult};
use scopecheck::{MemoryModel, Strategy};
use scopecheck_fuzz::run::{missing, outcomes};
use scopecheck_fuzz::{Program, Shape};

/// Runs the reference may take on one program.
const REFERENCE_RUNS: u64 = 10_000;

fn cases(default: usize) -> usize {
    std::env::var("SCOPECHECK_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn check(src: &str, strategy: Strategy, cycles: bool) -> TestResult {
    let cap = matches!(strategy, Strategy::Reference).then_some(REFERENCE_RUNS);
    check_bounded(src, strategy, cycles, cap)
}

/// [`check`] with at most `max_executions` runs.
fn check_bounded(src: &str, strategy: Strategy, cycles: bool, max_executions: Option<u64>) -> TestResult {
    let opts = Options {
        model: Some(LitmusModel::Engine(MemoryModel::C11)),
        explorer_cycles: true,
        porf_cycles: cycles,
        max_executions,
        strategy,
        ..Options::default()
    };
    check_source("t.litmus", src, &opts).unwrap_or_else(|e| panic!("{}\n{src}", e.located("t.litmus")))
}

#[test]
fn explorer_cycles_equal_the_reference_cycles_under_c11() {
    // Two threads of at most three steps, no spin waits (a guessed read in
    // a spin loop multiplies the reference's runs past any bound), no GPU
    // placements (c11 has no scopes).
    let shape = Shape {
        max_threads: 2,
        max_steps_2: 3,
        gpu: false,
        waits: false,
        ..Shape::differential()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(0xc11_9e55);
    let n = cases(24);
    let (mut compared, mut cyclic, mut drawn) = (0, 0, 0);
    while drawn < n {
        let data: Vec<u8> = (0..rng.random_range(16..200)).map(|_| rng.random()).collect();
        let Ok(p) = Program::generate(&mut Unstructured::new(&data), &shape) else {
            continue;
        };
        drawn += 1;
        let src = p.to_string();
        let reference = check(&src, Strategy::Reference, true);
        if !reference.complete {
            continue;
        }
        let opt = check(&src, Strategy::Exhaustive, true);
        assert!(opt.complete, "the explorer did not finish:\n{src}");
        compared += 1;
        assert_eq!(
            outcomes(&opt),
            outcomes(&reference),
            "final states differ (explorer, reference); only the explorer's:\n{}only the reference's:\n{}{src}",
            missing(&outcomes(&opt), &outcomes(&reference)),
            missing(&outcomes(&reference), &outcomes(&opt))
        );
        assert_eq!(
            (opt.verdict(), opt.race_free(), opt.executions),
            (reference.verdict(), reference.race_free(), reference.executions),
            "verdicts or execution counts differ (explorer, then reference):\n{src}"
        );
        let acyclic = check(&src, Strategy::Exhaustive, false);
        cyclic += usize::from(opt.executions > acyclic.executions);
    }
    eprintln!("{compared} of {n} programs compared, {cyclic} with a cyclic execution");
    assert!(
        compared * 3 > n,
        "the reference finished only {compared} of {n} programs"
    );
}

/// Where the two differ, pinned: the cyclic execution the explorer leaves
/// out because its promised read would synchronize
/// (`harness/tests/c11_rmw_promises.rs`,
/// `a_cycle_whose_promised_read_synchronizes_is_left_out_and_counted`).
/// The reference builds it by guessing the other read on the cycle, P0's
/// relaxed fetch_add of z, the initial value 0 (every domain holds its
/// location's initial value), which P1's release fetch_add of z writes when
/// it reads the initial z: that guess does not synchronize, P1's seq_cst
/// fetch_add of y then reads P0's store of y as an ordinary read, and the
/// graph is consistent. So the reference has the litmus enumeration's 4
/// executions (the 4th has a final state another execution has too) and
/// the explorer 3: the explorer's gap is in which read it promises (it
/// never promises 0 to P0's read: P1 writes 0 to z only when its fetch_add
/// reads the initial z, which P0's then cannot), not in the execution.
#[test]
fn the_reference_builds_the_cycle_the_explorer_leaves_out() {
    let src = "C sync_promise\n{ x = 0; y = 0; z = 0; }\n\
        P0 (atomic_int* x, atomic_int* y, atomic_int* z) {\n\
          int r0 = atomic_fetch_add_explicit(x, 0, memory_order_relaxed);\n\
          atomic_thread_fence(memory_order_seq_cst);\n\
          int r1 = atomic_fetch_add_explicit(z, 1, memory_order_relaxed);\n\
          atomic_store_explicit(y, r1, memory_order_relaxed);\n}\n\
        P1 (atomic_int* x, atomic_int* y, atomic_int* z) {\n\
          int r0 = atomic_fetch_add_explicit(y, 1, memory_order_seq_cst);\n\
          int r1 = atomic_fetch_add_explicit(z, 0, memory_order_release);\n}\n\
        exists (0:r1=0 /\\ 1:r0=0 /\\ 1:r1=0 /\\ z=1)\n";
    let reference = check_bounded(src, Strategy::Reference, true, None);
    let opt = check(src, Strategy::Exhaustive, true);
    let acyclic = check(src, Strategy::Exhaustive, false);
    let enumeration = check_source(
        "t.litmus",
        src,
        &Options {
            model: Some(LitmusModel::Engine(MemoryModel::C11)),
            ..Options::default()
        },
    )
    .unwrap();
    for r in [&reference, &opt, &enumeration] {
        assert!(r.complete, "{:?}", r.incomplete_reason);
    }
    assert_eq!(
        (
            reference.executions,
            opt.executions,
            acyclic.executions,
            enumeration.executions
        ),
        (4, 3, 3, 4)
    );
    assert_eq!(outcomes(&reference), outcomes(&enumeration));
    assert_eq!(outcomes(&opt), outcomes(&enumeration));
}
