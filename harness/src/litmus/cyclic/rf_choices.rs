//! The validation's rf choices: every read given, in turn, every write of
//! the value it took, except the combinations in which two RMWs bound to
//! the write they read (gpu_orders.rs: each must follow it immediately in
//! mo) read one write. Those leave no order of the location's writes and
//! so no graph; in a spin loop, where every thread's RMWs read the same
//! few writes, they are most of the combinations, and skipping each
//! subtree of them as soon as its first conflicting pair is chosen is
//! what keeps the count down (a 3-thread CADP test: millions of rf
//! choices before).
//!
//! The search backjumps (conflict-directed backjumping): when a read has
//! no candidate left, it goes back to the latest chosen read that ruled
//! one of them out, not merely to the previous one, since no other choice
//! of the reads in between can help. A thread spinning on RMWs has more
//! bound RMWs reading one value than writes of it on many of its paths
//! (a pigeonhole): backing up one read at a time re-found that under
//! every choice of the reads searched before them (seconds per test). The
//! choices found, and their order, are the same; after a whole choice is
//! found the search backs up one read at a time again (the reads in between
//! may lead to more).

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
    /// Row `k` (of `n` flags): the reads chosen before read `k` that ruled
    /// out one of its candidates, or one of whose choices left no choice
    /// below it, since read `k` was last started over.
    culprits: Vec<bool>,
    /// Per read, whether a whole choice was found since it last started
    /// over (then it backs up one read only).
    found: Vec<bool>,
    /// Candidates tried and dead ends met (the unit tests count the work).
    #[cfg(test)]
    steps: u64,
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
        let n = reads.len();
        let mut c = RfChoices {
            pick: vec![0; n],
            offset,
            conflicts,
            width,
            culprits: vec![false; n * n],
            found: vec![false; n],
            #[cfg(test)]
            steps: 0,
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
            #[cfg(test)]
            {
                self.steps += 1;
            }
            if level == 0 {
                // Every read is above a whole choice now.
                self.found.iter_mut().for_each(|f| *f = true);
                return true;
            }
            let k = level - 1;
            if self.pick[k] >= reads[k].1.len() {
                // Read k has no candidate left under the choices above it.
                if level == n {
                    return false;
                }
                // Back to the latest read that ruled one out (reads between
                // it and k did not: no other choice of theirs helps), or,
                // once a whole choice was found below, to read k + 1.
                let h = if self.found[k] {
                    k + 1
                } else {
                    let row = &self.culprits[k * n..(k + 1) * n];
                    match (k + 1..n).find(|&j| row[j]) {
                        Some(h) => h,
                        // Nothing above ruled anything out: no choice of
                        // theirs gives read k a candidate.
                        None => return false,
                    }
                };
                if !self.found[k] {
                    for j in h + 1..n {
                        if self.culprits[k * n + j] {
                            self.culprits[h * n + j] = true;
                        }
                    }
                }
                for m in k..h {
                    self.start_over(m, n);
                }
                self.pick[h] += 1;
                level = h + 1;
                continue;
            }
            let row = (self.offset[k] + self.pick[k]) * self.width;
            // The first chosen read (outermost) it conflicts with.
            match (k + 1..n)
                .rev()
                .find(|&j| self.conflicts[row + self.offset[j] + self.pick[j]])
            {
                None => {
                    level -= 1;
                    if level > 0 {
                        self.start_over(level - 1, n);
                    }
                }
                Some(j) => {
                    self.culprits[k * n + j] = true;
                    self.pick[k] += 1;
                }
            }
        }
    }

    /// Read `m` starts over at its first candidate, under new choices above.
    fn start_over(&mut self, m: usize, n: usize) {
        self.pick[m] = 0;
        self.culprits[m * n..(m + 1) * n].iter_mut().for_each(|c| *c = false);
        self.found[m] = false;
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

    /// Three RMWs bound to the write they read, with two writes to read
    /// (no choice), searched under twelve reads of three candidates each
    /// that conflict with nothing: backing up one read at a time, the
    /// search re-found the pigeonhole under each of their 3^12 choices
    /// (millions of steps); backjumping finds it once.
    #[test]
    fn a_pigeonhole_under_free_reads_is_found_once() {
        let mut reads: Vec<(EventId, Vec<EventId>)> = (0..3).map(|i| (w(1, i), vec![w(2, 0), w(2, 1)])).collect();
        reads.extend((3..15).map(|i| (w(1, i), vec![w(3, 0), w(3, 1), w(3, 2)])));
        let bound = |(a, wa): (EventId, EventId), (b, wb): (EventId, EventId)| a.index < 3 && b.index < 3 && wa == wb;
        let mut n = 0;
        let c = RfChoices::first(&reads, &bound);
        assert!(c.is_none());
        // The same search, counted: first() gives no RfChoices back, so
        // count through a fresh one.
        let mut c = RfChoices {
            pick: vec![0; reads.len()],
            offset: (0..reads.len())
                .map(|k| if k < 3 { 2 * k } else { 6 + 3 * (k - 3) })
                .collect(),
            conflicts: Vec::new(),
            width: 6 + 3 * 12,
            culprits: vec![false; reads.len() * reads.len()],
            found: vec![false; reads.len()],
            steps: 0,
        };
        c.conflicts = vec![false; c.width * c.width];
        for (k, (rk, ck)) in reads.iter().enumerate() {
            for (j, (rj, cj)) in reads.iter().enumerate() {
                for (a, &wa) in ck.iter().enumerate() {
                    for (b, &wb) in cj.iter().enumerate() {
                        if k != j && bound((*rk, wa), (*rj, wb)) {
                            c.conflicts[(c.offset[k] + a) * c.width + c.offset[j] + b] = true;
                            n += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(n, 12);
        assert!(!c.settle(reads.len(), &reads));
        assert!(c.steps < 100, "{} steps", c.steps);
    }

    /// Every choice of `reads` without a conflicting pair, by brute force,
    /// in the odometer's order (the first read fastest).
    fn brute(reads: &Reads, conflict: &dyn Fn((EventId, EventId), (EventId, EventId)) -> bool) -> Vec<Vec<EventId>> {
        let mut out = Vec::new();
        if reads.iter().any(|(_, c)| c.is_empty()) {
            return out;
        }
        let mut pick = vec![0; reads.len()];
        loop {
            let choice: Vec<(EventId, EventId)> = reads.iter().zip(&pick).map(|((r, ws), &p)| (*r, ws[p])).collect();
            let ok = (0..choice.len()).all(|a| (a + 1..choice.len()).all(|b| !conflict(choice[a], choice[b])));
            if ok {
                out.push(choice.iter().map(|&(_, w)| w).collect());
            }
            let mut k = 0;
            loop {
                if k == pick.len() {
                    return out;
                }
                pick[k] += 1;
                if pick[k] < reads[k].1.len() {
                    break;
                }
                pick[k] = 0;
                k += 1;
            }
        }
    }

    /// The backjumping search gives exactly the brute force's choices, in
    /// its order, on random reads and conflicts (pigeonholes among them).
    #[test]
    fn backjumping_finds_every_choice_in_order() {
        let mut seed = 0x2026_1126_u64;
        let mut below = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut nonempty = 0;
        for _ in 0..3000 {
            let n = below(8) as usize;
            let reads: Vec<(EventId, Vec<EventId>)> = (0..n)
                .map(|i| {
                    let c = below(4) as usize;
                    (w(1, i as u32), (0..c).map(|_| w(2, below(4) as u32)).collect())
                })
                .collect();
            // A random subset of the reads may not share a write (a
            // pigeonhole when it is larger than their writes), plus random
            // conflicting pairs of choices.
            let bound: Vec<bool> = (0..n).map(|_| below(2) == 0).collect();
            let pairs: std::collections::HashSet<(u32, u32, u32, u32)> = (0..below(6))
                .map(|_| (below(8) as u32, below(4) as u32, below(8) as u32, below(4) as u32))
                .collect();
            let conflict = |(a, wa): (EventId, EventId), (b, wb): (EventId, EventId)| {
                (bound[a.index as usize] && bound[b.index as usize] && wa == wb)
                    || pairs.contains(&(a.index, wa.index, b.index, wb.index))
                    || pairs.contains(&(b.index, wb.index, a.index, wa.index))
            };
            let want = brute(&reads, &conflict);
            nonempty += usize::from(!want.is_empty());
            assert_eq!(
                all(&reads, &conflict),
                want,
                "{reads:?} bound {bound:?} pairs {pairs:?}"
            );
        }
        assert!(nonempty > 100, "{nonempty}");
    }
}
