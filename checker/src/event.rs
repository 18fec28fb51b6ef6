//! Events: what one step of one thread did, as recorded in the execution graph.
//!
//! The runtime hands the checker an [`Op`] (what the thread asks to do); the
//! checker turns it into one or two [`Event`]s (an RMW is a read part followed
//! by a write part, as in GenMC) and answers with an [`OpResult`].

use crate::clock::Clock;
pub use crate::ids::{EventId, ThreadId, Value};
pub use crate::scope::{Placement, Scope};
pub use crate::space::{FenceSpace, Space};
use std::fmt;
use std::panic::Location;

/// Where in the user's source an operation was issued: a Rust line from
/// `#[track_caller]`, or a line of a litmus file.
///
/// Displayed as `file:line:column`, like [`std::panic::Location`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceLoc {
    /// The file.
    pub file: &'static str,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
}

impl SourceLoc {
    /// The location of the caller, followed through `#[track_caller]` frames.
    #[track_caller]
    pub fn caller() -> SourceLoc {
        Location::caller().into()
    }

    /// The file (as [`Location::file`]).
    pub fn file(&self) -> &'static str {
        self.file
    }

    /// The line (as [`Location::line`]).
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The column (as [`Location::column`]).
    pub fn column(&self) -> u32 {
        self.column
    }
}

impl From<&'static Location<'static>> for SourceLoc {
    fn from(l: &'static Location<'static>) -> SourceLoc {
        SourceLoc {
            file: l.file(),
            line: l.line(),
            column: l.column(),
        }
    }
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// What kind of object a location is.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum LocKind {
    /// An atomic object (reads and writes take part in rf and mo).
    Atomic,
    /// The lock word of a mutex (an atomic; its own writes do not count as
    /// progress for spin-loop detection).
    Mutex,
    /// The state word of a reader-writer lock: a [`LocKind::Mutex`] in
    /// every respect but its name in reports (0 unlocked, `u64::MAX`
    /// write-locked, else the number of readers).
    RwLock,
    /// A tracked non-atomic cell: accesses are only checked for data races.
    Cell,
}

/// A memory location: an atomic object or a tracked non-atomic cell.
///
/// Locations are named by the thread that allocated them and the allocation's
/// rank in that thread, which is the same in every re-execution of the same
/// program path, whatever the interleaving.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Loc(pub u64);

impl Loc {
    /// The location allocated as the `seq`-th allocation of `thread`.
    pub fn new(thread: ThreadId, seq: u32) -> Loc {
        Loc(((thread as u64) << 32) | seq as u64)
    }
    /// The allocation rank that names park tokens ([`Loc::park_token`]).
    pub const PARK_TOKEN: u32 = u32::MAX;

    /// The park token of thread `t` (`thread::park` / `Thread::unpark`): an
    /// atomic location holding 0 that every thread has from its start,
    /// without an allocation event of its own (so programs that never park
    /// have the same events as before), and that exists in the graph once
    /// an operation touches it ([`ExecutionGraph::ensure_park_token`]).
    ///
    /// [`ExecutionGraph::ensure_park_token`]: crate::graph::ExecutionGraph::ensure_park_token
    pub fn park_token(t: ThreadId) -> Loc {
        Loc::new(t, Loc::PARK_TOKEN)
    }

    /// Whether this is a thread's park token.
    pub fn is_park_token(self) -> bool {
        self.seq() == Loc::PARK_TOKEN
    }

    /// The thread that allocated the location.
    pub fn thread(self) -> ThreadId {
        (self.0 >> 32) as ThreadId
    }
    /// The allocation's rank within its thread.
    pub fn seq(self) -> u32 {
        self.0 as u32
    }
}

impl LocKind {
    /// Whether this is a lock's word ([`LocKind::Mutex`] or
    /// [`LocKind::RwLock`]): its writes are not progress for spin loops.
    pub fn is_lock(self) -> bool {
        matches!(self, LocKind::Mutex | LocKind::RwLock)
    }

    /// A value of a lock word in the lock's terms (`unlocked`,
    /// `write-locked`, `2 readers`); `None` for other locations.
    pub fn lock_state(self, v: Value) -> Option<String> {
        Some(match (self, v) {
            (LocKind::Mutex | LocKind::RwLock, 0) => "unlocked".into(),
            (LocKind::Mutex, 1) => "locked".into(),
            (LocKind::RwLock, u64::MAX) => "write-locked".into(),
            (LocKind::RwLock, 1) => "1 reader".into(),
            (LocKind::RwLock, n) => format!("{n} readers"),
            _ => return None,
        })
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_park_token() {
            return write!(f, "token{}", self.thread());
        }
        write!(f, "loc{}.{}", self.thread(), self.seq())
    }
}

/// Memory order of an access or fence. `NonAtomic` marks plain accesses.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Order {
    /// A plain (non-atomic) access.
    NonAtomic,
    /// `Ordering::Relaxed`.
    Relaxed,
    /// `Ordering::Acquire`.
    Acquire,
    /// `Ordering::Release`.
    Release,
    /// `Ordering::AcqRel`.
    AcqRel,
    /// `Ordering::SeqCst`.
    SeqCst,
}

impl Order {
    /// Whether the order has acquire semantics.
    pub fn is_acquire(self) -> bool {
        matches!(self, Order::Acquire | Order::AcqRel | Order::SeqCst)
    }
    /// Whether the order has release semantics.
    pub fn is_release(self) -> bool {
        matches!(self, Order::Release | Order::AcqRel | Order::SeqCst)
    }
    /// Whether the order is `SeqCst`.
    pub fn is_sc(self) -> bool {
        self == Order::SeqCst
    }
    /// Whether the access is atomic.
    pub fn is_atomic(self) -> bool {
        self != Order::NonAtomic
    }
    /// The order of the read part of an RMW with this order.
    pub fn read_part(self) -> Order {
        match self {
            Order::AcqRel => Order::Acquire,
            Order::Release => Order::Relaxed,
            o => o,
        }
    }
    /// The order of the write part of an RMW with this order.
    pub fn write_part(self) -> Order {
        match self {
            Order::AcqRel => Order::Release,
            Order::Acquire => Order::Relaxed,
            o => o,
        }
    }
    /// Short name used in reports ("rlx", "acq", ...).
    pub fn short(self) -> &'static str {
        match self {
            Order::NonAtomic => "na",
            Order::Relaxed => "rlx",
            Order::Acquire => "acq",
            Order::Release => "rel",
            Order::AcqRel => "acq_rel",
            Order::SeqCst => "sc",
        }
    }
}

/// Width and signedness of an atomic value, so RMW arithmetic wraps and
/// min/max compare the way the Rust type does.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct ValueType {
    /// Width in bits (1 for `AtomicBool`, 8, 16, 32, 64).
    pub bits: u8,
    /// Whether min/max compare as signed integers.
    pub signed: bool,
}

impl ValueType {
    /// A 64-bit unsigned value (the default for tests and litmus programs).
    pub const U64: ValueType = ValueType {
        bits: 64,
        signed: false,
    };
    /// Truncates `v` to this width.
    pub fn mask(self, v: Value) -> Value {
        if self.bits >= 64 {
            v
        } else {
            v & ((1u64 << self.bits) - 1)
        }
    }
    fn as_signed(self, v: Value) -> i64 {
        if self.bits >= 64 {
            v as i64
        } else {
            let shift = 64 - self.bits as u32;
            ((v << shift) as i64) >> shift
        }
    }
}

/// The arithmetic of a read-modify-write.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RmwOp {
    /// `swap(v)`.
    Swap(Value),
    /// `fetch_add(v)` (wrapping).
    Add(Value),
    /// `fetch_sub(v)` (wrapping).
    Sub(Value),
    /// `fetch_and(v)`.
    And(Value),
    /// `fetch_nand(v)`.
    Nand(Value),
    /// `fetch_or(v)`.
    Or(Value),
    /// `fetch_xor(v)`.
    Xor(Value),
    /// `fetch_max(v)`.
    Max(Value),
    /// `fetch_min(v)`.
    Min(Value),
    /// `compare_exchange(expected, new)`; `weak` may fail spuriously.
    Cas {
        /// The value the location must hold for the exchange to happen.
        expected: Value,
        /// The value written on success.
        new: Value,
        /// Whether this is `compare_exchange_weak`.
        weak: bool,
    },
    /// A floating-point `fetch_add` / `fetch_sub` / `fetch_min` /
    /// `fetch_max` with the operand's bits; the width is the
    /// [`ValueType`]'s (32: `f32`, 64: `f64`). See [`crate::float`].
    Float(crate::float::FloatOp, Value),
}

impl RmwOp {
    /// Whether the operation writes whatever it reads (everything but a
    /// compare-exchange).
    pub fn always_writes(self) -> bool {
        !matches!(self, RmwOp::Cas { .. })
    }

    /// The value the write part stores, or `None` if the operation does not
    /// write when it reads `old` (a failed compare-exchange).
    pub fn apply(self, ty: ValueType, old: Value) -> Option<Value> {
        let v = match self {
            RmwOp::Swap(v) => v,
            RmwOp::Add(v) => old.wrapping_add(v),
            RmwOp::Sub(v) => old.wrapping_sub(v),
            RmwOp::And(v) => old & v,
            RmwOp::Nand(v) => !(old & v),
            RmwOp::Or(v) => old | v,
            RmwOp::Xor(v) => old ^ v,
            RmwOp::Max(v) => {
                if ty.signed {
                    if ty.as_signed(v) > ty.as_signed(old) {
                        v
                    } else {
                        old
                    }
                } else {
                    v.max(old)
                }
            }
            RmwOp::Min(v) => {
                if ty.signed {
                    if ty.as_signed(v) < ty.as_signed(old) {
                        v
                    } else {
                        old
                    }
                } else {
                    v.min(old)
                }
            }
            RmwOp::Cas { expected, new, .. } => {
                if old == expected {
                    new
                } else {
                    return None;
                }
            }
            RmwOp::Float(op, v) => op.apply(ty.bits, old, v),
        };
        Some(ty.mask(v))
    }

    /// Short name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            RmwOp::Swap(_) => "swap",
            RmwOp::Add(_) => "fetch_add",
            RmwOp::Sub(_) => "fetch_sub",
            RmwOp::And(_) => "fetch_and",
            RmwOp::Nand(_) => "fetch_nand",
            RmwOp::Or(_) => "fetch_or",
            RmwOp::Xor(_) => "fetch_xor",
            RmwOp::Max(_) => "fetch_max",
            RmwOp::Min(_) => "fetch_min",
            RmwOp::Cas { weak: false, .. } => "compare_exchange",
            RmwOp::Cas { weak: true, .. } => "compare_exchange_weak",
            RmwOp::Float(op, _) => op.name(),
        }
    }
}

/// A condition a read waits for: the thread does not take the step until a
/// write it may read satisfies it (used for mutex acquisition).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Await {
    /// Wait until the location holds this value.
    ValueEq(Value),
}

impl Await {
    /// Whether reading `v` satisfies the condition.
    pub fn admits(self, v: Value) -> bool {
        match self {
            Await::ValueEq(x) => v == x,
        }
    }
}

/// What a thread asks the checker to do. Produced by the shim, one per
/// operation on shared state.
#[derive(Clone, Debug)]
pub enum Op {
    /// Allocate a location with an initial value.
    Alloc {
        /// The initial value.
        init: Value,
        /// What the location is.
        kind: LocKind,
        /// The memory space it is in (`Global` for everything but GPU local memory).
        space: Space,
        /// Whether the location holds addresses (its values are of a pointer
        /// type): when a kept graph is replayed, the values stored there are
        /// taken from the running execution instead of being compared with
        /// the recorded ones (docs/heap-addresses.md).
        addresses: bool,
    },
    /// An atomic (or, with `Order::NonAtomic`, plain) load.
    Load {
        /// Location read.
        loc: Loc,
        /// Memory order.
        order: Order,
        /// Scope.
        scope: Scope,
    },
    /// An atomic (or plain) store.
    Store {
        /// Location written.
        loc: Loc,
        /// Memory order.
        order: Order,
        /// Value written.
        value: Value,
        /// Scope.
        scope: Scope,
    },
    /// A read-modify-write.
    Rmw {
        /// Location.
        loc: Loc,
        /// The arithmetic.
        op: RmwOp,
        /// Width and signedness of the value.
        ty: ValueType,
        /// Order when the write happens.
        success: Order,
        /// Order when it does not (failed compare-exchange).
        failure: Order,
        /// A condition the read must satisfy before the thread may take the step.
        await_: Option<Await>,
        /// Scope.
        scope: Scope,
    },
    /// A fence.
    Fence {
        /// Memory order (`Relaxed` is rejected by the shim like std does).
        order: Order,
        /// Its scope.
        scope: Scope,
    },
    /// Access to tracked non-atomic memory (`UnsafeCell::with` / `with_mut`).
    CellAccess {
        /// The cell.
        loc: Loc,
        /// Whether the access may write.
        write: bool,
    },
    /// Start a thread at a placement (`Placement::HOST` for `thread::spawn`).
    Spawn {
        /// Where the new thread runs.
        placement: Placement,
    },
    /// Wait for a thread to finish.
    Join {
        /// The thread waited for.
        target: ThreadId,
    },
    /// Wait at a barrier until all `size` members of `group` have arrived.
    Barrier {
        /// The group (a block, a warp, or a whole kernel's grid).
        group: BarrierGroup,
        /// How many threads the group has.
        size: u32,
        /// The memory spaces it orders.
        fence: FenceSpace,
    },
    /// The thread used the value an earlier access of its own returned
    /// (DRFrlx observability: unwrapping a commutative or speculative
    /// result; seed 004 section 3.2.3 and 3.5.3).
    Observe {
        /// The access whose value was used (an RMW's read part).
        of: EventId,
    },
}

/// A group of threads that meets at barriers: the threads of one block,
/// one warp, or the whole grid of one kernel launch.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct BarrierGroup {
    /// A location allocated by the launch, naming the kernel run.
    pub kernel: Loc,
    /// `Warp`, `Block`, or `Device` (the grid).
    pub level: Scope,
    /// Index of the warp, block or cluster within the kernel (0 for the grid).
    pub index: u32,
    /// For a partial warp barrier (`__syncwarp(mask)`, a tile's `sync`):
    /// the lanes it waits for; 0 for a whole group.
    pub lanes: u64,
}

impl fmt::Display for BarrierGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.level {
            Scope::Warp if self.lanes != 0 => {
                let lanes: Vec<String> = (0..64)
                    .filter(|l| self.lanes >> l & 1 == 1)
                    .map(|l| l.to_string())
                    .collect();
                write!(
                    f,
                    "lanes {{{}}} of warp {} of kernel {}",
                    lanes.join(", "),
                    self.index,
                    self.kernel
                )
            }
            Scope::Warp => write!(f, "warp {} of kernel {}", self.index, self.kernel),
            Scope::Block => write!(f, "block {} of kernel {}", self.index, self.kernel),
            Scope::Cluster => write!(f, "cluster {} of kernel {}", self.index, self.kernel),
            _ => write!(f, "the grid of kernel {}", self.kernel),
        }
    }
}

impl Op {
    /// Whether taking this step involves a choice of the explorer (which
    /// thread, which write to read, where in mo). Other operations are
    /// applied as soon as the thread reaches them.
    pub fn is_visible(&self) -> bool {
        matches!(
            self,
            Op::Load { .. } | Op::Store { .. } | Op::Rmw { .. } | Op::Join { .. } | Op::Barrier { .. }
        )
    }
    /// The scope the operation acts at (`System` for operations without one).
    pub fn scope(&self) -> Scope {
        match *self {
            Op::Load { scope, .. } | Op::Store { scope, .. } | Op::Rmw { scope, .. } | Op::Fence { scope, .. } => scope,
            _ => Scope::System,
        }
    }

    /// The location an operation accesses, if any.
    pub fn loc(&self) -> Option<Loc> {
        match *self {
            Op::Load { loc, .. } | Op::Store { loc, .. } | Op::Rmw { loc, .. } | Op::CellAccess { loc, .. } => {
                Some(loc)
            }
            _ => None,
        }
    }
}

/// The checker's answer to an [`Op`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum OpResult {
    /// Nothing to return.
    Done,
    /// The value read (for an RMW, the old value).
    Value(Value),
    /// A compare-exchange: the value read and whether it exchanged.
    Cas(Value, bool),
    /// A location allocated.
    Loc(Loc),
    /// A thread started.
    Thread(ThreadId),
}

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
