//! loom's `future` module (with the `futures` feature): [`block_on`] and
//! [`AtomicWaker`], for checking code built on `std::task`.

use crate::raw_atomic::alloc;
use crate::rt;
use crate::sync::{cas, load, store};
use scopecheck_checker::event::{Await, Loc, LocKind, Order, SourceLoc};
use std::fmt;
use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

/// The flag a [`block_on`] waker sets.
struct WakeFlag {
    flag: Loc,
    born: rt::Born,
    /// The `block_on` call: wakes are reported there (a waker is called by
    /// code that has no line of its own to give).
    src: SourceLoc,
}

impl Wake for WakeFlag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        // A waker kept past its execution wakes nothing.
        if self.born.is_current() {
            store(self.flag, 1, Order::Release, self.src);
        }
    }
}

/// Runs `f` to completion on the calling model thread: polls it, and while
/// it is pending waits (with the spin-loop hint) until its waker is woken.
/// A wake is a release and the wait that sees it an acquire, so what the
/// waker's caller did before waking happens before the next poll. A future
/// that stays pending with nobody left to wake it is reported as a deadlock
/// at this call.
///
/// As in loom, the wait may also end once without a wake (a spurious
/// wake-up, which real executors produce and futures must tolerate): after
/// the first pending poll, the explorer tries both a re-poll at once and
/// the wait. One per call, so a future that is never woken still ends as a
/// deadlock rather than a poll loop.
#[track_caller]
pub fn block_on<F: Future>(f: F) -> F::Output {
    let src = SourceLoc::caller();
    let mut f = pin!(f);
    let flag = Arc::new(WakeFlag {
        flag: alloc(0, LocKind::Atomic),
        born: rt::Born::here(),
        src,
    });
    let waker = Waker::from(flag.clone());
    let mut cx = Context::from_waker(&waker);
    let mut spurious_left = true;
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        if std::mem::take(&mut spurious_left) && crate::choice::spurious_wake(src) {
            continue;
        }
        while cas(flag.flag, 1, 0, Order::Acquire, Order::Relaxed, None, src).is_err() {
            rt::spin_on("`block_on` (a pending future nobody wakes)");
        }
    }
}

/// A place for one task's [`Waker`], which wakers of the task may race to
/// fill and to take (loom's mock of the `AtomicWaker` of `futures` and
/// tokio).
///
/// A lock word guards the waker: [`register`](AtomicWaker::register) tries
/// it once and, when another thread holds it (it is taking the waker to wake
/// it), waits until that is done and wakes the new waker instead of keeping
/// it, as loom does;
/// [`take_waker`](AtomicWaker::take_waker) waits for it.
pub struct AtomicWaker {
    lock: Loc,
    born: rt::Born,
    waker: Mutex<Option<Waker>>,
}

impl AtomicWaker {
    /// An empty `AtomicWaker` (inside a model only).
    #[track_caller]
    pub fn new() -> AtomicWaker {
        AtomicWaker {
            lock: alloc(0, LocKind::Mutex),
            born: rt::Born::here(),
            waker: Mutex::new(None),
        }
    }

    /// Keeps `waker` to be woken by the next [`wake`](AtomicWaker::wake).
    #[track_caller]
    pub fn register(&self, waker: Waker) {
        self.born.check("an AtomicWaker");
        let src = SourceLoc::caller();
        if cas(self.lock, 0, 1, Order::Acquire, Order::Acquire, None, src).is_err() {
            // A waker is being taken to be woken: wake this one too, as
            // loom does, once that wake is over (loom yields here instead;
            // under the optimal explorer a yield does not make the thread
            // wait, and a task that polls again at once would race the
            // wake for ever). The wait reads the unlock relaxed: no
            // synchronization.
            while load(self.lock, Order::Relaxed, src) != 0 {
                rt::spin_on("an AtomicWaker being woken");
            }
            waker.wake();
            return;
        }
        *self.slot() = Some(waker);
        store(self.lock, 0, Order::Release, src);
    }

    /// Like [`register`](AtomicWaker::register), with a clone of `waker`.
    #[track_caller]
    pub fn register_by_ref(&self, waker: &Waker) {
        self.register(waker.clone());
    }

    /// Wakes the waker last registered, if any (and takes it out).
    #[track_caller]
    pub fn wake(&self) {
        if let Some(w) = self.take_waker() {
            w.wake();
        }
    }

    /// Takes the waker last registered, if any, to wake it later.
    #[track_caller]
    pub fn take_waker(&self) -> Option<Waker> {
        self.born.check("an AtomicWaker");
        let src = SourceLoc::caller();
        let _ = cas(
            self.lock,
            0,
            1,
            Order::Acquire,
            Order::Acquire,
            Some(Await::ValueEq(0)),
            src,
        );
        let w = self.slot().take();
        store(self.lock, 0, Order::Release, src);
        w
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Waker>> {
        // Never poisoned: nothing panics while it is held.
        self.waker.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Default for AtomicWaker {
    /// A new `AtomicWaker` (inside a model only).
    #[track_caller]
    fn default() -> AtomicWaker {
        AtomicWaker::new()
    }
}

impl fmt::Debug for AtomicWaker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicWaker").finish_non_exhaustive()
    }
}
