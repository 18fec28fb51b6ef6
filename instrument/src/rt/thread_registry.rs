//! What the runtime keeps per model thread for the loom-style thread API
//! (the runtime's: it ends a thread's values when the thread ends;
//! `thread` and `lazy_static` are its front ends):
//! names and `thread_local!` values, and the values of
//! `lazy_static!`s, all belonging to one execution.
//!
//! The state lives in an OS-thread-local and records the execution it
//! belongs to ([`rt::Born`]); the first use in a later execution starts it
//! afresh. What an earlier execution left behind (values of threads that
//! were abandoned when it ended) is forgotten, not dropped, exactly as the
//! runtime abandons those threads' frames (`rt::teardown`): running their
//! `Drop`s would run user code after the execution ended.
//!
//! Every value of the program is dropped with no borrow of this state held,
//! so a `Drop` may use thread locals, lazy statics and every shim object.

use crate::rt;
use scopecheck_checker::event::ThreadId as Tid;
use std::any::Any;
use std::cell::RefCell;
use std::sync::Arc;

/// One model thread's entry.
#[derive(Default)]
pub(crate) struct ThreadInfo {
    /// Its name (`thread::Builder::name`); the main thread has none, as in loom.
    pub(crate) name: Option<Arc<str>>,
    /// Its `thread_local!` values, keyed by the `LocalKey`'s address; `None`
    /// while the value is being destroyed (the thread is ending).
    pub(crate) locals: Vec<(usize, Option<Box<dyn Any>>)>,
    /// Its locals are being destroyed: a key without a value can no longer be
    /// initialised (std's `AccessError` after destruction).
    pub(crate) exiting: bool,
}

/// The state of one execution.
struct ExecState {
    born: rt::Born,
    threads: Vec<ThreadInfo>,
    /// `lazy_static!` values, keyed by the `Lazy`'s address, in the order
    /// they were made (dropped in reverse at the main thread's end).
    lazies: Vec<(usize, Box<dyn Any>)>,
    /// The main thread's code has returned: the program is shutting down.
    main_done: bool,
}

thread_local! {
    static STATE: RefCell<Option<ExecState>> = const { RefCell::new(None) };
}

/// Runs `f` on the current execution's state (started afresh in a new
/// execution). `f` must not run program code.
pub(crate) fn with<R>(f: impl FnOnce(&mut Vec<ThreadInfo>, &mut Vec<(usize, Box<dyn Any>)>) -> R) -> R {
    with_state(|st| f(&mut st.threads, &mut st.lazies))
}

/// Whether the main thread's code has returned in this execution.
pub(crate) fn main_done() -> bool {
    with_state(|st| st.main_done)
}

fn with_state<R>(f: impl FnOnce(&mut ExecState) -> R) -> R {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        if !s.as_ref().is_some_and(|st| st.born.is_current()) {
            if let Some(old) = s.take() {
                // Values of an execution that has ended: forgotten (see the
                // module documentation).
                std::mem::forget(old);
            }
            *s = Some(ExecState {
                born: rt::Born::here(),
                threads: Vec::new(),
                lazies: Vec::new(),
                main_done: false,
            });
        }
        f(s.as_mut().expect("just set"))
    })
}

/// Runs `f` on thread `t`'s entry (made empty if it has none yet).
pub(crate) fn with_thread<R>(t: Tid, f: impl FnOnce(&mut ThreadInfo) -> R) -> R {
    with(|threads, _| {
        let i = t as usize;
        if threads.len() <= i {
            threads.resize_with(i + 1, ThreadInfo::default);
        }
        f(&mut threads[i])
    })
}

/// Called by the runtime when thread `t`'s code has returned, before the
/// thread ends: drops its `thread_local!` values, and when it is the last
/// thread of the execution still running, the `lazy_static!` values (loom
/// drops them when the main thread returns, which would leave a thread that
/// runs on with dangling references; a use after the main thread returned
/// fails instead, as in loom: `lazy_static`). Each value is dropped outside every
/// borrow of the state, while the thread is still a model thread.
pub(crate) fn thread_exit(t: Tid) {
    drop_locals(t);
    if t == 0 {
        with_state(|st| st.main_done = true);
    }
    // (Asked only when there is a lazy static to drop: the question walks
    // every thread's status, on every thread's exit.)
    if !with(|_, lazies| lazies.is_empty()) && rt::others_finished() {
        // Taken all at once: a `Drop` that touches a lazy static again makes
        // a new one, which the loop below also drops.
        loop {
            let lazies = with(|_, lazies| std::mem::take(lazies));
            if lazies.is_empty() {
                break;
            }
            for (_, v) in lazies.into_iter().rev() {
                drop(v);
            }
        }
    }
}

fn drop_locals(t: Tid) {
    with_thread(t, |info| info.exiting = true);
    // One value at a time, most recently made first (std's order is
    // unspecified); its key reads as destroyed while it drops.
    loop {
        let next = with_thread(t, |info| {
            let i = info.locals.iter().rposition(|(_, v)| v.is_some())?;
            info.locals[i].1.take()
        });
        match next {
            Some(v) => drop(v),
            None => break,
        }
    }
}
