//! Bounds of the DRFrlx check: the cap on quantum combinations holds
//! without building every combination first and says what it cut, and
//! `max_executions` / `max_duration` (`--max-executions` / `--timeout` on
//! `scopecheck drfrlx`) cut every exploration the check runs, giving an
//! incomplete verdict that says what was covered, never "legal".

mod common;
use common::within;

use scopecheck::drfrlx::{Check, Class, DrfReport};
use scopecheck::litmus::check_drfrlx_file;
use scopecheck::sync::atomic::AtomicU32;
use scopecheck::sync::Arc;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/drfrlx")
        .join(name)
}

fn scopecheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(args)
        .output()
        .expect("the scopecheck binary runs")
}

#[test]
fn the_quantum_cap_counts_what_it_cut() {
    // split-counter's six quantum choice points, each from a domain of eight
    // values ({0, 1} plus 1..=5, plus the type's boundaries i64::MIN and
    // i64::MAX): 8^6 combinations, of which 100 run.
    let check = Check {
        quantum_values: (1..=5).collect(),
        max_quantum_programs: 100,
        ..Check::new()
    };
    let r = check_drfrlx_file(&corpus("split-counter.litmus"), &check, 2).expect("a report");
    assert_eq!(r.quantum_programs, 100, "{r}");
    assert_eq!(r.quantum_executions, 400, "{r}");
    assert_eq!(
        r.incomplete,
        vec![
            "the quantum-equivalent program has at least 262144 combinations of quantum choices (those not run may \
             lead to more); 100 were checked (max_quantum_programs), the rest were not run"
                .to_string()
        ],
        "{r}"
    );
    // Nothing illegal was found, and not everything was checked.
    assert!(!r.is_legal() && !r.is_illegal() && !r.is_complete(), "{r}");
    assert!(
        r.to_string()
            .contains("incomplete: the quantum-equivalent program has at least 262144"),
        "{r}"
    );
}

#[test]
fn the_quantum_cap_with_twenty_extra_values_checks_exactly_the_cap() {
    // The input (it built 21^6 scripts, 22 GB, before the cap):
    // now 20,000 combinations run and the rest are counted, not built:
    // 23^6 (0, 1..=20 and the two boundaries of i64).
    let check = Check {
        quantum_values: (1..=20).collect(),
        ..Check::new()
    };
    let r = check_drfrlx_file(&corpus("split-counter.litmus"), &check, 2).expect("a report");
    assert_eq!(r.quantum_programs, 20_000, "{r}");
    assert_eq!(r.incomplete.len(), 1, "{r}");
    assert!(
        r.incomplete[0].starts_with("the quantum-equivalent program has at least 148035889 combinations"),
        "{r}"
    );
    assert!(r.incomplete[0].contains("20000 were checked"), "{r}");
}

/// A counter incremented by `threads` threads with commutative relaxed
/// RMWs: legal, `threads!` SC executions.
fn counter(check: &Check, threads: u32) -> DrfReport {
    check.explore(move || {
        let n = Arc::new(AtomicU32::new(0));
        let hs: Vec<_> = (1..threads)
            .map(|_| {
                let n = n.clone();
                scopecheck::thread::spawn(move || n.rlx(Class::Commutative).fetch_add(1).discard())
            })
            .collect();
        n.rlx(Class::Commutative).fetch_add(1).discard();
        for h in hs {
            h.join().unwrap();
        }
    })
}

#[test]
fn max_executions_cuts_the_sc_exploration_and_the_verdict_is_incomplete() {
    let full = counter(&Check::new(), 3);
    assert!(full.is_legal() && full.is_complete(), "{full}");
    assert_eq!(full.sc_executions, 6, "{full}");

    let check = Check {
        max_executions: Some(5),
        ..Check::new()
    };
    let r = counter(&check, 3);
    assert_eq!((r.sc_executions, r.weak_executions), (5, 0), "{r}");
    assert_eq!(
        r.incomplete,
        vec![
            "the limit of 5 executions was reached during the SC exploration of the program, after 5 complete \
             executions; the quantum-equivalent program, the weak-model run and class inference were not run"
                .to_string()
        ],
        "{r}"
    );
    assert!(!r.is_legal() && !r.is_illegal(), "{r}");
    assert!(r.failures.is_empty(), "{r}");
}

#[test]
fn max_executions_left_after_the_sc_exploration_bound_the_weak_run() {
    // The SC exploration takes six of seven: it is complete, the weak run
    // gets the seventh and is cut.
    let check = Check {
        max_executions: Some(7),
        ..Check::new()
    };
    let r = counter(&check, 3);
    assert_eq!((r.sc_executions, r.weak_executions), (6, 1), "{r}");
    assert_eq!(
        r.incomplete,
        vec![
            "the limit of 7 executions was reached during the rc11 run, after 1 complete executions (non-SC \
             outcomes beyond those listed may exist); class inference was not run"
                .to_string()
        ],
        "{r}"
    );
    assert!(!r.is_legal(), "{r}");
    // A budget the whole check fits in changes nothing.
    let check = Check {
        max_executions: Some(1_000),
        max_duration: Some(Duration::from_secs(3600)),
        ..Check::new()
    };
    let r = counter(&check, 3);
    assert!(r.is_legal() && r.is_complete(), "{r}");
    assert_eq!((r.sc_executions, r.weak_executions), (6, 6), "{r}");
}

#[test]
fn max_duration_cuts_a_long_check_inside_its_exploration() {
    // 9 threads: 9! = 362,880 SC executions, far more than 200 ms allow.
    let r = within(Duration::from_secs(30), || {
        let check = Check {
            max_duration: Some(Duration::from_millis(200)),
            ..Check::new()
        };
        counter(&check, 9)
    });
    assert_eq!(r.incomplete.len(), 1, "{r}");
    let why = &r.incomplete[0];
    assert!(
        why.starts_with("the time limit of 200ms ran out during the SC exploration of the program, after "),
        "{why}"
    );
    assert!(r.sc_executions < 362_880, "{r}");
    assert!(!r.is_legal() && !r.is_illegal() && r.failures.is_empty(), "{r}");
}

/// A litmus file of `n` threads, each incrementing one counter with a
/// commutative relaxed RMW.
fn many_threads(n: usize) -> String {
    let mut s = String::from("C many\n{ x = 0; }\n");
    for i in 0..n {
        s.push_str(&format!(
            "P{i} (atomic_int* x) {{\n  atomic_fetch_add_explicit(x, 1, memory_order_relaxed, rlx_commutative);\n}}\n"
        ));
    }
    s.push_str("exists (x=0)\n");
    s
}

#[test]
fn the_command_bounds_a_many_thread_file_and_says_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("many.litmus");
    std::fs::write(&f, many_threads(60)).unwrap();
    let file = f.to_str().unwrap();

    let out = scopecheck(&["drfrlx", "--max-executions", "2", file]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.contains("many.litmus: DRFrlx incomplete (not known to be legal)"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "incomplete: the limit of 2 executions was reached during the SC exploration of the program, after 2 \
             complete executions"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 test(s): 0 legal, 0 illegal, 1 incomplete, 0 error(s)"),
        "{stdout}"
    );

    let out = scopecheck(&["drfrlx", "--timeout", "0.3", file]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("DRFrlx incomplete (not known to be legal)"), "{stdout}");
    assert!(
        stdout.contains("incomplete: the time limit of 300ms ran out during the SC exploration of the program"),
        "{stdout}"
    );
    assert!(!stdout.contains("DRFrlx legal"), "{stdout}");
}

#[test]
fn a_cut_check_still_reports_the_illegal_races_it_found() {
    // fig2a's race shows in its 3 SC executions; the weak run is cut.
    let out = scopecheck(&[
        "drfrlx",
        "--max-executions",
        "4",
        corpus("fig2a.litmus").to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("fig2a.litmus: DRFrlx illegal"), "{stdout}");
    assert!(stdout.contains("non-ordering race"), "{stdout}");
    assert!(
        stdout.contains("incomplete: the limit of 4 executions was reached during the rc11 run"),
        "{stdout}"
    );
    assert!(stdout.contains("1 test(s): 0 legal, 1 illegal, 0 error(s)"), "{stdout}");
}

#[test]
fn bad_bounds_are_usage_errors_naming_the_option() {
    let f = corpus("fig2b.litmus");
    for bad in ["-1", "0", "nan", "inf", "1e300", "soon"] {
        let out = scopecheck(&["drfrlx", "--timeout", bad, f.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.contains("--timeout"), "{bad}: {stderr}");
    }
    for bad in ["0", "-3", "many"] {
        let out = scopecheck(&["drfrlx", "--max-executions", bad, f.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.contains("--max-executions"), "{bad}: {stderr}");
    }
}

#[test]
fn a_file_whose_every_execution_is_discarded_is_not_legal() {
    let src = "C forever\n{ x = 0; }\n\
P0 (atomic_int* x) {\n  int r0 = 0;\n  while (1) { r0 = r0 + 1; }\n}\n\
P1 (atomic_int* x) {\n  atomic_fetch_add_explicit(x, 1, memory_order_relaxed, rlx_commutative);\n}\n\
exists (x=1)\n";
    let r = scopecheck::litmus::check_drfrlx_source("forever.litmus", src, &Check::new(), 2).expect("a report");
    assert_eq!(r.sc_executions, 0, "{r}");
    assert_eq!(
        r.incomplete,
        vec![
            "no SC execution of the program completed (all 1 were abandoned: a `while` loop that needs more than \
             the unroll bound discards its execution), so nothing was judged; the later steps were not run"
                .to_string()
        ],
        "{r}"
    );
    assert!(!r.is_legal() && !r.is_illegal(), "{r}");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("forever.litmus");
    std::fs::write(&f, src).unwrap();
    let out = scopecheck(&["drfrlx", f.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.contains("forever.litmus: DRFrlx incomplete (not known to be legal)"),
        "{stdout}"
    );
    assert!(!stdout.contains("DRFrlx legal"), "{stdout}");
}

#[test]
fn a_rust_program_whose_every_execution_gives_up_is_not_legal() {
    let r = Check::new().explore(|| {
        let n = AtomicU32::new(0);
        n.rlx(Class::Commutative).fetch_add(1).discard();
        scopecheck_instrument::rt::discard();
    });
    assert_eq!(r.sc_executions, 0, "{r}");
    assert_eq!(r.incomplete.len(), 1, "{r}");
    assert!(
        r.incomplete[0].starts_with("no SC execution of the program completed"),
        "{r}"
    );
    assert!(!r.is_legal(), "{r}");
    assert!(r.to_string().contains("no illegal race in what was checked"), "{r}");
}

/// A `max_duration` too long for the clock to hold is no deadline: the
/// check runs whole (it used to panic in std's `Instant` addition).
#[test]
fn a_max_duration_past_the_clock_is_no_deadline() {
    for d in [Duration::MAX, Duration::from_secs(u64::MAX)] {
        let check = Check {
            max_duration: Some(d),
            ..Check::new()
        };
        let r = counter(&check, 3);
        assert!(r.is_legal() && r.is_complete(), "{d:?}: {r}");
        assert_eq!((r.sc_executions, r.weak_executions), (6, 6), "{d:?}: {r}");
    }
}
