//! The combinations of quantum choices, generated one at a time.
//!
//! Each run of the quantum-equivalent program reports the choice points it
//! met; its children are every non-zero assignment of the points it left
//! free, a product of the domains' sizes (20 values at 6 points: 64
//! million). Building them all before the first one runs made the memory
//! grow with the product, not with the cap on how many are run; here each
//! run's children are an odometer over its free points, advanced only when
//! the next child is wanted, so memory grows with the depth of the search
//! (at most the number of choice points), whatever the product.

use scopecheck_instrument::drfrlx::ChoiceKey;
use std::collections::BTreeMap;

/// A script: the choice (an index into the domain) at each fixed key.
pub(super) type Script = BTreeMap<ChoiceKey, usize>;

/// The children of one run not generated yet.
struct Odometer {
    /// The run's script, which every child extends.
    base: Script,
    /// The free choice points and their domains' sizes (each above 1).
    free: Vec<(ChoiceKey, usize)>,
    /// The last child given (all zero: none yet, the run itself).
    digits: Vec<usize>,
    /// Children given so far.
    given: u128,
}

impl Odometer {
    /// The next non-zero assignment, or `None` once every one was given.
    fn next(&mut self) -> Option<Script> {
        let mut i = 0;
        while i < self.digits.len() {
            self.digits[i] += 1;
            if self.digits[i] < self.free[i].1 {
                break;
            }
            self.digits[i] = 0;
            i += 1;
        }
        if i == self.digits.len() {
            return None;
        }
        self.given += 1;
        let mut child = self.base.clone();
        for (d, (k, _)) in self.digits.iter().zip(&self.free) {
            child.insert(*k, *d);
        }
        Some(child)
    }

    /// Children not given yet (saturating: a product can exceed any integer).
    fn left(&self) -> u128 {
        let all = self.free.iter().fold(1u128, |p, &(_, n)| p.saturating_mul(n as u128));
        if all == u128::MAX {
            // Saturated: still more than any count.
            return all;
        }
        all - 1 - self.given
    }
}

/// The depth-first walk over scripts: the empty script first, then each
/// run's children as they are asked for.
pub(super) struct Combinations {
    first: Option<Script>,
    stack: Vec<Odometer>,
}

impl Combinations {
    /// The walk, starting from the empty script (every choice at index 0).
    pub(super) fn new() -> Combinations {
        Combinations {
            first: Some(Script::new()),
            stack: Vec::new(),
        }
    }

    /// The next script to run.
    pub(super) fn next(&mut self) -> Option<Script> {
        if let Some(s) = self.first.take() {
            return Some(s);
        }
        while let Some(top) = self.stack.last_mut() {
            if let Some(child) = top.next() {
                return Some(child);
            }
            self.stack.pop();
        }
        None
    }

    /// Records the choice points `free` that the run of `script` (the one
    /// [`Combinations::next`] gave last) left free: its children, generated
    /// from now on. Distinct scripts differ on some key, so no combination
    /// is given twice.
    pub(super) fn branch(&mut self, script: Script, free: Vec<(ChoiceKey, usize)>) {
        if free.is_empty() {
            return;
        }
        let digits = vec![0; free.len()];
        self.stack.push(Odometer {
            base: script,
            free,
            digits,
            given: 0,
        });
    }

    /// Combinations known but not given yet (their own children, unknown
    /// until they run, not included; saturating).
    pub(super) fn known_left(&self) -> u128 {
        self.stack.iter().fold(0u128, |s, o| s.saturating_add(o.left()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every assignment of a run's free points is given once, one at a time.
    #[test]
    fn children_are_every_non_zero_assignment_once() {
        let mut c = Combinations::new();
        let root = c.next().expect("the empty script");
        assert!(root.is_empty());
        c.branch(root, vec![((1, 0, 0), 3), ((2, 0, 0), 2)]);
        assert_eq!(c.known_left(), 5);
        let mut seen = Vec::new();
        while let Some(s) = c.next() {
            seen.push(s);
        }
        assert_eq!(seen.len(), 5);
        let distinct: std::collections::BTreeSet<_> = seen.iter().cloned().collect();
        assert_eq!(distinct.len(), 5);
        assert!(seen.iter().all(|s| s.values().any(|&d| d != 0)));
        assert_eq!(c.known_left(), 0);
    }

    /// A product far beyond memory is counted, not built.
    #[test]
    fn a_huge_product_is_counted_lazily() {
        let mut c = Combinations::new();
        let root = c.next().expect("the empty script");
        let free: Vec<(ChoiceKey, usize)> = (0..40).map(|i| ((1, i, 0), 21)).collect();
        c.branch(root, free);
        assert_eq!(c.known_left(), u128::MAX);
        for _ in 0..1000 {
            assert!(c.next().is_some());
        }
        assert_eq!(c.stack.len(), 1);
    }
}
