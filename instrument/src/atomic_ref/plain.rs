//! [`Plain`]: ordinary shared memory that code reads and writes plainly and
//! that an [`AtomicRef`](super::AtomicRef) can also operate on atomically,
//! the way C++ code keeps an `int` and wraps it in `sycl::atomic_ref` or
//! `cuda::atomic_ref` where it needs atomicity.

use crate::rt;
use crate::typed::Typed;
use crate::value::AtomicValue;
use scopecheck_checker::event::LocKind;
use scopecheck_checker::memory::{MemoryKind, Residence};
use scopecheck_checker::space::Space;

/// Where an object lives, as `sycl::access::address_space` names it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum AddressSpace {
    /// `generic_space`: either global or local; for a [`Plain`], "not said".
    #[default]
    Generic,
    /// `global_space`: device (global) memory.
    Global,
    /// `local_space`: work-group local memory (CUDA's `__shared__`).
    Local,
}

impl AddressSpace {
    /// SYCL's name: `generic_space`, `global_space`, `local_space`.
    pub fn sycl_name(self) -> &'static str {
        match self {
            AddressSpace::Generic => "generic_space",
            AddressSpace::Global => "global_space",
            AddressSpace::Local => "local_space",
        }
    }
}

/// A shared memory cell holding a `T` (an `int` of C++ device code): plain
/// reads and writes ([`Plain::read`], [`Plain::write`]) are non-atomic and
/// checked for data races like [`UnsafeCell`](crate::cell::UnsafeCell)'s,
/// and an [`AtomicRef`](super::AtomicRef) made on it performs atomic
/// operations on the same location. The value lives in the checker (plain
/// reads return what the memory model lets them read), so a plain read
/// racing an atomic write is reported, not silently torn.
pub struct Plain<T: AtomicValue> {
    cell: Typed<T>,
    space: AddressSpace,
    /// The memory kind it was allocated in, if one was said.
    residence: Option<Residence>,
}

impl<T: AtomicValue> Plain<T> {
    /// A cell holding `v`, its address space not said (inside a model only).
    ///
    /// # Panics
    /// If `T` is wider than 8 bytes.
    #[track_caller]
    pub fn new(v: T) -> Plain<T> {
        Plain::new_in(v, AddressSpace::Generic)
    }

    /// A cell in global (device) memory.
    #[track_caller]
    pub fn global(v: T) -> Plain<T> {
        Plain::new_in(v, AddressSpace::Global)
    }

    /// A cell in work-group local memory (put it in a kernel's per-block
    /// shared state).
    #[track_caller]
    pub fn local(v: T) -> Plain<T> {
        Plain::new_in(v, AddressSpace::Local)
    }

    /// A cell in address space `space` (`Generic`: not said).
    #[track_caller]
    pub fn new_in(v: T, space: AddressSpace) -> Plain<T> {
        // Local cells live in local memory: a barrier fencing only local
        // memory orders them, one fencing only global memory does not.
        let in_space = match space {
            AddressSpace::Local => Space::Local,
            _ => Space::Global,
        };
        Plain {
            cell: Typed::new_in(v, LocKind::Atomic, in_space),
            space,
            residence: None,
        }
    }

    /// A cell in global memory of `kind` (device memory resident on device
    /// 0; see [`Plain::on_device`]): the memory kind decides, with the
    /// platform's device attributes, whether a system-scope atomic
    /// operation on it (through an [`AtomicRef`](super::AtomicRef), or its
    /// DRFrlx `rlx` operations) is atomic, exactly as for
    /// [`gpu::alloc_in`](crate::gpu::alloc_in) (seed 001, "Atomicity").
    /// Plain reads and writes are plain in every kind.
    #[track_caller]
    pub fn in_memory(kind: MemoryKind, v: T) -> Plain<T> {
        Plain::resident(v, Residence { kind, device: 0 })
    }

    /// A cell in the memory of GPU `device` (`cudaMalloc` after
    /// `cudaSetDevice(device)`).
    #[track_caller]
    pub fn on_device(device: u32, v: T) -> Plain<T> {
        Plain::resident(
            v,
            Residence {
                kind: MemoryKind::Device,
                device,
            },
        )
    }

    /// A global cell living in `residence`.
    #[track_caller]
    pub(crate) fn resident(v: T, residence: Residence) -> Plain<T> {
        let mut p = Plain::new_in(v, AddressSpace::Global);
        rt::set_memory_kind(p.cell.loc(), residence);
        p.residence = Some(residence);
        p
    }

    /// The memory kind the cell was made in (`None`: an ordinary location,
    /// atomic at every scope).
    pub fn memory_kind(&self) -> Option<MemoryKind> {
        self.residence.map(|r| r.kind)
    }

    /// A plain (non-atomic) read: a data race if a write of another thread
    /// does not happen before it, or it before that write.
    #[track_caller]
    pub fn read(&self) -> T {
        self.cell.read()
    }

    /// A plain (non-atomic) write: a data race if another thread's access
    /// is not ordered with it by happens-before.
    #[track_caller]
    pub fn write(&self, v: T) {
        self.cell.write(v)
    }

    /// Consumes the cell, returning its value (a plain read).
    #[track_caller]
    pub fn into_inner(self) -> T {
        self.read()
    }

    /// The address space the cell was made in (`Generic` if not said).
    pub fn address_space(&self) -> AddressSpace {
        self.space
    }

    pub(crate) fn typed(&self) -> &Typed<T> {
        &self.cell
    }
}

impl<T: AtomicValue + Default> Default for Plain<T> {
    #[track_caller]
    fn default() -> Plain<T> {
        Plain::new(T::default())
    }
}

impl<T: AtomicValue> std::fmt::Debug for Plain<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Plain<{}>({})", std::any::type_name::<T>(), self.cell.loc())
    }
}
