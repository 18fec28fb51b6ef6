//! Atomics placed in a kind of memory (device, managed, mapped,
//! system-allocated), whose system-scope operations the checker judges by
//! the platform's device attributes (seed 001, "Atomicity"; see
//! `scopecheck_checker::memory`).
//!
//! ```text
//! let flag = gpu::alloc_in(MemoryKind::Managed, 0u32);
//! flag.fetch_add(1, Ordering::Relaxed, Scope::System); // plain unless concurrentManagedAccess
//! ```
//!
//! (A sketch: it needs a model around it. Complete programs that run
//! are in `harness/tests/memory_kinds.rs`.)

use crate::atomic::{failure_order, load_order, order, store_order, Ordering, RawAtomic};
use crate::rt;
use scopecheck_checker::event::{LocKind, RmwOp, Scope, Value, ValueType};
use scopecheck_checker::memory::{MemoryKind, Residence};
use std::marker::PhantomData;

/// An integer type a [`MemAtomic`] can hold.
pub trait Word: Copy + sealed::Sealed {
    /// Its width and signedness.
    const TY: ValueType;
    /// As the checker's value (zero-extended).
    fn to_value(self) -> Value;
    /// From the checker's value.
    fn from_value(v: Value) -> Self;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! word {
    ($($t:ty, $bits:expr, $signed:expr);*) => {$(
        impl sealed::Sealed for $t {}
        impl Word for $t {
            const TY: ValueType = ValueType { bits: $bits, signed: $signed };
            fn to_value(self) -> Value {
                self as Value
            }
            fn from_value(v: Value) -> Self {
                v as $t
            }
        }
    )*};
}

word!(u32, 32, false; i32, 32, true; u64, 64, false; i64, 64, true; usize, 64, false);

/// An atomic integer living in a kind of memory. Every operation names its
/// scope, as `cuda::atomic_ref<T, scope>` does; at `Scope::System` it is
/// atomic only where seed 001 says so for this memory kind and platform
/// (`Builder::platform`), and otherwise a plain access, so that two
/// unordered conflicting ones are a data race whose report names the
/// missing device attribute. Narrower scopes are always atomic.
pub struct MemAtomic<T: Word> {
    raw: RawAtomic,
    kind: MemoryKind,
    _t: PhantomData<T>,
}

/// Allocates an atomic holding `init` in memory of `kind` (device memory is
/// resident on device 0; see [`alloc_on_device`]). Inside a model only.
#[track_caller]
pub fn alloc_in<T: Word>(kind: MemoryKind, init: T) -> MemAtomic<T> {
    alloc(kind, 0, init)
}

/// Allocates an atomic holding `init` in the memory of GPU `device`
/// (`cudaMalloc` after `cudaSetDevice(device)`). Inside a model only.
#[track_caller]
pub fn alloc_on_device<T: Word>(device: u32, init: T) -> MemAtomic<T> {
    alloc(MemoryKind::Device, device, init)
}

#[track_caller]
fn alloc<T: Word>(kind: MemoryKind, device: u32, init: T) -> MemAtomic<T> {
    let raw = RawAtomic::new(init.to_value(), T::TY, LocKind::Atomic);
    rt::set_memory_kind(raw.loc, Residence { kind, device });
    MemAtomic {
        raw,
        kind,
        _t: PhantomData,
    }
}

impl<T: Word> MemAtomic<T> {
    /// The kind of memory it lives in.
    pub fn kind(&self) -> MemoryKind {
        self.kind
    }

    #[track_caller]
    fn rmw(&self, op: RmwOp, o: Ordering, scope: Scope) -> T {
        let o = order(o);
        T::from_value(self.raw.rmw_at(op, o, o, scope).0)
    }

    /// Loads the value.
    #[track_caller]
    pub fn load(&self, o: Ordering, scope: Scope) -> T {
        T::from_value(self.raw.load_at(load_order(o), scope))
    }

    /// Stores `v`.
    #[track_caller]
    pub fn store(&self, v: T, o: Ordering, scope: Scope) {
        self.raw.store_at(v.to_value(), store_order(o), scope)
    }

    /// Stores `v`, returning the previous value.
    #[track_caller]
    pub fn swap(&self, v: T, o: Ordering, scope: Scope) -> T {
        self.rmw(RmwOp::Swap(v.to_value()), o, scope)
    }

    /// Adds `v` (wrapping), returning the previous value.
    #[track_caller]
    pub fn fetch_add(&self, v: T, o: Ordering, scope: Scope) -> T {
        self.rmw(RmwOp::Add(v.to_value()), o, scope)
    }

    /// Subtracts `v` (wrapping), returning the previous value.
    #[track_caller]
    pub fn fetch_sub(&self, v: T, o: Ordering, scope: Scope) -> T {
        self.rmw(RmwOp::Sub(v.to_value()), o, scope)
    }

    /// Bitwise or with `v`, returning the previous value.
    #[track_caller]
    pub fn fetch_or(&self, v: T, o: Ordering, scope: Scope) -> T {
        self.rmw(RmwOp::Or(v.to_value()), o, scope)
    }

    /// Bitwise and with `v`, returning the previous value.
    #[track_caller]
    pub fn fetch_and(&self, v: T, o: Ordering, scope: Scope) -> T {
        self.rmw(RmwOp::And(v.to_value()), o, scope)
    }

    /// Maximum with `v`, returning the previous value.
    #[track_caller]
    pub fn fetch_max(&self, v: T, o: Ordering, scope: Scope) -> T {
        self.rmw(RmwOp::Max(v.to_value()), o, scope)
    }

    /// Minimum with `v`, returning the previous value.
    #[track_caller]
    pub fn fetch_min(&self, v: T, o: Ordering, scope: Scope) -> T {
        self.rmw(RmwOp::Min(v.to_value()), o, scope)
    }

    /// Stores `new` if the value is `current`; returns the value read, as
    /// `Ok` when the exchange happened.
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
        scope: Scope,
    ) -> Result<T, T> {
        let f = failure_order(failure);
        let s = order(success);
        let op = RmwOp::Cas {
            expected: current.to_value(),
            new: new.to_value(),
            weak: false,
        };
        let (v, ok) = self.raw.rmw_at(op, s, f, scope);
        if ok {
            Ok(T::from_value(v))
        } else {
            Err(T::from_value(v))
        }
    }
}
