//! Model threads get std's stack size (2 MiB), and an overflow is reported
//! as a failure of that execution ("thread N has overflowed its stack",
//! naming `Builder::stack_size`) with the test binary left running; other
//! segfaults and the OS threads' own overflows still go where they went.
//! Each case runs in a child process (this binary, re-run with
//! `SCOPECHECK_TEST_CHILD` set), so a crash is a failed assertion here.

#![cfg(target_os = "linux")]

use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::{thread, Builder, FailureKind};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus};

const CHILD: &str = "SCOPECHECK_TEST_CHILD";

/// `depth` frames of a little over 512 bytes each.
#[inline(never)]
fn recurse(depth: usize) -> usize {
    let mut buf = [0u8; 512];
    std::hint::black_box(&mut buf);
    if depth == 0 {
        return buf[0] as usize;
    }
    recurse(depth - 1) + buf[depth % 512] as usize
}

/// Whether this process is the child running `test`.
fn is_child(test: &str) -> bool {
    std::env::var(CHILD).as_deref() == Ok(test)
}

/// Runs `test` of this binary in a child process; returns its status and
/// stdout + stderr.
fn run_child(test: &str) -> (ExitStatus, String) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(CHILD, test)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status, text)
}

/// Asserts the child passed and printed `marker` (so its test body ran).
fn child_passed(test: &str, marker: &str) {
    let (status, text) = run_child(test);
    assert!(status.success(), "{test}: {status}\n{text}");
    assert!(text.contains(marker), "{test}: no `{marker}` in\n{text}");
}

#[test]
fn a_recursion_a_std_thread_runs_runs_on_a_model_thread() {
    const NAME: &str = "a_recursion_a_std_thread_runs_runs_on_a_model_thread";
    if is_child(NAME) {
        // It does on a std thread.
        std::thread::spawn(|| recurse(2_000)).join().unwrap();
        let r = Builder::new().explore(|| {
            let t = thread::spawn(|| {
                recurse(2_000);
            });
            recurse(2_000);
            t.join().unwrap();
        });
        assert!(r.failures().is_empty(), "{r}");
        assert_eq!(r.executions(), 1);
        println!("CHILD DONE");
        return;
    }
    child_passed(NAME, "CHILD DONE");
}

#[test]
fn an_overflow_is_a_failure_of_its_execution_and_the_process_goes_on() {
    const NAME: &str = "an_overflow_is_a_failure_of_its_execution_and_the_process_goes_on";
    if is_child(NAME) {
        for (depth, thread_id) in [(100_000, 0), (1_000_000, 1)] {
            let r = Builder::new().explore(move || {
                let x = AtomicUsize::new(0);
                if thread_id == 0 {
                    x.store(recurse(depth), Ordering::Relaxed);
                } else {
                    thread::spawn(move || recurse(depth)).join().unwrap();
                }
            });
            assert_eq!(r.failures().len(), 1, "{r}");
            let f = &r.failures()[0];
            assert_eq!(f.kind(), FailureKind::StackOverflow, "{r}");
            assert!(
                f.message()
                    .starts_with(&format!("thread {thread_id} has overflowed its stack")),
                "{}",
                f.message()
            );
            assert!(f.message().contains("Builder::stack_size"), "{}", f.message());
            assert!(f.message().contains("2097152 bytes"), "{}", f.message());
            assert!(format!("{r}").contains("stack overflow"), "{r}");
        }
        // The parallel explorer's threads catch it too.
        let r = Builder::new().explore_parallel(2, || {
            recurse(1_000_000);
        });
        assert_eq!(r.failures().len(), 1, "{r}");
        assert_eq!(r.failures()[0].kind(), FailureKind::StackOverflow, "{r}");
        // The run and the process go on: more models, more overflows.
        let r = Builder::new().explore(|| assert_eq!(recurse(10), 0));
        assert!(r.failures().is_empty(), "{r}");
        println!("CHILD DONE");
        return;
    }
    child_passed(NAME, "CHILD DONE");
}

#[test]
fn a_smaller_stack_size_is_honoured_and_named() {
    const NAME: &str = "a_smaller_stack_size_is_honoured_and_named";
    if is_child(NAME) {
        let mut b = Builder::new();
        b.stack_size = 256 * 1024;
        let r = b.explore(|| {
            recurse(2_000);
        });
        assert_eq!(r.failures().len(), 1, "{r}");
        assert_eq!(r.failures()[0].kind(), FailureKind::StackOverflow, "{r}");
        assert!(r.failures()[0].message().contains("262144 bytes"), "{r}");
        // And every execution keeps going: the next ones overflow too.
        b.max_failures = 3;
        let r = b.explore(|| {
            let x = AtomicUsize::new(0);
            let t = thread::spawn(move || recurse(2_000));
            x.fetch_add(1, Ordering::Relaxed);
            t.join().unwrap();
        });
        assert!(
            r.failures().iter().all(|f| f.kind() == FailureKind::StackOverflow),
            "{r}"
        );
        assert!(!r.failures().is_empty(), "{r}");
        println!("CHILD DONE");
        return;
    }
    child_passed(NAME, "CHILD DONE");
}

#[test]
fn other_segfaults_still_take_the_default_action() {
    const NAME: &str = "other_segfaults_still_take_the_default_action";
    if is_child(NAME) {
        Builder::new().explore(|| {
            recurse(10);
        });
        // SAFETY: none: this child process crashes on purpose.
        unsafe { std::ptr::write_volatile(std::ptr::dangling_mut::<u64>().wrapping_add(4096), 1) };
        println!("NOT REACHED");
        return;
    }
    let (status, text) = run_child(NAME);
    assert_eq!(status.signal(), Some(libc_sigsegv()), "{status}\n{text}");
    assert!(!text.contains("NOT REACHED"), "{text}");
    assert!(!text.contains("model thread"), "{text}");
}

#[test]
fn an_os_threads_own_overflow_still_gets_stds_report() {
    const NAME: &str = "an_os_threads_own_overflow_still_gets_stds_report";
    if is_child(NAME) {
        Builder::new().explore(|| {
            recurse(10);
        });
        std::thread::Builder::new()
            .name("plain".into())
            .stack_size(64 * 1024)
            .spawn(|| recurse(1_000_000))
            .unwrap()
            .join()
            .unwrap();
        println!("NOT REACHED");
        return;
    }
    let (status, text) = run_child(NAME);
    assert!(!status.success(), "{text}");
    assert!(
        text.contains("thread 'plain' (") && text.contains("has overflowed its stack"),
        "{text}"
    );
    assert!(!text.contains("model thread"), "{text}");
}

/// Recurses deeply when dropped during a panic.
struct RecursesWhileUnwinding;

impl Drop for RecursesWhileUnwinding {
    fn drop(&mut self) {
        if std::thread::panicking() {
            recurse(1_000_000);
        }
    }
}

#[test]
fn an_overflow_that_cannot_be_reported_says_so_and_aborts_like_std() {
    // During a panic the panic machinery's state would be left half
    // updated: the overflow cannot become a failure, so it is said plainly
    // (with the setting to raise) before the abort, as std does.
    const NAME: &str = "an_overflow_that_cannot_be_reported_says_so_and_aborts_like_std";
    if is_child(NAME) {
        Builder::new().explore(|| {
            let _d = RecursesWhileUnwinding;
            panic!("first");
        });
        println!("NOT REACHED");
        return;
    }
    let (status, text) = run_child(NAME);
    assert_eq!(status.signal(), Some(6), "SIGABRT: {status}\n{text}");
    assert!(text.contains("thread 0 has overflowed its stack"), "{text}");
    assert!(
        text.contains("model thread 0 overflowed its stack (2097152 bytes; raise `Builder::stack_size`"),
        "{text}"
    );
    assert!(!text.contains("NOT REACHED"), "{text}");
}

/// SIGSEGV's number (11 on every Linux architecture this runs on).
fn libc_sigsegv() -> i32 {
    11
}
