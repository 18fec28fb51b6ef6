//! Performing one operation of a thread: the operations that involve no
//! choice (`Engine::invisible`: allocation, fence, cell access, spawn), the
//! visible ones (`Engine::visible`: loads, stores, RMWs, joins, barriers),
//! their replay from the kept graph (`replay_visible`), the end of a thread,
//! and the checks every access makes on its location. Apart from
//! `accesses`, which builds the new read and write events that take the
//! strategy's choices.

use super::{Engine, Stop, ThreadRt, ThreadStatus};
use crate::event::*;
use crate::failure::FailureKind;

impl Engine {
    /// Performs an operation that involves no choice (allocation, fence,
    /// cell access, spawn).
    pub(super) fn invisible(&mut self, t: ThreadId, op: &Op, src: SourceLoc) -> Result<OpResult, Stop> {
        self.step(t, src)?;
        self.begin_op(op);
        self.hardware_refusal(t, op, src)?;
        if self.replaying(t) {
            let id = EventId::new(t, self.threads[t as usize].cursor);
            let ev = self.graph.event(id).kind.clone();
            let res = match (op, &ev) {
                (
                    Op::Alloc { init, kind, .. },
                    EventKind::Alloc {
                        loc,
                        init: kept,
                        kind: k2,
                        ..
                    },
                ) if kind == k2 => {
                    if init != kept {
                        self.replay_init(t, *loc, *init, src)?;
                    }
                    self.rt(t).alloc_seq += 1;
                    OpResult::Loc(*loc)
                }
                (Op::Fence { .. }, EventKind::Fence { .. }) => OpResult::Done,
                (Op::Observe { of }, EventKind::Observe { of: o2 }) if of == o2 => OpResult::Done,
                (Op::CellAccess { loc, .. }, EventKind::Cell { loc: l2, .. }) if loc == l2 => OpResult::Done,
                (Op::Spawn { .. }, EventKind::Spawn { child }) => {
                    let child = *child;
                    self.rt(child).cursor = 1; // its Start event
                    self.spawned(child);
                    self.stats.events_replayed += 1;
                    OpResult::Thread(child)
                }
                _ => return Err(self.nondeterminism(t, &format!("{op:?}"), src)),
            };
            self.rt(t).cursor += 1;
            self.stats.events_replayed += 1;
            return Ok(res);
        }
        match *op {
            Op::Alloc {
                init,
                kind,
                space,
                addresses,
            } => {
                let seq = self.rt(t).alloc_seq;
                self.rt(t).alloc_seq += 1;
                let loc = Loc::new(t, seq);
                let alloc = EventKind::Alloc {
                    loc,
                    init,
                    kind,
                    space,
                    addresses,
                };
                self.push(t, alloc, src, true);
                Ok(OpResult::Loc(loc))
            }
            Op::Fence { order, .. } => {
                let id = self.push(t, EventKind::Fence { order }, src, true);
                // (The reference enumerator judges whole graphs below, its
                // guessed reads left out: `accesses.rs`, `new_rmw_write`.)
                if order.is_sc() && !self.unfiltered && self.model.check_added(&self.graph, id).is_err() {
                    return Err(Stop::Moot);
                }
                self.declarative_check()?;
                Ok(OpResult::Done)
            }
            Op::Observe { of } => {
                if of.thread != t || !self.graph.contains(of) {
                    return Err(Stop::Failure(self.failure(
                        FailureKind::Internal,
                        format!("thread {t} observed {of:?} at {src}, which is not one of its own events"),
                        Some(t),
                        vec![],
                        Some(src),
                    )));
                }
                self.push(t, EventKind::Observe { of }, src, true);
                Ok(OpResult::Done)
            }
            Op::CellAccess { loc, write } => {
                self.check_loc(t, loc, src, false)?;
                let id = self.push(t, EventKind::Cell { loc, write }, src, true);
                self.check_cell_race(id, loc, write)?;
                Ok(OpResult::Done)
            }
            Op::Spawn { placement } => {
                let child = self.graph.free_thread_slot();
                self.graph.set_placement(child, placement);
                let sp = self.push(t, EventKind::Spawn { child }, src, true);
                let n = self.threads.len().max(child as usize + 1);
                self.threads.resize_with(n, ThreadRt::default);
                self.threads[child as usize] = ThreadRt::default();
                self.push(child, EventKind::Start { parent: Some(sp) }, src, true);
                self.spawned(child);
                Ok(OpResult::Thread(child))
            }
            _ => unreachable!("visible operation {op:?} given to Engine::invisible"),
        }
    }

    /// An operation the hardware model (`ptx7.5`, `vulkan`) has no mapping
    /// for is refused before it runs, saying which, where and why
    /// (`model/gpu_rust.rs`).
    ///
    /// Asked at every operation: the test of the model is inlined and the
    /// rest kept out of line, so that other models pay one comparison.
    #[inline(always)]
    fn hardware_refusal(&self, t: ThreadId, op: &Op, src: SourceLoc) -> Result<(), Stop> {
        if !self.model.refuses_operations() {
            return Ok(());
        }
        self.hardware_refusal_of(t, op, src)
    }

    #[cold]
    #[inline(never)]
    fn hardware_refusal_of(&self, t: ThreadId, op: &Op, src: SourceLoc) -> Result<(), Stop> {
        match self.model.refusal(op, self.graph.placement(t)) {
            None => Ok(()),
            Some(why) => Err(Stop::Failure(self.failure(
                FailureKind::Misuse,
                format!("thread {t} at {src}: {why}"),
                Some(t),
                vec![],
                Some(src),
            ))),
        }
    }

    pub(super) fn check_loc(&self, t: ThreadId, loc: Loc, src: SourceLoc, atomic: bool) -> Result<(), Stop> {
        match self.graph.loc(loc) {
            // (Asked at every access: only local memory has an owner.)
            Some(d) if (d.kind == LocKind::Cell) != atomic && d.space != Space::Local => Ok(()),
            Some(d) if (d.kind == LocKind::Cell) != atomic => self.check_local_owner(t, loc, d, src),
            Some(_) => Err(Stop::Failure(self.failure(
                FailureKind::Internal,
                format!("location {loc} used as the wrong kind of object at {src}"),
                Some(t),
                vec![],
                Some(src),
            ))),
            None => Err(Stop::Failure(self.failure(
                FailureKind::Misuse,
                format!(
                    "thread {t} used at {src} an object created in another execution or outside \
                     `scopecheck::model` (objects must be created inside the model's closure)"
                ),
                Some(t),
                vec![],
                Some(src),
            ))),
        }
    }

    /// Local memory has one instance per block: an access to a local
    /// location by a host thread, or by a thread of another block than an
    /// earlier access's, is a misuse (the instance was shared instead of
    /// made per block). Judged on the graph, so it needs no state of its own.
    pub(super) fn check_local_owner(
        &self,
        t: ThreadId,
        loc: Loc,
        d: &crate::graph::LocData,
        src: SourceLoc,
    ) -> Result<(), Stop> {
        let me = self.graph.placement(t);
        let block = |p: &Placement| p.gpu.map(|g| (g.device, g.block));
        let created = self.graph.event(d.alloc).src;
        let other =
            d.mo.iter()
                .chain(&d.reads)
                .chain(&d.cells)
                .find(|e| block(self.graph.placement(e.thread)) != block(me));
        let why = match (me.gpu, other) {
            (None, _) => format!(
                "thread {t} (a host thread) accessed local memory {loc} (created at {created}) at {src}; local \
                 memory exists only inside a kernel"
            ),
            (Some(_), Some(o)) => format!(
                "local memory {loc} (created at {created}) is used by two blocks: thread {} {} at {} and thread {t} \
                 {} at {src}; local memory has one instance per block",
                o.thread,
                self.graph.placement(o.thread).describe(),
                self.graph.event(*o).src,
                me.describe()
            ),
            (Some(_), None) => return Ok(()),
        };
        let mut f = self.failure(FailureKind::Misuse, why, Some(t), vec![], Some(src));
        f.fix = Some(
            "make local memory in `gpu::launch`'s per-block closure (`|_| Buffer::local(n)`) and reach it \
             through `ctx.shared()`"
                .into(),
        );
        Err(Stop::Failure(f))
    }

    /// Thread `t` finished (its status is then [`ThreadStatus::Gone`]).
    pub fn thread_end(&mut self, t: ThreadId, src: SourceLoc) -> Result<(), Stop> {
        self.set_status(t, ThreadStatus::Gone);
        // Its end event belongs to no operation: no scope, no class.
        self.performing = super::Performing::NONE;
        if self.replaying(t) {
            let id = EventId::new(t, self.threads[t as usize].cursor);
            if !matches!(self.graph.event(id).kind, EventKind::End) {
                return Err(self.nondeterminism(t, "return", src));
            }
            self.rt(t).cursor += 1;
            self.rt(t).finished = true;
            self.stats.events_replayed += 1;
            return Ok(());
        }
        self.push(t, EventKind::End, src, true);
        self.rt(t).finished = true;
        Ok(())
    }

    /// Performs the visible operation of thread `t`. Returns `None` when the
    /// thread took no step and still waits (a mutex it cannot take yet).
    /// `status` is every thread's, as given to `Engine::schedule_with` (a
    /// barrier looks at who waits at it).
    pub(super) fn visible(
        &mut self,
        t: ThreadId,
        op: &Op,
        src: SourceLoc,
        status: &[ThreadStatus],
    ) -> Result<Option<OpResult>, Stop> {
        self.step(t, src)?;
        self.begin_op(op);
        self.hardware_refusal(t, op, src)?;
        if self.replaying(t) {
            return self.replay_visible(t, op, src).map(Some);
        }
        if self.bounds_search && !self.strategy.within_bound(&self.graph) {
            self.pruned_now = true;
            return Err(Stop::Moot);
        }
        if let Some(loc) = op.loc().filter(|l| l.is_park_token()) {
            self.graph.ensure_park_token(loc);
        }
        match *op {
            Op::Load { loc, order, .. } => {
                self.check_loc(t, loc, src, true)?;
                self.check_step(t, op, src)?;
                let v = self.new_read(t, loc, order, src)?;
                Ok(Some(OpResult::Value(v.1)))
            }
            Op::Store { loc, order, value, .. } => {
                self.check_loc(t, loc, src, true)?;
                self.check_step(t, op, src)?;
                self.new_store(t, loc, order, value, src)?;
                Ok(Some(OpResult::Done))
            }
            Op::Rmw {
                loc,
                op: rop,
                ty,
                success,
                failure,
                await_,
                ..
            } => {
                self.check_loc(t, loc, src, true)?;
                self.check_step(t, op, src)?;
                self.new_rmw(t, loc, rop, ty, success, failure, await_, src)
            }
            Op::Join { target } => {
                self.check_step(t, op, src)?;
                self.push(t, EventKind::Join { target }, src, true);
                Ok(Some(OpResult::Done))
            }
            Op::Barrier { group, fence, .. } => {
                let instance = self.barrier_instance(t, group);
                let arrived = self.barrier_arrivals(group, instance, status);
                self.check_same_barrier(t, group, &arrived, src)?;
                self.check_step(t, op, src)?;
                let partners = arrived.iter().filter(|a| a.0 != t).map(|a| a.1).collect();
                self.push(
                    t,
                    EventKind::Barrier {
                        group,
                        instance,
                        partners,
                        fence,
                    },
                    src,
                    true,
                );
                Ok(Some(OpResult::Done))
            }
            _ => unreachable!("invisible operation {op:?} given to Engine::visible"),
        }
    }

    pub(super) fn replay_visible(&mut self, t: ThreadId, op: &Op, src: SourceLoc) -> Result<OpResult, Stop> {
        let id = EventId::new(t, self.threads[t as usize].cursor);
        // What the kept event holds, copied out (a barrier's partner list
        // is not needed to replay it, so the event is not cloned).
        let ev = match &self.graph.event(id).kind {
            EventKind::Read(r) => EventKind::Read(*r),
            EventKind::Write(w) => EventKind::Write(*w),
            EventKind::Join { target } => EventKind::Join { target: *target },
            EventKind::Barrier {
                group, instance, fence, ..
            } => EventKind::Barrier {
                group: *group,
                instance: *instance,
                partners: Vec::new(),
                fence: *fence,
            },
            other => other.clone(),
        };
        let res = match (op, &ev) {
            (Op::Load { loc, .. }, EventKind::Read(r)) if r.loc == *loc && r.rmw.is_none() => {
                // The value its write holds in this execution (an address
                // may have moved since the read was recorded).
                let mut v = r.value;
                if self.graph.may_hold_addresses() {
                    v = self.graph.write_value(r.loc, r.rf);
                    if v != r.value {
                        self.replay_read(t, id, r, None, src)?;
                    }
                }
                self.note_read(t, r.loc, r.rf);
                OpResult::Value(v)
            }
            // The value too: a store that writes something else than the
            // kept graph says (a counter kept outside the model) would let
            // later reads see a value never written; an address that moved
            // replaces the kept one (`replay_values`).
            (Op::Store { loc, value, .. }, EventKind::Write(w)) if w.loc == *loc && !w.rmw => {
                if w.value != *value {
                    self.replay_write_value(t, id, *value, "store to", src)?;
                }
                self.note_write(t, *loc);
                OpResult::Done
            }
            (Op::Join { target }, EventKind::Join { target: t2 }) if target == t2 => OpResult::Done,
            (Op::Barrier { group, .. }, EventKind::Barrier { group: g2, .. }) if group == g2 => OpResult::Done,
            (
                Op::Rmw {
                    loc,
                    op: rop,
                    ty,
                    success,
                    await_,
                    ..
                },
                EventKind::Read(r),
            ) if r.loc == *loc && r.rmw.is_some() => {
                // Decided again on this execution's values (and operands):
                // it must write exactly when the kept graph says it did.
                let r = &if self.graph.may_hold_addresses()
                    && (r.value != self.graph.write_value(r.loc, r.rf) || r.rmw.is_some_and(|m| m.0 != *rop))
                {
                    self.replay_read(t, id, r, Some(*rop), src)?
                } else {
                    *r
                };
                self.stats.events_replayed += 1;
                self.rt(t).cursor += 1;
                self.note_read(t, r.loc, r.rf);
                let old = r.value;
                // Asked once (it was inlined at one of its two uses while
                // this code sat in engine.rs; out of line it cost 0.7% of
                // cas-rot-9).
                let exclusive = r.is_exclusive();
                if exclusive {
                    let new = rop.apply(*ty, old).expect("exclusive read writes");
                    // A promised RMW's write part is a plain write until its
                    // promise is kept (`promised.rs`).
                    let promised = self.graph.promise_at(t, id.index).is_some();
                    if self.replaying(t) {
                        let wid = EventId::new(t, self.threads[t as usize].cursor);
                        match &self.graph.event(wid).kind {
                            EventKind::Write(w) if w.rmw != promised && w.value == new => {}
                            EventKind::Write(w) if w.rmw != promised => {
                                self.replay_write_value(t, wid, new, &format!("{} on", rop.name()), src)?;
                            }
                            _ => return Err(self.nondeterminism(t, rop.name(), src)),
                        }
                        self.rt(t).cursor += 1;
                        self.stats.events_replayed += 1;
                        self.note_write(t, *loc);
                    } else if promised {
                        self.new_store(t, *loc, Order::write_part(*success), new, src)?;
                    } else {
                        // The read part was revisited: its write part is new.
                        self.new_rmw_write(t, id, *loc, new, Order::write_part(*success), src, false)?;
                    }
                }
                let _ = await_;
                return Ok(match rop {
                    RmwOp::Cas { .. } => OpResult::Cas(old, exclusive),
                    _ => OpResult::Value(old),
                });
            }
            _ => return Err(self.nondeterminism(t, &format!("{op:?}"), src)),
        };
        self.rt(t).cursor += 1;
        self.stats.events_replayed += 1;
        Ok(res)
    }
}
