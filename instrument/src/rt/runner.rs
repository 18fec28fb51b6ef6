//! The runtime's side of a run: the entry points ([`run`], [`run_with`],
//! [`run_parallel`]), the thread-local state they set up and clear however
//! the run ends, and `Runner`, the [`Program`] the checker's driver
//! drives: it runs one execution of the user's closure as coroutines. The
//! loop over executions, the strategy factory, the parallel pool and the
//! merging of results are the driver's (`scopecheck_checker::driver`).

use super::{
    cells, epoch, leaks, overflow, panic_hook, run_one, stacks, teardown, with_shared, RunConfig, RunResult, Shared,
    Threads, CURRENT, SHARED, YIELDERS,
};
use scopecheck_checker::driver::{self, Executed, Program};
use scopecheck_checker::engine::ExecutionEnd;
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::Engine;

/// Clears the thread-local state even if the run panics.
struct StateGuard;

impl Drop for StateGuard {
    fn drop(&mut self) {
        // Taken out first and dropped outside the borrow; bodies of threads
        // never started are user code, abandoned like the rest.
        if let Some(mut shared) = SHARED.with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.take())) {
            teardown::abandon_bodies(std::mem::take(&mut shared.spawned));
        }
        CURRENT.with(|c| c.set(None));
        YIELDERS.with(|y| y.borrow_mut().clear());
        epoch::leave();
        panic_hook::leave_model();
    }
}

/// Panics with a clear error if a model already runs on this OS thread
/// (the calling code is a model thread, or the checker's own callback):
/// `entry` names what the program called. Every entry point calls this
/// before it touches any state (a nested run would take over the outer
/// run's thread-local state and corrupt it).
#[track_caller]
pub fn check_not_nested(entry: &str) {
    let running = CURRENT.with(|c| c.get().is_some()) || SHARED.with(|s| s.try_borrow().map_or(true, |s| s.is_some()));
    if running {
        panic!(
            "scopecheck: `{entry}` was called inside another model; nested models are not supported (run \
             the inner check as its own test)"
        );
    }
}

/// Runs `f` under the checker as `config` says.
///
/// # Panics
/// With a clear message when called inside another model, or with a
/// malformed replay token.
pub fn run(config: &RunConfig, f: &dyn Fn()) -> RunResult {
    run_with(config, f, &mut |_, _| {})
}

/// Like [`run`], calling `on_end` with the graph of every execution that
/// ended (complete, failed or blocked), before the explorer moves on. The
/// callback must not use the shim.
///
/// # Panics
/// As [`run`].
pub fn run_with(config: &RunConfig, f: &dyn Fn(), on_end: &mut dyn FnMut(&ExecutionGraph, ExecutionEnd)) -> RunResult {
    check_not_nested("scopecheck::model");
    let strategy = match driver::strategy_for(config) {
        Ok(s) => s,
        Err(e) => panic!("scopecheck: {e}"),
    };
    let mut runner = Runner::new(config, f);
    driver::explore(config, strategy, &mut runner, on_end)
}

/// Runs the exhaustive exploration of `f` on `threads` OS threads that
/// share the work as it comes, and merges their results: the counts are
/// exactly those of one exhaustive run ([`driver::run_parallel`]).
/// `config.strategy` is ignored; `max_executions` and `max_duration` bound
/// the whole run.
///
/// # Panics
/// As [`run`].
pub fn run_parallel(config: &RunConfig, threads: usize, f: &(dyn Fn() + Sync)) -> RunResult {
    // Before any explorer thread starts: they have their own thread-locals,
    // so only this thread can tell that it already runs a model.
    check_not_nested("Builder::explore_parallel");
    driver::run_parallel(config, threads, &|| Runner::new(config, f))
}

/// One run's coroutine machinery on this OS thread: the closure, the stack
/// pool, the threads' coroutines, and the guard that clears the
/// thread-local state when the run ends.
struct Runner<'f> {
    f: &'f dyn Fn(),
    // Dropped in this order: the coroutines left (abandoned, no user code
    // runs), then the thread-local state, then the stack pool.
    threads: Threads,
    _guard: StateGuard,
    pool: stacks::Pool,
    run_id: u32,
    executions: u64,
}

impl<'f> Runner<'f> {
    /// Sets up the thread-local state of a run of `f` as `config` says.
    fn new(config: &RunConfig, f: &'f dyn Fn()) -> Runner<'f> {
        // The first stack is mapped before any model state exists: a
        // `stack_size` that cannot be mapped is the user's setting, refused
        // plainly (not a panic inside the model labelled as the checker's).
        let pool = stacks::Pool::new(config.stack_size).unwrap_or_else(|e| panic!("{e}"));
        SHARED.with(|s| {
            *s.borrow_mut() = Some(Shared {
                engine: std::ptr::null_mut(),
                stop: None,
                spawned: Vec::new(),
                leaks: leaks::Leaks::default(),
                execution: 0,
                live_cells: cells::LiveCells::default(),
                threads_made: 1,
                max_threads: config.max_threads,
                drfrlx_system: config.drfrlx_system,
            })
        });
        let guard = StateGuard;
        panic_hook::enter_model();
        overflow::prepare_thread(config.stack_size);
        Runner {
            f,
            threads: Threads {
                coroutines: Vec::new(),
                guards: Vec::new(),
                pending: None,
                failed_midway: false,
            },
            _guard: guard,
            pool,
            run_id: epoch::new_run(),
            executions: 0,
        }
    }
}

/// Lends the engine to the shim code of one execution (through the
/// thread-local state) and takes it back when the execution ends, however
/// it ends.
struct Lent;

impl Lent {
    fn new(engine: &mut Engine) -> Lent {
        with_shared(|s| s.engine = engine);
        Lent
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        // `try_borrow_mut`: while unwinding from a panic inside a borrow.
        SHARED.with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                if let Some(s) = s.as_mut() {
                    s.engine = std::ptr::null_mut();
                }
            }
        });
    }
}

impl Program for Runner<'_> {
    fn execute(&mut self, engine: &mut Engine) -> Option<Executed> {
        self.executions += 1;
        epoch::enter(self.run_id, self.executions);
        let lent = Lent::new(engine);
        let ran = run_one(self.f, &mut self.pool, &mut self.threads);
        drop(lent);
        // Taken after every execution, so none sees another's records.
        let outcome = super::records::take();
        ran.map(|(end, failure)| Executed {
            end,
            failure,
            failed_midway: self.threads.failed_midway,
            outcome,
        })
    }
}
