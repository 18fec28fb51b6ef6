//! No import cycles among the modules of the checker, nor among those of
//! the shim: each module's dependencies are read off its
//! source text and the graph they make must be acyclic (issue 20).
//!
//! A file belongs to the top-level module it sits in (`src/engine/ops.rs`
//! is `engine`); it depends on module `m` when its code names `crate::m`
//! (in a `use` line, a `use crate::{m, ...}` group or a path inside code),
//! `$crate::m` (in a macro), or reaches `m` through enough `super::`s.
//! Comment lines are skipped; everything else counts, so a stray mention
//! can only add an edge, never hide one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Dependencies between top-level modules: module -> (module it names ->
/// the files that name it).
type Deps = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a source file relative to `src`: `engine/ops.rs` is
/// `[engine, ops]`, `engine/mod.rs` and `engine.rs` are `[engine]`,
/// `lib.rs` is `[]`.
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier at the start of `s`.
fn ident(s: &str) -> &str {
    &s[..s.find(|c: char| !is_ident(c)).unwrap_or(s.len())]
}

/// The top-level modules one line of code names, from a file at `path`.
fn named_modules(line: &str, path: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in line.match_indices("crate::") {
        // `crate::` as a path start (also `$crate::`), not `my_crate::`.
        if line[..i].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        let rest = &line[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a, b::c, d::{e, f}}`: the first name of each part at
            // the group's top level.
            let mut depth = 0;
            let mut start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && is_ident(c) => {
                        out.push(ident(&group[j..]).to_string());
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest).to_string());
        }
    }
    for (i, _) in line.match_indices("super::") {
        if line[..i].ends_with("super::") || line[..i].chars().next_back().is_some_and(is_ident) {
            continue; // counted from the first `super::` of the chain
        }
        let mut rest = &line[i..];
        let mut ups = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            rest = r;
            ups += 1;
        }
        // A file's own module is `path`; `super` from its items is its
        // parent (`path` minus one), from a `mod tests` inside it likewise
        // one level less: counting from the file over-estimates the
        // climb, so `path.len() - ups` is the deepest the target can be.
        let target: Vec<String> = if ups >= path.len() {
            vec![ident(rest).to_string()]
        } else {
            path[..path.len() - ups].to_vec()
        };
        if let Some(top) = target.first() {
            out.push(top.clone());
        }
    }
    out.retain(|m| !m.is_empty() && m != "self" && m != "super");
    out
}

/// The dependencies among the top-level modules of the crate in `src`.
fn deps(src: &Path) -> Deps {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut deps = Deps::new();
    for file in files {
        let rel = file.strip_prefix(src).expect("under src");
        let path = module_path(rel);
        let Some(me) = path.first().cloned() else {
            continue; // lib.rs only declares and re-exports the modules
        };
        let text = std::fs::read_to_string(&file).expect("readable source");
        for line in text.lines() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for m in named_modules(line, &path) {
                if m != me {
                    deps.entry(me.clone())
                        .or_default()
                        .entry(m)
                        .or_default()
                        .insert(rel.display().to_string());
                }
            }
        }
    }
    // Only names of modules (a `super::` climb from a `mod tests` can
    // overshoot to a crate-root item's name).
    let modules: BTreeSet<String> = deps.keys().cloned().collect();
    for d in deps.values_mut() {
        d.retain(|m, _| modules.contains(m));
    }
    deps
}

/// A cycle of the dependency graph, as the modules along it (the first
/// repeated at the end), if there is one.
fn find_cycle(deps: &Deps) -> Option<Vec<String>> {
    // Depth-first, with the path of modules being visited.
    fn visit(m: &str, deps: &Deps, done: &mut BTreeSet<String>, path: &mut Vec<String>) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut cycle = path[at..].to_vec();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for next in deps.get(m).into_iter().flat_map(|d| d.keys()) {
            if let Some(c) = visit(next, deps, done, path) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    deps.keys().find_map(|m| visit(m, deps, &mut done, &mut Vec::new()))
}

/// The cycle said with the files that make each step of it.
fn describe(cycle: &[String], deps: &Deps) -> String {
    cycle
        .windows(2)
        .map(|w| format!("{} -> {} (in {:?})", w[0], w[1], deps[&w[0]][&w[1]]))
        .collect::<Vec<_>>()
        .join("; ")
}

fn src_of(krate: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(krate).join("src")
}

#[test]
fn the_checker_modules_import_one_another_without_a_cycle() {
    let deps = deps(&src_of("checker"));
    // The reading finds what is there (so an empty graph cannot pass).
    for (from, to) in [("engine", "explore"), ("graph", "event"), ("token", "event")] {
        assert!(
            deps.get(from).is_some_and(|d| d.contains_key(to)),
            "expected {from} -> {to} among {deps:?}"
        );
    }
    if let Some(cycle) = find_cycle(&deps) {
        panic!("import cycle among checker modules: {}", describe(&cycle, &deps));
    }
}

#[test]
fn what_the_shim_sends_and_the_scheduling_types_sit_below_the_engine() {
    // Issue 20, item 1: the operations the shim sends (`op`) know nothing
    // of what the graph records, and the scheduling types the engine, the
    // explorers, the progress model and the runtime share (`sched`) name
    // none of them.
    let deps = deps(&src_of("checker"));
    let names = |m: &str| -> BTreeSet<String> { deps.get(m).map(|d| d.keys().cloned().collect()).unwrap_or_default() };
    let op = names("op");
    let below_op: BTreeSet<String> = ["ids", "rlx_class", "scope", "space", "float"].map(String::from).into();
    assert!(op.is_subset(&below_op), "op names {op:?}");
    assert!(
        names("event").contains("op"),
        "event re-exports op: {:?}",
        names("event")
    );
    let sched = names("sched");
    for upper in ["engine", "explore", "progress", "driver", "graph", "event"] {
        assert!(!sched.contains(upper), "sched names {upper}: {sched:?}");
    }
    assert!(sched.contains("op") && sched.contains("failure"), "{sched:?}");
    for user in ["engine", "explore", "progress", "driver"] {
        assert!(
            names(user).contains("sched"),
            "{user} takes its scheduling types from sched"
        );
    }
}

#[test]
fn the_shim_modules_import_one_another_without_a_cycle() {
    // The runtime (`rt/`) is the shim's bottom layer: the front ends
    // (`thread`, `gpu`, `lazy_static`, the atomics) call into it and it
    // calls into none of them (what it keeps per execution for them, the
    // thread registry and the recorded outcomes, sits inside it).
    let deps = deps(&src_of("instrument"));
    for (from, to) in [("drfrlx", "typed"), ("thread", "rt"), ("gpu", "rt"), ("sync", "rt")] {
        assert!(
            deps.get(from).is_some_and(|d| d.contains_key(to)),
            "expected {from} -> {to} among {deps:?}"
        );
    }
    if let Some(cycle) = find_cycle(&deps) {
        panic!("import cycle among the shim's modules: {}", describe(&cycle, &deps));
    }
}

#[test]
fn a_cycle_is_found_and_named() {
    // The finder itself, on lines as they appear in sources.
    let path = |p: &str| p.split('/').map(String::from).collect::<Vec<_>>();
    assert_eq!(
        named_modules("use crate::event::{EventId, Op};", &path("sched")),
        ["event"]
    );
    assert_eq!(
        named_modules("use crate::{token, engine::Stop, x::{a, b}};", &path("engine")),
        ["token", "engine", "x"]
    );
    assert_eq!(
        named_modules("    let r = crate::progress::f($crate::atomic::g());", &path("a")),
        ["progress", "atomic"]
    );
    assert_eq!(
        named_modules("use super::{Engine, Stop};", &path("engine/ops")),
        ["engine"]
    );
    assert_eq!(
        named_modules("use super::super::graph::X;", &path("engine/ops")),
        ["graph"]
    );
    assert!(named_modules("use my_crate::thing;", &path("a")).is_empty());
    let mut deps = Deps::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        deps.entry(a.into())
            .or_default()
            .entry(b.into())
            .or_default()
            .insert(format!("{a}.rs"));
    }
    let cycle = find_cycle(&deps).expect("a -> b -> c -> a");
    assert_eq!(cycle, ["a", "b", "c", "a"]);
    assert!(describe(&cycle, &deps).contains("c -> a (in {\"c.rs\"})"));
    deps.get_mut("c").unwrap().remove("a");
    assert_eq!(find_cycle(&deps), None);
}
