//! The validation's rf choices: every read given, in turn, every write of
//! the value it took, except the combinations in which two RMWs bound to
//! the write they read (gpu_orders.rs: each must follow it immediately in
//! mo) read one write. Those leave no order of the location's writes and
//! so no graph; in a spin loop, where every thread's RMWs read the same
//! few writes, they are most of the combinations, and skipping each
//! subtree of them as soon as its first conflicting pair is chosen is
//! what keeps the count down (a 3-thread CADP test: millions of rf
//! choices before).

use scopecheck_checker::event::EventId;

/// Reads with their candidate writes, as the validation lists them.
pub(super) type Reads = [(EventId, Vec<EventId>)];

/// The rf choice now: per read, the index of its write among its
/// candidates. The first read varies fastest (as an odometer would).
pub(super) struct RfChoices {
    pub(super) pick: Vec<usize>,
    /// Each read's first (read, candidate) number.
    offset: Vec<usize>,
    /// Whether two (read, candidate) numbers conflict, row by row.
    conflicts: Vec<bool>,
    /// How many (read, candidate) numbers there are.
    width: usize,
}

impl RfChoices {
    /// The first choice of `reads` without a conflicting pair (`conflict`
    /// says whether two (read, write) choices conflict; it is asked once
    /// per pair here), or `None` when there is none.
    pub(super) fn first(
        reads: &Reads,
        conflict: &dyn Fn((EventId, EventId), (EventId, EventId)) -> bool,
    ) -> Option<Self> {
        let mut offset = Vec::with_capacity(reads.len());
        let mut width = 0;
        for (_, c) in reads {
            offset.push(width);
            width += c.len();
        }
        let mut conflicts = vec![false; width * width];
        for (k, (rk, ck)) in reads.iter().enumerate() {
            for (j, (rj, cj)) in reads.iter().enumerate().skip(k + 1) {
                for (a, &wa) in ck.iter().enumerate() {
                    for (b, &wb) in cj.iter().enumerate() {
                        if conflict((*rk, wa), (*rj, wb)) {
                            let (x, y) = (offset[k] + a, offset[j] + b);
                            conflicts[x * width + y] = true;
                            conflicts[y * width + x] = true;
                        }
                    }
                }
            }
        }
        let mut c = RfChoices {
            pick: vec![0; reads.len()],
            offset,
            conflicts,
            width,
        };
        c.settle(reads.len(), reads).then_some(c)
    }

    /// Steps to the next choice without a conflicting pair; false after
    /// the last.
    pub(super) fn next(&mut self, reads: &Reads) -> bool {
        if reads.is_empty() {
            return false;
        }
        self.pick[0] += 1;
        self.settle(1, reads)
    }

    /// Reads `level..` hold a choice without conflicts among them, and
    /// read `level - 1` holds the candidate to try next: searches (the
    /// last read outermost) for the next whole choice without conflicts;
    /// false when none is left.
    fn settle(&mut self, mut level: usize, reads: &Reads) -> bool {
        let n = reads.len();
        loop {
            if level == 0 {
                return true;
            }
            let k = level - 1;
            if self.pick[k] >= reads[k].1.len() {
                // Read k has no candidate left under the choices above it:
                // back up to read k + 1.
                self.pick[k] = 0;
                if level == n {
                    return false;
                }
                self.pick[level] += 1;
                level += 1;
                continue;
            }
            let row = (self.offset[k] + self.pick[k]) * self.width;
            let ok = (k + 1..n).all(|j| !self.conflicts[row + self.offset[j] + self.pick[j]]);
            if ok {
                level -= 1;
                if level > 0 {
                    self.pick[level - 1] = 0;
                }
            } else {
                self.pick[k] += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn w(t: u32, i: u32) -> EventId {
        EventId::new(t, i)
    }

    /// Every choice, as (read, write) lists, that the enumeration gives.
    fn all(reads: &Reads, conflict: &dyn Fn((EventId, EventId), (EventId, EventId)) -> bool) -> Vec<Vec<EventId>> {
        let mut out = Vec::new();
        let Some(mut c) = RfChoices::first(reads, conflict) else {
            return out;
        };
        loop {
            out.push(reads.iter().zip(&c.pick).map(|((_, ws), &p)| ws[p]).collect());
            if !c.next(reads) {
                return out;
            }
        }
    }

    #[test]
    fn every_choice_without_a_conflict_once() {
        let reads = vec![
            (w(1, 0), vec![w(2, 1), w(3, 1)]),
            (w(2, 0), vec![w(1, 1), w(3, 1), EventId::INIT]),
            (w(3, 0), vec![w(1, 1), w(2, 1)]),
        ];
        let none = all(&reads, &|_, _| false);
        assert_eq!(none.len(), 12);
        assert_eq!(none.iter().collect::<BTreeSet<_>>().len(), 12);
        // The first read varies fastest, as the odometer did.
        assert_eq!(none[0], vec![w(2, 1), w(1, 1), w(1, 1)]);
        assert_eq!(none[1], vec![w(3, 1), w(1, 1), w(1, 1)]);
        // Reads 0 and 2 may not read one write: (w(2,1), w(2,1)) goes, with
        // its 3 choices of read 1.
        let clash = |(a, wa): (EventId, EventId), (b, wb): (EventId, EventId)| {
            let pair = [a, b].contains(&w(1, 0)) && [a, b].contains(&w(3, 0));
            pair && wa == wb
        };
        let some = all(&reads, &clash);
        assert_eq!(some.len(), 9);
        assert!(some.iter().all(|c| !(c[0] == w(2, 1) && c[2] == w(2, 1))));
        // A read with no candidate left under every choice: none at all.
        let every = |_: (EventId, EventId), _: (EventId, EventId)| true;
        assert!(all(&reads, &every).is_empty());
        // No reads: one empty choice.
        assert_eq!(all(&[], &clash), vec![Vec::<EventId>::new()]);
    }
}
