//! Executions with a cycle in po ∪ rf under the models that allow them
//! (`c11`, `opencl`), found by the litmus front end's enumerator
//! (`harness/src/litmus/cyclic.rs`, docs/c11-model.md section 4): exact
//! outcome sets of load-buffering variants, and the cross-check that the
//! executions it finds without a cycle are exactly the explorers'.

use scopecheck::litmus::expect::{self, Expectation};
use scopecheck::litmus::output::state_text;
use scopecheck::litmus::{check_file, check_source, LitmusModel, Options, TestResult};
use scopecheck::{MemoryModel, Strategy};
use std::path::Path;

fn run(src: &str, model: LitmusModel, porf_cycles: bool) -> TestResult {
    let opts = Options {
        model: Some(model),
        porf_cycles,
        ..Options::default()
    };
    let r = check_source("t.litmus", src, &opts).unwrap_or_else(|e| panic!("{}", e.located("t.litmus")));
    assert!(r.failures.is_empty() && r.complete, "{:?}", r.failures);
    r
}

fn states(r: &TestResult) -> Vec<String> {
    r.states.keys().map(state_text).collect()
}

const C11: LitmusModel = LitmusModel::Engine(MemoryModel::C11);

/// Load buffering with two threads; `{A}`..`{D}` are replaced by the
/// loads' and stores' text.
fn lb(load0: &str, store0: &str, load1: &str, store1: &str) -> String {
    format!(
        "C LB\n{{ [x] = 0; [y] = 0; }}\n\
         P0 (atomic_int* x, atomic_int* y) {{\n  int r0 = {load0};\n  {store0};\n}}\n\
         P1 (atomic_int* x, atomic_int* y) {{\n  int r1 = {load1};\n  {store1};\n}}\n\
         exists (0:r0=1 /\\ 1:r1=1)\n"
    )
}

const LX: &str = "atomic_load_explicit(x, memory_order_relaxed)";
const LY: &str = "atomic_load_explicit(y, memory_order_relaxed)";
const SX1: &str = "atomic_store_explicit(x, 1, memory_order_relaxed)";
const SY1: &str = "atomic_store_explicit(y, 1, memory_order_relaxed)";

const ALL4: [&str; 4] = [
    "0:r0=0; 1:r1=0;",
    "0:r0=0; 1:r1=1;",
    "0:r0=1; 1:r1=0;",
    "0:r0=1; 1:r1=1;",
];
const ACYCLIC3: [&str; 3] = ["0:r0=0; 1:r1=0;", "0:r0=0; 1:r1=1;", "0:r0=1; 1:r1=0;"];

#[test]
fn relaxed_load_buffering_is_allowed_by_c11_and_not_by_rc11() {
    let src = lb(LX, SY1, LY, SX1);
    let r = run(&src, C11, true);
    assert_eq!(states(&r), ALL4);
    assert_eq!((r.executions, r.porf_cyclic, r.verdict()), (4, 1, Some(true)));
    // Constants only: no self-justifying value can exist, so no such note.
    assert!(!r.notes.iter().any(|n| n.contains("self-justifying")), "{:?}", r.notes);
    let rc = run(&src, LitmusModel::Engine(MemoryModel::Rc11), true);
    assert_eq!(states(&rc), ACYCLIC3);
    let acyclic = run(&src, C11, false);
    assert_eq!(
        (states(&acyclic), acyclic.executions),
        (ACYCLIC3.map(String::from).to_vec(), 3)
    );
}

/// Release stores and acquire loads: each read synchronizes with the store
/// it reads, so the cycle is an hb cycle, which C11 forbids.
#[test]
fn release_acquire_load_buffering_is_forbidden() {
    let acq = |l: &str| l.replace("relaxed", "acquire");
    let rel = |s: &str| s.replace("relaxed", "release");
    let r = run(&lb(&acq(LX), &rel(SY1), &acq(LY), &rel(SX1)), C11, true);
    assert_eq!(states(&r), ACYCLIC3);
    assert_eq!((r.porf_cyclic, r.verdict()), (0, Some(false)));
}

/// One thread stores what it read: the cycle is justified by P1's
/// constant. Both store what they read: only a self-justifying value
/// (here none of the test's constants but 0 and 1; 1 is one) closes it.
#[test]
fn load_buffering_with_data_dependencies() {
    let dep = "atomic_store_explicit(y, r0, memory_order_relaxed)";
    let r = run(&lb(LX, dep, LY, SX1), C11, true);
    assert_eq!(states(&r), ["0:r0=0; 1:r1=0;", "0:r0=1; 1:r1=0;", "0:r0=1; 1:r1=1;"]);
    assert_eq!(r.porf_cyclic, 1);
    assert!(r
        .notes
        .iter()
        .any(|n| n.starts_with("complete up to self-justifying values")));
    let both = lb(LX, dep, LY, "atomic_store_explicit(x, r1, memory_order_relaxed)");
    let r = run(&both, C11, true);
    // 1 is a constant of the test (its condition): the copy cycle of 1s is
    // an execution; a copy cycle of any other value would be too, and is
    // not produced (the note says so).
    assert_eq!(states(&r), ["0:r0=0; 1:r1=0;", "0:r0=1; 1:r1=1;"]);
    assert_eq!((r.porf_cyclic, r.verdict()), (2, Some(true)));
    assert!(r
        .notes
        .iter()
        .any(|n| n.starts_with("complete up to self-justifying values")));
}

/// Control dependencies both ways (`if (r == 1) store 1`): the C11 model
/// allows r0 = r1 = 1 (the classic out-of-thin-air example); the value is a
/// constant of the test, so the domain has it from the start.
#[test]
fn load_buffering_with_control_dependencies() {
    let guarded = |s: &str, r: &str| format!("if ({r} == 1) {{ {s}; }}");
    let src = lb(LX, &guarded(SY1, "r0"), LY, &guarded(SX1, "r1")).replace("{ ;", "{");
    let src = src.replace("};\n}", "}\n}");
    let r = run(&src, C11, true);
    assert_eq!(states(&r), ["0:r0=0; 1:r1=0;", "0:r0=1; 1:r1=1;"]);
    assert_eq!((r.executions, r.porf_cyclic), (2, 1));
}

/// An RMW in the cycle: P0's fetch_add reads P1's later store of 5.
#[test]
fn load_buffering_through_an_rmw() {
    let src = lb("atomic_fetch_add_explicit(x, 1, memory_order_relaxed)", SY1, LY, SX1).replace(
        "atomic_store_explicit(x, 1, memory_order_relaxed)",
        "atomic_store_explicit(x, 5, memory_order_relaxed)",
    );
    let src = src.replace("0:r0=1 /\\", "0:r0=5 /\\");
    let r = run(&src, C11, true);
    assert_eq!(
        states(&r),
        [
            "0:r0=0; 1:r1=0;",
            "0:r0=0; 1:r1=1;",
            "0:r0=5; 1:r1=0;",
            "0:r0=5; 1:r1=1;"
        ]
    );
    assert_eq!((r.porf_cyclic, r.verdict()), (1, Some(true)));
}

/// Under opencl: relaxed atomics in global memory, device scope.
#[test]
fn opencl_load_buffering_of_atomics() {
    let src = "OPENCL LB\n{ [x] = 0; [y] = 0; }\n\
        P0@wg 0, dev 0 (global atomic_int* x, global atomic_int* y) {\n\
          int r0 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_device);\n\
          atomic_store_explicit(y, 1, memory_order_relaxed, memory_scope_device);\n}\n\
        P1@wg 1, dev 0 (global atomic_int* x, global atomic_int* y) {\n\
          int r1 = atomic_load_explicit(y, memory_order_relaxed, memory_scope_device);\n\
          atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_device);\n}\n\
        exists (0:r0=1 /\\ 1:r1=1)\n";
    let r = run(src, LitmusModel::OpenCl, true);
    assert_eq!(states(&r), ALL4);
    assert_eq!((r.porf_cyclic, r.verdict(), r.race_free()), (1, Some(true), true));
    let acyclic = run(src, LitmusModel::OpenCl, false);
    assert_eq!(states(&acyclic), ACYCLIC3);
}

/// The rows of the corpus's expectation file under `model`.
fn rows(model: LitmusModel) -> Vec<Expectation> {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus/expected.tsv");
    let rows = expect::load(&f).expect("corpus expectation file loads");
    rows.into_iter().filter(|r| r.model == model).collect()
}

/// The cyclic enumeration and the explorers are two constructions: on
/// every corpus test run under c11 (the C rows) and under opencl, the
/// executions the enumeration finds without a cycle in po ∪ rf are exactly
/// as many as the optimal explorer's, their final states are among the
/// enumeration's, and the final states of the executions it adds need a cycle.
#[test]
fn acyclic_executions_are_the_explorers() {
    let mut compared = 0;
    let c = rows(LitmusModel::Engine(MemoryModel::Rc11));
    let o = rows(LitmusModel::OpenCl);
    let runs = c
        .iter()
        .map(|r| (r, C11))
        .chain(o.iter().map(|r| (r, LitmusModel::OpenCl)));
    for (row, model) in runs {
        if row.path_text.contains("global_barrier") {
            continue; // six threads: minutes here
        }
        let at = |porf_cycles| {
            let opts = Options {
                model: Some(model),
                porf_cycles,
                strategy: Strategy::Exhaustive,
                ..Options::default()
            };
            check_file(&row.path, &opts).unwrap()
        };
        let (cyclic, acyclic) = (at(true), at(false));
        assert!(cyclic.complete && acyclic.complete, "{}", row.path_text);
        assert_eq!(
            cyclic.executions - cyclic.porf_cyclic,
            acyclic.executions,
            "{} [{model}]: executions without a cycle",
            row.path_text
        );
        for s in acyclic.states.keys() {
            assert!(
                cyclic.states.contains_key(s),
                "{} [{model}]: {}",
                row.path_text,
                state_text(s)
            );
        }
        if cyclic.porf_cyclic == 0 {
            assert_eq!(
                states(&cyclic),
                states(&acyclic),
                "{} [{model}]: no cycle, same states",
                row.path_text
            );
        }
        compared += 1;
    }
    assert_eq!(compared, 99, "the 73 C rows and 28 opencl rows, less two skipped");
}

/// Load buffering whose cycle passes through two compare-exchanges (their
/// expected values held in locations): with all threads run at once, the
/// promising thread's stores to six locations made this stop at the work
/// cap (1,000,000 engine executions, no answer); run thread by thread it
/// finishes, with exactly the three executions c11 allows.
#[test]
fn a_load_buffering_cycle_through_compare_exchanges_finishes() {
    let src = "C cas_lb\n{ [a] = 0; [b] = 0; [m] = 0; [n] = 0; [zero] = 0; [one] = 1; }\n\
        P0 (atomic_int* a, atomic_int* b, atomic_int* m, atomic_int* n, atomic_int* zero, atomic_int* one) {\n\
          int r0 = atomic_load_explicit(a, memory_order_relaxed);\n\
          if (r0) {\n\
            int s = atomic_compare_exchange_strong_explicit(m, zero, 1, memory_order_relaxed, memory_order_relaxed);\n\
            int u = atomic_compare_exchange_strong_explicit(n, one, 2, memory_order_relaxed, memory_order_relaxed);\n\
            if (s) { atomic_store_explicit(b, 1, memory_order_relaxed); }\n\
          }\n\
        }\n\
        P1 (atomic_int* a, atomic_int* b, atomic_int* m, atomic_int* n) {\n\
          int r1 = atomic_load_explicit(b, memory_order_relaxed);\n\
          if (r1) {\n\
            atomic_store_explicit(n, 1, memory_order_relaxed);\n\
            atomic_store_explicit(a, 1, memory_order_relaxed);\n\
          }\n\
        }\n\
        exists (0:r0=1 /\\ 1:r1=1 /\\ n=2)\n";
    let r = run(src, C11, true);
    assert_eq!(
        states(&r),
        ["0:r0=0; 1:r1=0; n=0;", "0:r0=1; 1:r1=1; n=1;", "0:r0=1; 1:r1=1; n=2;"]
    );
    assert_eq!((r.executions, r.porf_cyclic), (3, 2));
    assert_eq!(r.verdict(), Some(true));
    // Under rc11 only the execution without a cycle.
    let r = run(src, LitmusModel::Engine(MemoryModel::Rc11), false);
    assert_eq!(states(&r), ["0:r0=0; 1:r1=0; n=0;"]);
}
