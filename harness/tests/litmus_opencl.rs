//! The `opencl` model (docs/opencl-model.md): every `opencl` row of the shared
//! corpus's expectation file (herd's answers), the optimal explorer against
//! the reference enumerator on those tests, and one small test per rule
//! (regions, fence flags, barrier flags, same-scope inclusion; locations
//! declared differently by different threads are in litmus_mixed.rs).

use scopecheck::litmus::expect::{self, Expectation, Verdict};
use scopecheck::litmus::output::state_text;
use scopecheck::litmus::{check_file, check_source, LitmusModel, Options, TestResult};
use scopecheck::Strategy;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn public() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus/public")
}

/// The `opencl` rows of the shared corpus's expectation file (a verbatim
/// copy of `shared/litmus/expected.tsv`).
fn opencl_rows() -> Vec<Expectation> {
    let rows = expect::load(&public().join("expected.tsv")).expect("shared expectation file loads");
    rows.into_iter().filter(|r| r.model == LitmusModel::OpenCl).collect()
}

fn opts(strategy: Strategy) -> Options {
    Options {
        model: Some(LitmusModel::OpenCl),
        strategy,
        // (The cyclic enumerator with the optimal explorer, whatever the
        // strategy; `optimal_agrees_with_reference` turns it off.)
        ..Options::default()
    }
}

fn name(row: &Expectation) -> &str {
    row.path_text.trim_start_matches("opencl/").trim_end_matches(".litmus")
}

/// Complete executions the opencl model keeps, per test (the optimal
/// explorer's count; `optimal_agrees_with_reference` checks them).
const EXECUTIONS: [(&str, u64); 20] = [
    ("2+2W", 3),
    ("3.2W", 8),
    ("3LB", 7),
    ("CT_wsq1", 2),
    ("CT_wsq2", 7),
    ("IRIW", 15),
    ("ISA2", 8),
    ("ISA3", 7),
    ("LB", 4),
    ("MP", 2),
    ("R", 3),
    ("RWC", 8),
    ("S", 3),
    ("SB", 4),
    ("SB1", 4),
    ("WRC", 7),
    ("barrier_example", 1),
    ("global_barrier", 25),
    ("global_barrier_mo", 16),
    ("thinair", 5),
];

/// herd's `thinair` outcome x=S8; y=S8 is a self-justifying value (each
/// thread stores what it read from the other): scopecheck produces its
/// instance with the test's constant (x=42; y=42), not the symbol, and says
/// so (docs/c11-model.md section 4); the comparison takes an instance as
/// finding the symbolic state (`expect::state_differences`). This test pins
/// that the comparison does so only for the instance: the raw state sets
/// differ in exactly that pair.
#[test]
fn thinair_agrees_through_its_instance_only() {
    let row = opencl_rows().into_iter().find(|r| name(r) == "thinair").unwrap();
    let outcome = check_file(&row.path, &opts(Strategy::Exhaustive));
    assert_eq!(expect::compare(&row, &outcome), Verdict::Agrees);
    let have: BTreeSet<BTreeSet<String>> = outcome.unwrap().states.keys().map(expect::normalise).collect();
    let want = row.states.clone().unwrap();
    let only_want: Vec<_> = want.difference(&have).collect();
    let only_have: Vec<_> = have.difference(&want).collect();
    assert_eq!(
        format!("{only_want:?} {only_have:?}"),
        r#"[{"x=S8", "y=S8"}] [{"x=42", "y=42"}]"#
    );
}

/// Every opencl row: exact agreement on verdict, race flag and final-state
/// set (thinair's symbolic state through its instance).
#[test]
fn every_opencl_row_agrees() {
    let rows = opencl_rows();
    assert_eq!(rows.len(), 20, "opencl rows of the shared expectation file");
    let mut agree = 0;
    for row in &rows {
        let n = name(row);
        let outcome = check_file(&row.path, &opts(Strategy::Exhaustive));
        let r = outcome
            .as_ref()
            .unwrap_or_else(|e| panic!("{}", e.located(&row.path_text)));
        assert!(r.failures.is_empty(), "{n}: {:?}", r.failures);
        assert!(r.complete, "{n}: incomplete");
        let want = EXECUTIONS.iter().find(|(t, _)| *t == n).expect("count listed").1;
        assert_eq!(r.executions, want, "{n}: executions");
        assert_eq!(expect::compare(row, &outcome), Verdict::Agrees, "{n}");
        agree += 1;
    }
    assert_eq!(agree, 20);
}

/// The rows that need a cycle in po ∪ rf (they used to deviate), in full:
/// load buffering's r0 = r1 = 1, CT_wsq2's failing compare-exchange, and
/// thinair's cycles of zeros and of the condition's 42 (other
/// self-justifying values are not produced, and the result says so).
#[test]
fn rows_needing_po_rf_cycles_get_them() {
    let states = |r: &TestResult| r.states.keys().map(state_text).collect::<Vec<_>>();
    let run = |f: &str| check_file(&public().join("opencl").join(f), &opts(Strategy::Exhaustive)).unwrap();
    let cyclic = |r: &TestResult, n: u64| {
        let note = format!("{n} of {} executions have a cycle in po ∪ rf", r.executions);
        assert!(r.notes.iter().any(|x| x.starts_with(&note)), "{:?}", r.notes);
    };
    let self_justifying = |r: &TestResult| {
        r.notes
            .iter()
            .any(|x| x.starts_with("complete up to self-justifying values"))
    };
    let r = run("thinair.litmus");
    assert_eq!(states(&r), ["x=0; y=0;", "x=42; y=42;"]);
    assert_eq!((r.verdict(), r.race_free()), (Some(true), true));
    cyclic(&r, 2);
    assert!(self_justifying(&r));
    let r = run("LB.litmus");
    assert_eq!(
        states(&r),
        [
            "0:r0=0; 1:r1=0;",
            "0:r0=0; 1:r1=1;",
            "0:r0=1; 1:r1=0;",
            "0:r0=1; 1:r1=1;"
        ]
    );
    assert_eq!((r.verdict(), r.race_free()), (Some(true), false));
    cyclic(&r, 1);
    assert!(!self_justifying(&r), "LB stores constants");
    // CT_wsq2: the row leaves race_free blank; Dat3M says 1, and so do we.
    let r = run("CT_wsq2.litmus");
    assert_eq!(states(&r), ["0:tmp=0; 1:localTail=0;", "0:tmp=1; 1:localTail=0;"]);
    assert_eq!(r.verdict(), Some(false));
    cyclic(&r, 6);
}

/// The optimal explorer (on `porf`) and the reference enumerator find the
/// same opencl-consistent graphs: same final states, counts, races and
/// verdicts. The two global_barrier tests (six threads) are beyond the
/// reference enumerator (over a minute each).
#[test]
fn optimal_agrees_with_reference() {
    let mut compared = 0;
    for row in opencl_rows() {
        let n = name(&row);
        if n.starts_with("global_barrier") {
            continue;
        }
        let acyclic = |strategy| Options {
            porf_cycles: false,
            ..opts(strategy)
        };
        let a = check_file(&row.path, &acyclic(Strategy::Exhaustive)).unwrap();
        let b = check_file(&row.path, &acyclic(Strategy::Reference)).unwrap();
        assert_eq!(
            a.states.keys().collect::<Vec<_>>(),
            b.states.keys().collect::<Vec<_>>(),
            "{n}"
        );
        assert_eq!(a.executions, b.executions, "{n}: executions");
        assert_eq!(a.racy_executions, b.racy_executions, "{n}: racy executions");
        assert_eq!(a.verdict(), b.verdict(), "{n}: verdict");
        compared += 1;
    }
    assert_eq!(compared, 18);
}

fn run(src: &str) -> TestResult {
    let r = check_source("t.litmus", src, &Options::default()).unwrap_or_else(|e| panic!("{}", e.located("t.litmus")));
    assert_eq!(r.model, LitmusModel::OpenCl);
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    r
}

fn states(r: &TestResult) -> Vec<String> {
    r.states.keys().map(state_text).collect()
}

/// Message passing through a global non-atomic `x` and a flag `y`, with the
/// fence flags, scope and placement given.
fn mp(flags: &str, scope: &str, wg1: u32) -> String {
    format!(
        "OPENCL mp\n{{ [x]=0; [y]=0; }}\n\
         P0@wg 0, dev 0 (global int* x, global atomic_int* y) {{\n\
           *x = 1;\n\
           atomic_work_item_fence({flags}, memory_order_release, {scope});\n\
           atomic_store_explicit(y, 1, memory_order_relaxed, {scope});\n\
         }}\n\
         P1@wg {wg1}, dev 0 (global int* x, global atomic_int* y) {{\n\
           int r0 = atomic_load_explicit(y, memory_order_relaxed, {scope});\n\
           atomic_work_item_fence({flags}, memory_order_acquire, {scope});\n\
           int r1 = *x;\n\
         }}\n\
         exists (1:r0=1 /\\ 1:r1=0)\n"
    )
}

/// Fences synchronize global data only with the global flag; a racy read of
/// a non-atomic global location sees only the initial value (axiom 4).
#[test]
fn fence_flags_choose_the_region() {
    let g = run(&mp("CLK_GLOBAL_MEM_FENCE", "memory_scope_device", 0));
    assert_eq!(states(&g), ["1:r0=0; 1:r1=0;", "1:r0=1; 1:r1=1;"]);
    assert_eq!((g.verdict(), g.race_free(), g.executions), (Some(false), false, 2));
    let l = run(&mp("CLK_LOCAL_MEM_FENCE", "memory_scope_device", 0));
    assert_eq!(states(&l), ["1:r0=0; 1:r1=0;", "1:r0=1; 1:r1=0;"]);
    assert_eq!((l.verdict(), l.race_free(), l.executions), (Some(true), false, 2));
}

/// A work-group-scope fence pair synchronizes inside one work-group only.
#[test]
fn work_group_scope_stops_at_the_work_group() {
    let same = run(&mp("CLK_GLOBAL_MEM_FENCE", "memory_scope_work_group", 0));
    assert_eq!(states(&same), ["1:r0=0; 1:r1=0;", "1:r0=1; 1:r1=1;"]);
    let other = run(&mp("CLK_GLOBAL_MEM_FENCE", "memory_scope_work_group", 1));
    assert_eq!(states(&other), ["1:r0=0; 1:r1=0;", "1:r0=1; 1:r1=0;"]);
    assert_eq!(other.verdict(), Some(true));
    // The flag accesses themselves (wg scope, different work-groups) race too.
    assert!(other
        .races
        .iter()
        .any(|f| f.kind() == scopecheck::FailureKind::HeterogeneousRace));
}

/// `incl` is herd's same-scope rule: a work-group and a device atomic in the
/// same work-group are not inclusive, so they race; two work-group ones do not.
#[test]
fn inclusion_needs_the_same_scope() {
    let src = |s1: &str| {
        format!(
            "OPENCL incl\n{{ [x]=0; }}\n\
             P0@wg 0, dev 0 (global atomic_int* x) {{ atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_work_group); }}\n\
             P1@wg 0, dev 0 (global atomic_int* x) {{ int r0 = atomic_load_explicit(x, memory_order_relaxed, {s1}); }}\n\
             exists (1:r0=1)\n"
        )
    };
    let mixed = run(&src("memory_scope_device"));
    assert_eq!(
        (mixed.race_free(), mixed.racy_executions, mixed.executions),
        (false, 2, 2)
    );
    let same = run(&src("memory_scope_work_group"));
    assert_eq!((same.race_free(), same.executions), (true, 2));
}

/// A barrier orders the regions its flags name, between the threads of one
/// work-group; a local-only barrier leaves global data racy (and the read of
/// it sees only the initial value).
#[test]
fn barrier_flags_and_work_groups() {
    let src = |flags: &str, wg1: u32| {
        format!(
            "OPENCL bar\n{{ [x]=0; }}\n\
             P0@wg 0, dev 0 (global int* x) {{ *x = 1; B: barrier({flags}); }}\n\
             P1@wg {wg1}, dev 0 (global int* x) {{ B: barrier({flags}); int r0 = *x; }}\n\
             exists (1:r0=0)\n"
        )
    };
    let g = run(&src("CLK_GLOBAL_MEM_FENCE", 0));
    assert_eq!(states(&g), ["1:r0=1;"]);
    assert_eq!((g.verdict(), g.race_free()), (Some(false), true));
    let l = run(&src("CLK_LOCAL_MEM_FENCE", 0));
    assert_eq!(states(&l), ["1:r0=0;"]);
    assert_eq!((l.verdict(), l.race_free()), (Some(true), false));
    // Different work-groups never meet at a barrier, labels notwithstanding.
    let apart = run(&src("CLK_GLOBAL_MEM_FENCE", 1));
    assert_eq!(states(&apart), ["1:r0=0;"]);
    assert!(!apart.race_free());
}

/// A barrier one member of the work-group never reaches is noted.
#[test]
fn barrier_divergence_is_noted() {
    let r = run("OPENCL div\n{ [x]=0; }\n\
         P0@wg 0, dev 0 (global atomic_int* x) { B: barrier(CLK_GLOBAL_MEM_FENCE); }\n\
         P1@wg 0, dev 0 (global atomic_int* x) { int r0 = atomic_load(x); }\n\
         exists (1:r0=0)\n");
    assert_eq!(
        r.notes,
        ["barrier divergence: P0 reaches barrier `B` (occurrence 1) but P1 of its work-group never does"]
    );
}

/// The cross-region clause (`scf`, docs/opencl-model.md 3.3): a release and
/// an acquire fence that both carry the global and the local flag
/// synchronize global data through a local flag; either flag alone does not.
#[test]
fn fences_with_both_flags_cross_regions() {
    let src = |flags: &str| {
        format!(
            "OPENCL scf\n{{ [x]=0; [y]=0; }}\n\
             P0@wg 0, dev 0 (global int* x, local atomic_int* y) {{\n\
               *x = 1;\n\
               atomic_work_item_fence({flags}, memory_order_release, memory_scope_work_group);\n\
               atomic_store_explicit(y, 1, memory_order_relaxed, memory_scope_work_group);\n\
             }}\n\
             P1@wg 0, dev 0 (global int* x, local atomic_int* y) {{\n\
               int r0 = atomic_load_explicit(y, memory_order_relaxed, memory_scope_work_group);\n\
               atomic_work_item_fence({flags}, memory_order_acquire, memory_scope_work_group);\n\
               int r1 = *x;\n\
             }}\n\
             exists (1:r0=1 /\\ 1:r1=0)\n"
        )
    };
    let both = run(&src("CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE"));
    assert_eq!(states(&both), ["1:r0=0; 1:r1=0;", "1:r0=1; 1:r1=1;"]);
    assert_eq!(both.verdict(), Some(false));
    for one in ["CLK_GLOBAL_MEM_FENCE", "CLK_LOCAL_MEM_FENCE"] {
        let r = run(&src(one));
        assert_eq!(states(&r), ["1:r0=0; 1:r1=0;", "1:r0=1; 1:r1=0;"], "{one}");
        assert_eq!(r.verdict(), Some(true), "{one}");
    }
}
