//! GPU memory: buffers of plain elements in global (device) memory or in a
//! block's local memory (CUDA `__shared__`, SYCL/OpenCL local memory), each
//! element a location of its own, so every access is checked for data races
//! element by element and atomic views of an element (`sycl::atomic_ref`,
//! CUDA `atomicAdd` on a buffer slot) take part in the memory model.
//!
//! A global buffer is made by the host before the launch and captured by the
//! kernel; local memory is made in the launch's per-block closure, so each
//! block has its own instance:
//!
//! ```text
//! let data = Buffer::from_slice(&[1u32, 2, 3, 4]);
//! gpu::launch(Launch::new(1, 4), |_| Buffer::<u32>::local(4), |ctx| {
//!     let scratch = ctx.shared();
//!     scratch.set(ctx.thread_idx() as usize, data.get(ctx.thread_idx() as usize));
//!     ctx.barrier(FenceSpace::Local);
//!     // ...
//! });
//! ```
//!
//! (A sketch: it needs a model around it. Complete programs that run
//! are in `harness/tests/memory_spaces.rs`.)
//!
//! Plain accesses are non-atomic loads and stores: they read what the memory
//! model lets them read, and two of them (or one and an atomic) not ordered
//! by happens-before of the buffer's memory space are a data race.

use crate::atomic::{alloc_in, failure_order, load_order, order, store_order, Ordering, RawAtomic};
use scopecheck_checker::event::{Loc, LocKind, Order, RmwOp, Scope, Space, Value, ValueType};
use std::marker::PhantomData;

/// A type a [`Buffer`] can hold: a plain integer (or `bool`), stored as a
/// value of its width and signedness.
pub trait Element: Copy {
    /// Width and signedness (for wrapping arithmetic and signed min/max).
    const TYPE: ValueType;
    /// The value as the checker stores it.
    fn to_value(self) -> Value;
    /// Back from the checker's value.
    fn from_value(v: Value) -> Self;
}

macro_rules! element {
    ($($t:ty => $bits:expr, $signed:expr;)*) => {$(
        impl Element for $t {
            const TYPE: ValueType = ValueType { bits: $bits, signed: $signed };
            fn to_value(self) -> Value {
                Self::TYPE.mask(self as i128 as u64)
            }
            fn from_value(v: Value) -> Self {
                v as $t
            }
        }
    )*};
}

element! {
    u8 => 8, false; u16 => 16, false; u32 => 32, false; u64 => 64, false; usize => 64, false;
    i8 => 8, true; i16 => 16, true; i32 => 32, true; i64 => 64, true; isize => 64, true;
}

impl Element for bool {
    const TYPE: ValueType = ValueType { bits: 1, signed: false };
    fn to_value(self) -> Value {
        self as Value
    }
    fn from_value(v: Value) -> Self {
        v != 0
    }
}

/// A buffer of `T` in GPU memory, global or block-local.
pub struct Buffer<T: Element> {
    locs: Vec<Loc>,
    space: Space,
    _t: PhantomData<T>,
}

impl<T: Element> Buffer<T> {
    #[track_caller]
    fn alloc(init: impl Iterator<Item = T>, space: Space) -> Buffer<T> {
        Buffer {
            locs: init.map(|v| alloc_in(v.to_value(), LocKind::Atomic, space)).collect(),
            space,
            _t: PhantomData,
        }
    }

    /// A global-memory buffer of `len` copies of `init` (`sycl::buffer`,
    /// `cudaMalloc` + `cudaMemcpy`), made by the host before a launch.
    #[track_caller]
    pub fn new(len: usize, init: T) -> Buffer<T> {
        Buffer::alloc(std::iter::repeat_n(init, len), Space::Global)
    }

    /// A global-memory buffer holding a copy of `data`.
    #[track_caller]
    pub fn from_slice(data: &[T]) -> Buffer<T> {
        Buffer::alloc(data.iter().copied(), Space::Global)
    }

    /// A block's local memory of `len` elements (CUDA `__shared__`, a SYCL
    /// local accessor), zeroed. Make it in the per-block closure of
    /// [`crate::gpu::launch`] so each block gets its own instance.
    #[track_caller]
    pub fn local(len: usize) -> Buffer<T> {
        Buffer::alloc(std::iter::repeat_n(T::from_value(0), len), Space::Local)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.locs.len()
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.locs.is_empty()
    }

    /// The memory space the buffer is in.
    pub fn space(&self) -> Space {
        self.space
    }

    #[track_caller]
    fn raw(&self, i: usize) -> RawAtomic {
        let n = self.locs.len();
        let Some(&loc) = self.locs.get(i) else {
            panic!(
                "index out of bounds: the {} buffer has {n} elements but the index is {i}",
                self.space
            )
        };
        RawAtomic { loc, ty: T::TYPE }
    }

    /// Reads element `i` plainly (`buf[i]`).
    #[track_caller]
    pub fn get(&self, i: usize) -> T {
        T::from_value(self.raw(i).load_at(Order::NonAtomic, Scope::Thread))
    }

    /// Writes element `i` plainly (`buf[i] = v`).
    #[track_caller]
    pub fn set(&self, i: usize, v: T) {
        self.raw(i).store_at(v.to_value(), Order::NonAtomic, Scope::Thread)
    }

    /// Every element, read plainly in order (the host's copy back after the
    /// kernel finished).
    #[track_caller]
    pub fn to_vec(&self) -> Vec<T> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }

    /// An atomic view of element `i` (`sycl::atomic_ref<T, order, scope,
    /// space>(buf[i])`, CUDA `atomicAdd(&buf[i], ...)`).
    #[track_caller]
    pub fn atomic(&self, i: usize) -> AtomicElement<'_, T> {
        AtomicElement {
            raw: self.raw(i),
            _b: PhantomData,
        }
    }
}

/// An atomic view of one element of a [`Buffer`]. Every operation takes its
/// order (with std's validity rules) and its scope.
pub struct AtomicElement<'b, T: Element> {
    raw: RawAtomic,
    _b: PhantomData<&'b Buffer<T>>,
}

impl<T: Element> AtomicElement<'_, T> {
    /// Atomic load.
    #[track_caller]
    pub fn load(&self, o: Ordering, scope: Scope) -> T {
        T::from_value(self.raw.load_at(load_order(o), scope))
    }

    /// Atomic store.
    #[track_caller]
    pub fn store(&self, v: T, o: Ordering, scope: Scope) {
        self.raw.store_at(v.to_value(), store_order(o), scope)
    }

    #[track_caller]
    fn rmw(&self, op: RmwOp, o: Ordering, scope: Scope) -> T {
        let o = order(o);
        let (old, _) = self.raw.rmw_at(op, o, o, scope);
        T::from_value(old)
    }

    /// Atomic swap; returns the old value.
    #[track_caller]
    pub fn swap(&self, v: T, o: Ordering, scope: Scope) -> T {
        self.rmw(RmwOp::Swap(v.to_value()), o, scope)
    }

    /// Atomic wrapping add; returns the old value.
    #[track_caller]
    pub fn fetch_add(&self, v: T, o: Ordering, scope: Scope) -> T {
        self.rmw(RmwOp::Add(v.to_value()), o, scope)
    }

    /// Atomic wrapping subtract; returns the old value.
    #[track_caller]
    pub fn fetch_sub(&self, v: T, o: Ordering, scope: Scope) -> T {
        self.rmw(RmwOp::Sub(v.to_value()), o, scope)
    }

    /// Atomic minimum; returns the old value.
    #[track_caller]
    pub fn fetch_min(&self, v: T, o: Ordering, scope: Scope) -> T {
        self.rmw(RmwOp::Min(v.to_value()), o, scope)
    }

    /// Atomic maximum; returns the old value.
    #[track_caller]
    pub fn fetch_max(&self, v: T, o: Ordering, scope: Scope) -> T {
        self.rmw(RmwOp::Max(v.to_value()), o, scope)
    }

    /// Atomic compare-exchange (strong): `Ok(old)` if it held `current` and
    /// now holds `new`, `Err(actual)` otherwise.
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
        scope: Scope,
    ) -> Result<T, T> {
        let op = RmwOp::Cas {
            expected: current.to_value(),
            new: new.to_value(),
            weak: false,
        };
        let (old, ok) = self.raw.rmw_at(op, order(success), failure_order(failure), scope);
        if ok {
            Ok(T::from_value(old))
        } else {
            Err(T::from_value(old))
        }
    }
}
