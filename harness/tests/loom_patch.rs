//! `[patch.crates-io] loom = { path = ".../loom" }`: the one line that
//! replaces loom by scopecheck in a crate *and in its dependencies*. A
//! scratch crate uses concurrent-queue 2.5.0 from the registry (built with
//! its own `cfg(loom)` dependency on loom, unchanged) to publish data
//! between two threads; with the patch, the queue's atomics are the
//! model's, so the publication through the queue is seen as
//! synchronization (no false race) and a write after the push is a race.
//! That the queue is on the patch at all is checked first, from `cargo
//! tree` (with the rename instead of the patch, it stays on the real loom).

mod common;

use common::registry::{cargo, workspace};
use std::path::{Path, PathBuf};

const MANIFEST: &str = r#"[package]
name = "loom-patch-probe"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
concurrent-queue = { version = "=2.5.0", features = ["loom"] }

[target.'cfg(loom)'.dependencies]
loom = "0.7"

[patch.crates-io]
loom = { path = "LOOM" }
"#;

const TEST: &str = r#"#![cfg(loom)]
use concurrent_queue::ConcurrentQueue;
use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;

struct Shared {
    queue: ConcurrentQueue<u32>,
    data: UnsafeCell<u32>,
}

fn run(write_after_push: bool) {
    loom::model(move || {
        let s = Arc::new(Shared { queue: ConcurrentQueue::bounded(2), data: UnsafeCell::new(0) });
        let s2 = s.clone();
        let t = thread::spawn(move || {
            if !write_after_push {
                s2.data.with_mut(|p| unsafe { *p = 7 });
            }
            s2.queue.push(1).unwrap();
            if write_after_push {
                s2.data.with_mut(|p| unsafe { *p = 7 });
            }
        });
        while s.queue.pop().is_err() {
            thread::yield_now();
        }
        let v = s.data.with(|p| unsafe { *p });
        if !write_after_push {
            assert_eq!(v, 7);
        }
        t.join().unwrap();
    });
}

#[test]
fn published_through_the_queue() {
    run(false);
}

#[test]
fn written_after_the_push_races() {
    run(true);
}
"#;

fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("loom-patch-probe");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    let loom = workspace().join("loom");
    std::fs::write(
        dir.join("Cargo.toml"),
        MANIFEST.replace("LOOM", loom.to_str().expect("a UTF-8 path")),
    )
    .unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    std::fs::write(dir.join("tests/probe.rs"), TEST).unwrap();
    dir
}

#[test]
fn one_patch_line_puts_a_dependencys_loom_atomics_in_the_model() {
    let dir = scratch();
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("crate-tests-target");
    let run = |args: &[&str]| {
        let out = cargo()
            .current_dir(&dir)
            .args(args)
            .env("RUSTFLAGS", "--cfg loom")
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("LOOM_MAX_PREEMPTIONS")
            .env_remove("SCOPECHECK_BUDGET")
            .env_remove("SCOPECHECK_REPLAY")
            .output()
            .expect("cargo runs");
        (
            out.status.success(),
            format!(
                "{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        )
    };
    // Every loom in the graph is the patch (concurrent-queue's included).
    let (ok, tree) = run(&["tree", "--offline", "-e", "normal", "-i", "loom"]);
    assert!(ok, "{tree}");
    assert!(tree.contains("loom v0.7.99 ("), "{tree}");
    assert!(tree.contains("concurrent-queue v2.5.0"), "{tree}");
    assert!(!tree.contains("loom v0.7.2") && !tree.contains("loom v0.7.3"), "{tree}");
    let (ok, out) = run(&[
        "test",
        "--release",
        "--offline",
        "--test",
        "probe",
        "--",
        "--test-threads",
        "1",
    ]);
    assert!(!ok, "the write after the push went unnoticed:\n{out}");
    assert!(out.contains("test published_through_the_queue ... ok"), "{out}");
    assert!(out.contains("test written_after_the_push_races ... FAILED"), "{out}");
    assert!(out.contains("test result: FAILED. 1 passed; 1 failed"), "{out}");
    assert_eq!(out.matches("scopecheck: data race (cpp20 model)").count(), 1, "{out}");
}
