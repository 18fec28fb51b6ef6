//! Threads with std's API (and loom's), run as coroutines under the checker.
//!
//! Besides std's `spawn`, `scope`, `current` and `yield_now`, this has what
//! loom's `thread` module has: [`Builder`], [`park`](fn@park) and [`Thread::unpark`]
//! ([`park` module](mod@park) documents how they are modelled), and
//! [`LocalKey`] for the crate's `thread_local!` macro.

mod local;
pub mod park;
pub(crate) use crate::rt::thread_registry as registry;

pub use local::{AccessError, LocalKey};
pub use park::park;

use crate::rt;
use scopecheck_checker::event::{Loc, Op, Placement, SourceLoc, ThreadId as Tid};
use std::cell::RefCell;
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::{fmt, io};

#[doc(no_inline)]
pub use std::thread::panicking;

/// Identifies a model thread (0 is the thread running the model's closure).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct ThreadId(pub u32);

/// A handle to a model thread.
#[derive(Clone)]
pub struct Thread {
    id: Tid,
    name: Option<Arc<str>>,
}

impl fmt::Debug for Thread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Thread")
            .field("id", &self.id())
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

impl Thread {
    /// The thread's id.
    pub fn id(&self) -> ThreadId {
        ThreadId(self.id)
    }
    /// The thread's name: the one given to [`Builder::name`], else none (the
    /// main thread, the one running the model's closure, has none either,
    /// as in loom).
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
    /// Makes the thread's park token available (see the [`park`](mod@park) module): a
    /// release store, so what the caller did before happens before what the
    /// thread does after the [`park`](fn@park) that consumes it.
    #[track_caller]
    pub fn unpark(&self) {
        park::unpark(Loc::park_token(self.id), SourceLoc::caller());
    }
}

/// The thread running the caller.
#[track_caller]
pub fn current() -> Thread {
    let id = rt::current();
    let name = registry::with_thread(id, |info| info.name.clone());
    Thread { id, name }
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

/// An owned permission to join a model thread. Like loom's (and std's), it
/// is `Send` and `Sync` when the result type is `Send`.
pub struct JoinHandle<T> {
    thread: Thread,
    result: Arc<Mutex<Option<T>>>,
    born: rt::Born,
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("thread", &self.thread)
            .finish_non_exhaustive()
    }
}

/// Spawns a model thread. As in loom, neither the closure nor its result
/// needs to be `Send`: every model thread runs on the caller's OS thread.
#[track_caller]
pub fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + 'static,
    T: 'static,
{
    spawn_named(f, None, Placement::HOST, SourceLoc::caller())
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
    spawn_named(f, None, placement, SourceLoc::caller())
}

#[track_caller]
fn spawn_named<F, T>(f: F, name: Option<Arc<str>>, placement: Placement, src: SourceLoc) -> JoinHandle<T>
where
    F: FnOnce() -> T + 'static,
    T: 'static,
{
    let result: Arc<Mutex<Option<T>>> = Arc::new(Mutex::new(None));
    let r2 = result.clone();
    let body = Box::new(move || {
        let v = f();
        // (A poisoned slot is impossible: nothing panics while it is held.)
        *r2.lock().unwrap_or_else(|e| e.into_inner()) = Some(v);
    });
    let id = rt::spawn_at(body, placement, src);
    // Set before the child runs: it starts only once this thread suspends.
    registry::with_thread(id, |info| info.name = name.clone());
    JoinHandle {
        thread: Thread { id, name },
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
        match self.result.lock().unwrap_or_else(|e| e.into_inner()).take() {
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
        self.result.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }
}

/// Configures a thread before it is spawned, as `std::thread::Builder`
/// (and loom's).
#[derive(Debug)]
pub struct Builder {
    name: Option<String>,
    stack_size: Option<usize>,
}

impl Builder {
    /// A builder with no name and the run's stack size.
    #[allow(clippy::new_without_default)] // std's Builder has no Default either
    pub fn new() -> Builder {
        Builder {
            name: None,
            stack_size: None,
        }
    }

    /// Names the thread: [`Thread::name`] answers it.
    pub fn name(mut self, name: String) -> Builder {
        self.name = Some(name);
        self
    }

    /// Asks for a stack of `size` bytes. Every model thread of a run gets
    /// the run's stack size (`Builder::stack_size` of the model, 2 MiB by
    /// default), so this is recorded and not otherwise used; a thread that
    /// needs more overflows, which is reported with the setting to raise.
    pub fn stack_size(mut self, size: usize) -> Builder {
        self.stack_size = Some(size);
        self
    }

    /// Spawns the thread (never an error under the checker). Like loom's
    /// `Builder::spawn`, it asks for `Send` as std does.
    #[track_caller]
    pub fn spawn<F, T>(self, f: F) -> io::Result<JoinHandle<T>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let _ = self.stack_size;
        Ok(spawn_named(
            f,
            self.name.map(Arc::from),
            Placement::HOST,
            SourceLoc::caller(),
        ))
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
            thread: Thread { id, name: None },
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
