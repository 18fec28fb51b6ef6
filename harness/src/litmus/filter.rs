//! herd's `filter P` before a condition: an execution whose final state
//! fails `P` is dropped, as herd and Dat3M drop it. It adds no final state,
//! no positive or negative count, no witness, no race and no racy or
//! consistent execution; the condition is judged over the others only.
//!
//! One mechanism on every path: the explorer's per-execution callback
//! (`run.rs`) asks [`Filter::keeps`] once the final state is known (after
//! the model's own verdict, so an inconsistent execution stays a rejected
//! one) and drops a failing execution through the runtime
//! (`rt::drop_execution`: it ends as blocked, and the races the engine
//! would log at its end are never logged); the po ∪ rf-cyclic enumerations
//! (`cyclic.rs`) skip it when they build the result. Both say how many
//! were dropped ([`Filter::note`]) and leave them out of the blocked count.

use super::ast::{Prop, Test};
use super::interp::{holds, FinalState};

/// The test's filter, if it has one.
#[derive(Clone, Copy)]
pub(crate) struct Filter<'a>(Option<&'a Prop>);

impl<'a> Filter<'a> {
    /// The filter of `test`'s condition (none: every execution is kept).
    pub(crate) fn of(test: &'a Test) -> Filter<'a> {
        Filter(test.condition.as_ref().and_then(|c| c.filter.as_ref()))
    }

    /// Whether an execution with final state `state` is kept.
    pub(crate) fn keeps(&self, state: &FinalState) -> bool {
        self.0.is_none_or(|f| holds(f, state))
    }

    /// The note saying how many consistent executions the filter dropped.
    pub(crate) fn note(&self, dropped: u64) -> Option<String> {
        (self.0.is_some() && dropped > 0).then(|| {
            format!(
                "{dropped} consistent execution{} dropped by the filter (herd's `filter`): counted as neither \
                 executions nor blocked, with no state and no race",
                if dropped == 1 { "" } else { "s" }
            )
        })
    }
}
