//! Locks and other `std::sync` types whose every operation goes through the
//! checker: [`Mutex`], [`RwLock`], [`Condvar`], [`Barrier`] and [`Once`].
//!
//! The types have std's names, signatures and semantics, so code moves over
//! by changing `use` lines. The differences:
//!
//! * **Poisoning is not modelled.** A panic in any model thread already fails
//!   the execution, so a lock is never seen poisoned: every [`LockResult`] is
//!   `Ok`, `is_poisoned` is always `false` and `clear_poison` does nothing.
//! * **Constructors are not `const`** and, like every shim object, must run
//!   inside the model's closure (each one allocates a location of the
//!   execution being explored).
//! * **Locking a lock the thread already holds** (which std leaves
//!   unspecified) makes the thread wait for itself: the checker reports a
//!   deadlock.
//! * **Unlocks are reported at the line that took the lock**: a guard is
//!   dropped by compiler-generated code that has no source line of its own.
//!
//! The data behind a lock is plain memory that the checker does not track:
//! the lock's acquire and release operations give the happens-before order,
//! and accesses to `scopecheck::cell::UnsafeCell`s guarded by a lock are
//! checked for data races against that order.

mod barrier;
mod condvar;
pub mod mpsc;
mod mutex;
mod notify;
mod once;
mod raw;
mod rwlock;

pub use barrier::{Barrier, BarrierWaitResult};
pub use condvar::{Condvar, WaitTimeoutResult};
pub use mutex::{Mutex, MutexGuard};
pub use notify::Notify;
pub use once::Once;
pub(crate) use raw::{cas, cas_in, fetch, fetch_in, load, load_in, store};
pub use rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};

pub use crate::arc::Arc;
pub use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};
