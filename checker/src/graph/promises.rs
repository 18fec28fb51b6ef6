//! Promised reads: how a graph with a cycle in po ∪ rf is built one event
//! at a time (docs/c11-model.md section 4).
//!
//! Under a model without acyclic(po ∪ rf) (`c11`), a read may read a write
//! that depends on the read itself (load buffering). Events are added in an
//! order compatible with po and rf, so such a read cannot name its write
//! when it is added. The explorer instead gives the read a *promise*: the
//! value of a write it saw in an earlier execution (`write`, at that
//! position of that thread). The read is added reading the initial write as
//! a placeholder (no synchronization, no coherence constraint), with the
//! promised value; the program runs on with it. When the execution ends,
//! the promise is kept only if the write is there, at its position, writing
//! that value: then [`ExecutionGraph::with_promises_kept`] gives the graph
//! with the read reading that write, which the model judges from its
//! definitions. A value nobody writes is therefore never read.

use super::ExecutionGraph;
use crate::event::*;

/// A read promised the value of a write po ∪ rf-after it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Promise {
    /// The read (added, or still to be added at this position).
    pub read: EventId,
    /// The write it is to read: its thread, and its position when the
    /// promise was made (see `rank`).
    pub write: EventId,
    /// The location of both.
    pub loc: Loc,
    /// The value the write must write (and the read returns).
    pub value: Value,
    /// Which of its thread's writes to `loc` the write is (0 for the
    /// first), or `None` for the write at position `write` (a replay
    /// token's promise, which names the position the execution had). The
    /// explorer's promises name the write by rank: the program re-run with
    /// the promised value may add or leave out events before it (a
    /// compare-exchange that succeeds now and failed before has a write
    /// part more), which moves the same store to another position but
    /// leaves its rank among the thread's writes to the location alone
    /// unless such a write is to that location too.
    pub rank: Option<u32>,
}

impl ExecutionGraph {
    /// The promises of this graph (empty except under a model that allows
    /// cycles in po ∪ rf).
    #[inline]
    pub fn promises(&self) -> &[Promise] {
        &self.promises
    }

    /// The promise made to the read at position `index` of thread `t`.
    #[inline]
    pub fn promise_at(&self, t: ThreadId, index: u32) -> Option<Promise> {
        if self.promises.is_empty() {
            return None;
        }
        self.promises.iter().find(|p| p.read == EventId::new(t, index)).copied()
    }

    /// Adds a promise (the explorer, for a graph cut back to before its read).
    pub fn add_promise(&mut self, p: Promise) {
        self.promises.push(p);
    }

    /// The write `p` names in this graph, if it is there (by rank or by
    /// position, see [`Promise::rank`]), whatever it writes.
    pub fn promised_write(&self, p: &Promise) -> Option<EventId> {
        let is_write = |e: &Event| matches!(&e.kind, EventKind::Write(w) if w.loc == p.loc);
        let t = p.write.thread;
        match p.rank {
            None => (self.contains(p.write) && is_write(self.event(p.write))).then_some(p.write),
            Some(k) => {
                if (t as usize) >= self.num_threads() {
                    return None;
                }
                let i = self
                    .thread_events(t)
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| is_write(e))
                    .nth(k as usize)?
                    .0;
                Some(EventId::new(t, i as u32))
            }
        }
    }

    /// Whether every promise is kept by the graph so far: each promised read
    /// is there, a read of its location returning the promised value, and
    /// so is its write ([`Self::promised_write`]), writing that value.
    pub fn promises_kept(&self) -> bool {
        self.promises.iter().all(|p| {
            let read_ok = self.contains(p.read)
                && matches!(&self.event(p.read).kind, EventKind::Read(r) if r.loc == p.loc && r.value == p.value);
            let write_ok = self
                .promised_write(p)
                .is_some_and(|w| matches!(&self.event(w).kind, EventKind::Write(w) if w.value == p.value));
            read_ok && write_ok
        })
    }

    /// The graph with every promise kept: each promised read reads its
    /// write. `None` when a promise is broken ([`Self::promises_kept`]).
    /// Views are not recomputed: the result is for judging by the model's
    /// definitions (`model::relations`, `c11`), which derive everything
    /// from po, rf and mo.
    pub fn with_promises_kept(&self) -> Option<ExecutionGraph> {
        if !self.promises_kept() {
            return None;
        }
        let picks: Vec<(EventId, EventId)> = self
            .promises
            .iter()
            .map(|p| (p.read, self.promised_write(p).expect("kept")))
            .collect();
        let mut g = self.with_reads_from(&picks);
        g.promises.clear();
        Some(g)
    }

    /// The graph with each read of `picks` reading its write instead of
    /// what it reads here (a placeholder), for judging by the model's
    /// definitions (views are not recomputed). A read that is an RMW's
    /// read part had its write part added as a plain write placed anywhere
    /// in mo (`engine/promised.rs`): it is the RMW's again, and the model's
    /// atomicity axiom judges where it sits. Shared by the explorer's
    /// promises and the reference enumerator's guessed reads
    /// (`engine/guessed.rs`).
    pub fn with_reads_from(&self, picks: &[(EventId, EventId)]) -> ExecutionGraph {
        let mut g = self.clone();
        for &(read, write) in picks {
            let mut exclusive = false;
            if let EventKind::Read(r) = &mut g.event_mut(read).kind {
                r.rf = write;
                exclusive = r.is_exclusive();
            }
            let part = EventId::new(read.thread, read.index + 1);
            if exclusive && g.contains(part) {
                if let EventKind::Write(w) = &mut g.event_mut(part).kind {
                    w.rmw = true;
                }
            }
        }
        g
    }
}
