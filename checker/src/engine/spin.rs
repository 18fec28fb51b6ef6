//! Spin loops and awaits: the spin contract (`Engine::spin_at`: a waiting
//! iteration waits for news, a repeated one must read it), what each thread
//! read and wrote since its last hint (`note_read`, `note_write`), which
//! mutex awaits can proceed, and how a spinning thread is described in a
//! hang report. Apart because it is the engine's one piece of per-thread
//! loop state, read by the scheduler and fed by every access.

use super::{Engine, SpinWait, Stop, WaitSite};
use crate::event::*;

impl Engine {
    /// Thread `t` called a spin hint: the end of a loop iteration.
    ///
    /// The spin contract: an iteration that read something and wrote nothing
    /// (mutex lock words aside) is a *waiting* iteration. After one, the
    /// thread waits until another thread has written, to a location the
    /// iteration read, a write mo-after the one it read there; and a next
    /// waiting iteration that reads the same locations must read at least one
    /// such newer write, since otherwise it repeats the previous one step for step.
    /// Both are properties of the graph, so every strategy explores the same
    /// executions. Returns whether the thread must wait; `Err(Moot)` when the
    /// iteration saw nothing new.
    /// `at` is where the thread waits, for the hang report.
    pub fn spin_at(&mut self, t: ThreadId, at: WaitSite) -> Result<bool, Stop> {
        let replaying = self.replaying(t);
        let r = self.rt(t);
        r.hint_at = Some(r.cursor);
        // Already one entry per location, the mo-latest write read there.
        let read = std::mem::take(&mut r.spin_reads);
        let wrote = std::mem::replace(&mut r.spin_wrote, false);
        // A spin hint ends the iteration a later `yield_now` compares with.
        r.yield_prev = None;
        if wrote || read.is_empty() {
            r.spin_prev = None;
            return Ok(false);
        }
        let prev = self.threads[t as usize].spin_prev.take();
        if !replaying {
            if let Some(prev) = prev {
                if !self.sees_news(t, &prev, &read) {
                    return Err(Stop::Moot);
                }
            }
        }
        let r = self.rt(t);
        r.spin_prev = Some(read.clone());
        if replaying {
            return Ok(false);
        }
        r.spin_wait = Some(SpinWait { read, at });
        Ok(true)
    }

    /// Whether `w` (read by `t` at `loc`) is news with respect to `before`:
    /// another thread's write, mo-after what `t` read there before.
    pub(super) fn is_news(&self, t: ThreadId, loc: Loc, before: EventId, w: EventId) -> bool {
        !w.is_init() && w.thread != t && self.graph.mo_position(loc, w) > self.graph.mo_position(loc, before)
    }

    /// Whether an iteration that read `now` differs from the previous one,
    /// which read `prev`: it read other locations (the thread took another
    /// path, e.g. it was woken by news on a location it no longer reads), or it
    /// read news somewhere. Only an exact repetition is pruned: it was woken by
    /// news on one of these very locations and chose not to read it, so the
    /// branch that reads it covers this one.
    pub(super) fn sees_news(&self, t: ThreadId, prev: &[(Loc, EventId)], now: &[(Loc, EventId)]) -> bool {
        let same_locs = now.len() == prev.len() && now.iter().all(|(l, _)| prev.iter().any(|(p, _)| p == l));
        !same_locs
            || now.iter().any(|&(loc, w)| {
                let before = prev.iter().find(|(l, _)| *l == loc).expect("same locations").1;
                self.is_news(t, loc, before, w)
            })
    }

    pub(super) fn spin_woken(&self, t: ThreadId, w: &SpinWait) -> bool {
        w.read.iter().any(|&(loc, before)| {
            self.graph
                .loc(loc)
                .is_some_and(|d| d.mo.iter().any(|&x| self.is_news(t, loc, before, x)))
        })
    }

    /// The candidates of an await (mutex) read: the coherent writes whose value
    /// satisfies the condition, split into those free to read and those already
    /// consumed by another RMW.
    pub(super) fn await_candidates(&self, t: ThreadId, loc: Loc, aw: Await) -> (Vec<EventId>, Vec<EventId>) {
        let mut free = Vec::new();
        let mut taken = Vec::new();
        for c in self.model.read_candidates(&self.graph, t, loc) {
            if aw.admits(self.graph.write_value(loc, c)) {
                if self.graph.rmw_reader_of(loc, c, None).is_some() {
                    taken.push(c);
                } else {
                    free.push(c);
                }
            }
        }
        (free, taken)
    }

    /// Reference mode: whether some write satisfying the await can be read
    /// (with the RMW's write) in a graph that satisfies the axioms.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn await_possible_declarative(
        &self,
        t: ThreadId,
        loc: Loc,
        aw: Await,
        rop: RmwOp,
        ty: ValueType,
        success: Order,
        scope: Scope,
        src: &SourceLoc,
    ) -> bool {
        self.all_writes(loc).into_iter().any(|w| {
            let old = self.graph.write_value(loc, w);
            let Some(new) = rop.apply(ty, old).filter(|_| aw.admits(old)) else {
                return false;
            };
            let mut g = self.graph.clone();
            let rk = EventKind::Read(ReadEvent {
                loc,
                order: Order::read_part(success),
                rf: w,
                value: old,
                rmw: Some((rop, ty, success, success)),
                spurious: false,
                await_: Some(aw),
            });
            g.push_event(t, rk, *src, scope, self.model.sync_rules(), false);
            let wk = EventKind::Write(WriteEvent {
                loc,
                order: Order::write_part(success),
                value: new,
                rmw: true,
            });
            let wid = g.push_event(t, wk, *src, scope, self.model.sync_rules(), false);
            let pos = g.mo_position(loc, w) + 1;
            g.insert_mo(loc, wid, pos);
            self.model.consistent_declarative(&g).is_ok()
        })
    }

    pub(super) fn note_read(&mut self, t: ThreadId, loc: Loc, rf: EventId) {
        let porf = !self.model.coherent();
        let i = self.rt(t).spin_reads.iter().position(|(l, _)| *l == loc);
        match i {
            // A later read of the same location reads a write at or after
            // the earlier one's in mo (CoRR), except under `porf`, which
            // has no coherence: there the later in mo is kept.
            Some(i) => {
                let before = self.threads[t as usize].spin_reads[i].1;
                if !porf || self.graph.mo_position(loc, rf) > self.graph.mo_position(loc, before) {
                    self.threads[t as usize].spin_reads[i].1 = rf;
                }
            }
            None => self.rt(t).spin_reads.push((loc, rf)),
        }
    }

    pub(super) fn note_write(&mut self, t: ThreadId, loc: Loc) {
        let kind = self.graph.loc(loc).map(|d| d.kind);
        self.note_write_to(t, kind);
    }

    /// [`Engine::note_write`] for a location of kind `kind` already looked
    /// up: a write to a mutex's lock word is not progress.
    pub(super) fn note_write_to(&mut self, t: ThreadId, kind: Option<LocKind>) {
        if kind.is_some_and(|k| !k.is_lock()) {
            self.rt(t).spin_wrote = true;
        }
    }
}

/// How a thread stuck at a spin hint is described in a hang report: at the
/// hint's line, and by the object it waits on when the hint is a shim
/// object's (a condvar wait is "waits on a condvar", not a spin on its
/// sequence number).
pub(super) fn spin_wait_text(t: usize, w: &SpinWait) -> String {
    let locs: Vec<String> = w.read.iter().map(|(l, _)| l.to_string()).collect();
    let locs = locs.join(", ");
    match (w.at.on, w.at.src) {
        (Some(on), Some(src)) => format!("thread {t} waits at {src} on {on} ({locs}) that no other thread will change"),
        (Some(on), None) => format!("thread {t} waits on {on} ({locs}) that no other thread will change"),
        (None, Some(src)) => format!("thread {t} spins on {locs} at {src}, which no other thread will change"),
        (None, None) => format!("thread {t} spins on {locs} that no other thread will change"),
    }
}
