//! The views of events (porf, hb, and the message a write carries to the
//! acquire reads that read it), and how a new event's views are computed:
//! each rule next to the RC11 definition it implements.
//!
//! Storage. A view of event `e` is a clock of the graph's arena plus `e`'s
//! own prefix in its thread, which the clock need not hold. Most events
//! take nothing from other threads (a relaxed access acquires nothing; a
//! read of the thread's own write adds nothing to porf), so their views are
//! their po-predecessor's clock with one more event of their own: they
//! share that clock's slot instead of copying it. A new clock is stored
//! only when a view gains an event of another thread. An event is about a
//! fifth of the size it had with three clocks inline, and adding one copies
//! a clock only when something was joined.
//!
//! Slots are allocated in the order events are added, and a thread's
//! events take slots in program order, so each event records the arena's
//! length after it was added (`mark`); cutting the graph back cuts the
//! arena to the largest mark left.

use super::ExecutionGraph;
use super::SyncRules;
use crate::clock::{Clock, Msg, SharedClock};
use crate::event::*;
use crate::scope::mutually_inclusive;

/// The clocks of a graph's views. Slot 0 holds the empty clock.
#[derive(Clone, Debug)]
pub(super) struct Arena(Vec<Clock>);

impl Default for Arena {
    fn default() -> Arena {
        Arena(vec![Clock::new()])
    }
}

impl Arena {
    /// The clock in `slot`.
    #[inline]
    pub(super) fn get(&self, slot: u32) -> &Clock {
        &self.0[slot as usize]
    }
    fn push(&mut self, c: Clock) -> u32 {
        self.0.push(c);
        (self.0.len() - 1) as u32
    }
    /// Number of slots.
    pub(super) fn len(&self) -> u32 {
        self.0.len() as u32
    }
    /// Keeps the first `len` slots (at least the empty clock).
    pub(super) fn truncate(&mut self, len: u32) {
        self.0.truncate(len.max(1) as usize);
    }
    /// A copy of the first `len` slots.
    pub(super) fn prefix(&self, len: u32) -> Arena {
        Arena(self.0[..(len.max(1) as usize).min(self.0.len())].to_vec())
    }
    fn view(&self, r: ViewRef) -> View<'_> {
        View {
            base: self.get(r.slot),
            own: r.own,
        }
    }
    /// A new slot holding a copy of `slot`'s clock.
    fn copy(&mut self, slot: u32) -> u32 {
        let c = self.get(slot).clone();
        self.push(c)
    }
    /// Joins the view `r` into the clock of `into`, a slot made after it.
    fn join_into(&mut self, into: u32, r: ViewRef) {
        debug_assert!(r.slot < into, "checker invariant: a view joins into a newer slot");
        let (older, newer) = self.0.split_at_mut(into as usize);
        let c = &mut newer[0];
        c.join(&older[r.slot as usize]);
        if let Some(o) = r.own {
            c.include(o);
        }
    }
}

/// A view as the graph keeps it: a slot, and the event whose own view it
/// is (its thread's prefix up to it is in the view besides the slot's clock).
#[derive(Copy, Clone)]
struct ViewRef {
    slot: u32,
    own: Option<EventId>,
}

/// A downward-closed set of events: a view of the graph to ask questions of.
#[derive(Copy, Clone, Debug)]
pub struct View<'g> {
    base: &'g Clock,
    /// The event whose view this is: its thread's prefix up to it is in
    /// the view besides `base`.
    own: Option<EventId>,
}

static EMPTY: Clock = Clock::new();

impl View<'_> {
    /// The empty view.
    pub fn empty() -> View<'static> {
        View {
            base: &EMPTY,
            own: None,
        }
    }
    fn own_has(&self, e: EventId) -> bool {
        self.own.is_some_and(|o| o.thread == e.thread && e.index <= o.index)
    }
    /// Whether the view holds event `e` (initial writes are in every view),
    /// as far as global memory is concerned.
    #[inline]
    pub fn contains(&self, e: EventId) -> bool {
        e.is_init() || self.own_has(e) || self.base.contains(e)
    }
    /// Whether the view holds event `e` as far as accesses to `space` are
    /// concerned (rule 4 of `space.rs`).
    #[inline]
    pub fn contains_in(&self, space: Space, e: EventId) -> bool {
        e.is_init() || self.own_has(e) || self.base.contains_in(space, e)
    }
    /// How many events of thread `t` the view holds (global memory).
    pub fn get(&self, t: ThreadId) -> u32 {
        let own = match self.own {
            Some(o) if o.thread == t => o.index + 1,
            _ => 0,
        };
        self.base.get(t).max(own)
    }
    /// How many events of thread `t` the view holds as far as accesses to
    /// `space` are concerned.
    pub fn get_in(&self, space: Space, t: ThreadId) -> u32 {
        let own = match self.own {
            Some(o) if o.thread == t => o.index + 1,
            _ => 0,
        };
        self.base.get_in(space, t).max(own)
    }
    /// The view as a clock of its own.
    pub fn to_clock(&self) -> Clock {
        let mut c = self.base.clone();
        self.join_into(&mut c);
        c
    }
    /// Whether the view is empty.
    pub fn is_empty(&self) -> bool {
        self.own.is_none() && self.base.is_empty()
    }
    /// Joins the view into `c`.
    fn join_into(&self, c: &mut Clock) {
        c.join(self.base);
        if let Some(o) = self.own {
            c.include(o);
        }
    }
}

/// A view being computed for a new event `me`: its predecessor's slot,
/// until something not in it is joined; from then on a slot of its own,
/// made at the end of the arena (after every slot it joins from).
struct Pending {
    slot: u32,
    fresh: bool,
}

impl Pending {
    fn of(slot: u32) -> Pending {
        Pending { slot, fresh: false }
    }
    /// The view so far.
    fn as_ref(&self, me: EventId) -> ViewRef {
        ViewRef {
            slot: self.slot,
            own: Some(me),
        }
    }
    /// Makes the slot its own, a copy of the predecessor's.
    fn make_fresh(&mut self, arena: &mut Arena) {
        if !self.fresh {
            self.slot = arena.copy(self.slot);
            self.fresh = true;
        }
    }
    /// Joins `other` into the view.
    fn join(&mut self, arena: &mut Arena, me: EventId, other: ViewRef) {
        if !self.fresh && arena.get(self.slot).covers(me, arena.get(other.slot), other.own) {
            return;
        }
        self.make_fresh(arena);
        arena.join_into(self.slot, other);
    }
    /// Joins a clock that is not in the arena into the view.
    fn join_clock(&mut self, arena: &mut Arena, me: EventId, other: &Clock) {
        if !self.fresh && arena.get(self.slot).covers(me, other, None) {
            return;
        }
        self.make_fresh(arena);
        arena.0[self.slot as usize].join(other);
    }
    /// Joins `other`'s components of the spaces `fence` orders (a barrier:
    /// `space.rs`, rule 3).
    fn join_fenced(&mut self, arena: &mut Arena, me: EventId, other: ViewRef, fence: FenceSpace) {
        if fence == FenceSpace::Both {
            return self.join(arena, me, other);
        }
        let partner = arena.view(other).to_clock();
        self.make_fresh(arena);
        arena.0[self.slot as usize].join_fenced(&partner, fence);
    }
}

/// The views computed for a new event.
pub(super) struct NewViews {
    pub(super) porf: u32,
    pub(super) hb: u32,
    pub(super) msg: Msg,
    pub(super) rel_fence: SharedClock,
    pub(super) acq_pending: SharedClock,
    pub(super) scoped: Option<Box<ScopedSync>>,
}

impl ExecutionGraph {
    /// The (po | rf)* predecessors of `e`, itself included.
    ///
    /// Only a graph that keeps porf answers ([`ExecutionGraph::keep_porf`]);
    /// asking one that does not is a checker bug, stopped here rather than
    /// answered wrongly.
    pub fn porf(&self, e: EventId) -> View<'_> {
        assert!(
            !self.porf_skipped,
            "checker invariant: porf asked of a graph that does not keep it (its strategy said it needs none)"
        );
        self.porf_view(e)
    }

    /// [`ExecutionGraph::porf`] without the check (the scoped rules compute
    /// porf in full either way).
    fn porf_view(&self, e: EventId) -> View<'_> {
        View {
            base: self.arena.get(self.event(e).porf),
            own: Some(e),
        }
    }

    /// The events that happen before `e`, itself included.
    pub fn hb(&self, e: EventId) -> View<'_> {
        View {
            base: self.arena.get(self.event(e).hb),
            own: Some(e),
        }
    }

    fn porf_ref(&self, e: EventId) -> ViewRef {
        ViewRef {
            slot: self.event(e).porf,
            own: Some(e),
        }
    }

    /// Joins `from`'s porf view into `porf`, the pending porf view of the
    /// new event `me`, unless the graph skips porf.
    fn join_porf(&mut self, porf: &mut Pending, me: EventId, from: EventId) {
        if !self.porf_skipped {
            let p = self.porf_ref(from);
            porf.join(&mut self.arena, me, p);
        }
    }

    fn hb_ref(&self, e: EventId) -> ViewRef {
        ViewRef {
            slot: self.event(e).hb,
            own: Some(e),
        }
    }

    fn msg_ref(&self, w: EventId) -> Option<ViewRef> {
        let e = self.event(w);
        match e.msg {
            Msg::Empty => None,
            Msg::Hb => Some(ViewRef {
                slot: e.hb,
                own: Some(w),
            }),
            Msg::Slot(slot) => Some(ViewRef { slot, own: None }),
        }
    }

    /// What an acquire read of write `w` acquires (`None`: nothing).
    pub fn msg(&self, w: EventId) -> Option<View<'_>> {
        let e = self.event(w);
        match e.msg {
            Msg::Empty => None,
            Msg::Hb => Some(View {
                base: self.arena.get(e.hb),
                own: Some(w),
            }),
            Msg::Slot(s) => Some(View {
                base: self.arena.get(s),
                own: None,
            }),
        }
    }

    /// Computes and stores the views of an event of kind `kind` about to be
    /// appended to thread `t`, synchronizing as `rules` say.
    pub(super) fn new_views(&mut self, t: ThreadId, kind: &EventKind, scope: Scope, rules: SyncRules) -> NewViews {
        if rules.scoped {
            return self.new_scoped_views(t, kind, scope, rules);
        }
        let sc_sync = rules.all_sc;
        let me = EventId::new(t, self.thread_len(t));
        let (mut porf, mut hb, mut rel_fence, mut acq_pending) = match self.thread_events(t).last() {
            Some(p) => (
                Pending::of(p.porf),
                Pending::of(p.hb),
                p.rel_fence.clone(),
                p.acq_pending.clone(),
            ),
            None => (
                Pending::of(0),
                Pending::of(0),
                SharedClock::default(),
                SharedClock::default(),
            ),
        };
        match kind {
            // A thread starts after its spawn: asw ⊆ sw, and (spawn, start) ∈ porf.
            EventKind::Start { parent: Some(sp) } => {
                self.join_porf(&mut porf, me, *sp);
                let h = self.hb_ref(*sp);
                hb.join(&mut self.arena, me, h);
            }
            // Joining synchronizes with the end of the joined thread.
            EventKind::Join { target } => {
                let end = EventId::new(*target, self.thread_len(*target) - 1);
                self.join_porf(&mut porf, me, end);
                let h = self.hb_ref(end);
                hb.join(&mut self.arena, me, h);
            }
            // A barrier happens after what every member did before arriving,
            // in the spaces it fences (`space.rs`, rule 3).
            EventKind::Barrier { partners, fence, .. } => {
                for &partner in partners {
                    self.join_porf(&mut porf, me, partner);
                    let h = self.hb_ref(partner);
                    hb.join_fenced(&mut self.arena, me, h, *fence);
                }
            }
            // A read is porf-after its write. An acquire read reading a write
            // w synchronizes with the head of every release sequence w is in
            // (sw = [rel]; ([F]; po)?; rs; rf; [R]; (po; [F])?; [acq]):
            // msg(w) holds exactly those heads' views (with their fences).
            // A relaxed read keeps msg(w) for a later acquire fence.
            EventKind::Read(r) if !r.rf.is_init() => {
                self.join_porf(&mut porf, me, r.rf);
                if r.order.is_atomic() {
                    if let Some(m) = self.msg_ref(r.rf) {
                        if r.order.is_acquire() || sc_sync {
                            hb.join(&mut self.arena, me, m);
                        } else {
                            acq_pending.join(&self.arena.view(m).to_clock());
                        }
                    }
                }
            }
            // An acquire fence acquires what the relaxed reads before it read.
            EventKind::Fence { order } if order.is_acquire() => {
                if let Some(pend) = acq_pending.get() {
                    hb.join_clock(&mut self.arena, me, pend);
                }
            }
            _ => {}
        }
        // The event itself is in its views: its own prefix is implicit.
        let mut msg = Msg::Empty;
        match kind {
            // A release fence: later atomic writes carry the view it had.
            EventKind::Fence { order } if order.is_release() => {
                rel_fence.set(self.arena.view(hb.as_ref(me)).to_clock());
            }
            // msg of a write: its own view if it is a release write; else the
            // view of the last release fence before it (fence-to-read sw); an
            // RMW also continues the release sequences of the write it read
            // (C++20 rs = [W]; (rf; rmw)*).
            EventKind::Write(w) => {
                let release = w.order.is_release() || sc_sync;
                // What the write carries besides its own view, in a slot of its own.
                let mut extra: Option<u32> = None;
                if w.order.is_atomic() {
                    if release {
                        msg = Msg::Hb;
                    } else if let Some(f) = rel_fence.get() {
                        extra = Some(self.arena.push(f.clone()));
                    }
                    if w.rmw {
                        let rd = self.event(EventId::new(t, me.index - 1));
                        let rf = rd.as_read().expect("rmw write follows its read").rf;
                        if let Some(m) = (!rf.is_init()).then(|| self.msg_ref(rf)).flatten() {
                            let hb_now = self.arena.get(hb.slot);
                            let covered = release && hb_now.covers(me, self.arena.get(m.slot), m.own);
                            if !covered {
                                let slot = *extra.get_or_insert_with(|| self.arena.push(Clock::new()));
                                self.arena.join_into(slot, m);
                            }
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
                        let head = self.hb_ref(h);
                        let slot = *extra.get_or_insert_with(|| self.arena.push(Clock::new()));
                        self.arena.join_into(slot, head);
                    }
                }
                if let Some(slot) = extra {
                    if msg == Msg::Hb {
                        self.arena.join_into(slot, hb.as_ref(me));
                    }
                    msg = Msg::Slot(slot);
                }
            }
            _ => {}
        }
        NewViews {
            porf: porf.slot,
            hb: hb.slot,
            msg,
            rel_fence,
            acq_pending,
            scoped: None,
        }
    }

    /// The views of a new event under a scoped model: like
    /// [`ExecutionGraph::new_views`], but a release is kept with its
    /// thread and scope (a [`Head`]) instead of being merged into one clock,
    /// and an acquire joins only the heads it is mutually scope-inclusive
    /// with. A read (or an RMW continuing a release sequence) takes nothing
    /// from a write it is not mutually inclusive with.
    fn new_scoped_views(&mut self, t: ThreadId, kind: &EventKind, scope: Scope, rules: SyncRules) -> NewViews {
        let me = EventId::new(t, self.thread_len(t));
        let (porf, hb, sync) = {
            let g = &*self;
            let prev = (me.index > 0).then(|| EventId::new(t, me.index - 1));
            let mut porf = prev.map(|p| g.porf_view(p).to_clock()).unwrap_or_default();
            let mut hb = prev.map(|p| g.hb(p).to_clock()).unwrap_or_default();
            let mut sync: ScopedSync = prev
                .and_then(|p| g.event(p).scoped.as_deref().cloned())
                .unwrap_or_default();
            sync.heads.clear();
            let actor = g.actor(t, scope);
            let reaches = |h: &Head| mutually_inclusive(g.actor(h.thread, h.scope), actor);
            match kind {
                EventKind::Start { parent: Some(sp) } => {
                    g.porf_view(*sp).join_into(&mut porf);
                    g.hb(*sp).join_into(&mut hb);
                }
                EventKind::Join { target } => {
                    let end = EventId::new(*target, g.thread_len(*target) - 1);
                    g.porf_view(end).join_into(&mut porf);
                    g.hb(end).join_into(&mut hb);
                }
                EventKind::Barrier { partners, fence, .. } => {
                    for &p in partners {
                        g.porf_view(p).join_into(&mut porf);
                        hb.join_fenced(&g.hb(p).to_clock(), *fence);
                    }
                }
                EventKind::Read(r) if !r.rf.is_init() => {
                    let w = g.event(r.rf);
                    g.porf_view(r.rf).join_into(&mut porf);
                    let linked = mutually_inclusive(g.actor(r.rf.thread, w.scope), actor);
                    if r.order.is_atomic() && linked {
                        let heads = w.scoped.as_deref().map(|s| s.heads.as_slice()).unwrap_or(&[]);
                        for h in heads {
                            if r.order.is_acquire() {
                                if reaches(h) {
                                    hb.join(&h.view);
                                }
                            } else {
                                add_head(&mut sync.pending, h);
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
                        let rd = g.event(EventId::new(t, me.index - 1));
                        let rf = rd.as_read().expect("rmw write follows its read").rf;
                        if !rf.is_init() {
                            let src = g.event(rf);
                            if mutually_inclusive(g.actor(rf.thread, src.scope), actor) {
                                for h in src.scoped.as_deref().map(|s| s.heads.as_slice()).unwrap_or(&[]) {
                                    add_head(&mut sync.heads, h);
                                }
                            }
                        }
                    }
                    if rules.same_thread_rs && !w.order.is_release() {
                        if let Some(h) = g.last_release_write(t, me.index, w.loc) {
                            let head = Head {
                                view: g.hb(h).to_clock(),
                                thread: t,
                                scope: g.event(h).scope,
                            };
                            add_head(&mut sync.heads, &head);
                        }
                    }
                }
                _ => {}
            }
            (porf, hb, sync)
        };
        // Shared with the predecessor when nothing new was joined.
        let prev = self.thread_events(t).last().map(|e| (e.porf, e.hb));
        let mut intern = |c: Clock, prev_slot: Option<u32>| {
            let slot = prev_slot.unwrap_or(0);
            if self.arena.get(slot).covers(me, &c, None) {
                slot
            } else {
                self.arena.push(c)
            }
        };
        let porf = intern(porf, prev.map(|p| p.0));
        let hb = intern(hb, prev.map(|p| p.1));
        NewViews {
            porf,
            hb,
            msg: Msg::Empty,
            rel_fence: SharedClock::default(),
            acq_pending: SharedClock::default(),
            scoped: Some(Box::new(sync)),
        }
    }

    /// The last release write to `loc` among the first `before` events of
    /// thread `t`: from the location's index of release writes by thread
    /// (a scan of the thread's events made every relaxed write of a long
    /// thread under `rc11` cost the thread's length).
    fn last_release_write(&self, t: ThreadId, before: u32, loc: Loc) -> Option<EventId> {
        let rel = self.locs.get(loc).map_or(&[][..], |d| d.thread_releases(t));
        let k = rel.partition_point(|&i| i < before);
        let found = (k > 0).then(|| EventId::new(t, rel[k - 1]));
        #[cfg(debug_assertions)]
        let scanned = crate::work::uncounted(|| {
            (0..before)
                .rev()
                .map(|i| EventId::new(t, i))
                .find(|&e| matches!(&self.event(e).kind, EventKind::Write(w) if w.loc == loc && w.order.is_release()))
        });
        #[cfg(debug_assertions)]
        debug_assert_eq!(
            found, scanned,
            "checker invariant: the index of release writes matches the thread's events"
        );
        found
    }
}

/// Adds `h` to `list` unless a head of the same thread and scope already
/// holds its view (one whose view `h` holds is replaced instead). The heads
/// of one thread are its views at points of its program order, so they
/// nest, and whether an acquire joins a head's view depends only on the
/// head's thread and scope: a head another holds changes no view. Kept
/// so, a list has one head per thread and scope; adding every head made
/// each RMW of a chain of seq_cst RMWs carry (and copy) all the earlier
/// ones under `src11`, so a chain cost its length per event.
fn add_head(list: &mut Vec<Head>, h: &Head) {
    for x in list.iter_mut() {
        if x.thread == h.thread && x.scope == h.scope {
            if x.view.includes(&h.view) {
                return;
            }
            if h.view.includes(&x.view) {
                *x = h.clone();
                return;
            }
        }
    }
    list.push(h.clone());
}

#[cfg(test)]
mod tests {
    use super::super::SyncRules;
    use super::*;
    use crate::event::{Loc, LocKind, Order, ReadEvent, Scope, SourceLoc, WriteEvent};
    use crate::space::Space;

    const RULES: SyncRules = SyncRules {
        all_sc: false,
        same_thread_rs: false,
        scoped: false,
    };

    /// Main allocates x, spawns thread 1, which writes x = 1 (release);
    /// main then reads it (acquire) and writes x = 2 (relaxed).
    fn message_passing(keep_porf: bool) -> ExecutionGraph {
        let mut g = ExecutionGraph::new();
        g.keep_porf(keep_porf);
        let src = SourceLoc::caller();
        let x = Loc::new(0, 0);
        let push = |g: &mut ExecutionGraph, t, kind| g.push_event(t, kind, src, Scope::System, RULES, true);
        push(&mut g, 0, EventKind::Start { parent: None });
        push(
            &mut g,
            0,
            EventKind::Alloc {
                loc: x,
                init: 0,
                kind: LocKind::Atomic,
                space: Space::Global,
                addresses: false,
            },
        );
        let sp = push(&mut g, 0, EventKind::Spawn { child: 1 });
        push(&mut g, 1, EventKind::Start { parent: Some(sp) });
        let w = WriteEvent {
            loc: x,
            order: Order::Release,
            value: 1,
            rmw: false,
        };
        let w1 = push(&mut g, 1, EventKind::Write(w));
        g.insert_mo(x, w1, 1);
        let r = ReadEvent {
            loc: x,
            order: Order::Acquire,
            rf: w1,
            value: 1,
            rmw: None,
            spurious: false,
            await_: None,
        };
        push(&mut g, 0, EventKind::Read(r));
        let w2 = push(
            &mut g,
            0,
            EventKind::Write(WriteEvent {
                order: Order::Relaxed,
                value: 2,
                ..w
            }),
        );
        g.insert_mo(x, w2, 2);
        g
    }

    #[test]
    fn a_graph_without_porf_has_the_same_hb_and_refuses_porf_questions() {
        let (kept, skipped) = (message_passing(true), message_passing(false));
        let events: Vec<EventId> = (0..2)
            .flat_map(|t| (0..kept.thread_len(t)).map(move |i| EventId::new(t, i)))
            .collect();
        assert_eq!(events.len(), 7);
        for &e in &events {
            assert_eq!(kept.hb(e).to_clock(), skipped.hb(e).to_clock(), "hb of {e:?}");
        }
        // The read's porf holds thread 1's write; its hb too (acquire).
        let read = EventId::new(0, 3);
        assert!(kept.porf(read).contains(EventId::new(1, 1)));
        assert!(skipped.hb(read).contains(EventId::new(1, 1)));
        let asked = std::panic::catch_unwind(|| skipped.porf(read).to_clock());
        assert!(
            asked.is_err(),
            "porf of a graph that does not keep it must not be answered"
        );
        // Only an empty graph changes its mind.
        let mut g = message_passing(false);
        g.keep_porf(true);
        assert!(std::panic::catch_unwind(|| g.porf(read).to_clock()).is_err());
    }
}
