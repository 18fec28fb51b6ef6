//! Locations that threads declare differently (docs/opencl-model.md section
//! 2): atomic in one thread and non-atomic in another, or global in one and
//! local in another. Each access keeps the atomicity it is written with;
//! under `opencl` the location takes the region and type of its last
//! declaration, as in Dat3M; the C models ignore declared types. The tests
//! are `corpus/litmus/mixed/`, with exact final states, verdicts and race
//! verdicts, checked again against the reference enumerator.

use scopecheck::litmus::output::state_text;
use scopecheck::litmus::{check_file, check_source, LitmusModel, Options, TestResult};
use scopecheck::{FailureKind, Strategy};
use std::path::{Path, PathBuf};

fn mixed() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus/mixed")
}

fn run_file(name: &str, strategy: Strategy) -> TestResult {
    let path = mixed().join(name);
    let opts = Options {
        strategy,
        ..Options::default()
    };
    let r = check_file(&path, &opts).unwrap_or_else(|e| panic!("{}", e.located(name)));
    assert!(r.failures.is_empty(), "{name}: {:?}", r.failures);
    assert!(r.complete, "{name}: incomplete");
    r
}

fn states(r: &TestResult) -> Vec<String> {
    r.states.keys().map(state_text).collect()
}

/// What one test must give: final states, whether the condition holds,
/// whether every execution is race-free, consistent executions, racy ones.
struct Want {
    file: &'static str,
    states: &'static [&'static str],
    holds: bool,
    race_free: bool,
    executions: u64,
    racy: u64,
}

const OPENCL: [Want; 6] = [
    Want {
        file: "MP-plain-read-of-atomic-data.litmus",
        states: &["1:r0=0; 1:r1=0;", "1:r0=1; 1:r1=1;"],
        holds: false,
        race_free: false,
        executions: 2,
        racy: 1,
    },
    Want {
        file: "MP-plain-write-of-atomic-data.litmus",
        states: &["1:r0=0; 1:r1=0;", "1:r0=0; 1:r1=1;", "1:r0=1; 1:r1=1;"],
        holds: false,
        race_free: false,
        executions: 3,
        racy: 2,
    },
    Want {
        file: "MP-flag-local-then-global.litmus",
        states: &["1:r0=0; 1:r1=-1;", "1:r0=1; 1:r1=1;"],
        holds: false,
        race_free: true,
        executions: 2,
        racy: 0,
    },
    Want {
        file: "MP-flag-global-then-local.litmus",
        states: &["1:r0=0; 1:r1=-1;", "1:r0=1; 1:r1=0;"],
        holds: true,
        race_free: false,
        executions: 2,
        racy: 1,
    },
    Want {
        file: "atomics-on-non-atomic-location.litmus",
        states: &["1:r0=0;"],
        holds: false,
        race_free: true,
        executions: 1,
        racy: 0,
    },
    Want {
        file: "atomics-on-atomic-location.litmus",
        states: &["1:r0=0;", "1:r0=1;"],
        holds: true,
        race_free: true,
        executions: 2,
        racy: 0,
    },
];

/// Each opencl test of `mixed/`, exactly; the races found are data races
/// (one side non-atomic), and the note says which declaration decided.
#[test]
fn opencl_mixed_declarations_exactly() {
    for w in &OPENCL {
        let r = run_file(w.file, Strategy::Exhaustive);
        assert_eq!(r.model, LitmusModel::OpenCl, "{}", w.file);
        assert_eq!(states(&r), w.states, "{}: states", w.file);
        assert_eq!(r.verdict(), Some(w.holds), "{}: verdict", w.file);
        assert_eq!(r.race_free(), w.race_free, "{}: race_free", w.file);
        assert_eq!((r.executions, r.racy_executions), (w.executions, w.racy), "{}", w.file);
        assert!(
            r.races.iter().all(|f| f.kind() == FailureKind::DataRace),
            "{}: {:?}",
            w.file,
            r.races
        );
        assert_eq!(r.notes.len(), 1, "{}: {:?}", w.file, r.notes);
    }
    let r = run_file("MP-flag-global-then-local.litmus", Strategy::Exhaustive);
    assert_eq!(
        r.notes,
        [
            "P0 declares `y` as global atomic and P1 as local atomic: the opencl model gives the location its last \
          declaration's region and type, as Dat3M does; each access stays atomic or non-atomic as written"
        ]
    );
}

/// The reference enumerator finds the same consistent graphs.
#[test]
fn opencl_mixed_declarations_agree_with_the_reference() {
    for w in &OPENCL {
        let a = run_file(w.file, Strategy::Exhaustive);
        let b = run_file(w.file, Strategy::Reference);
        assert_eq!(states(&a), states(&b), "{}", w.file);
        assert_eq!(
            (a.executions, a.racy_executions, a.verdict()),
            (b.executions, b.racy_executions, b.verdict()),
            "{}",
            w.file
        );
    }
}

/// C (rc11, and every C model): declared types play no part, so `int*` in
/// one thread and `atomic_int*` in another is the program as written: the
/// plain store races with the relaxed load, which reads either value.
#[test]
fn c_models_take_each_access_as_written() {
    for model in ["rc11", "cpp20", "src11", "sc"] {
        let opts = Options {
            model: Some(model.parse().unwrap()),
            ..Options::default()
        };
        let path = mixed().join("C-MP-mixed-declarations.litmus");
        let r = check_file(&path, &opts).unwrap();
        assert_eq!(
            states(&r),
            ["1:r0=0; 1:r1=0;", "1:r0=0; 1:r1=1;", "1:r0=1; 1:r1=1;"],
            "{model}"
        );
        assert_eq!((r.verdict(), r.race_free()), (Some(false), false), "{model}");
        assert!(r.notes.is_empty(), "{model}: {:?}", r.notes);
    }
}

fn run(src: &str) -> TestResult {
    let r = check_source("t.litmus", src, &Options::default()).unwrap_or_else(|e| panic!("{}", e.located("t.litmus")));
    assert_eq!(r.model, LitmusModel::OpenCl);
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    r
}

/// The last declaration in the file decides, not the majority and not the
/// thread numbers: threads written P1 before P0 take P0's declaration.
#[test]
fn the_last_declaration_in_the_file_decides() {
    // P0 and P2 atomic, P1 (in the middle) non-atomic: x is atomic, and the
    // unsynchronised atomic load in P2 may read P0's store.
    let middle = run("OPENCL m\n{ [x]=0; }\n\
         P0@wg 0, dev 0 (global atomic_int* x) { atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_device); }\n\
         P1@wg 0, dev 0 (global int* x) { }\n\
         P2@wg 1, dev 0 (global atomic_int* x) { int r0 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_device); }\n\
         exists (2:r0=1)\n");
    assert_eq!(states(&middle), ["2:r0=0;", "2:r0=1;"]);
    assert!(middle.race_free());
    assert_eq!(
        middle.notes,
        [
            "P1 declares `x` as global non-atomic and P2 as global atomic: the opencl model gives the location its \
          last declaration's region and type, as Dat3M does; each access stays atomic or non-atomic as written"
        ]
    );
    // The same threads written P2, P1, P0: P0's atomic declaration is last,
    // and with P1's non-atomic one last instead, the load sees only 0.
    let reversed = run("OPENCL r\n{ [x]=0; }\n\
         P2@wg 1, dev 0 (global int* x) { int r0 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_device); }\n\
         P0@wg 0, dev 0 (global atomic_int* x) { atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_device); }\n\
         exists (2:r0=1)\n");
    assert_eq!(states(&reversed), ["2:r0=0;", "2:r0=1;"]);
    let na_last = run("OPENCL n\n{ [x]=0; }\n\
         P0@wg 0, dev 0 (global atomic_int* x) { atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_device); }\n\
         P2@wg 1, dev 0 (global int* x) { int r0 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_device); }\n\
         exists (2:r0=1)\n");
    assert_eq!(states(&na_last), ["2:r0=0;"]);
}

/// A location declared global in one thread and local in another: the last
/// (local) region orders it by local fences and barriers only, so a barrier
/// with the global flag alone leaves the plain accesses racy, and with the
/// local flag it orders them.
#[test]
fn a_region_mismatch_takes_the_last_region() {
    let src = |flags: &str| {
        format!(
            "OPENCL bar\n{{ [x]=0; }}\n\
             P0@wg 0, dev 0 (global int* x) {{ *x = 1; B: barrier({flags}); }}\n\
             P1@wg 0, dev 0 (local int* x) {{ B: barrier({flags}); int r0 = *x; }}\n\
             exists (1:r0=0)\n"
        )
    };
    let g = run(&src("CLK_GLOBAL_MEM_FENCE"));
    assert_eq!(states(&g), ["1:r0=0;"]);
    assert_eq!((g.verdict(), g.race_free()), (Some(true), false));
    let l = run(&src("CLK_LOCAL_MEM_FENCE"));
    assert_eq!(states(&l), ["1:r0=1;"]);
    assert_eq!((l.verdict(), l.race_free()), (Some(false), true));
}
