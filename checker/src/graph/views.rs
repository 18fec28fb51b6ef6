//! The views of events (porf, hb, and the message a write carries to the
//! acquire reads that read it): how they are stored and asked. How a new
//! event's views are computed, the synchronizes-with rule with its RC11
//! definition, is in `sw.rs`.
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
use crate::clock::{Clock, Msg, SharedClock};
use crate::event::*;

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
    pub(super) fn push(&mut self, c: Clock) -> u32 {
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
    pub(super) fn view(&self, r: ViewRef) -> View<'_> {
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
    pub(super) fn join_into(&mut self, into: u32, r: ViewRef) {
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
pub(super) struct ViewRef {
    pub(super) slot: u32,
    pub(super) own: Option<EventId>,
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
pub(super) struct Pending {
    slot: u32,
    fresh: bool,
}

impl Pending {
    pub(super) fn of(slot: u32) -> Pending {
        Pending { slot, fresh: false }
    }
    /// The slot of the view so far.
    pub(super) fn slot(&self) -> u32 {
        self.slot
    }
    /// The view so far.
    pub(super) fn as_ref(&self, me: EventId) -> ViewRef {
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
    pub(super) fn join(&mut self, arena: &mut Arena, me: EventId, other: ViewRef) {
        if !self.fresh && arena.get(self.slot).covers(me, arena.get(other.slot), other.own) {
            return;
        }
        self.make_fresh(arena);
        arena.join_into(self.slot, other);
    }
    /// Joins a clock that is not in the arena into the view.
    pub(super) fn join_clock(&mut self, arena: &mut Arena, me: EventId, other: &Clock) {
        if !self.fresh && arena.get(self.slot).covers(me, other, None) {
            return;
        }
        self.make_fresh(arena);
        arena.0[self.slot as usize].join(other);
    }
    /// Joins `other`'s components of the spaces `fence` orders (a barrier:
    /// `space.rs`, rule 3).
    pub(super) fn join_fenced(&mut self, arena: &mut Arena, me: EventId, other: ViewRef, fence: FenceSpace) {
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
    pub(super) fn join_porf(&mut self, porf: &mut Pending, me: EventId, from: EventId) {
        if !self.porf_skipped {
            let p = self.porf_ref(from);
            porf.join(&mut self.arena, me, p);
        }
    }

    pub(super) fn hb_ref(&self, e: EventId) -> ViewRef {
        ViewRef {
            slot: self.event(e).hb,
            own: Some(e),
        }
    }

    pub(super) fn msg_ref(&self, w: EventId) -> Option<ViewRef> {
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

    /// The last release write to `loc` among the first `before` events of
    /// thread `t`: from the location's index of release writes by thread
    /// (a scan of the thread's events made every relaxed write of a long
    /// thread under `rc11` cost the thread's length).
    pub(super) fn last_release_write(&self, t: ThreadId, before: u32, loc: Loc) -> Option<EventId> {
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
