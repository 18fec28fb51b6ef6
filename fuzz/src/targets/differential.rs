//! `differential`: the optimal explorer against the reference enumerator
//! (every interleaving and choice, judged by the axioms) on a generated
//! program: the same final states, the same number of distinct complete
//! executions, the same races. The reference gets a time limit (it tries
//! every interleaving, and a few programs have hundreds of thousands); a
//! program it cannot finish in time is skipped.

use crate::program::{Program, Shape};
use crate::run::{missing, outcomes, race_lines, run, run_for};
use arbitrary::Unstructured;
use scopecheck::{MemoryModel, Strategy};
use std::time::Duration;

/// Runs the target on `data`.
pub fn check(data: &[u8]) {
    if let Some((model, p)) = input(data) {
        compare(&p.to_string(), model);
    }
}

/// The model and the program `data` stands for (`None` when the bytes run
/// out before a program is drawn).
pub fn input(data: &[u8]) -> Option<(MemoryModel, Program)> {
    let mut u = Unstructured::new(data);
    let &model = u
        .choose(&[MemoryModel::Rc11, MemoryModel::Sc, MemoryModel::Src11])
        .ok()?;
    let p = Program::generate(&mut u, &Shape::differential()).ok()?;
    Some((model, p))
}

/// How long the reference enumerator may run on one program.
pub const REFERENCE_LIMIT: Duration = Duration::from_millis(500);

/// Compares both explorers on the litmus text `src` under `model`; `false`
/// when the reference did not finish within [`REFERENCE_LIMIT`].
pub fn compare(src: &str, model: MemoryModel) -> bool {
    let opt = run(src, model, Strategy::Exhaustive);
    let reference = run_for(src, model, Strategy::Reference, Some(REFERENCE_LIMIT));
    if !reference.complete {
        return false;
    }
    let (a, b) = (outcomes(&opt), outcomes(&reference));
    assert!(
        a == b,
        "final states differ under {model:?}\nonly optimal:\n{}only reference:\n{}{src}",
        missing(&a, &b),
        missing(&b, &a)
    );
    assert_eq!(
        opt.executions, reference.executions,
        "execution counts differ under {model:?} (optimal, reference)\n{src}"
    );
    // The reference's racy-execution count counts interleavings, not
    // distinct executions; the verdict and the racing pairs are comparable.
    assert_eq!(
        opt.race_free(),
        reference.race_free(),
        "race verdicts differ under {model:?} (optimal, reference)\n{src}"
    );
    assert_eq!(
        race_lines(&opt),
        race_lines(&reference),
        "races differ under {model:?} (optimal, reference)\n{src}"
    );
    true
}
