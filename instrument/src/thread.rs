//! Threads with std's API, run as coroutines under the checker.

use crate::rt;
use scopecheck_checker::event::{Op, Placement, SourceLoc, ThreadId as Tid};
use std::cell::RefCell;
use std::marker::PhantomData;
use std::rc::Rc;

/// Identifies a model thread (0 is the thread running the model's closure).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct ThreadId(pub u32);

/// A handle to a model thread.
#[derive(Clone, Debug)]
pub struct Thread {
    id: Tid,
}

impl Thread {
    /// The thread's id.
    pub fn id(&self) -> ThreadId {
        ThreadId(self.id)
    }
    /// The thread's name: "main" for thread 0, none for the others.
    pub fn name(&self) -> Option<&str> {
        (self.id == 0).then_some("main")
    }
    /// Unparking is not modelled; this is a no-op kept for API compatibility.
    pub fn unpark(&self) {}
}

/// The thread running the caller.
#[track_caller]
pub fn current() -> Thread {
    Thread { id: rt::current() }
}

/// Offers to let other threads run. Under the checker this is only a hint,
/// except in a loop that learns nothing: when the thread comes back to the
/// same `yield_now` having read the same values and written nothing, it
/// waits until something it read changes (as with `hint::spin_loop`), so
/// such a loop is explored, and a hang reported, without spinning forever.
/// A yield outside a loop never waits.
#[track_caller]
pub fn yield_now() {
    rt::yield_now();
}

type Slot<T> = Rc<RefCell<Option<T>>>;

/// An owned permission to join a model thread.
#[derive(Debug)]
pub struct JoinHandle<T> {
    thread: Thread,
    result: Slot<T>,
    born: rt::Born,
}

/// Spawns a model thread.
#[track_caller]
pub fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    spawn_at(Placement::HOST, f)
}

/// Spawns a model thread at a placement: `Placement::gpu(device, block,
/// warp, lane)` makes it a GPU thread whose scoped operations act on the
/// groups around it (under `src11`).
#[track_caller]
pub fn spawn_at<F, T>(placement: Placement, f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let result: Slot<T> = Rc::new(RefCell::new(None));
    let r2 = result.clone();
    let body = Box::new(move || {
        let v = f();
        *r2.borrow_mut() = Some(v);
    });
    let id = rt::spawn_at(body, placement, SourceLoc::caller());
    JoinHandle {
        thread: Thread { id },
        result,
        born: rt::Born::here(),
    }
}

fn join_thread(id: Tid, src: SourceLoc) {
    rt::op_at(Op::Join { target: id }, src);
}

impl<T> JoinHandle<T> {
    /// Waits for the thread to finish and returns its result. (A panic in any
    /// model thread fails the execution, so the result is always `Ok`.)
    #[track_caller]
    pub fn join(self) -> std::thread::Result<T> {
        self.born.check("a JoinHandle");
        join_thread(self.thread.id, SourceLoc::caller());
        match self.result.borrow_mut().take() {
            Some(v) => Ok(v),
            None => Err(Box::new("scopecheck: joined thread produced no result")),
        }
    }
    /// The thread.
    pub fn thread(&self) -> &Thread {
        &self.thread
    }
    /// Whether the thread has finished (reading this is not a synchronization).
    pub fn is_finished(&self) -> bool {
        self.result.borrow().is_some()
    }
}

/// A scope for threads that may borrow from the enclosing stack, as
/// `std::thread::scope`.
pub struct Scope<'scope, 'env: 'scope> {
    /// Threads spawned and not joined yet (a handle's `join` removes its own).
    pending: Rc<RefCell<Vec<Tid>>>,
    _marker: PhantomData<(&'scope mut &'scope (), &'env mut &'env ())>,
}

/// A handle to a scoped thread.
pub struct ScopedJoinHandle<'scope, T> {
    thread: Thread,
    result: Slot<T>,
    pending: Rc<RefCell<Vec<Tid>>>,
    _marker: PhantomData<&'scope ()>,
}

impl<'scope, 'env> Scope<'scope, 'env> {
    /// Spawns a scoped thread.
    #[track_caller]
    pub fn spawn<F, T>(&'scope self, f: F) -> ScopedJoinHandle<'scope, T>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        self.spawn_at(Placement::HOST, f)
    }

    /// Spawns a scoped thread at a GPU placement (device, block, warp,
    /// lane), which scoped operations and scoped models look at.
    #[track_caller]
    pub fn spawn_at<F, T>(&'scope self, placement: Placement, f: F) -> ScopedJoinHandle<'scope, T>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        let result: Slot<T> = Rc::new(RefCell::new(None));
        let r2 = result.clone();
        let body: Box<dyn FnOnce() + 'scope> = Box::new(move || {
            let v = f();
            *r2.borrow_mut() = Some(v);
        });
        // SAFETY: `scope` joins every thread it spawned before returning, so
        // the body never outlives what it borrows.
        let body: Box<dyn FnOnce() + 'static> = unsafe { std::mem::transmute(body) };
        let id = rt::spawn_at(body, placement, SourceLoc::caller());
        self.pending.borrow_mut().push(id);
        ScopedJoinHandle {
            thread: Thread { id },
            result,
            pending: self.pending.clone(),
            _marker: PhantomData,
        }
    }
}

impl<T> ScopedJoinHandle<'_, T> {
    /// Waits for the thread and returns its result.
    #[track_caller]
    pub fn join(self) -> std::thread::Result<T> {
        join_thread(self.thread.id, SourceLoc::caller());
        self.pending.borrow_mut().retain(|&t| t != self.thread.id);
        match self.result.borrow_mut().take() {
            Some(v) => Ok(v),
            None => Err(Box::new("scopecheck: joined thread produced no result")),
        }
    }
    /// The thread.
    pub fn thread(&self) -> &Thread {
        &self.thread
    }
    /// Whether the thread has finished.
    pub fn is_finished(&self) -> bool {
        self.result.borrow().is_some()
    }
}

/// Runs `f` with a scope; every thread spawned in it is joined before `scope` returns.
#[track_caller]
pub fn scope<'env, F, T>(f: F) -> T
where
    F: for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> T,
{
    let src = SourceLoc::caller();
    let s = Scope {
        pending: Rc::new(RefCell::new(Vec::new())),
        _marker: PhantomData,
    };
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&s)));
    // Join what the body did not join.
    let pending = std::mem::take(&mut *s.pending.borrow_mut());
    for id in pending {
        join_thread(id, src);
    }
    match r {
        Ok(v) => v,
        Err(p) => std::panic::resume_unwind(p),
    }
}
