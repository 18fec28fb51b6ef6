//! C litmus tests under `c11` whose threads write a location and read it
//! back (harness/src/litmus/own_coherence.rs, cyclic/private.rs): the
//! po ∪ rf-cyclic enumerator cuts a read that its own thread's accesses
//! already forbid, promises nothing to a location only one thread reaches,
//! orders a thread's writes in po (gpu_orders.rs, `Rules::C`), and grows
//! the promised values from value-closed combinations (cyclic/chains.rs).
//! Before, a compare-exchange retry loop keeping its expected value in
//! memory (Dat3M's `TSan`) ran out of the work cap with no answer. The
//! same shortcuts apply under `opencl` when every location is `global` or
//! `local` (`cyclic.rs`'s `po_in_hb`), tested here too.
//!
//! Where no execution can have a cycle in po ∪ rf, C11's consistent
//! executions of a relaxed test are rc11's (the two differ in
//! acyclic(po ∪ rf) and in seq_cst rules, which these tests do not use):
//! the tests check the counts and states against rc11's explorer.

use scopecheck::litmus::output::state_text;
use scopecheck::litmus::{check_source, LitmusModel, Options, TestResult};
use scopecheck::{MemoryModel, Strategy};

mod common;

fn run(src: &str, model: MemoryModel) -> TestResult {
    let opts = Options {
        model: Some(LitmusModel::Engine(model)),
        porf_cycles: true,
        ..Options::default()
    };
    let r = check_source("t.litmus", src, &opts).unwrap_or_else(|e| panic!("{}", e.located("t.litmus")));
    assert!(r.failures.is_empty(), "{model:?}: {:?}", r.failures);
    assert!(r.complete, "{model:?}: {:?}", r.incomplete_reason);
    r
}

fn states(r: &TestResult) -> Vec<String> {
    r.states.keys().map(state_text).collect()
}

/// Two threads increment `x` with a compare-exchange loop whose expected
/// value lives in a location of their own; a third reads `x` twice.
const CAS_RETRY: &str = "C CAS-retry-private-expected\n{ x = 0; }\n\
    P0 (atomic_int* x, int* e0) {\n  *e0 = atomic_load_explicit(x, memory_order_relaxed);\n  \
      while (atomic_compare_exchange_strong_explicit(x, e0, *e0 + 1, memory_order_relaxed, memory_order_relaxed) == 0) {}\n}\n\
    P1 (atomic_int* x, int* e1) {\n  *e1 = atomic_load_explicit(x, memory_order_relaxed);\n  \
      while (atomic_compare_exchange_strong_explicit(x, e1, *e1 + 1, memory_order_relaxed, memory_order_relaxed) == 0) {}\n}\n\
    P2 (atomic_int* x) {\n  int r0 = atomic_load_explicit(x, memory_order_relaxed);\n  \
      int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}\n\
    exists (2:r0=2 /\\ 2:r1=1)\n";

#[test]
fn a_compare_exchange_loop_with_its_expected_value_in_memory_completes() {
    let c11 = run(CAS_RETRY, MemoryModel::C11);
    let rc11 = run(CAS_RETRY, MemoryModel::Rc11);
    assert_eq!(c11.executions, 24);
    assert_eq!(c11.executions, rc11.executions);
    assert_eq!(states(&c11), states(&rc11));
    assert_eq!(
        states(&c11),
        [
            "2:r0=0; 2:r1=0;",
            "2:r0=0; 2:r1=1;",
            "2:r0=0; 2:r1=2;",
            "2:r0=1; 2:r1=1;",
            "2:r0=1; 2:r1=2;",
            "2:r0=2; 2:r1=2;"
        ]
    );
    assert_eq!(c11.positive, 0);
}

/// [`CAS_RETRY`] in OpenCL with every location `global`: a thread's
/// accesses to one location are hb-ordered in po (`ghb`), so the shortcuts
/// apply as under C11 and the test completes with C11's executions (no
/// execution of it can have a cycle: the ones above are rc11's). Until
/// stop 30 they were C11's alone and this ran into the work cap with no
/// answer, as Dat3M's OpenCL port of `TSan` did. With `e0` generic (no
/// qualifier) its po is in no hb and the shortcuts do not apply.
#[test]
fn an_opencl_compare_exchange_loop_on_global_locations_completes() {
    let src = CAS_RETRY
        .replace("C CAS", "OPENCL CAS")
        .replace("atomic_int* x", "global atomic_int* x")
        .replace("int* e", "global int* e")
        .replace("P0 (", "P0@wg 0, dev 0 (")
        .replace("P1 (", "P1@wg 0, dev 0 (")
        .replace("P2 (", "P2@wg 0, dev 0 (");
    let opts = Options {
        model: Some(LitmusModel::OpenCl),
        porf_cycles: true,
        ..Options::default()
    };
    let ocl = check_source("t.litmus", &src, &opts).unwrap_or_else(|e| panic!("{}", e.located("t.litmus")));
    assert!(ocl.complete, "{:?}", ocl.incomplete_reason);
    let c11 = run(CAS_RETRY, MemoryModel::C11);
    assert_eq!((ocl.executions, ocl.porf_cyclic), (24, 0));
    assert_eq!(states(&ocl), states(&c11));
    assert!(ocl.race_free());
}

/// A thread stores 1 and reads `x` back; another stores `x`'s initial
/// value. Reading 0 after its own store is reading P1's store, which the
/// promising thread does not offer (it never stores an initial value):
/// the initial write must stand for it.
const STORE_THEN_LOAD: &str = "C own-store-then-another-threads-initial-value\n{ x = 0; }\n\
    P0 (atomic_int* x) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n  \
      int r0 = atomic_load_explicit(x, memory_order_relaxed);\n}\n\
    P1 (atomic_int* x) {\n  atomic_store_explicit(x, 0, memory_order_relaxed);\n}\n\
    exists (0:r0=0)\n";

#[test]
fn after_its_own_store_a_thread_still_reads_another_threads_write_of_the_initial_value() {
    let c11 = run(STORE_THEN_LOAD, MemoryModel::C11);
    let rc11 = run(STORE_THEN_LOAD, MemoryModel::Rc11);
    // mo 1 < 0 with r0 = 1 or 0; mo 0 < 1 with r0 = 1.
    assert_eq!(c11.executions, 3);
    assert_eq!(c11.executions, rc11.executions);
    assert_eq!(states(&c11), ["0:r0=0;", "0:r0=1;"]);
    assert_eq!(c11.positive, 1);
}

/// Load buffering whose stores sit in a nested block, guarded by the
/// value only the cycle supplies: the constant 5 must be promised even
/// though the condition never names it.
const LB_BLOCK: &str = "C LB-nested-block\n{ x = 0; y = 0; }\n\
    P0 (atomic_int* x, atomic_int* y) {\n  int r0 = atomic_load_explicit(x, memory_order_relaxed);\n  \
      {\n    if (r0 == 5) { atomic_store_explicit(y, 5, memory_order_relaxed); }\n  }\n}\n\
    P1 (atomic_int* x, atomic_int* y) {\n  int r1 = atomic_load_explicit(y, memory_order_relaxed);\n  \
      {\n    if (r1 == 5) { atomic_store_explicit(x, 5, memory_order_relaxed); }\n  }\n}\n\
    exists (0:r0=0 /\\ 1:r1=0)\n";

#[test]
fn a_constant_inside_a_nested_block_is_promised() {
    let c11 = run(LB_BLOCK, MemoryModel::C11);
    assert_eq!(states(&c11), ["0:r0=0; 1:r1=0;", "0:r0=5; 1:r1=5;"]);
    assert_eq!(c11.executions, 2);
    let rc11 = run(LB_BLOCK, MemoryModel::Rc11);
    assert_eq!(states(&rc11), ["0:r0=0; 1:r1=0;"]);
}

/// The location the loop rewrites is reachable by another thread through
/// its address (stored in `p`): it is promised, and every outcome is
/// still found.
const ESCAPED: &str = "C CAS-retry-escaped-expected\n{ x = 0; e = 0; p = 0; }\n\
    P0 (atomic_int* x, int* e, int* p) {\n  *p = e;\n  *e = atomic_load_explicit(x, memory_order_relaxed);\n  \
      while (atomic_compare_exchange_strong_explicit(x, e, 1, memory_order_relaxed, memory_order_relaxed) == 0) {}\n}\n\
    P1 (atomic_int* x) {\n  atomic_store_explicit(x, 2, memory_order_relaxed);\n}\n\
    exists (x=1)\n";

#[test]
fn an_expected_value_whose_address_escapes_is_promised_and_nothing_is_lost() {
    let c11 = run(ESCAPED, MemoryModel::C11);
    let rc11 = run(ESCAPED, MemoryModel::Rc11);
    assert_eq!(c11.executions, rc11.executions);
    assert_eq!(states(&c11), states(&rc11));
}

/// A generated C test: 2 threads on shared `x` and `y`, each with a
/// location of its own (`p0`..`p2`) that it writes, reads back, and uses
/// as a compare-exchange's expected value; sometimes thread 0 publishes
/// `p0`'s address (so `p0` is not private). Every register and location
/// is observed. (No retry loops: the reference enumerator takes minutes
/// on them; the hand-written tests above have them.)
fn generated(g: &mut common::Gen, k: usize, opencl: bool) -> String {
    let threads = 2;
    let header = if opencl { "OPENCL" } else { "C" };
    let mut s = format!("{header} gen-own-{k}\n{{ x = 0; y = 0; q = 0; p0 = 0; p1 = 0; }}\n");
    let mut observed = vec!["x".to_string(), "y".to_string()];
    for t in 0..threads {
        let p = format!("p{t}");
        let shared = |g: &mut common::Gen| if g.below(2) == 0 { "x" } else { "y" };
        s += &if opencl {
            format!(
                "P{t}@wg 0, dev 0 (global atomic_int* x, global atomic_int* y, global int* q, global int* {p}) {{\n"
            )
        } else {
            format!("P{t} (atomic_int* x, atomic_int* y, int* q, int* {p}) {{\n")
        };
        if t == 0 && g.below(3) == 0 {
            s += &format!("  *q = {p};\n");
        }
        // (More ops make the reference enumerator take minutes.)
        let ops = if t == 0 { 2 + g.below(2) } else { 2 };
        // ... and the second op a store half of the time (load buffering).
        for i in 0..ops {
            let r = format!("r{i}");
            let v = g.below(3);
            // Each thread starts with a load, so that load buffering
            // (each thread reading the other's later store) can happen.
            let kind = match i {
                0 => 0,
                1 if g.below(2) == 0 => 3 + g.below(2),
                _ => g.below(7),
            };
            let line = match kind {
                0 => format!("  *{p} = atomic_load_explicit({}, memory_order_relaxed);", shared(g)),
                1 => format!("  *{p} = {v};"),
                2 => format!("  int {r} = *{p};"),
                3 => format!("  atomic_store_explicit({}, {v}, memory_order_relaxed);", shared(g)),
                4 => format!("  atomic_store_explicit({}, *{p}, memory_order_relaxed);", shared(g)),
                5 => format!(
                    "  int {r} = atomic_fetch_add_explicit({}, 1, memory_order_relaxed);",
                    shared(g)
                ),
                _ => format!(
                    "  int {r} = atomic_compare_exchange_strong_explicit({}, {p}, {v}, memory_order_relaxed, \
                     memory_order_relaxed);",
                    shared(g)
                ),
            };
            if line.starts_with(&format!("  int {r}")) {
                observed.push(format!("{t}:{r}"));
            }
            s += &line;
            s += "\n";
        }
        s += "}\n";
        observed.push(p);
    }
    let cond: Vec<String> = observed.iter().map(|v| format!("{v}=0")).collect();
    s += &format!("exists ({})\n", cond.join(" /\\ "));
    s
}

/// The shortcuts against a construction that uses none of them: on
/// generated tests, the executions the c11 enumeration finds without a
/// cycle in po ∪ rf are exactly as many as the reference enumerator finds
/// under c11 without cycles (`porf_cycles: false`, every interleaving,
/// distinct executions counted once), and its states include the
/// reference's. (Not the optimal explorer: it counts some executions of
/// a compare-exchange with its expected value in memory twice, a known
/// bug being fixed separately.)
const CYCLIC_FOUND: usize = 4;

#[test]
fn generated_tests_keep_every_acyclic_execution() {
    let cyclic_found = keep_every_acyclic_execution(0x5eed_c011, false);
    // Measured with this seed (25 s in all, release): the tests with
    // load-buffering executions.
    assert_eq!(cyclic_found, CYCLIC_FOUND, "generated tests with a cycle in po ∪ rf");
}

/// The same under `opencl`, every location `global` (so a thread's
/// accesses to one location are hb-ordered in po and the shortcuts apply,
/// `cyclic.rs`'s `po_in_hb`): the enumeration's executions without a cycle
/// are exactly the reference enumerator's under opencl.
#[test]
fn generated_opencl_tests_with_every_location_global_keep_every_acyclic_execution() {
    let cyclic_found = keep_every_acyclic_execution(0x05ee_d0c1, true);
    assert_eq!(
        cyclic_found, OPENCL_CYCLIC_FOUND,
        "generated tests with a cycle in po ∪ rf"
    );
}

/// Measured with the opencl test's seed.
const OPENCL_CYCLIC_FOUND: usize = 4;

/// Runs 32 tests generated from `seed` both ways (see above) and returns
/// how many have an execution with a cycle in po ∪ rf.
fn keep_every_acyclic_execution(seed: u64, opencl: bool) -> usize {
    let mut g = common::Gen(seed);
    let (mut compared, mut cyclic_found) = (0, 0);
    for k in 0..32 {
        let src = generated(&mut g, k, opencl);
        let at = |porf_cycles: bool| {
            let opts = Options {
                model: Some(if opencl {
                    LitmusModel::OpenCl
                } else {
                    LitmusModel::Engine(MemoryModel::C11)
                }),
                porf_cycles,
                strategy: if porf_cycles {
                    Strategy::Exhaustive
                } else {
                    Strategy::Reference
                },
                ..Options::default()
            };
            check_source("gen.litmus", &src, &opts).unwrap_or_else(|e| panic!("{}\n{src}", e.located("gen.litmus")))
        };
        let (cyclic, acyclic) = (at(true), at(false));
        assert!(acyclic.complete, "{src}");
        assert!(cyclic.complete, "{:?}\n{src}", cyclic.incomplete_reason);
        assert_eq!(cyclic.executions - cyclic.porf_cyclic, acyclic.executions, "{src}");
        for s in acyclic.states.keys() {
            assert!(cyclic.states.contains_key(s), "{}\n{src}", state_text(s));
        }
        compared += 1;
        cyclic_found += (cyclic.porf_cyclic > 0) as usize;
    }
    assert_eq!(compared, 32);
    cyclic_found
}

/// Every location private: nothing is promised, and the promising thread
/// (which stores nothing) is still spawned, as the enumeration finds the
/// test's threads by its spawn (it panicked without).
#[test]
fn a_test_whose_locations_are_all_private_runs() {
    let src = "C all-private\n{ a = 0; b = 0; }\n\
        P0 (int* a) {\n  *a = 1;\n  int r0 = *a;\n}\n\
        P1 (int* b) {\n  *b = 2;\n  int r1 = *b;\n}\n\
        exists (0:r0=1 /\\ 1:r1=2)\n";
    let c11 = run(src, MemoryModel::C11);
    assert_eq!(c11.executions, 1);
    assert_eq!(states(&c11), ["0:r0=1; 1:r1=2;"]);
}

/// `Rules::C` under opencl against every order of every location's writes
/// (the cross-check `CrossChecks::every_order`, as `litmus_gpu_orders.rs`
/// does for the GPU models): the repository's public OpenCL tests and
/// its tests of mixed declarations give the same summary both ways. The
/// count is of the files whose every location is `global` or `local`
/// (where the rules apply; the rest run the same enumeration both ways
/// and are compared too).
#[test]
fn opencl_orders_pruned_by_the_c_rules_equal_every_order() {
    use common::litmus_rows::{corpus_dir, cross_checked, model_options, run_path, summary};
    use scopecheck::litmus::CrossChecks;
    let every = CrossChecks {
        every_order: true,
        all_at_once: false,
        judge_whole: false,
    };
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["litmus/public/opencl", "litmus/mixed"] {
        for e in std::fs::read_dir(corpus_dir(dir)).expect("corpus folder") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "litmus") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut regions = 0;
    for p in &files {
        let src = std::fs::read_to_string(p).expect("litmus file");
        let pruned = run_path(p, &model_options("opencl"));
        let all = run_path(p, &cross_checked("opencl", every));
        assert_eq!(summary(&pruned), summary(&all), "{}", p.display());
        // Every parameter qualified (a rough reading of `po_in_hb`, for
        // the count only).
        let params = src
            .lines()
            .filter(|l| l.trim_start().starts_with('P') && l.contains('('));
        regions += params.clone().all(|l| {
            l.split(['(', ','])
                .skip(1)
                .all(|a| a.contains("global") || a.contains("local") || !a.contains('*'))
        }) as usize;
    }
    assert_eq!(files.len(), 27);
    assert_eq!(regions, 22, "files with every location in a region");
}
