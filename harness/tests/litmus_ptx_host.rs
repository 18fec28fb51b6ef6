//! Every row of corpus/ptx-host/expected.tsv (the shared GPU format), and
//! the exact outcome sets of its tests: PTX's `ld REG, CONSTANT` (Dat3M's
//! Memalloy tests set registers with it) is a register assignment, not a
//! load (it was refused as "expected a location name").

use scopecheck::litmus::{check_source, LitmusModel, Options};
use std::path::Path;

fn dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/ptx-host")
}

fn run(file: &str, model: &str) -> scopecheck::litmus::TestResult {
    let src = std::fs::read_to_string(dir().join(file)).unwrap();
    let opts = Options {
        model: Some(model.parse::<LitmusModel>().unwrap()),
        ..Options::default()
    };
    check_source(file, &src, &opts).unwrap_or_else(|e| panic!("{file}: {e:?}"))
}

/// The final states, each as `var=value` joined by spaces, sorted.
fn states(r: &scopecheck::litmus::TestResult) -> Vec<String> {
    r.states
        .keys()
        .map(|s| s.iter().map(|(v, x)| format!("{v}={x}")).collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn every_row_agrees() {
    let rows = std::fs::read_to_string(dir().join("expected.tsv")).unwrap();
    let mut checked = 0;
    for line in rows.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let [path, model, "condition", "-", expected] = f.as_slice() else {
            panic!("bad row: {line}")
        };
        let r = run(path, model);
        assert_eq!(r.verdict(), Some(*expected == "1"), "{line}");
        checked += 1;
    }
    assert_eq!(checked, 6);
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
