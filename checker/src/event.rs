//! Events: what one step of one thread did, as recorded in the execution graph.
//!
//! The runtime hands the checker an [`Op`] (what the thread asks to do,
//! `op.rs`); the checker turns it into one or two [`Event`]s (an RMW is a
//! read part followed by a write part, as in GenMC) and answers with an
//! [`OpResult`]. What the shim sends is defined in `op.rs` and re-exported
//! here, so that code reading the graph names one module.

use crate::clock::Clock;
pub use crate::op::*;

/// What an event did.
#[derive(Clone, Debug)]
pub enum EventKind {
    /// First event of a thread; `parent` is the spawn event (none for thread 0).
    Start {
        /// The `Spawn` event that created the thread.
        parent: Option<EventId>,
    },
    /// Last event of a finished thread.
    End,
    /// Created thread `child`.
    Spawn {
        /// The new thread.
        child: ThreadId,
    },
    /// Waited for `target` to finish.
    Join {
        /// The thread joined.
        target: ThreadId,
    },
    /// Passed a barrier with the other members of its group: it happens
    /// after everything each of them did before arriving.
    Barrier {
        /// The group.
        group: BarrierGroup,
        /// Which of the group's barriers (0 for the first this thread passed).
        instance: u32,
        /// The other members' last events before the barrier.
        partners: Vec<EventId>,
        /// The memory spaces it orders: it happens after the partners'
        /// events only as far as accesses to these spaces are concerned.
        fence: FenceSpace,
    },
    /// Used the value returned by `of`, an earlier access of the same
    /// thread (DRFrlx observability). It orders nothing; it is in po so that
    /// a revisit that drops the events after a read also drops the
    /// observations made after it.
    Observe {
        /// The access observed.
        of: EventId,
    },
    /// Allocated `loc`.
    Alloc {
        /// The location.
        loc: Loc,
        /// Its initial value.
        init: Value,
        /// What the location is.
        kind: LocKind,
        /// The memory space it is in.
        space: Space,
        /// Whether it holds addresses (see [`Op::Alloc`]).
        addresses: bool,
    },
    /// A read (alone or the read part of an RMW).
    Read(ReadEvent),
    /// A write (alone or the write part of an RMW).
    Write(WriteEvent),
    /// A fence.
    Fence {
        /// Its order.
        order: Order,
    },
    /// An access to a tracked non-atomic cell (not part of rf/mo).
    Cell {
        /// The cell.
        loc: Loc,
        /// Whether it may write.
        write: bool,
    },
}

/// A read.
#[derive(Copy, Clone, Debug)]
pub struct ReadEvent {
    /// Location.
    pub loc: Loc,
    /// Order (for a failed compare-exchange, the failure order).
    pub order: Order,
    /// The write read from.
    pub rf: EventId,
    /// The value read (cached from `rf`).
    pub value: Value,
    /// For the read part of an RMW: the arithmetic and the success and
    /// failure orders (its write part follows in po iff `rmw.apply(value)`
    /// writes and the read did not fail spuriously).
    pub rmw: Option<(RmwOp, ValueType, Order, Order)>,
    /// A weak compare-exchange that failed although the value matched.
    pub spurious: bool,
    /// The condition the read waited for.
    pub await_: Option<Await>,
}

impl ReadEvent {
    /// Whether this read is followed by the write part of an RMW.
    #[inline]
    pub fn is_exclusive(&self) -> bool {
        match self.rmw {
            Some((op, ty, _, _)) => !self.spurious && op.apply(ty, self.value).is_some(),
            None => false,
        }
    }

    /// The order this read has given the value it read: an RMW's read part
    /// has the success order's read part when it writes, the failure order
    /// when it does not.
    pub fn effective_order(&self) -> Order {
        match self.rmw {
            Some((_, _, success, failure)) => {
                if self.is_exclusive() {
                    success.read_part()
                } else {
                    failure
                }
            }
            None => self.order,
        }
    }
}

/// A write.
#[derive(Copy, Clone, Debug)]
pub struct WriteEvent {
    /// Location.
    pub loc: Loc,
    /// Order.
    pub order: Order,
    /// Value written.
    pub value: Value,
    /// Whether this is the write part of an RMW (its read part is the po-previous event).
    pub rmw: bool,
}

/// A release the scoped models track: the view a synchronizing acquire
/// gains, and who released at which scope (docs/semantics.md §4: synchronization
/// needs the release and the acquire to be mutually scope-inclusive).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// The releasing thread's view at the release.
    pub view: Clock,
    /// The releasing thread.
    pub thread: ThreadId,
    /// The release's scope.
    pub scope: Scope,
}

/// Synchronization state of scoped models, per event.
#[derive(Clone, Debug, Default)]
pub struct ScopedSync {
    /// For writes: the releases a reader of this write may synchronize with
    /// (the heads of the release sequences it is in, or the fence before it).
    pub heads: Vec<Head>,
    /// The thread's last release fence, up to this event.
    pub fence: Option<Head>,
    /// Releases read by relaxed reads so far, for a later acquire fence.
    pub pending: Vec<Head>,
}

/// One event of the execution graph, with the views computed when it was added.
#[derive(Clone, Debug)]
pub struct Event {
    /// What it did.
    pub kind: EventKind,
    /// The order in which events were added (TruSt's `<_G`).
    pub stamp: u32,
    /// Where the user's code issued it.
    pub src: SourceLoc,
    /// Events (po | rf)*-before it (with itself and its thread's prefix):
    /// a slot of the graph's view clocks (`ExecutionGraph::porf` asks it).
    pub(crate) porf: u32,
    /// Events happening before it (with itself and its thread's prefix): a
    /// slot of the graph's view clocks (`ExecutionGraph::hb` asks it).
    pub(crate) hb: u32,
    /// For writes: what a reader acquires by reading it (release sequences,
    /// fences; `ExecutionGraph::msg` asks it).
    pub(crate) msg: crate::clock::Msg,
    /// The number of view clocks the graph held once the event was added
    /// (what a graph cut back to this event keeps).
    pub(crate) mark: u32,
    /// The thread's view at its last release fence, up to this event.
    pub rel_fence: crate::clock::SharedClock,
    /// What an acquire fence after this event would acquire (messages of relaxed reads so far).
    pub acq_pending: crate::clock::SharedClock,
    /// The scope of the operation (`System` for the unscoped shim; `Thread`
    /// for plain accesses has no effect: they never synchronize).
    pub scope: Scope,
    /// What scoped models track instead of `msg`/`rel_fence`/`acq_pending`.
    pub scoped: Option<Box<ScopedSync>>,
    /// Whether the event was added with the explorer's default choice (TruSt maximality).
    pub added_max: bool,
    /// Whether a backward revisit may still delete or change it.
    pub revisitable: bool,
    /// Whether its thread gave a spin hint (`spin_loop`, `yield_now`) just
    /// before it: switching away from the thread there is not a preemption
    /// (loom's rule: a thread that yields gives up the processor).
    pub after_hint: bool,
    /// The DRFrlx class of a relaxed atomic access, when the program gave one
    /// (seed 004; `None` for every other event, and for unclassified relaxed
    /// atomics).
    pub rlx: Option<crate::rlx_class::RlxClass>,
}

impl Event {
    /// The location accessed, if any.
    pub fn loc(&self) -> Option<Loc> {
        match &self.kind {
            EventKind::Read(r) => Some(r.loc),
            EventKind::Write(w) => Some(w.loc),
            EventKind::Cell { loc, .. } => Some(*loc),
            _ => None,
        }
    }
    /// The read, if this is one.
    pub fn as_read(&self) -> Option<&ReadEvent> {
        match &self.kind {
            EventKind::Read(r) => Some(r),
            _ => None,
        }
    }
    /// The write, if this is one.
    pub fn as_write(&self) -> Option<&WriteEvent> {
        match &self.kind {
            EventKind::Write(w) => Some(w),
            _ => None,
        }
    }
    /// Whether this event is a seq_cst access or fence.
    pub fn is_sc(&self) -> bool {
        match &self.kind {
            EventKind::Read(r) => r.order.is_sc(),
            EventKind::Write(w) => w.order.is_sc(),
            EventKind::Fence { order } => order.is_sc(),
            _ => false,
        }
    }
    /// One-line description for reports ("load(acq) loc0.1 = 1").
    pub fn describe(&self) -> String {
        match &self.kind {
            EventKind::Start { .. } => "start".into(),
            EventKind::End => "end".into(),
            EventKind::Spawn { child } => format!("spawn T{child}"),
            EventKind::Join { target } => format!("join T{target}"),
            EventKind::Barrier {
                group,
                instance,
                fence: FenceSpace::Both,
                ..
            } => format!("barrier #{instance} of {group}"),
            EventKind::Barrier {
                group, instance, fence, ..
            } => format!("barrier #{instance} of {group} (fences {fence} memory only)"),
            EventKind::Alloc {
                loc, init, kind, space, ..
            } => format!(
                "new {}{} {loc} = {init}",
                if *space == Space::Local { "local " } else { "" },
                match kind {
                    LocKind::Atomic => "atomic",
                    LocKind::Mutex => "mutex",
                    LocKind::RwLock => "rwlock",
                    LocKind::Cell => "cell",
                }
            ),
            EventKind::Read(r) => {
                let what = match r.rmw {
                    Some((op, ..)) if r.is_exclusive() => format!("{}.read", op.name()),
                    Some((op, ..)) if r.spurious => format!("{} (spurious failure)", op.name()),
                    Some((op, ..)) => format!("{} (failed)", op.name()),
                    None if r.await_.is_some() => "lock".into(),
                    None => "load".into(),
                };
                format!("{what}({}) {} = {} (rf {:?})", r.order.short(), r.loc, r.value, r.rf)
            }
            EventKind::Write(w) => format!(
                "{}({}) {} := {}",
                if w.rmw { "rmw.write" } else { "store" },
                w.order.short(),
                w.loc,
                w.value
            ),
            EventKind::Fence { order } => format!("fence({})", order.short()),
            EventKind::Observe { of } => format!("observe {of:?}"),
            EventKind::Cell { loc, write } => {
                format!("{} {loc}", if *write { "cell write" } else { "cell read" })
            }
        }
    }
}
