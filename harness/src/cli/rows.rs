//! Checks of `--expect` rows against the run's inputs, so that a typo in an
//! expectation file cannot silently turn a check off.
//!
//! The rule (also in `scopecheck litmus --help` and the README):
//! - every row names a file that exists;
//! - one file and model have at most one row;
//! - a row naming a file inside a folder given on the command line names
//!   one the run checks (a `*.litmus` file that the walk found);
//! - rows for files outside every path given are not checked, and are not
//!   an error: that is how a subset of an expectation file's tests is run.

use super::files::canonical;
use scopecheck::litmus::expect::Expectation;
use scopecheck::litmus::LitmusModel;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The rows of `tsv` that break the rule, as `tsv:line: what` messages.
/// `given` are the command line's paths, `files` the files the run checks.
pub fn check(rows: &[Expectation], tsv: &str, given: &[PathBuf], files: &[PathBuf]) -> Vec<String> {
    let folders: Vec<(PathBuf, &PathBuf)> = given.iter().filter(|p| p.is_dir()).map(|p| (canonical(p), p)).collect();
    let checked: HashSet<PathBuf> = files.iter().map(|f| canonical(f)).collect();
    let mut first: HashMap<(&Path, LitmusModel), usize> = HashMap::new();
    let mut errors = Vec::new();
    for r in rows {
        let at = format!("{tsv}:{}", r.line);
        if let Some(line) = first.insert((r.path.as_path(), r.model), r.line) {
            first.insert((r.path.as_path(), r.model), line);
            errors.push(format!(
                "{at}: a second row for `{}` under {} (the first is line {line}); a file and model take one row",
                r.path_text, r.model
            ));
            continue;
        }
        if !r.path.is_file() {
            let what = if r.path.is_dir() {
                "is a folder"
            } else {
                "does not exist"
            };
            errors.push(format!(
                "{at}: `{}` {what} (looked for {}; paths are relative to the expectation file's folder)",
                r.path_text,
                r.path.display()
            ));
            continue;
        }
        if checked.contains(&r.path) {
            continue;
        }
        if let Some((_, folder)) = folders.iter().find(|(c, _)| r.path.starts_with(c)) {
            errors.push(format!(
                "{at}: `{}` is inside the folder {} given, but the run does not check it (folders are searched \
                 for `*.litmus` files only)",
                r.path_text,
                folder.display()
            ));
        }
    }
    errors
}
