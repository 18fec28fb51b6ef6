//! New accesses that take a choice: a read (which write it reads), a store
//! (where it goes in mo) and an RMW (which write it reads, whether a weak
//! compare-exchange fails spuriously, its write part), with their candidate
//! lists, the consistency filter for seq_cst and the reference enumerator's
//! whole-graph check. Apart because this is where the memory model's
//! choices meet the strategy; the dispatch that leads here is in `ops`.

use super::{Choices, Engine, RfChoice, Stop};
use crate::event::*;
use crate::model::{Candidates, Places};

impl Engine {
    /// Whether a spurious failure of thread `t`'s weak compare-exchange on
    /// `loc` reading `w` would repeat an earlier one exactly, so that it is
    /// not explored (`crate::retry`; otherwise every retry loop would have
    /// infinitely many executions).
    pub(super) fn just_failed_spuriously(&self, t: ThreadId, loc: Loc, w: EventId) -> bool {
        crate::retry::repeats_spurious_failure(&self.graph, t, loc, w)
    }

    /// The strategy's pick among the consistent choices of thread `t`'s
    /// next read (`Moot` when there are none, or a replay left its token).
    #[inline]
    fn pick_rf(&mut self, t: ThreadId, cands: &[RfChoice]) -> Result<RfChoice, Stop> {
        if cands.is_empty() {
            return Err(Stop::Moot);
        }
        let stamp = self.graph.next_stamp();
        let i = self
            .strategy
            .choose_rf(&self.graph, EventId::new(t, self.graph.thread_len(t)), stamp, cands);
        if self.off_track() {
            return Err(Stop::Moot);
        }
        Ok(cands[i])
    }

    /// Whether the model's graph check can reject the graph once an
    /// access is added (not itself seq_cst): asked of the model.
    pub(super) fn sc_check_needed(&self) -> bool {
        self.model.check_needed(self.graph.sc_events(), false)
    }

    /// Whether a new access's choices (seq_cst when `sc`) are each tried
    /// against the consistency check before one is taken: when the model
    /// says its check can reject one (under `sc` always, for psc once
    /// seq_cst events are involved, never on the `porf` base); never for
    /// the reference enumerator (it judges whole graphs).
    pub(super) fn choices_filtered(&self, sc: bool) -> bool {
        !self.unfiltered && self.model.check_needed(self.graph.sc_events(), sc)
    }

    /// Keeps the read choices whose graph is consistent (only `sc`, and psc
    /// for seq_cst, need this check).
    pub(super) fn filter_reads(&mut self, t: ThreadId, kind: &ReadEvent, choices: Choices, src: SourceLoc) -> Choices {
        if !self.choices_filtered(kind.order.is_sc()) {
            return choices;
        }
        let mut keep = Choices::new();
        for c in choices {
            let mut k = *kind;
            k.rf = c.write;
            k.value = self.graph.write_value(kind.loc, c.write);
            k.spurious = c.spurious;
            let kind = EventKind::Read(k);
            // Tried on the graph itself and taken back (a clone per choice
            // cost more than the check).
            let id = self
                .graph
                .push_event(t, kind, src, self.performing.scope, self.model.sync_rules(), false);
            let ok = self.model.check_added(&self.graph, id).is_ok();
            self.graph.pop_event(t);
            if ok {
                keep.push(c);
            }
        }
        keep
    }

    /// Adds a read of `loc` by `t`; returns (event, value).
    /// Every write of `loc`, initial write first (the reference enumerator's candidates).
    pub(super) fn all_writes(&self, loc: Loc) -> Candidates {
        let mut v: Candidates = smallvec::smallvec![EventId::INIT];
        v.extend(self.graph.loc(loc).expect("loc").mo.iter().copied());
        v
    }

    /// With the reference enumerator, the graph is judged by the axioms
    /// after every step (once a read is guessed, without its guessed
    /// reads: `guessed.rs`).
    #[inline]
    pub(super) fn declarative_check(&self) -> Result<(), Stop> {
        if !self.unfiltered {
            return Ok(());
        }
        self.reference_check()
    }

    /// [`Self::declarative_check`] for the reference enumerator, out of
    /// line so the explorer's access paths keep their inlining.
    #[cold]
    #[inline(never)]
    fn reference_check(&self) -> Result<(), Stop> {
        let consistent = if self.has_guesses() {
            self.consistent_without_guesses()
        } else {
            self.model.consistent_declarative(&self.graph).is_ok()
        };
        if !consistent {
            return Err(Stop::Moot);
        }
        Ok(())
    }

    pub(super) fn candidates(&self, t: ThreadId, loc: Loc) -> Candidates {
        if self.unfiltered {
            self.all_writes(loc)
        } else {
            self.model.read_candidates(&self.graph, t, loc)
        }
    }

    pub(super) fn new_read(
        &mut self,
        t: ThreadId,
        loc: Loc,
        order: Order,
        src: SourceLoc,
    ) -> Result<(EventId, Value), Stop> {
        if let Some(p) = self.graph.promise_at(t, self.graph.thread_len(t)) {
            return self.promised_read(t, loc, order, p, src);
        }
        if let Some(p) = self.guess(t, loc, order) {
            return self.promised_read(t, loc, order, p, src);
        }
        let cands: Choices = self
            .candidates(t, loc)
            .into_iter()
            .map(|write| RfChoice { write, spurious: false })
            .collect();
        let proto = ReadEvent {
            loc,
            order,
            rf: EventId::INIT,
            value: 0,
            rmw: None,
            spurious: false,
            await_: None,
        };
        let cands = self.filter_reads(t, &proto, cands, src);
        let c = self.pick_rf(t, &cands)?;
        let value = self.graph.write_value(loc, c.write);
        let added_max = c.write == self.graph.mo_max(loc);
        let id = self.push(
            t,
            EventKind::Read(ReadEvent {
                rf: c.write,
                value,
                ..proto
            }),
            src,
            added_max,
        );
        self.note_read(t, loc, c.write);
        self.declarative_check()?;
        if order == Order::NonAtomic || self.has_plain(loc) || self.model.sync_rules().scoped {
            self.check_access_race(id, loc, false)?;
        }
        Ok((id, value))
    }

    /// Whether accesses of `loc` need the race check even when all are
    /// atomic: it has plain accesses, or a memory kind that may make
    /// system-scope atomics plain.
    pub(super) fn has_plain(&self, loc: Loc) -> bool {
        self.graph.loc(loc).expect("loc").has_plain || self.memory.tracked(loc)
    }

    pub(super) fn new_store(
        &mut self,
        t: ThreadId,
        loc: Loc,
        order: Order,
        value: Value,
        src: SourceLoc,
    ) -> Result<EventId, Stop> {
        let unfiltered = self.unfiltered;
        let mut places = if unfiltered {
            (1..=self.graph.loc(loc).expect("loc").mo.len() + 1).collect()
        } else {
            self.model.write_placements(&self.graph, t, loc)
        };
        let kind = EventKind::Write(WriteEvent {
            loc,
            order,
            value,
            rmw: false,
        });
        if self.choices_filtered(order.is_sc()) {
            // Tried on the graph itself in every place, then taken back.
            let id = self.graph.push_event(
                t,
                kind.clone(),
                src,
                self.performing.scope,
                self.model.sync_rules(),
                false,
            );
            let mut keep = Places::new();
            let mut placed: Option<usize> = None;
            for &p in &places {
                match placed {
                    None => self.graph.insert_mo(loc, id, p),
                    Some(_) => self.graph.move_mo(loc, id, p),
                }
                placed = Some(p);
                if self.model.check_added(&self.graph, id).is_ok() {
                    keep.push(p);
                }
            }
            self.graph.pop_event(t);
            places = keep;
        }
        if places.is_empty() {
            return Err(Stop::Moot);
        }
        let n = self.graph.loc(loc).expect("loc").mo.len();
        let stamp = self.graph.next_stamp();
        let i = self
            .strategy
            .choose_mo(&self.graph, EventId::new(t, self.graph.thread_len(t)), stamp, &places);
        if self.off_track() {
            return Err(Stop::Moot);
        }
        let p = places[i];
        let id = self.push(t, kind, src, p == n + 1);
        self.graph.insert_mo(loc, id, p);
        self.note_write(t, loc);
        self.declarative_check()?;
        self.strategy.write_added(&self.graph, id, self.model);
        if order == Order::NonAtomic || self.has_plain(loc) || self.model.sync_rules().scoped {
            self.check_access_race(id, loc, true)?;
        }
        Ok(id)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn new_rmw(
        &mut self,
        t: ThreadId,
        loc: Loc,
        rop: RmwOp,
        ty: ValueType,
        success: Order,
        failure: Order,
        await_: Option<Await>,
        src: SourceLoc,
    ) -> Result<Option<OpResult>, Stop> {
        if await_.is_none() {
            if let Some(p) = self.graph.promise_at(t, self.graph.thread_len(t)) {
                return self.promised_rmw(t, loc, rop, ty, success, failure, p, src);
            }
            if let Some(p) = self.guess(t, loc, success) {
                return self.promised_rmw(t, loc, rop, ty, success, failure, p, src);
            }
        }
        let weak = matches!(rop, RmwOp::Cas { weak: true, .. });
        let unfiltered = self.unfiltered;
        let mut free = Choices::new();
        let mut taken = Candidates::new();
        // An RMW that writes whatever it reads, in a strategy that explores
        // no alternatives, can only read a write no other RMW consumed; when
        // the last in mo is the only one (every write before it, plain or
        // not, was consumed by an RMW), that is its one candidate, whatever
        // the coherence floor. Neither the floor nor the scan is needed.
        let only_last = !unfiltered
            && !self.wants_revisits
            && self.model.coherent()
            && await_.is_none()
            && rop.always_writes()
            && self.graph.free_writes(loc) == 1;
        let filtered = self.choices_filtered(success.is_sc() || failure.is_sc());
        if only_last {
            let w = self.graph.mo_max(loc);
            debug_assert!(
                self.graph.rmw_reader_of(loc, w, None).is_none(),
                "checker invariant: the last write in mo is consumed"
            );
            let last = RfChoice {
                write: w,
                spurious: false,
            };
            if !filtered {
                // (Asked all the same: a random walk's later choices must
                // not depend on whether this one had an alternative.)
                let stamp = self.graph.next_stamp();
                let i = self.strategy.choose_rf(
                    &self.graph,
                    EventId::new(t, self.graph.thread_len(t)),
                    stamp,
                    std::slice::from_ref(&last),
                );
                debug_assert_eq!(i, 0, "checker invariant: a choice outside the one offered");
                if self.off_track() {
                    return Err(Stop::Moot);
                }
                return self.take_rmw_choice(t, loc, last, rop, ty, success, failure, None, src);
            }
            // Filtered: the one candidate goes through the check below.
            free.push(last);
        } else {
            // The candidates are the writes from mo position `floor` on.
            let writes = self.graph.loc(loc).expect("loc").mo.len();
            let floor = if unfiltered {
                0
            } else {
                self.model.read_floor(&self.graph, t, loc)
            };
            for pos in floor..=writes {
                let w = self.graph.mo_at(loc, pos);
                let v = self.graph.write_value(loc, w);
                if await_.is_some_and(|a| !a.admits(v)) {
                    continue;
                }
                if rop.apply(ty, v).is_some() {
                    if weak && !self.just_failed_spuriously(t, loc, w) {
                        free.push(RfChoice {
                            write: w,
                            spurious: true,
                        });
                    }
                    let consumed = !unfiltered
                        && if self.model.coherent() {
                            self.graph.consumed_at(loc, pos)
                        } else {
                            self.graph.rmw_reader_of(loc, w, None).is_some()
                        };
                    if consumed {
                        taken.push(w);
                    } else {
                        free.push(RfChoice {
                            write: w,
                            spurious: false,
                        });
                    }
                } else {
                    free.push(RfChoice {
                        write: w,
                        spurious: false,
                    });
                }
            }
        }
        let proto = |order| ReadEvent {
            loc,
            order,
            rf: EventId::INIT,
            value: 0,
            rmw: Some((rop, ty, success, failure)),
            spurious: false,
            await_,
        };
        // A value whose every write here another RMW consumed is one this
        // RMW cannot read in any order of the writes there: the paths
        // that need it are left out, which a caller that counts on one
        // write per value (a promising thread's) must know.
        for &w in &taken {
            let v = self.graph.write_value(loc, w);
            let offered = free
                .iter()
                .any(|c| !c.spurious && self.graph.write_value(loc, c.write) == v);
            if !offered {
                self.stats.consumed_only.insert((loc, v));
            }
        }
        // Reads of a write another RMW already read break atomicity; they are
        // explored only for the backward revisits their write part causes.
        if let Some(after) = self.threads[t as usize].await_after {
            // Alternatives already taken when the thread first waited here.
            taken.retain(|w| !w.is_init() && self.graph.event(*w).stamp > after);
        }
        if self.wants_revisits {
            for &w in &taken {
                self.conflicting_alternative(t, loc, w, proto(Order::read_part(success)), ty, rop, src);
            }
        }
        if await_.is_some() && free.is_empty() {
            // The mutex is held: wait for a new unlock.
            let after = self.graph.next_stamp().saturating_sub(1);
            self.rt(t).await_after = Some(after);
            return Ok(None);
        }
        // Consistency filter (sc / psc), per choice with its order; most
        // runs need none (as `filter_reads` decides for one order).
        let kept = if !filtered {
            free
        } else {
            let mut kept = Choices::new();
            for c in free {
                let v = self.graph.write_value(loc, c.write);
                let writes = !c.spurious && rop.apply(ty, v).is_some();
                let order = if writes { Order::read_part(success) } else { failure };
                let one = self.filter_reads(t, &proto(order), smallvec::smallvec![c], src);
                kept.extend(one);
            }
            kept
        };
        let c = self.pick_rf(t, &kept)?;
        self.take_rmw_choice(t, loc, c, rop, ty, success, failure, await_, src)
    }

    /// Adds an RMW of thread `t` reading the write choice `c`: its read
    /// part, and its write part unless it fails.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn take_rmw_choice(
        &mut self,
        t: ThreadId,
        loc: Loc,
        c: RfChoice,
        rop: RmwOp,
        ty: ValueType,
        success: Order,
        failure: Order,
        await_: Option<Await>,
        src: SourceLoc,
    ) -> Result<Option<OpResult>, Stop> {
        let old = self.graph.write_value(loc, c.write);
        let new = if c.spurious { None } else { rop.apply(ty, old) };
        let order = if new.is_some() {
            Order::read_part(success)
        } else {
            failure
        };
        let added_max = c.write == self.graph.mo_max(loc) && !c.spurious;
        let rid = self.push(
            t,
            EventKind::Read(ReadEvent {
                loc,
                order,
                rf: c.write,
                value: old,
                rmw: Some((rop, ty, success, failure)),
                spurious: c.spurious,
                await_,
            }),
            src,
            added_max,
        );
        self.rt(t).await_after = None;
        self.note_read(t, loc, c.write);
        self.declarative_check()?;
        if self.has_plain(loc) || self.model.sync_rules().scoped {
            self.check_access_race(rid, loc, false)?;
        }
        if let Some(new) = new {
            // Unless every write was offered (the reference enumerator), it
            // read a write no other RMW consumed.
            let free = !self.unfiltered;
            self.new_rmw_write(t, rid, loc, new, Order::write_part(success), src, free)?;
        }
        Ok(Some(match rop {
            RmwOp::Cas { .. } => OpResult::Cas(old, new.is_some()),
            _ => OpResult::Value(old),
        }))
    }

    /// Adds the write part of an RMW whose read part is `rid`. `free`: the
    /// read part is known to have read a write no other RMW
    /// consumed.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new_rmw_write(
        &mut self,
        t: ThreadId,
        rid: EventId,
        loc: Loc,
        value: Value,
        order: Order,
        src: SourceLoc,
        free: bool,
    ) -> Result<EventId, Stop> {
        let rf = self.graph.event(rid).as_read().expect("read part").rf;
        let conflict = !free && self.graph.rmw_reader_of(loc, rf, Some(rid)).is_some();
        debug_assert!(
            !free || self.graph.rmw_reader_of(loc, rf, Some(rid)).is_none(),
            "checker invariant: an RMW chosen to read a free write found it consumed"
        );
        let pos = self.graph.mo_position(loc, rf) + 1;
        // What else this needs of the location, in one look (a write part
        // is atomic: it changes neither the location's kind nor `has_plain`).
        let (last, kind, plain) = {
            let d = self.graph.loc(loc).expect("loc");
            (pos == d.mo.len() + 1, d.kind, d.has_plain)
        };
        let id = self.push(
            t,
            EventKind::Write(WriteEvent {
                loc,
                order,
                value,
                rmw: true,
            }),
            src,
            last,
        );
        self.graph.insert_mo(loc, id, pos);
        self.note_write_to(t, Some(kind));
        self.declarative_check()?;
        if conflict {
            self.strategy.write_added(&self.graph, id, self.model);
            return Err(Stop::Moot);
        }
        // Not for the reference enumerator: it judges whole graphs
        // (`declarative_check` above), and a guessed read's placeholder
        // (`guessed.rs`) is not what it reads, so the model's check of the
        // graph as it stands could cut an execution the guess makes
        // consistent.
        if !self.unfiltered && self.sc_check_needed() && self.model.check_added(&self.graph, id).is_err() {
            return Err(Stop::Moot);
        }
        self.strategy.write_added(&self.graph, id, self.model);
        if plain || self.memory.tracked(loc) || self.model.sync_rules().scoped {
            self.check_access_race(id, loc, true)?;
        }
        Ok(id)
    }

    /// Explores, without running it, the choice of an RMW reading `w` that
    /// another RMW already read: adds the read and write parts, lets the
    /// strategy compute the backward revisits of that write, and takes them back.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn conflicting_alternative(
        &mut self,
        t: ThreadId,
        loc: Loc,
        w: EventId,
        proto: ReadEvent,
        ty: ValueType,
        rop: RmwOp,
        src: SourceLoc,
    ) {
        let old = self.graph.write_value(loc, w);
        let new = rop.apply(ty, old).expect("conflicting alternatives write");
        let wo = Order::write_part(proto.rmw.expect("rmw").2);
        let kind = EventKind::Read(ReadEvent {
            rf: w,
            value: old,
            ..proto
        });
        let rid = self
            .graph
            .push_event(t, kind, src, self.performing.scope, self.model.sync_rules(), false);
        let wk = EventKind::Write(WriteEvent {
            loc,
            order: wo,
            value: new,
            rmw: true,
        });
        let wid = self
            .graph
            .push_event(t, wk, src, self.performing.scope, self.model.sync_rules(), false);
        // The strategy may keep this graph as a revisit: its events carry
        // the thread's DRFrlx class like those `push` adds.
        let class = self.performing.class;
        self.graph.event_mut(rid).rlx = class;
        self.graph.event_mut(wid).rlx = class;
        let pos = self.graph.mo_position(loc, w) + 1;
        self.graph.insert_mo(loc, wid, pos);
        self.strategy.write_added(&self.graph, wid, self.model);
        self.graph.pop_event(t);
        self.graph.pop_event(rid.thread);
    }
}
