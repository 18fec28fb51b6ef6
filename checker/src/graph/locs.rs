//! The locations of an execution graph: what each holds (its mo, its
//! reads, ...), found by the location's name in constant time.
//!
//! A location is named by the thread that allocated it and the rank of the
//! allocation in that thread ([`Loc::new`]), so the table is a vector per
//! thread indexed by rank. Every shim operation looks its location up, some
//! several times (a fetch_add about ten), and an ordered map cost a search
//! of its tree each time. Iteration goes thread by thread, rank by rank:
//! the order of the names, as the map had it.
//!
//! Emptied records are kept (their vectors' capacity with them) for the
//! next locations: a random walk starts every execution from an empty
//! graph, and its locations' mo and read lists would otherwise grow from
//! nothing, one reallocation at a time, every execution.

use crate::event::*;

/// Per-location bookkeeping.
#[derive(Clone, Debug)]
pub struct LocData {
    /// The location's name.
    loc: Loc,
    /// The initial value.
    pub init: Value,
    /// What the location is.
    pub kind: LocKind,
    /// The allocation event.
    pub alloc: EventId,
    /// Writes in modification order (the initial write is implicitly first).
    pub mo: Vec<EventId>,
    /// Reads of this location (any order).
    pub reads: Vec<EventId>,
    /// Cell accesses (for tracked cells).
    pub cells: Vec<EventId>,
    /// Whether some access to this location is plain (non-atomic): only then
    /// do atomic accesses need a data-race check.
    pub has_plain: bool,
    /// The memory space the location is in: its accesses are judged with
    /// that space's happens-before (`space.rs`, rule 4).
    pub space: Space,
    /// (write, RMW read) for every RMW whose write part is in the graph:
    /// the write each complete RMW consumed. Asked for every candidate of
    /// every new RMW, so it is kept rather than found by scanning the reads.
    pub(super) consumed: Vec<(EventId, EventId)>,
}

impl LocData {
    /// Drops the events that are no longer `live` from the lists.
    pub(super) fn drop_dead(&mut self, live: impl Fn(&EventId) -> bool) {
        self.mo.retain(|e| live(e));
        self.reads.retain(|e| live(e));
        self.cells.retain(|e| live(e));
        self.consumed.retain(|(_, r)| live(&r.next()));
    }

    /// (write, RMW read) for every RMW whose write part is in the graph.
    pub fn consumed_pairs(&self) -> impl Iterator<Item = (EventId, EventId)> + '_ {
        self.consumed.iter().copied()
    }

    /// A copy holding only the `live` events.
    pub(super) fn copy_live(&self, live: impl Fn(&EventId) -> bool) -> LocData {
        LocData {
            loc: self.loc,
            init: self.init,
            kind: self.kind,
            alloc: self.alloc,
            mo: self.mo.iter().copied().filter(|e| live(e)).collect(),
            reads: self.reads.iter().copied().filter(|e| live(e)).collect(),
            cells: self.cells.iter().copied().filter(|e| live(e)).collect(),
            has_plain: false,
            space: self.space,
            consumed: self.consumed.iter().copied().filter(|(_, r)| live(&r.next())).collect(),
        }
    }
}

/// The locations of a graph.
#[derive(Debug, Default)]
pub(super) struct LocTable {
    /// `by_thread[t][seq]`: the location `Loc::new(t, seq)`, if allocated.
    by_thread: Vec<Vec<Option<LocData>>>,
    /// Emptied records whose vectors keep their capacity.
    spare: Vec<LocData>,
}

impl Clone for LocTable {
    /// The locations, without the spare records (a copy starts with none).
    fn clone(&self) -> LocTable {
        LocTable {
            by_thread: self.by_thread.clone(),
            spare: Vec::new(),
        }
    }
}

impl LocTable {
    /// The location `loc`, if the graph has it.
    #[inline]
    pub(super) fn get(&self, loc: Loc) -> Option<&LocData> {
        self.by_thread
            .get(loc.thread() as usize)?
            .get(loc.seq() as usize)?
            .as_ref()
    }

    /// The location `loc`, mutably, if the graph has it.
    #[inline]
    pub(super) fn get_mut(&mut self, loc: Loc) -> Option<&mut LocData> {
        self.by_thread
            .get_mut(loc.thread() as usize)?
            .get_mut(loc.seq() as usize)?
            .as_mut()
    }

    /// Adds location `loc`, allocated by event `alloc`.
    pub(super) fn insert(&mut self, loc: Loc, init: Value, kind: LocKind, alloc: EventId, space: Space) {
        let data = match self.spare.pop() {
            Some(mut d) => {
                d.loc = loc;
                d.init = init;
                d.kind = kind;
                d.alloc = alloc;
                d.has_plain = false;
                d.space = space;
                d
            }
            None => LocData {
                loc,
                init,
                kind,
                alloc,
                mo: Vec::new(),
                reads: Vec::new(),
                cells: Vec::new(),
                has_plain: false,
                space,
                consumed: Vec::new(),
            },
        };
        self.put(data);
    }

    /// Adds a location record as it is.
    pub(super) fn put(&mut self, data: LocData) {
        let (t, seq) = (data.loc.thread() as usize, data.loc.seq() as usize);
        if self.by_thread.len() <= t {
            self.by_thread.resize_with(t + 1, Vec::new);
        }
        let row = &mut self.by_thread[t];
        if row.len() <= seq {
            row.resize_with(seq + 1, || None);
        }
        if let Some(old) = row[seq].replace(data) {
            self.keep(old);
        }
    }

    /// Keeps an emptied record for a later location.
    fn keep(&mut self, mut d: LocData) {
        d.mo.clear();
        d.reads.clear();
        d.cells.clear();
        d.consumed.clear();
        self.spare.push(d);
    }

    /// Removes location `loc`.
    pub(super) fn remove(&mut self, loc: Loc) {
        let slot = self
            .by_thread
            .get_mut(loc.thread() as usize)
            .and_then(|row| row.get_mut(loc.seq() as usize))
            .and_then(Option::take);
        if let Some(d) = slot {
            self.keep(d);
        }
    }

    /// Keeps only the locations for which `f` holds.
    pub(super) fn retain(&mut self, mut f: impl FnMut(&LocData) -> bool) {
        let mut dropped = Vec::new();
        for row in &mut self.by_thread {
            for slot in row.iter_mut() {
                if slot.as_ref().is_some_and(|d| !f(d)) {
                    dropped.extend(slot.take());
                }
            }
        }
        for d in dropped {
            self.keep(d);
        }
    }

    /// Removes every location, keeping the records for later ones, and the
    /// emptied rows (a random walk clears the table every execution).
    pub(super) fn clear(&mut self) {
        let mut rows = std::mem::take(&mut self.by_thread);
        for row in &mut rows {
            for d in row.drain(..).flatten() {
                self.keep(d);
            }
        }
        self.by_thread = rows;
    }

    /// Every location with its name, in the order of the names.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&Loc, &LocData)> {
        self.by_thread
            .iter()
            .flat_map(|row| row.iter().flatten().map(|d| (&d.loc, d)))
    }

    /// Every location, mutably.
    pub(super) fn values_mut(&mut self) -> impl Iterator<Item = &mut LocData> {
        self.by_thread.iter_mut().flat_map(|row| row.iter_mut().flatten())
    }
}

impl std::ops::Index<&Loc> for LocTable {
    type Output = LocData;

    fn index(&self, loc: &Loc) -> &LocData {
        self.get(*loc)
            .expect("checker invariant: an accessed location is in the graph")
    }
}
