//! `UnsafeCell` with loom's `with` / `with_mut` API: tracked non-atomic
//! memory. Every access is checked for data races against the other threads'
//! accesses that do not happen before it.

use crate::atomic::alloc;
use crate::rt;
use scopecheck_checker::event::{Loc, LocKind, Op};

/// Tracked non-atomic memory.
pub struct UnsafeCell<T: ?Sized> {
    loc: Loc,
    born: rt::Born,
    data: std::cell::UnsafeCell<T>,
}

impl<T> UnsafeCell<T> {
    /// Creates a cell (inside a model only).
    #[track_caller]
    pub fn new(data: T) -> UnsafeCell<T> {
        UnsafeCell {
            loc: alloc(0, LocKind::Cell),
            born: rt::Born::here(),
            data: std::cell::UnsafeCell::new(data),
        }
    }

    /// Consumes the cell, returning its value.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T: ?Sized> UnsafeCell<T> {
    /// Reads through a const pointer; checked as a read.
    #[track_caller]
    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        self.born.check("an UnsafeCell");
        rt::op(Op::CellAccess {
            loc: self.loc,
            write: false,
        });
        f(self.data.get())
    }

    /// Writes through a mut pointer; checked as a write.
    #[track_caller]
    pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        self.born.check("an UnsafeCell");
        rt::op(Op::CellAccess {
            loc: self.loc,
            write: true,
        });
        f(self.data.get())
    }

    /// Mutable access through an exclusive borrow (no other thread can race it).
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }
}

impl<T: Default> Default for UnsafeCell<T> {
    #[track_caller]
    fn default() -> UnsafeCell<T> {
        UnsafeCell::new(T::default())
    }
}

impl<T: ?Sized> std::fmt::Debug for UnsafeCell<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UnsafeCell({})", self.loc)
    }
}

// SAFETY: as with std's UnsafeCell inside a Sync wrapper, the user promises
// synchronization; the checker verifies it.
unsafe impl<T: ?Sized + Send> Send for UnsafeCell<T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send> Sync for UnsafeCell<T> {}
