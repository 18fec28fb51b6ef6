//! The public methods of the typed front ends whose every operation takes a
//! std [`Ordering`](std::sync::atomic::Ordering) (checked by std's rules,
//! panicking with std's words at the caller's line) and a scope:
//! [`MemAtomic`](crate::gpu::MemAtomic) and
//! [`AtomicElement`](crate::gpu::AtomicElement) have the same API, written
//! once here. Each group expands inside an impl block with the group's bound
//! on `T`; `$cell` names the front end's field holding (or borrowing) its
//! [`Typed`](super::Typed) location.

macro_rules! scoped_ops {
    (any, $cell:ident) => {
        /// Atomic load (`Relaxed`, `Acquire` or `SeqCst`).
        #[track_caller]
        pub fn load(&self, o: ::std::sync::atomic::Ordering, scope: Scope) -> T {
            self.$cell.load($crate::raw_atomic::load_order(o), scope)
        }

        /// Atomic store (`Relaxed`, `Release` or `SeqCst`).
        #[track_caller]
        pub fn store(&self, v: T, o: ::std::sync::atomic::Ordering, scope: Scope) {
            self.$cell.store(v, $crate::raw_atomic::store_order(o), scope)
        }

        /// Atomic swap: stores `v`, returning the old value.
        #[track_caller]
        pub fn swap(&self, v: T, o: ::std::sync::atomic::Ordering, scope: Scope) -> T {
            self.$cell.swap(v, $crate::raw_atomic::order(o), scope)
        }

        /// Atomic compare-exchange (strong, compared bit for bit): `Ok(old)`
        /// if it held `current` and now holds `new`, `Err(actual)` otherwise.
        #[track_caller]
        pub fn compare_exchange(
            &self,
            current: T,
            new: T,
            success: ::std::sync::atomic::Ordering,
            failure: ::std::sync::atomic::Ordering,
            scope: Scope,
        ) -> Result<T, T> {
            let failure = $crate::raw_atomic::failure_order(failure);
            let success = $crate::raw_atomic::order(success);
            self.$cell
                .compare_exchange(current, new, success, failure, false, scope)
        }
    };
    (arithmetic, $cell:ident) => {
        /// Atomic add (integers wrap, floats round to nearest, pointers move
        /// by `v` elements); returns the old value.
        #[track_caller]
        pub fn fetch_add(&self, v: T::Operand, o: ::std::sync::atomic::Ordering, scope: Scope) -> T {
            self.$cell.fetch_add(v, $crate::raw_atomic::order(o), scope)
        }

        /// Atomic subtract; returns the old value.
        #[track_caller]
        pub fn fetch_sub(&self, v: T::Operand, o: ::std::sync::atomic::Ordering, scope: Scope) -> T {
            self.$cell.fetch_sub(v, $crate::raw_atomic::order(o), scope)
        }
    };
    (bitwise, $cell:ident) => {
        /// Atomic bitwise (for `bool`: logical) and; returns the old value.
        #[track_caller]
        pub fn fetch_and(&self, v: T, o: ::std::sync::atomic::Ordering, scope: Scope) -> T {
            self.$cell.fetch_and(v, $crate::raw_atomic::order(o), scope)
        }

        /// Atomic bitwise (for `bool`: logical) or; returns the old value.
        #[track_caller]
        pub fn fetch_or(&self, v: T, o: ::std::sync::atomic::Ordering, scope: Scope) -> T {
            self.$cell.fetch_or(v, $crate::raw_atomic::order(o), scope)
        }

        /// Atomic bitwise (for `bool`: logical) xor; returns the old value.
        #[track_caller]
        pub fn fetch_xor(&self, v: T, o: ::std::sync::atomic::Ordering, scope: Scope) -> T {
            self.$cell.fetch_xor(v, $crate::raw_atomic::order(o), scope)
        }
    };
    (min_max, $cell:ident) => {
        /// Atomic minimum (signed for signed integers; floats: a NaN loses,
        /// -0.0 < +0.0); returns the old value.
        #[track_caller]
        pub fn fetch_min(&self, v: T, o: ::std::sync::atomic::Ordering, scope: Scope) -> T {
            self.$cell.fetch_min(v, $crate::raw_atomic::order(o), scope)
        }

        /// Atomic maximum; returns the old value.
        #[track_caller]
        pub fn fetch_max(&self, v: T, o: ::std::sync::atomic::Ordering, scope: Scope) -> T {
            self.$cell.fetch_max(v, $crate::raw_atomic::order(o), scope)
        }
    };
}

pub(crate) use scoped_ops;
