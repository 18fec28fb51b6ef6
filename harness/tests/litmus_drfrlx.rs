//! DRFrlx classes in litmus files (`corpus/drfrlx/`): each file's exact
//! verdict from the library entry point, and `scopecheck drfrlx` end to
//! end (output, exit statuses, located errors that do not stop the run).

use scopecheck::drfrlx::{Check, DrfReport, RaceKind, Suggestion};
use scopecheck::litmus::{check_drfrlx_file, check_drfrlx_source, TestError};
use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/drfrlx")
        .join(name)
}

fn check(name: &str) -> DrfReport {
    check_drfrlx_file(&corpus(name), &Check::new(), 2).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

/// The final value of `name` in each non-SC outcome.
fn non_sc_values(r: &DrfReport, name: &str) -> Vec<u64> {
    r.non_sc
        .iter()
        .map(|o| o.state.iter().find(|(n, _)| n == name).expect("named in the state").1)
        .collect()
}

#[test]
fn figure_2a_is_a_non_ordering_race_and_out_20_is_not_sc() {
    let r = check("fig2a.litmus");
    assert_eq!(r.race_kinds(), vec![RaceKind::NonOrdering], "{r}");
    let race = &r.races[0];
    assert_eq!((race.first.0.line, race.second.0.line), (15, 19), "{r}");
    assert_eq!(race.path.as_ref().map(Vec::len), Some(5), "{r}");
    assert_eq!((r.sc_executions, r.weak_executions), (3, 4), "{r}");
    assert_eq!(non_sc_values(&r, "out"), vec![20], "{r}");
    assert!(r.non_sc[0].blamed[0].starts_with("non-ordering race"), "{r}");
}

#[test]
fn figure_2b_is_legal_and_sc() {
    let r = check("fig2b.litmus");
    assert!(r.is_legal(), "{r}");
    assert!(r.non_sc.is_empty(), "{r}");
    assert_eq!((r.sc_executions, r.weak_executions), (4, 4), "{r}");
}

#[test]
fn an_observed_commutative_increment_is_a_commutative_race() {
    let r = check("histogram-read.litmus");
    assert_eq!(r.race_kinds(), vec![RaceKind::Commutative], "{r}");
    assert_eq!(
        r.races[0].why, "the value loaded by one of them is used by its thread",
        "{r}"
    );
    assert_eq!(r.races[0].executions, 2, "{r}");
}

#[test]
fn a_validated_seqlock_is_legal_and_an_early_use_is_a_speculative_race() {
    let r = check("seqlock.litmus");
    assert!(r.is_legal(), "{r}");
    assert_eq!(r.sc_executions, 10, "{r}");
    let r = check("seqlock-early.litmus");
    assert_eq!(r.race_kinds(), vec![RaceKind::Speculative], "{r}");
    // The data load races with the store in 8 of the 10 SC executions: in
    // the other two, seq orders them (the reader's RMW is read by the
    // writer's, or the reader's first load reads the writer's last store).
    assert_eq!(r.races[0].executions, 8, "{r}");
}

#[test]
fn quantum_split_counter_is_legal_on_its_quantum_equivalent_program() {
    let r = check("split-counter.litmus");
    assert!(r.is_legal(), "{r}");
    assert_eq!(r.sc_executions, 4, "{r}");
    // Six quantum choices (each counter's load and store, the reader's two
    // loads), each from its location's domain {0, 1} plus the boundaries of
    // the litmus type (i64::MIN, i64::MAX): 4^6 combinations, 4 SC
    // executions each.
    assert_eq!((r.quantum_programs, r.quantum_executions), (4096, 16384), "{r}");
    assert_eq!(r.quantum_domains.len(), 2, "{r}");
    for (_, values) in &r.quantum_domains {
        assert_eq!(values, &vec![0, 1, i64::MAX as u64, i64::MIN as u64], "{r}");
    }
}

#[test]
fn quantum_domains_hold_the_initial_value_with_inference_off_too() {
    // The domains took the initial values from the graphs kept for
    // inference; with inference off none were kept, each domain lost its
    // initial value and the quantum-equivalent program ran 1 combination.
    let check = Check {
        infer: scopecheck::drfrlx::Infer::Off,
        ..Check::new()
    };
    let r = check_drfrlx_file(&corpus("split-counter.litmus"), &check, 2).expect("a report");
    assert!(r.is_legal(), "{r}");
    assert_eq!((r.quantum_programs, r.quantum_executions), (4096, 16384), "{r}");
}

#[test]
fn inference_says_a_relaxed_flag_that_orders_data_must_be_paired() {
    let r = check("mp-unclassified.litmus");
    assert_eq!(r.race_kinds(), vec![RaceKind::Data, RaceKind::Unclassified], "{r}");
    assert_eq!(r.inferences.len(), 2, "{r}");
    for i in &r.inferences {
        assert!(i.legal.is_empty(), "{r}");
        assert!(matches!(i.suggestion, Suggestion::MustBePaired), "{r}");
    }
}

#[test]
fn inference_says_when_its_suggestions_do_not_hold_together() {
    let r = check("mp-relaxed.litmus");
    assert_eq!(r.suggestions_together, Some(false), "{r}");
    assert!(r.notes.iter().any(|n| n.contains("not legal all together")), "{r}");
}

#[test]
fn a_class_on_a_non_relaxed_order_is_a_located_error() {
    let src = "C bad\n{}\nP0 (atomic_int* x) {\n  atomic_store_explicit(x, 1, memory_order_release, rlx_quantum);\n}\n";
    match check_drfrlx_source("bad.litmus", src, &Check::new(), 2) {
        Err(e @ TestError::Parse(_)) => {
            let text = e.located("bad.litmus");
            assert!(text.starts_with("bad.litmus:4:"), "{text}");
            assert!(text.contains("relaxed"), "{text}");
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn the_command_judges_a_folder_and_keeps_going_past_errors() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["fig2a.litmus", "fig2b.litmus"] {
        std::fs::copy(corpus(f), dir.path().join(f)).unwrap();
    }
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_scopecheck"))
            .args(args)
            .output()
            .expect("the scopecheck binary runs")
    };
    let legal = dir.path().join("fig2b.litmus");
    let out = run(&["drfrlx", legal.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let out = run(&["drfrlx", dir.path().to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("fig2a.litmus: DRFrlx illegal"), "{stdout}");
    assert!(stdout.contains("fig2b.litmus: DRFrlx legal"), "{stdout}");
    assert!(stdout.contains("2 test(s): 1 legal, 1 illegal, 0 error(s)"), "{stdout}");
    std::fs::write(dir.path().join("broken.litmus"), "C broken\n{\n").unwrap();
    let out = run(&["drfrlx", dir.path().to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(stdout.contains("3 test(s): 1 legal, 1 illegal, 1 error(s)"), "{stdout}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("broken.litmus:"),
        "{stdout}"
    );
}

/// Store buffering with release stores and acquire loads: outside DRFrlx
/// (its paired atomics are seq_cst), with the rc11 outcome r0 = r1 = 0 as a
/// non-SC outcome; the command says "outside" and exits with status 4.
#[test]
fn acquire_release_store_buffering_is_outside_with_its_non_sc_outcome() {
    let src = "C sb-relacq\n{}\n\
               P0 (atomic_int* x, atomic_int* y, atomic_int* r0) {\n\
               \x20 atomic_store_explicit(x, 1, memory_order_release);\n\
               \x20 int a = atomic_load_explicit(y, memory_order_acquire);\n\
               \x20 atomic_store_explicit(r0, a, memory_order_seq_cst);\n}\n\
               P1 (atomic_int* x, atomic_int* y, atomic_int* r1) {\n\
               \x20 atomic_store_explicit(y, 1, memory_order_release);\n\
               \x20 int b = atomic_load_explicit(x, memory_order_acquire);\n\
               \x20 atomic_store_explicit(r1, b, memory_order_seq_cst);\n}\n\
               exists (r0 == 0 /\\ r1 == 0)\n";
    let r = check_drfrlx_source("sb-relacq.litmus", src, &Check::new(), 2).unwrap();
    assert!(r.is_outside() && !r.is_legal() && !r.is_illegal(), "{r}");
    assert_eq!(
        r.outside.iter().map(|s| s.line).collect::<Vec<_>>(),
        vec![4, 5, 9, 10],
        "{r}"
    );
    assert_eq!(non_sc_values(&r, "r0"), vec![0], "{r}");
    assert_eq!(non_sc_values(&r, "r1"), vec![0], "{r}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sb-relacq.litmus");
    std::fs::write(&file, src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(["drfrlx", file.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "{stdout}");
    assert!(stdout.contains("sb-relacq.litmus: DRFrlx outside"), "{stdout}");
    assert!(
        stdout.contains("1 test(s): 0 legal, 0 illegal, 1 outside DRFrlx, 0 error(s)"),
        "{stdout}"
    );
}

/// `scopecheck drfrlx --json`: one object per test on standard output (the
/// summary goes to standard error), with the verdict, the races with their
/// kinds and lines, the non-SC outcomes with their blame, and errors as
/// objects too.
#[test]
fn the_command_writes_one_json_object_per_test() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(corpus("fig2a.litmus"), dir.path().join("a-fig2a.litmus")).unwrap();
    std::fs::copy(corpus("split-counter.litmus"), dir.path().join("b-split.litmus")).unwrap();
    std::fs::write(
        dir.path().join("c-bad.litmus"),
        "C bad\n{}\nP0 (atomic_int* x) {\n  nonsense;\n}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(["drfrlx", "--json", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    let objs: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(objs.len(), 3, "{stdout}");
    assert!(stderr.contains("3 test(s): 1 legal, 1 illegal, 1 error(s)"), "{stderr}");
    let (a, b, c) = (&objs[0], &objs[1], &objs[2]);
    assert_eq!(a["verdict"], "illegal");
    assert_eq!(a["races"][0]["kind"], "non-ordering race");
    assert!(
        a["races"][0]["first"]["at"]
            .as_str()
            .unwrap()
            .ends_with("a-fig2a.litmus:15:3"),
        "{a}"
    );
    assert!(
        a["races"][0]["second"]["at"]
            .as_str()
            .unwrap()
            .ends_with("a-fig2a.litmus:19:12"),
        "{a}"
    );
    assert_eq!(a["non_sc"][0]["state"]["out"], 20, "{a}");
    assert!(
        a["non_sc"][0]["blamed"][0]
            .as_str()
            .unwrap()
            .starts_with("non-ordering race"),
        "{a}"
    );
    assert_eq!(
        (a["sc_executions"].as_u64(), a["weak_executions"].as_u64()),
        (Some(3), Some(4))
    );
    assert_eq!(b["verdict"], "legal");
    assert_eq!(b["quantum_programs"], 4096);
    assert_eq!(b["quantum_domains"].as_array().unwrap().len(), 2, "{b}");
    assert_eq!(c["verdict"], "error");
    assert!(
        c["error"]["message"].as_str().unwrap().contains("c-bad.litmus:4:"),
        "{c}"
    );
}
