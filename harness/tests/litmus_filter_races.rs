//! herd's `filter P` drops the executions whose final state fails `P`
//! entirely, as herd and Dat3M do: they add no data race and no execution,
//! whichever path runs the test (the po ∪ rf-cyclic enumerator, the
//! default for the GPU models, or the explorer with `porf_cycles` off).

use scopecheck::litmus::{check_source, LitmusModel, Options, TestResult};

fn run(model: &str, src: &str, porf_cycles: bool) -> TestResult {
    let opts = Options {
        model: Some(model.parse::<LitmusModel>().unwrap()),
        porf_cycles,
        ..Options::default()
    };
    check_source("t.litmus", src, &opts).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Message passing through device-scope release / acquire with av / vis:
/// when P1's acquire reads 1 the plain accesses to x are ordered; when it
/// reads 0 they race (P1 reads x 0 or 1).
const MP: &str = "VULKAN mpfilt\n{\nx=0;\ny=0;\n}\n\
 P0@sg 0,wg 0, qf 0              | P1@sg 0,wg 1, qf 0               ;\n\
 st.av.dv.sc0 x, 1               | ld.atom.acq.dv.sc0.semsc0 r0, y  ;\n\
 st.atom.rel.dv.sc0.semsc0 y, 1  | ld.vis.dv.sc0 r1, x              ;\n";

/// (verdict, race_free, executions, racy executions, states).
fn summary(r: &TestResult) -> (Option<bool>, bool, u64, u64, usize) {
    (
        r.verdict(),
        r.race_free(),
        r.executions,
        r.racy_executions,
        r.states.len(),
    )
}

#[test]
fn filtered_out_executions_add_no_race_and_no_execution() {
    for model in ["vulkan", "vulkan-nochains"] {
        for porf in [true, false] {
            // Unfiltered: three executions, the two where r0 = 0 race.
            let r = run(model, &format!("{MP}exists (P1:r0 == 1 /\\ P1:r1 == 0)\n"), porf);
            assert_eq!(summary(&r), (Some(false), false, 3, 2, 3), "{model} porf={porf}");
            // Keeping r0 = 1 keeps the one synchronised execution: race-free.
            let r = run(
                model,
                &format!("{MP}filter (P1:r0 == 1)\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n"),
                porf,
            );
            assert_eq!(summary(&r), (Some(false), true, 1, 0, 1), "{model} porf={porf}");
            // Keeping r0 = 0 keeps the two racy ones (one state: only r0
            // is observed).
            let r = run(model, &format!("{MP}filter (P1:r0 == 0)\nforall (P1:r0 == 0)\n"), porf);
            assert_eq!(summary(&r), (Some(true), false, 2, 2, 1), "{model} porf={porf}");
            // Keeping only r1 = 0 keeps one racy execution.
            let r = run(model, &format!("{MP}filter (P1:r1 == 0)\n~exists (P1:r0 == 1)\n"), porf);
            assert_eq!(summary(&r), (Some(true), false, 1, 1, 1), "{model} porf={porf}");
        }
    }
}

/// A filter nothing satisfies drops every execution and every race.
#[test]
fn a_filter_nothing_satisfies_leaves_no_race() {
    let r = run(
        "vulkan",
        &format!("{MP}filter (P1:r0 == 2)\nexists (P1:r0 == 1)\n"),
        true,
    );
    assert_eq!(summary(&r), (Some(false), true, 0, 0, 0));
}

/// Message passing in C with a plain read of the data: P1's plain read of
/// x races with P0's write when P1's acquire reads 0.
const MP_C: &str = "C mp_plain\n{ x = 0; y = 0; }\n\
 P0 (int* x, atomic_int* y) { *x = 1; atomic_store_explicit(y, 1, memory_order_release); }\n\
 P1 (int* x, atomic_int* y) { int r0 = atomic_load_explicit(y, memory_order_acquire); int r1 = *x; }\n";

/// The explorer's path (rc11, cpp20: the engine logs races at the end of
/// each execution) drops a filtered execution before it ends, so its
/// races are not logged: the same mechanism as the declarative models'.
/// Under c11 (the po ∪ rf-cyclic enumeration) the racy plain read can only
/// read the initial value (its visible side effect), so there is one racy
/// execution, not two.
#[test]
fn the_explorer_logs_no_race_of_a_filtered_execution() {
    for (model, racy) in [("rc11", 2), ("cpp20", 2), ("c11", 1)] {
        for porf in [true, false] {
            let r = run(model, &format!("{MP_C}exists (1:r0 == 1 /\\ 1:r1 == 0)\n"), porf);
            assert_eq!(
                summary(&r),
                (Some(false), false, 1 + racy, racy, 1 + racy as usize),
                "{model} porf={porf}"
            );
            let blocked = r.blocked;
            let r = run(model, &format!("{MP_C}filter (1:r0 == 1)\nexists (1:r1 == 0)\n"), porf);
            assert_eq!(summary(&r), (Some(false), true, 1, 0, 1), "{model} porf={porf}");
            assert_eq!(
                r.blocked, blocked,
                "{model} porf={porf}: a dropped execution is not blocked"
            );
            let dropped = format!(
                "{racy} consistent execution{} dropped by the filter",
                if racy == 1 { "" } else { "s" }
            );
            assert!(
                r.notes.iter().any(|n| n.starts_with(&dropped)),
                "{model} porf={porf}: {:?}",
                r.notes
            );
            // The filter names a register the condition does not: it is
            // recorded all the same, and the states show it.
            let r = run(model, &format!("{MP_C}filter (1:r0 == 0)\nexists (1:r1 == 1)\n"), porf);
            assert_eq!(
                summary(&r),
                (Some(racy == 2), false, racy, racy, racy as usize),
                "{model} porf={porf}"
            );
            assert!(r.states.keys().all(|s| s.iter().any(|(v, _)| v.to_string() == "1:r0")));
        }
    }
}

/// Load buffering under c11, whose cycle only the po ∪ rf-cyclic
/// enumeration finds: the filter keeps the cyclic execution's state and
/// judges the condition over the kept ones only.
#[test]
fn the_cyclic_enumeration_judges_only_what_the_filter_keeps() {
    const LB: &str = "C lb\n{ x = 0; y = 0; }\n\
     P0 (atomic_int* x, atomic_int* y) { int r0 = atomic_load_explicit(x, memory_order_relaxed); \
       atomic_store_explicit(y, 1, memory_order_relaxed); }\n\
     P1 (atomic_int* x, atomic_int* y) { int r1 = atomic_load_explicit(y, memory_order_relaxed); \
       atomic_store_explicit(x, 1, memory_order_relaxed); }\n";
    let r = run("c11", &format!("{LB}filter (0:r0 == 1)\nforall (1:r1 == 0)\n"), true);
    // Kept: (r0, r1) = (1, 0) and the cycle's (1, 1).
    assert_eq!(summary(&r), (Some(false), true, 2, 0, 2));
    let r = run("c11", &format!("{LB}filter (0:r0 == 1)\nforall (1:r1 == 0)\n"), false);
    // Without cycles only (1, 0) is kept.
    assert_eq!(summary(&r), (Some(true), true, 1, 0, 1));
    // A filter nothing satisfies: judged over no execution, as herd does.
    let r = run("c11", &format!("{LB}filter (0:r0 == 2)\nexists (1:r1 == 1)\n"), true);
    assert_eq!(summary(&r), (Some(false), true, 0, 0, 0));
    assert_eq!(r.no_answer, None);
}
