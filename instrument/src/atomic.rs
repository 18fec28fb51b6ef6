//! Atomics with std's API whose every operation is an event for the checker.
//!
//! Orderings are `std::sync::atomic::Ordering`, so code moves over by changing
//! `use` lines. Invalid orderings panic with std's words, at the caller's line.

use crate::raw_atomic::{failure_order, load_order, order, store_order};
use crate::rt;
use crate::typed::Typed;
use crate::value::AtomicValue;
use scopecheck_checker::event::Loc;
use scopecheck_checker::event::{LocKind, Op, Order};
use scopecheck_checker::event::{Scope, SourceLoc, Space};
use std::cell::{Cell, UnsafeCell};
pub use std::sync::atomic::Ordering;

/// What every std-shaped shim is: one typed location (the encoding is
/// [`AtomicValue`]'s, as for every other front end), plus the storage that
/// `get_mut` lends out. Its operations take std orderings, checked with
/// std's words at the caller's line, and first write back what `get_mut`
/// left. The public types below wrap it; each method is one call, so the
/// hot path is the `Typed` call it always was.
struct StdAtomic<T: AtomicValue> {
    cell: Typed<T>,
    /// `get_mut`'s value: read plainly into it, and what the caller left
    /// there is written back plainly before the next operation.
    slot: UnsafeCell<T>,
    /// Whether `slot` holds a value still to be written back.
    live: Cell<bool>,
}

// SAFETY: all accesses go through the single-threaded runtime.
unsafe impl<T: AtomicValue> Sync for StdAtomic<T> {}
// SAFETY: as above.
unsafe impl<T: AtomicValue> Send for StdAtomic<T> {}

impl<T: AtomicValue> StdAtomic<T> {
    #[track_caller]
    fn new(v: T) -> StdAtomic<T> {
        StdAtomic {
            cell: Typed::new_in(v, LocKind::Atomic, Space::Global),
            slot: UnsafeCell::new(v),
            live: Cell::new(false),
        }
    }

    /// Writes back a value left by `get_mut`.
    #[track_caller]
    fn flush(&self) {
        if self.live.replace(false) {
            // SAFETY: `get_mut`'s borrow has ended (we hold `&self`).
            let v = unsafe { *self.slot.get() };
            self.cell.store(v, Order::NonAtomic, Scope::System);
        }
    }

    #[track_caller]
    fn load(&self, o: Ordering, scope: Scope) -> T {
        self.flush();
        self.cell.load(load_order(o), scope)
    }

    #[track_caller]
    fn store(&self, v: T, o: Ordering, scope: Scope) {
        self.flush();
        self.cell.store(v, store_order(o), scope)
    }

    /// A read-modify-write's order, once what `get_mut` left is written back.
    #[track_caller]
    fn rmw_order(&self, o: Ordering) -> Order {
        let o = order(o);
        self.flush();
        o
    }

    #[track_caller]
    fn swap(&self, v: T, o: Ordering, scope: Scope) -> T {
        self.cell.swap(v, self.rmw_order(o), scope)
    }

    #[inline]
    #[track_caller]
    fn cas(&self, current: T, new: T, success: Ordering, failure: Ordering, weak: bool, scope: Scope) -> Result<T, T> {
        let f = failure_order(failure);
        let s = order(success);
        self.flush();
        self.cell.compare_exchange(current, new, s, f, weak, scope)
    }

    /// std's `fetch_update`: apply `f` and retry a weak compare-exchange
    /// until it succeeds or `f` gives up. A loop here, not a closure, so
    /// that every access carries the caller's line.
    #[track_caller]
    fn fetch_update(
        &self,
        set_order: Ordering,
        fetch_order: Ordering,
        mut f: impl FnMut(T) -> Option<T>,
    ) -> Result<T, T> {
        let mut prev = self.load(fetch_order, Scope::System);
        while let Some(next) = f(prev) {
            match self.cas(prev, next, set_order, fetch_order, true, Scope::System) {
                Ok(x) => return Ok(x),
                Err(next_prev) => prev = next_prev,
            }
        }
        Err(prev)
    }

    /// Reads the value plainly into the slot and lends it out.
    #[track_caller]
    fn get_mut(&mut self) -> &mut T {
        self.flush();
        let v = self.cell.load(Order::NonAtomic, Scope::System);
        self.live.set(true);
        let slot = self.slot.get_mut();
        *slot = v;
        slot
    }

    /// loom's `with_mut`: `f` gets the value as `get_mut` lends it.
    #[track_caller]
    fn with_mut<R>(&mut self, f: impl FnOnce(&mut T) -> R) -> R {
        f(self.get_mut())
    }

    /// loom's `unsync_load`: a plain (non-atomic) read, which the race
    /// checker judges like any other non-atomic access.
    #[track_caller]
    fn unsync_load(&self) -> T {
        self.flush();
        self.cell.load(Order::NonAtomic, Scope::System)
    }

    #[track_caller]
    fn into_inner(self) -> T {
        self.flush();
        self.cell.load(Order::NonAtomic, Scope::System)
    }

    /// The relaxed operations with a DRFrlx class.
    #[track_caller]
    fn rlx(&self, class: Option<crate::drfrlx::Class>) -> crate::drfrlx::Rlx<'_, T> {
        self.flush();
        crate::drfrlx::Rlx::new(&self.cell, class)
    }

    fn loc(&self) -> Loc {
        self.cell.loc()
    }
}

macro_rules! int_atomic {
    ($(#[$doc:meta])* $name:ident, $int:ty) => {
        $(#[$doc])*
        pub struct $name(StdAtomic<$int>);

        impl $name {
            /// Creates a new atomic (inside a model only).
            #[track_caller]
            pub fn new(v: $int) -> $name {
                $name(StdAtomic::new(v))
            }

            /// Loads the value.
            #[track_caller]
            pub fn load(&self, order: Ordering) -> $int {
                self.0.load(order, Scope::System)
            }

            /// This atomic's relaxed operations with a DRFrlx class (seed
            /// 004): `counter.rlx(Class::Commutative).fetch_add(1)`. Pass
            /// `None` for an unclassified relaxed atomic whose returned values
            /// the checker should still track (class inference is then
            /// precise about observations).
            #[track_caller]
            pub fn rlx(&self, class: impl Into<Option<crate::drfrlx::Class>>) -> crate::drfrlx::Rlx<'_, $int> {
                self.0.rlx(class.into())
            }

            /// Stores a value.
            #[track_caller]
            pub fn store(&self, val: $int, order: Ordering) {
                self.0.store(val, order, Scope::System)
            }

            /// `load` at a memory scope: atomic and synchronizing only with
            /// operations whose scopes include each other's threads (under `src11`).
            #[track_caller]
            pub fn load_scoped(&self, order: Ordering, scope: Scope) -> $int {
                self.0.load(order, scope)
            }

            /// `store` at a memory scope.
            #[track_caller]
            pub fn store_scoped(&self, val: $int, order: Ordering, scope: Scope) {
                self.0.store(val, order, scope)
            }

            /// `swap` at a memory scope.
            #[track_caller]
            pub fn swap_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.0.swap(val, order, scope)
            }

            /// `fetch_add` at a memory scope.
            #[track_caller]
            pub fn fetch_add_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.0.cell.fetch_add(val, self.0.rmw_order(order), scope)
            }

            /// `fetch_sub` at a memory scope.
            #[track_caller]
            pub fn fetch_sub_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.0.cell.fetch_sub(val, self.0.rmw_order(order), scope)
            }

            /// `fetch_and` at a memory scope.
            #[track_caller]
            pub fn fetch_and_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.0.cell.fetch_and(val, self.0.rmw_order(order), scope)
            }

            /// `fetch_nand` at a memory scope.
            #[track_caller]
            pub fn fetch_nand_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.0.cell.fetch_nand(val, self.0.rmw_order(order), scope)
            }

            /// `fetch_or` at a memory scope.
            #[track_caller]
            pub fn fetch_or_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.0.cell.fetch_or(val, self.0.rmw_order(order), scope)
            }

            /// `fetch_xor` at a memory scope.
            #[track_caller]
            pub fn fetch_xor_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.0.cell.fetch_xor(val, self.0.rmw_order(order), scope)
            }

            /// `fetch_max` at a memory scope.
            #[track_caller]
            pub fn fetch_max_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.0.cell.fetch_max(val, self.0.rmw_order(order), scope)
            }

            /// `fetch_min` at a memory scope.
            #[track_caller]
            pub fn fetch_min_scoped(&self, val: $int, order: Ordering, scope: Scope) -> $int {
                self.0.cell.fetch_min(val, self.0.rmw_order(order), scope)
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
                self.0.cas(current, new, success, failure, false, scope)
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
                self.0.cas(current, new, success, failure, true, scope)
            }

            /// Stores a value, returning the previous one.
            #[track_caller]
            pub fn swap(&self, val: $int, order: Ordering) -> $int {
                self.0.swap(val, order, Scope::System)
            }

            /// Adds (wrapping), returning the previous value.
            #[track_caller]
            pub fn fetch_add(&self, val: $int, order: Ordering) -> $int {
                self.fetch_add_scoped(val, order, Scope::System)
            }

            /// Subtracts (wrapping), returning the previous value.
            #[track_caller]
            pub fn fetch_sub(&self, val: $int, order: Ordering) -> $int {
                self.fetch_sub_scoped(val, order, Scope::System)
            }

            /// Bitwise and, returning the previous value.
            #[track_caller]
            pub fn fetch_and(&self, val: $int, order: Ordering) -> $int {
                self.fetch_and_scoped(val, order, Scope::System)
            }

            /// Bitwise nand, returning the previous value.
            #[track_caller]
            pub fn fetch_nand(&self, val: $int, order: Ordering) -> $int {
                self.fetch_nand_scoped(val, order, Scope::System)
            }

            /// Bitwise or, returning the previous value.
            #[track_caller]
            pub fn fetch_or(&self, val: $int, order: Ordering) -> $int {
                self.fetch_or_scoped(val, order, Scope::System)
            }

            /// Bitwise xor, returning the previous value.
            #[track_caller]
            pub fn fetch_xor(&self, val: $int, order: Ordering) -> $int {
                self.fetch_xor_scoped(val, order, Scope::System)
            }

            /// Maximum, returning the previous value.
            #[track_caller]
            pub fn fetch_max(&self, val: $int, order: Ordering) -> $int {
                self.fetch_max_scoped(val, order, Scope::System)
            }

            /// Minimum, returning the previous value.
            #[track_caller]
            pub fn fetch_min(&self, val: $int, order: Ordering) -> $int {
                self.fetch_min_scoped(val, order, Scope::System)
            }

            /// Stores `new` if the value is `current`.
            #[track_caller]
            pub fn compare_exchange(&self, current: $int, new: $int, success: Ordering, failure: Ordering) -> Result<$int, $int> {
                self.0.cas(current, new, success, failure, false, Scope::System)
            }

            /// Like `compare_exchange`, but may fail spuriously (explored as a choice).
            #[track_caller]
            pub fn compare_exchange_weak(&self, current: $int, new: $int, success: Ordering, failure: Ordering) -> Result<$int, $int> {
                self.0.cas(current, new, success, failure, true, Scope::System)
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
                self.0.fetch_update(set_order, fetch_order, f)
            }

            /// Mutable access to the value (read plainly; written back plainly
            /// before the next operation on this atomic).
            #[track_caller]
            pub fn get_mut(&mut self) -> &mut $int {
                self.0.get_mut()
            }

    /// loom's `with_mut`: runs `f` with mutable access to the value.
    #[track_caller]
    pub fn with_mut<R>(&mut self, f: impl FnOnce(&mut $int) -> R) -> R {
        self.0.with_mut(f)
    }

    /// loom's `unsync_load`: reads the value non-atomically.
    ///
    /// # Safety
    ///
    /// As in loom, no other thread may access the atomic concurrently; a
    /// concurrent access is reported as a data race.
    #[track_caller]
    pub unsafe fn unsync_load(&self) -> $int {
        self.0.unsync_load()
    }

            /// Consumes the atomic, returning its value.
            #[track_caller]
            pub fn into_inner(self) -> $int {
                self.0.into_inner()
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
                write!(f, "{}({})", stringify!($name), self.0.loc())
            }
        }

        impl From<$int> for $name {
            #[track_caller]
            fn from(v: $int) -> $name {
                $name::new(v)
            }
        }
    };
}

int_atomic!(/** Shim for `std::sync::atomic::AtomicI8`. */ AtomicI8, i8);
int_atomic!(/** Shim for `std::sync::atomic::AtomicU8`. */ AtomicU8, u8);
int_atomic!(/** Shim for `std::sync::atomic::AtomicI16`. */ AtomicI16, i16);
int_atomic!(/** Shim for `std::sync::atomic::AtomicU16`. */ AtomicU16, u16);
int_atomic!(/** Shim for `std::sync::atomic::AtomicI32`. */ AtomicI32, i32);
int_atomic!(/** Shim for `std::sync::atomic::AtomicU32`. */ AtomicU32, u32);
int_atomic!(/** Shim for `std::sync::atomic::AtomicI64`. */ AtomicI64, i64);
int_atomic!(/** Shim for `std::sync::atomic::AtomicU64`. */ AtomicU64, u64);
int_atomic!(/** Shim for `std::sync::atomic::AtomicIsize`. */ AtomicIsize, isize);
int_atomic!(/** Shim for `std::sync::atomic::AtomicUsize`. */ AtomicUsize, usize);

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
pub struct AtomicBool(StdAtomic<bool>);

impl AtomicBool {
    /// Creates a new atomic (inside a model only).
    #[track_caller]
    pub fn new(v: bool) -> AtomicBool {
        AtomicBool(StdAtomic::new(v))
    }

    /// Loads the value.
    #[track_caller]
    pub fn load(&self, order: Ordering) -> bool {
        self.0.load(order, Scope::System)
    }

    /// This flag's relaxed operations with a DRFrlx class (seed 004):
    /// `stop.rlx(Class::NonOrdering).load()`; `None` for an unclassified but
    /// tracked relaxed access.
    #[track_caller]
    pub fn rlx(&self, class: impl Into<Option<crate::drfrlx::Class>>) -> crate::drfrlx::Rlx<'_, bool> {
        self.0.rlx(class.into())
    }

    /// Stores a value.
    #[track_caller]
    pub fn store(&self, val: bool, order: Ordering) {
        self.0.store(val, order, Scope::System)
    }

    /// Stores a value, returning the previous one.
    #[track_caller]
    pub fn swap(&self, val: bool, order: Ordering) -> bool {
        self.0.swap(val, order, Scope::System)
    }

    /// Logical and, returning the previous value.
    #[track_caller]
    pub fn fetch_and(&self, val: bool, order: Ordering) -> bool {
        self.0.cell.fetch_and(val, self.0.rmw_order(order), Scope::System)
    }

    /// Logical nand, returning the previous value.
    #[track_caller]
    pub fn fetch_nand(&self, val: bool, order: Ordering) -> bool {
        self.0.cell.fetch_nand(val, self.0.rmw_order(order), Scope::System)
    }

    /// Logical or, returning the previous value.
    #[track_caller]
    pub fn fetch_or(&self, val: bool, order: Ordering) -> bool {
        self.0.cell.fetch_or(val, self.0.rmw_order(order), Scope::System)
    }

    /// Logical xor, returning the previous value.
    #[track_caller]
    pub fn fetch_xor(&self, val: bool, order: Ordering) -> bool {
        self.0.cell.fetch_xor(val, self.0.rmw_order(order), Scope::System)
    }

    /// Logical not, returning the previous value.
    #[track_caller]
    pub fn fetch_not(&self, order: Ordering) -> bool {
        self.fetch_xor(true, order)
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
        self.0.cas(current, new, success, failure, false, Scope::System)
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
        self.0.cas(current, new, success, failure, true, Scope::System)
    }

    /// Applies `f` with a compare-exchange loop, as std does.
    #[track_caller]
    pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, f: F) -> Result<bool, bool>
    where
        F: FnMut(bool) -> Option<bool>,
    {
        self.0.fetch_update(set_order, fetch_order, f)
    }

    /// Mutable access to the value.
    #[track_caller]
    pub fn get_mut(&mut self) -> &mut bool {
        self.0.get_mut()
    }

    /// loom's `with_mut`: runs `f` with mutable access to the value.
    #[track_caller]
    pub fn with_mut<R>(&mut self, f: impl FnOnce(&mut bool) -> R) -> R {
        self.0.with_mut(f)
    }

    /// loom's `unsync_load`: reads the value non-atomically.
    ///
    /// # Safety
    ///
    /// As in loom, no other thread may access the atomic concurrently; a
    /// concurrent access is reported as a data race.
    #[track_caller]
    pub unsafe fn unsync_load(&self) -> bool {
        self.0.unsync_load()
    }

    /// Consumes the atomic, returning its value.
    #[track_caller]
    pub fn into_inner(self) -> bool {
        self.0.into_inner()
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
        write!(f, "AtomicBool({})", self.0.loc())
    }
}

/// Shim for `std::sync::atomic::AtomicPtr`.
pub struct AtomicPtr<T>(StdAtomic<*mut T>);

impl<T> AtomicPtr<T> {
    /// Creates a new atomic pointer (inside a model only).
    #[track_caller]
    pub fn new(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr(StdAtomic::new(p))
    }

    /// Loads the pointer.
    #[track_caller]
    pub fn load(&self, order: Ordering) -> *mut T {
        self.0.load(order, Scope::System)
    }

    /// This pointer's relaxed operations with a DRFrlx class (seed 004):
    /// `head.rlx(Class::Speculative).load()`; `None` for an unclassified but
    /// tracked one. `fetch_add` moves by elements, as on a pointer atomic.
    #[track_caller]
    pub fn rlx(&self, class: impl Into<Option<crate::drfrlx::Class>>) -> crate::drfrlx::Rlx<'_, *mut T> {
        self.0.rlx(class.into())
    }

    /// Stores a pointer.
    #[track_caller]
    pub fn store(&self, p: *mut T, order: Ordering) {
        self.0.store(p, order, Scope::System)
    }

    /// Stores a pointer, returning the previous one.
    #[track_caller]
    pub fn swap(&self, p: *mut T, order: Ordering) -> *mut T {
        self.0.swap(p, order, Scope::System)
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
        self.0.cas(current, new, success, failure, false, Scope::System)
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
        self.0.cas(current, new, success, failure, true, Scope::System)
    }

    /// Applies `f` with a compare-exchange loop, as std does.
    #[track_caller]
    pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, f: F) -> Result<*mut T, *mut T>
    where
        F: FnMut(*mut T) -> Option<*mut T>,
    {
        self.0.fetch_update(set_order, fetch_order, f)
    }

    /// Mutable access to the pointer.
    #[track_caller]
    pub fn get_mut(&mut self) -> &mut *mut T {
        self.0.get_mut()
    }

    /// loom's `with_mut`: runs `f` with mutable access to the value.
    #[track_caller]
    pub fn with_mut<R>(&mut self, f: impl FnOnce(&mut *mut T) -> R) -> R {
        self.0.with_mut(f)
    }

    /// loom's `unsync_load`: reads the value non-atomically.
    ///
    /// # Safety
    ///
    /// As in loom, no other thread may access the atomic concurrently; a
    /// concurrent access is reported as a data race.
    #[track_caller]
    pub unsafe fn unsync_load(&self) -> *mut T {
        self.0.unsync_load()
    }

    /// Consumes the atomic, returning the pointer.
    #[track_caller]
    pub fn into_inner(self) -> *mut T {
        self.0.into_inner()
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
        write!(f, "AtomicPtr({})", self.0.loc())
    }
}
