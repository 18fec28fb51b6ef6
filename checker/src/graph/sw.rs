//! The synchronizes-with rule, once, for every model: how a new event's
//! porf and hb views and the releases it carries are computed.
//!
//! RC11 (Lahav et al., PLDI 2017, §3), with scopes (docs/semantics.md §4):
//!
//! ```text
//! rs = [W] ; (rf ; rmw)*                          (C++20)
//! rs = [W] ; po|loc? ; [W] ; (rf ; rmw)*          (C11, RC11 as published: SyncRules::same_thread_rs)
//! sw = [E⊒rel] ; ([F] ; po)? ; rs ; rf ; [R⊒rlx] ; (po ; [F])? ; [E⊒acq]
//! hb = (po ∪ sw)+
//! ```
//!
//! where, under a scoped model, every rf edge along rs and into the read
//! and the release and the acquire themselves must be mutually
//! scope-inclusive (`incl`). An unscoped model is the case where every
//! scope includes every thread: `incl` always holds.
//!
//! The rule is [`ExecutionGraph::new_views`], written once over
//! [`Releases`], which says how the releases a write carries (the heads of
//! the release sequences it is in, or the release fence before it) are
//! kept. Two ways, the same rule specialised:
//! - [`Merged`] (unscoped): every head reaches every acquire, so a write's
//!   heads are kept joined into one view (`Msg`) and a thread's pending
//!   releases into one clock; most writes share their own hb slot. This
//!   is the fast path of every unscoped model, kept because measured:
//!   `fai-2x10` (10,000 iterations, callgrind) takes 15.2 G instructions
//!   with it and 20.0 G (+32%) with [`ByScope`] and every scope at system.
//! - [`ByScope`] (scoped): heads are kept apart with their thread and
//!   scope (`Head`), and an acquire joins only those mutually inclusive
//!   with it.
//!
//! The declarative cross-check of this rule is `model/relations.rs`
//! (`Relations::of`), which derives sw from the definition above with
//! bit matrices; `model/tests.rs` compares the two on scripted graphs.

use super::views::{NewViews, Pending};
use super::{ExecutionGraph, SyncRules};
use crate::clock::{Clock, Msg, SharedClock};
use crate::event::*;
use crate::scope::mutually_inclusive;

/// How the releases of the rule are kept (see the module's notes). Each
/// method is one step of the rule, named by what it does to the views.
pub(super) trait Releases: Sized {
    /// The state carried from the predecessor of `me` (acting at `scope`):
    /// its pending releases and its last release fence.
    fn of_predecessor(g: &ExecutionGraph, me: EventId, scope: Scope) -> Self;
    /// Whether `me` takes part in synchronization through write `w`:
    /// `incl` of an rf edge (always, unscoped).
    fn linked(&self, g: &ExecutionGraph, w: EventId) -> bool;
    /// An acquire read of `w`: joins into `hb` the heads `w` carries that
    /// reach `me`.
    fn acquire_from(&mut self, g: &mut ExecutionGraph, hb: &mut Pending, me: EventId, w: EventId);
    /// A relaxed read of `w`: keeps the heads `w` carries for a later
    /// acquire fence (`(po ; [F])?`).
    fn keep_for_fence(&mut self, g: &ExecutionGraph, w: EventId);
    /// An acquire fence: joins the kept heads that reach `me`.
    fn acquire_kept(&mut self, g: &mut ExecutionGraph, hb: &mut Pending, me: EventId);
    /// A release fence: later atomic writes carry its view (`([F] ; po)?`).
    fn release_fence(&mut self, g: &ExecutionGraph, hb: &Pending, me: EventId);
    /// A release write heads a release sequence: it carries its own view
    /// (`hb`, final: a write acquires nothing).
    fn carry_own(&mut self, g: &ExecutionGraph, hb: &Pending);
    /// A relaxed atomic write after a release fence carries the fence's view.
    fn carry_fence(&mut self, g: &mut ExecutionGraph);
    /// An RMW continues the release sequences of `w`, the write its read
    /// part read (`rf ; rmw`). `release`: the RMW carries its own view.
    fn carry_from(&mut self, g: &mut ExecutionGraph, hb: &Pending, me: EventId, w: EventId, release: bool);
    /// A write continues the sequence headed by `head`, an earlier release
    /// write of its thread to its location (`po|loc`).
    fn carry_head(&mut self, g: &mut ExecutionGraph, head: EventId);
    /// What the new event keeps: its message, fence and pending state.
    fn finish(
        self,
        g: &mut ExecutionGraph,
        hb: &Pending,
        me: EventId,
    ) -> (Msg, SharedClock, SharedClock, Option<Box<ScopedSync>>);
}

impl ExecutionGraph {
    /// Computes the views of an event of kind `kind` about to be appended
    /// to thread `t` at `scope`, synchronizing as `rules` say: the rule of
    /// the module's notes, with releases kept by scope only when the model
    /// is scoped.
    pub(super) fn new_views(&mut self, t: ThreadId, kind: &EventKind, scope: Scope, rules: SyncRules) -> NewViews {
        if rules.scoped {
            self.views_by_rule::<ByScope>(t, kind, scope, rules)
        } else {
            self.views_by_rule::<Merged>(t, kind, scope, rules)
        }
    }

    fn views_by_rule<R: Releases>(
        &mut self,
        t: ThreadId,
        kind: &EventKind,
        scope: Scope,
        rules: SyncRules,
    ) -> NewViews {
        let me = EventId::new(t, self.thread_len(t));
        let (mut porf, mut hb) = match self.thread_events(t).last() {
            Some(p) => (Pending::of(p.porf), Pending::of(p.hb)),
            None => (Pending::of(0), Pending::of(0)),
        };
        let mut rel = R::of_predecessor(self, me, scope);
        // Acquiring: po edges from other threads, and sw into `me`.
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
            // A read is porf-after its write. An atomic read of w linked to
            // it: an acquire read synchronizes with the heads w carries
            // (rs ; rf ; [R] ; [acq]); a relaxed one keeps them for a later
            // acquire fence.
            EventKind::Read(r) if !r.rf.is_init() => {
                self.join_porf(&mut porf, me, r.rf);
                if r.order.is_atomic() && rel.linked(self, r.rf) {
                    if r.order.is_acquire() || rules.all_sc {
                        rel.acquire_from(self, &mut hb, me, r.rf);
                    } else {
                        rel.keep_for_fence(self, r.rf);
                    }
                }
            }
            // rf ; [R] ; po ; [F] ; [acq]: what the relaxed reads before it kept.
            EventKind::Fence { order } if order.is_acquire() => rel.acquire_kept(self, &mut hb, me),
            _ => {}
        }
        // Releasing: what `me` carries to later acquires.
        match kind {
            EventKind::Fence { order } if order.is_release() => rel.release_fence(self, &hb, me),
            // Plain writes carry nothing: an atomic read of one is a mixed
            // access RC11 leaves to the race rules.
            EventKind::Write(w) if w.order.is_atomic() => {
                let release = w.order.is_release() || rules.all_sc;
                if release {
                    rel.carry_own(self, &hb);
                } else {
                    rel.carry_fence(self);
                }
                if w.rmw {
                    let rd = self.event(EventId::new(t, me.index - 1));
                    let rf = rd.as_read().expect("rmw write follows its read").rf;
                    if !rf.is_init() && rel.linked(self, rf) {
                        rel.carry_from(self, &hb, me, rf, release);
                    }
                }
                // po|loc: the latest release head's view holds every
                // earlier one's.
                if rules.same_thread_rs && !release {
                    if let Some(h) = self.last_release_write(t, me.index, w.loc) {
                        rel.carry_head(self, h);
                    }
                }
            }
            _ => {}
        }
        let (msg, rel_fence, acq_pending, scoped) = rel.finish(self, &hb, me);
        NewViews {
            porf: porf.slot(),
            hb: hb.slot(),
            msg,
            rel_fence,
            acq_pending,
            scoped,
        }
    }
}

/// Releases of an unscoped model, where every head reaches every acquire:
/// a write's heads joined into one message view (its own hb slot when it
/// is a release write and carries nothing else), a thread's last release
/// fence and its pending releases each one shared clock.
pub(super) struct Merged {
    rel_fence: SharedClock,
    acq_pending: SharedClock,
    msg: Msg,
    /// What the write carries besides its own view, in a slot of its own.
    extra: Option<u32>,
}

impl Merged {
    fn extra_slot(&mut self, g: &mut ExecutionGraph) -> u32 {
        *self.extra.get_or_insert_with(|| g.arena.push(Clock::new()))
    }
}

impl Releases for Merged {
    #[inline]
    fn of_predecessor(g: &ExecutionGraph, me: EventId, _scope: Scope) -> Merged {
        let (rel_fence, acq_pending) = match g.thread_events(me.thread).last() {
            Some(p) => (p.rel_fence.clone(), p.acq_pending.clone()),
            None => (SharedClock::default(), SharedClock::default()),
        };
        Merged {
            rel_fence,
            acq_pending,
            msg: Msg::Empty,
            extra: None,
        }
    }
    #[inline]
    fn linked(&self, _g: &ExecutionGraph, _w: EventId) -> bool {
        true
    }
    fn acquire_from(&mut self, g: &mut ExecutionGraph, hb: &mut Pending, me: EventId, w: EventId) {
        if let Some(m) = g.msg_ref(w) {
            hb.join(&mut g.arena, me, m);
        }
    }
    fn keep_for_fence(&mut self, g: &ExecutionGraph, w: EventId) {
        if let Some(m) = g.msg_ref(w) {
            self.acq_pending.join(&g.arena.view(m).to_clock());
        }
    }
    fn acquire_kept(&mut self, g: &mut ExecutionGraph, hb: &mut Pending, me: EventId) {
        if let Some(pend) = self.acq_pending.get() {
            hb.join_clock(&mut g.arena, me, pend);
        }
    }
    fn release_fence(&mut self, g: &ExecutionGraph, hb: &Pending, me: EventId) {
        self.rel_fence.set(g.arena.view(hb.as_ref(me)).to_clock());
    }
    fn carry_own(&mut self, _g: &ExecutionGraph, _hb: &Pending) {
        self.msg = Msg::Hb;
    }
    fn carry_fence(&mut self, g: &mut ExecutionGraph) {
        if let Some(f) = self.rel_fence.get() {
            self.extra = Some(g.arena.push(f.clone()));
        }
    }
    fn carry_from(&mut self, g: &mut ExecutionGraph, hb: &Pending, me: EventId, w: EventId, release: bool) {
        if let Some(m) = g.msg_ref(w) {
            // A release RMW whose own view already holds what w carries
            // needs no slot of its own.
            let covered = release && g.arena.get(hb.slot()).covers(me, g.arena.get(m.slot), m.own);
            if !covered {
                let slot = self.extra_slot(g);
                g.arena.join_into(slot, m);
            }
        }
    }
    fn carry_head(&mut self, g: &mut ExecutionGraph, head: EventId) {
        let h = g.hb_ref(head);
        let slot = self.extra_slot(g);
        g.arena.join_into(slot, h);
    }
    fn finish(
        self,
        g: &mut ExecutionGraph,
        hb: &Pending,
        me: EventId,
    ) -> (Msg, SharedClock, SharedClock, Option<Box<ScopedSync>>) {
        let mut msg = self.msg;
        if let Some(slot) = self.extra {
            if msg == Msg::Hb {
                g.arena.join_into(slot, hb.as_ref(me));
            }
            msg = Msg::Slot(slot);
        }
        (msg, self.rel_fence, self.acq_pending, None)
    }
}

/// Releases of a scoped model: each head kept with its thread and scope,
/// joined only by acquires mutually scope-inclusive with it.
pub(super) struct ByScope {
    sync: ScopedSync,
    me: EventId,
    scope: Scope,
}

impl ByScope {
    /// Whether head `h` reaches `me` (`incl` of release and acquire).
    fn reaches(&self, g: &ExecutionGraph, h: &Head) -> bool {
        mutually_inclusive(g.actor(h.thread, h.scope), g.actor(self.me.thread, self.scope))
    }
    /// The heads write `w` carries.
    fn heads_of(g: &ExecutionGraph, w: EventId) -> &[Head] {
        g.event(w).scoped.as_deref().map_or(&[][..], |s| s.heads.as_slice())
    }
    /// The head `me` makes when it releases: its own view.
    fn here(&self, g: &ExecutionGraph, hb: &Pending) -> Head {
        Head {
            view: g.arena.view(hb.as_ref(self.me)).to_clock(),
            thread: self.me.thread,
            scope: self.scope,
        }
    }
}

impl Releases for ByScope {
    fn of_predecessor(g: &ExecutionGraph, me: EventId, scope: Scope) -> ByScope {
        let mut sync: ScopedSync = g
            .thread_events(me.thread)
            .last()
            .and_then(|p| p.scoped.as_deref().cloned())
            .unwrap_or_default();
        sync.heads.clear();
        ByScope { sync, me, scope }
    }
    fn linked(&self, g: &ExecutionGraph, w: EventId) -> bool {
        mutually_inclusive(g.actor(w.thread, g.event(w).scope), g.actor(self.me.thread, self.scope))
    }
    fn acquire_from(&mut self, g: &mut ExecutionGraph, hb: &mut Pending, me: EventId, w: EventId) {
        let mut acquired = Clock::new();
        for h in Self::heads_of(g, w) {
            if self.reaches(g, h) {
                acquired.join(&h.view);
            }
        }
        hb.join_clock(&mut g.arena, me, &acquired);
    }
    fn keep_for_fence(&mut self, g: &ExecutionGraph, w: EventId) {
        for h in Self::heads_of(g, w) {
            add_head(&mut self.sync.pending, h);
        }
    }
    fn acquire_kept(&mut self, g: &mut ExecutionGraph, hb: &mut Pending, me: EventId) {
        let mut acquired = Clock::new();
        for h in &self.sync.pending {
            if self.reaches(g, h) {
                acquired.join(&h.view);
            }
        }
        hb.join_clock(&mut g.arena, me, &acquired);
    }
    fn release_fence(&mut self, g: &ExecutionGraph, hb: &Pending, _me: EventId) {
        self.sync.fence = Some(self.here(g, hb));
    }
    fn carry_own(&mut self, g: &ExecutionGraph, hb: &Pending) {
        let here = self.here(g, hb);
        self.sync.heads.push(here);
    }
    fn carry_fence(&mut self, _g: &mut ExecutionGraph) {
        if let Some(f) = &self.sync.fence {
            self.sync.heads.push(f.clone());
        }
    }
    fn carry_from(&mut self, g: &mut ExecutionGraph, _hb: &Pending, _me: EventId, w: EventId, _release: bool) {
        for h in Self::heads_of(g, w) {
            add_head(&mut self.sync.heads, h);
        }
    }
    fn carry_head(&mut self, g: &mut ExecutionGraph, head: EventId) {
        let head = Head {
            view: g.hb(head).to_clock(),
            thread: head.thread,
            scope: g.event(head).scope,
        };
        add_head(&mut self.sync.heads, &head);
    }
    fn finish(
        self,
        _g: &mut ExecutionGraph,
        _hb: &Pending,
        _me: EventId,
    ) -> (Msg, SharedClock, SharedClock, Option<Box<ScopedSync>>) {
        (
            Msg::Empty,
            SharedClock::default(),
            SharedClock::default(),
            Some(Box::new(self.sync)),
        )
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
