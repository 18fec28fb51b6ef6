//! Forms of Dat3M's PTX and Vulkan dialects found in a sample of its suite
//! beyond the public set (docs/gpu-models.md, section 5): every row of
//! corpus/gpu-dialect/expected.tsv, the exact outcome sets, and the errors
//! that stay errors. Before, `P1: r0` in a condition, a `filter` ending the
//! test, `rmw` without `.atom`, `blt`/`ble`/`bgt`/`bge`, `mul`, `div`, a
//! `locations` list, Vulkan's `ld` of a constant and PTX's `suatom` and
//! `sured` were parse errors, and `semsc01` was read as `semsc1`.

mod common;

use common::litmus_rows::{
    corpus_dir, every_row_agrees, model_options as opts, run_file, run_source as run_src, states,
};
use scopecheck::litmus::{check_source, TestResult};

fn dir() -> std::path::PathBuf {
    corpus_dir("gpu-dialect")
}

fn run(file: &str, model: &str) -> TestResult {
    run_file(&dir(), file, model)
}

#[test]
fn every_row_agrees_with_its_answer() {
    assert_eq!(every_row_agrees(&corpus_dir("gpu-dialect")), 16);
}

/// `P1: r0` and `P1 : r1` name the registers `P1:r0` and `P1:r1`: the same
/// outcome set as the test written without spaces.
#[test]
fn a_register_may_have_spaces_around_its_colon() {
    let spaced = std::fs::read_to_string(dir().join("cond-colon-space.litmus")).unwrap();
    let tight = spaced.replace("P1: r0", "P1:r0").replace("P1 : r1", "P1:r1");
    assert_ne!(spaced, tight);
    for model in ["ptx6.0", "ptx7.5"] {
        let a = run_src("spaced.litmus", &spaced, model);
        let b = run_src("tight.litmus", &tight, model);
        let all = ["1:r0=0 1:r1=0", "1:r0=0 1:r1=1", "1:r0=1 1:r1=0", "1:r0=1 1:r1=1"];
        assert_eq!(states(&a), all, "{model}");
        assert_eq!(states(&b), all, "{model}");
        assert_eq!((a.verdict(), a.positive, a.executions), (Some(true), 1, 4), "{model}");
        assert_eq!((b.verdict(), b.positive, b.executions), (Some(true), 1, 4), "{model}");
    }
    // A thread and a colon with no register after them stay an error, at
    // the thread.
    let bad = spaced.replace("P1 : r1 == 0", "P1 : == 0");
    let e = check_source("bad.litmus", &bad, &opts("ptx7.5")).unwrap_err();
    assert_eq!(
        e.located("bad.litmus"),
        "bad.litmus:9:24: expected `P<n>:<register>`, found `P1:`"
    );
}

/// A `filter` with no condition: no verdict, no condition printed, and the
/// filter decides which executions (and so which races) count.
#[test]
fn a_filter_alone_chooses_the_executions_and_their_races() {
    let r = run("filter-only-synced.litmus", "vulkan");
    assert_eq!(r.verdict(), None);
    assert_eq!(states(&r), ["1:r0=1"]);
    assert_eq!((r.executions, r.racy_executions, r.race_free()), (1, 0, true));
    let r = run("filter-only-unsynced.litmus", "vulkan");
    assert_eq!(r.verdict(), None);
    assert_eq!(states(&r), ["1:r0=0"]);
    assert_eq!((r.executions, r.racy_executions, r.race_free()), (2, 2, false));
    // The herd text names no condition and gives no verdict.
    let text = scopecheck::litmus::output::herd_text(&r);
    assert!(text.starts_with("Test filter-only-unsynced\n"), "{text}");
    assert!(text.contains("\n??\n"), "{text}");
    assert!(!text.contains("Condition"), "{text}");
}

/// `rmw` without `.atom` is the atomic rmw it is with `.atom`: the same
/// outcome set, race free.
#[test]
fn an_rmw_is_atomic_without_atom() {
    let src = std::fs::read_to_string(dir().join("rmw-no-atom.litmus")).unwrap();
    let with_atom = src.replace("rmw.dv.sc0.add", "rmw.atom.dv.sc0.add");
    assert_ne!(src, with_atom);
    let a = run_src("a.litmus", &src, "vulkan");
    let b = run_src("b.litmus", &with_atom, "vulkan");
    assert_eq!(states(&a), ["0:r0=0 1:r1=1", "0:r0=1 1:r1=0"]);
    assert_eq!(states(&a), states(&b));
    assert_eq!((a.executions, a.race_free()), (b.executions, b.race_free()));
    assert_eq!((a.executions, a.race_free()), (2, true));
}

/// `semsc01` is both storage classes' semantics (P1 never sees the flag
/// and misses the data); `semsc1` alone lets it. A storage class of two
/// digits (`sc01`) is an unknown qualifier, not class 1.
#[test]
fn semsc01_is_both_classes_and_sc01_is_refused() {
    let both = run("semsc01-mp.litmus", "vulkan");
    assert_eq!(states(&both), ["1:r0=0 1:r1=0", "1:r0=0 1:r1=1", "1:r0=1 1:r1=1"]);
    let one = run("semsc1-mp.litmus", "vulkan");
    assert_eq!(
        states(&one),
        ["1:r0=0 1:r1=0", "1:r0=0 1:r1=1", "1:r0=1 1:r1=0", "1:r0=1 1:r1=1"]
    );
    let src = std::fs::read_to_string(dir().join("semsc01-mp.litmus")).unwrap();
    let bad = src.replace("st.av.dv.sc0 x, 1", "st.av.dv.sc01 x, 1");
    let e = check_source("bad.litmus", &bad, &opts("vulkan")).unwrap_err();
    assert_eq!(
        e.located("bad.litmus"),
        "bad.litmus:7:2: unknown Vulkan qualifier `.sc01` in `st.av.dv.sc01`"
    );
}

/// Each ordered branch at and off its boundary; the `locations` list adds
/// `c` and `d` to the final states.
#[test]
fn ordered_branches_and_a_locations_list() {
    for model in ["ptx6.0", "ptx7.5"] {
        let r = run("branch-ordered.litmus", model);
        assert_eq!(states(&r), ["a=0 b=0 c=1 d=1", "a=1 b=0 c=0 d=0"], "{model}");
        assert_eq!((r.verdict(), r.executions), (Some(false), 2), "{model}");
    }
    // A constant in the list is refused where it is.
    let src = std::fs::read_to_string(dir().join("branch-ordered.litmus")).unwrap();
    let bad = src.replace("locations [c; d;]", "locations [c; 4;]");
    let e = check_source("bad.litmus", &bad, &opts("ptx7.5")).unwrap_err();
    assert_eq!(
        e.located("bad.litmus"),
        "bad.litmus:20:15: expected a location or a register in the locations list"
    );
}

/// `mul` and `div` (truncating toward zero, as Dat3M's signed division).
#[test]
fn multiplication_and_truncating_division() {
    let r = run("arith-mul-div.litmus", "vulkan");
    assert_eq!(states(&r), ["y=0 z=0", "y=4 z=-4"]);
    assert_eq!(r.executions, 2);
}

/// Vulkan's `ld.sc0 r0, 5` reads no memory: two executions (the two orders
/// of the stores), and no read of `x` races.
#[test]
fn a_vulkan_load_of_a_constant_reads_nothing() {
    let r = run("ld-constant.litmus", "vulkan");
    assert_eq!(states(&r), ["x=5", "x=7"]);
    assert_eq!((r.executions, r.race_free()), (2, true));
}

/// `sured` and `suatom` write through the surface proxy: a later generic
/// read in the same thread may miss the write (no proxy fence), which it
/// cannot after `red` through the generic proxy.
#[test]
fn surface_atomics_go_through_the_surface_proxy() {
    assert_eq!(states(&run("sured-proxy.litmus", "ptx7.5")), ["0:r0=0", "0:r0=1"]);
    assert_eq!(states(&run("suatom-proxy.litmus", "ptx7.5")), ["0:r0=0", "0:r0=1"]);
    assert_eq!(states(&run("red-generic.litmus", "ptx7.5")), ["0:r0=1"]);
}
