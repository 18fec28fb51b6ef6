//! Liveness of PTX and Vulkan litmus tests under the GPU progress models
//! (`--progress fair|obe|hsa|lobe|hsa_obe`, harness/src/litmus/liveness.rs),
//! on the repository's own tests in corpus/gpu-liveness (no shared corpus
//! needed), with exact verdicts per progress model and exact witnesses.

use scopecheck::litmus::liveness::{self, Liveness, ProgressModel, Witness};
use scopecheck::litmus::{expect, parse};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/gpu-liveness")
}

const MODELS: [ProgressModel; 5] = ProgressModel::ALL;

/// Each file with its verdict (every execution ends) under fair, obe, hsa,
/// lobe and hsa_obe, worked out by hand from the progress rules.
const TABLE: [(&str, [bool; 5]); 9] = [
    // P0 waits for P1: only fair runs P1 for sure.
    ("lower-waits-for-higher.litmus", [true, false, false, false, false]),
    // P1 waits for P0: hsa runs P0 (lowest), lobe runs P0 (below started P1).
    ("higher-waits-for-lower.litmus", [true, false, true, true, true]),
    // Workgroup ids order the groups before thread ids do.
    ("workgroup-order.litmus", [true, false, true, true, true]),
    ("cta-order.litmus", [true, false, true, true, true]),
    // A livelock with side effects: both threads keep running.
    ("exchange-livelock.litmus", [false, false, false, false, false]),
    // A thread alone swaps out its own value forever.
    ("exchange-handoff.litmus", [true, false, false, false, false]),
    // A barrier short of its quorum blocks under every model.
    ("quorum-short.litmus", [false, false, false, false, false]),
    // Both started at the barrier: obe guarantees both, hsa only P0.
    ("barrier-then-spin.litmus", [true, true, false, true, true]),
    ("own-write.litmus", [true, true, true, true, true]),
];

fn check(file: &str, p: ProgressModel) -> Liveness {
    let mut r = liveness::check_path(&dir().join(file), &[p]);
    let (_, r) = r.pop().expect("one answer");
    r.unwrap_or_else(|e| panic!("{file} under {p}: {e}"))
}

#[test]
fn verdicts_per_progress_model() {
    for (file, want) in TABLE {
        let got: Vec<bool> = MODELS.iter().map(|&p| check(file, p).live).collect();
        assert_eq!(got, want, "{file} under fair, obe, hsa, lobe, hsa_obe");
    }
}

/// The corpus's expectation file says the same as [`TABLE`] and names
/// every file of the folder.
#[test]
fn expectation_file_matches_the_table() {
    let rows = expect::load(&dir().join("expected.tsv")).expect("expected.tsv loads");
    assert_eq!(rows.len(), TABLE.len());
    for (file, want) in TABLE {
        let row = rows
            .iter()
            .find(|r| r.path_text == file)
            .unwrap_or_else(|| panic!("no row for {file}"));
        let have: Vec<(String, bool)> = MODELS.iter().map(|p| p.name().to_string()).zip(want).collect();
        assert_eq!(row.liveness, have, "{file}");
    }
}

#[test]
fn witness_names_the_spinner_and_the_thread_it_waits_for() {
    let l = check("lower-waits-for-higher.litmus", ProgressModel::Hsa);
    let w = l.witness.expect("a violation");
    assert_eq!(
        w.spinning.iter().map(|(t, p)| (*t, p.line)).collect::<Vec<_>>(),
        vec![(0, 11)]
    );
    assert_eq!(w.starved, vec![(1, None)]);
    assert!(w.blocked.is_empty() && w.finished.is_empty());
    assert_eq!(
        w.text("f.litmus"),
        "P0 spins forever in the loop at f.litmus:11; waiting for P1 (never started), which the progress \
         model need never schedule"
    );
    // Under obe it is the higher thread that spins, waiting for one never started.
    let w = check("higher-waits-for-lower.litmus", ProgressModel::Obe)
        .witness
        .unwrap();
    assert_eq!(w.spinning.iter().map(|(t, _)| *t).collect::<Vec<_>>(), vec![1]);
    assert_eq!(w.starved, vec![(0, None)]);
}

#[test]
fn witness_of_a_barrier_and_of_a_livelock() {
    let w = check("quorum-short.litmus", ProgressModel::Fair).witness.unwrap();
    assert_eq!(
        w,
        Witness {
            spinning: Vec::new(),
            blocked: w.blocked.clone(),
            starved: Vec::new(),
            finished: Vec::new(),
            keeps_reading: Vec::new(),
        }
    );
    assert_eq!(
        w.blocked.iter().map(|(t, p)| (*t, p.line)).collect::<Vec<_>>(),
        vec![(0, 8), (1, 7)]
    );
    let w = check("exchange-livelock.litmus", ProgressModel::Fair).witness.unwrap();
    assert_eq!(w.spinning.iter().map(|(t, _)| *t).collect::<Vec<_>>(), vec![0, 1]);
    assert!(w.starved.is_empty());
    // Under hsa the started P1 stops after the barrier: starved where it stopped.
    let w = check("barrier-then-spin.litmus", ProgressModel::Hsa).witness.unwrap();
    assert_eq!(
        w.starved
            .iter()
            .map(|(t, p)| (*t, p.map(|p| p.line)))
            .collect::<Vec<_>>(),
        vec![(1, Some(10))]
    );
}

const COUNTER: &str = "PTX counter\n{\nx=0;\nP0:r0=0;\n}\n P0@cta 0,gpu 0 ;\n LC00: ;\n add r0, r0, 1 ;\n goto LC00 ;\nexists (P0:r0 == 1)\n";

/// A register that counts without bound is refused, saying why, not run forever.
#[test]
fn unbounded_state_is_refused() {
    let t = parse(COUNTER).unwrap();
    let e = liveness::check_limited(&t, ProgressModel::Fair, 1000).unwrap_err();
    assert_eq!(e.0, None);
    assert_eq!(
        e.1,
        "liveness: more than 1000 states (registers or memory that count without bound?); not decided"
    );
    // The same loop left once r0 reaches 3 has ten states: the start, then
    // (label, add, branch) for r0 = 0, 1, 2 and the end.
    let bounded = COUNTER.replace(" goto LC00 ;", " bne r0, 3, LC00 ;");
    let l = liveness::check(&parse(&bounded).unwrap(), ProgressModel::Hsa).unwrap();
    assert!(l.live);
    assert_eq!(l.states, 10);
}

/// A C test has no thread hierarchy: refused.
#[test]
fn c_tests_are_refused() {
    let t = parse("C t\n{ x = 0; }\nP0 (atomic_int* x) {\n  atomic_store(x, 1);\n}\nexists (x=1)\n").unwrap();
    let e = liveness::check(&t, ProgressModel::Fair).unwrap_err();
    assert_eq!(e.1, "liveness (--progress) is checked for PTX and Vulkan tests only");
}

#[test]
fn progress_names_parse() {
    for p in MODELS {
        assert_eq!(p.name().parse::<ProgressModel>(), Ok(p));
    }
    assert_eq!("HSA_OBE".parse::<ProgressModel>(), Ok(ProgressModel::HsaObe));
    assert_eq!(
        "unfair".parse::<ProgressModel>(),
        Err("unknown progress model `unfair` (expected fair, obe, hsa, lobe or hsa_obe)".to_string())
    );
}

fn scopecheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(args)
        .output()
        .expect("the scopecheck binary runs")
}

/// `--json --progress P` adds `liveness` and its witness; without
/// `--progress` the object has neither.
#[test]
fn json_liveness_field() {
    let f = dir().join("higher-waits-for-lower.litmus");
    let f = f.to_str().unwrap();
    let out = scopecheck(&["litmus", "--json", "--progress", "obe", f]);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(j["progress"], "obe");
    assert_eq!(j["liveness"], false);
    assert!(j["liveness_witness"]
        .as_str()
        .unwrap()
        .starts_with("P1 spins forever in the loop at "));
    let out = scopecheck(&["litmus", "--json", "--progress", "hsa", f]);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["liveness"], true);
    assert_eq!(j["liveness_witness"], serde_json::Value::Null);
    let out = scopecheck(&["litmus", "--json", f]);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(j.get("liveness").is_none() && j.get("progress").is_none());
    assert_eq!(j["verdict"], "Ok");
}

/// `--progress` on a C test: the liveness error is printed and the run fails.
#[test]
fn progress_on_a_c_test_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("c.litmus");
    std::fs::write(
        &f,
        "C t\n{ x = 0; }\nP0 (atomic_int* x) {\n  atomic_store(x, 1);\n}\nexists (x=1)\n",
    )
    .unwrap();
    let out = scopecheck(&["litmus", "--progress", "fair", f.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("c.litmus: liveness (--progress) is checked for PTX and Vulkan tests only"),
        "{err}"
    );
}

/// `--expect` compares liveness rows: the folder's file agrees, and a row
/// that says otherwise is a disagreement naming the progress model.
#[test]
fn expect_checks_liveness_rows() {
    let d = dir();
    let out = scopecheck(&[
        "litmus",
        "--expect",
        d.join("expected.tsv").to_str().unwrap(),
        d.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("9 test runs: 9 checked, 0 errors, 9 agreements"), "{err}");
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(d.join("own-write.litmus"), tmp.path().join("own-write.litmus")).unwrap();
    let tsv = tmp.path().join("e.tsv");
    std::fs::write(
        &tsv,
        "path\tmodel\tproperty\tprogress\texpected\nown-write.litmus\tvulkan\tliveness\thsa\t0\n",
    )
    .unwrap();
    let out = scopecheck(&[
        "litmus",
        "--expect",
        tsv.to_str().unwrap(),
        tmp.path().to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("DISAGREES with row own-write.litmus")
            && stdout.contains("liveness under hsa: expected 0, found 1"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Liveness under hsa: Ok (every execution ends;"),
        "{stdout}"
    );
}
