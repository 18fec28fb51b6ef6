//! One checker location holding `T`s: the typed loads, stores and
//! read-modify-writes every typed front end (`Plain` and its atomic
//! references, GPU buffers, memory-kind atomics) is built on, so a value
//! means the same in all of them. Orders arrive already checked (each front
//! end has its own words for an invalid one); values are encoded by
//! [`AtomicValue`], the one rule.

mod ops;
mod scoped;

pub use ops::{Arithmetic, Bitwise, MinMax};
pub(crate) use scoped::scoped_ops;

use crate::raw_atomic::RawAtomic;
use crate::value::{AtomicValue, ValueKind};
use scopecheck_checker::event::{Loc, LocKind, Order, RmwOp, Scope, Space, Value};
use std::marker::PhantomData;
use std::mem::size_of;

/// A location holding `T`s. It holds no `T` itself, only the checker's
/// location, so it is `Send` and `Sync` whatever `T` is.
pub(crate) struct Typed<T: AtomicValue> {
    raw: RawAtomic,
    _t: PhantomData<fn() -> T>,
}

/// `T`'s word, masked to its width (a program's own `to_bits` may leave
/// bits above it; the location would mask them anyway).
pub(crate) fn word<T: AtomicValue>(v: T) -> Value {
    T::TYPE.mask(v.to_bits())
}

impl<T: AtomicValue> Typed<T> {
    /// A new location in `space` holding `init`.
    ///
    /// # Panics
    /// At the caller's line, if `T` is wider than the checker's 8-byte word.
    #[track_caller]
    pub(crate) fn new_in(init: T, kind: LocKind, space: Space) -> Typed<T> {
        let n = size_of::<T>();
        if n > 8 {
            panic!(
                "scopecheck: a checker location holds values of at most 8 bytes (it keeps each one as a \
                 64-bit pattern), and {} does not fit: this type has {n}",
                std::any::type_name::<T>()
            );
        }
        Typed {
            raw: RawAtomic::new_in(word(init), T::TYPE, kind, space, matches!(T::KIND, ValueKind::Pointer)),
            _t: PhantomData,
        }
    }

    /// The location.
    pub(crate) fn loc(&self) -> Loc {
        self.raw.loc
    }

    /// The raw location, for accesses that choose their own values (the
    /// quantum oracle of `drfrlx`).
    pub(crate) fn raw(&self) -> &RawAtomic {
        &self.raw
    }

    /// A load with order `o` (`NonAtomic` for a plain read).
    // Inline: the shim's check and the operation stay in the caller (one
    // call less per access: measured 1% of an execution).
    #[inline]
    #[track_caller]
    pub(crate) fn load(&self, o: Order, scope: Scope) -> T {
        T::from_bits(self.raw.load_at(o, scope))
    }

    /// A store with order `o` (`NonAtomic` for a plain write).
    // Inline: the shim's check and the operation stay in the caller (one
    // call less per access: measured 1% of an execution).
    #[inline]
    #[track_caller]
    pub(crate) fn store(&self, v: T, o: Order, scope: Scope) {
        self.raw.store_at(word(v), o, scope)
    }

    /// A plain (non-atomic) read.
    #[track_caller]
    pub(crate) fn read(&self) -> T {
        self.load(Order::NonAtomic, Scope::Thread)
    }

    /// A plain (non-atomic) write.
    #[track_caller]
    pub(crate) fn write(&self, v: T) {
        self.store(v, Order::NonAtomic, Scope::Thread)
    }

    /// A read-modify-write `op` (its operands already words) with order `o`;
    /// returns the old value.
    // Inline: the shim's check and the operation stay in the caller (one
    // call less per access: measured 1% of an execution).
    #[inline]
    #[track_caller]
    pub(crate) fn rmw(&self, op: RmwOp, o: Order, scope: Scope) -> T {
        T::from_bits(self.raw.rmw_at(op, o, o, scope).0)
    }

    /// Stores `v`, returning the old value.
    #[track_caller]
    pub(crate) fn swap(&self, v: T, o: Order, scope: Scope) -> T {
        self.rmw(RmwOp::Swap(word(v)), o, scope)
    }

    /// Stores `new` if the value is `current` (bit for bit): `Ok(old)` if
    /// it did, `Err(actual)` if not; `weak` may fail spuriously.
    #[inline]
    #[track_caller]
    pub(crate) fn compare_exchange(
        &self,
        current: T,
        new: T,
        success: Order,
        failure: Order,
        weak: bool,
        scope: Scope,
    ) -> Result<T, T> {
        let op = RmwOp::Cas {
            expected: word(current),
            new: word(new),
            weak,
        };
        let (old, ok) = self.raw.rmw_at(op, success, failure, scope);
        if ok {
            Ok(T::from_bits(old))
        } else {
            Err(T::from_bits(old))
        }
    }
}

impl<T: Arithmetic> Typed<T> {
    /// Adds `v` (integers wrap, floats round, pointers move by elements).
    // Inline: the shim's check and the operation stay in the caller (one
    // call less per access: measured 1% of an execution).
    #[inline]
    #[track_caller]
    pub(crate) fn fetch_add(&self, v: T::Operand, o: Order, scope: Scope) -> T {
        self.rmw(T::add_op(v), o, scope)
    }

    /// Subtracts `v`.
    // Inline: the shim's check and the operation stay in the caller (one
    // call less per access: measured 1% of an execution).
    #[inline]
    #[track_caller]
    pub(crate) fn fetch_sub(&self, v: T::Operand, o: Order, scope: Scope) -> T {
        self.rmw(T::sub_op(v), o, scope)
    }
}

impl<T: Bitwise> Typed<T> {
    /// Ands in `v`.
    #[track_caller]
    pub(crate) fn fetch_and(&self, v: T, o: Order, scope: Scope) -> T {
        self.rmw(RmwOp::And(word(v)), o, scope)
    }

    /// Ors in `v`.
    #[track_caller]
    pub(crate) fn fetch_or(&self, v: T, o: Order, scope: Scope) -> T {
        self.rmw(RmwOp::Or(word(v)), o, scope)
    }

    /// Xors in `v`.
    #[track_caller]
    pub(crate) fn fetch_xor(&self, v: T, o: Order, scope: Scope) -> T {
        self.rmw(RmwOp::Xor(word(v)), o, scope)
    }

    /// Nands in `v` (std's integer and `AtomicBool` shims have it).
    #[track_caller]
    pub(crate) fn fetch_nand(&self, v: T, o: Order, scope: Scope) -> T {
        self.rmw(RmwOp::Nand(word(v)), o, scope)
    }
}

impl<T: MinMax> Typed<T> {
    /// The smaller of the value and `v` (signed for signed integers).
    #[track_caller]
    pub(crate) fn fetch_min(&self, v: T, o: Order, scope: Scope) -> T {
        self.rmw(v.min_op(), o, scope)
    }

    /// The larger of the value and `v`.
    #[track_caller]
    pub(crate) fn fetch_max(&self, v: T, o: Order, scope: Scope) -> T {
        self.rmw(v.max_op(), o, scope)
    }
}
