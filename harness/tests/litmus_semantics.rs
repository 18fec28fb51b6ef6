//! The litmus interpreter's semantics on small tests with answers derived by
//! hand: loops and the unroll bound, compare-exchange through `&r` and
//! through memory, arrays and addresses, quantifiers, and the errors of
//! tests that mean nothing.

mod common;

use common::one_failure;
use scopecheck::litmus::output::state_text;
use scopecheck::litmus::FinalState;
use scopecheck::litmus::{check_source, LitmusModel, Options, TestError, TestResult};
use scopecheck::{FailureKind, MemoryModel};

fn run(src: &str) -> TestResult {
    run_with(src, &Options::default())
}

fn run_with(src: &str, o: &Options) -> TestResult {
    match check_source("t.litmus", src, o) {
        Ok(r) => r,
        Err(e) => panic!("{}", e.located("t.litmus")),
    }
}

fn states(r: &TestResult) -> Vec<String> {
    r.states.keys().map(|s: &FinalState| state_text(s)).collect()
}

fn error(src: &str, o: &Options) -> TestError {
    match check_source("t.litmus", src, o) {
        Ok(r) => panic!("expected an error, got {} states", r.states.len()),
        Err(e) => e,
    }
}

const SPIN: &str = "C spin\n{}\n\
P0 (atomic_int* x) {\n  int n = 0;\n  while (atomic_load_explicit(x, memory_order_relaxed) == 0) {\n    n = n + 1;\n  }\n}\n\
P1 (atomic_int* x) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n}\n\
exists (0:n=2)\n";

/// A loop reading 0 then 1 runs its body once per 0 read; with the bound at
/// 2, the execution reading 0 three times is discarded (blocked), as herd's
/// -unroll does.
#[test]
fn while_loops_are_unrolled_and_longer_executions_discarded() {
    let r = run(SPIN);
    assert_eq!(states(&r), vec!["0:n=0;", "0:n=1;", "0:n=2;"]);
    assert_eq!(r.executions, 3);
    assert_eq!(r.blocked, 1);
    assert_eq!(r.verdict(), Some(true));
    let r0 = run_with(
        SPIN,
        &Options {
            unroll: 0,
            ..Options::default()
        },
    );
    assert_eq!(states(&r0), vec!["0:n=0;"]);
    assert_eq!((r0.executions, r0.blocked), (1, 1));
    assert_eq!(r0.verdict(), Some(false));
}

/// A compare-exchange whose expected value is a register (`&r`): on failure
/// the register receives the value seen. Reading the initial 0 it succeeds
/// and P1's store must come after it in mo; reading 1 it fails.
#[test]
fn compare_exchange_through_a_register() {
    let r = run("C cas\n{}\n\
        P0 (atomic_int* x) {\n  int r = 0;\n  int ok = atomic_compare_exchange_strong_explicit(x, &r, 5, memory_order_relaxed, memory_order_relaxed);\n}\n\
        P1 (atomic_int* x) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n}\n\
        locations [x;]\nexists (0:ok=0 /\\ 0:r=1)\n");
    assert_eq!(states(&r), vec!["0:ok=0; 0:r=1; x=1;", "0:ok=1; 0:r=0; x=1;"]);
    assert_eq!(r.executions, 2);
    assert_eq!(r.verdict(), Some(true));
}

/// The expected value through memory (`int* e`): a plain read before, a
/// plain write of the value seen on failure, as C specifies.
#[test]
fn compare_exchange_through_memory() {
    let r = run("C casmem\n{ e = 7; }\n\
        P0 (atomic_int* x, int* e) {\n  int ok = atomic_compare_exchange_strong(x, e, 3);\n}\n\
        forall (0:ok=0 /\\ e=0 /\\ x=0)\n");
    assert_eq!(states(&r), vec!["0:ok=0; e=0; x=0;"]);
    assert_eq!(r.verdict(), Some(true));
    assert!(r.race_free());
}

/// Arrays, pointer arithmetic, and addresses as values: P0 reads the index
/// from `i` and writes `a[i]`; a parameter register holds its location.
#[test]
fn arrays_pointer_arithmetic_and_addresses() {
    let r = run("C arr\n{ int a[3] = {10, 20, 30}; i = 2; }\n\
        P0 (atomic_int* a, atomic_int* i) {\n  int k = atomic_load_explicit(i, memory_order_relaxed);\n  atomic_store_explicit(a + k, 99, memory_order_relaxed);\n  int v = atomic_load_explicit(a + 1, memory_order_relaxed);\n}\n\
        forall (0:k=2 /\\ 0:v=20 /\\ a[2]=99 /\\ a[0]=10 /\\ 0:a=a)\n");
    assert_eq!(states(&r), vec!["0:a=a; 0:k=2; 0:v=20; a=10; a[2]=99;"]);
    assert_eq!(r.verdict(), Some(true));
}

/// `~exists` holds when no execution satisfies the proposition, `forall`
/// when all do; Positive counts the executions satisfying it either way.
#[test]
fn quantifiers() {
    let body = "P0 (atomic_int* x) {\n  atomic_store_explicit(x, 1, memory_order_seq_cst);\n}\n\
        P1 (atomic_int* x) {\n  int r = atomic_load_explicit(x, memory_order_seq_cst);\n}\n";
    let never = run(&format!("C q1\n{{}}\n{body}~exists (1:r=2)\n"));
    assert_eq!((never.verdict(), never.positive, never.negative), (Some(true), 0, 2));
    let some = run(&format!("C q2\n{{}}\n{body}~exists (1:r=1)\n"));
    assert_eq!((some.verdict(), some.positive, some.negative), (Some(false), 1, 1));
    let all = run(&format!("C q3\n{{}}\n{body}forall (1:r=0 \\/ 1:r=1)\n"));
    assert_eq!((all.verdict(), all.positive, all.negative), (Some(true), 2, 0));
    let not_all = run(&format!("C q4\n{{}}\n{body}forall (~(1:r=1))\n"));
    assert_eq!(not_all.verdict(), Some(false));
}

#[test]
fn meaningless_tests_get_located_errors() {
    let o = Options::default();
    let e = error(
        "C u\n{}\nP0 (atomic_int* x) {\n  int r = q + 1;\n}\nexists (0:r=1)\n",
        &o,
    );
    assert_eq!(
        e.located("t.litmus"),
        "t.litmus:4:11: unknown variable `q` (not a register or location)"
    );
    let e = error("C u\n{}\nP0 (atomic_int* x) {\n  int r = 1;\n}\nexists (3:r=1)\n", &o);
    assert_eq!(
        e.located("t.litmus"),
        "t.litmus:6:1: the condition names `3:r` but the test has no thread P3"
    );
    let e = error("C u\n{}\nP0 (atomic_int* x) {\n  int r = 1;\n}\nexists (0:s=1)\n", &o);
    assert_eq!(
        e.located("t.litmus"),
        "t.litmus:6:1: the condition names `0:s` but P0 has no register `s`"
    );
    let e = error("C u\n{}\nP0 (atomic_int* x) {\n  int r = 1;\n}\nlocations [0:s;]\n", &o);
    assert_eq!(
        e.located("t.litmus"),
        "t.litmus:1:1: the locations clause names `0:s` but P0 has no register `s`"
    );
}

/// Barriers exist in the opencl model (the default for OPENCL tests) and,
/// as work-group barriers, under src11 (`litmus_src11_workgroups.rs`):
/// other models refuse a test with one, naming the thread and the line.
#[test]
fn barriers_need_the_opencl_or_src11_model() {
    let src =
        "OPENCL b\n{}\nP0@wg 0, dev 0 (global atomic_int* x) {\n  B: barrier(CLK_GLOBAL_MEM_FENCE);\n}\nexists (x=0)\n";
    let r = check_source("t.litmus", src, &Options::default()).unwrap();
    assert_eq!(r.model, LitmusModel::OpenCl);
    assert_eq!((r.executions, r.verdict()), (1, Some(true)));
    let e = error(
        src,
        &Options {
            model: Some(LitmusModel::Engine(MemoryModel::Rc11)),
            ..Options::default()
        },
    );
    assert!(matches!(e, TestError::Unsupported { .. }), "{e:?}");
    assert_eq!(
        e.located("t.litmus"),
        "t.litmus:4:3: unsupported: P0 has a barrier; barriers are supported by the opencl and src11 models \
         (`--model opencl`, `--model src11`) and by `scopecheck drfrlx`, not by rc11"
    );
    let r = check_source(
        "t.litmus",
        src,
        &Options {
            model: Some(LitmusModel::Engine(MemoryModel::Src11)),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!((r.executions, r.verdict()), (1, Some(true)));
}

/// A run-time error of the test's program (here a division by zero) is a
/// failure of that test, with the litmus line, and no verdict.
#[test]
fn runtime_errors_of_the_program_are_failures_with_the_line() {
    let r = run("C div\n{}\nP0 (atomic_int* x) {\n  int z = atomic_load_explicit(x, memory_order_relaxed);\n  int r = 7 / z;\n}\nexists (0:r=1)\n");
    let f = one_failure(&r.failures, FailureKind::Panic, &"the litmus test `div`");
    // The panic is raised in the interpreter, at a line of its own source.
    let (what, at) = f
        .message()
        .split_once(" (at ")
        .expect("a panic names where it was raised");
    assert_eq!(what, "thread 1 panicked: t.litmus:5:11: division by zero");
    assert!(at.starts_with("harness/src/litmus/interp/eval.rs:"), "{}", f.message());
    assert_eq!(r.verdict(), None);
}
