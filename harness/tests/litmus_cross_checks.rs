//! The checker's cross-checks (`CrossChecks`: every write order, all
//! threads at once, judge every execution whole) are options of one run,
//! not switches of the process: runs with different settings side by side
//! in one process each get their own answer. Before, they were global
//! statics; a test that set one (under a lock of its own binary) changed
//! every other run of the process meanwhile.
//!
//! Each setting's answer is the same executions, states and verdict (that
//! is what the cross-checks check), but not the same work: all threads at
//! once runs the engine over every interleaving, and every write order
//! judges and rejects more graphs, so the blocked count (the engine's
//! blocked runs and the graphs the judge rejected) tells the settings apart.

mod common;

use common::litmus_rows::{corpus_dir, run_path, summary};
use scopecheck::litmus::{CrossChecks, LitmusModel, Options, TestResult};
use std::sync::Barrier;

/// corpus/gpu-spin's three threads spinning on exchanges, under `ptx7.5`
/// at unroll 1 (small enough for every setting), with `checks`.
fn run(checks: CrossChecks) -> TestResult {
    let opts = Options {
        model: Some("ptx7.5".parse::<LitmusModel>().expect("a model")),
        unroll: 1,
        cross_checks: checks,
        ..Options::default()
    };
    run_path(&corpus_dir("gpu-spin").join("swap3-ptx.litmus"), &opts)
}

/// What one run answered, and how much it rejected on the way.
fn answer(r: &TestResult) -> String {
    format!("{} blocked {}", summary(r), r.blocked)
}

#[test]
fn runs_with_different_cross_checks_side_by_side_get_their_own_answers() {
    let settings = [
        CrossChecks::default(),
        CrossChecks {
            every_order: true,
            ..CrossChecks::default()
        },
        CrossChecks {
            all_at_once: true,
            ..CrossChecks::default()
        },
        CrossChecks {
            judge_whole: true,
            all_at_once: true,
            every_order: true,
        },
    ];
    // Each setting alone, one after another.
    let alone: Vec<TestResult> = settings.iter().map(|&c| run(c)).collect();
    for r in &alone {
        assert!(r.complete, "{:?}", r.incomplete_reason);
        // The same executions whichever way (the cross-checks' point) ...
        assert_eq!(
            (r.executions, r.positive, &r.states),
            (alone[0].executions, alone[0].positive, &alone[0].states)
        );
    }
    // ... but not the same work: the pruned orders reject fewer graphs,
    // and thread by thread runs the engine far less.
    assert_ne!(alone[0].blocked, alone[1].blocked, "every order: {}", answer(&alone[1]));
    assert_ne!(alone[0].blocked, alone[2].blocked, "all at once: {}", answer(&alone[2]));
    // Side by side: every run starts when all have (the barrier) and none
    // ends before all have run; each must give its own setting's answer.
    let start = Barrier::new(settings.len());
    let end = Barrier::new(settings.len());
    let side_by_side: Vec<Vec<String>> = std::thread::scope(|s| {
        let handles: Vec<_> = settings
            .iter()
            .map(|&c| {
                let (start, end) = (&start, &end);
                s.spawn(move || {
                    (0..3)
                        .map(|_| {
                            start.wait();
                            let r = run(c);
                            end.wait();
                            answer(&r)
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a run")).collect()
    });
    for ((setting, own), r) in settings.iter().zip(&side_by_side).zip(&alone) {
        for got in own {
            assert_eq!(got, &answer(r), "{setting:?}");
        }
    }
}

/// The command's hidden `--cross-check` reaches the run (its blocked count
/// is the cross-check's) and gives the same answer (everything else the
/// JSON says but the time), and a bad cross-check is named.
#[test]
fn the_command_takes_the_cross_checks_and_refuses_an_unknown_one() {
    let file = corpus_dir("gpu-spin").join("swap3-ptx.litmus");
    let json = |extra: &[&str]| {
        let mut args = vec!["litmus", "--json", "--model", "ptx7.5", "--unroll", "1"];
        args.extend_from_slice(extra);
        args.push(file.to_str().expect("a UTF-8 path"));
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_scopecheck"))
            .args(&args)
            .output()
            .expect("the scopecheck binary runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        let mut v: serde_json::Value = serde_json::from_str(text.trim()).expect("one JSON object");
        let o = v.as_object_mut().expect("an object");
        o.remove("time").expect("the time");
        let blocked = o.remove("blocked").expect("the blocked count");
        (v, blocked)
    };
    let (plain, blocked) = json(&[]);
    assert_eq!(plain["executions"], 8, "{plain}");
    assert_eq!(blocked, run(CrossChecks::default()).blocked);
    let every = CrossChecks {
        every_order: true,
        all_at_once: true,
        judge_whole: true,
    };
    let (checked, blocked) = json(&["--cross-check", "every-order,all-at-once,judge-whole"]);
    assert_eq!(checked, plain);
    assert_eq!(blocked, run(every).blocked);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(["litmus", "--cross-check", "every-order,nope", file.to_str().unwrap()])
        .output()
        .expect("the scopecheck binary runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown cross-check `nope`"), "{err}");
}
