//! herd's `filter P` before a condition (Dat3M writes it in its Vulkan
//! translations of the Khronos tests): executions whose final state fails
//! `P` are dropped before the condition is judged and the states counted.

use scopecheck::litmus::{check_source, LitmusModel, Options};

fn run(model: &str, src: &str) -> scopecheck::litmus::TestResult {
    let opts = Options {
        model: Some(model.parse::<LitmusModel>().unwrap()),
        witness: true,
        ..Options::default()
    };
    check_source("t.litmus", src, &opts).unwrap_or_else(|e| panic!("{e:?}"))
}

const BASE: &str = "VULKAN filt\n{\nx=0;\n}\n\
 P0@sg 0,wg 0, qf 0  | P1@sg 0,wg 1, qf 0   ;\n\
 st.atom.dv.sc0 x, 1 | ld.atom.dv.sc0 r0, x ;\n";

/// Without the filter the reader sees 0 or 1; with `filter (P1:r0 == 1)`
/// only the executions where it sees 1 are kept.
#[test]
fn filter_keeps_only_the_executions_that_satisfy_it() {
    let forall = format!("{BASE}forall (P1:r0 == 1)\n");
    let r = run("vulkan", &forall);
    assert_eq!(
        (r.verdict(), r.states.len(), r.positive, r.negative),
        (Some(false), 2, 1, 1)
    );
    let filtered = format!("{BASE}filter (P1:r0 == 1)\nforall (P1:r0 == 1)\n");
    let r = run("vulkan", &filtered);
    assert_eq!(
        (r.verdict(), r.states.len(), r.positive, r.negative),
        (Some(true), 1, 1, 0)
    );
    // The condition is reported as written, with its quantifier.
    assert_eq!(format!("{:?}", r.condition.as_ref().unwrap().quantifier), "Forall");
    // exists / ~exists over the kept executions only.
    let r = run("vulkan", &format!("{BASE}filter (P1:r0 == 1)\nexists (P1:r0 == 0)\n"));
    assert_eq!((r.verdict(), r.positive, r.negative), (Some(false), 0, 1));
    let r = run("vulkan", &format!("{BASE}filter (P1:r0 == 1)\n~exists (P1:r0 == 0)\n"));
    assert_eq!(r.verdict(), Some(true));
    // A filter nothing satisfies keeps no execution: `exists` is false.
    let r = run("vulkan", &format!("{BASE}filter (P1:r0 == 2)\nexists (P1:r0 == 1)\n"));
    assert_eq!((r.verdict(), r.states.len()), (Some(false), 0));
}

/// The witness (`--dot`) of a filtered `exists` satisfies the filter too.
#[test]
fn the_witness_satisfies_the_filter() {
    let src = format!("{BASE}filter (P1:r0 == 1)\nexists (P1:r0 == 1 \\/ P1:r0 == 0)\n");
    let r = run("vulkan", &src);
    assert_eq!(r.verdict(), Some(true));
    // The one state the filter keeps (P1:r0 = 1) is the witness's, exactly.
    assert_eq!(r.states.len(), 1, "{:?}", r.states);
    assert_eq!(r.witness_state.as_ref(), r.states.keys().next());
    let state = format!("{:?}", r.witness_state.expect("a witness is kept"));
    assert!(state.contains("Int(1)"), "{state}");
}

/// Vulkan's `z aliases x` (no proxy) names x.
#[test]
fn a_bare_alias_names_its_location() {
    let src =
        "VULKAN alias\n{\nx=0;\nz aliases x;\n}\n P0@sg 0,wg 0, qf 0 ;\n st.atom.dv.sc0 z, 1 ;\nforall (x == 1)\n";
    let r = run("vulkan", src);
    assert_eq!((r.verdict(), r.states.len(), r.executions), (Some(true), 1, 1));
}

/// A filter that ends a PTX or Vulkan test is its only clause (Dat3M's
/// grammars make the filter and the condition optional; its `Data-Race`
/// tests are written so): the test runs with no verdict and no condition,
/// and the filter still drops executions. It was the located error "a
/// `filter` must be followed by the condition".
#[test]
fn a_gpu_filter_may_end_the_test() {
    let r = run("vulkan", &format!("{BASE}filter (P1:r0 == 1)\n"));
    assert_eq!(r.verdict(), None);
    assert!(r.condition.as_ref().is_some_and(|c| c.filter_only));
    assert_eq!((r.executions, r.states.len(), r.positive, r.negative), (1, 1, 1, 0));
    // A filter that is not the last clause is still refused, where it is.
    let opts = Options {
        model: Some("vulkan".parse::<LitmusModel>().unwrap()),
        ..Options::default()
    };
    let src = format!("{BASE}filter (P1:r0 == 1)\n st.atom.dv.sc0 x, 2 | ;\n");
    let e = check_source("t.litmus", &src, &opts).unwrap_err();
    assert_eq!(
        e.located("t.litmus"),
        "t.litmus:7:9: a `filter` must be followed by the condition (`exists`, `~exists` or `forall`) or end the test"
    );
}

/// herd's C dialect takes a `filter` too (after `locations`, before the
/// condition), with the same meaning, and refuses one without a condition
/// at the filter's position.
#[test]
fn the_c_dialect_reads_a_filter() {
    const SB: &str = "C sb\n{ x = 0; y = 0; }\n\
     P0 (atomic_int* x, atomic_int* y) { atomic_store_explicit(x, 1, memory_order_relaxed); \
       int r0 = atomic_load_explicit(y, memory_order_relaxed); }\n\
     P1 (atomic_int* x, atomic_int* y) { atomic_store_explicit(y, 1, memory_order_relaxed); \
       int r0 = atomic_load_explicit(x, memory_order_relaxed); }\n";
    let r = run("rc11", &format!("{SB}exists (0:r0 == 0)\n"));
    assert_eq!((r.verdict(), r.executions, r.states.len()), (Some(true), 4, 2));
    // Kept: the two executions where P1 reads 1; the states name both
    // registers (the filter's and the condition's).
    let r = run(
        "rc11",
        &format!("{SB}locations [x;]\nfilter (1:r0 == 1)\nexists (0:r0 == 0)\n"),
    );
    assert_eq!(
        (r.verdict(), r.executions, r.positive, r.negative),
        (Some(true), 2, 1, 1)
    );
    let names: Vec<String> = r.states.keys().map(scopecheck::litmus::output::state_text).collect();
    assert_eq!(names, ["0:r0=0; 1:r0=1; x=1;", "0:r0=1; 1:r0=1; x=1;"]);
    // The witness satisfies the filter.
    let w = r.witness_state.as_ref().unwrap();
    assert_eq!(scopecheck::litmus::output::state_text(w), "0:r0=0; 1:r0=1; x=1;");
    let opts = Options {
        model: Some("rc11".parse::<LitmusModel>().unwrap()),
        ..Options::default()
    };
    let e = check_source("t.litmus", &format!("{SB}filter (1:r0 == 1)\n"), &opts).unwrap_err();
    assert_eq!(
        e.located("t.litmus"),
        "t.litmus:5:1: a `filter` must be followed by the condition (`exists`, `~exists` or `forall`)"
    );
}
