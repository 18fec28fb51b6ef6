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
    /// The same accesses by thread (indexed by thread id), so that what a
    /// view holds of them is a prefix per thread: the questions asked for
    /// every new access (the latest read in a view, the accesses not in a
    /// view) cost a binary search per thread instead of a scan of every
    /// access of the location, which made long runs quadratic.
    by_thread: Vec<ThreadAccesses>,
}

/// One thread's accesses of one location: event indices in program order.
#[derive(Clone, Debug, Default)]
struct ThreadAccesses {
    reads: Vec<u32>,
    writes: Vec<u32>,
    /// The release writes among `writes` (heads of C11's same-thread
    /// release sequences).
    releases: Vec<u32>,
}

impl ThreadAccesses {
    fn clear(&mut self) {
        self.reads.clear();
        self.writes.clear();
        self.releases.clear();
    }
    /// Keeps the accesses `live` holds (a prefix of the thread).
    fn drop_dead(&mut self, t: ThreadId, live: &impl Fn(&EventId) -> bool) {
        for v in [&mut self.reads, &mut self.writes, &mut self.releases] {
            while v.last().is_some_and(|&i| !live(&EventId::new(t, i))) {
                v.pop();
            }
        }
    }
}

/// Removes `i` from `v`, where it is normally last (an event taken back).
fn remove_index(v: &mut Vec<u32>, i: u32) {
    if v.last() == Some(&i) {
        v.pop();
    } else if let Some(p) = v.iter().rposition(|&x| x == i) {
        v.remove(p);
    }
}

impl LocData {
    /// Drops the events that are no longer `live` (a prefix of each
    /// thread) from the lists.
    pub(super) fn drop_dead(&mut self, live: impl Fn(&EventId) -> bool) {
        self.mo.retain(|e| live(e));
        self.reads.retain(|e| live(e));
        self.cells.retain(|e| live(e));
        self.consumed.retain(|(_, r)| live(&r.next()));
        for (t, a) in self.by_thread.iter_mut().enumerate() {
            a.drop_dead(t as ThreadId, &live);
        }
    }

    /// Everything the record holds, as text (the per-thread index without
    /// its trailing empty slots, which a record keeps for reuse).
    #[cfg(debug_assertions)]
    pub(super) fn fingerprint(&self) -> String {
        let used = self
            .by_thread
            .iter()
            .rposition(|a| !(a.reads.is_empty() && a.writes.is_empty() && a.releases.is_empty()))
            .map_or(0, |i| i + 1);
        format!(
            "{:?} {} {:?} {:?} {:?} {:?} {:?} {:?} {} {:?} {:?}",
            self.loc,
            self.init,
            self.kind,
            self.alloc,
            self.mo,
            self.reads,
            self.cells,
            self.consumed,
            self.has_plain,
            self.space,
            &self.by_thread[..used],
        )
    }

    /// Records a new access `id` (a read, or a write that is a release if `release`).
    pub(super) fn note_access(&mut self, id: EventId, write: bool, release: bool) {
        let t = id.thread as usize;
        if self.by_thread.len() <= t {
            self.by_thread.resize_with(t + 1, ThreadAccesses::default);
        }
        let a = &mut self.by_thread[t];
        if write {
            a.writes.push(id.index);
            if release {
                a.releases.push(id.index);
            }
        } else {
            a.reads.push(id.index);
        }
    }

    /// Forgets the access `id` (an event taken back).
    pub(super) fn forget_access(&mut self, id: EventId, write: bool) {
        if let Some(a) = self.by_thread.get_mut(id.thread as usize) {
            if write {
                remove_index(&mut a.writes, id.index);
                remove_index(&mut a.releases, id.index);
            } else {
                remove_index(&mut a.reads, id.index);
            }
        }
    }

    /// Number of thread slots of the per-thread index (threads beyond it
    /// made no access).
    pub fn thread_slots(&self) -> usize {
        self.by_thread.len()
    }

    /// Indices (in program order) of thread `t`'s reads of this location.
    pub fn thread_reads(&self, t: ThreadId) -> &[u32] {
        self.by_thread.get(t as usize).map_or(&[], |a| &a.reads)
    }

    /// Indices (in program order) of thread `t`'s writes to this location.
    pub fn thread_writes(&self, t: ThreadId) -> &[u32] {
        self.by_thread.get(t as usize).map_or(&[], |a| &a.writes)
    }

    /// Indices (in program order) of thread `t`'s release writes to this location.
    pub fn thread_releases(&self, t: ThreadId) -> &[u32] {
        self.by_thread.get(t as usize).map_or(&[], |a| &a.releases)
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
            by_thread: self
                .by_thread
                .iter()
                .enumerate()
                .map(|(t, a)| {
                    let mut a = a.clone();
                    a.drop_dead(t as ThreadId, &live);
                    a
                })
                .collect(),
        }
    }
}

/// The locations of a graph.
#[derive(Debug, Default)]
pub(super) struct LocTable {
    /// `by_thread[t][seq]`: the location `Loc::new(t, seq)`, if allocated.
    by_thread: Vec<Vec<Option<LocData>>>,
    /// `tokens[t]`: thread `t`'s park token ([`Loc::park_token`]), if the
    /// graph has it (its rank, `u32::MAX`, has no place in a dense row).
    tokens: Vec<Option<LocData>>,
    /// Emptied records whose vectors keep their capacity.
    spare: Vec<LocData>,
}

impl Clone for LocTable {
    /// The locations, without the spare records (a copy starts with none).
    fn clone(&self) -> LocTable {
        LocTable {
            by_thread: self.by_thread.clone(),
            tokens: self.tokens.clone(),
            spare: Vec::new(),
        }
    }
}

impl LocTable {
    /// The location `loc`, if the graph has it.
    #[inline]
    pub(super) fn get(&self, loc: Loc) -> Option<&LocData> {
        if loc.is_park_token() {
            return self.tokens.get(loc.thread() as usize)?.as_ref();
        }
        self.by_thread
            .get(loc.thread() as usize)?
            .get(loc.seq() as usize)?
            .as_ref()
    }

    /// The location `loc`, mutably, if the graph has it.
    #[inline]
    pub(super) fn get_mut(&mut self, loc: Loc) -> Option<&mut LocData> {
        if loc.is_park_token() {
            return self.tokens.get_mut(loc.thread() as usize)?.as_mut();
        }
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
                by_thread: Vec::new(),
            },
        };
        self.put(data);
    }

    /// Adds a location record as it is.
    pub(super) fn put(&mut self, data: LocData) {
        let (t, seq) = (data.loc.thread() as usize, data.loc.seq() as usize);
        if data.loc.is_park_token() {
            if self.tokens.len() <= t {
                self.tokens.resize_with(t + 1, || None);
            }
            if let Some(old) = self.tokens[t].replace(data) {
                self.keep(old);
            }
            return;
        }
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
        // (Emptied, not dropped: a random walk's next locations reuse them.)
        for a in &mut d.by_thread {
            a.clear();
        }
        self.spare.push(d);
    }

    /// Removes location `loc`.
    pub(super) fn remove(&mut self, loc: Loc) {
        let slot = if loc.is_park_token() {
            self.tokens.get_mut(loc.thread() as usize).and_then(Option::take)
        } else {
            self.by_thread
                .get_mut(loc.thread() as usize)
                .and_then(|row| row.get_mut(loc.seq() as usize))
                .and_then(Option::take)
        };
        if let Some(d) = slot {
            self.keep(d);
        }
    }

    /// Keeps only the locations for which `f` holds.
    pub(super) fn retain(&mut self, mut f: impl FnMut(&LocData) -> bool) {
        let mut dropped = Vec::new();
        for slot in self.by_thread.iter_mut().flatten().chain(self.tokens.iter_mut()) {
            if slot.as_ref().is_some_and(|d| !f(d)) {
                dropped.extend(slot.take());
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
        let tokens: Vec<LocData> = self.tokens.drain(..).flatten().collect();
        for d in tokens {
            self.keep(d);
        }
    }

    /// Every location with its name, in the order of the names.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&Loc, &LocData)> {
        self.by_thread
            .iter()
            .flat_map(|row| row.iter().flatten())
            .chain(self.tokens.iter().flatten())
            .map(|d| (&d.loc, d))
    }

    /// Every location, mutably.
    pub(super) fn values_mut(&mut self) -> impl Iterator<Item = &mut LocData> {
        self.by_thread
            .iter_mut()
            .flat_map(|row| row.iter_mut().flatten())
            .chain(self.tokens.iter_mut().flatten())
    }
}

impl std::ops::Index<&Loc> for LocTable {
    type Output = LocData;

    fn index(&self, loc: &Loc) -> &LocData {
        self.get(*loc)
            .expect("checker invariant: an accessed location is in the graph")
    }
}
