//! What the shim sends the checker: an [`Op`] (what a thread asks to do,
//! with the locations, values, orders, scope and DRFrlx class it names) and
//! what it gets back ([`OpResult`]). Apart from `event.rs`, which holds
//! what the execution graph records once the engine has performed an
//! operation (one or two events: an RMW is a read part and a write part,
//! as in GenMC). Nothing here names the graph.

pub use crate::ids::{EventId, ThreadId, Value};
pub use crate::rlx_class::RlxClass;
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
        /// The DRFrlx class of a classified relaxed load (its read event
        /// takes it); `None` for every other load.
        class: Option<RlxClass>,
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
        /// The DRFrlx class of a classified relaxed store (its write event
        /// takes it); `None` for every other store.
        class: Option<RlxClass>,
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
        /// The DRFrlx class of a classified relaxed RMW (its read and write
        /// events take it); `None` for every other RMW.
        class: Option<RlxClass>,
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
    #[inline]
    pub fn scope(&self) -> Scope {
        match *self {
            Op::Load { scope, .. } | Op::Store { scope, .. } | Op::Rmw { scope, .. } | Op::Fence { scope, .. } => scope,
            _ => Scope::System,
        }
    }

    /// The DRFrlx class the operation carries (`None` for operations
    /// without one).
    #[inline]
    pub fn class(&self) -> Option<RlxClass> {
        match *self {
            Op::Load { class, .. } | Op::Store { class, .. } | Op::Rmw { class, .. } => class,
            _ => None,
        }
    }

    /// Whether the operation reads (a load or an RMW): its answer names
    /// the read event ([`Answer::read`]).
    #[inline]
    pub fn reads(&self) -> bool {
        matches!(self, Op::Load { .. } | Op::Rmw { .. })
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

/// The checker's whole answer to an [`Op`] the thread performed: the
/// result, and for a load or an RMW the read event whose value it returned
/// (what a DRFrlx `Observed` value points at: its observation is made of
/// that event).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Answer {
    /// What the operation returns.
    pub result: OpResult,
    /// The read event of a load, or the read part of an RMW; `None` for
    /// every other operation.
    pub read: Option<EventId>,
}
