//! Executions with a cycle in po ∪ rf under the GPU models (`ptx6.0`,
//! `ptx7.5`, `vulkan`, `vulkan-nochains`), found by the po ∪ rf-cyclic
//! enumeration (`harness/src/litmus/cyclic.rs`, thread by thread in
//! `gpu_split.rs`) and judged with PTX's `axiom-NoThinAir` over the
//! syntactic dependencies (`gpu_cyclic.rs`): exact outcome sets, written
//! here (nothing outside the repository is read).

use scopecheck::litmus::output::state_text;
use scopecheck::litmus::{check_source, LitmusModel, Options, TestResult};

fn run(src: &str, model: &str, porf_cycles: bool) -> TestResult {
    let opts = Options {
        model: Some(model.parse::<LitmusModel>().unwrap()),
        porf_cycles,
        ..Options::default()
    };
    check_source("t.litmus", src, &opts).unwrap_or_else(|e| panic!("{}", e.located("t.litmus")))
}

fn complete(src: &str, model: &str, porf_cycles: bool) -> TestResult {
    let r = run(src, model, porf_cycles);
    assert!(
        r.failures.is_empty() && r.complete,
        "{model}: {:?} {:?}",
        r.failures,
        r.incomplete_reason
    );
    r
}

fn states(r: &TestResult) -> Vec<String> {
    r.states.keys().map(state_text).collect()
}

const PTX: [&str; 2] = ["ptx6.0", "ptx7.5"];
const VULKAN: [&str; 2] = ["vulkan", "vulkan-nochains"];

/// PTX load buffering: `{L0}`, `{S0}`, ... are thread 0's load and
/// store and thread 1's, each a list of instructions for its column.
fn ptx_lb(p0: &[&str], p1: &[&str], cond: &str) -> String {
    let rows = p0.len().max(p1.len());
    let mut s = String::from("PTX LB\n{\nx=0;\ny=0;\nP0:r0=0;\nP1:r1=0;\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n");
    for i in 0..rows {
        s.push_str(&format!(
            " {} | {} ;\n",
            p0.get(i).copied().unwrap_or(""),
            p1.get(i).copied().unwrap_or("")
        ));
    }
    s.push_str(cond);
    s.push('\n');
    s
}

const ALL4: [&str; 4] = [
    "0:r0=0; 1:r1=0;",
    "0:r0=0; 1:r1=1;",
    "0:r0=1; 1:r1=0;",
    "0:r0=1; 1:r1=1;",
];
const ACYCLIC3: [&str; 3] = ["0:r0=0; 1:r1=0;", "0:r0=0; 1:r1=1;", "0:r0=1; 1:r1=0;"];
const BOTH1: &str = "exists (P0:r0 == 1 /\\ P1:r1 == 1)";

/// Weak (and relaxed) load buffering without dependencies is allowed by
/// both PTX models: the outcome needs a po ∪ rf cycle, which the
/// explorers alone never build.
#[test]
fn ptx_load_buffering_without_dependencies_is_allowed() {
    for (ld, st) in [("ld.weak", "st.weak"), ("ld.relaxed.gpu", "st.relaxed.gpu")] {
        let src = ptx_lb(
            &[&format!("{ld} r0, y"), &format!("{st} x, 1")],
            &[&format!("{ld} r1, x"), &format!("{st} y, 1")],
            BOTH1,
        );
        for model in PTX {
            let r = complete(&src, model, true);
            assert_eq!(states(&r), ALL4, "{model} {ld}");
            assert_eq!((r.porf_cyclic, r.verdict()), (1, Some(true)), "{model} {ld}");
            let r = complete(&src, model, false);
            assert_eq!(states(&r), ACYCLIC3, "{model} {ld}");
            assert_eq!(r.verdict(), Some(false), "{model} {ld}");
        }
    }
}

/// PTX's axiom-NoThinAir, acyclic(rf | dep): a control dependency on both
/// sides (through an unrolled `bne`) forbids the cycle; on one side only,
/// the cycle is allowed.
#[test]
fn ptx_control_dependencies_forbid_the_cycle() {
    let guarded0 = ["ld.weak r0, y", "bne r0, 1, L0", "st.weak x, 1", "L0:"];
    let guarded1 = ["ld.weak r1, x", "bne r1, 1, L1", "st.weak y, 1", "L1:"];
    let both = ptx_lb(&guarded0, &guarded1, BOTH1);
    for model in PTX {
        let r = complete(&both, model, true);
        // Each thread stores only after reading 1, so nobody reads 1.
        assert_eq!(states(&r), ["0:r0=0; 1:r1=0;"], "{model}");
        assert_eq!((r.porf_cyclic, r.verdict()), (0, Some(false)), "{model}");
    }
    let one = ptx_lb(&guarded0, &["ld.weak r1, x", "st.weak y, 1"], BOTH1);
    for model in PTX {
        let r = complete(&one, model, true);
        // P1 reads 1 only once P0 has read 1.
        assert_eq!(
            states(&r),
            ["0:r0=0; 1:r1=0;", "0:r0=1; 1:r1=0;", "0:r0=1; 1:r1=1;"],
            "{model}"
        );
        assert_eq!((r.porf_cyclic, r.verdict()), (1, Some(true)), "{model}");
    }
    // A branch whose both paths store still makes the store depend on the
    // read (Dat3M's ctrl relates the jump to every later event).
    let always0 = ["ld.weak r0, y", "bne r0, 7, L0", "L0:", "st.weak x, 1"];
    let always1 = ["ld.weak r1, x", "bne r1, 7, L1", "L1:", "st.weak y, 1"];
    let src = ptx_lb(&always0, &always1, BOTH1);
    for model in PTX {
        let r = complete(&src, model, true);
        assert_eq!(states(&r), ACYCLIC3, "{model}");
        assert_eq!(r.verdict(), Some(false), "{model}");
    }
    // Vulkan has no such axiom: the same dependencies allow the cycle.
    let vk = "VULKAN LB-ctrl\n{\nx=0;\ny=0;\nP0:r0=0;\nP1:r1=0;\n}\n\
              P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n\
              ld.atom.dv.sc0 r0, y | ld.atom.dv.sc0 r1, x ;\n\
              bne r0, 7, L0 | bne r1, 7, L1 ;\n\
              L0: | L1: ;\n\
              st.atom.dv.sc0 x, 1 | st.atom.dv.sc0 y, 1 ;\n\
              exists (P0:r0 == 1 /\\ P1:r1 == 1)\n";
    for model in VULKAN {
        let r = complete(vk, model, true);
        assert_eq!(states(&r), ALL4, "{model}");
        assert_eq!(r.verdict(), Some(true), "{model}");
    }
}

/// Out of thin air: each thread stores what it read. Vulkan allows the
/// value 42 (the condition's constant) to justify itself; PTX's data
/// dependencies forbid it, also through register arithmetic.
#[test]
fn thin_air_values() {
    let vk = "VULKAN OOTA\n{\nx=0;\ny=0;\nP0:r0=0;\nP1:r1=0;\n}\n\
              P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n\
              ld.atom.wg.sc0 r0, x | ld.atom.wg.sc0 r1, y ;\n\
              st.atom.wg.sc0 y, r0 | st.atom.wg.sc0 x, r1 ;\n\
              exists (P0:r0 == 42 /\\ P1:r1 == 42)\n";
    for model in VULKAN {
        let r = complete(vk, model, true);
        assert_eq!(states(&r), ["0:r0=0; 1:r1=0;", "0:r0=42; 1:r1=42;"], "{model}");
        // Four ways to read 0 (from the initial write or the other's store of
        // it), one to read 42; reading each other's stores is a cycle.
        assert_eq!(
            (r.executions, r.porf_cyclic, r.verdict()),
            (5, 2, Some(true)),
            "{model}"
        );
        assert!(r
            .notes
            .iter()
            .any(|n| n.contains("complete up to self-justifying values")));
        let r = complete(vk, model, false);
        assert_eq!(states(&r), ["0:r0=0; 1:r1=0;"], "{model}");
    }
    let p0 = ["ld.weak r0, x", "add r2, r0, 0", "st.weak y, r2"];
    let p1 = ["ld.weak r1, y", "st.weak x, r1"];
    let src = ptx_lb(&p0, &p1, "exists (P0:r0 == 42 /\\ P1:r1 == 42)");
    for model in PTX {
        let r = complete(&src, model, true);
        assert_eq!(states(&r), ["0:r0=0; 1:r1=0;"], "{model}");
        assert_eq!((r.porf_cyclic, r.verdict()), (0, Some(false)), "{model}");
    }
}

/// Two `atom.cta` adds in different CTAs are not morally strong, so
/// axiom-Atomicity does not apply: both may read 0 and x may end as 1.
/// In one CTA (or at gpu scope) they are atomic.
#[test]
fn ptx_rmw_atomicity_needs_moral_strength() {
    let src = |scope: &str, cta1: u32| {
        format!(
            "PTX atom\n{{\nx=0;\nP0:r0=0;\nP1:r0=0;\n}}\n P0@cta 0,gpu 0 | P1@cta {cta1},gpu 0 ;\n\
             atom.acq_rel.{scope}.add r0, x, 1 | atom.acq_rel.{scope}.add r0, x, 1 ;\n\
             exists (x != 2)\n"
        )
    };
    for model in PTX {
        let r = complete(&src("cta", 1), model, true);
        assert_eq!(
            (states(&r), r.verdict()),
            (vec!["x=1;".to_string(), "x=2;".to_string()], Some(true)),
            "{model}"
        );
        for (scope, cta1) in [("cta", 0), ("gpu", 1)] {
            let r = complete(&src(scope, cta1), model, true);
            assert_eq!(states(&r), ["x=2;"], "{model} {scope} {cta1}");
            assert_eq!(r.verdict(), Some(false), "{model}");
        }
    }
}

/// The enumeration validates combinations of the threads' runs against a
/// budget: past it the result says plainly that it is incomplete, and
/// claims no verdict it has not proven.
#[test]
fn the_enumeration_stops_at_its_budget() {
    // Four readers of five locations one writer sets: 2^5 ways per reader,
    // (2^5)^4 = 1,048,576 combinations with the writer's one.
    let mut s = String::from("PTX wide\n{\na=0;\nb=0;\nc=0;\nd=0;\ne=0;\n}\n");
    s.push_str(" P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 | P3@cta 3,gpu 0 | P4@cta 4,gpu 0 ;\n");
    for l in ["a", "b", "c", "d", "e"] {
        s.push_str(&format!(
            " st.weak {l}, 1 | ld.weak r{l}, {l} | ld.weak r{l}, {l} | ld.weak r{l}, {l} | ld.weak r{l}, {l} ;\n"
        ));
    }
    s.push_str("forall (P1:ra == 0 \\/ P1:ra == 1)\n");
    let r = run(&s, "ptx7.5", true);
    assert!(!r.complete);
    let why = r.incomplete_reason.as_deref().unwrap_or("");
    assert_eq!(
        why,
        "the po ∪ rf-cyclic enumeration would validate 1048576 combinations of the threads' runs, more than its \
         budget of 200000"
    );
    assert_eq!(r.verdict(), None);
}

/// The C11 enumeration runs the test with the promised values at most
/// `MAX_ENGINE_EXECUTIONS` times and keeps at most `MAX_KEPT` ways the
/// threads ran (its work and memory caps): a program past them says its
/// outcome set is incomplete instead of growing without bound, and claims
/// no verdict it has not proven.
#[test]
fn the_c11_enumeration_has_a_memory_cap() {
    // Three threads each read four locations the others write 1 or 2 to:
    // 3^4 ways per thread, 3^12 together, far more than MAX_KEPT.
    let mut s = String::from("C wide\n{ [a] = 0; [b] = 0; [c] = 0; [d] = 0; }\n");
    for p in 0..3 {
        s.push_str(&format!(
            "P{p} (atomic_int* a, atomic_int* b, atomic_int* c, atomic_int* d) {{\n"
        ));
        for l in ["a", "b", "c", "d"] {
            s.push_str(&format!(
                "  int r{l} = atomic_load_explicit({l}, memory_order_relaxed);\n"
            ));
        }
        for l in ["a", "b", "c", "d"] {
            s.push_str(&format!(
                "  atomic_store_explicit({l}, {}, memory_order_relaxed);\n",
                p % 2 + 1
            ));
        }
        s.push_str("}\n");
    }
    s.push_str("forall (0:ra = 0 \\/ 0:ra = 1 \\/ 0:ra = 2)\n");
    let opts = Options {
        model: Some(LitmusModel::Engine(scopecheck::MemoryModel::C11)),
        ..Options::default()
    };
    let r = check_source("t.litmus", &s, &opts).unwrap();
    assert!(!r.complete);
    assert_eq!(
        r.incomplete_reason.as_deref(),
        Some(
            "the po ∪ rf-cyclic enumeration's work cap: the test ran 1000000 executions with the promised values \
             without finishing; the outcome set is incomplete"
        )
    );
    // A forall proven by no counterexample is not claimed.
    assert_eq!(r.verdict(), None);
}
