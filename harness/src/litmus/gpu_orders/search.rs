//! One location's write orders under a GPU model, for one rf choice: the
//! orders that keep the pairs the model's coherence forces and every RMW's
//! atomicity ([`Atomicity`]), found by a depth-first search that places
//! the writes one at a time, instead of filtering every permutation.
//!
//! Why: in a spin loop every thread runs RMWs on one location, and an RMW
//! whose atomicity binds it to the write it reads (every other write of
//! the location would break it in between) must follow that write
//! immediately. Filtering tried every order of the location's writes for
//! every rf choice and rejected nearly all of them (a 3-thread, 3-RMW
//! `CADP` test used its 2,000,000-graph budget on them); the search builds
//! the chains (a write, the bound RMW that reads it, the one that reads
//! that, ...) directly, and an rf choice in which two bound RMWs read one
//! write (or a chain closes on itself) gets no order at all, before any
//! graph is built.
//!
//! What it leaves out is exactly what the checks of [`Atomicity`] reject,
//! each of which the model's judge rejects (`tests/litmus_gpu_orders.rs`
//! compares against every permutation, `CrossChecks::every_order`).

use super::{Atomicity, Bound};
use scopecheck_checker::event::{EventId, EventKind};
use scopecheck_checker::graph::ExecutionGraph;
use std::collections::HashMap;

/// A set of a location's writes, by index in [`Search::writes`].
type Mask = u64;

/// One RMW of the location, with what the rf choice tried asks of it.
struct Rmw {
    /// Its read part (whose rf the choice sets).
    read: EventId,
    /// Its write part, as an index in [`Search::writes`].
    write: usize,
    /// Per write it may read (by index; the initial write last): its
    /// `forbidden` and `after` then.
    demands: Vec<(Mask, bool)>,
    /// The write it reads, as an index (`None`: the initial write, or a
    /// write the search does not order).
    reads: Option<usize>,
    /// Whether it reads the initial write.
    reads_init: bool,
    /// The writes mo may not put between the write it reads and its own
    /// ([`Atomicity::between_rejected`]).
    forbidden: Mask,
    /// Whether its write may not come before the write it reads
    /// ([`Atomicity::reversed_rejected`]).
    after: bool,
}

/// The orders of one location's writes (see the module comment).
pub(super) struct Search {
    /// The location's writes, sorted (the first order tried is this one
    /// when it is allowed, as with every permutation).
    writes: Vec<EventId>,
    /// Per write, the writes that must come before it (coherence).
    before: Vec<Mask>,
    rmws: Vec<Rmw>,
    /// The order placed so far (indices), and the set it holds.
    order: Vec<usize>,
    used: Mask,
}

impl Search {
    /// The search over `writes` (at most 64), keeping the `forced` (earlier,
    /// later) pairs among them; `rmws` are the (read, write) parts of the
    /// RMWs whose write is one of them. Each RMW's demands are worked out
    /// here for every write it may read; `bound` gets the (read, write
    /// read) pairs' demands for the rf choices.
    pub(super) fn new(
        writes: &[EventId],
        forced: &[(EventId, EventId)],
        rmws: Vec<(EventId, EventId)>,
        a: &Atomicity,
        bound: &mut Bound,
    ) -> Search {
        debug_assert!(writes.len() <= 64);
        let mut writes = writes.to_vec();
        writes.sort();
        let n = writes.len();
        let index: HashMap<EventId, usize> = writes.iter().enumerate().map(|(i, w)| (*w, i)).collect();
        let mut before = vec![0; n];
        for (a, b) in forced {
            if let (Some(&a), Some(&b)) = (index.get(a), index.get(b)) {
                before[b] |= 1 << a;
            }
        }
        let rmws = rmws
            .into_iter()
            .filter_map(|(read, wr)| {
                let write = *index.get(&wr)?;
                bound.write_of.insert(read, wr);
                // Per write it may read (the writes in order, then the
                // initial write): the writes it forbids in between, and
                // whether its write must come after that one.
                let demands = writes
                    .iter()
                    .copied()
                    .chain([EventId::INIT])
                    .map(|w| {
                        // Also the writes coherence puts after its write
                        // or before `w`: they cannot be in between either,
                        // and so the chains and conflicts see them.
                        let w_at = index.get(&w).copied();
                        let mut forbidden = 0;
                        for (i, &x) in writes.iter().enumerate() {
                            let forced_out =
                                before[i] & (1 << write) != 0 || w_at.is_some_and(|j| before[j] & (1 << i) != 0);
                            if x != w && i != write && (forced_out || a.between_rejected(read, w, x, wr)) {
                                forbidden |= 1 << i;
                            }
                        }
                        let after = a.reversed_rejected(read, w, wr);
                        if after && w != wr {
                            bound.after.insert((read, w));
                            for (i, &x) in writes.iter().enumerate() {
                                if forbidden & (1 << i) != 0 {
                                    bound.forbids.insert((read, w, x));
                                }
                            }
                        }
                        // Its write must come after `w`, and coherence puts
                        // it before (a write po-after the RMW).
                        if after && w_at.is_some_and(|i| before[i] & (1 << write) != 0) {
                            bound.impossible.insert((read, w));
                        }
                        (forbidden, after)
                    })
                    .collect();
                Some(Rmw {
                    read,
                    write,
                    demands,
                    reads: None,
                    reads_init: false,
                    forbidden: 0,
                    after: false,
                })
            })
            .collect();
        Search {
            writes,
            before,
            rmws,
            order: Vec::new(),
            used: 0,
        }
    }

    /// The first order for the rf of `g`, or `None` when there is none.
    pub(super) fn start(&mut self, g: &ExecutionGraph) -> Option<Vec<EventId>> {
        let n = self.writes.len();
        let all: Mask = if n == 64 { !0 } else { (1 << n) - 1 };
        for r in &mut self.rmws {
            let w = match &g.event(r.read).kind {
                EventKind::Read(rd) => Some(rd.rf),
                _ => None,
            };
            // A write of another location or none: nothing is asked.
            // (A linear scan: a few writes, and this runs per rf choice.)
            r.reads = w.and_then(|w| self.writes.iter().position(|&x| x == w));
            r.reads_init = w.is_some_and(|w| w.is_init());
            (r.forbidden, r.after) = match (r.reads, r.reads_init) {
                (Some(i), _) => r.demands[i],
                (None, true) => r.demands[n],
                (None, false) => (0, false),
            };
        }
        // Chains: an RMW that must come after the write it reads and that
        // nothing may separate from it follows it immediately. Two such
        // RMWs reading one write, or a chain that closes on itself, leave
        // no order (the search would find none either, but only after
        // trying the other writes' orders).
        // The chain links (write read, `None` for the initial write; the
        // bound RMW's write), each read by one bound RMW at most.
        let mut next: Vec<(Option<usize>, usize)> = Vec::new();
        for r in &self.rmws {
            if !(r.reads.is_some() || r.reads_init) || !r.after {
                continue;
            }
            let others = all & !(1 << r.write) & !r.reads.map_or(0, |w| 1 << w);
            if r.forbidden == others {
                if next.iter().any(|&(from, _)| from == r.reads) {
                    return None;
                }
                next.push((r.reads, r.write));
            }
        }
        let link = |at: Option<usize>| next.iter().find(|&&(from, _)| from == at).map(|&(_, to)| to);
        for &(first, _) in &next {
            let mut at = first;
            for _ in 0..=n {
                match link(at) {
                    Some(w) if Some(w) == first => return None,
                    Some(w) => at = Some(w),
                    None => break,
                }
            }
        }
        self.restart().then(|| self.writes_of_order())
    }

    /// Back to the first order of the rf choice given to [`start`](Self::start);
    /// false when there is none.
    pub(super) fn restart(&mut self) -> bool {
        self.order.clear();
        self.used = 0;
        self.descend(0)
    }

    /// Steps to the next order; false after the last.
    pub(super) fn next(&mut self) -> bool {
        let Some(last) = self.order.pop() else { return false };
        self.used &= !(1 << last);
        self.descend(last + 1)
    }

    /// The order now, as writes.
    pub(super) fn current(&self, out: &mut Vec<EventId>) {
        out.clear();
        out.extend(self.order.iter().map(|&i| self.writes[i]));
    }

    fn writes_of_order(&self) -> Vec<EventId> {
        let mut v = Vec::with_capacity(self.writes.len());
        self.current(&mut v);
        v
    }

    /// Completes the order placed so far to the next whole one, trying
    /// writes from index `from` at the current place first and backing up
    /// when a place has no write left; false when the search is over.
    fn descend(&mut self, mut from: usize) -> bool {
        let n = self.writes.len();
        loop {
            if self.order.len() == n {
                return true;
            }
            match (from..n).find(|&c| self.allowed(c)) {
                Some(c) => {
                    self.order.push(c);
                    self.used |= 1 << c;
                    from = 0;
                }
                None => {
                    let Some(last) = self.order.pop() else { return false };
                    self.used &= !(1 << last);
                    from = last + 1;
                }
            }
        }
    }

    /// Whether write `c` may come next.
    fn allowed(&self, c: usize) -> bool {
        if self.used & (1 << c) != 0 || self.before[c] & !self.used != 0 {
            return false;
        }
        self.rmws.iter().all(|r| {
            let read_placed = r.reads_init || r.reads.is_some_and(|w| self.used & (1 << w) != 0);
            if r.write == c {
                // Its write before the write it reads.
                !(r.after && r.reads.is_some() && !read_placed)
            } else {
                // `c` between the write an unplaced RMW reads and its write.
                self.used & (1 << r.write) != 0 || !read_placed || r.forbidden & (1 << c) == 0
            }
        })
    }
}
