//! loom's `model::Builder` on scopecheck's: its fields (`max_threads`,
//! `max_branches`, `max_permutations`, `max_duration`, `checkpoint_file`,
//! `checkpoint_interval`, `expect_explicit_explore`, `location`, `log`)
//! honoured, the `LOOM_*` variables read by `Builder::new()` (each case in
//! a child process: the variables are never set in this process), and
//! `MAX_THREADS`, `explore`, `skip_branch`, `stop_exploring`.

use scopecheck::model::Builder;
use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::sync::Arc;
use scopecheck::{thread, FailureKind, Report, StopCause};
use std::process::Command;
use std::time::Duration;

mod common;
use common::the_failure;

const CHILD: &str = "SCOPECHECK_TEST_CHILD";

fn is_child(test: &str) -> bool {
    std::env::var(CHILD).as_deref() == Ok(test)
}

/// Runs `test` of this binary in a child process with `env` set; returns
/// whether it passed and its stdout + stderr.
fn run_child(test: &str, env: &[(&str, &str)]) -> (bool, String) {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(CHILD, test);
    for var in [
        "LOOM_MAX_BRANCHES",
        "LOOM_MAX_PERMUTATIONS",
        "LOOM_MAX_DURATION",
        "LOOM_CHECKPOINT_FILE",
        "LOOM_CHECKPOINT_INTERVAL",
        "LOOM_LOCATION",
        "LOOM_LOG",
        "SCOPECHECK_REPLAY",
    ] {
        c.env_remove(var);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// Three threads, one relaxed `fetch_add` each: 3! = 6 executions.
fn six_executions() {
    let n = Arc::new(AtomicUsize::new(0));
    let hs: Vec<_> = (0..2)
        .map(|_| {
            let n = n.clone();
            thread::spawn(move || {
                n.fetch_add(1, Ordering::Relaxed);
            })
        })
        .collect();
    n.fetch_add(1, Ordering::Relaxed);
    for h in hs {
        h.join().unwrap();
    }
}

/// loom's `double_panic_in_drop::double_panic_at_branch_max`.
fn three_yields() {
    let _arc = Arc::new(());
    thread::yield_now();
    thread::yield_now();
    thread::yield_now();
}

#[test]
fn defaults_bound_nothing_loom_does_not_ask() {
    let b = Builder::new();
    assert_eq!(
        (b.max_threads, b.max_branches, b.max_permutations, b.checkpoint_interval),
        (usize::MAX, usize::MAX, None, 20_000)
    );
    assert!(!b.log && !b.location && !b.expect_explicit_explore && b.checkpoint_file.is_none());
    assert_eq!(scopecheck::MAX_THREADS, 5);
    let r = b.explore(six_executions);
    assert_eq!((r.executions(), r.is_complete()), (6, true), "{r}");
    assert_eq!(r.stop_cause(), None, "{r}");
}

#[test]
fn max_branches_fails_the_execution_in_loom_s_words() {
    let mut b = Builder::new();
    b.max_branches = 2;
    let r = b.explore(three_yields);
    let f = the_failure(&r, FailureKind::Runaway);
    assert!(
        f.message()
            .starts_with("Model exceeded maximum number of branches. This is often caused by an algorithm requiring"),
        "{r}"
    );
    assert!(f.message().contains("max_branches = 2"), "{r}");
    b.max_branches = 3;
    let r = b.explore(three_yields);
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    // Counted over all threads: two threads of 2 steps each (spawn + add,
    // add + end: the spawn and the adds are steps) exceed 3.
    b.max_branches = 3;
    let r = b.explore(six_executions);
    the_failure(&r, FailureKind::Runaway);
}

#[test]
fn max_threads_counts_the_main_thread() {
    let mut b = Builder::new();
    b.max_threads = 3;
    let r = b.explore(six_executions);
    assert_eq!((r.executions(), r.failures().len()), (6, 0), "{r}");
    b.max_threads = 2;
    let r = b.explore(six_executions);
    let f = the_failure(&r, FailureKind::Panic);
    assert!(
        f.message().contains("Model exceeded maximum number of threads") && f.message().contains("max_threads = 2"),
        "{r}"
    );
}

#[test]
fn max_permutations_caps_the_executions_and_says_incomplete() {
    let mut b = Builder::new();
    b.max_permutations = Some(4);
    let r = b.explore(six_executions);
    assert_eq!((r.executions(), r.is_complete()), (4, false), "{r}");
    assert_eq!(r.incomplete_reason(), Some("stopped after max_executions = 4"), "{r}");
    assert_eq!(r.stop_cause(), Some(&StopCause::MaxExecutions(4)), "{r}");
    // The smaller of the two caps.
    b.max_executions = Some(2);
    let r = b.explore(six_executions);
    assert_eq!(r.executions(), 2, "{r}");
    b.max_permutations = Some(7);
    b.max_executions = None;
    let r = b.explore(six_executions);
    assert_eq!((r.executions(), r.is_complete()), (6, true), "{r}");
    assert_eq!(r.stop_cause(), None, "{r}");
}

#[test]
fn loom_builder_usage_compiles_and_checks() {
    // As loom's tests write it.
    let mut builder = scopecheck::model::Builder::new();
    builder.max_branches = 1_000;
    builder.max_threads = scopecheck::MAX_THREADS;
    builder.location = true;
    builder.expect_explicit_explore = false;
    builder.check(|| {
        scopecheck::explore();
        scopecheck::stop_exploring();
        scopecheck::explore();
        scopecheck::skip_branch();
        six_executions();
    });
    // The hints change nothing: still every execution.
    let r = Builder::new().explore(|| {
        scopecheck::stop_exploring();
        six_executions();
        scopecheck::skip_branch();
    });
    assert_eq!(r.executions(), 6, "{r}");
}

fn failing() {
    let n = Arc::new(AtomicUsize::new(0));
    let n2 = n.clone();
    let t = thread::spawn(move || {
        n2.store(1, Ordering::Relaxed);
    });
    assert_eq!(n.load(Ordering::Relaxed), 0, "saw the store");
    t.join().unwrap();
}

/// A checkpoint file receives the first failure's replay token, and the
/// next run replays exactly that execution.
#[test]
fn a_checkpoint_file_saves_the_failing_execution_and_replays_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cp.txt");
    let mut b = Builder::new();
    b.checkpoint_file(path.to_str().unwrap());
    let first = b.explore(failing);
    let f = the_failure(&first, FailureKind::Panic);
    let saved = std::fs::read_to_string(&path).unwrap();
    assert_eq!(saved, format!("scopecheck-replay {}\n", f.token()));
    let again: Report = b.explore(failing);
    let g = the_failure(&again, FailureKind::Panic);
    assert_eq!((again.runs(), g.token()), (1, f.token()), "{again}");
    // A passing run leaves no file behind.
    let other = dir.path().join("none.txt");
    let mut b = Builder::new();
    b.checkpoint_file = Some(other.clone());
    b.explore(six_executions);
    assert!(!other.exists());
    // A file that holds something else is refused by name.
    std::fs::write(&other, "{\"pos\": 3}").unwrap();
    let err = std::panic::catch_unwind(|| b.explore(six_executions)).unwrap_err();
    let msg = scopecheck_panic(&err);
    assert!(
        msg.contains("does not hold a scopecheck replay token") && msg.contains("none.txt"),
        "{msg}"
    );
}

fn scopecheck_panic(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn log_prints_every_execution() {
    const NAME: &str = "log_prints_every_execution";
    if is_child(NAME) {
        let mut b = Builder::new();
        b.log = true;
        b.explore(six_executions);
        return;
    }
    let (ok, text) = run_child(NAME, &[]);
    assert!(ok, "{text}");
    assert_eq!(text.matches("scopecheck: execution ").count(), 6, "{text}");
    assert!(text.contains("scopecheck: execution 6 (Complete):"), "{text}");
    assert!(text.contains("fetch_add"), "{text}");
}

// ---- the environment, in child processes ----

#[test]
fn env_child_reads_the_variables() {
    const NAME: &str = "env_child_reads_the_variables";
    if is_child(NAME) {
        let b = Builder::new();
        println!(
            "SEEN branches={} perms={:?} duration={:?} file={:?} interval={} location={} log={}",
            b.max_branches,
            b.max_permutations,
            b.max_duration,
            b.checkpoint_file,
            b.checkpoint_interval,
            b.location,
            b.log
        );
        return;
    }
    let (ok, text) = run_child(
        NAME,
        &[
            ("LOOM_MAX_BRANCHES", "2"),
            ("LOOM_MAX_PERMUTATIONS", "4"),
            ("LOOM_MAX_DURATION", "7"),
            ("LOOM_CHECKPOINT_FILE", "/nonexistent/cp.json"),
            ("LOOM_CHECKPOINT_INTERVAL", "1"),
            ("LOOM_LOCATION", "1"),
            ("LOOM_LOG", "trace"),
        ],
    );
    assert!(ok, "{text}");
    assert!(
        text.contains(
            "SEEN branches=2 perms=Some(4) duration=Some(7s) file=Some(\"/nonexistent/cp.json\") interval=1 \
             location=true log=true"
        ),
        "{text}"
    );
    assert_eq!(Some(Duration::from_secs(7)), Some(Duration::from_secs(7)));
}

#[test]
fn env_child_max_branches_and_permutations_are_honoured() {
    const NAME: &str = "env_child_max_branches_and_permutations_are_honoured";
    if is_child(NAME) {
        let r = Builder::new().explore(three_yields);
        println!("BRANCHES {:?}", r.failures().first().map(|f| f.kind()));
        let r = Builder::new().explore(six_executions);
        println!("PERMS {} {}", r.executions(), r.is_complete());
        return;
    }
    let (ok, text) = run_child(NAME, &[("LOOM_MAX_BRANCHES", "2")]);
    assert!(ok, "{text}");
    assert!(text.contains("BRANCHES Some(Runaway)"), "{text}");
    let (ok, text) = run_child(NAME, &[("LOOM_MAX_PERMUTATIONS", "5")]);
    assert!(ok, "{text}");
    assert!(
        text.contains("BRANCHES None") && text.contains("PERMS 5 false"),
        "{text}"
    );
}

#[test]
fn env_child_checkpoint_file_says_what_it_does() {
    const NAME: &str = "env_child_checkpoint_file_says_what_it_does";
    if is_child(NAME) {
        let r = Builder::new().explore(failing);
        println!("RUNS {} FAILURES {}", r.runs(), r.failures().len());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("loom.json");
    let file = path.to_str().unwrap();
    let (ok, text) = run_child(
        NAME,
        &[("LOOM_CHECKPOINT_FILE", file), ("LOOM_CHECKPOINT_INTERVAL", "1")],
    );
    assert!(ok, "{text}");
    assert!(text.contains("an exploration cannot be resumed midway"), "{text}");
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .starts_with("scopecheck-replay "));
    let (ok, text) = run_child(NAME, &[("LOOM_CHECKPOINT_FILE", file)]);
    assert!(ok, "{text}");
    assert!(text.contains("replaying the failing execution it holds"), "{text}");
    assert!(text.contains("RUNS 1 FAILURES 1"), "{text}");
}

#[test]
fn env_child_a_malformed_number_names_the_variable() {
    const NAME: &str = "env_child_a_malformed_number_names_the_variable";
    if is_child(NAME) {
        Builder::new();
        return;
    }
    let (ok, text) = run_child(NAME, &[("LOOM_MAX_BRANCHES", "lots")]);
    assert!(!ok, "{text}");
    assert!(
        text.contains("LOOM_MAX_BRANCHES=\"lots\" is not a whole number"),
        "{text}"
    );
}
