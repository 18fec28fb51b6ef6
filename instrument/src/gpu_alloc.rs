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

use crate::rt;
use crate::typed::{scoped_ops, Arithmetic, Bitwise, MinMax, Typed};
use crate::value::AtomicValue;
use scopecheck_checker::event::{LocKind, Scope, Space};
use scopecheck_checker::memory::{MemoryKind, Residence};

/// An atomic value living in a kind of memory. Every operation names its
/// scope, as `cuda::atomic_ref<T, scope>` does; at `Scope::System` it is
/// atomic only where seed 001 says so for this memory kind and platform
/// (`Builder::platform`), and otherwise a plain access, so that two
/// unordered conflicting ones are a data race whose report names the
/// missing device attribute. Narrower scopes are always atomic.
///
/// Which read-modify-writes exist depends on `T`, as for
/// [`AtomicRef`](crate::atomic_ref::AtomicRef): `fetch_add` / `fetch_sub`
/// for [`Arithmetic`] types, `fetch_and` / `fetch_or` / `fetch_xor` for
/// [`Bitwise`] ones, `fetch_min` / `fetch_max` for [`MinMax`] ones.
pub struct MemAtomic<T: AtomicValue> {
    cell: Typed<T>,
    kind: MemoryKind,
}

/// Allocates an atomic holding `init` in memory of `kind` (device memory is
/// resident on device 0; see [`alloc_on_device`]). Inside a model only.
#[track_caller]
pub fn alloc_in<T: AtomicValue>(kind: MemoryKind, init: T) -> MemAtomic<T> {
    alloc(kind, 0, init)
}

/// Allocates an atomic holding `init` in the memory of GPU `device`
/// (`cudaMalloc` after `cudaSetDevice(device)`). Inside a model only.
#[track_caller]
pub fn alloc_on_device<T: AtomicValue>(device: u32, init: T) -> MemAtomic<T> {
    alloc(MemoryKind::Device, device, init)
}

#[track_caller]
fn alloc<T: AtomicValue>(kind: MemoryKind, device: u32, init: T) -> MemAtomic<T> {
    let cell = Typed::new_in(init, LocKind::Atomic, Space::Global);
    rt::set_memory_kind(cell.loc(), Residence { kind, device });
    MemAtomic { cell, kind }
}

impl<T: AtomicValue> MemAtomic<T> {
    /// The kind of memory it lives in.
    pub fn kind(&self) -> MemoryKind {
        self.kind
    }

    scoped_ops!(any, cell);
    crate::drfrlx::rlx_method!(cell);
}

impl<T: Arithmetic> MemAtomic<T> {
    scoped_ops!(arithmetic, cell);
}

impl<T: Bitwise> MemAtomic<T> {
    scoped_ops!(bitwise, cell);
}

impl<T: MinMax> MemAtomic<T> {
    scoped_ops!(min_max, cell);
}
