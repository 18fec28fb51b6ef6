//! The runtime: runs the model's threads as stackful coroutines on the
//! calling OS thread, one execution after another, and connects each shim
//! operation to the checker's [`Engine`].
//!
//! Shim code calls [`op`] (and [`spawn_at`], [`spin`], ...). An operation that
//! involves no choice is applied on the spot; a visible one suspends the
//! coroutine, and the scheduler loop in [`run`] asks the engine which thread
//! goes next.
//!
//! The loop over executions, the strategy factory, the parallel pool and
//! the merging of results are the checker's driver
//! ([`scopecheck_checker::driver`]); the runtime is the
//! [`Program`](scopecheck_checker::driver::Program) it drives, which runs
//! one execution.
//!
//! This file holds the per-execution state shim code reaches through
//! thread-locals (`Shared`, the current thread, the yielders) and the small
//! helpers around it; the rest is split by seam: `runner` (the entry points
//! and the runtime's side of a run), `coroutines` (coroutine plumbing, one
//! execution), `ops` (the operations shim code calls), `drfrlx_map` (the
//! DRFrlx rewrite), and the smaller `cells`, `epoch`, `leaks`, `overflow`,
//! `panic_hook`, `stacks`, `teardown`.

mod cells;
mod coroutines;
mod drfrlx_map;
mod epoch;
mod leaks;
mod ops;
mod overflow;
mod panic_hook;
pub(crate) mod records;
mod runner;
mod stacks;
mod teardown;
pub(crate) mod thread_registry;

pub use drfrlx_map::drfrlx_system;
pub use ops::{
    current_graph, discard, fail, observe, op, op_at, perform_at, position, register_kernel, set_memory_kind, spawn_at,
    spin, spin_on, tick, with_current_graph, wrong_answer, yield_now,
};
pub use runner::{check_not_nested, run, run_parallel, run_with};
pub use scopecheck_checker::driver::{validate_strategy, RunConfig, RunResult, StopCause, StrategyChoice};
pub use stacks::stacks_made;

// What the files of the runtime share with one another, named here once
// so that each takes them from `super`.
use coroutines::{run_one, Exit, ThreadCoroutine, Threads, Yield};
use drfrlx_map::needs_paired_fences;

use corosensei::Yielder;
use scopecheck_checker::engine::{Resume, Stop, ThreadStatus};
use scopecheck_checker::event::{SourceLoc, ThreadId};
use scopecheck_checker::Engine;
use std::cell::{Cell, RefCell};

pub use cells::{cell_begin, cell_end, CellAccessGuard};
pub use epoch::Born;
pub use leaks::{leak_alloc, leak_arc, leak_dealloc, leak_track, leak_untrack, AliveProbe};
pub use panic_hook::panic_message;

/// Per-execution shared state, reachable from shim code through a thread-local.
struct Shared {
    /// The engine, lent by the driver for the execution that runs (null
    /// between executions; see `runner::Lent`). Reached through
    /// [`Shared::engine`].
    engine: *mut Engine,
    /// The stop that ended the execution early.
    stop: Option<Stop>,
    /// Threads spawned since the scheduler last looked, with their bodies
    /// (the engine knows them as starting: nobody is scheduled before the
    /// runtime has run them to their first step).
    spawned: Vec<(ThreadId, Box<dyn FnOnce()>)>,
    /// What the execution allocated through the shim and has not freed.
    leaks: leaks::Leaks,
    /// Which execution of the run this is (tells a `Track` made in an
    /// earlier execution from one made in this one).
    execution: u64,
    /// The `UnsafeCell` accesses in progress (loom's access tracking).
    live_cells: cells::LiveCells,
    /// Threads this execution has had, the main thread included, and how
    /// many it may have (`RunConfig::max_threads`).
    threads_made: usize,
    max_threads: Option<usize>,
    /// Whether the run maps a DRFrlx program onto a DRFrlx system
    /// (`RunConfig::drfrlx_system`).
    drfrlx_system: bool,
}

impl Shared {
    /// The engine of the execution that runs.
    #[inline]
    fn engine(&mut self) -> &mut Engine {
        // SAFETY: `engine` is either null or points to the engine the
        // driver lent for the execution that runs (`runner::Lent` sets it
        // from a `&mut Engine` the driver does not use until `execute`
        // returns, and nulls it when `execute` returns or unwinds). All
        // shim code runs on this OS thread inside that call, and every
        // reference made here lives no longer than the `&mut self` borrow
        // of the thread-local state, which is exclusive.
        match unsafe { self.engine.as_mut() } {
            Some(engine) => engine,
            None => engine_not_lent(),
        }
    }
}

#[cold]
#[inline(never)]
fn engine_not_lent() -> ! {
    panic!(
        "scopecheck: the shim was used between two executions (from a callback of the run, say); shim objects \
         can only be used by the program's threads while an execution runs"
    )
}

thread_local! {
    static SHARED: RefCell<Option<Shared>> = const { RefCell::new(None) };
    static CURRENT: Cell<Option<ThreadId>> = const { Cell::new(None) };
    static YIELDERS: RefCell<Vec<*const Yielder<Resume, Yield>>> = const { RefCell::new(Vec::new()) };
}

/// Whether every thread of the execution but the calling one has finished
/// (and none is spawned and waiting to start).
pub(crate) fn others_finished() -> bool {
    let Some(me) = CURRENT.with(|c| c.get()) else {
        return false;
    };
    with_shared(|s| s.spawned.is_empty() && s.engine().others_finished(me))
}

/// Whether the calling code runs inside `scopecheck::model`.
pub fn in_model() -> bool {
    CURRENT.with(|c| c.get().is_some())
}

/// Whether the model keeps the current execution, asked by a program
/// about to finish it (all its threads done): under `c11`, its
/// complete-graph axioms hold and any promised read (a cycle in po ∪ rf)
/// was kept. Outside a model: true.
pub fn complete_execution_kept() -> bool {
    if CURRENT.with(|c| c.get()).is_none() {
        return true;
    }
    with_shared(|s| s.engine().complete_execution_kept())
}

/// Drops the current execution, which the calling program is about to
/// finish (the litmus front end, for herd's `filter`): it ends as blocked,
/// recording no outcome and no race ([`Engine::drop_execution`]). Outside a
/// model: nothing.
///
/// [`Engine::drop_execution`]: scopecheck_checker::engine::Engine::drop_execution
pub fn drop_execution() {
    if CURRENT.with(|c| c.get()).is_none() {
        return;
    }
    with_shared(|s| s.engine().drop_execution());
}

/// Whether the current execution counts in this run: always, except in a
/// sharded run for the few executions every shard walks through but only
/// shard 0 counts ([`StrategyChoice::Shard`]), and a po ∪ rf-cyclic
/// execution under `c11` counted before (asked after
/// [`complete_execution_kept`]). A program that tallies its own executions
/// (outcome histograms, say) should tally only these. Outside a model: true.
pub fn execution_counts() -> bool {
    if CURRENT.with(|c| c.get()).is_none() {
        return true;
    }
    with_shared(|s| s.engine().owns_execution())
}

#[track_caller]
fn outside_model(what: &str) -> ! {
    panic!(
        "scopecheck: `{what}` was called outside `scopecheck::model`; shim objects (atomics, cells, \
         threads, locks) can only be used inside the closure given to `scopecheck::model` or \
         `Builder::check` / `Builder::explore`"
    )
}

/// The model thread running the caller.
#[track_caller]
pub fn current() -> ThreadId {
    CURRENT
        .with(|c| c.get())
        .unwrap_or_else(|| outside_model("thread::current"))
}

fn with_shared<R>(f: impl FnOnce(&mut Shared) -> R) -> R {
    SHARED.with(|s| f(s.borrow_mut().as_mut().expect("model state present")))
}

fn suspend(y: Yield) -> Resume {
    let t = CURRENT.with(|c| c.get()).expect("inside a model thread");
    let yp = YIELDERS.with(|ys| ys.borrow()[t as usize]);
    // SAFETY: the yielder of thread `t` lives on its coroutine's stack for as
    // long as the coroutine runs, and only that coroutine calls `suspend`.
    let yielder = unsafe { &*yp };
    let r = yielder.suspend(y);
    CURRENT.with(|c| c.set(Some(t)));
    r
}

/// Stops the calling thread's execution because the engine said so.
fn abort_with(stop: Stop) -> ! {
    with_shared(|s| {
        if s.stop.is_none() {
            s.stop = Some(stop);
        }
    });
    suspend(Yield::Abort);
    unreachable!("an aborted model thread was resumed");
}

/// Sets thread `t`'s status (what the runtime sees and the engine does
/// not: a spin wait, a discarded execution, the end of a coroutine).
fn set_status(t: ThreadId, st: ThreadStatus) {
    with_shared(|s| s.engine().set_status(t, st));
}

/// Marks the end of the calling thread's user code (called by the runtime).
fn finish_thread(t: ThreadId, src: SourceLoc) -> Result<(), Stop> {
    with_shared(|s| s.engine().thread_end(t, src))
}
