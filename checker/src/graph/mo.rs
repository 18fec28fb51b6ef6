//! Modification order and RMW atomicity: where a write sits in its
//! location's mo, which write an RMW consumed, and the constant-time
//! answers the explorer relies on for coherent models. Apart from
//! `mod.rs` because these are the questions a memory model asks of mo
//! (`model/`), not how events are stored.

use super::ExecutionGraph;
use crate::event::*;

impl ExecutionGraph {
    /// Position of `w` in the mo of `loc`: 0 for the initial write, i + 1 for `mo[i]`.
    pub fn mo_position(&self, loc: Loc, w: EventId) -> usize {
        if w.is_init() {
            return 0;
        }
        // From the end: the writes asked about (an RMW's source, a spin's
        // latest read) are mostly recent.
        let mo = &self.locs[&loc].mo;
        mo.iter().rposition(|&x| x == w).expect("write is in mo") + 1
    }

    /// The write at mo position `pos` of `loc`.
    pub fn mo_at(&self, loc: Loc, pos: usize) -> EventId {
        if pos == 0 {
            EventId::INIT
        } else {
            self.locs[&loc].mo[pos - 1]
        }
    }

    /// The mo-maximal write of `loc`.
    pub fn mo_max(&self, loc: Loc) -> EventId {
        self.locs[&loc].mo.last().copied().unwrap_or(EventId::INIT)
    }

    /// The RMW read part (other than `except`) that reads from `w`, if any:
    /// such a write is "consumed" and no other RMW may read it (atomicity).
    pub fn rmw_reader_of(&self, loc: Loc, w: EventId, except: Option<EventId>) -> Option<EventId> {
        let found = self.locs[&loc]
            .consumed
            .iter()
            .find(|&&(src, r)| src == w && Some(r) != except)
            .map(|&(_, r)| r);
        #[cfg(debug_assertions)]
        crate::work::uncounted(|| {
            self.check_rmw_reader(loc, w, except, found);
        });
        found
    }

    /// Debug builds: the consumed-write index agrees with the reads.
    #[cfg(debug_assertions)]
    fn check_rmw_reader(&self, loc: Loc, w: EventId, except: Option<EventId>, found: Option<EventId>) {
        debug_assert_eq!(
            found.is_some(),
            self.locs[&loc].reads.iter().any(|&r| {
                Some(r) != except && {
                    let re = self.event(r).as_read().expect("reads list holds reads");
                    re.rf == w && re.rmw.is_some() && self.rmw_write_follows(r)
                }
            }),
            "checker invariant: the consumed-write index of {loc} matches its reads"
        );
    }

    /// Whether the write at mo position `pos` of `loc` (0: the initial
    /// write) is consumed by an RMW, asked in constant time: the write right
    /// after it in mo is an RMW's write part whose read part read it. That
    /// is [`Self::rmw_reader_of`] (with no exception) in every graph where
    /// each RMW's write part sits right after the write its read part read,
    /// which the explorer keeps for every coherent model (plain writes never
    /// go between the two); not under `porf`, and not while the explorer
    /// tries an RMW on an already consumed write.
    pub fn consumed_at(&self, loc: Loc, pos: usize) -> bool {
        let d = &self.locs[&loc];
        let Some(&next) = d.mo.get(pos) else {
            return false;
        };
        let w = if pos == 0 { EventId::INIT } else { d.mo[pos - 1] };
        let consumed = next.index > 0
            && matches!(&self.event(next).kind, EventKind::Write(x) if x.rmw)
            && self
                .event(EventId::new(next.thread, next.index - 1))
                .as_read()
                .map(|r| r.rf)
                == Some(w);
        #[cfg(debug_assertions)]
        let by_index = crate::work::uncounted(|| self.rmw_reader_of(loc, w, None).is_some());
        #[cfg(debug_assertions)]
        debug_assert_eq!(
            consumed, by_index,
            "checker invariant: each RMW's write part sits right after the write it read in mo"
        );
        consumed
    }

    /// How many writes of `loc` (the initial write included) no RMW has
    /// consumed, in constant time: each complete RMW consumed exactly one
    /// write and no write is consumed twice in every graph
    /// [`Self::consumed_at`] answers for (not under the reference
    /// enumerator, `porf`, or while the explorer tries an RMW on a consumed
    /// write; callers exclude those). When it is one, that write is the
    /// last in mo: the write part of an RMW that consumed the last would
    /// come after it.
    pub fn free_writes(&self, loc: Loc) -> usize {
        let d = &self.locs[&loc];
        d.mo.len() + 1 - d.consumed.len()
    }

    /// Whether the RMW read `r` has its write part in the graph: only an
    /// RMW's own write part is an RMW write right after a read, so this
    /// needs no arithmetic ([`ReadEvent::is_exclusive`] recomputes the
    /// operation).
    #[cfg(debug_assertions)]
    fn rmw_write_follows(&self, r: EventId) -> bool {
        let next = EventId::new(r.thread, r.index + 1);
        self.contains(next) && matches!(&self.event(next).kind, EventKind::Write(w) if w.rmw)
    }

    /// Places write `w` at mo position `pos` (1 = right after the initial write).
    pub fn insert_mo(&mut self, loc: Loc, w: EventId, pos: usize) {
        let mo = &mut self.locs.get_mut(loc).expect("loc").mo;
        // (Most writes go last: `insert` would call memmove for nothing.)
        if pos - 1 == mo.len() {
            mo.push(w);
        } else {
            mo.insert(pos - 1, w);
        }
    }

    /// Moves write `w` to mo position `pos` (positions counted without `w`).
    pub fn move_mo(&mut self, loc: Loc, w: EventId, pos: usize) {
        let mo = &mut self.locs.get_mut(loc).expect("loc").mo;
        let i = mo.iter().position(|&x| x == w).expect("write in mo");
        mo.remove(i);
        mo.insert(pos - 1, w);
    }
}
