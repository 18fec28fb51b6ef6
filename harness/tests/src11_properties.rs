//! Two theorems of `src11` (docs/semantics.md §4, `docs/opencl-model.md` section
//! 10), checked on the litmus corpus the foundation tests use
//! (`corpus/litmus/families`, the shared C11 corpus `public/c11`, and the
//! scoped `extensions`):
//!
//! (a) with every scope at system, `src11` is `rc11`: the same final states
//!     with the same number of executions each, the same number of
//!     executions (complete, blocked and racy), the same verdict, on every
//!     test, whatever the threads' placements;
//! (b) narrowing a scope never removes an outcome: a narrower scope only
//!     takes synchronization (sw edges, release-sequence links, psc pairs)
//!     away, so every execution consistent before stays consistent. Every
//!     variant that narrows one operation's scope is compared with the test
//!     it came from.
//!
//! The litmus runner records races and keeps going (herd's treatment), so
//! racy executions count their final states too: a narrowing that makes a
//! program racy still has to keep every outcome.

use scopecheck::litmus::ast::{Arch, Expr, ExprKind, Level, Scope, StateVar, Stmt, StmtKind, Test, Value};
use scopecheck::litmus::FinalState;
use scopecheck::litmus::{check_test, parse, LitmusModel, Options, TestResult};
use scopecheck::MemoryModel;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus")
}

/// The C litmus files of a corpus folder, sorted, parsed.
fn tests_in(dir: &str) -> Vec<(String, Test)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus().join(dir))
        .unwrap_or_else(|e| panic!("corpus folder {dir}: {e}"))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let src = std::fs::read_to_string(&p).expect("litmus file reads");
            let test = parse(&src).unwrap_or_else(|e| panic!("{}: {e:?}", p.display()));
            (format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()), test)
        })
        .filter(|(_, t)| t.arch == Arch::C)
        .collect()
}

fn all_tests() -> Vec<(String, Test)> {
    let mut v = tests_in("families");
    v.extend(tests_in("public/c11"));
    v.extend(tests_in("extensions"));
    v
}

/// Visits every scope slot of the program (each atomic call and each fence,
/// in source order), letting `f` rewrite it; `f` gets the slot's index.
fn map_scopes(test: &mut Test, f: &mut dyn FnMut(usize, Option<Scope>) -> Option<Scope>) -> usize {
    fn expr(e: &mut Expr, n: &mut usize, f: &mut dyn FnMut(usize, Option<Scope>) -> Option<Scope>) {
        match &mut e.kind {
            ExprKind::Int(_) | ExprKind::Var(_) | ExprKind::AddrOf(_) => {}
            ExprKind::Deref(a) | ExprKind::Unary(_, a) => expr(a, n, f),
            ExprKind::Index(a, b) => {
                expr(a, n, f);
                expr(b, n, f);
            }
            ExprKind::Binary(a, rest) => {
                expr(a, n, f);
                for (_, b) in rest {
                    expr(b, n, f);
                }
            }
            ExprKind::Atomic(c) => {
                expr(&mut c.addr, n, f);
                for a in &mut c.args {
                    expr(a, n, f);
                }
                c.scope = f(*n, c.scope);
                *n += 1;
            }
        }
    }
    fn stmts(s: &mut [Stmt], n: &mut usize, f: &mut dyn FnMut(usize, Option<Scope>) -> Option<Scope>) {
        for s in s {
            match &mut s.kind {
                StmtKind::Decl { init, .. } => {
                    if let Some(e) = init {
                        expr(e, n, f)
                    }
                }
                StmtKind::AssignReg { value, .. } => expr(value, n, f),
                StmtKind::Store { addr, value } => {
                    expr(addr, n, f);
                    expr(value, n, f);
                }
                StmtKind::Expr(e) => expr(e, n, f),
                StmtKind::If { cond, then, els } => {
                    expr(cond, n, f);
                    stmts(then, n, f);
                    stmts(els, n, f);
                }
                StmtKind::While { cond, body } => {
                    expr(cond, n, f);
                    stmts(body, n, f);
                }
                StmtKind::Fence { scope, .. } => {
                    *scope = f(*n, *scope);
                    *n += 1;
                }
                StmtKind::Barrier { .. } => {}
                StmtKind::Block(b) => stmts(b, n, f),
            }
        }
    }
    let mut n = 0;
    for t in &mut test.threads {
        stmts(&mut t.body, &mut n, f);
    }
    n
}

/// What a run found that the theorems speak about.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    /// Each final state, with the number of executions ending in it.
    states: BTreeMap<FinalState, u64>,
    executions: u64,
    blocked: u64,
    racy_executions: u64,
    verdict: Option<bool>,
}

fn run(name: &str, test: &Test, model: MemoryModel) -> Seen {
    let opts = Options {
        model: Some(LitmusModel::Engine(model)),
        ..Options::default()
    };
    let r: TestResult = check_test(name, test, &opts).unwrap_or_else(|e| panic!("{name} under {model:?}: {e:?}"));
    assert!(r.complete, "{name} under {model:?}: incomplete");
    assert!(r.failures.is_empty(), "{name} under {model:?}: {:?}", r.failures);
    Seen {
        verdict: r.verdict(),
        states: r.states,
        executions: r.executions,
        blocked: r.blocked,
        racy_executions: r.racy_executions,
    }
}

/// The scope every operation gets when it names none.
fn system(_: usize, _: Option<Scope>) -> Option<Scope> {
    Some(Scope::System)
}

/// Places thread i on device 0 in block i / 2, warp i (so pairs of threads
/// share a block and nothing narrower).
fn place_in_pairs(test: &mut Test) {
    for t in &mut test.threads {
        t.placement = vec![(Level::Device, 0), (Level::Block, t.index / 2), (Level::Warp, t.index)];
    }
}

#[test]
fn src11_at_system_scope_is_rc11() {
    let tests = all_tests();
    for (name, test) in &tests {
        // As written (extensions keep their placements), every scope at system;
        // and the same placed on a GPU in pairs.
        let mut at_system = test.clone();
        map_scopes(&mut at_system, &mut system);
        let mut placed = at_system.clone();
        place_in_pairs(&mut placed);
        for (how, t) in [("as placed", &at_system), ("in GPU pairs", &placed)] {
            let rc11 = run(name, t, MemoryModel::Rc11);
            let src11 = run(name, t, MemoryModel::Src11);
            assert_eq!(src11, rc11, "{name} ({how}): src11 at system scope differs from rc11");
        }
    }
    // Every family (13 shapes in their variants), the shared C11 corpus and
    // the extensions, each in two placements: a test that went missing
    // would make this test weaker unnoticed.
    let in_dir = |dir: &str| tests.iter().filter(|(n, _)| n.starts_with(dir)).count();
    assert_eq!(
        [in_dir("families/"), in_dir("public/c11/"), in_dir("extensions/")],
        [44, 22, 6],
        "C litmus tests per corpus folder"
    );
}

/// Counts of the narrowing experiment.
#[derive(Default, Debug)]
struct Narrowing {
    bases: usize,
    variants: usize,
    gained: usize,
}

fn narrow_each(name: &str, base: &Test, counts: &mut Narrowing) {
    let before = run(name, base, MemoryModel::Src11);
    counts.bases += 1;
    let mut slots = Vec::new();
    map_scopes(&mut base.clone(), &mut |_, s| {
        slots.push(s.unwrap_or(Scope::System));
        s
    });
    for (k, &current) in slots.iter().enumerate() {
        for narrower in [Scope::Thread, Scope::Warp, Scope::Block, Scope::Device] {
            if narrower >= current {
                continue;
            }
            let mut variant = base.clone();
            map_scopes(&mut variant, &mut |i, s| if i == k { Some(narrower) } else { s });
            let after = run(name, &variant, MemoryModel::Src11);
            let lost: Vec<_> = before.states.keys().filter(|s| !after.states.contains_key(s)).collect();
            assert!(
                lost.is_empty(),
                "{name}: narrowing scope slot {k} from {current:?} to {narrower:?} removed outcomes {lost:?}"
            );
            counts.variants += 1;
            if after.states.len() > before.states.len() {
                counts.gained += 1;
            }
        }
    }
}

#[test]
fn narrowing_a_scope_never_removes_an_outcome() {
    let mut counts = Narrowing::default();
    for (name, test) in all_tests() {
        if name.starts_with("extensions/") {
            // Already scoped and placed: narrow from the scopes as written.
            narrow_each(&name, &test, &mut counts);
        } else {
            let mut base = test.clone();
            map_scopes(&mut base, &mut system);
            place_in_pairs(&mut base);
            narrow_each(&name, &base, &mut counts);
        }
    }
    println!(
        "src11 narrowing: {} base tests, {} one-scope-narrower variants, {} gained outcomes, none lost",
        counts.bases, counts.variants, counts.gained
    );
    assert!(counts.variants > 0 && counts.gained > 0, "{counts:?}");
    assert!(counts.gained < counts.variants, "{counts:?}");
}

/// One narrowing spelled out: MP with release/acquire, the writer and the
/// reader in different blocks. At system scope the weak outcome (flag seen,
/// data not) is forbidden; with the release store narrowed to block scope it
/// does not reach the reader, and the weak outcome appears. Outcomes are
/// (1:r0, 1:r1).
#[test]
fn narrowing_mp_release_to_block_across_blocks_adds_exactly_the_weak_outcome() {
    let src = "C MP\n{ [x] = 0; [y] = 0; }\n\
        P0@block 0, device 0 (atomic_int* x, atomic_int* y) {\n\
          atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_system);\n\
          atomic_store_explicit(y, 1, memory_order_release, memory_scope_system);\n\
        }\n\
        P1@block 1, device 0 (atomic_int* x, atomic_int* y) {\n\
          int r0 = atomic_load_explicit(y, memory_order_acquire, memory_scope_system);\n\
          int r1 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_system);\n\
        }\n\
        exists (1:r0=1 /\\ 1:r1=0)\n";
    let base = parse(src).expect("parses");
    let regs = |s: &Seen| -> BTreeSet<(i64, i64)> {
        s.states
            .keys()
            .map(|st| {
                let reg = |r: &str| match st.get(&StateVar::Reg {
                    thread: 1,
                    reg: r.into(),
                }) {
                    Some(Value::Int(v)) => *v,
                    other => panic!("1:{r} = {other:?}"),
                };
                (reg("r0"), reg("r1"))
            })
            .collect()
    };
    let before = run("MP", &base, MemoryModel::Src11);
    let mut narrowed = base.clone();
    // Slot 1 is the release store.
    map_scopes(&mut narrowed, &mut |i, s| if i == 1 { Some(Scope::Block) } else { s });
    let after = run("MP", &narrowed, MemoryModel::Src11);
    assert_eq!(regs(&before), [(0, 0), (0, 1), (1, 1)].into_iter().collect());
    assert_eq!(regs(&after), [(0, 0), (0, 1), (1, 0), (1, 1)].into_iter().collect());
    // Executions: y's load reads 0 or 1; x's load then reads 0 or 1, except
    // that at system scope the acquire of y=1 forbids x=0.
    assert_eq!((before.executions, after.executions), (3, 4));
    // Narrowed, the release store of y and the acquire load of y no longer
    // include each other's thread: a heterogeneous race (x stays atomic at
    // system scope, so it is the only one).
    assert!(before.racy_executions == 0 && after.racy_executions > 0);
}
