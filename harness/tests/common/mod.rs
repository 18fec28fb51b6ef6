//! Helpers shared by the integration tests.
#![allow(dead_code)]

use scopecheck::gpu::Space;
use scopecheck::{Builder, Failure, FailureKind, MemoryModel, Report, Strategy};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt::{Debug, Display};
use std::rc::Rc;

/// Runs `body` under `builder`, giving it a function that records one
/// outcome per execution; returns the set of outcomes and the report.
pub fn outcomes<T, F>(builder: &Builder, body: F) -> (BTreeSet<T>, Report)
where
    T: Ord + Clone + Debug + 'static,
    F: Fn(&dyn Fn(T)),
{
    let seen: Rc<RefCell<BTreeSet<T>>> = Rc::new(RefCell::new(BTreeSet::new()));
    let s2 = seen.clone();
    let report = builder.explore(move || {
        let rec = |v: T| {
            s2.borrow_mut().insert(v);
        };
        body(&rec);
    });
    let set = seen.borrow().clone();
    (set, report)
}

/// A builder for `model` with `strategy`.
pub fn builder(model: MemoryModel, strategy: Strategy) -> Builder {
    let mut b = Builder::new();
    b.model = model;
    b.strategy = strategy;
    b
}

/// Explores `body` with the optimal explorer and with the reference
/// enumerator under `model`; asserts both find the same outcomes, the same
/// number of executions and no failure; returns (outcomes, executions).
pub fn both<T, F>(model: MemoryModel, body: F) -> (BTreeSet<T>, u64)
where
    T: Ord + Clone + Debug + 'static,
    F: Fn(&dyn Fn(T)) + Clone,
{
    let (o1, r1) = outcomes(&builder(model, Strategy::Exhaustive), body.clone());
    let (o2, r2) = outcomes(&builder(model, Strategy::Reference), body);
    assert!(r1.failures().is_empty(), "exhaustive failed: {r1}");
    assert!(r2.failures().is_empty(), "reference failed: {r2}");
    assert!(r1.is_complete() && r2.is_complete());
    assert_eq!(
        o1, o2,
        "outcome sets differ between exhaustive and reference under {model:?}"
    );
    assert_eq!(
        r1.executions(),
        r2.executions(),
        "execution counts differ between exhaustive and reference under {model:?}"
    );
    (o1, r1.executions())
}

/// The one failure `r` found: asserts that there is exactly one and that
/// it is a `kind`, showing the report when not.
#[track_caller]
pub fn the_failure(r: &Report, kind: FailureKind) -> &Failure {
    one_failure(r.failures(), kind, r)
}

/// [`the_failure`] for reports that keep their failures in a list of their
/// own (DRFrlx, litmus); `shown` is printed, after the failures found, when
/// the assertion fails.
#[track_caller]
pub fn one_failure<'a>(failures: &'a [Failure], kind: FailureKind, shown: &dyn Display) -> &'a Failure {
    match failures {
        [f] => {
            assert_eq!(
                f.kind(),
                kind,
                "expected one {kind:?} failure, found a {:?} failure: {}\n{shown}",
                f.kind(),
                f.message()
            );
            f
        }
        _ => {
            let found: Vec<String> = failures
                .iter()
                .map(|f| format!("{:?}: {}", f.kind(), f.message()))
                .collect();
            panic!(
                "expected exactly one failure, a {kind:?}, found {}: {found:#?}\n{shown}",
                failures.len()
            )
        }
    }
}

/// The memory space of the location a race report names, and the
/// descriptions of its two events.
pub fn race_space(f: &Failure) -> (Space, Vec<String>) {
    assert_eq!(f.events().len(), 2, "{}", f.message());
    let loc = f
        .graph()
        .event(f.events()[0].id)
        .loc()
        .expect("a race is on a location");
    (
        f.graph().space_of(loc),
        f.events().iter().map(|e| e.what.clone()).collect(),
    )
}

/// Where `needle` stands in a test file, as reports name source positions:
/// `{file}:{line}:{column}`, the column that of the needle's first
/// character, or of the character after a `^` in it (`"x.^load()"` is the
/// column of `load`, which is where a method call's position points).
/// `src` is the file's `include_str!`, `file` its `file!()`. The needle
/// must stand on exactly one line, not counting lines where it follows a
/// `"` (where a test names it, as in the call of this function).
pub fn position(file: &str, src: &str, needle: &str) -> String {
    let (before, after) = needle.split_once('^').unwrap_or(("", needle));
    let text = format!("{before}{after}");
    let hits: Vec<String> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.contains(&format!("\"{text}")))
        .filter_map(|(i, l)| {
            l.find(&text)
                .map(|c| format!("{file}:{}:{}", i + 1, c + before.len() + 1))
        })
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "{needle:?} stands on exactly one line of {file}: {hits:?}"
    );
    hits[0].clone()
}

/// Runs `f` on its own OS thread and returns its value, or panics if it
/// takes longer than `guard`: only a guard against a run that never stops
/// (the bounds under test are far shorter), never a timing assertion.
pub fn within<T: Send + 'static>(guard: std::time::Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(guard)
        .unwrap_or_else(|_| panic!("the run did not stop within {guard:?}: its bound was not honoured"))
}

/// A tiny deterministic generator (xorshift64*): every generated case is
/// reproducible from its seed.
pub struct Gen(pub u64);

impl Gen {
    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Packages cargo downloaded: where they are, and scratch copies.
pub mod litmus_rows;
pub mod registry;
