//! Scoped atomic references shaped like `sycl::atomic_ref<T, DefaultOrder,
//! DefaultScope, AddressSpace>` (seed 003) and `cuda::atomic_ref<T, Scope>`
//! (seed 001): atomic operations on ordinary memory ([`Plain`]), each at a
//! memory scope, with a default order and scope fixed when the reference is
//! made and per-call overrides.
//!
//! ```text
//! use scopecheck::sync::atomic_ref::{memory_order, memory_scope, AtomicRef, Plain};
//!
//! let top = Plain::new(0u32);
//! let r = AtomicRef::sycl(&top, memory_order::acq_rel, memory_scope::work_group);
//! r.fetch_add(1);                                        // acq_rel, work-group scope
//! r.load();                                              // acquire (the default read order)
//! r.store_with(5, memory_order::relaxed);                // another order
//! r.load_scoped(memory_order::seq_cst, memory_scope::device); // another order and scope
//! ```
//!
//! (A sketch: it needs a model around it. Complete programs that run
//! are in `harness/tests/atomic_ref/`.)
//!
//! Every operation comes in three forms: `op(..)` with the defaults,
//! `op_with(.., order)` with another order, and `op_scoped(.., order, scope)`
//! with another order and scope (SYCL's optional `order` and `scope`
//! parameters). The defaults follow SYCL: with a default order of
//! `relaxed` everything is relaxed; with `acq_rel` loads are `acquire`,
//! stores `release` and read-modify-writes `acq_rel`; with `seq_cst`
//! everything is `seq_cst`. A `cuda::atomic_ref` defaults to `seq_cst`.
//!
//! Orders an operation cannot have (a release load, an acquire store, a
//! release failure order) panic at the caller's line with std's words, as
//! std's atomics do; so do the construction rules (SYCL's default order and
//! type rules, a mismatched address space).

mod plain;

pub use crate::typed::{Arithmetic, Bitwise, MinMax};
pub use crate::value::{AtomicValue, ValueKind};
pub use plain::{AddressSpace, Plain};
pub use scopecheck_checker::event::{Scope, ValueType};
pub use std::sync::atomic::Ordering;

use scopecheck_checker::event::Order;
use std::fmt;
use std::mem::size_of;

/// SYCL's `sycl::memory_order` names for [`Ordering`]s.
#[allow(non_upper_case_globals)]
pub mod memory_order {
    use super::Ordering;
    /// `memory_order::relaxed`.
    pub const relaxed: Ordering = Ordering::Relaxed;
    /// `memory_order::acquire`.
    pub const acquire: Ordering = Ordering::Acquire;
    /// `memory_order::release`.
    pub const release: Ordering = Ordering::Release;
    /// `memory_order::acq_rel`.
    pub const acq_rel: Ordering = Ordering::AcqRel;
    /// `memory_order::seq_cst`.
    pub const seq_cst: Ordering = Ordering::SeqCst;
}

/// SYCL's `sycl::memory_scope` names for [`Scope`]s.
#[allow(non_upper_case_globals)]
pub mod memory_scope {
    use super::Scope;
    /// `memory_scope::work_item`: only the acting work-item.
    pub const work_item: Scope = Scope::Thread;
    /// `memory_scope::sub_group`: the acting work-item's sub-group (a warp).
    pub const sub_group: Scope = Scope::Warp;
    /// `memory_scope::work_group`: its work-group (a CUDA block).
    pub const work_group: Scope = Scope::Block;
    /// `memory_scope::device`: its device.
    pub const device: Scope = Scope::Device;
    /// `memory_scope::system`: every device and the host.
    pub const system: Scope = Scope::System;
}

/// CUDA's `cuda::thread_scope` names for [`Scope`]s (`thread_scope_block`
/// is `thread_scope::block`, ...).
#[allow(non_upper_case_globals)]
pub mod thread_scope {
    use super::Scope;
    /// `thread_scope_thread`: only the acting thread.
    pub const thread: Scope = Scope::Thread;
    /// `thread_scope_block`: its thread block.
    pub const block: Scope = Scope::Block;
    /// `thread_scope_device`: its GPU.
    pub const device: Scope = Scope::Device;
    /// `thread_scope_system`: every GPU and CPU thread.
    pub const system: Scope = Scope::System;
}

/// SYCL's `sycl::access::address_space` names for [`AddressSpace`]s.
#[allow(non_upper_case_globals)]
pub mod address_space {
    use super::AddressSpace;
    /// `address_space::generic_space`.
    pub const generic_space: AddressSpace = AddressSpace::Generic;
    /// `address_space::global_space`.
    pub const global_space: AddressSpace = AddressSpace::Global;
    /// `address_space::local_space`.
    pub const local_space: AddressSpace = AddressSpace::Local;
}

/// Which API's rules a reference follows (for its defaults and messages).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Api {
    /// `sycl::atomic_ref`.
    Sycl,
    /// `cuda::atomic_ref`.
    Cuda,
}

impl Api {
    fn name(self) -> &'static str {
        match self {
            Api::Sycl => "sycl::atomic_ref",
            Api::Cuda => "cuda::atomic_ref",
        }
    }
}

/// The orders of a compare-exchange: one order (the failure order is then
/// derived from it) or a `(success, failure)` pair, as SYCL's two
/// overloads take them. Made with `.into()` from an [`Ordering`] or a pair.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CasOrder {
    /// The order when the exchange happens.
    pub success: Ordering,
    /// The order when it does not; `None` derives it from `success`.
    pub failure: Option<Ordering>,
}

impl From<Ordering> for CasOrder {
    fn from(success: Ordering) -> CasOrder {
        CasOrder { success, failure: None }
    }
}

impl From<(Ordering, Ordering)> for CasOrder {
    fn from((success, failure): (Ordering, Ordering)) -> CasOrder {
        CasOrder {
            success,
            failure: Some(failure),
        }
    }
}

/// The failure order a compare-exchange given one order has: its read
/// part (`acq_rel` -> `acquire`, `release` -> `relaxed`), as in C++. SYCL's
/// text says the one-order overload is `(order, order)`, but a failure
/// order may not be `release` or `acq_rel`, so the read part is the only
/// reading under which its own default (`acq_rel` for a default order of
/// `acq_rel`) is valid; it is also SYCL's `default_read_order`.
pub fn derived_failure(success: Ordering) -> Ordering {
    match success {
        Ordering::AcqRel => Ordering::Acquire,
        Ordering::Release => Ordering::Relaxed,
        o => o,
    }
}

/// The checker's order for a std one.
fn order(o: Ordering) -> Order {
    crate::raw_atomic::order(o)
}

/// An atomic reference to a [`Plain`] cell: `sycl::atomic_ref` or
/// `cuda::atomic_ref`. Making one costs nothing and does nothing to memory
/// (it can be made anew in each function that uses it).
///
/// Which operations exist depends on `T`: every type has `load`, `store`,
/// `exchange` and the compare-exchanges; [`Arithmetic`] types (integers,
/// floats, pointers) have `fetch_add` / `fetch_sub`; [`Bitwise`] ones
/// (integers) `fetch_and` / `fetch_or` / `fetch_xor`; [`MinMax`] ones
/// (integers, floats) `fetch_min` / `fetch_max`.
#[derive(Copy, Clone)]
pub struct AtomicRef<'a, T: AtomicValue> {
    cell: &'a Plain<T>,
    order: Ordering,
    scope: Scope,
    space: AddressSpace,
    api: Api,
}

impl<'a, T: AtomicValue> AtomicRef<'a, T> {
    /// SYCL's `required_alignment`: an object referenced must be aligned to
    /// its size (at least `align_of::<T>()`). A [`Plain`] cell keeps its
    /// value in the checker, so this is information, not a check.
    pub const REQUIRED_ALIGNMENT: usize = if size_of::<T>() > std::mem::align_of::<T>() {
        size_of::<T>()
    } else {
        std::mem::align_of::<T>()
    };

    /// SYCL's `is_always_lock_free`: every operation the checker models is
    /// lock-free (all types have 4 or 8 bytes).
    pub const IS_ALWAYS_LOCK_FREE: bool = true;

    /// `sycl::atomic_ref<T, default_order, default_scope>(cell)`, in the
    /// generic address space.
    ///
    /// # Panics
    /// At the caller's line, when `default_order` is not `relaxed`,
    /// `acq_rel` or `seq_cst` (SYCL defines the default read and write
    /// orders only for those), or `T` is not one SYCL allows: `int`,
    /// `unsigned int`, `long`, `unsigned long`, `long long`, `unsigned long
    /// long`, `float`, `double` or a pointer (in Rust: `i32`, `u32`, `i64`,
    /// `u64`, `isize`, `usize`, `f32`, `f64`, `*mut U`, `*const U`).
    #[track_caller]
    pub fn sycl(cell: &'a Plain<T>, default_order: Ordering, default_scope: Scope) -> AtomicRef<'a, T> {
        AtomicRef::sycl_in(cell, default_order, default_scope, AddressSpace::Generic)
    }

    /// `sycl::atomic_ref<T, default_order, default_scope, space>(cell)`:
    /// with `Global` or `Local`, the program asserts where the object is.
    ///
    /// # Panics
    /// As [`AtomicRef::sycl`], and when the cell was made in another
    /// address space than the one asserted (SYCL: undefined behaviour).
    #[track_caller]
    pub fn sycl_in(
        cell: &'a Plain<T>,
        default_order: Ordering,
        default_scope: Scope,
        space: AddressSpace,
    ) -> AtomicRef<'a, T> {
        let ty = std::any::type_name::<T>();
        let n = size_of::<T>();
        let allowed =
            matches!(T::KIND, ValueKind::Int { .. } | ValueKind::Float | ValueKind::Pointer) && (n == 4 || n == 8);
        if !allowed {
            panic!(
                "sycl::atomic_ref<{ty}>: T must be int, unsigned int, long, unsigned long, long long, \
                 unsigned long long, float, double or a pointer, of 4 or 8 bytes (i32, u32, i64, u64, \
                 isize, usize, f32, f64, *mut U, *const U); {ty} is a {n}-byte {}",
                T::KIND.describe()
            );
        }
        if !matches!(default_order, Ordering::Relaxed | Ordering::AcqRel | Ordering::SeqCst) {
            panic!(
                "sycl::atomic_ref<{ty}>: the default order must be relaxed, acq_rel or seq_cst (SYCL \
                 defines default_read_order and default_write_order only for those), not {default_order:?}"
            );
        }
        let actual = cell.address_space();
        if space != AddressSpace::Generic && actual != AddressSpace::Generic && space != actual {
            panic!(
                "sycl::atomic_ref<{ty}> asserts address_space::{}, but {cell:?} was made in {} (SYCL: a \
                 mismatched address space is undefined behaviour)",
                space.sycl_name(),
                actual.sycl_name()
            );
        }
        AtomicRef {
            cell,
            order: default_order,
            scope: default_scope,
            space,
            api: Api::Sycl,
        }
    }

    /// `cuda::atomic_ref<T, scope>(cell)`: every operation defaults to
    /// `seq_cst` at `scope`.
    ///
    /// # Panics
    /// At the caller's line, when `T` does not have 4 or 8 bytes.
    #[track_caller]
    pub fn cuda(cell: &'a Plain<T>, scope: Scope) -> AtomicRef<'a, T> {
        let n = size_of::<T>();
        if n != 4 && n != 8 {
            panic!(
                "cuda::atomic_ref<{}>: the checker models atomic references to 4- and 8-byte objects, \
                 and this type has {n} bytes",
                std::any::type_name::<T>()
            );
        }
        AtomicRef {
            cell,
            order: Ordering::SeqCst,
            scope,
            space: AddressSpace::Generic,
            api: Api::Cuda,
        }
    }

    /// Whether this reference's operations are lock-free (always).
    pub fn is_lock_free(&self) -> bool {
        Self::IS_ALWAYS_LOCK_FREE
    }

    /// SYCL's `default_read_order`: `acquire` for a default order of
    /// `acq_rel`, the default order otherwise.
    pub fn default_read_order(&self) -> Ordering {
        match self.order {
            Ordering::AcqRel => Ordering::Acquire,
            o => o,
        }
    }

    /// SYCL's `default_write_order`: `release` for a default order of
    /// `acq_rel`, the default order otherwise.
    pub fn default_write_order(&self) -> Ordering {
        match self.order {
            Ordering::AcqRel => Ordering::Release,
            o => o,
        }
    }

    /// SYCL's `default_read_modify_write_order`: the default order.
    pub fn default_read_modify_write_order(&self) -> Ordering {
        self.order
    }

    /// The default scope.
    pub fn default_scope(&self) -> Scope {
        self.scope
    }

    /// The address space asserted (`Generic` when none was).
    pub fn address_space(&self) -> AddressSpace {
        self.space
    }

    /// Which API's rules this reference follows.
    pub fn api(&self) -> Api {
        self.api
    }

    /// The cell referenced.
    pub fn cell(&self) -> &'a Plain<T> {
        self.cell
    }

    /// The referenced cell's relaxed operations with a DRFrlx class (seed
    /// 004), at this reference's default scope (`.scoped(..)` for another):
    /// `AtomicRef::cuda(&hits, thread_scope::device).rlx(Class::Commutative).fetch_add(1)`.
    /// The class refines `memory_order::relaxed`, whatever the reference's
    /// default order; `None` leaves the access unclassified but tracked.
    /// Judged by [`drfrlx::check`](crate::drfrlx) as the std-shaped
    /// atomics' `rlx` operations are.
    #[track_caller]
    pub fn rlx(&self, class: impl Into<Option<crate::drfrlx::Class>>) -> crate::drfrlx::Rlx<'a, T> {
        crate::drfrlx::Rlx::new(self.cell.typed(), class.into()).scoped(self.scope)
    }

    /// Atomically loads the value, with the default read order and scope.
    #[track_caller]
    pub fn load(&self) -> T {
        self.load_scoped(self.default_read_order(), self.scope)
    }

    /// Atomically loads the value with `order` (relaxed, acquire or seq_cst).
    #[track_caller]
    pub fn load_with(&self, order: Ordering) -> T {
        self.load_scoped(order, self.scope)
    }

    /// Atomically loads the value with `order` at `scope`.
    #[track_caller]
    pub fn load_scoped(&self, order: Ordering, scope: Scope) -> T {
        let o = match order {
            Ordering::Release => self.bad("there is no such thing as a release load", "a load", LOAD_ORDERS),
            Ordering::AcqRel => self.bad(
                "there is no such thing as an acquire-release load",
                "a load",
                LOAD_ORDERS,
            ),
            o => self::order(o),
        };
        self.cell.typed().load(o, scope)
    }

    /// Atomically stores `v`, with the default write order and scope.
    #[track_caller]
    pub fn store(&self, v: T) {
        self.store_scoped(v, self.default_write_order(), self.scope)
    }

    /// Atomically stores `v` with `order` (relaxed, release or seq_cst).
    #[track_caller]
    pub fn store_with(&self, v: T, order: Ordering) {
        self.store_scoped(v, order, self.scope)
    }

    /// Atomically stores `v` with `order` at `scope`.
    #[track_caller]
    pub fn store_scoped(&self, v: T, order: Ordering, scope: Scope) {
        let o = match order {
            Ordering::Acquire => self.bad("there is no such thing as an acquire store", "a store", STORE_ORDERS),
            Ordering::AcqRel => self.bad(
                "there is no such thing as an acquire-release store",
                "a store",
                STORE_ORDERS,
            ),
            o => self::order(o),
        };
        self.cell.typed().store(v, o, scope)
    }

    /// Atomically replaces the value with `v`, returning the old one
    /// (default read-modify-write order and scope).
    #[track_caller]
    pub fn exchange(&self, v: T) -> T {
        self.exchange_scoped(v, self.order, self.scope)
    }

    /// `exchange` with `order`.
    #[track_caller]
    pub fn exchange_with(&self, v: T, order: Ordering) -> T {
        self.exchange_scoped(v, order, self.scope)
    }

    /// `exchange` with `order` at `scope`.
    #[track_caller]
    pub fn exchange_scoped(&self, v: T, order: Ordering, scope: Scope) -> T {
        self.cell.typed().swap(v, self::order(order), scope)
    }

    /// Stores `new` if the value is `current` (compared bit for bit, as
    /// C++ compares value representations): `Ok(previous)` if it did,
    /// `Err(actual)` if not. Default read-modify-write order on success,
    /// its read part on failure, default scope.
    #[track_caller]
    pub fn compare_exchange_strong(&self, current: T, new: T) -> Result<T, T> {
        self.cas(current, new, self.order.into(), self.scope, false)
    }

    /// `compare_exchange_strong` with one order (the failure order is its
    /// read part, see [`derived_failure`]) or a `(success, failure)` pair.
    #[track_caller]
    pub fn compare_exchange_strong_with(&self, current: T, new: T, orders: impl Into<CasOrder>) -> Result<T, T> {
        self.cas(current, new, orders.into(), self.scope, false)
    }

    /// `compare_exchange_strong` with its orders at `scope`.
    #[track_caller]
    pub fn compare_exchange_strong_scoped(
        &self,
        current: T,
        new: T,
        orders: impl Into<CasOrder>,
        scope: Scope,
    ) -> Result<T, T> {
        self.cas(current, new, orders.into(), scope, false)
    }

    /// Like [`AtomicRef::compare_exchange_strong`], but may fail although
    /// the value is `current` (the checker explores a spurious failure as a
    /// choice, once per value read).
    #[track_caller]
    pub fn compare_exchange_weak(&self, current: T, new: T) -> Result<T, T> {
        self.cas(current, new, self.order.into(), self.scope, true)
    }

    /// `compare_exchange_weak` with one order or a `(success, failure)` pair.
    #[track_caller]
    pub fn compare_exchange_weak_with(&self, current: T, new: T, orders: impl Into<CasOrder>) -> Result<T, T> {
        self.cas(current, new, orders.into(), self.scope, true)
    }

    /// `compare_exchange_weak` with its orders at `scope`.
    #[track_caller]
    pub fn compare_exchange_weak_scoped(
        &self,
        current: T,
        new: T,
        orders: impl Into<CasOrder>,
        scope: Scope,
    ) -> Result<T, T> {
        self.cas(current, new, orders.into(), scope, true)
    }

    #[track_caller]
    fn cas(&self, current: T, new: T, orders: CasOrder, scope: Scope, weak: bool) -> Result<T, T> {
        let failure = match orders.failure.unwrap_or_else(|| derived_failure(orders.success)) {
            Ordering::Release => self.bad(
                "there is no such thing as a release failure ordering",
                "a compare-exchange's failure",
                LOAD_ORDERS,
            ),
            Ordering::AcqRel => self.bad(
                "there is no such thing as an acquire-release failure ordering",
                "a compare-exchange's failure",
                LOAD_ORDERS,
            ),
            o => order(o),
        };
        self.cell
            .typed()
            .compare_exchange(current, new, order(orders.success), failure, weak, scope)
    }

    /// Panics with std's sentence for an order an operation cannot have,
    /// and which orders it can.
    #[track_caller]
    fn bad(&self, sentence: &str, what: &str, allowed: &str) -> ! {
        panic!(
            "{sentence} ({}<{}>: {what} order must be {allowed})",
            self.api.name(),
            std::any::type_name::<T>()
        )
    }
}

const LOAD_ORDERS: &str = "relaxed, acquire or seq_cst";
const STORE_ORDERS: &str = "relaxed, release or seq_cst";

/// One read-modify-write in its three forms: defaults, another order,
/// another order and scope.
macro_rules! rmw_forms {
    ($bound:ident: $($name:ident, $with:ident, $scoped:ident, $arg:ty, $what:literal;)*) => {
        impl<'a, T: $bound> AtomicRef<'a, T> {
            $(
                #[doc = concat!("Atomically ", $what, ", returning the old value (default read-modify-write order and scope).")]
                #[track_caller]
                pub fn $name(&self, operand: $arg) -> T {
                    self.$scoped(operand, self.order, self.scope)
                }

                #[doc = concat!("`", stringify!($name), "` with `order`.")]
                #[track_caller]
                pub fn $with(&self, operand: $arg, order: Ordering) -> T {
                    self.$scoped(operand, order, self.scope)
                }

                #[doc = concat!("`", stringify!($name), "` with `order` at `scope`.")]
                #[track_caller]
                pub fn $scoped(&self, operand: $arg, order: Ordering, scope: Scope) -> T {
                    self.cell.typed().$name(operand, self::order(order), scope)
                }
            )*
        }
    };
}

rmw_forms! { Arithmetic:
    fetch_add, fetch_add_with, fetch_add_scoped, T::Operand,
        "adds `operand` (integers wrap; floats round to nearest; pointers move by `operand` elements)";
    fetch_sub, fetch_sub_with, fetch_sub_scoped, T::Operand,
        "subtracts `operand` (integers wrap; floats round to nearest; pointers move back by `operand` elements)";
}

rmw_forms! { Bitwise:
    fetch_and, fetch_and_with, fetch_and_scoped, T, "ands in `operand`";
    fetch_or, fetch_or_with, fetch_or_scoped, T, "ors in `operand`";
    fetch_xor, fetch_xor_with, fetch_xor_scoped, T, "xors in `operand`";
}

rmw_forms! { MinMax:
    fetch_min, fetch_min_with, fetch_min_scoped, T,
        "replaces the value with the smaller of it and `operand` (floats: a NaN loses, -0.0 < +0.0)";
    fetch_max, fetch_max_with, fetch_max_scoped, T,
        "replaces the value with the larger of it and `operand` (floats: a NaN loses, -0.0 < +0.0)";
}

impl<T: AtomicValue> fmt::Debug for AtomicRef<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}<{}, {:?}, {}>({:?})",
            self.api.name(),
            std::any::type_name::<T>(),
            self.order,
            self.scope,
            self.cell
        )
    }
}
