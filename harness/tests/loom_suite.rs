//! loom 0.7's own test suite, unchanged, against scopecheck (issue 21).
//!
//! At test time this finds the loom package cargo already downloaded (loom
//! is a dev-dependency of `bench`; `cargo metadata` names its manifest),
//! copies its `tests/*.rs` as they are into a scratch crate under the
//! system's temp dir whose only dependency line is
//! `loom = { package = "scopecheck", path = "<workspace>/harness",
//! default-features = false }`, builds every test target with
//! `RUSTFLAGS="--cfg loom"` (offline, its own target dir inside the
//! workspace's, so CI keeps it between runs), runs each test binary, and
//! compares each test's libtest verdict with loom's.
//!
//! loom's verdict for every test its suite does not `#[ignore]` is "ok"
//! (loom's CI passes them: a `#[should_panic]` test is "ok" when it
//! panics), and "ignored" for the rest. [`EXCEPTIONS`] lists every test
//! whose verdict here differs, each with its reason (the README's "Moving
//! from loom" repeats them); [`FILES`] says which files must compile.
//! loom's files are never committed: they are read from cargo's cache.

mod common;

use common::registry::{self, cargo, workspace};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether a loom test file must compile against scopecheck today, and if
/// not, what it needs.
const FILES: &[(&str, Result<(), &str>)] = &[
    ("arc", Ok(())),
    ("atomic", Ok(())),
    ("atomic_int", Ok(())),
    ("atomic_relaxed", Ok(())),
    ("condvar", Ok(())),
    ("deadlock", Ok(())),
    ("double_panic_in_drop", Ok(())),
    ("fence", Ok(())),
    ("futures", Ok(())),
    ("litmus", Ok(())),
    ("mpsc", Ok(())),
    ("mutex", Ok(())),
    ("rwlock", Ok(())),
    ("rwlock_regression1", Ok(())),
    ("smoke", Ok(())),
    ("spec", Ok(())),
    ("thread_api", Ok(())),
    ("thread_local", Ok(())),
    ("unsafe_cell", Ok(())),
    ("yield", Ok(())),
];

/// Tests whose verdict here is not loom's: `file::test` -> the libtest
/// verdict expected here, and why. None today.
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

/// Tests loom's suite ignores because loom gets them wrong, run here too
/// (`--ignored`): `file::test` -> the verdict expected here, and why.
const RUN_IGNORED: &[(&str, &str, &str)] = &[(
    "spec::test_seq_cst",
    "ok",
    "loom ignores it: loom treats SeqCst accesses as AcqRel and so explores an execution the C++ standard \
     forbids (z == 0, the test's assertion); scopecheck's SeqCst is RC11's, which forbids it, and every allowed \
     outcome (z == 1, z == 2) is seen",
)];

/// The longest one test binary may run before it is counted as hanging.
const BINARY_TIMEOUT: Duration = Duration::from_secs(600);

/// The directory of the loom 0.7 package cargo downloaded.
fn loom_dir() -> PathBuf {
    registry::package_dir("loom", "0.7.", "a dev-dependency of bench")
}

/// Writes the scratch crate (loom's test files copied unchanged) and
/// returns its directory.
fn scratch_crate(loom: &Path, dir: &Path) {
    let harness = workspace().join("harness");
    let harness_toml = std::fs::read_to_string(harness.join("Cargo.toml")).unwrap();
    // loom's cargo features, enabled (as loom's CI does) and forwarded once
    // scopecheck has them; until then `futures.rs`, which is
    // `#![cfg(feature = "futures")]`, fails to compile on `loom::future`.
    let feature = |f: &str| {
        if harness_toml
            .lines()
            .any(|l| l.trim_start().starts_with(&format!("{f} =")))
        {
            format!("{f} = [\"loom/{f}\"]")
        } else {
            format!("{f} = []")
        }
    };
    let toml = format!(
        "[package]\nname = \"loom-suite\"\nversion = \"0.0.0\"\nedition = \"2018\"\npublish = false\n\n\
         [dependencies]\nloom = {{ package = \"scopecheck\", path = {:?}, default-features = false }}\n\n\
         [dev-dependencies]\nfutures-util = {{ version = \"0.3\", default-features = false }}\n\n[features]\ndefault = [\"futures\", \"checkpoint\"]\n{}\n{}\n\n\
         [workspace]\n",
        harness.display().to_string(),
        feature("futures"),
        feature("checkpoint"),
    );
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), toml).unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    // The workspace's lock file pins what cargo already downloaded.
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    for e in std::fs::read_dir(loom.join("tests")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") {
            std::fs::copy(&p, dir.join("tests").join(p.file_name().unwrap())).unwrap();
        }
    }
}

/// Builds every test target; returns the executables that built, by file
/// stem, and the compiler's errors for those that did not.
fn build(dir: &Path) -> (BTreeMap<String, PathBuf>, BTreeMap<String, String>) {
    let out = cargo()
        .args([
            "build",
            "--release",
            "--tests",
            "--offline",
            "--keep-going",
            "--message-format=json",
        ])
        .current_dir(dir)
        .env("RUSTFLAGS", "--cfg loom")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env("CARGO_TARGET_DIR", workspace().join("target").join("loom-suite"))
        .stderr(Stdio::inherit())
        .output()
        .expect("cargo build runs");
    let mut built = BTreeMap::new();
    let mut errors: BTreeMap<String, String> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(m) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let target = m["target"]["name"].as_str().unwrap_or_default().to_string();
        let is_test = m["target"]["kind"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k == "test"));
        match m["reason"].as_str() {
            Some("compiler-artifact") if is_test => {
                if let Some(exe) = m["executable"].as_str() {
                    built.insert(target, PathBuf::from(exe));
                }
            }
            Some("compiler-message") if is_test && m["message"]["level"] == "error" => {
                let e = errors.entry(target).or_default();
                if e.len() < 4000 {
                    e.push_str(m["message"]["rendered"].as_str().unwrap_or_default());
                }
            }
            _ => {}
        }
    }
    (built, errors)
}

/// Runs one test binary (loom's ignored tests stay ignored) and returns
/// each test's libtest verdict ("ok", "FAILED", "ignored"; "hung" for the
/// tests still running when it was stopped).
fn run(exe: &Path, extra: &[&str]) -> BTreeMap<String, String> {
    let list = Command::new(exe).args(["--list"]).output().unwrap();
    let mut verdicts: BTreeMap<String, String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(|n| (n.to_string(), "hung".to_string()))
        .collect();
    let out_path = std::env::temp_dir().join(format!("loom-suite-{}-{}.out", std::process::id(), verdicts.len()));
    let file = std::fs::File::create(&out_path).unwrap();
    let mut child = Command::new(exe)
        .args(extra)
        .stdout(file)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > BINARY_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let text = std::fs::read_to_string(&out_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        let Some((name, verdict)) = rest.split_once(" ... ") else {
            continue;
        };
        let name = name.trim_end_matches(" - should panic");
        verdicts.insert(name.to_string(), verdict.trim().to_string());
    }
    verdicts
}

#[test]
fn loom_s_own_suite_gets_loom_s_verdicts() {
    let start = Instant::now();
    let loom = loom_dir();
    let dir = tempfile::Builder::new()
        .prefix("scopecheck-loom-suite")
        .tempdir()
        .unwrap();
    scratch_crate(&loom, dir.path());
    let (built, errors) = build(dir.path());
    let mut problems = Vec::new();
    let mut seen = Vec::new();
    for (file, must) in FILES {
        match (built.get(*file), must) {
            (Some(_), Err(needs)) => problems.push(format!(
                "{file}.rs compiles now (it needed {needs}): mark it Ok(()) in FILES"
            )),
            (None, Ok(())) => problems.push(format!(
                "{file}.rs does not compile:\n{}",
                errors.get(*file).map(String::as_str).unwrap_or("(no error captured)")
            )),
            (None, Err(needs)) => eprintln!("loom suite: {file}.rs does not compile yet (needs {needs})"),
            (Some(_), Ok(())) => {}
        }
    }
    for file in built.keys() {
        if !FILES.iter().any(|(f, _)| f == file) {
            problems.push(format!("{file}.rs is a loom test file missing from FILES"));
        }
    }
    let mut counts = BTreeMap::<String, u32>::new();
    for (file, exe) in &built {
        for (test, verdict) in run(exe, &[]) {
            let name = format!("{file}::{test}");
            *counts.entry(verdict.clone()).or_default() += 1;
            let expected = EXCEPTIONS.iter().find(|(n, _, _)| *n == name).map(|(_, v, _)| *v);
            let ok = match expected {
                Some(v) => verdict == v,
                None => verdict == "ok" || verdict == "ignored",
            };
            if !ok {
                problems.push(format!(
                    "{name}: {verdict}, expected {}",
                    expected.unwrap_or("loom's (ok)")
                ));
            }
            seen.push(name);
        }
    }
    for (name, expected, _) in RUN_IGNORED {
        let (file, test) = name.split_once("::").unwrap();
        let Some(exe) = built.get(file) else {
            eprintln!("loom suite: {name} not run ({file}.rs does not compile yet)");
            continue;
        };
        let verdict = run(exe, &["--ignored", "--exact", test])
            .remove(test)
            .unwrap_or_default();
        if verdict != *expected {
            problems.push(format!(
                "{name} (ignored by loom, run here): {verdict}, expected {expected}"
            ));
        }
    }
    for (name, _, _) in EXCEPTIONS {
        if !seen.iter().any(|s| s == name) {
            problems.push(format!("{name}: listed in EXCEPTIONS but not run"));
        }
    }
    eprintln!(
        "loom suite: {} files built, {} tests run ({counts:?}) in {:.0?}",
        built.len(),
        seen.len(),
        start.elapsed()
    );
    assert!(
        problems.is_empty(),
        "{} disagreement(s) with loom:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
