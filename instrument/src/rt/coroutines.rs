//! Coroutine plumbing: what a suspended model thread asks for and gets
//! back, making a thread's coroutine on a pooled stack, resuming it and
//! carrying out the scheduling decision it took, starting spawned threads,
//! and running one execution to its end (`run_one`). Apart because this is
//! the only code that switches stacks.

use super::{
    finish_thread, leaks, overflow, panic_message, set_status, stacks, teardown, with_shared, CURRENT, YIELDERS,
};
use corosensei::{Coroutine, CoroutineResult, Yielder};
use scopecheck_checker::engine::{ExecutionEnd, Resume, Step, Stop, ThreadStatus};
use scopecheck_checker::event::{SourceLoc, ThreadId};
use scopecheck_checker::failure::{Failure, FailureKind};
use std::panic::AssertUnwindSafe;

/// What a suspended model thread asks for.
pub(super) enum Yield {
    /// It waits at the operation it handed the engine, which said what the
    /// runtime does next ([`Step::Wait`] or [`Step::Switch`]).
    Op(Step),
    SpinWait,
    Discard,
    Abort,
}

/// How a model thread ended.
pub(super) enum Exit {
    Finished,
    Panicked(String),
    Aborted,
    /// It overflowed its stack (set up by the signal handler: `overflow`).
    Overflowed,
}

pub(super) type ThreadCoroutine = Coroutine<Resume, Yield, Exit, stacks::ColouredStack>;

pub(super) struct Threads {
    pub(super) coroutines: Vec<Option<ThreadCoroutine>>,
    /// What the stack-overflow handler needs to know about each thread
    /// (written in place when its coroutine is made).
    pub(super) guards: Vec<Option<overflow::Guard>>,
    /// What the engine said the runtime does next when the last thread
    /// suspended at an operation (`Engine::perform`), to carry out.
    pub(super) pending: Option<Step>,
    /// Whether the last execution failed while some thread could still go
    /// on (so executions extending it were never seen).
    pub(super) failed_midway: bool,
}

impl Drop for Threads {
    /// Reached with unfinished threads only when the checker itself
    /// panicked between two executions' ends: they are abandoned as at an
    /// execution's end (dropping a coroutine would unwind it, running user
    /// code during the checker's own panic).
    fn drop(&mut self) {
        for co in self.coroutines.iter_mut() {
            if let Some(c) = co.take() {
                drop(teardown::abandon(c));
            }
        }
    }
}

/// Makes thread `t`'s coroutine, and its guard for the stack-overflow
/// handler, in `th` (in place: both are big). Always inline: out of line
/// it cost 2% of an execution of the 9-thread rotation (cas-rot-9).
#[inline(always)]
pub(super) fn new_coroutine(th: &mut Threads, pool: &mut stacks::Pool, t: ThreadId, body: Box<dyn FnOnce() + '_>) {
    let body: Box<dyn FnOnce()> = unsafe {
        // SAFETY: every coroutine is run to completion or abandoned (never
        // resumed again, `teardown::abandon`) before `run` returns, so what
        // the body borrows outlives every use of it.
        std::mem::transmute::<Box<dyn FnOnce() + '_>, Box<dyn FnOnce() + 'static>>(body)
    };
    let stack = pool.take();
    let limit = corosensei::stack::Stack::limit(&stack).get();
    let co = Coroutine::with_stack(stack, move |y: &Yielder<Resume, Yield>, _first: Resume| {
        YIELDERS.with(|ys| {
            let mut ys = ys.borrow_mut();
            if ys.len() <= t as usize {
                ys.resize(t as usize + 1, std::ptr::null());
            }
            ys[t as usize] = y as *const _;
        });
        CURRENT.with(|c| c.set(Some(t)));
        let r = std::panic::catch_unwind(AssertUnwindSafe(move || {
            body();
            // The thread's `thread_local!` values (and the last thread's
            // lazy statics) are dropped while it is still a model thread.
            super::thread_registry::thread_exit(t);
        }));
        match r {
            Ok(()) => match finish_thread(t, SourceLoc::caller()) {
                Ok(()) => Exit::Finished,
                Err(stop) => {
                    with_shared(|s| {
                        if s.stop.is_none() {
                            s.stop = Some(stop);
                        }
                    });
                    Exit::Aborted
                }
            },
            Err(payload) => Exit::Panicked(panic_message(&*payload)),
        }
    });
    let i = t as usize;
    if th.coroutines.len() <= i {
        th.coroutines.resize_with(i + 1, || None);
        th.guards.resize_with(i + 1, || None);
    }
    let co = th.coroutines[i].insert(co);
    th.guards[i] = Some(overflow::Guard::new(co.trap_handler(), limit, t));
}

/// Resumes thread `t` and records what it asks for next.
/// Returns a failure or stop if the execution must end.
pub(super) fn resume(th: &mut Threads, pool: &mut stacks::Pool, t: ThreadId, with: Resume) -> Option<Result<(), Stop>> {
    let co = th.coroutines[t as usize].as_mut().expect("thread has a coroutine");
    let guard = th.guards[t as usize].as_ref().expect("thread has a guard");
    CURRENT.with(|c| c.set(Some(t)));
    overflow::enter(guard);
    let r = co.resume(with);
    overflow::leave();
    match r {
        CoroutineResult::Yield(Yield::Op(step)) => {
            th.pending = Some(step);
            None
        }
        CoroutineResult::Yield(Yield::SpinWait) => {
            set_status(t, ThreadStatus::SpinWait);
            None
        }
        CoroutineResult::Yield(Yield::Discard) => {
            set_status(t, ThreadStatus::Discarded);
            None
        }
        CoroutineResult::Yield(Yield::Abort) => {
            let stop = with_shared(|s| s.stop.take()).expect("abort carries a stop");
            Some(Err(stop))
        }
        CoroutineResult::Return(exit) => {
            // (Its status is `Gone` already if it finished: `thread_end`
            // set it; any other exit ends the execution.)
            // The stack goes back to the pool at once, not at the
            // execution's end: a program that spawns and joins threads in a
            // loop would otherwise map a stack per thread it ever ran (40,000
            // sequential spawns took 8.8 GB).
            th.guards[t as usize] = None;
            if let Some(c) = th.coroutines[t as usize].take() {
                pool.give(c.into_stack());
            }
            match exit {
                Exit::Finished => None,
                Exit::Aborted => {
                    let stop = with_shared(|s| s.stop.take()).unwrap_or(Stop::Moot);
                    Some(Err(stop))
                }
                Exit::Overflowed => {
                    let size = overflow::stack_size();
                    let f = with_shared(|s| {
                        s.engine().failure(
                            FailureKind::StackOverflow,
                            overflow::message(t, size),
                            Some(t),
                            vec![],
                            None,
                        )
                    });
                    Some(Err(Stop::Failure(f)))
                }
                Exit::Panicked(msg) => {
                    let f = with_shared(|s| {
                        s.engine().failure(
                            FailureKind::Panic,
                            format!("thread {t} panicked: {msg}"),
                            Some(t),
                            vec![],
                            None,
                        )
                    });
                    Some(Err(Stop::Failure(f)))
                }
            }
        }
    }
}

/// Starts the threads spawned since the last look, each up to its first visible step.
pub(super) fn start_spawned(th: &mut Threads, pool: &mut stacks::Pool) -> Option<Result<(), Stop>> {
    loop {
        // (Asked after every step: the common answer takes nothing.)
        let spawned = with_shared(|s| (!s.spawned.is_empty()).then(|| std::mem::take(&mut s.spawned)));
        let mut spawned = spawned?.into_iter();
        while let Some((child, body)) = spawned.next() {
            new_coroutine(th, pool, child, body);
            if let Some(r) = resume(th, pool, child, Resume::Go) {
                // The execution ends: the siblings not started yet go back
                // to be abandoned with the rest (dropping them here would
                // run the program's `Drop`s).
                with_shared(|s| s.spawned.extend(spawned));
                return Some(r);
            }
        }
    }
}

/// Runs one execution to its end; `None` when the run's deadline cut it.
pub(super) fn run_one(
    f: &dyn Fn(),
    pool: &mut stacks::Pool,
    th: &mut Threads,
) -> Option<(ExecutionEnd, Option<Failure>)> {
    // The vectors are kept from one execution to the next (their capacity).
    th.coroutines.clear();
    th.guards.clear();
    th.pending = None;
    let probes = with_shared(|s| {
        s.execution += 1;
        s.live_cells.clear();
        s.threads_made = 1;
        s.leaks.reset()
    });
    drop(probes);
    let main_src = SourceLoc::caller();
    with_shared(|s| s.engine().start_main(main_src));
    new_coroutine(th, pool, 0, Box::new(f));
    let mut outcome = resume(th, pool, 0, Resume::Go);
    if outcome.is_none() {
        outcome = start_spawned(th, pool);
    }
    let result: Result<ExecutionEnd, Stop> = loop {
        if let Some(r) = outcome.take() {
            match r {
                Ok(()) => {}
                Err(stop) => break Err(stop),
            }
        }
        // What the engine said when the last thread suspended at an
        // operation, or (when it suspended otherwise, or new threads were
        // started) whom it runs next.
        let step = match th.pending.take() {
            Some(Step::Wait) | None => with_shared(|s| s.engine().next_turn()),
            Some(step) => step,
        };
        match step {
            Step::Finished => break Ok(ExecutionEnd::Complete),
            Step::Stop(stop) => break Err(stop),
            Step::Switch { to, resume: with } => outcome = resume(th, pool, to, with),
            // (`next_turn` never says either: it chooses.)
            Step::Wait | Step::Done(_) => {
                let f = with_shared(|s| {
                    s.engine().failure(
                        FailureKind::Internal,
                        "the engine chose no thread to run (an error in scopecheck)".into(),
                        None,
                        vec![],
                        None,
                    )
                });
                break Err(Stop::Failure(f));
            }
        }
        if outcome.is_none() {
            outcome = start_spawned(th, pool);
        }
    };
    // A complete execution must have freed what it allocated through the
    // shim (loom's leak check; abandoned executions are not judged).
    let result = match result {
        Ok(ExecutionEnd::Complete) => match with_shared(|s| {
            s.leaks.first_leak().map(|l| {
                s.engine()
                    .failure(FailureKind::Leak, leaks::message(&l), None, vec![], Some(l.at))
            })
        }) {
            Some(f) => Err(Stop::Failure(f)),
            None => Ok(ExecutionEnd::Complete),
        },
        r => r,
    };
    // A failure cuts the execution short when another thread could still
    // have gone on (not when every thread waits: a deadlock or a hang has
    // no continuation).
    th.failed_midway = match &result {
        Err(Stop::Failure(f)) if !matches!(f.kind(), FailureKind::Deadlock | FailureKind::Hang) => {
            let failing = f.thread();
            th.coroutines
                .iter()
                .enumerate()
                .any(|(i, c)| c.as_ref().is_some_and(|c| !c.done() && failing != Some(i as ThreadId)))
                || with_shared(|s| !s.spawned.is_empty())
        }
        _ => false,
    };
    // Abandon what is left of the execution: no user code runs (see
    // `teardown`).
    for co in th.coroutines.iter_mut() {
        if let Some(c) = co.take() {
            pool.give(teardown::abandon(c));
        }
    }
    let unstarted = with_shared(|s| std::mem::take(&mut s.spawned));
    teardown::abandon_bodies(unstarted);
    CURRENT.with(|c| c.set(None));
    match result {
        Ok(end) => Some((end, None)),
        Err(Stop::Moot) => Some((ExecutionEnd::Blocked, None)),
        Err(Stop::Failure(f)) => Some((ExecutionEnd::Failed, Some(*f))),
        Err(Stop::Cut) => None,
    }
}
