//! Promised reads and the verdict on an execution that holds some (models
//! without acyclic(po ∪ rf); `explore/cyclic.rs`, `graph/promises.rs`).
//!
//! A promised read is added with the promised value and no choice. When
//! the execution ends, every promise must be kept (the write at its
//! position writes that value); the graph with each promised read reading
//! its write must have a cycle in po ∪ rf (an acyclic one is the
//! explorer's to find without promises) and satisfy the model; and a
//! cyclic execution counted once is not counted again. Otherwise the
//! execution did not happen: it ends as blocked, silently (a broken
//! promise is not a nondeterministic program: the read was given a value
//! on trial). A failure in such an execution is kept only if the promises
//! made so far are kept and the graph so far is consistent with them. And
//! the promised edges must not add happens-before (`same_hb`).

use super::{Engine, Stop};
use crate::event::*;
use crate::explore::reference::canonical_key;
use crate::graph::{Promise, SyncRules};
use crate::model::relations::Relations;
use crate::op::OpResult;
use crate::sched::ExecutionEnd;

impl Engine {
    /// Adds thread `t`'s load of `loc`, promised `p`: it returns the
    /// promised value and reads the initial write as a placeholder (no
    /// synchronization, no coherence constraint) until the execution ends.
    pub(super) fn promised_read(
        &mut self,
        t: ThreadId,
        loc: Loc,
        order: Order,
        p: Promise,
        src: SourceLoc,
    ) -> Result<(EventId, Value), Stop> {
        if loc != p.loc {
            // The program went elsewhere after the cut: no longer the read
            // the promise was made to.
            return Err(Stop::Moot);
        }
        let kind = EventKind::Read(ReadEvent {
            loc,
            order,
            rf: EventId::INIT,
            value: p.value,
            rmw: None,
            spurious: false,
            await_: None,
        });
        let id = self.push(t, kind, src, false);
        // Never revisited (nor deleted by a revisit): its value is decided.
        self.graph.event_mut(id).revisitable = false;
        self.note_read(t, loc, EventId::INIT);
        Ok((id, p.value))
    }

    /// Adds thread `t`'s RMW of `loc` whose read part is promised `p`: the
    /// read part returns the promised value and reads the initial write as a
    /// placeholder, like [`Self::promised_read`]. When the operation writes,
    /// its write part is added as a plain write that may take any place in
    /// mo its thread's view allows: an RMW's write sits right after the
    /// write it reads, and that write (po ∪ rf-after this one) is not there
    /// yet. [`crate::graph::ExecutionGraph::with_promises_kept`] makes it
    /// the RMW's write part again once the read reads its write, and the
    /// model's atomicity axiom then keeps only the graphs where the two are
    /// adjacent in mo. (Placed any other way, the explorer would have to
    /// move it when the promised write comes: its bookkeeping of consumed
    /// writes, `graph/mo.rs`, holds every RMW write right after its read's
    /// write.)
    // Out of line: only c11 programs with promises come here, and inlined
    // into `new_rmw` it changed the inlining of the engine's hot paths
    // (+2% instructions on cas-rot-9 under cpp20).
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn promised_rmw(
        &mut self,
        t: ThreadId,
        loc: Loc,
        rop: RmwOp,
        ty: ValueType,
        success: Order,
        failure: Order,
        p: Promise,
        src: SourceLoc,
    ) -> Result<Option<OpResult>, Stop> {
        if loc != p.loc {
            return Err(Stop::Moot);
        }
        let new = rop.apply(ty, p.value);
        let order = if new.is_some() {
            Order::read_part(success)
        } else {
            failure
        };
        let id = self.push(
            t,
            EventKind::Read(ReadEvent {
                loc,
                order,
                rf: EventId::INIT,
                value: p.value,
                rmw: Some((rop, ty, success, failure)),
                spurious: false,
                await_: None,
            }),
            src,
            false,
        );
        self.graph.event_mut(id).revisitable = false;
        self.note_read(t, loc, EventId::INIT);
        if let Some(new) = new {
            self.new_store(t, loc, Order::write_part(success), new, src)?;
        }
        Ok(Some(match rop {
            RmwOp::Cas { .. } => OpResult::Cas(p.value, new.is_some()),
            _ => OpResult::Value(p.value),
        }))
    }

    /// The verdict on an execution of a graph with promises that ended as
    /// `end` (see the module documentation); `self.repeated` is set when it
    /// is a cyclic execution counted before.
    pub(super) fn judge_promised(&mut self, end: ExecutionEnd) -> ExecutionEnd {
        if self.graph.promises().is_empty() || end == ExecutionEnd::Blocked {
            return end;
        }
        if let Some(v) = self.promise_verdict {
            return v;
        }
        let verdict = match self.graph.with_promises_kept() {
            None => ExecutionEnd::Blocked,
            Some(g) if !self.same_hb(&g) => {
                // Counted (once) when it would otherwise have counted as
                // an execution, so a run says what it left out.
                // (Not when another branch, promising another read, counted
                // it: that promise did not synchronize.)
                if end == ExecutionEnd::Complete
                    && self.strategy.owns_execution()
                    && Relations::of(&g, SyncRules::default()).check_porf().is_err()
                    && self.model.check_complete(&g).is_ok()
                {
                    let key = canonical_key(&g);
                    if !self.cyclic_seen.contains(&key) && self.cyclic_dropped.insert(key) {
                        self.stats.cyclic_dropped += 1;
                    }
                }
                ExecutionEnd::Blocked
            }
            Some(g) if end == ExecutionEnd::Failed => {
                if self.model.consistent_declarative(&g).is_ok() {
                    end
                } else {
                    ExecutionEnd::Blocked
                }
            }
            Some(g) => {
                let cyclic = Relations::of(&g, SyncRules::default()).check_porf().is_err();
                if !cyclic || self.model.check_complete(&g).is_err() {
                    ExecutionEnd::Blocked
                } else {
                    let key = canonical_key(&g);
                    if self.cyclic_dropped.remove(&key) {
                        // Dropped on another branch, counted on this one.
                        self.stats.cyclic_dropped -= 1;
                    }
                    self.repeated = !self.cyclic_seen.insert(key);
                    end
                }
            }
        };
        self.promise_verdict = Some(verdict);
        verdict
    }

    /// Whether `kept` (the graph with its promises kept) has the same
    /// happens-before as the graph the engine built, whose promised reads
    /// read the initial write. Races are found and reported from the
    /// engine's views (`race_check.rs`), which hold that one: when a kept
    /// promise synchronizes (an acquire read, or one before an acquire
    /// fence, reading a release), the views miss edges and a race report
    /// could be false. Such an execution is dropped (an acyclic hb with a
    /// synchronizing edge in a po ∪ rf cycle is rare, and never invented).
    fn same_hb(&self, kept: &crate::graph::ExecutionGraph) -> bool {
        self.model.same_hb(kept, &self.graph)
    }
}
