//! File names for `--dot` output: `NAME.MODEL.dot`, where NAME is unique
//! among the run's files, so no two outputs overwrite each other.
//!
//! NAME is the file's stem; when two files share a stem, their whole paths
//! made into one name each (every character but letters, digits and `-`
//! mapped to `_`); when two names still meet (`a/b_c.litmus` and
//! `a_b/c.litmus` map alike, and a stem may equal another file's mapped
//! path), the later file gets `-2`, `-3`, ... Names are compared without
//! case, for file systems that ignore it. One file's models differ in the
//! MODEL part (the command runs each model once), and no model name holds
//! a dot, so distinct (NAME, MODEL) pairs give distinct file names.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

fn stem(f: &Path) -> String {
    f.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn mapped(f: &Path) -> String {
    f.to_string_lossy()
        .chars()
        .map(|c| if c.is_alphanumeric() || c == '-' { c } else { '_' })
        .collect()
}

/// One name per file of `files`, in order, all distinct.
pub fn names(files: &[PathBuf]) -> Vec<String> {
    let mut stems: HashMap<String, usize> = HashMap::new();
    for f in files {
        *stems.entry(stem(f)).or_insert(0) += 1;
    }
    let mut used: HashSet<String> = HashSet::new();
    files
        .iter()
        .map(|f| {
            let s = stem(f);
            let base = if stems[&s] > 1 { mapped(f) } else { s };
            let mut name = base.clone();
            let mut k = 1;
            while !used.insert(name.to_lowercase()) {
                k += 1;
                name = format!("{base}-{k}");
            }
            name
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        // `a/b_c.litmus` and `a_b/c.litmus` share their stems with the `z/`
        // files, so take their mapped paths, which meet.
        let files: Vec<PathBuf> = [
            "a/b_c.litmus",
            "a_b/c.litmus",
            "z/b_c.litmus",
            "z/c.litmus",
            "x/SB.litmus",
            "y/sb.litmus",
            "MP.litmus",
            "a_b_c_litmus.litmus",
            "q/MP.litmus",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(
            names(&files),
            vec![
                "a_b_c_litmus",
                "a_b_c_litmus-2",
                "z_b_c_litmus",
                "z_c_litmus",
                "SB",
                "sb-2",
                "MP_litmus",
                "a_b_c_litmus-3",
                "q_MP_litmus"
            ]
        );
    }
}
