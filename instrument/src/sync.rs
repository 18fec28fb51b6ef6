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

pub mod mpsc;
mod notify;

pub use notify::Notify;

use crate::raw_atomic::alloc;
use crate::rt;
use scopecheck_checker::event::{Await, Loc, LocKind, Op, OpResult, Order, RmwOp, Scope, SourceLoc, Value, ValueType};
use std::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

pub use crate::arc::Arc;
pub use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

// ---------------------------------------------------------------------------
// Raw operations on the locations the primitives are built on.

/// A load of `loc`.
pub(crate) fn load(loc: Loc, order: Order, src: SourceLoc) -> Value {
    load_in(loc, order, Scope::System, src)
}

/// A load of `loc` at `scope` (the GPU primitives' words).
pub(crate) fn load_in(loc: Loc, order: Order, scope: Scope, src: SourceLoc) -> Value {
    match rt::op_at(Op::Load { loc, order, scope }, src) {
        OpResult::Value(v) => v,
        r => unreachable!("load answered {r:?}"),
    }
}

/// A store to `loc`.
pub(crate) fn store(loc: Loc, value: Value, order: Order, src: SourceLoc) {
    rt::op_at(
        Op::Store {
            loc,
            order,
            value,
            scope: Scope::System,
        },
        src,
    );
}

/// A read-modify-write of `loc` that always writes; returns the old value.
fn fetch(loc: Loc, op: RmwOp, order: Order, src: SourceLoc) -> Value {
    fetch_in(loc, op, order, Scope::System, src)
}

/// [`fetch`] at `scope`.
pub(crate) fn fetch_in(loc: Loc, op: RmwOp, order: Order, scope: Scope, src: SourceLoc) -> Value {
    match rt::op_at(
        Op::Rmw {
            loc,
            op,
            ty: ValueType::U64,
            success: order,
            failure: order,
            await_: None,
            scope,
        },
        src,
    ) {
        OpResult::Value(v) => v,
        r => unreachable!("read-modify-write answered {r:?}"),
    }
}

/// A strong compare-exchange of `loc` from `expected` to `new`: `Ok(old)` if it
/// exchanged, `Err(current)` if not. With `await_`, the thread does not take
/// the step until it can read a value the condition admits (a blocking lock).
pub(crate) fn cas(
    loc: Loc,
    expected: Value,
    new: Value,
    success: Order,
    failure: Order,
    await_: Option<Await>,
    src: SourceLoc,
) -> Result<Value, Value> {
    cas_in(loc, expected, new, success, failure, await_, Scope::System, src)
}

/// [`cas`] at `scope`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn cas_in(
    loc: Loc,
    expected: Value,
    new: Value,
    success: Order,
    failure: Order,
    await_: Option<Await>,
    scope: Scope,
    src: SourceLoc,
) -> Result<Value, Value> {
    match rt::op_at(
        Op::Rmw {
            loc,
            op: RmwOp::Cas {
                expected,
                new,
                weak: false,
            },
            ty: ValueType::U64,
            success,
            failure,
            await_,
            scope,
        },
        src,
    ) {
        OpResult::Cas(v, true) => Ok(v),
        OpResult::Cas(v, false) => Err(v),
        r => unreachable!("compare-exchange answered {r:?}"),
    }
}

/// Value of an unlocked lock word.
const UNLOCKED: Value = 0;
/// Value of a locked mutex word.
const LOCKED: Value = 1;

/// Takes the lock word `loc` from `UNLOCKED` to `locked` in one operation:
/// the checker lets the thread take the step only once it can read an unlock.
fn acquire_word(loc: Loc, locked: Value, src: SourceLoc) {
    let _ = cas(
        loc,
        UNLOCKED,
        locked,
        Order::Acquire,
        Order::Acquire,
        Some(Await::ValueEq(UNLOCKED)),
        src,
    );
}

/// Tries once to take the lock word `loc` from `UNLOCKED` to `locked`.
fn try_acquire_word(loc: Loc, locked: Value, src: SourceLoc) -> bool {
    cas(loc, UNLOCKED, locked, Order::Acquire, Order::Acquire, None, src).is_ok()
}

/// Releases the lock word `loc`.
fn release_word(loc: Loc, src: SourceLoc) {
    store(loc, UNLOCKED, Order::Release, src);
}

/// What std's `Debug` impls print for a lock that cannot be read right now.
struct LockedPlaceholder;

impl fmt::Debug for LockedPlaceholder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<locked>")
    }
}

// ---------------------------------------------------------------------------
// Mutex

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
/// Poisoning is not modelled (see the [module documentation](self)).
pub struct Mutex<T: ?Sized> {
    word: Loc,
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
    lock: &'a Mutex<T>,
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

// ---------------------------------------------------------------------------
// RwLock

/// Value of the state word of a write-locked [`RwLock`] (any other non-zero
/// value is the number of readers).
const WRITER: Value = u64::MAX;

/// Shim for `std::sync::RwLock`: many readers or one writer.
///
/// [`write`](RwLock::write) is a single waiting compare-exchange, like
/// [`Mutex::lock`]. [`read`](RwLock::read) reads the number of readers and
/// increments it with a compare-exchange, waiting (with the spin-loop hint)
/// while a writer holds the lock. Neither side has priority: a writer can
/// wait for as long as readers keep the lock, as std allows.
///
/// Poisoning is not modelled (see the [module documentation](self)).
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
    /// nor a reader (a single operation, like [`Mutex::lock`]).
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

// ---------------------------------------------------------------------------
// Condvar

/// Shim for `std::sync::Condvar`: waits for a notification while releasing
/// a [`Mutex`].
///
/// A notification increments a sequence number (a release
/// read-modify-write). [`wait`](Condvar::wait) reads the sequence number,
/// unlocks the mutex, waits (with the spin-loop hint) until it reads a newer
/// sequence number and locks the mutex again. So a notification sent after
/// the waiter unlocked is never lost, and a wait that no notification can
/// end is reported as a deadlock.
///
/// Differences from std:
/// * [`notify_one`](Condvar::notify_one) may wake every waiter. For each
///   waiter but one that is a spurious wake-up, which std allows, so code
///   that waits in a loop on its condition (as it must) is unaffected.
/// * Wake-ups without any notification are not explored, although std
///   allows them: code that treats every return from `wait` as proof that
///   its condition holds can pass here and still be wrong.
/// * `wait_timeout`, `wait_timeout_ms` and `wait_timeout_while` are left
///   out: the checker has no clock, and their result type,
///   `std::sync::WaitTimeoutResult`, cannot be built outside std.
pub struct Condvar {
    /// The sequence number: starts at 1, and each notification adds 1.
    seq: Loc,
    born: rt::Born,
}

impl Condvar {
    /// Creates a condition variable (inside a model only).
    #[track_caller]
    pub fn new() -> Condvar {
        Condvar {
            seq: alloc(1, LocKind::Atomic),
            born: rt::Born::here(),
        }
    }

    /// Unlocks the guard's mutex, waits for a notification and locks the
    /// mutex again. Spurious wake-ups are possible (see the type's
    /// documentation); call it in a loop that checks the condition, or use
    /// [`wait_while`](Condvar::wait_while).
    #[track_caller]
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        self.born.check("a Condvar");
        let src = SourceLoc::caller();
        let word = guard.lock.word;
        let seen = load(self.seq, Order::Relaxed, src);
        release_word(word, src);
        // The wait ends only on reading a newer sequence number: the
        // execution graph then records which notification ended it. (A wake-up
        // from the hint alone is not in the graph, so a backward revisit could
        // keep the waiter's later steps while removing the notification.)
        // A hint waits until something the thread read since its previous
        // hint has a newer write. The first one usually returns at once (the
        // thread read the mutex word when it locked, and its unlock is newer);
        // the later ones wait for a new notification.
        loop {
            rt::spin_on("a condvar");
            let now = load(self.seq, Order::Relaxed, src);
            if now != seen {
                break;
            }
        }
        acquire_word(word, LOCKED, src);
        Ok(guard)
    }

    /// Waits while `condition` holds for the data (checked with the mutex
    /// held, before each wait), then returns the guard.
    #[track_caller]
    pub fn wait_while<'a, T, F>(&self, mut guard: MutexGuard<'a, T>, mut condition: F) -> LockResult<MutexGuard<'a, T>>
    where
        F: FnMut(&mut T) -> bool,
    {
        // `wait` is `#[track_caller]` too, so it reports this method's caller.
        while condition(&mut *guard) {
            guard = self.wait(guard)?;
        }
        Ok(guard)
    }

    /// Wakes a thread waiting on this condition variable (possibly more than
    /// one: see the type's documentation).
    #[track_caller]
    pub fn notify_one(&self) {
        self.born.check("a Condvar");
        self.notify(SourceLoc::caller());
    }

    /// Wakes every thread waiting on this condition variable.
    #[track_caller]
    pub fn notify_all(&self) {
        self.born.check("a Condvar");
        self.notify(SourceLoc::caller());
    }

    fn notify(&self, src: SourceLoc) {
        let old = fetch(self.seq, RmwOp::Add(1), Order::Release, src);
        if old == Value::MAX {
            // Skip 0 (after 2^64 - 1 notifications, so in theory only).
            fetch(self.seq, RmwOp::Add(1), Order::Release, src);
        }
    }
}

impl Default for Condvar {
    /// A new condition variable (inside a model only).
    #[track_caller]
    fn default() -> Condvar {
        Condvar::new()
    }
}

impl fmt::Debug for Condvar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Condvar").finish_non_exhaustive()
    }
}

// ---------------------------------------------------------------------------
// Barrier

/// Shim for `std::sync::Barrier`: lets `n` threads wait for each other.
///
/// Each [`wait`](Barrier::wait) takes a ticket from an arrival counter (an
/// acq-rel read-modify-write; the counter is never reset, so tickets `k * n`
/// to `k * n + n - 1` make up the `k`-th use of the barrier). The last ticket
/// of a use is its leader: it publishes that the use is complete with a
/// release read-modify-write (a maximum, so leaders of successive uses can
/// publish in any order); the others wait (with the spin-loop hint) until
/// they acquire it. So everything any thread did before a use of the barrier
/// happens before everything every thread does after it. As in std, a
/// thread in excess of `n` waits for the next use.
pub struct Barrier {
    n: Value,
    tickets: Loc,
    /// 1 + the number of completed uses (it starts at 1).
    completed: Loc,
    born: rt::Born,
}

/// Shim for `std::sync::BarrierWaitResult`: what [`Barrier::wait`] returns.
pub struct BarrierWaitResult {
    leader: bool,
}

impl BarrierWaitResult {
    /// Whether this thread was the leader: exactly one thread per use of the
    /// barrier (the last to arrive) gets `true`.
    pub fn is_leader(&self) -> bool {
        self.leader
    }
}

impl fmt::Debug for BarrierWaitResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BarrierWaitResult")
            .field("is_leader", &self.leader)
            .finish()
    }
}

impl Barrier {
    /// Creates a barrier for `n` threads (inside a model only). As in std,
    /// `n` of 0 behaves like 1: every `wait` returns at once as the leader.
    #[track_caller]
    pub fn new(n: usize) -> Barrier {
        Barrier {
            n: n.max(1) as Value,
            tickets: alloc(0, LocKind::Atomic),
            completed: alloc(1, LocKind::Atomic),
            born: rt::Born::here(),
        }
    }

    /// Waits until `n` threads have called `wait` (this one included).
    #[track_caller]
    pub fn wait(&self) -> BarrierWaitResult {
        self.born.check("a Barrier");
        let src = SourceLoc::caller();
        let ticket = fetch(self.tickets, RmwOp::Add(1), Order::AcqRel, src);
        let round = ticket / self.n;
        // Once this use is complete, `completed` holds at least this.
        let done = round + 2;
        if ticket % self.n == self.n - 1 {
            fetch(self.completed, RmwOp::Max(done), Order::Release, src);
            return BarrierWaitResult { leader: true };
        }
        // The ticket was a write, so this hint does not wait: it only clears
        // the set of locations the thread is known to have read, so that
        // below only `completed` can wake it.
        rt::spin_on("a barrier");
        loop {
            let now = load(self.completed, Order::Acquire, src);
            if now >= done {
                return BarrierWaitResult { leader: false };
            }
            rt::spin_on("a barrier");
        }
    }
}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Barrier").finish_non_exhaustive()
    }
}

// ---------------------------------------------------------------------------
// Once

/// State of a [`Once`] whose closure has not started.
const INCOMPLETE: Value = 0;
/// State of a [`Once`] whose closure runs.
const RUNNING: Value = 1;
/// State of a [`Once`] whose closure has returned.
const COMPLETE: Value = 2;

/// Shim for `std::sync::Once`: runs a closure once, whoever calls first.
///
/// The first caller takes the state from incomplete to running with a
/// compare-exchange, runs the closure and publishes completion with a
/// release store; other callers wait (with the spin-loop hint) until they
/// acquire it, so the closure's effects happen before every caller returns.
///
/// Poisoning is not modelled: a panic in the closure fails the execution
/// (see the [module documentation](self)), so `call_once_force` and
/// `OnceState` are left out. A closure that calls `call_once` on its own
/// `Once` waits for itself: the checker reports a deadlock.
pub struct Once {
    state: Loc,
    born: rt::Born,
}

impl Once {
    /// Creates a `Once` whose closure has not run (inside a model only).
    #[track_caller]
    pub fn new() -> Once {
        Once {
            state: alloc(INCOMPLETE, LocKind::Atomic),
            born: rt::Born::here(),
        }
    }

    /// Runs `f` if no call has run its closure yet; otherwise waits until that
    /// closure has returned. Either way, the closure's effects happen before
    /// this returns.
    #[track_caller]
    pub fn call_once<F: FnOnce()>(&self, f: F) {
        self.born.check("a Once");
        let src = SourceLoc::caller();
        let mut state = load(self.state, Order::Acquire, src);
        loop {
            match state {
                COMPLETE => return,
                INCOMPLETE => {
                    match cas(
                        self.state,
                        INCOMPLETE,
                        RUNNING,
                        Order::Acquire,
                        Order::Acquire,
                        None,
                        src,
                    ) {
                        Ok(_) => {
                            f();
                            store(self.state, COMPLETE, Order::Release, src);
                            return;
                        }
                        Err(now) => state = now,
                    }
                }
                _ => {
                    rt::spin_on("a Once");
                    state = load(self.state, Order::Acquire, src);
                }
            }
        }
    }

    /// Whether a closure has completed (an acquire load: if `true`, its
    /// effects are visible).
    #[track_caller]
    pub fn is_completed(&self) -> bool {
        self.born.check("a Once");
        load(self.state, Order::Acquire, SourceLoc::caller()) == COMPLETE
    }
}

impl Default for Once {
    /// A new `Once` (inside a model only).
    #[track_caller]
    fn default() -> Once {
        Once::new()
    }
}

impl fmt::Debug for Once {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Once").finish_non_exhaustive()
    }
}
