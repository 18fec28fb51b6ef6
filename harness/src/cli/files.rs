//! The litmus files a command line names: files as given, folders searched
//! recursively for `*.litmus`.
//!
//! Symbolic links are followed, but every file is checked once and every
//! folder searched once, both identified by their canonical path: a link
//! back to a folder being searched (a loop such as `ln -s . again`) or to
//! one already searched is skipped with a note, instead of being walked
//! forever.
//!
//! A search takes regular files only: a FIFO, socket or device named
//! `*.litmus` inside a folder is skipped with a note (opening a FIFO waits
//! for a writer that may never come, and a device may never end). A path
//! named on the command line is read as given.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a walk found.
#[derive(Debug, Default)]
pub struct Found {
    /// The files, each once, in a stable order: command-line order, and
    /// sorted within a folder.
    pub files: Vec<PathBuf>,
    /// Folders that could not be read (each an error of the run).
    pub errors: Vec<String>,
    /// Things skipped on purpose (loops, the same file or folder twice).
    pub notes: Vec<String>,
}

/// The litmus files under `paths`.
pub fn collect(paths: &[PathBuf]) -> Found {
    let mut w = Walker::default();
    for p in paths {
        if p.is_dir() {
            let canon = canonical(p);
            if let Some(first) = w.dirs_seen.get(&canon) {
                let first = first.display().to_string();
                w.found.notes.push(format!(
                    "{}: skipped, the same folder as {first}, already searched",
                    p.display()
                ));
                continue;
            }
            w.dirs_seen.insert(canon.clone(), p.clone());
            let mut open = vec![canon];
            w.walk(p, &mut open);
        } else {
            w.file(p);
        }
    }
    w.found
}

#[derive(Default)]
struct Walker {
    found: Found,
    /// Canonical paths of the files taken, with the path first seen.
    files_seen: HashMap<PathBuf, PathBuf>,
    /// Canonical paths of the folders searched, with the path first seen.
    dirs_seen: HashMap<PathBuf, PathBuf>,
}

/// `p` made canonical (links resolved), or `p` itself when that fails (a
/// dangling link: it is then reported when read).
pub(super) fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

impl Walker {
    fn file(&mut self, p: &Path) {
        match self.files_seen.get(&canonical(p)) {
            None => {
                self.files_seen.insert(canonical(p), p.to_path_buf());
                self.found.files.push(p.to_path_buf());
            }
            Some(first) if first != p => {
                let note = format!("{}: skipped, the same file as {}", p.display(), first.display());
                self.found.notes.push(note);
            }
            Some(_) => {}
        }
    }

    /// Searches `dir`; `open` holds the canonical paths of the folders
    /// being searched around it (`dir`'s own last).
    fn walk(&mut self, dir: &Path, open: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = match std::fs::read_dir(dir) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => {
                self.found
                    .errors
                    .push(format!("{}: cannot read folder: {e}", dir.display()));
                return;
            }
        };
        entries.sort();
        for p in entries {
            if p.is_dir() {
                let canon = canonical(&p);
                if open.contains(&canon) {
                    self.found.notes.push(format!(
                        "{}: skipped, a link back to {} (a loop)",
                        p.display(),
                        canon.display()
                    ));
                    continue;
                }
                if let Some(first) = self.dirs_seen.get(&canon) {
                    self.found.notes.push(format!(
                        "{}: skipped, the same folder as {}, already searched",
                        p.display(),
                        first.display()
                    ));
                    continue;
                }
                self.dirs_seen.insert(canon.clone(), p.clone());
                open.push(canon);
                self.walk(&p, open);
                open.pop();
            } else if p.extension().is_some_and(|x| x == "litmus") {
                match std::fs::metadata(&p) {
                    Ok(m) if !m.is_file() => self.found.notes.push(format!(
                        "{}: skipped, not a regular file (a FIFO, socket or device); name it on the command line \
                         to read it",
                        p.display()
                    )),
                    // A dangling link is taken: reading it reports why.
                    _ => self.file(&p),
                }
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn loops_are_skipped_and_files_taken_once() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("a.litmus"), "").unwrap();
        std::fs::write(root.join("sub/b.litmus"), "").unwrap();
        symlink(".", root.join("x")).unwrap();
        symlink(".", root.join("y")).unwrap();
        symlink("..", root.join("sub/up")).unwrap();
        symlink("a.litmus", root.join("z.litmus")).unwrap();
        let f = collect(&[root.to_path_buf(), root.join("a.litmus")]);
        assert_eq!(f.files, vec![root.join("a.litmus"), root.join("sub/b.litmus")]);
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        let notes = f.notes.join("\n");
        assert_eq!(f.notes.len(), 4, "{notes}");
        for skipped in ["sub/up", "/x", "/y"] {
            assert!(
                f.notes.iter().any(|n| n.contains(skipped) && n.contains("(a loop)")),
                "{skipped}: {notes}"
            );
        }
        assert!(
            f.notes
                .iter()
                .any(|n| n.contains("z.litmus: skipped, the same file as")),
            "{notes}"
        );
    }
}
