//! Vulkan's `ssw` block (`{ ssw 0 1; }` after the init block): every
//! event of P0 system-synchronizes-with every event of P1, as in Dat3M.
//! vulkan.cat puts `ssw` in happens-before (`ithbsemsc`) and orders a read
//! before any later access of its location through `[R]; ssw+; [R | W]`.

use scopecheck::litmus::{check_source, LitmusModel, Options, TestResult};

fn run(model: &str, src: &str) -> TestResult {
    let opts = Options {
        model: Some(model.parse::<LitmusModel>().unwrap()),
        ..Options::default()
    };
    check_source("t.litmus", src, &opts).unwrap_or_else(|e| panic!("{e:?}"))
}

fn test(ssw: &str, body: &str, cond: &str) -> String {
    format!("VULKAN s\n{{\nx=0;\n}}\n{ssw}{body}{cond}\n")
}

/// P0 reads x, P1 writes it (plain, private, different subgroups).
const WAR: &str = " P0@sg 0,wg 0, qf 0 | P1@sg 1,wg 0, qf 0 ;\n ld.sc0 r0, x        | st.sc0 x, 1        ;\n";

#[test]
fn ssw_orders_a_read_before_a_later_write() {
    for model in ["vulkan", "vulkan-nochains"] {
        // No ssw: the read may see either value, and the two accesses race.
        let r = run(model, &test("", WAR, "exists (P0:r0 == 1)"));
        assert_eq!(
            (r.verdict(), r.executions, r.race_free()),
            (Some(true), 2, false),
            "{model}"
        );
        // ssw 0 1: the read is locord-before the write, so it reads 0 and
        // nothing races.
        let r = run(model, &test("{\nssw 0 1;\n}\n", WAR, "exists (P0:r0 == 1)"));
        assert_eq!(
            (r.verdict(), r.executions, r.race_free()),
            (Some(false), 1, true),
            "{model}"
        );
        // The other direction (the writer synchronizes with the reader)
        // gives no write-to-read order without availability / visibility.
        let r = run(model, &test("{\nssw 1 0;\n}\n", WAR, "exists (P0:r0 == 1)"));
        assert_eq!(
            (r.verdict(), r.executions, r.race_free()),
            (Some(true), 2, false),
            "{model}"
        );
        // Threads named with their `P`, one entry per line, no last `;`.
        let r = run(model, &test("{\nssw P0 P1\n}\n", WAR, "~exists (P0:r0 == 1)"));
        assert_eq!(
            (r.verdict(), r.executions, r.race_free()),
            (Some(true), 1, true),
            "{model}"
        );
    }
}

/// P0 writes x; P2 reads it; P1 makes it available and visible at the
/// device domain between them when ssw chains P0 → P1 → P2.
const AVVIS: &str = " P0@sg 0,wg 0, qf 0 | P1@sg 0,wg 1, qf 0 | P2@sg 0,wg 2, qf 0 ;\n\
 st.sc0 x, 1        | avdevice           | ld.sc0 r0, x       ;\n\
                    | visdevice          |                    ;\n";

#[test]
fn ssw_chains_through_a_device_availability_and_visibility() {
    for model in ["vulkan", "vulkan-nochains"] {
        let both = test("{ ssw 0 1; ssw 1 2; }\n", AVVIS, "forall (P2:r0 == 1)");
        let r = run(model, &both);
        assert_eq!(
            (r.verdict(), r.executions, r.race_free()),
            (Some(true), 1, true),
            "{model}"
        );
        // Missing either link, the write is not ordered before the read.
        for one in ["{ ssw 0 1; }\n", "{ ssw 1 2; }\n", "{ ssw 0 2; }\n"] {
            let r = run(model, &test(one, AVVIS, "forall (P2:r0 == 1)"));
            assert_eq!(
                (r.verdict(), r.executions, r.race_free()),
                (Some(false), 2, false),
                "{model} {one}"
            );
        }
    }
}

fn parse_error(src: &str) -> String {
    let opts = Options {
        model: Some("vulkan".parse::<LitmusModel>().unwrap()),
        ..Options::default()
    };
    match check_source("t.litmus", src, &opts) {
        Ok(_) => panic!("accepted: {src}"),
        Err(e) => format!("{e:?}"),
    }
}

#[test]
fn bad_ssw_blocks_are_located_errors() {
    let e = parse_error(&test("{\nssw 0 5;\n}\n", WAR, "exists (P0:r0 == 1)"));
    assert!(e.contains("line: 6, col: 1 }") && e.contains("P5"), "{e}");
    let e = parse_error(&test("{\nssw 0 1; ssw 1 1;\n}\n", WAR, "exists (P0:r0 == 1)"));
    assert!(e.contains("line: 6, col: 10 }") && e.contains("itself"), "{e}");
    let e = parse_error(&test("{\n  sws 0 1;\n}\n", WAR, "exists (P0:r0 == 1)"));
    assert!(
        e.contains("line: 6, col: 3 }") && e.contains("expected `ssw A B`"),
        "{e}"
    );
    let e = parse_error(&test("{\nssw 0 x;\n}\n", WAR, "exists (P0:r0 == 1)"));
    assert!(
        e.contains("line: 6, col: 1 }") && e.contains("two thread numbers"),
        "{e}"
    );
    let e = parse_error(&test("{\nssw 0 1;\n", WAR, "exists (P0:r0 == 1)"));
    assert!(e.contains("line: 5, col: 1 }") && e.contains("unclosed"), "{e}");
    let ptx = "PTX p\n{\nx=0;\n}\n{ ssw 0 1; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n";
    let opts = Options {
        model: Some("ptx7.5".parse::<LitmusModel>().unwrap()),
        ..Options::default()
    };
    let e = format!("{:?}", check_source("t.litmus", ptx, &opts).unwrap_err());
    assert!(e.contains("line: 5, col: 1 }") && e.contains("only Vulkan"), "{e}");
}
