//! The `std::sync::RwLock` shim ([`RwLock`] and its guards).

use super::raw::{acquire_word, cas, fetch, load, release_word, try_acquire_word, LockedPlaceholder, UNLOCKED};
use crate::raw_atomic::alloc;
use crate::rt;
use scopecheck_checker::event::{Loc, LocKind, Order, RmwOp, SourceLoc, Value};
use std::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::{LockResult, TryLockError, TryLockResult};

/// Value of the state word of a write-locked [`RwLock`] (any other non-zero
/// value is the number of readers).
const WRITER: Value = u64::MAX;

/// Shim for `std::sync::RwLock`: many readers or one writer.
///
/// [`write`](RwLock::write) is a single waiting compare-exchange, like
/// [`Mutex::lock`](super::Mutex::lock). [`read`](RwLock::read) reads the number of readers and
/// increments it with a compare-exchange, waiting (with the spin-loop hint)
/// while a writer holds the lock. Neither side has priority: a writer can
/// wait for as long as readers keep the lock, as std allows.
///
/// Poisoning is not modelled (see the [module documentation](super)).
pub struct RwLock<T: ?Sized> {
    word: Loc,
    born: rt::Born,
    data: UnsafeCell<T>,
}

// SAFETY: as for std's `RwLock`: the lock hands the data from thread to thread.
unsafe impl<T: ?Sized + Send> Send for RwLock<T> {}
// SAFETY: as for std's `RwLock`: readers share `&T` across threads, so `T`
// must also be `Sync`.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLock<T> {}

/// Shim for `std::sync::RwLockReadGuard`: shared access until dropped.
pub struct RwLockReadGuard<'a, T: ?Sized + 'a> {
    lock: &'a RwLock<T>,
    src: SourceLoc,
    _not_send: PhantomData<*const ()>,
}

// SAFETY: as std's `RwLockReadGuard`: sharing the guard shares `&T`.
unsafe impl<T: ?Sized + Sync> Sync for RwLockReadGuard<'_, T> {}

/// Shim for `std::sync::RwLockWriteGuard`: exclusive access until dropped.
pub struct RwLockWriteGuard<'a, T: ?Sized + 'a> {
    lock: &'a RwLock<T>,
    src: SourceLoc,
    _not_send: PhantomData<*const ()>,
}

// SAFETY: as std's `RwLockWriteGuard`: sharing the guard shares `&T`.
unsafe impl<T: ?Sized + Sync> Sync for RwLockWriteGuard<'_, T> {}

impl<T> RwLock<T> {
    /// Creates an unlocked lock holding `t` (inside a model only).
    #[track_caller]
    pub fn new(t: T) -> RwLock<T> {
        RwLock {
            word: alloc(UNLOCKED, LocKind::RwLock),
            born: rt::Born::here(),
            data: UnsafeCell::new(t),
        }
    }

    /// Consumes the lock, returning the data (never poisoned).
    pub fn into_inner(self) -> LockResult<T> {
        Ok(self.data.into_inner())
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Locks for shared reading, waiting while a writer holds the lock.
    #[track_caller]
    pub fn read(&self) -> LockResult<RwLockReadGuard<'_, T>> {
        self.born.check("an RwLock");
        let src = SourceLoc::caller();
        let mut seen = load(self.word, Order::Acquire, src);
        loop {
            if seen == WRITER {
                // Wait until the state word changes, then look again.
                rt::spin_on("a read lock of an RwLock");
                seen = load(self.word, Order::Acquire, src);
                continue;
            }
            match cas(self.word, seen, seen + 1, Order::Acquire, Order::Acquire, None, src) {
                Ok(_) => return Ok(self.read_guard(src)),
                // Another thread changed the word since we read it: that is
                // progress, so try again with what the exchange read.
                Err(now) => seen = now,
            }
        }
    }

    /// Attempts to lock for reading without waiting; fails with
    /// [`TryLockError::WouldBlock`] only when a writer holds the lock.
    #[track_caller]
    pub fn try_read(&self) -> TryLockResult<RwLockReadGuard<'_, T>> {
        self.born.check("an RwLock");
        let src = SourceLoc::caller();
        let mut seen = load(self.word, Order::Acquire, src);
        loop {
            if seen == WRITER {
                return Err(TryLockError::WouldBlock);
            }
            match cas(self.word, seen, seen + 1, Order::Acquire, Order::Acquire, None, src) {
                Ok(_) => return Ok(self.read_guard(src)),
                Err(now) => seen = now,
            }
        }
    }

    /// Locks for exclusive writing, waiting until there is neither a writer
    /// nor a reader (a single operation, like [`Mutex::lock`](super::Mutex::lock)).
    #[track_caller]
    pub fn write(&self) -> LockResult<RwLockWriteGuard<'_, T>> {
        self.born.check("an RwLock");
        let src = SourceLoc::caller();
        acquire_word(self.word, WRITER, src);
        Ok(self.write_guard(src))
    }

    /// Attempts to lock for writing without waiting; fails with
    /// [`TryLockError::WouldBlock`] when a reader or a writer holds the lock.
    #[track_caller]
    pub fn try_write(&self) -> TryLockResult<RwLockWriteGuard<'_, T>> {
        self.born.check("an RwLock");
        let src = SourceLoc::caller();
        if try_acquire_word(self.word, WRITER, src) {
            Ok(self.write_guard(src))
        } else {
            Err(TryLockError::WouldBlock)
        }
    }

    fn read_guard(&self, src: SourceLoc) -> RwLockReadGuard<'_, T> {
        RwLockReadGuard {
            lock: self,
            src,
            _not_send: PhantomData,
        }
    }

    fn write_guard(&self, src: SourceLoc) -> RwLockWriteGuard<'_, T> {
        RwLockWriteGuard {
            lock: self,
            src,
            _not_send: PhantomData,
        }
    }

    /// Always `false`: poisoning is not modelled.
    pub fn is_poisoned(&self) -> bool {
        false
    }

    /// Does nothing: poisoning is not modelled.
    pub fn clear_poison(&self) {}

    /// Mutable access to the data through an exclusive borrow (no locking needed).
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        Ok(self.data.get_mut())
    }
}

impl<T: Default> Default for RwLock<T> {
    /// A lock holding `T::default()` (inside a model only).
    #[track_caller]
    fn default() -> RwLock<T> {
        RwLock::new(T::default())
    }
}

impl<T> From<T> for RwLock<T> {
    /// A lock holding `t` (inside a model only).
    #[track_caller]
    fn from(t: T) -> RwLock<T> {
        RwLock::new(t)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    /// Like std, shows the data if `try_read` succeeds. Inside a model that
    /// attempt is an operation of the execution, like any other `try_read`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("RwLock");
        if rt::in_model() {
            match self.try_read() {
                Ok(guard) => d.field("data", &&*guard),
                Err(_) => d.field("data", &LockedPlaceholder),
            };
        }
        d.field("poisoned", &false);
        d.finish_non_exhaustive()
    }
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds a read lock, so no writer exists.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        fetch(self.lock.word, RmwOp::Sub(1), Order::Release, self.src);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the write lock, so no other guard exists.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the write lock, so no other guard exists.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        release_word(self.lock.word, self.src);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}
