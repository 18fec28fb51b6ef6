//! concurrent-queue 2.5.0's own loom tests (`tests/loom.rs`), unchanged,
//! against scopecheck, as its CI runs them under loom
//! (`LOOM_MAX_PREEMPTIONS=4`): they must pass; and with the one-token bug
//! (the stamp store that publishes a pushed value made `Relaxed` instead of
//! `Release`) they must fail with the data race it lets through.
//!
//! The package is the copy cargo downloaded as a dev-dependency of this
//! crate; it is copied into a scratch directory under the target dir at test
//! time, with only its manifest changed: the loom dependency renamed to this
//! crate (by path), and what its loom tests do not use dropped (its
//! benchmark and other test files, whose dev-dependencies are not
//! downloaded), so the build runs `--offline`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The host's target triple (cargo metadata resolves only its packages:
/// those of other platforms are not downloaded).
fn host() -> String {
    let out = Command::new("rustc").arg("-vV").output().expect("rustc -vV runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host")
        .to_string()
}

/// Where cargo keeps concurrent-queue 2.5.0's sources.
fn package_dir() -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline", "--filter-platform"])
        .arg(host())
        .arg("--manifest-path")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON");
    let pkg = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .find(|p| p["name"] == "concurrent-queue" && p["version"] == "2.5.0")
        .expect("concurrent-queue 2.5.0 among the packages (a dev-dependency of scopecheck)");
    Path::new(pkg["manifest_path"].as_str().expect("manifest path"))
        .parent()
        .expect("package dir")
        .to_path_buf()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// The manifest with the loom dependency pointing at this crate, and the
/// benchmark and dev-dependencies (which the loom tests do not use) gone.
fn rewrite_manifest(text: &str) -> String {
    let loom = "[target.\"cfg(loom)\".dependencies.loom]\nversion = \"0.7\"\n";
    assert!(
        text.contains(loom),
        "concurrent-queue's manifest changed: no loom dependency line"
    );
    let mut out = String::from("[workspace]\n\n");
    let mut skip = false;
    for section in text.split_inclusive('\n') {
        let line = section.trim_end();
        if line.starts_with('[') {
            skip = line == "[[bench]]" || line.contains("dev-dependencies");
        }
        if !skip {
            out.push_str(section);
        }
    }
    out.replace(
        loom,
        &format!(
            "[target.\"cfg(loom)\".dependencies.loom]\npackage = \"scopecheck\"\npath = {:?}\ndefault-features = false\n",
            env!("CARGO_MANIFEST_DIR")
        ),
    )
}

/// A scratch copy of the package (`bug`: with the stamp store relaxed).
fn scratch(name: &str, bug: bool) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let src = package_dir();
    for f in ["Cargo.toml", "src"] {
        let p = src.join(f);
        if p.is_dir() {
            copy_dir(&p, &dir.join(f));
        } else {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::copy(&p, dir.join(f)).unwrap();
        }
    }
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::copy(src.join("tests/loom.rs"), dir.join("tests/loom.rs")).unwrap();
    let mut manifest = rewrite_manifest(&std::fs::read_to_string(dir.join("Cargo.toml")).unwrap());
    if bug {
        // Both copies build in one target directory, where cargo names a
        // workspace root's artifacts by package name and version, not by
        // path: with the same version, the buggy copy would be taken as
        // fresh and linked against the correct copy's library (which is
        // how this test once passed without the bug being compiled in).
        let version = "\nversion = \"2.5.0\"\n";
        assert_eq!(manifest.matches(version).count(), 1, "concurrent-queue's manifest changed");
        manifest = manifest.replace(version, "\nversion = \"2.5.0-relaxed-stamp\"\n");
    }
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    if bug {
        let p = dir.join("src/bounded.rs");
        let text = std::fs::read_to_string(&p).unwrap();
        // The store that publishes a pushed value (in `push_or_else`).
        let publish = "slot.value.with_mut(|slot| unsafe {\n                            \
                       slot.write(MaybeUninit::new(value));\n                        });\n                        \
                       slot.stamp.store(tail + 1, Ordering::Release);";
        assert_eq!(text.matches(publish).count(), 1, "concurrent-queue's push changed");
        std::fs::write(&p, text.replace(publish, &publish.replace("Release", "Relaxed"))).unwrap();
    }
    dir
}

/// Runs the package's loom tests; returns (passed, output).
fn run_loom_tests(dir: &Path) -> (bool, String) {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("crate-tests-target");
    let out = Command::new(env!("CARGO"))
        .current_dir(dir)
        .args([
            "test",
            "--release",
            "--offline",
            "--features",
            "loom",
            "--test",
            "loom",
            "--",
            "--test-threads",
            "1",
        ])
        .env("RUSTFLAGS", "--cfg loom")
        .env("CARGO_TARGET_DIR", &target)
        .env("LOOM_MAX_PREEMPTIONS", "4")
        .env_remove("SCOPECHECK_BUDGET")
        .env_remove("SCOPECHECK_REPLAY")
        .output()
        .expect("cargo test runs");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn concurrent_queue_loom_tests_pass_unchanged() {
    let (ok, out) = run_loom_tests(&scratch("concurrent-queue-2.5.0", false));
    assert!(ok, "concurrent-queue's loom tests failed under scopecheck:\n{out}");
    assert!(out.contains("test result: ok. 2 passed; 0 failed"), "{out}");
}

#[test]
fn concurrent_queue_with_a_relaxed_stamp_store_fails_with_a_data_race() {
    let (ok, out) = run_loom_tests(&scratch("concurrent-queue-2.5.0-relaxed-stamp", true));
    assert!(!ok, "the relaxed stamp store went unnoticed:\n{out}");
    assert!(out.contains("test result: FAILED. 0 passed; 2 failed"), "{out}");
    // The reader of the slot's value is not synchronized with its writer.
    assert_eq!(out.matches("scopecheck: data race (cpp20 model)").count(), 2, "{out}");
    assert!(
        out.contains("src/bounded.rs"),
        "the race is not shown in the queue's code:\n{out}"
    );
}
