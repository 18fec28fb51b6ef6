//! The whole litmus corpus (`corpus/litmus/`) against its expectation file,
//! and the optimal explorer against the reference enumerator on it.

use scopecheck::litmus::ast::{Expr, ExprKind, Stmt, StmtKind};
use scopecheck::litmus::expect::{self, Expectation, Verdict};
use scopecheck::litmus::{check_file, LitmusModel, Options, TestError};
use scopecheck::Strategy;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus")
}

fn rows() -> Vec<Expectation> {
    expect::load(&corpus().join("expected.tsv")).expect("corpus expectation file loads")
}

fn opts(model: LitmusModel, strategy: Strategy) -> Options {
    Options {
        model: Some(model),
        strategy,
        ..Options::default()
    }
}

/// Every row of the corpus's expectation file: agreements agree, and each
/// accepted ("known:") disagreement still disagrees, so a stale note fails.
#[test]
fn corpus_matches_expectations() {
    let rows = rows();
    assert_eq!(rows.len(), 155, "rows of the corpus's expectation file");
    let mut problems = Vec::new();
    // (agreeing rows, accepted disagreements, rows without a recorded answer)
    let mut tally = (0, 0, 0);
    for row in &rows {
        let model = row.model;
        let outcome = check_file(&row.path, &opts(model, Strategy::Exhaustive));
        let verdict = expect::compare(row, &outcome);
        match (&verdict, row.known()) {
            (Verdict::Agrees, None) => tally.0 += 1,
            (Verdict::Disagrees(_), Some(_)) => tally.1 += 1,
            (Verdict::Unrecorded, _) => tally.2 += 1,
            (Verdict::Agrees, Some(why)) => problems.push(format!(
                "{} [{}] (line {}): now agrees but is marked known ({why}); remove the note",
                row.path_text, row.model, row.line
            )),
            (Verdict::Disagrees(d), None) => problems.push(format!(
                "{} [{}] (line {}): {}",
                row.path_text,
                row.model,
                row.line,
                d.join("; ")
            )),
            // Exhaustive runs without a bound are never partial.
            (Verdict::NotCompared(why), _) => problems.push(format!(
                "{} [{}] (line {}): not compared: {why}",
                row.path_text, row.model, row.line
            )),
        }
    }
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // No accepted deviation is left: thinair's symbolic x=S8; y=S8; is
    // found by its instance x=42; y=42; (`expect::state_differences`), and
    // LB and CT_wsq2 get their po ∪ rf cycles. TSan has no recorded answer.
    assert_eq!(tally, (154, 0, 1));
}

/// Every corpus file is covered by the expectation file under some model.
#[test]
fn every_corpus_file_has_a_row() {
    let rows = rows();
    let have: BTreeSet<PathBuf> = rows.iter().map(|r| r.path.clone()).collect();
    let mut files = Vec::new();
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out)
            } else if p.extension().is_some_and(|x| x == "litmus") {
                out.push(std::fs::canonicalize(&p).unwrap());
            }
        }
    }
    walk(&corpus(), &mut files);
    let missing: Vec<_> = files.iter().filter(|f| !have.contains(*f)).collect();
    assert!(
        missing.is_empty(),
        "corpus files without an expectation row: {missing:?}"
    );
    assert_eq!(files.len(), 102, "litmus files in the corpus");
}

/// For race-free tests the optimal explorer and the reference enumerator
/// agree on the final states and the number of executions, and herd's
/// Positive + Negative is that number.
#[test]
fn optimal_agrees_with_reference_on_the_corpus() {
    let mut compared = 0;
    let mut skipped = Vec::new();
    for row in rows() {
        let model = row.model;
        if model == LitmusModel::OpenCl {
            // Cross-checked in litmus_opencl.rs (racy rows too).
            continue;
        }
        let a = match check_file(&row.path, &opts(model, Strategy::Exhaustive)) {
            Ok(a) => a,
            Err(TestError::Unsupported { .. }) => continue,
            Err(e) => panic!("{}", e.located(&row.path_text)),
        };
        // (Positive + Negative = executions is checked inside every run: a
        // mismatch is an internal error, so this test would see an Err.)
        assert!(a.failures.is_empty(), "{} [{model}]: {:?}", row.path_text, a.failures);
        if !a.race_free() {
            continue;
        }
        // The reference enumerator is exponential in the number of
        // accesses and threads: four threads with six accesses (the IRIW
        // shapes, example1, imm-E3.8) take seconds each, TSan's loops
        // minutes, so the cross-check covers at most six accesses in at
        // most three threads.
        let (sites, threads) = size(&row.path);
        if sites > 6 || threads > 3 {
            skipped.push(format!("{} ({sites} accesses, {threads} threads)", row.path_text));
            continue;
        }
        let b = check_file(&row.path, &opts(model, Strategy::Reference)).unwrap();
        assert_eq!(
            a.states.keys().collect::<Vec<_>>(),
            b.states.keys().collect::<Vec<_>>(),
            "final states differ between optimal and reference: {} [{model}]",
            row.path_text
        );
        assert_eq!(
            a.executions, b.executions,
            "execution counts differ between optimal and reference: {} [{model}]",
            row.path_text
        );
        compared += 1;
    }
    eprintln!(
        "not cross-checked with the reference enumerator: {}",
        skipped.join(", ")
    );
    assert_eq!(compared, 105, "tests cross-checked with the reference enumerator");
}

/// Memory accesses written in a test (atomic calls, plain loads and
/// stores), and its number of threads.
fn size(path: &Path) -> (usize, usize) {
    let t = scopecheck::litmus::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    fn expr(e: &Expr) -> usize {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Var(_) | ExprKind::AddrOf(_) => 0,
            ExprKind::Deref(a) => 1 + expr(a),
            ExprKind::Unary(_, a) => expr(a),
            ExprKind::Index(a, b) => 1 + expr(a) + expr(b),
            ExprKind::Binary(a, rest) => expr(a) + rest.iter().map(|(_, b)| expr(b)).sum::<usize>(),
            ExprKind::Atomic(c) => 1 + expr(&c.addr) + c.args.iter().map(expr).sum::<usize>(),
        }
    }
    fn stmts(b: &[Stmt]) -> usize {
        b.iter()
            .map(|s| match &s.kind {
                StmtKind::Decl { init, .. } => init.as_ref().map_or(0, expr),
                StmtKind::AssignReg { value, .. } | StmtKind::Expr(value) => expr(value),
                StmtKind::Store { addr, value } => 1 + expr(addr) + expr(value),
                StmtKind::If { cond, then, els } => expr(cond) + stmts(then) + stmts(els),
                // A loop runs up to the unroll bound: count its body twice.
                StmtKind::While { cond, body } => 2 * (expr(cond) + stmts(body)),
                StmtKind::Block(b) => stmts(b),
                StmtKind::Fence { .. } | StmtKind::Barrier { .. } => 0,
            })
            .sum()
    }
    (t.threads.iter().map(|th| stmts(&th.body)).sum(), t.threads.len())
}
