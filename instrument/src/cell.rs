//! `UnsafeCell` with loom's API: tracked non-atomic memory, accessed
//! through `with` / `with_mut` closures or the `ConstPtr` / `MutPtr` guards
//! of `get` / `get_mut`. Every access is checked for data races against the
//! other threads' accesses that do not happen before it, and an access
//! lasts as long as its closure or its guard (`rt::cell_begin`): one that
//! overlaps a conflicting access in progress fails the thread. [`Cell`] is
//! loom's checked `std::cell::Cell`, built on it.

use crate::raw_atomic::alloc;
use crate::rt;
use scopecheck_checker::event::{Loc, LocKind, SourceLoc};

/// Tracked non-atomic memory.
pub struct UnsafeCell<T: ?Sized> {
    loc: Loc,
    born: rt::Born,
    data: std::cell::UnsafeCell<T>,
}

/// A checked `*const T` into an [`UnsafeCell`], from [`UnsafeCell::get`]:
/// the cell counts as read for as long as it lives (a mutable access
/// meanwhile, on any thread, is reported).
#[derive(Debug)]
pub struct ConstPtr<T: ?Sized> {
    ptr: *const T,
    _access: rt::CellAccessGuard,
}

/// A checked `*mut T` into an [`UnsafeCell`], from [`UnsafeCell::get_mut`]:
/// the cell counts as written for as long as it lives (any other access
/// meanwhile, on any thread, is reported).
#[derive(Debug)]
pub struct MutPtr<T: ?Sized> {
    ptr: *mut T,
    _access: rt::CellAccessGuard,
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
    #[track_caller]
    fn begin(&self, write: bool) -> rt::CellAccessGuard {
        self.born.check("an UnsafeCell");
        rt::cell_begin(self.loc, write, SourceLoc::caller())
    }

    /// Reads through a const pointer; checked as a read lasting the closure.
    #[track_caller]
    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        let _access = self.begin(false);
        f(self.data.get())
    }

    /// Writes through a mut pointer; checked as a write lasting the closure.
    #[track_caller]
    pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        let _access = self.begin(true);
        f(self.data.get())
    }

    /// A checked const pointer: a read that lasts until it is dropped.
    #[track_caller]
    pub fn get(&self) -> ConstPtr<T> {
        ConstPtr {
            _access: self.begin(false),
            ptr: self.data.get(),
        }
    }

    /// A checked mut pointer: a write that lasts until it is dropped.
    #[track_caller]
    pub fn get_mut(&self) -> MutPtr<T> {
        MutPtr {
            _access: self.begin(true),
            ptr: self.data.get(),
        }
    }
}

impl<T: ?Sized> ConstPtr<T> {
    /// Dereferences the pointer.
    ///
    /// # Safety
    /// As dereferencing a `*const T`: the cell must still exist, and no
    /// `&mut` to its value may exist (the checker reports mutable accesses
    /// through the shim, not through escaped raw pointers).
    pub unsafe fn deref(&self) -> &T {
        // SAFETY: the caller's contract above.
        unsafe { &*self.ptr }
    }

    /// Calls `f` with the raw pointer; it must not escape the closure (an
    /// escaped pointer is not tracked).
    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.ptr)
    }
}

impl<T: ?Sized> MutPtr<T> {
    /// Dereferences the pointer.
    ///
    /// # Safety
    /// As dereferencing a `*mut T` into a `&mut T`: the cell must still
    /// exist, and no other reference to its value may exist while the
    /// answer is used.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn deref(&self) -> &mut T {
        // SAFETY: the caller's contract above.
        unsafe { &mut *self.ptr }
    }

    /// Calls `f` with the raw pointer; it must not escape the closure (an
    /// escaped pointer is not tracked).
    pub fn with<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.ptr)
    }
}

impl<T: Default> Default for UnsafeCell<T> {
    #[track_caller]
    fn default() -> UnsafeCell<T> {
        UnsafeCell::new(T::default())
    }
}

impl<T> From<T> for UnsafeCell<T> {
    #[track_caller]
    fn from(v: T) -> UnsafeCell<T> {
        UnsafeCell::new(v)
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

/// loom's checked `std::cell::Cell`: every `get` is a read and every
/// `set` / `replace` / `swap` / `take` a write of an [`UnsafeCell`], so
/// sharing it between threads without synchronization is reported.
pub struct Cell<T> {
    cell: UnsafeCell<T>,
}

impl<T> Cell<T> {
    /// A cell holding `v`.
    #[track_caller]
    pub fn new(v: T) -> Cell<T> {
        Cell {
            cell: UnsafeCell::new(v),
        }
    }

    /// Stores `v`, dropping the old value.
    #[track_caller]
    pub fn set(&self, v: T) {
        drop(self.replace(v));
    }

    /// Stores `v` and returns the old value.
    #[track_caller]
    pub fn replace(&self, v: T) -> T {
        // SAFETY: the write access the shim tracks is exclusive for the
        // closure: an overlapping access would have failed `with_mut`.
        self.cell.with_mut(|p| unsafe { std::mem::replace(&mut *p, v) })
    }

    /// Exchanges the values of two cells.
    #[track_caller]
    pub fn swap(&self, other: &Cell<T>) {
        if std::ptr::eq(self, other) {
            return;
        }
        self.cell.with_mut(|a| {
            // SAFETY: both write accesses are live and tracked, and the
            // cells are distinct (checked above).
            other.cell.with_mut(|b| unsafe { std::ptr::swap(a, b) })
        })
    }

    /// A copy of the value.
    #[track_caller]
    pub fn get(&self) -> T
    where
        T: Copy,
    {
        // SAFETY: a tracked read access; writes during it are reported.
        self.cell.with(|p| unsafe { *p })
    }

    /// Takes the value, leaving the default.
    #[track_caller]
    pub fn take(&self) -> T
    where
        T: Default,
    {
        self.replace(T::default())
    }

    /// Consumes the cell, returning its value.
    pub fn into_inner(self) -> T {
        self.cell.into_inner()
    }
}

impl<T: Default> Default for Cell<T> {
    #[track_caller]
    fn default() -> Cell<T> {
        Cell::new(T::default())
    }
}

impl<T: Copy> Clone for Cell<T> {
    #[track_caller]
    fn clone(&self) -> Cell<T> {
        Cell::new(self.get())
    }
}

impl<T> From<T> for Cell<T> {
    #[track_caller]
    fn from(v: T) -> Cell<T> {
        Cell::new(v)
    }
}

impl<T: PartialEq + Copy> PartialEq for Cell<T> {
    fn eq(&self, other: &Cell<T>) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq + Copy> Eq for Cell<T> {}

impl<T: PartialOrd + Copy> PartialOrd for Cell<T> {
    fn partial_cmp(&self, other: &Cell<T>) -> Option<std::cmp::Ordering> {
        self.get().partial_cmp(&other.get())
    }
}

impl<T: Ord + Copy> Ord for Cell<T> {
    fn cmp(&self, other: &Cell<T>) -> std::cmp::Ordering {
        self.get().cmp(&other.get())
    }
}

impl<T> std::fmt::Debug for Cell<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cell({})", self.cell.loc)
    }
}
