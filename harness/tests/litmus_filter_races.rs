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
