//! Every row of corpus/ptx-host/expected.tsv (the shared GPU format), and
//! the exact outcome sets of its tests: PTX's `ld REG, CONSTANT` (Dat3M's
//! Memalloy tests set registers with it) is a register assignment, not a
//! load (it was refused as "expected a location name").

mod common;

use common::litmus_rows::{corpus_dir, every_row_agrees, run_file, states};
use scopecheck::litmus::{check_source, LitmusModel, Options};

fn run(file: &str, model: &str) -> scopecheck::litmus::TestResult {
    run_file(&corpus_dir("ptx-host"), file, model)
}

#[test]
fn every_row_agrees_with_its_answer() {
    assert_eq!(every_row_agrees(&corpus_dir("ptx-host")), 6);
}

#[test]
fn constant_loads_set_registers_and_read_nothing() {
    for model in ["ptx6.0", "ptx7.5"] {
        let r = run("ld-constant-not-a-read.litmus", model);
        assert_eq!(states(&r), ["0:r0=1 0:r1=0"], "{model}");
        assert_eq!(r.executions, 1, "{model}");
        let r = run("ld-constant-mp.litmus", model);
        assert_eq!(
            states(&r),
            ["1:r1=0 1:r2=0", "1:r1=0 1:r2=1", "1:r1=2 1:r2=1"],
            "{model}"
        );
        let r = run("ld-constant-sb.litmus", model);
        assert_eq!(r.states.len(), 4, "{model}: {:?}", states(&r));
    }
}

#[test]
fn a_constant_is_only_ld_s_operand() {
    let src = "PTX bad\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n cold r0, 1 ;\nexists (P0:r0 == 1)\n";
    let opts = Options {
        model: Some("ptx7.5".parse::<LitmusModel>().unwrap()),
        ..Options::default()
    };
    let Err(e) = check_source("bad.litmus", src, &opts) else {
        panic!("cold of a constant is refused")
    };
    let text = format!("{e:?}");
    assert!(text.contains("expected a location name, found `1`"), "{text}");
    assert!(text.contains("line: 6"), "{text}");
}
