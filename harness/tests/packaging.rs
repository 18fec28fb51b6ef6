//! Depending on the library must not compile the command's dependencies
//! (issue 21 item 7): `cargo tree` of `scopecheck` without its default `cli`
//! feature lists none of them among normal dependencies, while with the
//! feature it lists all of them (so the check cannot pass by looking at the
//! wrong package or a tree that failed to print).

use std::process::Command;

/// The crate names in `cargo tree -p scopecheck -e normal` with `features`.
fn normal_deps(extra: &[&str]) -> Vec<String> {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--locked",
            "-e",
            "normal",
            "--prefix",
            "none",
            "-p",
            "scopecheck",
        ])
        .args(["--manifest-path", manifest])
        .args(extra)
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let mut names: Vec<String> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(String::from)
        .collect();
    names.sort();
    names.dedup();
    names
}

const COMMAND_ONLY: [&str; 3] = ["clap", "indicatif", "serde_json"];

#[test]
fn library_without_cli_feature_has_no_command_dependencies() {
    let lib = normal_deps(&["--no-default-features"]);
    assert!(lib.iter().any(|n| n == "scopecheck-checker"), "tree printed: {lib:?}");
    for dep in COMMAND_ONLY {
        assert!(
            !lib.iter().any(|n| n == dep),
            "{dep} is compiled for library users: {lib:?}"
        );
    }
}

#[test]
fn command_feature_brings_them() {
    let all = normal_deps(&[]);
    for dep in COMMAND_ONLY {
        assert!(
            all.iter().any(|n| n == dep),
            "{dep} missing with the cli feature: {all:?}"
        );
    }
}
