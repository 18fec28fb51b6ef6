//! Every corpus test parses, and details of a few corpus trees.

use super::*;

fn corpus_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/litmus"))
}

/// The `.litmus` files of one corpus folder, sorted, with their text.
fn litmus_files(dir: &str) -> Vec<(PathBuf, String)> {
    let dir = corpus_root().join(dir);
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries
        .map(|e| e.expect("corpus entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, text)
        })
        .collect()
}

/// Every corpus file the parser must accept.
pub(crate) fn all_corpus() -> Vec<(PathBuf, String)> {
    let mut v = litmus_files("public/c11");
    v.extend(litmus_files("public/opencl"));
    v.extend(litmus_files("families"));
    v
}

fn parse_ok(path: &str, src: &str) -> Test {
    parse(src).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn public_corpus_parses() {
    for (dir, arch, count) in [("public/c11", Arch::C, 22), ("public/opencl", Arch::OpenCl, 20)] {
        let files = litmus_files(dir);
        assert_eq!(files.len(), count, "{dir}: tests under {}", corpus_root().display());
        for (path, src) in files {
            let t = parse_ok(&path.display().to_string(), &src);
            assert_eq!(t.arch, arch, "{}", path.display());
            assert!(!t.name.is_empty());
            assert!(!t.threads.is_empty());
            assert!(t.condition.is_some(), "{}", path.display());
            for (i, th) in t.threads.iter().enumerate() {
                assert_eq!(th.index as usize, i, "{}", path.display());
                assert!(!th.params.is_empty());
                assert_eq!(th.placement.is_empty(), arch == Arch::C, "{}", path.display());
            }
        }
    }
}

#[test]
fn families_parse() {
    let files = litmus_files("families");
    assert_eq!(files.len(), 44);
    for (path, src) in files {
        let t = parse_ok(&path.display().to_string(), &src);
        assert_eq!(t.arch, Arch::C);
        assert!(t.condition.is_some());
    }
}

fn read_public(rel: &str) -> Test {
    let path = corpus_root().join("public").join(rel);
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_ok(rel, &src)
}

#[test]
fn corpus_details() {
    // A release failure order (accepted in OPENCL tests), a scope, an `if` with an empty then-block.
    let t = read_public("opencl/CT_wsq2.litmus");
    assert_eq!(t.name, "CT_wsq2");
    let StmtKind::Decl { init: Some(e), .. } = &t.threads[0].body[1].kind else {
        panic!("{:?}", t.threads[0].body[1])
    };
    let ExprKind::Atomic(c) = &e.kind else { panic!("{e:?}") };
    assert_eq!(c.op, AtomicOp::CasStrong);
    assert_eq!(
        (c.order, c.failure, c.scope),
        (Order::Release, Some(Order::Release), Some(Scope::Device))
    );
    let StmtKind::If { then, els, .. } = &t.threads[0].body[2].kind else {
        panic!()
    };
    assert!(then.is_empty());
    assert_eq!(els.len(), 1);
    assert_eq!(t.threads[1].params[2].ty.space, None);

    // Labelled barriers.
    let t = read_public("opencl/global_barrier.litmus");
    assert_eq!(t.threads.len(), 6);
    assert_eq!(
        t.threads[0].body[0].kind,
        StmtKind::Barrier {
            label: Some("B1".into()),
            flags: vec![MemFlag::Global],
            scope: None
        }
    );
    assert_eq!(t.threads[0].placement, vec![(Level::Block, 0), (Level::Device, 0)]);
    assert_eq!(t.threads[4].placement, vec![(Level::Block, 2), (Level::Device, 0)]);

    // Header names are the rest of the line.
    let t = read_public("opencl/3.2W.litmus");
    assert_eq!(
        t.name,
        "3.2W_xaG_yaG_zaG_sc--sc_rel[wg]-LFsc-rel_rel-GFrel[dev]-acq[wg]_0||1|2"
    );

    // `while (...) {}` with a compare-exchange through a pointer parameter.
    let t = read_public("c11/TSan.litmus");
    let StmtKind::While { cond, body } = &t.threads[1].body[1].kind else {
        panic!()
    };
    assert!(body.is_empty());
    let ExprKind::Binary(cas, rest) = &cond.kind else {
        panic!("{cond:?}")
    };
    let [(BinOp::Eq, zero)] = &rest[..] else {
        panic!("{cond:?}")
    };
    assert_eq!(zero.kind, ExprKind::Int(0));
    let ExprKind::Atomic(c) = &cas.kind else { panic!() };
    assert_eq!(c.args[0].kind, ExprKind::Var("y".into()));
    assert_eq!(c.args[1].kind, ExprKind::Deref(Box::new(var("y", 12, 56))));

    // Arrays and address arithmetic.
    let t = read_public("c11/imm-E3.5.litmus");
    assert_eq!(
        t.init[0].target,
        InitTarget::Array {
            name: "y".into(),
            len: 2
        }
    );
    assert_eq!(t.init[0].value, InitValue::List(vec![0, 0]));
}
