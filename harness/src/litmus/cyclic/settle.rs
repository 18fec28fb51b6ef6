//! Whether a final state *settles* the test's condition: once the
//! executions found include one, the condition's answer is proven whatever
//! the executions not found would add (an `exists` or `~exists` state that
//! satisfies the condition, a `forall` state that does not, among the
//! states herd's `filter` keeps).
//!
//! A run that cannot be complete anyway (gpu_free.rs: more consistent
//! executions than the run keeps, or a sample of one graph's free reads)
//! stops once such a state and a race are found; the free reads' search
//! for a settling way asks the same question of a state some of whose
//! registers are not known yet ([`Settle::partial`], three-valued).

use super::super::ast::{Prop, Quantifier, StateVar, Test, Value};
use super::super::filter::Filter;
use super::super::interp::{holds, FinalState};
use std::cell::Cell;

/// The test's condition and filter, asked per state.
pub(crate) struct Settle<'a> {
    /// The condition's proposition and quantifier; `None`: no condition.
    cond: Option<(&'a Prop, Quantifier)>,
    /// herd's `filter`.
    filter: Filter<'a>,
    /// The filter's proposition, for the three-valued question.
    filter_prop: Option<&'a Prop>,
    /// Set once an execution found settles the condition: nothing is
    /// sought any more.
    settled: Cell<bool>,
}

impl<'a> Settle<'a> {
    /// The question for `test`.
    pub(crate) fn of(test: &'a Test) -> Settle<'a> {
        Settle {
            cond: test.condition.as_ref().map(|c| (&c.prop, c.quantifier)),
            filter: Filter::of(test),
            filter_prop: test.condition.as_ref().and_then(|c| c.filter.as_ref()),
            settled: Cell::new(false),
        }
    }

    /// Whether the test has a condition to settle (without one, nothing
    /// needs proving but the races).
    pub(crate) fn has_condition(&self) -> bool {
        self.cond.is_some()
    }

    /// Whether an execution with final state `state` proves the
    /// condition's answer.
    pub(crate) fn full(&self, state: &FinalState) -> bool {
        let Some((prop, q)) = self.cond else { return false };
        self.filter.keeps(state) && wanted(q, holds(prop, state))
    }

    /// Records that an execution found settles the condition.
    pub(crate) fn found(&self) {
        self.settled.set(true);
    }

    /// [`Settle::full`] for a state known only in part: `get` gives a
    /// variable's value (`Ok(None)`: not in the state) or `Err(())` when it
    /// is not known yet. `Some(answer)` when every completion agrees.
    pub(crate) fn partial(&self, get: &dyn Fn(&StateVar) -> Result<Option<Value>, ()>) -> Option<bool> {
        let Some((prop, q)) = self.cond else { return Some(false) };
        if self.settled.get() {
            // Proven already: nothing to seek.
            return Some(false);
        }
        let kept = match self.filter_prop {
            Some(f) => eval3(f, get),
            None => Some(true),
        };
        let settles = eval3(prop, get).map(|h| wanted(q, h));
        match (kept, settles) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        }
    }
}

/// Whether a state where the condition's proposition `holds` proves the
/// answer under quantifier `q`.
fn wanted(q: Quantifier, holds: bool) -> bool {
    match q {
        Quantifier::Exists | Quantifier::NotExists => holds,
        Quantifier::Forall => !holds,
    }
}

/// `holds` in Kleene's three-valued logic: `None` when the unknown
/// variables decide it. Sound: a `Some` answer is the answer of every
/// completion of the state.
fn eval3(p: &Prop, get: &dyn Fn(&StateVar) -> Result<Option<Value>, ()>) -> Option<bool> {
    match p {
        Prop::True => Some(true),
        Prop::False => Some(false),
        Prop::Eq(v, x) => get(v).ok().map(|got| got.as_ref() == Some(x)),
        Prop::Ne(v, x) => get(v).ok().map(|got| got.as_ref() != Some(x)),
        Prop::Same(a, b) => match (get(a), get(b)) {
            (Ok(a), Ok(b)) => Some(a == b),
            _ => None,
        },
        Prop::Not(a) => eval3(a, get).map(|h| !h),
        Prop::And(all) => {
            let mut known = true;
            for a in all {
                match eval3(a, get) {
                    Some(false) => return Some(false),
                    Some(true) => {}
                    None => known = false,
                }
            }
            known.then_some(true)
        }
        Prop::Or(all) => {
            let mut known = true;
            for a in all {
                match eval3(a, get) {
                    Some(true) => return Some(true),
                    Some(false) => {}
                    None => known = false,
                }
            }
            known.then_some(false)
        }
    }
}
