//! The execution graph: events per thread in program order, reads-from (each
//! read names its write) and modification order (each location keeps its
//! writes in mo order, the initial write implicitly first).
//!
//! The graph also computes the views of every event when it is added (see
//! `sw.rs`, the one synchronizes-with rule with the RC11 definition it
//! implements, `views.rs` for how views are stored, and
//! [`ExecutionGraph::hb`] and its neighbours to ask them).

use crate::clock::Clock;
use crate::event::*;
use crate::scope::{mutually_inclusive, Actor};

mod locs;
mod mo;
mod promises;
mod sw;
mod views;

pub use crate::clock::Msg;
pub use locs::LocData;
use locs::LocTable;
pub use promises::Promise;
pub use views::View;
use views::{Arena, NewViews};

/// Which synchronization rules a model uses when views are computed.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SyncRules {
    /// Every atomic access synchronizes as if it were seq_cst (the `sc` model).
    pub all_sc: bool,
    /// C11's release sequences: a release write's sequence also holds the
    /// later writes of the same thread to the same location (RC11 as
    /// published). Without it, C++20's: only RMW chains.
    pub same_thread_rs: bool,
    /// Synchronization needs the release and the acquire (and every write
    /// read along the way and its reader) to be mutually scope-inclusive
    /// (`src11`).
    pub scoped: bool,
}

/// The events of one thread.
#[derive(Clone, Debug, Default)]
pub struct ThreadEvents {
    /// Events in program order.
    pub events: Vec<Event>,
}

/// An execution graph.
#[derive(Clone, Debug, Default)]
pub struct ExecutionGraph {
    threads: Vec<Option<ThreadEvents>>,
    locs: LocTable,
    next_stamp: u32,
    /// Number of seq_cst events (psc needs checking only from two on).
    sc_events: usize,
    /// Where each thread runs (host threads need no entry).
    placements: Vec<Placement>,
    /// Event vectors of threads that left the graph, kept for the next
    /// threads so that each execution does not grow them anew.
    spare: Spare,
    /// The clocks of the events' views (`views.rs`).
    arena: Arena,
    /// Whether new events leave porf out of their views (a strategy that
    /// never asks porf: the joins are a twentieth of a random walk).
    porf_skipped: bool,
    /// Whether a location of addresses was ever allocated in the graph
    /// since it was last cleared (kept when the location goes: only a
    /// hint). Without one, every value is the same in every execution
    /// (the engine checks it), and replay need not refresh any.
    addresses: bool,
    /// Reads promised a value a po ∪ rf-later write is to give them
    /// (`promises.rs`; only under models without acyclic(po ∪ rf)).
    promises: Vec<Promise>,
}

/// Emptied event vectors (not part of the graph's content: a clone starts
/// without any).
#[derive(Debug, Default)]
struct Spare(Vec<Vec<Event>>);

impl Clone for Spare {
    fn clone(&self) -> Spare {
        Spare(Vec::new())
    }
}

impl Spare {
    fn keep(&mut self, mut events: Vec<Event>) {
        events.clear();
        self.0.push(events);
    }
    fn take(&mut self) -> Vec<Event> {
        self.0.pop().unwrap_or_default()
    }
}

impl ExecutionGraph {
    /// An empty graph.
    pub fn new() -> ExecutionGraph {
        ExecutionGraph::default()
    }

    /// Empties the graph, keeping its allocations for the next execution
    /// (the strategies that start every execution afresh call this).
    pub fn clear(&mut self) {
        for th in self.threads.drain(..).flatten() {
            self.spare.keep(th.events);
        }
        self.locs.clear();
        self.next_stamp = 0;
        self.sc_events = 0;
        self.placements.clear();
        self.arena.truncate(1);
        self.addresses = false;
        self.promises.clear();
    }

    /// Whether the graph may hold values of a location of addresses
    /// (docs/heap-addresses.md): only then can a kept value be another
    /// execution's.
    #[inline]
    pub fn may_hold_addresses(&self) -> bool {
        self.addresses
    }

    /// Whether the graph's events keep their porf views. Only an empty
    /// graph changes (the views of events already in it stay as they are);
    /// `false` makes [`ExecutionGraph::porf`] a checker-invariant panic.
    pub fn keep_porf(&mut self, keep: bool) {
        if self.threads.iter().all(|t| t.is_none()) {
            self.porf_skipped = !keep;
        }
    }

    /// Number of thread slots (some may be empty after a restriction).
    pub fn num_threads(&self) -> usize {
        self.threads.len()
    }

    /// Whether thread `t` exists in the graph.
    pub fn has_thread(&self, t: ThreadId) -> bool {
        matches!(self.threads.get(t as usize), Some(Some(_)))
    }

    /// Number of events of thread `t`.
    pub fn thread_len(&self, t: ThreadId) -> u32 {
        match self.threads.get(t as usize) {
            Some(Some(th)) => th.events.len() as u32,
            _ => 0,
        }
    }

    /// The events of thread `t`.
    pub fn thread_events(&self, t: ThreadId) -> &[Event] {
        match self.threads.get(t as usize) {
            Some(Some(th)) => &th.events,
            _ => &[],
        }
    }

    /// The event at `e` (not an initial write).
    #[inline]
    pub fn event(&self, e: EventId) -> &Event {
        crate::work::event_lookup();
        &self.threads[e.thread as usize].as_ref().expect("thread exists").events[e.index as usize]
    }

    /// The event at `e`, mutably.
    #[inline]
    pub fn event_mut(&mut self, e: EventId) -> &mut Event {
        &mut self.threads[e.thread as usize].as_mut().expect("thread exists").events[e.index as usize]
    }

    /// Whether `e` is in the graph (initial writes always are).
    pub fn contains(&self, e: EventId) -> bool {
        e.is_init() || e.index < self.thread_len(e.thread)
    }

    /// All events, thread by thread.
    pub fn events(&self) -> impl Iterator<Item = (EventId, &Event)> {
        self.threads.iter().enumerate().flat_map(|(t, th)| {
            th.iter().flat_map(move |th| {
                th.events
                    .iter()
                    .enumerate()
                    .map(move |(i, e)| (EventId::new(t as ThreadId, i as u32), e))
            })
        })
    }

    /// Total number of events.
    pub fn len(&self) -> usize {
        self.threads.iter().flatten().map(|t| t.events.len()).sum()
    }

    /// Whether the graph has no events.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The stamp the next added event gets.
    pub fn next_stamp(&self) -> u32 {
        self.next_stamp
    }

    /// Location data.
    pub fn loc(&self, loc: Loc) -> Option<&LocData> {
        self.locs.get(loc)
    }

    /// The memory space of `loc` (`Global` for a location not in the graph).
    pub fn space_of(&self, loc: Loc) -> Space {
        self.locs.get(loc).map_or(Space::Global, |d| d.space)
    }

    /// Makes `loc`, a thread's park token ([`Loc::park_token`]), part of the
    /// graph if it is not yet: an atomic holding 0, created by the start of
    /// its thread (it lives as long as that event does).
    pub fn ensure_park_token(&mut self, loc: Loc) {
        debug_assert!(loc.is_park_token());
        if self.locs.get(loc).is_none() {
            let start = EventId::new(loc.thread(), 0);
            self.locs.insert(loc, 0, LocKind::Atomic, start, Space::Global);
        }
    }

    /// All locations.
    pub fn locs(&self) -> impl Iterator<Item = (&Loc, &LocData)> {
        self.locs.iter()
    }

    /// The value written by `w` to `loc` (`w` may be the initial write).
    pub fn write_value(&self, loc: Loc, w: EventId) -> Value {
        if w.is_init() {
            self.locs[&loc].init
        } else {
            self.event(w).as_write().expect("rf names a write").value
        }
    }

    /// Whether `loc` holds addresses (values of a pointer type, which
    /// differ from one execution to the next: docs/heap-addresses.md).
    pub fn holds_addresses(&self, loc: Loc) -> bool {
        self.locs
            .get(loc)
            .is_some_and(|d| matches!(self.event(d.alloc).kind, EventKind::Alloc { addresses: true, .. }))
    }

    /// Gives `loc`'s initial value (its allocation event's too) the value
    /// `v`: a replayed location that holds addresses takes the running
    /// execution's (docs/heap-addresses.md).
    pub fn set_init(&mut self, loc: Loc, v: Value) {
        let d = self.locs.get_mut(loc).expect("loc");
        d.init = v;
        let alloc = d.alloc;
        if let EventKind::Alloc { init, .. } = &mut self.event_mut(alloc).kind {
            *init = v;
        }
    }

    /// Thread slot for a new thread: the smallest free one.
    pub fn free_thread_slot(&self) -> ThreadId {
        self.threads
            .iter()
            .position(|t| t.is_none())
            .unwrap_or(self.threads.len()) as ThreadId
    }

    /// Where thread `t` runs.
    pub fn placement(&self, t: ThreadId) -> &Placement {
        self.placements.get(t as usize).unwrap_or(&Placement::HOST)
    }

    /// Records where thread `t` runs.
    pub fn set_placement(&mut self, t: ThreadId, p: Placement) {
        let i = t as usize;
        if self.placements.len() <= i {
            self.placements.resize(i + 1, Placement::HOST);
        }
        self.placements[i] = p;
    }

    /// The scope-inclusion question about event `e` of thread `t` acting at `scope`.
    pub fn actor(&self, t: ThreadId, scope: Scope) -> Actor<'_> {
        Actor {
            thread: t,
            placement: self.placement(t),
            scope,
        }
    }

    /// Whether events `a` and `b` are mutually scope-inclusive (initial
    /// writes are inclusive with everything).
    pub fn inclusive(&self, a: EventId, b: EventId) -> bool {
        if a.is_init() || b.is_init() {
            return true;
        }
        let (ea, eb) = (self.event(a), self.event(b));
        mutually_inclusive(self.actor(a.thread, ea.scope), self.actor(b.thread, eb.scope))
    }

    /// Appends an event to thread `t` (creating the thread if needed) and
    /// indexes it by location. The caller sets mo for writes with
    /// [`ExecutionGraph::insert_mo`].
    pub fn push_event(
        &mut self,
        t: ThreadId,
        kind: EventKind,
        src: SourceLoc,
        scope: Scope,
        rules: SyncRules,
        added_max: bool,
    ) -> EventId {
        let views = self.new_views(t, &kind, scope, rules);
        let ti = t as usize;
        if self.threads.len() <= ti {
            self.threads.resize(ti + 1, None);
        }
        if self.threads[ti].is_none() {
            self.threads[ti] = Some(ThreadEvents {
                events: self.spare.take(),
            });
        }
        let th = self.threads[ti].as_mut().expect("thread just made");
        let id = EventId::new(t, th.events.len() as u32);
        match &kind {
            EventKind::Alloc {
                loc,
                init,
                kind: kind_of,
                space,
                addresses,
            } => {
                self.locs.insert(*loc, *init, *kind_of, id, *space);
                self.addresses |= *addresses;
            }
            EventKind::Read(r) => {
                let d = self.locs.get_mut(r.loc).expect("loc");
                d.reads.push(id);
                d.note_access(id, false, false);
                d.has_plain |= r.order == Order::NonAtomic;
            }
            EventKind::Write(w) => {
                let d = self.locs.get_mut(w.loc).expect("loc");
                d.note_access(id, true, w.order.is_release());
                d.has_plain |= w.order == Order::NonAtomic;
                if w.rmw {
                    let rd = EventId::new(t, id.index - 1);
                    let ev = self.threads[ti].as_ref().expect("thread").events.get(rd.index as usize);
                    let rf = ev.and_then(|e| e.as_read()).expect("an RMW write follows its read").rf;
                    d.consumed.push((rf, rd));
                }
            }
            EventKind::Cell { loc, .. } => self.locs.get_mut(*loc).expect("loc").cells.push(id),
            _ => {}
        }
        if kind_is_sc(&kind) {
            self.sc_events += 1;
        }
        let mark = self.arena.len();
        let th = self.threads[ti].as_mut().expect("thread");
        let NewViews {
            porf,
            hb,
            msg,
            rel_fence,
            acq_pending,
            scoped,
        } = views;
        // Written straight into the vector's next slot: a value built on
        // the stack and then copied in costs a 160-byte copy per event
        // whose wide loads wait on the narrow stores that built it (a
        // store-forwarding stall; 8% of a random walk's time).
        th.events.reserve(1);
        th.events.spare_capacity_mut()[0].write(Event {
            kind,
            stamp: self.next_stamp,
            src,
            porf,
            hb,
            msg,
            mark,
            rel_fence,
            acq_pending,
            scope,
            scoped,
            added_max,
            revisitable: true,
            after_hint: false,
            rlx: None,
        });
        // SAFETY: the slot just written is the first one past the length,
        // within the capacity `reserve` made.
        unsafe { th.events.set_len(th.events.len() + 1) };
        self.next_stamp += 1;
        id
    }

    /// Number of seq_cst events.
    pub fn sc_events(&self) -> usize {
        self.sc_events
    }

    /// Removes the last event of thread `t` (undoing [`Self::push_event`] and,
    /// for a write, its place in mo).
    pub fn pop_event(&mut self, t: ThreadId) {
        let th = self.threads[t as usize].as_mut().expect("thread");
        let e = th.events.pop().expect("an event to pop");
        let id = EventId::new(t, th.events.len() as u32);
        if th.events.is_empty() {
            self.threads[t as usize] = None;
        }
        if e.is_sc() {
            self.sc_events -= 1;
        }
        match &e.kind {
            // (A taken-back event is normally the last of each list it is
            // in, or near the end: removed without a scan of the list.)
            EventKind::Read(r) => {
                let d = self.locs.get_mut(r.loc).expect("loc");
                remove_last(&mut d.reads, id);
                d.forget_access(id, false);
            }
            EventKind::Write(w) => {
                let d = self.locs.get_mut(w.loc).expect("loc");
                remove_last(&mut d.mo, id);
                if w.rmw {
                    if let Some(p) = d.consumed.iter().rposition(|(_, r)| r.next() == id) {
                        d.consumed.remove(p);
                    }
                }
                d.forget_access(id, true);
            }
            EventKind::Cell { loc, .. } => {
                remove_last(&mut self.locs.get_mut(*loc).expect("loc").cells, id);
            }
            EventKind::Alloc { loc, .. } => {
                self.locs.remove(*loc);
            }
            _ => {}
        }
        let plain = match &e.kind {
            EventKind::Read(r) => r.order == Order::NonAtomic,
            EventKind::Write(w) => w.order == Order::NonAtomic,
            _ => false,
        };
        if plain {
            // The location may have had no other plain access.
            self.recount_plain();
        }
        self.next_stamp = e.stamp;
        self.arena.truncate(self.arena_needed());
    }

    /// The number of view clocks the events of the graph use: the largest
    /// mark of a thread's last event (marks grow along each thread).
    fn arena_needed(&self) -> u32 {
        self.threads
            .iter()
            .flatten()
            .filter_map(|th| th.events.last())
            .map(|e| e.mark)
            .max()
            .unwrap_or(1)
    }

    /// Makes read `r` read from `w` (failing spuriously if `spurious`),
    /// recomputing its value, its order (an RMW's read part has its success or
    /// failure order depending on the value) and its views. `r` must be the
    /// last event of its thread.
    pub fn set_rf(&mut self, r: EventId, w: EventId, spurious: bool, rules: SyncRules) {
        let loc = self.event(r).as_read().expect("read").loc;
        let value = self.write_value(loc, w);
        let mut kind = self.event(r).kind.clone();
        if let EventKind::Read(rd) = &mut kind {
            rd.rf = w;
            rd.value = value;
            rd.spurious = spurious;
            rd.order = rd.effective_order();
        }
        // Recompute the views as if the read were appended anew.
        let th = self.threads[r.thread as usize].as_mut().expect("thread");
        let saved = th.events.pop().expect("read is last");
        debug_assert_eq!(th.events.len() as u32, r.index);
        // The read part of an RMW takes its success or failure order, so
        // it may become or stop being seq_cst.
        self.sc_events = self.sc_events - saved.is_sc() as usize + kind_is_sc(&kind) as usize;
        // Its old views go (it is its thread's last event, so no other
        // event uses them).
        self.arena.truncate(self.arena_needed());
        let views = self.new_views(r.thread, &kind, saved.scope, rules);
        let mark = self.arena.len();
        let th = self.threads[r.thread as usize].as_mut().expect("thread");
        th.events.push(Event {
            kind,
            porf: views.porf,
            hb: views.hb,
            msg: views.msg,
            mark,
            rel_fence: views.rel_fence,
            acq_pending: views.acq_pending,
            scoped: views.scoped,
            ..saved
        });
    }

    /// Keeps only the events with a stamp at most `stamp`.
    ///
    /// The explorer does this before almost every execution, so the indexes
    /// are fixed for what was removed rather than rebuilt from every kept
    /// event (`Self::reindex`).
    pub fn restrict_to_stamp(&mut self, stamp: u32) {
        let mut allocs_removed = false;
        let mut plain_removed = false;
        let mut sc_removed = 0;
        for th in self.threads.iter_mut() {
            if let Some(t) = th {
                let keep = t.events.iter().take_while(|e| e.stamp <= stamp).count();
                for e in &t.events[keep..] {
                    sc_removed += e.is_sc() as usize;
                    match &e.kind {
                        EventKind::Alloc { .. } => allocs_removed = true,
                        EventKind::Read(r) if r.order == Order::NonAtomic => plain_removed = true,
                        EventKind::Write(w) if w.order == Order::NonAtomic => plain_removed = true,
                        _ => {}
                    }
                }
                t.events.truncate(keep);
                if keep == 0 {
                    if let Some(t) = th.take() {
                        self.spare.keep(t.events);
                    }
                }
            }
        }
        while matches!(self.threads.last(), Some(None)) {
            self.threads.pop();
        }
        self.sc_events -= sc_removed;
        let threads = &self.threads;
        let live = |e: &EventId| match threads.get(e.thread as usize) {
            Some(Some(t)) => (e.index as usize) < t.events.len(),
            _ => false,
        };
        if allocs_removed {
            self.locs.retain(|d| live(&d.alloc));
        }
        for d in self.locs.values_mut() {
            d.drop_dead(live);
        }
        if plain_removed {
            self.recount_plain();
        }
        self.next_stamp = stamp + 1;
        self.arena.truncate(self.arena_needed());
        debug_assert_eq!(
            self.sc_events,
            self.events().filter(|(_, e)| e.is_sc()).count(),
            "checker invariant: the seq_cst count kept through restriction matches the graph"
        );
    }

    /// A copy holding only the events in `view` (downward closed): cheaper
    /// than cloning everything and then restricting.
    pub fn clone_restricted(&self, view: &Clock) -> ExecutionGraph {
        let threads: Vec<Option<ThreadEvents>> = self
            .threads
            .iter()
            .enumerate()
            .map(|(t, th)| {
                let keep = view.get(t as ThreadId) as usize;
                match th {
                    Some(th) if keep > 0 => Some(ThreadEvents {
                        events: th.events[..keep.min(th.events.len())].to_vec(),
                    }),
                    _ => None,
                }
            })
            .collect();
        let mut g = ExecutionGraph {
            threads,
            locs: LocTable::default(),
            next_stamp: 0,
            sc_events: 0,
            placements: self.placements.clone(),
            spare: Spare::default(),
            arena: Arena::default(),
            porf_skipped: self.porf_skipped,
            addresses: self.addresses,
            promises: self.promises.clone(),
        };
        g.arena = self.arena.prefix(g.arena_needed());
        let live = |e: &EventId| view.contains(*e);
        for (_, d) in self.locs.iter() {
            if live(&d.alloc) {
                g.locs.put(d.copy_live(live));
            }
        }
        g.reindex();
        g
    }

    /// Keeps only the events in `view` (which must be downward closed).
    pub fn restrict_to_view(&mut self, view: &Clock) {
        for (t, th) in self.threads.iter_mut().enumerate() {
            if let Some(tt) = th {
                let keep = view.get(t as ThreadId) as usize;
                tt.events.truncate(keep);
                if keep == 0 {
                    *th = None;
                }
            }
        }
        self.reindex();
    }

    fn reindex(&mut self) {
        while matches!(self.threads.last(), Some(None)) {
            self.threads.pop();
        }
        self.arena.truncate(self.arena_needed());
        let lens: Vec<u32> = (0..self.threads.len())
            .map(|t| self.thread_len(t as ThreadId))
            .collect();
        let live = |e: &EventId| e.index < lens.get(e.thread as usize).copied().unwrap_or(0);
        self.locs.retain(|d| live(&d.alloc));
        for d in self.locs.values_mut() {
            d.drop_dead(live);
        }
        self.sc_events = self.events().filter(|(_, e)| e.is_sc()).count();
        self.recount_plain();
        let max = self.events().map(|(_, e)| e.stamp).max();
        self.next_stamp = max.map_or(0, |m| m + 1);
    }

    /// Everything the graph holds, as text (spare allocations left out):
    /// debug builds compare graphs built two ways with it.
    /// The values of locations of addresses are left out: they are the
    /// values of whichever execution last ran the event, and move between
    /// executions (docs/heap-addresses.md).
    #[cfg(debug_assertions)]
    pub(crate) fn fingerprint(&self) -> String {
        let mut g = self.clone();
        let addresses: Vec<Loc> = g
            .locs
            .iter()
            .map(|(l, _)| *l)
            .filter(|&l| self.holds_addresses(l))
            .collect();
        for &l in &addresses {
            g.set_init(l, 0);
        }
        for th in g.threads.iter_mut().flatten() {
            for e in th.events.iter_mut() {
                match &mut e.kind {
                    EventKind::Read(r) if addresses.contains(&r.loc) => {
                        r.value = 0;
                        if let Some((RmwOp::Cas { expected, new, .. }, ..)) = &mut r.rmw {
                            (*expected, *new) = (0, 0);
                        }
                    }
                    EventKind::Write(w) if addresses.contains(&w.loc) => w.value = 0,
                    _ => {}
                }
            }
        }
        let locs: Vec<String> = g.locs.iter().map(|(_, d)| d.fingerprint()).collect();
        format!(
            "{:?} {:?} {} {} {:?} {:?} {}",
            g.threads, locs, g.next_stamp, g.sc_events, g.placements, g.arena, g.porf_skipped
        )
    }

    /// Recomputes which locations have plain (non-atomic) accesses.
    fn recount_plain(&mut self) {
        let mut plain = Vec::new();
        for (_, e) in self.events() {
            match &e.kind {
                EventKind::Read(r) if r.order == Order::NonAtomic => plain.push(r.loc),
                EventKind::Write(w) if w.order == Order::NonAtomic => plain.push(w.loc),
                _ => {}
            }
        }
        for d in self.locs.values_mut() {
            d.has_plain = false;
        }
        for l in plain {
            if let Some(d) = self.locs.get_mut(l) {
                d.has_plain = true;
            }
        }
    }
}

/// Removes `id` from `v`, searching from the end (where a taken-back
/// event normally is).
fn remove_last(v: &mut Vec<EventId>, id: EventId) {
    if v.last() == Some(&id) {
        v.pop();
    } else if let Some(p) = v.iter().rposition(|&x| x == id) {
        v.remove(p);
    }
}

fn kind_is_sc(k: &EventKind) -> bool {
    match k {
        EventKind::Read(r) => r.order.is_sc(),
        EventKind::Write(w) => w.order.is_sc(),
        EventKind::Fence { order } => order.is_sc(),
        _ => false,
    }
}
