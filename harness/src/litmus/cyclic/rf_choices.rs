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
}

impl RfChoices {
    /// The first choice without a conflicting pair (`conflict` says whether
    /// two (read, write) choices conflict), or `None` when there is none.
    pub(super) fn first(
        reads: &Reads,
        conflict: &dyn Fn((EventId, EventId), (EventId, EventId)) -> bool,
    ) -> Option<Self> {
        let mut c = RfChoices {
            pick: vec![0; reads.len()],
        };
        c.settle(reads.len(), reads, conflict).then_some(c)
    }

    /// Steps to the next choice without a conflicting pair; false after
    /// the last.
    pub(super) fn next(
        &mut self,
        reads: &Reads,
        conflict: &dyn Fn((EventId, EventId), (EventId, EventId)) -> bool,
    ) -> bool {
        if reads.is_empty() {
            return false;
        }
        self.pick[0] += 1;
        self.settle(1, reads, conflict)
    }

    /// Reads `level..` hold a choice without conflicts among them, and
    /// read `level - 1` holds the candidate to try next: searches (the
    /// last read outermost) for the next whole choice without conflicts;
    /// false when none is left.
    fn settle(
        &mut self,
        mut level: usize,
        reads: &Reads,
        conflict: &dyn Fn((EventId, EventId), (EventId, EventId)) -> bool,
    ) -> bool {
        let n = reads.len();
        let choice = |p: &[usize], k: usize| (reads[k].0, reads[k].1[p[k]]);
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
            let ok = (k + 1..n).all(|j| !conflict(choice(&self.pick, j), choice(&self.pick, k)));
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
