//! A panic in `Drop` while a model thread unwinds from an earlier panic
//! aborts the process (Rust's rule: it cannot be caught). The model's panic
//! hook records panics instead of printing them, so before the abort it
//! must print both panics, the first one with its location. The abort is
//! observed from a child process: this test binary re-runs itself with
//! `SCOPECHECK_TEST_CHILD` set.

use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use std::process::Command;

const CHILD: &str = "SCOPECHECK_TEST_CHILD";

struct PanicsWhileUnwinding;

impl Drop for PanicsWhileUnwinding {
    fn drop(&mut self) {
        if std::thread::panicking() {
            panic!("the drop panics too");
        }
    }
}

/// Runs `test` of this binary in a child process with `CHILD` set to it;
/// returns (exited successfully, stderr).
fn run_child(test: &str) -> (bool, String) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(CHILD, test)
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn double_panic_in_a_model_thread_prints_the_first_panic_before_the_abort() {
    if std::env::var(CHILD).as_deref() == Ok("double_panic_in_a_model_thread_prints_the_first_panic_before_the_abort") {
        scopecheck::model(|| {
            let x = AtomicUsize::new(1);
            let _d = PanicsWhileUnwinding;
            assert_eq!(x.load(Ordering::Relaxed), 2, "the first failure");
        });
        return;
    }
    let (ok, err) = run_child("double_panic_in_a_model_thread_prints_the_first_panic_before_the_abort");
    assert!(!ok, "the child must abort:\n{err}");
    assert!(
        err.contains("model thread 0 panicked in a `Drop` while it was unwinding"),
        "{err}"
    );
    assert!(err.contains("the program's own double panic"), "{err}");
    assert!(
        err.contains("first panic: assertion `left == right` failed: the first failure"),
        "{err}"
    );
    assert!(err.contains("double_panic.rs:"), "names the first panic's line: {err}");
    assert!(err.contains("panic during unwinding: the drop panics too"), "{err}");
}

#[test]
fn double_panic_in_a_spawned_model_thread_names_that_thread() {
    if std::env::var(CHILD).as_deref() == Ok("double_panic_in_a_spawned_model_thread_names_that_thread") {
        scopecheck::model(|| {
            let t = scopecheck::thread::spawn(|| {
                let _d = PanicsWhileUnwinding;
                panic!("the child's own failure");
            });
            t.join().unwrap();
        });
        return;
    }
    let (ok, err) = run_child("double_panic_in_a_spawned_model_thread_names_that_thread");
    assert!(!ok, "the child must abort:\n{err}");
    assert!(err.contains("model thread 1 panicked in a `Drop`"), "{err}");
    assert!(err.contains("first panic: the child's own failure"), "{err}");
}
