//! Message passing through a flag: a writer fills `data` and then raises
//! `flag`; the reader, on seeing the flag, reads `data`.
//!
//! The program is checked twice:
//! 1. with a Release store and an Acquire load: correct, every execution passes;
//! 2. with a Relaxed store: the flag no longer orders the write to `data`
//!    before the read, and scopecheck reports a data race on `data`.
//!
//! The process exits with status 0 only when the first check passes and the
//! second reports exactly one failure, a data race; anything else is an error.
//!
//! Run: `cargo run --release -p scopecheck --example message_passing`

use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::{Builder, FailureKind, Report};
use std::process::ExitCode;

/// The message-passing program, with `store_order` for the flag's store.
fn message_passing(store_order: Ordering) -> impl Fn() {
    move || {
        let data = scopecheck::sync::Arc::new(scopecheck::cell::UnsafeCell::new(0));
        let flag = scopecheck::sync::Arc::new(AtomicUsize::new(0));
        let (d, f) = (data.clone(), flag.clone());
        let t = scopecheck::thread::spawn(move || {
            d.with_mut(|p| unsafe { *p = 42 });
            f.store(1, store_order);
        });
        if flag.load(Ordering::Acquire) == 1 {
            assert_eq!(data.with(|p| unsafe { *p }), 42);
        }
        t.join().unwrap();
    }
}

fn run(title: &str, store_order: Ordering) -> Report {
    println!("=== {title} ===");
    let report = Builder::new().explore(message_passing(store_order));
    println!("{report}");
    println!();
    report
}

fn main() -> ExitCode {
    let good = run("store Release / load Acquire", Ordering::Release);
    let bad = run("store Relaxed / load Acquire", Ordering::Relaxed);

    let mut problems = Vec::new();
    if !good.failures().is_empty() {
        problems.push(format!(
            "the Release/Acquire version should pass, but {} failure(s) were reported",
            good.failures().len()
        ));
    }
    if !good.is_complete() {
        problems.push("the Release/Acquire exploration did not complete".to_string());
    }
    if good.executions() == 0 {
        problems.push("the Release/Acquire exploration ran no execution".to_string());
    }
    let kinds: Vec<FailureKind> = bad.failures().iter().map(|f| f.kind()).collect();
    if kinds != [FailureKind::DataRace] {
        problems.push(format!(
            "the Relaxed version should report exactly one data race, but reported {kinds:?}"
        ));
    }

    if problems.is_empty() {
        println!("ok: Release/Acquire passes; Relaxed store reports a data race on `data`");
        ExitCode::SUCCESS
    } else {
        for p in &problems {
            eprintln!("FAILED: {p}");
        }
        ExitCode::FAILURE
    }
}
