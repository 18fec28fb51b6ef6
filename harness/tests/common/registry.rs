//! Packages cargo downloaded as this workspace's (dev-)dependencies, for
//! the tests that build other people's crates against scopecheck: where
//! their sources are, and copying them into scratch crates.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `cargo`, as the test runner was started with.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The host's target triple (`cargo metadata` is asked about it only: for
/// every platform it would want crates that were never downloaded).
pub fn host() -> String {
    let out = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .arg("-vV")
        .output()
        .expect("rustc -vV runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host")
        .to_string()
}

/// The directory of the downloaded package `name` whose version starts
/// with `version` (`why` says which manifest asks for it).
pub fn package_dir(name: &str, version: &str, why: &str) -> PathBuf {
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--offline", "--filter-platform"])
        .arg(host())
        .current_dir(workspace())
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
        .find(|p| p["name"] == name && p["version"].as_str().is_some_and(|v| v.starts_with(version)))
        .unwrap_or_else(|| panic!("{name} {version} among the packages ({why})"));
    Path::new(pkg["manifest_path"].as_str().expect("manifest path"))
        .parent()
        .expect("package dir")
        .to_path_buf()
}

/// Copies the directory tree `from` to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
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
