//! A location a PTX or Vulkan test accesses without declaring it in the
//! init block starts at 0, as herd and Dat3M take it (the Khronos tests
//! test4 and test5 store to such a `d`); it was rejected as "not a
//! register or location".

use scopecheck::litmus::{check_source, LitmusModel, Options, TestResult};

fn run(model: &str, src: &str) -> TestResult {
    let opts = Options {
        model: Some(model.parse::<LitmusModel>().unwrap()),
        ..Options::default()
    };
    check_source("t.litmus", src, &opts).unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn an_undeclared_vulkan_location_starts_at_zero() {
    // `d` is never declared; P1 reads it before or after P0's store.
    let src = "VULKAN u\n{\nx=0;\n}\n\
 P0@sg 0,wg 0, qf 0  | P1@sg 0,wg 1, qf 0    ;\n\
 st.atom.dv.sc0 d, 2 | ld.atom.dv.sc0 r0, d  ;\n\
 st.atom.dv.sc0 x, 1 |                       ;\n\
exists (P1:r0 == 0)\n";
    let r = run("vulkan", src);
    assert_eq!((r.verdict(), r.executions, r.states.len()), (Some(true), 2, 2));
    let src = src.replace("exists (P1:r0 == 0)", "forall (d == 2 /\\ x == 1)");
    let r = run("vulkan", &src);
    assert_eq!((r.verdict(), r.executions), (Some(true), 2));
}

#[test]
fn an_undeclared_ptx_location_starts_at_zero() {
    let src = "PTX u\n{\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu y, 1 | ld.relaxed.gpu r0, y ;\n\
exists (P1:r0 == 0)\n";
    let r = run("ptx7.5", src);
    assert_eq!((r.verdict(), r.executions, r.states.len()), (Some(true), 2, 2));
}
