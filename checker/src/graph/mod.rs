//! The execution graph: events per thread in program order, reads-from (each
//! read names its write) and modification order (each location keeps its
//! writes in mo order, the initial write implicitly first).
//!
//! The graph also computes the views of every event when it is added (see
//! [`ExecutionGraph::compute_views`]); each rule there cites the RC11
//! definition it implements.

use crate::clock::{Clock, SharedClock};
use crate::event::*;
use crate::scope::{mutually_inclusive, Actor};

mod locs;

pub use locs::LocData;
use locs::LocTable;

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

/// The views of an event about to be added.
pub struct Views {
    /// (po | rf)* predecessors.
    pub porf: Clock,
    /// happens-before predecessors.
    pub hb: Clock,
    /// Release-sequence message (writes).
    pub msg: Clock,
    /// View at the thread's last release fence.
    pub rel_fence: SharedClock,
    /// Pending acquire view for a later acquire fence.
    pub acq_pending: SharedClock,
    /// The scoped models' synchronization state (`None` for unscoped models).
    pub scoped: Option<Box<ScopedSync>>,
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

    /// Position of `w` in the mo of `loc`: 0 for the initial write, i + 1 for `mo[i]`.
    pub fn mo_position(&self, loc: Loc, w: EventId) -> usize {
        if w.is_init() {
            return 0;
        }
        let mo = &self.locs[&loc].mo;
        mo.iter().position(|&x| x == w).expect("write is in mo") + 1
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
        found
    }

    /// Whether the RMW read `r` has its write part in the graph: only an
    /// RMW's own write part is an RMW write right after a read, so this
    /// needs no arithmetic ([`ReadEvent::is_exclusive`] recomputes the
    /// operation).
    fn rmw_write_follows(&self, r: EventId) -> bool {
        let next = EventId::new(r.thread, r.index + 1);
        self.contains(next) && matches!(&self.event(next).kind, EventKind::Write(w) if w.rmw)
    }

    /// Thread slot for a new thread: the smallest free one.
    pub fn free_thread_slot(&self) -> ThreadId {
        self.threads
            .iter()
            .position(|t| t.is_none())
            .unwrap_or(self.threads.len()) as ThreadId
    }

    /// Computes the views of an event of kind `kind` about to be appended to
    /// thread `t`, synchronizing as `rules` say.
    pub fn compute_views(&self, t: ThreadId, kind: &EventKind, scope: Scope, rules: SyncRules) -> Views {
        if rules.scoped {
            return self.compute_scoped_views(t, kind, scope, rules);
        }
        let sc_sync = rules.all_sc;
        let me = EventId::new(t, self.thread_len(t));
        let prev = if me.index > 0 {
            Some(self.event(EventId::new(t, me.index - 1)))
        } else {
            None
        };
        let mut v = match prev {
            Some(p) => Views {
                porf: p.porf.clone(),
                hb: p.hb.clone(),
                msg: Clock::new(),
                rel_fence: p.rel_fence.clone(),
                acq_pending: p.acq_pending.clone(),
                scoped: None,
            },
            None => Views {
                porf: Clock::new(),
                hb: Clock::new(),
                msg: Clock::new(),
                rel_fence: SharedClock::default(),
                acq_pending: SharedClock::default(),
                scoped: None,
            },
        };
        match kind {
            // A thread starts after its spawn: asw ⊆ sw, and (spawn, start) ∈ porf.
            EventKind::Start { parent: Some(sp) } => {
                let s = self.event(*sp);
                v.porf.join(&s.porf);
                v.hb.join(&s.hb);
            }
            // Joining synchronizes with the end of the joined thread.
            EventKind::Join { target } => {
                let end = EventId::new(*target, self.thread_len(*target) - 1);
                let e = self.event(end);
                v.porf.join(&e.porf);
                v.hb.join(&e.hb);
            }
            // A barrier happens after what every member did before arriving,
            // in the spaces it fences (`space.rs`, rule 3).
            EventKind::Barrier { partners, fence, .. } => {
                for p in partners {
                    let e = self.event(*p);
                    v.porf.join(&e.porf);
                    join_fenced(&mut v.hb, &e.hb, *fence);
                }
            }
            // A read is porf-after its write. An acquire read reading a write
            // w synchronizes with the head of every release sequence w is in
            // (sw = [rel]; ([F]; po)?; rs; rf; [R]; (po; [F])?; [acq]):
            // msg(w) holds exactly those heads' views (with their fences).
            // A relaxed read keeps msg(w) for a later acquire fence.
            EventKind::Read(r) if !r.rf.is_init() => {
                let w = self.event(r.rf);
                v.porf.join(&w.porf);
                if r.order.is_atomic() {
                    if r.order.is_acquire() || sc_sync {
                        v.hb.join(&w.msg);
                    } else {
                        v.acq_pending.join(&w.msg);
                    }
                }
            }
            // An acquire fence acquires what the relaxed reads before it read.
            EventKind::Fence { order } if order.is_acquire() => {
                if let Some(pend) = v.acq_pending.get() {
                    v.hb.join(pend);
                }
            }
            _ => {}
        }
        v.porf.include(me);
        v.hb.include(me);
        match kind {
            // A release fence: later atomic writes carry the view it had.
            EventKind::Fence { order } if order.is_release() => {
                v.rel_fence.set(v.hb.clone());
            }
            // msg of a write: its own view if it is a release write; else the
            // view of the last release fence before it (fence-to-read sw); an
            // RMW also continues the release sequences of the write it read
            // (C++20 rs = [W]; (rf; rmw)*).
            EventKind::Write(w) => {
                let release = w.order.is_release() || sc_sync;
                if w.order.is_atomic() {
                    if release {
                        v.msg = v.hb.clone();
                    } else {
                        v.msg = v.rel_fence.to_clock();
                    }
                    if w.rmw {
                        let rd = self.event(EventId::new(t, me.index - 1));
                        let rf = rd.as_read().expect("rmw write follows its read").rf;
                        if !rf.is_init() {
                            v.msg.join(&self.event(rf).msg);
                        }
                    }
                }
                // C11's rs = [W]; po|loc?; [W]; (rf; rmw)*: a later atomic
                // write of the same thread to the same location continues
                // the release sequence headed by an earlier release write
                // there, so it carries that head's view (the latest head's
                // view contains every earlier one's). Plain writes are left
                // out: an atomic read of one is a mixed access RC11 leaves
                // to the race rules.
                if rules.same_thread_rs && !release && w.order.is_atomic() {
                    if let Some(h) = self.last_release_write(t, me.index, w.loc) {
                        v.msg.join(&self.event(h).hb);
                    }
                }
            }
            _ => {}
        }
        v
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

    /// The views of a new event under a scoped model: like
    /// [`ExecutionGraph::compute_views`], but a release is kept with its
    /// thread and scope (a [`Head`]) instead of being merged into one clock,
    /// and an acquire joins only the heads it is mutually scope-inclusive
    /// with. A read (or an RMW continuing a release sequence) takes nothing
    /// from a write it is not mutually inclusive with.
    fn compute_scoped_views(&self, t: ThreadId, kind: &EventKind, scope: Scope, rules: SyncRules) -> Views {
        let me = EventId::new(t, self.thread_len(t));
        let prev = (me.index > 0).then(|| self.event(EventId::new(t, me.index - 1)));
        let mut porf = prev.map(|p| p.porf.clone()).unwrap_or_default();
        let mut hb = prev.map(|p| p.hb.clone()).unwrap_or_default();
        let mut sync: ScopedSync = prev.and_then(|p| p.scoped.as_deref().cloned()).unwrap_or_default();
        sync.heads.clear();
        let actor = self.actor(t, scope);
        let reaches = |h: &Head| mutually_inclusive(self.actor(h.thread, h.scope), actor);
        match kind {
            EventKind::Start { parent: Some(sp) } => {
                let s = self.event(*sp);
                porf.join(&s.porf);
                hb.join(&s.hb);
            }
            EventKind::Join { target } => {
                let e = self.event(EventId::new(*target, self.thread_len(*target) - 1));
                porf.join(&e.porf);
                hb.join(&e.hb);
            }
            EventKind::Barrier { partners, fence, .. } => {
                for p in partners {
                    let e = self.event(*p);
                    porf.join(&e.porf);
                    join_fenced(&mut hb, &e.hb, *fence);
                }
            }
            EventKind::Read(r) if !r.rf.is_init() => {
                let w = self.event(r.rf);
                porf.join(&w.porf);
                let linked = mutually_inclusive(self.actor(r.rf.thread, w.scope), actor);
                if r.order.is_atomic() && linked {
                    let heads = w.scoped.as_deref().map(|s| s.heads.as_slice()).unwrap_or(&[]);
                    for h in heads {
                        if r.order.is_acquire() {
                            if reaches(h) {
                                hb.join(&h.view);
                            }
                        } else if !sync.pending.contains(h) {
                            sync.pending.push(h.clone());
                        }
                    }
                }
            }
            EventKind::Fence { order } if order.is_acquire() => {
                for h in &sync.pending {
                    if reaches(h) {
                        hb.join(&h.view);
                    }
                }
            }
            _ => {}
        }
        porf.include(me);
        hb.include(me);
        let here = |hb: &Clock| Head {
            view: hb.clone(),
            thread: t,
            scope,
        };
        match kind {
            EventKind::Fence { order } if order.is_release() => sync.fence = Some(here(&hb)),
            EventKind::Write(w) if w.order.is_atomic() => {
                if w.order.is_release() {
                    sync.heads.push(here(&hb));
                } else if let Some(f) = &sync.fence {
                    sync.heads.push(f.clone());
                }
                if w.rmw {
                    // The RMW continues the release sequences of the write its
                    // read part read, if it is mutually inclusive with it.
                    let rd = self.event(EventId::new(t, me.index - 1));
                    let rf = rd.as_read().expect("rmw write follows its read").rf;
                    if !rf.is_init() {
                        let src = self.event(rf);
                        if mutually_inclusive(self.actor(rf.thread, src.scope), actor) {
                            for h in src.scoped.as_deref().map(|s| s.heads.as_slice()).unwrap_or(&[]) {
                                if !sync.heads.contains(h) {
                                    sync.heads.push(h.clone());
                                }
                            }
                        }
                    }
                }
                if rules.same_thread_rs && !w.order.is_release() {
                    if let Some(h) = self.last_release_write(t, me.index, w.loc) {
                        let e = self.event(h);
                        let head = Head {
                            view: e.hb.clone(),
                            thread: t,
                            scope: e.scope,
                        };
                        if !sync.heads.contains(&head) {
                            sync.heads.push(head);
                        }
                    }
                }
            }
            _ => {}
        }
        Views {
            porf,
            hb,
            msg: Clock::new(),
            rel_fence: SharedClock::default(),
            acq_pending: SharedClock::default(),
            scoped: Some(Box::new(sync)),
        }
    }

    /// The last release write to `loc` among the first `before` events of thread `t`.
    fn last_release_write(&self, t: ThreadId, before: u32, loc: Loc) -> Option<EventId> {
        (0..before)
            .rev()
            .map(|i| EventId::new(t, i))
            .find(|&e| matches!(&self.event(e).kind, EventKind::Write(w) if w.loc == loc && w.order.is_release()))
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
        views: Views,
        added_max: bool,
    ) -> EventId {
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
            } => {
                self.locs.insert(*loc, *init, *kind_of, id, *space);
            }
            EventKind::Read(r) => {
                let d = self.locs.get_mut(r.loc).expect("loc");
                d.reads.push(id);
                d.has_plain |= r.order == Order::NonAtomic;
            }
            EventKind::Write(w) => {
                let rmw_source = if w.rmw {
                    let rd = EventId::new(t, id.index - 1);
                    let ev = self.threads[ti].as_ref().expect("thread").events.get(rd.index as usize);
                    Some((
                        ev.and_then(|e| e.as_read()).expect("an RMW write follows its read").rf,
                        rd,
                    ))
                } else {
                    None
                };
                let d = self.locs.get_mut(w.loc).expect("loc");
                d.has_plain |= w.order == Order::NonAtomic;
                d.consumed.extend(rmw_source);
            }
            EventKind::Cell { loc, .. } => self.locs.get_mut(*loc).expect("loc").cells.push(id),
            _ => {}
        }
        if kind_is_sc(&kind) {
            self.sc_events += 1;
        }
        let th = self.threads[ti].as_mut().expect("thread");
        th.events.push(Event {
            kind,
            stamp: self.next_stamp,
            src,
            porf: views.porf,
            hb: views.hb,
            msg: views.msg,
            rel_fence: views.rel_fence,
            acq_pending: views.acq_pending,
            scope,
            scoped: views.scoped,
            added_max,
            revisitable: true,
            rlx: None,
        });
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
            EventKind::Read(r) => {
                let d = self.locs.get_mut(r.loc).expect("loc");
                d.reads.retain(|&x| x != id);
            }
            EventKind::Write(w) => {
                let d = self.locs.get_mut(w.loc).expect("loc");
                d.mo.retain(|&x| x != id);
                d.consumed.retain(|(_, r)| r.next() != id);
            }
            EventKind::Cell { loc, .. } => {
                self.locs.get_mut(*loc).expect("loc").cells.retain(|&x| x != id);
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
    }

    /// Places write `w` at mo position `pos` (1 = right after the initial write).
    pub fn insert_mo(&mut self, loc: Loc, w: EventId, pos: usize) {
        let mo = &mut self.locs.get_mut(loc).expect("loc").mo;
        mo.insert(pos - 1, w);
    }

    /// Moves write `w` to mo position `pos` (positions counted without `w`).
    pub fn move_mo(&mut self, loc: Loc, w: EventId, pos: usize) {
        let mo = &mut self.locs.get_mut(loc).expect("loc").mo;
        let i = mo.iter().position(|&x| x == w).expect("write in mo");
        mo.remove(i);
        mo.insert(pos - 1, w);
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
        let views = self.compute_views(r.thread, &kind, saved.scope, rules);
        let th = self.threads[r.thread as usize].as_mut().expect("thread");
        th.events.push(Event {
            kind,
            porf: views.porf,
            hb: views.hb,
            msg: views.msg,
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
    /// event ([`Self::reindex`]).
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
        };
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

/// A barrier's hb join: the partner's view in every space the barrier
/// fences, nothing in the others (`space.rs`, rule 3).
fn join_fenced(hb: &mut Clock, partner: &Clock, fence: FenceSpace) {
    match fence {
        FenceSpace::Both => hb.join(partner),
        FenceSpace::Global => hb.join_space(partner, Space::Global),
        FenceSpace::Local => hb.join_space(partner, Space::Local),
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
