//! The `std::sync::Mutex` shim ([`Mutex`], [`MutexGuard`]).

use super::raw::{acquire_word, release_word, try_acquire_word, LockedPlaceholder, LOCKED, UNLOCKED};
use crate::raw_atomic::alloc;
use crate::rt;
use scopecheck_checker::event::{Loc, LocKind, SourceLoc};
use std::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::{LockResult, TryLockError, TryLockResult};

/// Shim for `std::sync::Mutex`: a mutual-exclusion lock.
///
/// [`lock`](Mutex::lock) is a single operation for the checker (a
/// compare-exchange of the lock word that waits until it can read an
/// unlock), so a thread that waits for the lock adds no events while it
/// waits, and lock-order inversions or forgotten guards are reported as
/// deadlocks. Unlocking (dropping the guard) is a release store; locking
/// is an acquire, so whatever a thread did before unlocking happens before
/// what the next owner does after locking.
///
/// Poisoning is not modelled (see the [module documentation](super)).
pub struct Mutex<T: ?Sized> {
    pub(super) word: Loc,
    born: rt::Born,
    data: UnsafeCell<T>,
}

// SAFETY: as for std's `Mutex`: the lock hands the data from thread to
// thread, so it only needs to be `Send`; all model threads run on the calling
// OS thread, one at a time.
unsafe impl<T: ?Sized + Send> Send for Mutex<T> {}
// SAFETY: as above; only the guard holder reaches the data.
unsafe impl<T: ?Sized + Send> Sync for Mutex<T> {}

/// Shim for `std::sync::MutexGuard`: the lock is held until the guard is
/// dropped. Dereferences to the data.
pub struct MutexGuard<'a, T: ?Sized + 'a> {
    pub(super) lock: &'a Mutex<T>,
    /// Where the lock was taken; the unlock is reported there.
    src: SourceLoc,
    /// Like std's guard, not `Send` (the `Sync` impl below gives `Sync` back).
    _not_send: PhantomData<*const ()>,
}

// SAFETY: as std's `MutexGuard`: sharing the guard shares `&T`.
unsafe impl<T: ?Sized + Sync> Sync for MutexGuard<'_, T> {}

impl<T> Mutex<T> {
    /// Creates an unlocked mutex holding `t` (inside a model only).
    #[track_caller]
    pub fn new(t: T) -> Mutex<T> {
        Mutex {
            word: alloc(UNLOCKED, LocKind::Mutex),
            born: rt::Born::here(),
            data: UnsafeCell::new(t),
        }
    }

    /// Consumes the mutex, returning the data (never poisoned).
    pub fn into_inner(self) -> LockResult<T> {
        Ok(self.data.into_inner())
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Acquires the mutex, waiting until it is free. Locking a mutex the
    /// thread already holds is reported as a deadlock.
    #[track_caller]
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        self.born.check("a Mutex");
        let src = SourceLoc::caller();
        acquire_word(self.word, LOCKED, src);
        Ok(self.guard(src))
    }

    /// Attempts to acquire the mutex without waiting: explored both ways when
    /// another thread may hold it. Fails with [`TryLockError::WouldBlock`].
    #[track_caller]
    pub fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
        self.born.check("a Mutex");
        let src = SourceLoc::caller();
        if try_acquire_word(self.word, LOCKED, src) {
            Ok(self.guard(src))
        } else {
            Err(TryLockError::WouldBlock)
        }
    }

    fn guard(&self, src: SourceLoc) -> MutexGuard<'_, T> {
        MutexGuard {
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

impl<T: Default> Default for Mutex<T> {
    /// A mutex holding `T::default()` (inside a model only).
    #[track_caller]
    fn default() -> Mutex<T> {
        Mutex::new(T::default())
    }
}

impl<T> From<T> for Mutex<T> {
    /// A mutex holding `t` (inside a model only).
    #[track_caller]
    fn from(t: T) -> Mutex<T> {
        Mutex::new(t)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    /// Like std, shows the data if `try_lock` succeeds. Inside a model that
    /// attempt is an operation of the execution, like any other `try_lock`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Mutex");
        if rt::in_model() {
            match self.try_lock() {
                Ok(guard) => d.field("data", &&*guard),
                Err(_) => d.field("data", &LockedPlaceholder),
            };
        }
        d.field("poisoned", &false);
        d.finish_non_exhaustive()
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock, so no other guard exists.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock, so no other guard exists.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        release_word(self.lock.word, self.src);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}
