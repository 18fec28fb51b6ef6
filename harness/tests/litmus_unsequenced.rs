//! The operands of a C binary operator are unsequenced (C11 6.5p2; herd's
//! C semantics puts no po between the events of one expression's operands):
//! under `c11` and `opencl` (the models whose litmus runs are judged by the
//! po ∪ rf-cyclic enumeration, `harness/src/litmus/unsequenced.rs`), an
//! access in one operand is not sequenced before an access in the other,
//! whatever order the interpreter issued them in (docs/c11-model.md
//! section 5).

use scopecheck::litmus::output::state_text;
use scopecheck::litmus::{check_source, LitmusModel, Options, TestResult};
use scopecheck::MemoryModel;

const C11: LitmusModel = LitmusModel::Engine(MemoryModel::C11);

fn run(src: &str, model: LitmusModel) -> TestResult {
    let opts = Options {
        model: Some(model),
        ..Options::default()
    };
    let r = check_source("t.litmus", src, &opts).unwrap_or_else(|e| panic!("{}", e.located("t.litmus")));
    assert!(r.failures.is_empty() && r.complete, "{:?}", r.failures);
    r
}

fn states(r: &TestResult) -> Vec<String> {
    r.states.keys().map(state_text).collect()
}

/// Message passing whose reader reads the flag (acquire) and the data in
/// one expression: `expr` is P1's right-hand side.
fn mp(expr: &str) -> String {
    format!(
        "C MP+unseq\n{{ [d] = 0; [f] = 0; }}\n\
         P0 (volatile int* d, atomic_int* f) {{\n  *d = 1;\n  atomic_store_explicit(f, 1, memory_order_release);\n}}\n\
         P1 (volatile int* d, atomic_int* f) {{\n  int t = {expr};\n}}\n\
         exists (1:t=2)\n"
    )
}

fn mp_opencl(expr: &str) -> String {
    mp(expr)
        .replace("C MP+unseq", "OPENCL MP+unseq")
        .replace("P0 (", "P0@wg 0, dev 0 (")
        .replace("P1 (", "P1@wg 0, dev 0 (")
        .replace("volatile int*", "volatile global int*")
        .replace("atomic_int*", "global atomic_int*")
}

/// The data read is not hb-after the acquire load of its own expression,
/// so it can never read the writer's 1 (NaRf: a non-atomic read reads a
/// visible side effect), in either operand order; and the read races with
/// the write. Issued left to right as sequenced, 1:t=2 was allowed.
#[test]
fn the_operands_of_a_sum_are_not_sequenced() {
    for expr in [
        "atomic_load_explicit(f, memory_order_acquire) + *d",
        "*d + atomic_load_explicit(f, memory_order_acquire)",
    ] {
        for (model, src) in [(C11, mp(expr)), (LitmusModel::OpenCl, mp_opencl(expr))] {
            let r = run(&src, model);
            assert_eq!(states(&r), ["1:t=0;", "1:t=1;"], "{expr} [{model}]");
            assert_eq!(r.verdict(), Some(false), "{expr} [{model}]");
            assert!(!r.race_free(), "{expr} [{model}]: the data read races with the write");
        }
    }
}

/// Two statements are sequenced: the data read in the next statement is
/// hb-after the acquire load, reads 1 when the flag is 1, and does not race.
#[test]
fn separate_statements_stay_sequenced() {
    let src = mp("0").replace(
        "int t = 0;",
        "int a = atomic_load_explicit(f, memory_order_acquire);\n  int b = *d;\n  int t = a + b;",
    );
    for (model, src) in [(C11, src.clone()), (LitmusModel::OpenCl, mp_opencl_from(&src))] {
        let r = run(&src, model);
        let t: Vec<String> = states(&r)
            .iter()
            .map(|s| s.split(' ').find(|v| v.starts_with("1:t=")).unwrap().to_string())
            .collect();
        assert!(t.contains(&"1:t=2;".to_string()), "[{model}] {t:?}");
        assert_eq!(r.verdict(), Some(true), "[{model}]");
    }
}

fn mp_opencl_from(src: &str) -> String {
    src.replace("C MP+unseq", "OPENCL MP+unseq")
        .replace("P0 (", "P0@wg 0, dev 0 (")
        .replace("P1 (", "P1@wg 0, dev 0 (")
        .replace("volatile int*", "volatile global int*")
        .replace("atomic_int*", "global atomic_int*")
}

/// Two unsequenced accesses of one thread to one location, one a write,
/// are an unsequenced race (herd's c11.cat and opencl.cat `ur`), atomics
/// included; in separate statements they are not.
#[test]
fn an_unsequenced_write_and_read_race() {
    let unseq = "C ur\n{ [x] = 0; }\n\
        P0 (atomic_int* x) {\n  int r = atomic_load_explicit(x, memory_order_relaxed) + atomic_fetch_add_explicit(x, 1, memory_order_relaxed);\n}\n\
        exists (0:r=0)\n";
    // Unsequenced, the load may also read the RMW's own write (no hb
    // between them): r = 1 + 0.
    let r = run(unseq, C11);
    assert_eq!(states(&r), ["0:r=0;", "0:r=1;"]);
    assert_eq!((r.executions, r.racy_executions), (2, 2));
    let sequenced = unseq.replace(
        "int r = atomic_load_explicit(x, memory_order_relaxed) + atomic_fetch_add_explicit(x, 1, memory_order_relaxed);",
        "int a = atomic_load_explicit(x, memory_order_relaxed);\n  int b = atomic_fetch_add_explicit(x, 1, memory_order_relaxed);\n  int r = a + b;",
    );
    let r = run(&sequenced, C11);
    assert_eq!(states(&r), ["0:r=0;"]);
    assert_eq!(r.racy_executions, 0);
    assert!(r.race_free());
}

/// A loop's iterations are separate evaluations: the second iteration's
/// left operand is sequenced after the first iteration's right operand.
#[test]
fn each_evaluation_of_a_loop_body_is_separate() {
    // P1 reads (flag, data) twice; in the second iteration the data read
    // is hb-after the first iteration's acquire load, so reading 1 there
    // is visible once the first load read 1.
    let src = "C loop\n{ [d] = 0; [f] = 0; }\n\
        P0 (volatile int* d, atomic_int* f) {\n  *d = 1;\n  atomic_store_explicit(f, 1, memory_order_release);\n}\n\
        P1 (volatile int* d, atomic_int* f) {\n  int k = 0;\n  int s = 0;\n  while (k < 2) {\n    s = s * 10 + (atomic_load_explicit(f, memory_order_acquire) + *d);\n    k = k + 1;\n  }\n}\n\
        exists (1:s=12)\n";
    let r = run(src, C11);
    assert_eq!(r.verdict(), Some(true));
    let s: Vec<String> = states(&r)
        .iter()
        .map(|s| s.split(' ').find(|v| v.starts_with("1:s=")).unwrap().to_string())
        .collect();
    // First iteration: flag 0 or 1, data 0 (its write is never visible).
    // Second: after the first load read 1, the data read is hb-after it and
    // must read 1 (flag 1 too): 12; after it read 0, data 0 and flag 0 or
    // 1. Iterations taken as one evaluation would also give 11.
    assert_eq!(s, ["1:s=0;", "1:s=1;", "1:s=12;"]);
}
