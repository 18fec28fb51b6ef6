//! Atomics with std's API whose every operation is an event for the checker.
//!
//! Orderings are `std::sync::atomic::Ordering`, so code moves over by changing
//! `use` lines. Invalid orderings panic with std's words, at the caller's line.

use crate::rt;
use scopecheck_checker::event::Loc;
use scopecheck_checker::event::{LocKind, Op, OpResult, Order, RmwOp, Value, ValueType};
use scopecheck_checker::event::{Scope, SourceLoc, Space};
use std::cell::Cell;
pub use std::sync::atomic::Ordering;

pub(crate) fn order(o: Ordering) -> Order {
    match o {
        Ordering::Relaxed => Order::Relaxed,
        Ordering::Acquire => Order::Acquire,
        Ordering::Release => Order::Release,
        Ordering::AcqRel => Order::AcqRel,
        Ordering::SeqCst => Order::SeqCst,
        _ => Order::SeqCst,
    }
}

#[track_caller]
pub(crate) fn load_order(o: Ordering) -> Order {
    match o {
        Ordering::Release => panic!("there is no such thing as a release load"),
        Ordering::AcqRel => panic!("there is no such thing as an acquire-release load"),
        o => order(o),
    }
}

#[track_caller]
pub(crate) fn store_order(o: Ordering) -> Order {
    match o {
        Ordering::Acquire => panic!("there is no such thing as an acquire store"),
        Ordering::AcqRel => panic!("there is no such thing as an acquire-release store"),
        o => order(o),
    }
}

#[track_caller]
pub(crate) fn failure_order(o: Ordering) -> Order {
    match o {
        Ordering::Release => panic!("there is no such thing as a release failure ordering"),
        Ordering::AcqRel => panic!("there is no such thing as an acquire-release failure ordering"),
        o => order(o),
    }
}

/// Allocates an atomic location holding `v`.
#[track_caller]
pub(crate) fn alloc(v: Value, kind: LocKind) -> Loc {
    alloc_in(v, kind, Space::Global)
}

/// Allocates a location holding `v` in memory space `space`.
#[track_caller]
pub(crate) fn alloc_in(v: Value, kind: LocKind, space: Space) -> Loc {
    match rt::op(Op::Alloc { init: v, kind, space }) {
        OpResult::Loc(l) => l,
        r => unreachable!("alloc answered {r:?}"),
    }
}

/// The raw operations every atomic type is built on.
pub(crate) struct RawAtomic {
    pub(crate) loc: Loc,
    pub(crate) ty: ValueType,
}

impl RawAtomic {
    #[track_caller]
    pub(crate) fn new(v: Value, ty: ValueType, kind: LocKind) -> RawAtomic {
        RawAtomic::new_in(v, ty, kind, Space::Global)
    }

    /// A location in memory space `space` (local memory follows local
    /// happens-before: `space.rs`).
    #[track_caller]
    pub(crate) fn new_in(v: Value, ty: ValueType, kind: LocKind, space: Space) -> RawAtomic {
        RawAtomic {
            loc: alloc_in(ty.mask(v), kind, space),
            ty,
        }
    }

    #[track_caller]
    pub(crate) fn load(&self, o: Order) -> Value {
        self.load_at(o, Scope::System)
    }

    #[track_caller]
    pub(crate) fn load_at(&self, o: Order, scope: Scope) -> Value {
        match rt::op(Op::Load {
            loc: self.loc,
            order: o,
            scope,
        }) {
            OpResult::Value(v) => v,
            r => unreachable!("load answered {r:?}"),
        }
    }

    #[track_caller]
    pub(crate) fn store(&self, v: Value, o: Order) {
        self.store_at(v, o, Scope::System)
    }

    #[track_caller]
    pub(crate) fn store_at(&self, v: Value, o: Order, scope: Scope) {
        rt::op(Op::Store {
            loc: self.loc,
            order: o,
            value: self.ty.mask(v),
            scope,
        });
    }

    #[track_caller]
    pub(crate) fn rmw(&self, op: RmwOp, success: Order, failure: Order) -> (Value, bool) {
        self.rmw_at(op, success, failure, Scope::System)
    }

    #[track_caller]
    pub(crate) fn rmw_at(&self, op: RmwOp, success: Order, failure: Order, scope: Scope) -> (Value, bool) {
        let op = match op {
            RmwOp::Cas { expected, new, weak } => RmwOp::Cas {
                expected: self.ty.mask(expected),
                new: self.ty.mask(new),
                weak,
            },
            other => other,
        };
        match rt::op(Op::Rmw {
            loc: self.loc,
            op,
            ty: self.ty,
            success,
            failure,
            await_: None,
            scope,
        }) {
            OpResult::Value(v) => (v, true),
            OpResult::Cas(v, ok) => (v, ok),
            r => unreachable!("rmw answered {r:?}"),
        }
    }
}

/// Storage behind `get_mut`: the value is read plainly into it, and what the
/// caller left there is written back plainly before the next operation.
pub(crate) struct MutSlot<T: Copy> {
    slot: std::cell::UnsafeCell<T>,
    live: Cell<bool>,
}

impl<T: Copy> MutSlot<T> {
    pub(crate) fn new(v: T) -> MutSlot<T> {
        MutSlot {
            slot: std::cell::UnsafeCell::new(v),
            live: Cell::new(false),
        }
    }

    /// Writes back a value left by `get_mut`.
    #[track_caller]
    pub(crate) fn flush(&self, raw: &RawAtomic, to_value: impl Fn(T) -> Value) {
        if self.live.replace(false) {
            // SAFETY: `get_mut`'s borrow has ended (we hold `&self`).
            let v = unsafe { *self.slot.get() };
            raw.store(to_value(v), Order::NonAtomic);
        }
    }

    /// Reads the value plainly into the slot and lends it out.
    #[track_caller]
    pub(crate) fn get_mut(
        &mut self,
        raw: &RawAtomic,
        from_value: impl Fn(Value) -> T,
        to_value: impl Fn(T) -> Value,
    ) -> &mut T {
        self.flush(raw, to_value);
        let v = from_value(raw.load(Order::NonAtomic));
        self.live.set(true);
        let slot = self.slot.get_mut();
        *slot = v;
        slot
    }
}

/// std's `fetch_update`: apply `f` and retry a weak compare-exchange until it
/// succeeds or `f` gives up.
#[track_caller]
fn fetch_update_loop<T: Copy>(
    mut prev: T,
    mut f: impl FnMut(T) -> Option<T>,
    mut cas_weak: impl FnMut(T, T) -> Result<T, T>,
) -> Result<T, T> {
    while let Some(next) = f(prev) {
        match cas_weak(prev, next) {
            Ok(x) => return Ok(x),
            Err(next_prev) => prev = next_prev,
        }
    }
    Err(prev)
}

macro_rules! int_atomic {
    ($(#[$doc:meta])* $name:ident, $int:ty, $bits:expr, $signed:expr) => {
        $(#[$doc])*
        pub struct $name {
            raw: RawAtomic,
            slot: MutSlot<$int>,
        }

        impl $name {
            const TY: ValueType = ValueType { bits: $bits, signed: $signed };

            /// Creates a new atomic (inside a model only).
            #[track_caller]
            pub fn new(v: $int) -> $name {
                $name { raw: RawAtomic::new(v as Value, Self::TY, LocKind::Atomic), slot: MutSlot::new(0) }
            }

            fn from_value(v: Value) -> $int {
                v as $int
            }

            /// Loads the value.
            #[track_caller]
            pub fn load(&self, order: Ordering) -> $int {
                self.flush();
                Self::from_value(self.raw.load(load_order(order)))
            }

            /// This atomic's relaxed operations with a DRFrlx class (seed
            /// 004): `counter.rlx(Class::Commutative).fetch_add(1)`. Pass
            /// `None` for an unclassified relaxed atomic whose returned values
            /// the checker should still track (class inference is then
            /// precise about observations).
            #[track_caller]
            pub fn rlx(&self, class: impl Into<Option<crate::drfrlx::Class>>) -> crate::drfrlx::Rlx<'_, $int> {
                self.flush();
                crate::drfrlx::Rlx::new(&self.raw, class.into())
            }

            /// Stores a value.
            #[track_caller]
            pub fn store(&self, val: $int, order: Ordering) {
                self.flush();
                self.raw.store(val as Value, store_order(order))
            }

            #[track_caller]
            fn fetch(&self, op: RmwOp, order: Ordering) -> $int {
                self.fetch_at(op, order, Scope::System)
            }

            #[track_caller]
            fn fetch_at(&self, op: RmwOp, order: Ordering, scope: Scope) -> $int {
                let o = self::order(order);
                self.flush();
                Self::from_value(self.raw.rmw_at(op, o, o, scope).0)
            }

            /// `load` at a memory scope: atomic and synchronizing only with
            /// operations whose scopes include each other's threads (under `src11`).
            #[track_caller]
            pub fn load_scoped(&self, order: Ordering, scope: Scope) -> $int {
                self.flush();
                Self::from_value(self.raw.load_at(load_order(order), scope))
            }

            /// `store` at a memory scope.
            #[track_caller]
            pub fn store_scoped(&self, val: $int, order: Ordering, scope: Scope) {
                self.flush();
                self.raw.store_at(val as Value, store_order(order), scope)
            }

            /// `swap` at a memory scope.
            #[track_caller]
            pub fn swap_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.fetch_at(RmwOp::Swap(val as Value), order, scope)
            }

            /// `fetch_add` at a memory scope.
            #[track_caller]
            pub fn fetch_add_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.fetch_at(RmwOp::Add(val as Value), order, scope)
            }

            /// `fetch_sub` at a memory scope.
            #[track_caller]
            pub fn fetch_sub_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.fetch_at(RmwOp::Sub(val as Value), order, scope)
            }

            /// `fetch_and` at a memory scope.
            #[track_caller]
            pub fn fetch_and_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.fetch_at(RmwOp::And(val as Value), order, scope)
            }

            /// `fetch_nand` at a memory scope.
            #[track_caller]
            pub fn fetch_nand_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.fetch_at(RmwOp::Nand(val as Value), order, scope)
            }

            /// `fetch_or` at a memory scope.
            #[track_caller]
            pub fn fetch_or_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.fetch_at(RmwOp::Or(val as Value), order, scope)
            }

            /// `fetch_xor` at a memory scope.
            #[track_caller]
            pub fn fetch_xor_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.fetch_at(RmwOp::Xor(val as Value), order, scope)
            }

            /// `fetch_max` at a memory scope.
            #[track_caller]
            pub fn fetch_max_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.fetch_at(RmwOp::Max(val as Value), order, scope)
            }

            /// `fetch_min` at a memory scope.
            #[track_caller]
            pub fn fetch_min_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.fetch_at(RmwOp::Min(val as Value), order, scope)
            }

            /// `compare_exchange` at a memory scope.
            #[track_caller]
            pub fn compare_exchange_scoped(
                &self,
                current: $int,
                new: $int,
                success: Ordering,
                failure: Ordering,
                scope: Scope,
            ) -> Result<$int, $int> {
                self.cas_at(current, new, success, failure, false, scope)
            }

            /// `compare_exchange_weak` at a memory scope.
            #[track_caller]
            pub fn compare_exchange_weak_scoped(
                &self,
                current: $int,
                new: $int,
                success: Ordering,
                failure: Ordering,
                scope: Scope,
            ) -> Result<$int, $int> {
                self.cas_at(current, new, success, failure, true, scope)
            }

            /// Stores a value, returning the previous one.
            #[track_caller]
            pub fn swap(&self, val: $int, order: Ordering) -> $int {
                self.fetch(RmwOp::Swap(val as Value), order)
            }

            /// Adds (wrapping), returning the previous value.
            #[track_caller]
            pub fn fetch_add(&self, val: $int, order: Ordering) -> $int {
                self.fetch(RmwOp::Add(val as Value), order)
            }

            /// Subtracts (wrapping), returning the previous value.
            #[track_caller]
            pub fn fetch_sub(&self, val: $int, order: Ordering) -> $int {
                self.fetch(RmwOp::Sub(val as Value), order)
            }

            /// Bitwise and, returning the previous value.
            #[track_caller]
            pub fn fetch_and(&self, val: $int, order: Ordering) -> $int {
                self.fetch(RmwOp::And(val as Value), order)
            }

            /// Bitwise nand, returning the previous value.
            #[track_caller]
            pub fn fetch_nand(&self, val: $int, order: Ordering) -> $int {
                self.fetch(RmwOp::Nand(val as Value), order)
            }

            /// Bitwise or, returning the previous value.
            #[track_caller]
            pub fn fetch_or(&self, val: $int, order: Ordering) -> $int {
                self.fetch(RmwOp::Or(val as Value), order)
            }

            /// Bitwise xor, returning the previous value.
            #[track_caller]
            pub fn fetch_xor(&self, val: $int, order: Ordering) -> $int {
                self.fetch(RmwOp::Xor(val as Value), order)
            }

            /// Maximum, returning the previous value.
            #[track_caller]
            pub fn fetch_max(&self, val: $int, order: Ordering) -> $int {
                self.fetch(RmwOp::Max(val as Value), order)
            }

            /// Minimum, returning the previous value.
            #[track_caller]
            pub fn fetch_min(&self, val: $int, order: Ordering) -> $int {
                self.fetch(RmwOp::Min(val as Value), order)
            }

            #[track_caller]
            fn cas(&self, current: $int, new: $int, success: Ordering, failure: Ordering, weak: bool) -> Result<$int, $int> {
                self.cas_at(current, new, success, failure, weak, Scope::System)
            }

            #[track_caller]
            fn cas_at(&self, current: $int, new: $int, success: Ordering, failure: Ordering, weak: bool, scope: Scope) -> Result<$int, $int> {
                let f = failure_order(failure);
                let s = self::order(success);
                self.flush();
                let (v, ok) = self.raw.rmw_at(RmwOp::Cas { expected: current as Value, new: new as Value, weak }, s, f, scope);
                if ok { Ok(Self::from_value(v)) } else { Err(Self::from_value(v)) }
            }

            /// Stores `new` if the value is `current`.
            #[track_caller]
            pub fn compare_exchange(&self, current: $int, new: $int, success: Ordering, failure: Ordering) -> Result<$int, $int> {
                self.cas(current, new, success, failure, false)
            }

            /// Like `compare_exchange`, but may fail spuriously (explored as a choice).
            #[track_caller]
            pub fn compare_exchange_weak(&self, current: $int, new: $int, success: Ordering, failure: Ordering) -> Result<$int, $int> {
                self.cas(current, new, success, failure, true)
            }

            /// Deprecated std API: `compare_exchange` with the failure order derived from `order`.
            #[track_caller]
            pub fn compare_and_swap(&self, current: $int, new: $int, order: Ordering) -> $int {
                let failure = match order {
                    Ordering::Release => Ordering::Relaxed,
                    Ordering::AcqRel => Ordering::Acquire,
                    o => o,
                };
                match self.compare_exchange(current, new, order, failure) { Ok(v) | Err(v) => v }
            }

            /// Applies `f` with a compare-exchange loop, as std does.
            #[track_caller]
            pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, f: F) -> Result<$int, $int>
            where
                F: FnMut($int) -> Option<$int>,
            {
                fetch_update_loop(self.load(fetch_order), f, |p, n| {
            self.compare_exchange_weak(p, n, set_order, fetch_order)
        })
            }

            /// Mutable access to the value (read plainly; written back plainly
            /// before the next operation on this atomic).
            #[track_caller]
            pub fn get_mut(&mut self) -> &mut $int {
                let $name { raw, slot } = self;
                slot.get_mut(raw, |v| v as $int, |v| v as Value)
            }

            /// Consumes the atomic, returning its value.
            #[track_caller]
            pub fn into_inner(self) -> $int {
                self.flush();
                Self::from_value(self.raw.load(Order::NonAtomic))
            }

            #[track_caller]
            fn flush(&self) {
                self.slot.flush(&self.raw, |v| v as Value);
            }
        }

        impl Default for $name {
            #[track_caller]
            fn default() -> $name {
                $name::new(0)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({})", stringify!($name), self.raw.loc)
            }
        }

        impl From<$int> for $name {
            #[track_caller]
            fn from(v: $int) -> $name {
                $name::new(v)
            }
        }

        // SAFETY: all accesses go through the single-threaded runtime.
        unsafe impl Sync for $name {}
        // SAFETY: as above.
        unsafe impl Send for $name {}
    };
}

int_atomic!(/** Shim for `std::sync::atomic::AtomicI8`. */ AtomicI8, i8, 8, true);
int_atomic!(/** Shim for `std::sync::atomic::AtomicU8`. */ AtomicU8, u8, 8, false);
int_atomic!(/** Shim for `std::sync::atomic::AtomicI16`. */ AtomicI16, i16, 16, true);
int_atomic!(/** Shim for `std::sync::atomic::AtomicU16`. */ AtomicU16, u16, 16, false);
int_atomic!(/** Shim for `std::sync::atomic::AtomicI32`. */ AtomicI32, i32, 32, true);
int_atomic!(/** Shim for `std::sync::atomic::AtomicU32`. */ AtomicU32, u32, 32, false);
int_atomic!(/** Shim for `std::sync::atomic::AtomicI64`. */ AtomicI64, i64, 64, true);
int_atomic!(/** Shim for `std::sync::atomic::AtomicU64`. */ AtomicU64, u64, 64, false);
int_atomic!(/** Shim for `std::sync::atomic::AtomicIsize`. */ AtomicIsize, isize, 64, true);
int_atomic!(/** Shim for `std::sync::atomic::AtomicUsize`. */ AtomicUsize, usize, 64, false);

/// A fence. `Relaxed` panics, as in std.
#[track_caller]
pub fn fence(order: Ordering) {
    fence_scoped(order, Scope::System)
}

/// A fence at a memory scope: under `src11` it synchronizes only with
/// releases and acquires whose scopes and its own include each other's
/// threads (CUDA's `atomic_thread_fence(order, thread_scope)`).
#[track_caller]
pub fn fence_scoped(order: Ordering, scope: Scope) {
    if order == Ordering::Relaxed {
        panic!("there is no such thing as a relaxed fence");
    }
    rt::op_at(
        Op::Fence {
            order: self::order(order),
            scope,
        },
        SourceLoc::caller(),
    );
}

/// A compiler fence: it orders nothing between threads, so the checker only
/// validates the ordering.
#[track_caller]
pub fn compiler_fence(order: Ordering) {
    if order == Ordering::Relaxed {
        panic!("there is no such thing as a relaxed compiler fence");
    }
}

/// Shim for `std::sync::atomic::AtomicBool`.
pub struct AtomicBool {
    raw: RawAtomic,
    slot: MutSlot<bool>,
}

const BOOL: ValueType = ValueType { bits: 1, signed: false };

impl AtomicBool {
    /// Creates a new atomic (inside a model only).
    #[track_caller]
    pub fn new(v: bool) -> AtomicBool {
        AtomicBool {
            raw: RawAtomic::new(v as Value, BOOL, LocKind::Atomic),
            slot: MutSlot::new(false),
        }
    }

    #[track_caller]
    fn flush(&self) {
        self.slot.flush(&self.raw, |v| v as Value);
    }

    /// Loads the value.
    #[track_caller]
    pub fn load(&self, order: Ordering) -> bool {
        self.flush();
        self.raw.load(load_order(order)) != 0
    }

    /// This flag's relaxed operations with a DRFrlx class (seed 004):
    /// `stop.rlx(Class::NonOrdering).load()`; `None` for an unclassified but
    /// tracked relaxed access.
    #[track_caller]
    pub fn rlx(&self, class: impl Into<Option<crate::drfrlx::Class>>) -> crate::drfrlx::Rlx<'_, bool> {
        self.flush();
        crate::drfrlx::Rlx::new(&self.raw, class.into())
    }

    /// Stores a value.
    #[track_caller]
    pub fn store(&self, val: bool, order: Ordering) {
        self.flush();
        self.raw.store(val as Value, store_order(order))
    }

    #[track_caller]
    fn fetch(&self, op: RmwOp, order: Ordering) -> bool {
        let o = self::order(order);
        self.flush();
        self.raw.rmw(op, o, o).0 != 0
    }

    /// Stores a value, returning the previous one.
    #[track_caller]
    pub fn swap(&self, val: bool, order: Ordering) -> bool {
        self.fetch(RmwOp::Swap(val as Value), order)
    }

    /// Logical and, returning the previous value.
    #[track_caller]
    pub fn fetch_and(&self, val: bool, order: Ordering) -> bool {
        self.fetch(RmwOp::And(val as Value), order)
    }

    /// Logical nand, returning the previous value.
    #[track_caller]
    pub fn fetch_nand(&self, val: bool, order: Ordering) -> bool {
        self.fetch(RmwOp::Nand(val as Value), order)
    }

    /// Logical or, returning the previous value.
    #[track_caller]
    pub fn fetch_or(&self, val: bool, order: Ordering) -> bool {
        self.fetch(RmwOp::Or(val as Value), order)
    }

    /// Logical xor, returning the previous value.
    #[track_caller]
    pub fn fetch_xor(&self, val: bool, order: Ordering) -> bool {
        self.fetch(RmwOp::Xor(val as Value), order)
    }

    /// Logical not, returning the previous value.
    #[track_caller]
    pub fn fetch_not(&self, order: Ordering) -> bool {
        self.fetch(RmwOp::Xor(1), order)
    }

    #[track_caller]
    fn cas(&self, current: bool, new: bool, success: Ordering, failure: Ordering, weak: bool) -> Result<bool, bool> {
        let f = failure_order(failure);
        let s = self::order(success);
        self.flush();
        let (v, ok) = self.raw.rmw(
            RmwOp::Cas {
                expected: current as Value,
                new: new as Value,
                weak,
            },
            s,
            f,
        );
        if ok {
            Ok(v != 0)
        } else {
            Err(v != 0)
        }
    }

    /// Stores `new` if the value is `current`.
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: bool,
        new: bool,
        success: Ordering,
        failure: Ordering,
    ) -> Result<bool, bool> {
        self.cas(current, new, success, failure, false)
    }

    /// Like `compare_exchange`, but may fail spuriously (explored as a choice).
    #[track_caller]
    pub fn compare_exchange_weak(
        &self,
        current: bool,
        new: bool,
        success: Ordering,
        failure: Ordering,
    ) -> Result<bool, bool> {
        self.cas(current, new, success, failure, true)
    }

    /// Applies `f` with a compare-exchange loop, as std does.
    #[track_caller]
    pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, f: F) -> Result<bool, bool>
    where
        F: FnMut(bool) -> Option<bool>,
    {
        fetch_update_loop(self.load(fetch_order), f, |p, n| {
            self.compare_exchange_weak(p, n, set_order, fetch_order)
        })
    }

    /// Mutable access to the value.
    #[track_caller]
    pub fn get_mut(&mut self) -> &mut bool {
        let AtomicBool { raw, slot } = self;
        slot.get_mut(raw, |v| v != 0, |v| v as Value)
    }

    /// Consumes the atomic, returning its value.
    #[track_caller]
    pub fn into_inner(self) -> bool {
        self.flush();
        self.raw.load(Order::NonAtomic) != 0
    }
}

impl Default for AtomicBool {
    #[track_caller]
    fn default() -> AtomicBool {
        AtomicBool::new(false)
    }
}

impl From<bool> for AtomicBool {
    #[track_caller]
    fn from(v: bool) -> AtomicBool {
        AtomicBool::new(v)
    }
}

impl std::fmt::Debug for AtomicBool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AtomicBool({})", self.raw.loc)
    }
}

// SAFETY: all accesses go through the single-threaded runtime.
unsafe impl Sync for AtomicBool {}
// SAFETY: as above.
unsafe impl Send for AtomicBool {}

/// Shim for `std::sync::atomic::AtomicPtr`.
pub struct AtomicPtr<T> {
    raw: RawAtomic,
    slot: MutSlot<*mut T>,
}

const PTR: ValueType = ValueType {
    bits: 64,
    signed: false,
};

impl<T> AtomicPtr<T> {
    /// Creates a new atomic pointer (inside a model only).
    #[track_caller]
    pub fn new(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr {
            raw: RawAtomic::new(p as usize as Value, PTR, LocKind::Atomic),
            slot: MutSlot::new(std::ptr::null_mut()),
        }
    }

    #[track_caller]
    fn flush(&self) {
        self.slot.flush(&self.raw, |v| v as usize as Value);
    }

    /// Loads the pointer.
    #[track_caller]
    pub fn load(&self, order: Ordering) -> *mut T {
        self.flush();
        self.raw.load(load_order(order)) as usize as *mut T
    }

    /// Stores a pointer.
    #[track_caller]
    pub fn store(&self, p: *mut T, order: Ordering) {
        self.flush();
        self.raw.store(p as usize as Value, store_order(order))
    }

    /// Stores a pointer, returning the previous one.
    #[track_caller]
    pub fn swap(&self, p: *mut T, order: Ordering) -> *mut T {
        let o = self::order(order);
        self.flush();
        self.raw.rmw(RmwOp::Swap(p as usize as Value), o, o).0 as usize as *mut T
    }

    #[track_caller]
    fn cas(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
        weak: bool,
    ) -> Result<*mut T, *mut T> {
        let f = failure_order(failure);
        let s = self::order(success);
        self.flush();
        let (v, ok) = self.raw.rmw(
            RmwOp::Cas {
                expected: current as usize as Value,
                new: new as usize as Value,
                weak,
            },
            s,
            f,
        );
        let p = v as usize as *mut T;
        if ok {
            Ok(p)
        } else {
            Err(p)
        }
    }

    /// Stores `new` if the pointer is `current`.
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        self.cas(current, new, success, failure, false)
    }

    /// Like `compare_exchange`, but may fail spuriously (explored as a choice).
    #[track_caller]
    pub fn compare_exchange_weak(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        self.cas(current, new, success, failure, true)
    }

    /// Applies `f` with a compare-exchange loop, as std does.
    #[track_caller]
    pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, f: F) -> Result<*mut T, *mut T>
    where
        F: FnMut(*mut T) -> Option<*mut T>,
    {
        fetch_update_loop(self.load(fetch_order), f, |p, n| {
            self.compare_exchange_weak(p, n, set_order, fetch_order)
        })
    }

    /// Mutable access to the pointer.
    #[track_caller]
    pub fn get_mut(&mut self) -> &mut *mut T {
        let AtomicPtr { raw, slot } = self;
        slot.get_mut(raw, |v| v as usize as *mut T, |v| v as usize as Value)
    }

    /// Consumes the atomic, returning the pointer.
    #[track_caller]
    pub fn into_inner(self) -> *mut T {
        self.flush();
        self.raw.load(Order::NonAtomic) as usize as *mut T
    }
}

impl<T> Default for AtomicPtr<T> {
    #[track_caller]
    fn default() -> AtomicPtr<T> {
        AtomicPtr::new(std::ptr::null_mut())
    }
}

impl<T> std::fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AtomicPtr({})", self.raw.loc)
    }
}

// SAFETY: all accesses go through the single-threaded runtime.
unsafe impl<T> Sync for AtomicPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Send for AtomicPtr<T> {}
