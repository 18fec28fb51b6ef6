//! The `scopecheck litmus` command end to end: output formats, expectation
//! files, errors that do not stop the run, and exit statuses.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus")
}

fn scopecheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(args)
        .output()
        .expect("the scopecheck binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const SB: &str = "C SB\n{ x = 0; y = 0; }\n\
P0 (atomic_int* x, atomic_int* y) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n  int r0 = atomic_load_explicit(y, memory_order_relaxed);\n}\n\
P1 (atomic_int* x, atomic_int* y) {\n  atomic_store_explicit(y, 1, memory_order_relaxed);\n  int r0 = atomic_load_explicit(x, memory_order_relaxed);\n}\n\
exists (0:r0=0 /\\ 1:r0=0)\n";

#[test]
fn herd_format_for_store_buffering() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("sb.litmus");
    std::fs::write(&f, SB).unwrap();
    let out = scopecheck(&["litmus", f.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("Time ")).collect();
    assert_eq!(
        lines,
        vec![
            "Test SB Allowed",
            "States 4",
            "0:r0=0; 1:r0=0;",
            "0:r0=0; 1:r0=1;",
            "0:r0=1; 1:r0=0;",
            "0:r0=1; 1:r0=1;",
            "Ok",
            "Witnesses",
            "Positive: 1 Negative: 3",
            "Condition exists (0:r0=0 /\\ 1:r0=0)",
            "Observation SB Sometimes 1 3",
            "Model rc11 Executions 4 Blocked 0",
            "Races none",
            "",
        ]
    );
}

#[test]
fn sc_forbids_the_weak_outcome_and_both_models_run_in_one_command() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("sb.litmus");
    std::fs::write(&f, SB).unwrap();
    let out = scopecheck(&["litmus", "--model", "sc,rc11", f.to_str().unwrap()]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert_eq!(stdout.matches("Test SB Allowed").count(), 2);
    assert!(stdout.contains("Observation SB Never 0 3"), "{stdout}");
    assert!(stdout.contains("Observation SB Sometimes 1 3"), "{stdout}");
}

#[test]
fn public_c11_corpus_agrees_with_herd_under_rc11() {
    let out = scopecheck(&[
        "litmus",
        "--model",
        "rc11",
        "--expect",
        corpus().join("public/expected.tsv").to_str().unwrap(),
        corpus().join("public/c11").to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    // 21 rows with an answer agree; TSan has no recorded answer.
    assert_eq!(stdout.matches("Expect agrees").count(), 21, "{stdout}");
    assert_eq!(stdout.matches("Expect no answer recorded").count(), 1, "{stdout}");
    assert!(!stdout.contains("DISAGREES"));
    assert!(text(&out.stderr)
        .contains("22 test runs: 22 checked, 0 errors, 21 agreements, 1 without a recorded answer, 0 disagreements"));
}

#[test]
fn a_disagreement_fails_the_run_and_says_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sb.litmus"), SB).unwrap();
    // Claim SB's weak outcome is forbidden and one state is missing.
    std::fs::write(
        dir.path().join("exp.tsv"),
        "sb.litmus\trc11\t0\t1\t0:r0=0; 1:r0=1; | 0:r0=1; 1:r0=0; | 0:r0=1; 1:r0=1;\n",
    )
    .unwrap();
    let out = scopecheck(&[
        "litmus",
        "--expect",
        dir.path().join("exp.tsv").to_str().unwrap(),
        dir.path().join("sb.litmus").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let stdout = text(&out.stdout);
    assert!(stdout.contains("DISAGREES"), "{stdout}");
    assert!(stdout.contains("condition_holds: expected 0, found 1"), "{stdout}");
    assert!(stdout.contains("extra final state: 0:r0=0; 1:r0=0;"), "{stdout}");
}

#[test]
fn a_malformed_file_is_located_and_the_others_still_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a_bad.litmus"),
        "C bad\n{}\nP0 (atomic_int* x) {\n  atomic_store_explicit(x, 1 memory_order_relaxed);\n}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("b_sb.litmus"), SB).unwrap();
    let out = scopecheck(&["litmus", dir.path().to_str().unwrap()]);
    assert!(!out.status.success(), "a parse error must fail the run");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("a_bad.litmus:4:30: expected `,` and a memory order, found `memory_order_relaxed`"),
        "{stderr}"
    );
    assert!(text(&out.stdout).contains("Test SB Allowed"), "the good file still ran");
    assert!(stderr.contains("2 test runs: 1 checked, 1 errors"), "{stderr}");
}

#[test]
fn json_lines_have_the_documented_fields() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sb.litmus"), SB).unwrap();
    std::fs::write(dir.path().join("bad.litmus"), "C x\n{\n").unwrap();
    let out = scopecheck(&["litmus", "--json", dir.path().to_str().unwrap()]);
    let stdout = text(&out.stdout);
    let objs: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("valid JSON"))
        .collect();
    assert_eq!(objs.len(), 2);
    let err = &objs[0];
    assert_eq!(err["error"]["kind"], "parse");
    let sb = &objs[1];
    assert_eq!(sb["name"], "SB");
    assert_eq!(sb["model"], "rc11");
    assert_eq!(sb["verdict"], "Ok");
    assert_eq!(sb["executions"], 4);
    assert_eq!(sb["positive"], 1);
    assert_eq!(sb["states"].as_array().unwrap().len(), 4);
    assert_eq!(sb["races"].as_array().unwrap().len(), 0);
    assert!(sb["time"].as_f64().is_some());
}

#[test]
fn dot_writes_the_witness() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sb.litmus"), SB).unwrap();
    let dots = dir.path().join("dots");
    let out = scopecheck(&[
        "litmus",
        "--dot",
        dots.to_str().unwrap(),
        dir.path().join("sb.litmus").to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let g = std::fs::read_to_string(dots.join("sb.rc11.dot")).expect("witness written");
    assert!(g.starts_with("digraph"));
    assert!(g.contains("label=\"P0\"") && g.contains("label=\"P1\""), "{g}");
    // The witness is the weak outcome: both loads read the initial writes.
    assert!(g.contains("0:r0=0; 1:r0=0;"), "{g}");
    assert_eq!(g.matches("label=\"rf\"").count(), 2, "{g}");
}

#[test]
fn bad_arguments_are_usage_errors() {
    let out = scopecheck(&["litmus", "--model", "tso", "x.litmus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown model `tso`"));
    let out = scopecheck(&["litmus", "/definitely/not/here.litmus"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("cannot read"));
}

/// The README's first command: `--expect` alone runs every file under every
/// model its rows name and checks every row of the corpus.
#[test]
fn readme_check_command_checks_every_corpus_row() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .current_dir(&root)
        .args(["litmus", "--expect", "corpus/litmus/expected.tsv", "corpus/litmus"])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "155 test runs: 155 checked, 0 errors, 154 agreements, 1 without a recorded answer, 0 disagreements"
        ),
        "{stderr}"
    );
    // No accepted deviation is left (thinair's symbolic state is found
    // through its instance).
    assert!(!stderr.contains("known disagreements"), "{stderr}");
}

#[test]
fn shards_of_a_litmus_run_add_up_to_the_whole() {
    let file = corpus().join("families/IRIW-fences.litmus");
    let json = |strategy: &str| -> serde_json::Value {
        let out = scopecheck(&["litmus", "--json", "--strategy", strategy, file.to_str().unwrap()]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_str(text(&out.stdout).lines().next().unwrap()).unwrap()
    };
    let whole = json("exhaustive");
    let parts: Vec<serde_json::Value> = (0..3).map(|i| json(&format!("shard:{i}/3"))).collect();
    for key in ["executions", "negative", "positive", "blocked"] {
        let sum: u64 = parts.iter().map(|p| p[key].as_u64().unwrap()).sum();
        assert_eq!(sum, whole[key].as_u64().unwrap(), "{key}");
    }
    assert_eq!(whole["executions"], 15);
    let out = scopecheck(&["litmus", "--strategy", "shard:3/3", file.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("shard 3/3 does not exist"),
        "{}",
        text(&out.stderr)
    );
}

/// One shard answers only what it proves on its own: IRIW-rlx's weak outcome
/// is in shard 0 of 3, so shards 1 and 2 (no execution satisfies the
/// condition there) must not answer "No" for `exists` (nor "Ok" for
/// `~exists`), and every shard says its counts cover that shard only.
#[test]
fn a_shard_answers_only_what_it_proves() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(corpus().join("families/IRIW-rlx.litmus")).unwrap();
    assert!(src.contains("\nexists"));
    let exists = dir.path().join("iriw.litmus");
    let not_exists = dir.path().join("iriw-not.litmus");
    std::fs::write(&exists, &src).unwrap();
    std::fs::write(&not_exists, src.replace("\nexists", "\n~exists")).unwrap();
    let run = |file: &Path, shard: &str| -> (serde_json::Value, String) {
        let f = file.to_str().unwrap();
        let out = scopecheck(&["litmus", "--json", "--strategy", shard, f]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let json = serde_json::from_str(text(&out.stdout).lines().next().unwrap()).unwrap();
        let out = scopecheck(&["litmus", "--strategy", shard, f]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        (json, text(&out.stdout))
    };
    for (file, proven) in [(&exists, "Ok"), (&not_exists, "No")] {
        let (whole, _) = run(file, "exhaustive");
        assert_eq!(whole["shard"], serde_json::Value::Null);
        assert_eq!(whole["positive"], 1);
        for i in 0..3 {
            let shard = format!("shard:{i}/3");
            let (json, herd) = run(file, &shard);
            assert_eq!(json["shard"], format!("{i}/3"));
            assert_eq!(json["complete"], true);
            let note = format!("Shard {i}/3: states, counts, observation and races cover this shard's executions only");
            assert!(herd.contains(&note), "{herd}");
            if i == 0 {
                // The weak outcome is here: that proves the answer for the whole run.
                assert_eq!(json["positive"], 1);
                assert_eq!(json["verdict"], proven, "{shard}");
                assert!(herd.lines().any(|l| l == proven), "{herd}");
            } else {
                assert_eq!(json["positive"], 0);
                assert_eq!(json["verdict"], serde_json::Value::Null, "{shard}: {json}");
                assert!(herd.lines().any(|l| l == "??"), "{herd}");
                assert!(!herd.lines().any(|l| l == "No" || l == "Ok"), "{herd}");
            }
        }
    }
}

#[test]
fn pct_depth_0_is_a_usage_error() {
    let file = corpus().join("families/SB-rlx.litmus");
    for strategy in ["pct:1:10:0", "pct:1:10:00"] {
        let out = scopecheck(&["litmus", "--strategy", strategy, file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{strategy}");
        let err = text(&out.stderr);
        assert!(err.contains("PCT depth must be at least 1"), "{err}");
        assert!(err.contains("--strategy"), "{err}");
    }
    let out = scopecheck(&["litmus", "--strategy", "pct:1:10:1", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// A run cut before any execution completed answers nothing: `??` for the
/// verdict and the observation, JSON nulls, and `no_answer` saying a bound
/// cut it (not herd's "No" / "Never 0 0" from zero states).
#[test]
fn a_run_cut_before_any_execution_has_no_answer() {
    let f = corpus().join("public/c11/IRIW-sc-sc-acq-sc-acq-sc.litmus");
    for t in ["--timeout=1e-10", "--timeout=5e-324"] {
        let out = scopecheck(&["litmus", t, f.to_str().unwrap()]);
        let stdout = text(&out.stdout);
        assert!(stdout.contains("\n??\n"), "{t}: {stdout}");
        assert!(
            stdout.contains("Observation IRIW-sc-sc-acq-sc-acq-sc ?? 0 0\n"),
            "{t}: {stdout}"
        );
        assert!(
            stdout.contains("No answer: no execution completed before a bound cut the run (stopped after max_duration"),
            "{t}: {stdout}"
        );
        let out = scopecheck(&["litmus", "--json", t, f.to_str().unwrap()]);
        let line = text(&out.stdout);
        let json: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
        assert_eq!(json["verdict"], serde_json::Value::Null, "{json}");
        assert_eq!(json["observation"], serde_json::Value::Null, "{json}");
        assert!(
            json["no_answer"]
                .as_str()
                .unwrap()
                .contains("before a bound cut the run"),
            "{json}"
        );
    }
}

/// A random or PCT sample answers only what its executions prove (an
/// `exists` seen, a `~exists` or `forall` violated), `??` otherwise with a
/// line saying what it sampled; with `--expect`, a sample, a shard or a cut
/// run that contradicts nothing is "not compared", not a disagreement, and
/// one that proves the row wrong still disagrees.
#[test]
fn a_sample_answers_only_what_it_proves() {
    let dir = tempfile::tempdir().unwrap();
    let iriw = corpus().join("public/c11/IRIW-sc-sc-acq-sc-acq-sc.litmus");
    let iriw = iriw.to_str().unwrap();
    for strategy in ["random:1:3", "pct:1:3:2"] {
        let out = scopecheck(&["litmus", "--strategy", strategy, iriw]);
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(stdout.lines().any(|l| l == "??"), "{strategy}: {stdout}");
        assert!(!stdout.lines().any(|l| l == "No" || l == "Ok"), "{strategy}: {stdout}");
        assert!(stdout.contains("\nSampled: 3 "), "{strategy}: {stdout}");
        let out = scopecheck(&["litmus", "--json", "--strategy", strategy, iriw]);
        let json: serde_json::Value = serde_json::from_str(text(&out.stdout).lines().next().unwrap()).unwrap();
        assert_eq!(json["verdict"], serde_json::Value::Null, "{json}");
        assert!(json["sampled"].as_str().unwrap().starts_with("3 "), "{json}");
    }
    // What a sample sees, it proves: SB's weak outcome, seen, answers an
    // `exists` (Ok) and a `~exists` (No) for the whole test.
    let sb = dir.path().join("sb.litmus");
    let sb_not = dir.path().join("sb-not.litmus");
    std::fs::write(&sb, SB).unwrap();
    std::fs::write(&sb_not, SB.replace("\nexists", "\n~exists")).unwrap();
    for (f, want) in [(&sb, "Ok"), (&sb_not, "No")] {
        let out = scopecheck(&["litmus", "--strategy", "random:1:200", f.to_str().unwrap()]);
        let stdout = text(&out.stdout);
        assert!(stdout.lines().any(|l| l == want), "{stdout}");
    }
    // With --expect: partial runs that contradict nothing are not compared.
    let tsv = corpus().join("expected.tsv");
    let tsv = tsv.to_str().unwrap();
    for strategy in ["shard:1/4", "random:1:3", "pct:1:3:2"] {
        let out = scopecheck(&["litmus", "--expect", tsv, "--strategy", strategy, iriw]);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{strategy}: {stdout}{stderr}");
        assert!(
            stdout.contains("Expect not compared with row public/c11/IRIW"),
            "{stdout}"
        );
        assert!(
            stderr.contains("1 not compared (partial runs), 0 disagreements"),
            "{stderr}"
        );
    }
    let out = scopecheck(&["litmus", "--expect", tsv, "--max-executions", "3", iriw]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("this run is incomplete: stopped after max_executions = 3"));
    // ... and a sample that proves the row wrong disagrees.
    let wrong = dir.path().join("wrong.tsv");
    std::fs::write(&wrong, "sb.litmus\trc11\t0\t\t\t\n").unwrap();
    let out = scopecheck(&[
        "litmus",
        "--expect",
        wrong.to_str().unwrap(),
        "--strategy",
        "random:1:200",
        sb.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("condition_holds: expected 0, found 1"));
    // ... and one that proves every answer its row records agrees; a row
    // that also records race freedom (which no sample proves) is not
    // compared.
    let right = dir.path().join("right.tsv");
    for (row, agrees) in [
        ("sb.litmus\trc11\t1\t\t\t\n", true),
        ("sb.litmus\trc11\t1\t1\t\t\n", false),
    ] {
        std::fs::write(&right, row).unwrap();
        let out = scopecheck(&[
            "litmus",
            "--expect",
            right.to_str().unwrap(),
            "--strategy",
            "random:1:200",
            sb.to_str().unwrap(),
        ]);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{stdout}{stderr}");
        if agrees {
            assert!(
                stdout.contains("the executions it found prove every answer the row records"),
                "{stdout}"
            );
            assert!(stderr.contains("1 agreements"), "{stderr}");
        } else {
            assert!(stdout.contains("Expect not compared with row sb.litmus"), "{stdout}");
            assert!(stderr.contains("1 not compared (partial runs)"), "{stderr}");
        }
    }
}

/// `--json` on the mixed-declaration tests: the verdict and `race_free` of
/// each (docs/opencl-model.md section 2), and the opencl note.
#[test]
fn mixed_declarations_in_json() {
    let out = scopecheck(&["litmus", "--json", corpus().join("mixed").to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut got: Vec<(String, String, String, bool, usize)> = text(&out.stdout)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["name"].as_str().unwrap().to_string(),
                v["model"].as_str().unwrap().to_string(),
                v["verdict"].as_str().unwrap().to_string(),
                v["race_free"].as_bool().unwrap(),
                v["notes"].as_array().unwrap().len(),
            )
        })
        .collect();
    got.sort();
    let want = [
        ("C-MP-mixed-declarations", "rc11", "No", false, 0),
        ("MP-flag-global-then-local", "opencl", "Ok", false, 1),
        ("MP-flag-local-then-global", "opencl", "No", true, 1),
        ("MP-plain-read-of-atomic-data", "opencl", "No", false, 1),
        ("MP-plain-write-of-atomic-data", "opencl", "No", false, 1),
        ("atomics-on-atomic-location", "opencl", "Ok", true, 1),
        ("atomics-on-non-atomic-location", "opencl", "No", true, 1),
    ]
    .map(|(n, m, v, r, k)| (n.to_string(), m.to_string(), v.to_string(), r, k));
    assert_eq!(got, want);
}

/// A release write followed by a relaxed write of the same thread to the
/// same location, read by an acquire load: C11's release sequences (`rc11`)
/// hold the second write, C++20's (`cpp20`) do not.
const RS: &str = "C RS\n{ x = 0; y = 0; }\n\
P0 (atomic_int* x, atomic_int* y) {\n  atomic_store_explicit(y, 1, memory_order_relaxed);\n  atomic_store_explicit(x, 1, memory_order_release);\n  atomic_store_explicit(x, 2, memory_order_relaxed);\n}\n\
P1 (atomic_int* x, atomic_int* y) {\n  int r0 = atomic_load_explicit(x, memory_order_acquire);\n  int r1 = atomic_load_explicit(y, memory_order_relaxed);\n}\n\
exists (1:r0=2 /\\ 1:r1=1)\n";

const OPENCL_MP: &str = "OpenCL MP\n{ [x] = 0; [y] = 0; }\n\
P0@wg 0, dev 0 (global atomic_int* x, global atomic_int* y) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n  atomic_store_explicit(y, 1, memory_order_release);\n}\n\
P1@wg 0, dev 0 (global atomic_int* x, global atomic_int* y) {\n  int r0 = atomic_load_explicit(y, memory_order_acquire);\n  int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}\n\
exists (1:r0=1 /\\ 1:r1=1)\n";

const PTX_MP: &str = "PTX MP\n{\nx=0;\ny=0;\n}\n\
P0@cta 0,gpu 0          | P1@cta 0,gpu 0          ;\n\
st.relaxed.gpu x, 1     | ld.acquire.gpu r0, y    ;\n\
st.release.gpu y, 1     | ld.relaxed.gpu r1, x    ;\n\
exists (P1:r0 == 1 /\\ P1:r1 == 1)\n";

/// The sw edges of a picture are the model's own (and herd's `OpenCL` header
/// is read like Dat3M's `OPENCL`): `rc11` and `cpp20` differ
/// on the same graph, `opencl` draws its release/acquire edge, and a
/// hardware model says its synchronization is not drawn.
#[test]
fn dot_draws_the_models_sw_edges() {
    let dir = tempfile::tempdir().unwrap();
    for (name, src) in [("rs", RS), ("mp", OPENCL_MP), ("ptxmp", PTX_MP)] {
        std::fs::write(dir.path().join(format!("{name}.litmus")), src).unwrap();
    }
    let dots = dir.path().join("dots");
    let run = |file: &str, model: &str| {
        let out = scopecheck(&[
            "litmus",
            "--model",
            model,
            "--dot",
            dots.to_str().unwrap(),
            dir.path().join(file).to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    };
    let sw = |g: &str| g.matches("label=\"sw\"").count();
    run("rs.litmus", "rc11,cpp20");
    let rc11 = std::fs::read_to_string(dots.join("rs.rc11.dot")).expect("rc11 witness");
    let cpp20 = std::fs::read_to_string(dots.join("rs.cpp20.dot")).expect("cpp20 witness");
    assert!(
        rc11.contains("1:r0=2; 1:r1=1;") && cpp20.contains("1:r0=2; 1:r1=1;"),
        "{rc11}\n{cpp20}"
    );
    assert_eq!((sw(&rc11), sw(&cpp20)), (1, 0), "{rc11}\n{cpp20}");
    run("mp.litmus", "opencl");
    let ocl = std::fs::read_to_string(dots.join("mp.opencl.dot")).expect("opencl witness");
    assert_eq!(sw(&ocl), 1, "{ocl}");
    run("ptxmp.litmus", "ptx7.5");
    let ptx = std::fs::read_to_string(dots.join("ptxmp.ptx7.5.dot")).expect("ptx witness");
    assert_eq!(sw(&ptx), 0, "{ptx}");
    assert!(
        ptx.contains("// sw: this model's synchronization is not drawn"),
        "{ptx}"
    );
}

/// `race_free` in `--json` is what the run proves: false once a race is
/// seen, true from a complete run, and null from a partial run that saw
/// none under a model that defines races (Vulkan); PTX defines none, so
/// its runs are race free however partial.
#[test]
fn a_partial_run_does_not_claim_race_freedom() {
    let race_free = |file: &str, max: &str| {
        let f = corpus().join("..").join(file);
        let out = scopecheck(&["litmus", "--json", "--max-executions", max, f.to_str().unwrap()]);
        let v: serde_json::Value = serde_json::from_str(text(&out.stdout).lines().next().unwrap()).unwrap();
        (v["complete"].as_bool().unwrap(), v["race_free"].clone())
    };
    use serde_json::Value::{Bool, Null};
    assert_eq!(race_free("vulkan-host/ssw-war.litmus", "1"), (false, Null));
    assert_eq!(race_free("vulkan-host/ssw-war.litmus", "100"), (true, Bool(true)));
    assert_eq!(race_free("vulkan-host/ssw-no-vis.litmus", "1"), (false, Bool(false)));
    assert_eq!(race_free("ptx-host/ld-constant-mp.litmus", "1"), (false, Bool(true)));
    // The herd-style text says the same.
    let f = corpus().join("../vulkan-host/ssw-war.litmus");
    let out = scopecheck(&["litmus", "--max-executions", "1", f.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("\nRaces none found in the executions explored\n"),
        "{stdout}"
    );
    let out = scopecheck(&["litmus", f.to_str().unwrap()]);
    assert!(text(&out.stdout).contains("\nRaces none\n"), "{}", text(&out.stdout));
}

/// Under `rc11` a racy test prints herd's `Undef` in place of the verdict
/// and `Flag *undef*` after the witnesses (herd's rc11.cat says
/// `undefined_unless empty dr`); the condition's answer stays in the
/// Observation line and in `--json`. Under `cpp20` (no herd model) and
/// for a race-free test the verdict line is Ok/No as before.
#[test]
fn a_racy_test_is_undef_under_rc11_as_herd_prints_it() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("lb-plain.litmus");
    std::fs::write(
        &f,
        "C lb-plain\n{ x = 0; y = 0; }\nP0 (int* x, int* y) {\n  int r0 = *x;\n  *y = 1;\n}\n\
         P1 (int* x, int* y) {\n  int r0 = *y;\n  *x = 1;\n}\nexists (0:r0=1 /\\ 1:r0=1)\n",
    )
    .unwrap();
    let f = f.to_str().unwrap();
    let out = scopecheck(&["litmus", f]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("\nUndef\nWitnesses\nPositive: 0 Negative: 3\nFlag *undef*\n"),
        "{stdout}"
    );
    assert!(stdout.contains("\nObservation lb-plain Never 0 3\n"), "{stdout}");
    let out = scopecheck(&["litmus", "--json", f]);
    let v: serde_json::Value = serde_json::from_str(text(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(v["verdict"], "No");
    let out = scopecheck(&["litmus", "--model", "cpp20", f]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("\nNo\nWitnesses\n") && !stdout.contains("Undef"),
        "{stdout}"
    );
    let sb = dir.path().join("sb.litmus");
    std::fs::write(&sb, SB).unwrap();
    let out = scopecheck(&["litmus", sb.to_str().unwrap()]);
    assert!(!text(&out.stdout).contains("Undef"), "{}", text(&out.stdout));
}

/// A thread run alone that stops at the enumeration's work cap says so,
/// with the cap, even when most of its executions were blocked (the engine
/// counts those against the cap too) and the user gave a smaller
/// `--max-executions` (which counts the test's executions, not a thread's
/// own runs): before, it said "stopped after max_executions = 1000000",
/// as if that were the user's bound. TSan's compare-exchange loops on
/// pointers under `opencl` are such a test (under `c11` it finishes since
/// the shortcuts of c11_own_coherence.rs, which `opencl` does not take).
#[test]
fn a_thread_alone_at_the_work_cap_names_the_cap() {
    let f = corpus().join("public/c11/TSan.litmus");
    let out = scopecheck(&[
        "litmus",
        "--model",
        "opencl",
        "--max-executions",
        "1000",
        f.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(
            "\nIncomplete: the po ∪ rf-cyclic enumeration's work cap: P1 alone ran 1000000 executions with the \
             promised values without finishing; the outcome set is incomplete\n"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("max_executions = 1000000"), "{stdout}");
}
