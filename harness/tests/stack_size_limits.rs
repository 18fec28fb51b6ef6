//! A `Builder::stack_size` no stack can have (past the address space, or
//! more than the OS maps) is the user's setting: the run is refused with a
//! message naming `Builder::stack_size` and the size, never labelled
//! "scopecheck internal error" as a bug of the checker. Each case runs in a
//! child process (this binary, re-run with `SCOPECHECK_TEST_CHILD` set), to
//! see what the process prints on its way out.

#![cfg(target_os = "linux")]

use scopecheck::{thread, Builder};
use std::process::Command;

const CHILD: &str = "SCOPECHECK_TEST_CHILD";
const SIZE: &str = "SCOPECHECK_TEST_STACK_SIZE";

/// In the child: a model with `stack_size` from the environment.
#[test]
fn child_runs_a_model() {
    let Ok(size) = std::env::var(SIZE) else { return };
    if std::env::var(CHILD).is_err() {
        return;
    }
    let mut b = Builder::new();
    b.stack_size = size.parse().unwrap();
    b.explore(|| {
        let h = thread::spawn(|| 1);
        h.join().unwrap();
    });
    println!("the model ran");
}

/// Runs the child with `size`; returns whether it succeeded and its output.
fn run_child(size: usize) -> (bool, String) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_runs_a_model", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env(SIZE, size.to_string())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn a_stack_size_past_the_address_space_is_refused_as_the_setting() {
    for size in [usize::MAX, usize::MAX - 4096] {
        let (ok, text) = run_child(size);
        assert!(!ok, "{size}: {text}");
        assert!(
            text.contains(&format!(
                "scopecheck: Builder::stack_size = {size} bytes is larger than any address space"
            )),
            "{size}: {text}"
        );
        assert!(!text.contains("internal error"), "{size}: {text}");
        assert!(!text.contains("the model ran"), "{size}: {text}");
    }
}

#[test]
fn a_stack_size_the_os_cannot_map_is_refused_as_the_setting() {
    // 4 EiB: no x86-64 or AArch64 user address space holds it.
    let size = 1usize << 62;
    let (ok, text) = run_child(size);
    assert!(!ok, "{text}");
    assert!(
        text.contains(&format!(
            "scopecheck: cannot map a {size} byte stack for a model thread (Builder::stack_size = {size}, with 0 \
             stacks mapped already)"
        )),
        "{text}"
    );
    assert!(!text.contains("internal error"), "{text}");
}

#[test]
fn small_stack_sizes_still_run() {
    for size in [0, 1, 4096] {
        let (ok, text) = run_child(size);
        assert!(ok && text.contains("the model ran"), "{size}: {text}");
    }
}
