//! herd's `filter P` before a condition: executions whose final state does
//! not satisfy `P` are dropped, so the condition is judged, and the states
//! listed and counted, over the others only.
//!
//! The test runs once with the condition's proposition joined with the
//! filter (`exists (F /\ P)`, `~exists (F /\ P)`, `forall (~F \/ P)`): the
//! witness the run keeps then satisfies the filter, and every strategy and
//! model path (the explorer, the po ∪ rf-cyclic enumerations) needs nothing
//! of its own. The result is then cut down to the filtered states and its
//! positive and negative counts recounted from them with the condition as
//! written.

use super::ast::{Prop, Quantifier, Test};
use super::interp::holds;
use super::run::{check_test, Options, TestError, TestResult};

/// Checks `test`, whose condition has the filter `filter`.
pub(super) fn check_filtered(file: &str, test: &Test, filter: &Prop, opts: &Options) -> Result<TestResult, TestError> {
    let original = test.condition.clone().expect("a filter comes with a condition");
    let mut joined = test.clone();
    let c = joined.condition.as_mut().expect("a filter comes with a condition");
    c.filter = None;
    c.prop = match c.quantifier {
        Quantifier::Exists | Quantifier::NotExists => Prop::And(vec![filter.clone(), c.prop.clone()]),
        Quantifier::Forall => Prop::Or(vec![Prop::Not(Box::new(filter.clone())), c.prop.clone()]),
    };
    let mut r = check_test(file, &joined, opts)?;
    r.states.retain(|state, _| holds(filter, state));
    let (mut positive, mut negative) = (0, 0);
    for (state, n) in &r.states {
        if holds(&original.prop, state) {
            positive += n;
        } else {
            negative += n;
        }
    }
    r.positive = positive;
    r.negative = negative;
    r.condition = Some(original);
    Ok(r)
}
