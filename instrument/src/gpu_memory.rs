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

use crate::atomic_ref::{AddressSpace, Plain};
use crate::typed::{scoped_ops, Arithmetic, Bitwise, MinMax, Typed};
use crate::value::AtomicValue;
use scopecheck_checker::event::{Scope, Space};
use scopecheck_checker::memory::{MemoryKind, Residence};

/// A buffer of `T` in GPU memory, global or block-local. Each element is a
/// [`Plain`] cell, the same location every other front end uses: so
/// `buf.atomic(i)`, an [`AtomicRef`](crate::atomic_ref::AtomicRef) made on
/// `buf.at(i)` and the element's DRFrlx `rlx` operations all act on one
/// location (seed 002's `atomic_ref<int, ...>(sum_acc[0])`).
pub struct Buffer<T: AtomicValue> {
    cells: Vec<Plain<T>>,
    space: Space,
    residence: Option<Residence>,
}

impl<T: AtomicValue> Buffer<T> {
    #[track_caller]
    fn alloc(init: impl Iterator<Item = T>, space: Space, residence: Option<Residence>) -> Buffer<T> {
        // A loop, not a closure, so that an allocation's panic names the caller.
        let mut cells = Vec::new();
        for v in init {
            cells.push(match (space, residence) {
                (_, Some(r)) => Plain::resident(v, r),
                (Space::Local, None) => Plain::new_in(v, AddressSpace::Local),
                (Space::Global, None) => Plain::new_in(v, AddressSpace::Global),
            });
        }
        Buffer {
            cells,
            space,
            residence,
        }
    }

    /// A global-memory buffer of `len` copies of `init` (`sycl::buffer`,
    /// `cudaMalloc` + `cudaMemcpy`), made by the host before a launch.
    #[track_caller]
    pub fn new(len: usize, init: T) -> Buffer<T> {
        Buffer::alloc(std::iter::repeat_n(init, len), Space::Global, None)
    }

    /// A global-memory buffer holding a copy of `data`.
    #[track_caller]
    pub fn from_slice(data: &[T]) -> Buffer<T> {
        Buffer::alloc(data.iter().copied(), Space::Global, None)
    }

    /// A buffer of `len` copies of `init` in global memory of `kind`
    /// (`cudaMallocManaged`, `cudaHostAlloc`, `malloc`, or `cudaMalloc` on
    /// device 0; see [`Buffer::on_device`]): every element's system-scope
    /// atomics are judged by the memory kind and the platform's device
    /// attributes, as [`gpu::alloc_in`](crate::gpu::alloc_in)'s are (seed
    /// 001, "Atomicity").
    #[track_caller]
    pub fn new_in(kind: MemoryKind, len: usize, init: T) -> Buffer<T> {
        let r = Residence { kind, device: 0 };
        Buffer::alloc(std::iter::repeat_n(init, len), Space::Global, Some(r))
    }

    /// A buffer holding a copy of `data` in global memory of `kind`.
    #[track_caller]
    pub fn from_slice_in(kind: MemoryKind, data: &[T]) -> Buffer<T> {
        let r = Residence { kind, device: 0 };
        Buffer::alloc(data.iter().copied(), Space::Global, Some(r))
    }

    /// A buffer of `len` copies of `init` in the memory of GPU `device`.
    #[track_caller]
    pub fn on_device(device: u32, len: usize, init: T) -> Buffer<T> {
        let r = Residence {
            kind: MemoryKind::Device,
            device,
        };
        Buffer::alloc(std::iter::repeat_n(init, len), Space::Global, Some(r))
    }

    /// A block's local memory of `len` elements (CUDA `__shared__`, a SYCL
    /// local accessor), zeroed. Make it in the per-block closure of
    /// [`crate::gpu::launch`] so each block gets its own instance.
    #[track_caller]
    pub fn local(len: usize) -> Buffer<T> {
        Buffer::alloc(std::iter::repeat_n(T::from_bits(0), len), Space::Local, None)
    }

    /// The memory kind the buffer was allocated in (`None`: ordinary global
    /// or local memory, atomic at every scope).
    pub fn memory_kind(&self) -> Option<MemoryKind> {
        self.residence.map(|r| r.kind)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The memory space the buffer is in.
    pub fn space(&self) -> Space {
        self.space
    }

    /// Element `i` as a [`Plain`] cell (C++'s `buf[i]` as an lvalue), to make
    /// an [`AtomicRef`](crate::atomic_ref::AtomicRef) on:
    /// `AtomicRef::sycl_in(sum.at(0), memory_order::relaxed,
    /// memory_scope::device, address_space::global_space)`. Its address
    /// space is the buffer's (`global_space` or `local_space`).
    ///
    /// # Panics
    /// At the caller's line, when `i` is out of bounds.
    #[track_caller]
    pub fn at(&self, i: usize) -> &Plain<T> {
        let n = self.cells.len();
        let Some(cell) = self.cells.get(i) else {
            panic!(
                "index out of bounds: the {} buffer has {n} elements but the index is {i}",
                self.space
            )
        };
        cell
    }

    /// Reads element `i` plainly (`buf[i]`).
    #[track_caller]
    pub fn get(&self, i: usize) -> T {
        self.at(i).read()
    }

    /// Writes element `i` plainly (`buf[i] = v`).
    #[track_caller]
    pub fn set(&self, i: usize, v: T) {
        self.at(i).write(v)
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
            cell: self.at(i).typed(),
        }
    }
}

/// An atomic view of one element of a [`Buffer`]. Every operation takes its
/// order (with std's validity rules) and its scope. Which read-modify-writes
/// exist depends on `T`, as for [`AtomicRef`](crate::atomic_ref::AtomicRef):
/// `fetch_add` / `fetch_sub` for [`Arithmetic`] types, `fetch_and` /
/// `fetch_or` / `fetch_xor` for [`Bitwise`] ones, `fetch_min` / `fetch_max`
/// for [`MinMax`] ones.
pub struct AtomicElement<'b, T: AtomicValue> {
    cell: &'b Typed<T>,
}

impl<T: AtomicValue> AtomicElement<'_, T> {
    scoped_ops!(any, cell);
    crate::drfrlx::rlx_method!(cell);
}

impl<T: Arithmetic> AtomicElement<'_, T> {
    scoped_ops!(arithmetic, cell);
}

impl<T: Bitwise> AtomicElement<'_, T> {
    scoped_ops!(bitwise, cell);
}

impl<T: MinMax> AtomicElement<'_, T> {
    scoped_ops!(min_max, cell);
}
