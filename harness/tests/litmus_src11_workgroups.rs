//! Work-group barriers and local memory in C-dialect litmus tests under
//! `src11` and in the DRFrlx analysis (issue 19 item 8;
//! `harness/src/litmus/workgroups.rs`): a barrier is a block-scope barrier
//! of the threads placed in one work-group, fencing the spaces its flags
//! name; `local` locations live in local memory, one work-group's. Exact
//! final states, execution counts and race verdicts, cross-checked with the
//! reference enumerator where it finishes; each misuse is an error at its
//! line and column.

use scopecheck::drfrlx::{Check, RaceKind};
use scopecheck::litmus::output::state_text;
use scopecheck::litmus::{check_drfrlx_source, check_source, Options, TestError, TestResult};
use scopecheck::{FailureKind, Strategy};

fn opts(model: &str, strategy: Strategy) -> Options {
    Options {
        model: Some(model.parse().unwrap()),
        strategy,
        ..Options::default()
    }
}

fn run_as(model: &str, strategy: Strategy, src: &str) -> TestResult {
    check_source("t.litmus", src, &opts(model, strategy)).unwrap_or_else(|e| panic!("{}", e.located("t.litmus")))
}

fn states(r: &TestResult) -> Vec<String> {
    r.states.keys().map(state_text).collect()
}

/// Runs `src` under src11 with both explorers; asserts they agree on the
/// final states and the executions, and that every run completed. (Racy
/// executions are compared on the optimal explorer only: for a barrier
/// test the reference enumerator reports more racy runs than executions,
/// 12 for 2 in `a_barrier_fencing_only_the_other_space_...`, as it also
/// counts graphs it does not complete.)
fn src11(src: &str) -> TestResult {
    let a = run_as("src11", Strategy::Exhaustive, src);
    let b = run_as("src11", Strategy::Reference, src);
    assert!(
        a.complete && b.complete,
        "{:?} {:?}",
        a.incomplete_reason,
        b.incomplete_reason
    );
    assert_eq!(states(&a), states(&b));
    assert_eq!(a.executions, b.executions);
    a
}

/// The error a test gives under `model`: (line:col, message).
fn error(model: &str, src: &str) -> (String, String) {
    match check_source("t.litmus", src, &opts(model, Strategy::Exhaustive)) {
        Err(TestError::Invalid { pos, message }) | Err(TestError::Unsupported { pos, message }) => {
            (pos.to_string(), message)
        }
        Err(e) => panic!("another error: {}", e.located("t.litmus")),
        Ok(r) => panic!("no error: {:?}", states(&r)),
    }
}

/// Message passing through a labelled barrier: `flags` on both barriers,
/// the data in `space` memory.
fn mp(space: &str, flags: &str) -> String {
    format!(
        "C MP-barrier\n{{ [x] = 0; }}\n\
         P0@wg 0, dev 0 ({space} int* x) {{\n  *x = 1;\n  B1: barrier({flags});\n}}\n\
         P1@wg 0, dev 0 ({space} int* x) {{\n  B1: barrier({flags});\n  int r0 = *x;\n}}\n\
         exists (1:r0=0)\n"
    )
}

#[test]
fn a_barrier_fencing_the_datas_space_orders_it() {
    for (space, flags) in [
        ("global", "CLK_GLOBAL_MEM_FENCE"),
        ("local", "CLK_LOCAL_MEM_FENCE"),
        ("global", "CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE"),
        ("local", "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE"),
    ] {
        let r = src11(&mp(space, flags));
        assert_eq!(states(&r), ["1:r0=1;"], "{space} {flags}");
        assert_eq!((r.executions, r.racy_executions), (1, 0), "{space} {flags}");
        assert_eq!(r.verdict(), Some(false));
    }
}

#[test]
fn a_barrier_fencing_only_the_other_space_lets_a_data_race_through() {
    for (space, flags, other) in [
        ("global", "CLK_LOCAL_MEM_FENCE", "local"),
        ("local", "CLK_GLOBAL_MEM_FENCE", "global"),
    ] {
        let r = src11(&mp(space, flags));
        // The plain read may read the initial value or the write, racing either way.
        assert_eq!(states(&r), ["1:r0=0;", "1:r0=1;"], "{space}");
        assert_eq!((r.executions, r.racy_executions), (2, 2), "{space}");
        assert_eq!(r.races.len(), 1, "{space}");
        let race = &r.races[0];
        assert_eq!(race.kind(), FailureKind::DataRace);
        assert!(
            race.message().contains(&format!(
                "fences only {other} memory, and this location is in {space} memory"
            )),
            "{}",
            race.message()
        );
        assert_eq!(
            race.fix(),
            Some(
                format!(
                    "make that barrier fence {space} memory too (`barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)`)"
                )
                .as_str()
            )
        );
    }
}

/// Barriers in loops meet once per iteration; each work-item's local slot
/// is updated twice with the other reading it only after the last barrier.
#[test]
fn barriers_in_a_loop_meet_once_per_iteration() {
    let src = "C loop-bar\n{ [s] = 0; [t] = 0; }\n\
        P0@wg 0, dev 0 (local int* s, local int* t) {\n  int i = 0;\n  while (i < 2) {\n    *s = *s + 1;\n    \
        barrier(CLK_LOCAL_MEM_FENCE);\n    i = i + 1;\n  }\n  int r0 = *t;\n}\n\
        P1@wg 0, dev 0 (local int* s, local int* t) {\n  int i = 0;\n  while (i < 2) {\n    *t = *t + 10;\n    \
        barrier(CLK_LOCAL_MEM_FENCE);\n    i = i + 1;\n  }\n  int r1 = *s;\n}\n\
        exists (0:r0=20 /\\ 1:r1=2 /\\ s=2 /\\ t=20)\n";
    let r = src11(src);
    assert_eq!(states(&r), ["0:r0=20; 1:r1=2; s=2; t=20;"]);
    assert_eq!((r.executions, r.racy_executions), (1, 0));
    assert_eq!(r.verdict(), Some(true));
}

/// Two work-groups, each with a barrier of its own; a device-scope
/// release/acquire flag carries the value across groups. At work-group
/// scope the flag is a heterogeneous race (and lets the data through
/// unordered).
fn two_groups(scope: &str) -> String {
    format!(
        "C two-groups\n{{ [x] = 0; [y] = 0; [f] = 0; }}\n\
         P0@wg 0, dev 0 (global int* x) {{\n  *x = 1;\n  barrier(CLK_GLOBAL_MEM_FENCE);\n}}\n\
         P1@wg 0, dev 0 (global int* x, global atomic_int* f) {{\n  barrier(CLK_GLOBAL_MEM_FENCE);\n  \
         int r0 = *x;\n  atomic_store_explicit(f, r0, memory_order_release, {scope});\n}}\n\
         P2@wg 1, dev 0 (global atomic_int* f, global int* y) {{\n  \
         int r1 = atomic_load_explicit(f, memory_order_acquire, {scope});\n  *y = r1;\n  \
         barrier(CLK_GLOBAL_MEM_FENCE);\n}}\n\
         P3@wg 1, dev 0 (global int* y) {{\n  barrier(CLK_GLOBAL_MEM_FENCE);\n  int r2 = *y;\n}}\n\
         exists (3:r2=1)\n"
    )
}

#[test]
fn each_work_group_has_its_own_barrier() {
    let r = src11(&two_groups("memory_scope_device"));
    assert_eq!(states(&r), ["3:r2=0;", "3:r2=1;"]);
    assert_eq!((r.executions, r.racy_executions), (2, 0));
    let r = run_as("src11", Strategy::Exhaustive, &two_groups("memory_scope_work_group"));
    let kinds: Vec<FailureKind> = r.races.iter().map(|f| f.kind()).collect();
    assert_eq!(kinds, [FailureKind::HeterogeneousRace], "{:?}", r.races);
    assert_eq!(states(&r), ["3:r2=0;", "3:r2=1;"]);
}

#[test]
fn barriers_with_different_labels_diverge() {
    let src = "C diverge\n{ [x] = 0; }\n\
        P0@wg 0, dev 0 (global int* x) {\n  *x = 1;\n  B1: barrier(CLK_GLOBAL_MEM_FENCE);\n}\n\
        P1@wg 0, dev 0 (global int* x) {\n  B2: barrier(CLK_GLOBAL_MEM_FENCE);\n  int r0 = *x;\n}\n\
        exists (1:r0=0)\n";
    let r = run_as("src11", Strategy::Exhaustive, src);
    assert_eq!(r.failures.len(), 1);
    let f = &r.failures[0];
    assert_eq!(f.kind(), FailureKind::BarrierDivergence);
    // Each barrier is named where its label's barriers meet.
    assert!(
        f.message().contains("meet at different barriers")
            && f.message().contains("t.litmus:5:3")
            && f.message().contains("t.litmus:8:3"),
        "{}",
        f.message()
    );
}

#[test]
fn a_barrier_one_work_item_skips_diverges() {
    let src = "C skip\n{ [f] = 0; }\n\
        P0@wg 0, dev 0 (global atomic_int* f) {\n  int r1 = atomic_load_explicit(f, memory_order_relaxed);\n  \
        if (r1 == 0) {\n    B1: barrier(CLK_GLOBAL_MEM_FENCE);\n  }\n}\n\
        P1@wg 0, dev 0 (global atomic_int* f) {\n  atomic_store_explicit(f, 1, memory_order_relaxed);\n  \
        B1: barrier(CLK_GLOBAL_MEM_FENCE);\n}\n\
        exists (0:r1=0)\n";
    let r = run_as("src11", Strategy::Exhaustive, src);
    assert_eq!(r.failures.len(), 1);
    let f = &r.failures[0];
    assert_eq!(f.kind(), FailureKind::BarrierDivergence);
    assert!(f.message().contains("1 of its 2 threads"), "{}", f.message());
}

#[test]
fn misplaced_barriers_and_local_memory_are_errors_at_their_position() {
    // A barrier in a host thread (no placement).
    let (at, m) = error(
        "src11",
        &mp("global", "CLK_GLOBAL_MEM_FENCE").replace("P1@wg 0, dev 0", "P1"),
    );
    assert_eq!(at, "8:3");
    assert!(m.starts_with("P1 has a barrier but runs on the host"), "{m}");
    // A local location named by two work-groups: at the second declaration.
    let (at, m) = error(
        "src11",
        &mp("local", "CLK_LOCAL_MEM_FENCE").replace("P1@wg 0", "P1@wg 1"),
    );
    assert_eq!(at, "7:17");
    assert!(
        m.starts_with("P1 (device 0, work-group 1) names `x`, which P0 (device 0, work-group 0) declares local"),
        "{m}"
    );
    // Named by a thread placed without a work-group.
    let (at, m) = error(
        "src11",
        &mp("local", "CLK_LOCAL_MEM_FENCE").replace("P1@wg 0, dev 0", "P1@dev 0"),
    );
    assert_eq!(at, "7:11");
    assert!(m.contains("placed without `wg`: a work-group of its own"), "{m}");
    // Declared local in one thread and global in another.
    let src = mp("local", "CLK_LOCAL_MEM_FENCE").replacen("local int* x", "global int* x", 1);
    let (at, m) = error("src11", &src);
    assert_eq!(at, "3:17");
    assert_eq!(
        m,
        "P0 declares `x` global, and P1 local (at 7:17): a location is in one memory space"
    );
    // Local memory in a host thread.
    let src = "C host-local\n{ [x] = 0; }\nP0 (local int* x) {\n  *x = 1;\n}\nexists (x=1)\n";
    let (at, m) = error("src11", src);
    assert_eq!(at, "3:5");
    assert!(m.contains("local memory exists only inside a work-group"), "{m}");
    // A barrier scope wider than its work-group.
    let src = mp("global", "CLK_GLOBAL_MEM_FENCE").replacen(
        "B1: barrier(CLK_GLOBAL_MEM_FENCE)",
        "work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_device)",
        1,
    );
    let (at, m) = error("src11", &src);
    assert_eq!(at, "5:3");
    assert!(
        m.starts_with("a work-group barrier with memory scope `memory_scope_device`"),
        "{m}"
    );
    // The work-group's own scope is the barrier's: accepted.
    let src = src.replace("memory_scope_device", "memory_scope_work_group");
    let src = src.replace(
        "B1: barrier(CLK_GLOBAL_MEM_FENCE)",
        "work_group_barrier(CLK_GLOBAL_MEM_FENCE)",
    );
    let r = src11(&src);
    assert_eq!(states(&r), ["1:r0=1;"]);
}

#[test]
fn the_other_engine_models_still_refuse_barriers() {
    for model in ["rc11", "sc", "cpp20", "c11"] {
        let (at, m) = error(model, &mp("global", "CLK_GLOBAL_MEM_FENCE"));
        assert_eq!(at, "5:3", "{model}");
        assert_eq!(
            m,
            format!(
                "P0 has a barrier; barriers are supported by the opencl and src11 models (`--model opencl`, \
                 `--model src11`) and by `scopecheck drfrlx`, not by {model}"
            )
        );
    }
}

/// herd's OpenCL barrier tests, under src11: the public corpus's
/// barrier_example (one state, as under opencl) and global_barrier (whose
/// tyler handoff is race-free only when both flags were seen).
#[test]
fn the_public_opencl_barrier_tests_under_src11() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus/public/opencl");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let r = src11(&read("barrier_example.litmus"));
    assert_eq!(states(&r), ["0:x=x; 1:y=y;"]);
    assert_eq!((r.executions, r.racy_executions), (1, 0));
    let r = run_as("src11", Strategy::Exhaustive, &read("global_barrier.litmus"));
    assert!(r.complete && r.failures.is_empty());
    assert_eq!(r.states.len(), 16);
    assert_eq!((r.executions, r.racy_executions), (46, 42));
    // One race: P1's write of tyler and P5's read.
    assert_eq!(r.races.len(), 1);
    let race = &r.races[0];
    assert_eq!(race.kind(), FailureKind::DataRace);
    assert!(
        race.message().contains("t.litmus:28:3") && race.message().contains("t.litmus:81:12"),
        "{}",
        race.message()
    );
}

/// Seed 004's event counter in local memory, judged by `scopecheck
/// drfrlx`: the barrier orders the commutative increments before the
/// paired read; without it the read races with them.
#[test]
fn drfrlx_judges_barriers_and_local_memory() {
    let src = "C counter-local\n{ [hits] = 0; [out] = 0; }\n\
        P0@wg 0, dev 0 (local atomic_int* hits, global atomic_int* out) {\n  \
        atomic_fetch_add_explicit(hits, 1, memory_order_relaxed, rlx_commutative);\n  \
        barrier(CLK_LOCAL_MEM_FENCE);\n  int n = atomic_load_explicit(hits, memory_order_seq_cst);\n  \
        atomic_store_explicit(out, n, memory_order_seq_cst);\n}\n\
        P1@wg 0, dev 0 (local atomic_int* hits) {\n  \
        atomic_fetch_add_explicit(hits, 2, memory_order_relaxed, rlx_commutative);\n  \
        barrier(CLK_LOCAL_MEM_FENCE);\n}\n\
        exists (out=3)\n";
    let r = check_drfrlx_source("t.litmus", src, &Check::new(), 2).unwrap();
    assert!(r.is_legal(), "{r}");
    // The two increments in either order.
    assert_eq!((r.sc_executions, r.weak_executions), (2, 2), "{r}");
    let unordered = src.replace("  barrier(CLK_LOCAL_MEM_FENCE);\n", "");
    let r = check_drfrlx_source("t.litmus", &unordered, &Check::new(), 2).unwrap();
    assert_eq!(r.race_kinds(), [RaceKind::Commutative], "{r}");
    // The local counter is local memory there too: a second work-group
    // naming it is an error at its declaration.
    let two = src.replace("P1@wg 0", "P1@wg 1");
    match check_drfrlx_source("t.litmus", &two, &Check::new(), 2) {
        Err(TestError::Invalid { pos, message }) => {
            assert_eq!(pos.to_string(), "9:17");
            assert!(message.contains("declares local"), "{message}");
        }
        other => panic!("{:?}", other.map(|r| r.to_string())),
    }
}

/// An OPENCL test names a class after its order and scope, and `scopecheck
/// drfrlx` judges it like a C one (scopes are read as system: DRFrlx has
/// none); PTX and Vulkan tests have no class syntax and are refused at
/// their first line with the reason.
#[test]
fn drfrlx_classes_in_opencl_tests_and_not_in_ptx_or_vulkan_ones() {
    let src = "OPENCL counter\n{ [hits] = 0; }\n\
        P0@wg 0, dev 0 (global atomic_int* hits) {\n  \
        atomic_fetch_add_explicit(hits, 1, memory_order_relaxed, memory_scope_device, rlx_commutative);\n}\n\
        P1@wg 1, dev 0 (global atomic_int* hits) {\n  \
        int r = atomic_fetch_add_explicit(hits, 2, memory_order_relaxed, memory_scope_device, rlx_commutative);\n  \
        atomic_store_explicit(hits, r, memory_order_seq_cst, memory_scope_device);\n}\n\
        exists (hits=3)\n";
    // P1 uses the value its commutative increment returned: a commutative race.
    let r = check_drfrlx_source("t.litmus", src, &Check::new(), 2).unwrap();
    assert_eq!(r.race_kinds(), [RaceKind::Commutative], "{r}");
    // Without the use, legal: the increments in either order.
    let unused = src.replace(
        "  atomic_store_explicit(hits, r, memory_order_seq_cst, memory_scope_device);\n",
        "",
    );
    let r = check_drfrlx_source("t.litmus", &unused, &Check::new(), 2).unwrap();
    assert!(r.is_legal(), "{r}");
    assert_eq!(r.sc_executions, 2, "{r}");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/parse");
    for (file, dialect) in [("ptx-mp-spin.litmus", "PTX"), ("vulkan-barrier.litmus", "Vulkan")] {
        let src = std::fs::read_to_string(dir.join(file)).unwrap();
        match check_drfrlx_source(file, &src, &Check::new(), 2) {
            Err(TestError::Unsupported { pos, message }) => {
                assert_eq!(pos.to_string(), "1:1");
                assert!(
                    message.starts_with(&format!(
                        "the DRFrlx analysis judges C-dialect tests (`C` or `OPENCL` header), not {dialect} ones"
                    )),
                    "{message}"
                );
            }
            other => panic!("{file}: {:?}", other.map(|r| r.to_string())),
        }
    }
}
