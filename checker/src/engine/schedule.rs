//! Scheduling: which thread runs next. While the kept graph is replayed,
//! a thread whose next kept event is ready (`replay_ready`, `replay_inline`,
//! `schedule_replay`); after it, the enabled threads (a join waits for its
//! target, a barrier for its group, an await for a write it may read, a
//! spin for news) handed to the strategy, or the deadlock report when none
//! can run. Apart from the event building: this decides who runs, not
//! what a step adds to the graph.

use super::spin::spin_wait_text;
use super::{replay_values, Engine, Sched, Stop, ThreadStatus};
use crate::event::*;
use crate::failure::FailureKind;
use crate::progress::Progress;
use smallvec::SmallVec;

impl Engine {
    /// Whether thread `t`, in status `st`, can take its next step. Asked
    /// for every thread at every step: the common answer (an operation
    /// that never waits) is given inline, the rest by
    /// [`Engine::enabled_slow`].
    #[inline]
    pub(super) fn enabled(&self, t: ThreadId, st: &ThreadStatus, status: &[ThreadStatus]) -> bool {
        match st {
            ThreadStatus::Op(Op::Join { target }, _) => self.threads.get(*target as usize).is_some_and(|r| r.finished),
            ThreadStatus::Op(Op::Barrier { .. }, _) | ThreadStatus::Op(Op::Rmw { await_: Some(_), .. }, _) => {
                self.enabled_slow(t, st, status)
            }
            ThreadStatus::Op(..) => true,
            _ => self.enabled_slow(t, st, status),
        }
    }

    #[inline(never)]
    pub(super) fn enabled_slow(&self, t: ThreadId, st: &ThreadStatus, status: &[ThreadStatus]) -> bool {
        match st {
            ThreadStatus::Gone | ThreadStatus::Discarded => false,
            ThreadStatus::SpinWait => match self.threads.get(t as usize).and_then(|r| r.spin_wait.as_ref()) {
                Some(w) => self.spin_woken(t, w),
                None => true,
            },
            ThreadStatus::Op(Op::Barrier { group, size, .. }, _) => {
                let instance = self.barrier_instance(t, *group);
                self.barrier_arrivals(*group, instance, status).len() as u32 == *size
            }
            ThreadStatus::Op(
                Op::Rmw {
                    loc,
                    await_: Some(aw),
                    op,
                    ty,
                    success,
                    scope,
                    ..
                },
                src,
            ) if self.unfiltered => self.await_possible_declarative(t, *loc, *aw, *op, *ty, *success, *scope, src),
            ThreadStatus::Op(
                Op::Rmw {
                    loc, await_: Some(aw), ..
                },
                _,
            ) => {
                let (free, taken) = self.await_candidates(t, *loc, *aw);
                match self.threads.get(t as usize).and_then(|r| r.await_after) {
                    // It already took its alternatives: only a new free write helps.
                    Some(after) => free.iter().any(|&w| !w.is_init() && self.graph.event(w).stamp > after),
                    None => !free.is_empty() || !taken.is_empty(),
                }
            }
            ThreadStatus::Op(..) => true,
        }
    }

    /// Chooses the thread that runs next, the threads waiting as `status`
    /// says (the engine's own statuses, lent by `Engine::turn`).
    pub(super) fn schedule_with(&mut self, status: &[ThreadStatus]) -> Sched {
        // First reproduce what the graph already holds.
        if let Some(sched) = self.schedule_replay(status) {
            return sched;
        }
        if self.takes_leftmost && self.progress.model == Progress::Fair {
            // The strategy takes the first enabled thread and no progress
            // model filters the set: no need to judge the others.
            if let Some(t) = (0..status.len()).find(|&t| self.enabled(t as ThreadId, &status[t], status)) {
                return Sched::Run(t as ThreadId);
            }
        }
        let mut enabled: SmallVec<[ThreadId; 16]> = SmallVec::new();
        for (t, st) in status.iter().enumerate() {
            if self.enabled(t as ThreadId, st, status) {
                enabled.push(t as ThreadId);
            }
        }
        if let Some(f) = self.progress_hang(status, &mut enabled) {
            return Sched::Deadlock(f);
        }
        if let Some(t) = self.strategy.schedule(&self.graph, &enabled, status) {
            return Sched::Run(t);
        }
        if self.off_track() {
            // A replay that left its token: no result, not a hang.
            return Sched::Blocked;
        }
        if status.iter().all(|s| matches!(s, ThreadStatus::Gone)) {
            return Sched::Done;
        }
        // A discarded thread leaves the others waiting for it (its joiner,
        // say): that is the end of a blocked execution, not a hang.
        if status.iter().any(|s| matches!(s, ThreadStatus::Discarded)) {
            return Sched::Blocked;
        }
        if let Some(f) = self.stuck_at_barrier(status) {
            return Sched::Deadlock(f);
        }
        // Nobody can run: the program hangs.
        let mut waiting = Vec::new();
        for (t, st) in status.iter().enumerate() {
            match st {
                ThreadStatus::Gone | ThreadStatus::Discarded => {}
                ThreadStatus::SpinWait => {
                    let w = self.threads[t].spin_wait.clone().expect("spin wait state");
                    waiting.push(spin_wait_text(t, &w));
                }
                ThreadStatus::Op(Op::Join { target }, src) => {
                    waiting.push(format!("thread {t} waits at {src} to join thread {target}"))
                }
                ThreadStatus::Op(Op::Rmw { loc, .. }, src) => {
                    waiting.push(format!("thread {t} waits at {src} to lock the mutex {loc}"))
                }
                ThreadStatus::Op(op, src) => waiting.push(format!("thread {t} waits at {src} ({op:?})")),
            }
        }
        Sched::Deadlock(self.failure(
            FailureKind::Deadlock,
            format!("no thread can make progress: {}", waiting.join("; ")),
            None,
            vec![],
            None,
        ))
    }

    /// Whether event `e` has been replayed (or added) in this execution.
    pub(super) fn reached(&self, e: EventId) -> bool {
        e.is_init() || self.cursor(e.thread) > e.index
    }

    /// Whether thread `t` still replays the kept graph and its next kept
    /// event can be replayed now: what it depends on besides program order
    /// (the write a read reads, the end of a joined thread, the partners'
    /// arrival at a barrier) has been replayed. Spawn and start need no
    /// check: a thread runs only once its parent spawned it.
    pub(super) fn replay_ready(&self, t: ThreadId) -> bool {
        let c = self.cursor(t);
        if c >= self.graph.thread_len(t) {
            return false;
        }
        match &self.graph.event(EventId::new(t, c)).kind {
            EventKind::Read(r) => self.reached(r.rf),
            EventKind::Join { target } => {
                let n = self.graph.thread_len(*target);
                n > 0 && self.reached(EventId::new(*target, n - 1))
            }
            EventKind::Barrier { partners, .. } => partners.iter().all(|&p| self.reached(p)),
            _ => true,
        }
    }

    /// Replays the visible operation `op` of thread `t` on the spot, without
    /// a trip through the scheduler, when its kept event is ready
    /// (`Engine::replay_ready`). The replay needs only an order compatible
    /// with po, rf, spawn/join and barriers (the kept graph already holds
    /// every choice, and that order is all real memory depends on in a
    /// race-free program: hb is contained in (po | rf)+); letting a thread
    /// run on while its next kept event is ready is such an order, and it
    /// spares one coroutine switch per replayed event. `None`: the thread
    /// must wait for the scheduler (it is past the kept graph, or its next
    /// kept event waits for another thread).
    pub(super) fn replay_inline(&mut self, t: ThreadId, op: &Op, src: SourceLoc) -> Option<Result<OpResult, Stop>> {
        // (Once every thread is past the kept graph, none replays again.)
        if self.replayed || !self.replay_ready(t) {
            return None;
        }
        Some(self.step(t, src).and_then(|()| {
            self.begin_op(op);
            self.replay_visible(t, op, src)
        }))
    }

    /// While some thread still replays the kept graph: a thread whose next
    /// kept event is ready to run (the lowest such), or, when none is, the
    /// nondeterminism that stopped the replay. `None` once the whole kept
    /// graph has been replayed: new choices follow.
    pub(super) fn schedule_replay(&mut self, status: &[ThreadStatus]) -> Option<Sched> {
        if self.replayed {
            return None;
        }
        let mut behind = None;
        for t in 0..self.graph.num_threads() as ThreadId {
            if self.cursor(t) >= self.graph.thread_len(t) {
                continue;
            }
            if matches!(status.get(t as usize), Some(ThreadStatus::Op(..))) && self.replay_ready(t) {
                return Some(Sched::Run(t));
            }
            behind.get_or_insert(t);
        }
        let Some(t) = behind else {
            // Every thread is past the kept graph, and stays past it: its
            // new events are added at its cursor.
            self.replayed = true;
            return None;
        };
        let e = EventId::new(t, self.cursor(t));
        let what = format!(
            "thread {t} did not reach its recorded event {e:?}; {}",
            replay_values::CAUSES
        );
        Some(Sched::Deadlock(self.failure(
            FailureKind::Nondeterminism,
            what,
            Some(t),
            vec![e],
            None,
        )))
    }

    /// Wakes thread `t` from a spin wait (it takes no step).
    pub(super) fn wake(&mut self, t: ThreadId) {
        self.rt(t).spin_wait = None;
    }
}
