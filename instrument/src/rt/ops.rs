//! The operations shim code calls: [`op`] / [`op_at`] / [`perform_at`]
//! (one call of `Engine::perform` per operation: the thread runs on with
//! the answer, or suspends to the runtime, which carries out the engine's
//! [`Step`]), thread spawns, spin and yield hints, `tick`, `discard`,
//! `fail`, and the side calls (memory kinds, kernels, positions). Apart
//! from the loop that runs executions: this is the model thread's side.

use super::{abort_with, needs_paired_fences, outside_model, suspend, with_shared, Resume, Yield, CURRENT};
use scopecheck_checker::engine::{Step, Stop, WaitSite};
use scopecheck_checker::event::{Answer, EventId, Loc, Op, OpResult, Order, Placement, Scope, SourceLoc, ThreadId};
use scopecheck_checker::failure::FailureKind;
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::memory::Residence;

/// Performs `op` for the calling model thread and returns the checker's answer.
#[track_caller]
pub fn op(op: Op) -> OpResult {
    op_at(op, SourceLoc::caller())
}

/// Like [`op`], with an explicit source location.
pub fn op_at(op: Op, src: SourceLoc) -> OpResult {
    perform(op, src).result
}

/// Performs `op` for the calling model thread, issued at `src`, and
/// returns the checker's whole answer: the result, and for a load or an
/// RMW the read event whose value it returned (what a DRFrlx `Observed`
/// value points at).
pub fn perform_at(op: Op, src: SourceLoc) -> Answer {
    perform(op, src)
}

/// [`op_at`] and [`perform_at`] (inlined in both: the common answer is
/// then returned in registers to the shim's operations).
#[inline(always)]
fn perform(op: Op, src: SourceLoc) -> Answer {
    let Some(t) = CURRENT.with(|c| c.get()) else {
        outside_model(match op {
            Op::Alloc { .. } => "new",
            Op::Load { .. } => "load",
            Op::Store { .. } => "store",
            Op::Rmw { .. } => "read-modify-write",
            Op::Fence { .. } => "fence",
            Op::CellAccess { .. } => "UnsafeCell access",
            Op::Spawn { .. } => "thread::spawn",
            Op::Join { .. } => "JoinHandle::join",
            Op::Barrier { .. } => "gpu barrier",
            Op::Observe { .. } => "observing a DRFrlx value",
        })
    };
    let fenced = needs_paired_fences(&op);
    let sc_fence = || Op::Fence {
        order: Order::SeqCst,
        scope: Scope::System,
    };
    if fenced {
        op_at(sc_fence(), src);
    }
    // One call: the engine performs the operation on the spot when it
    // can (an invisible one, a replayed one whose kept event is ready, or
    // one it schedules on this thread's own stack), else says whom the
    // runtime runs instead.
    let answer = match with_shared(|s| s.engine().perform(t, &op, src)) {
        Step::Done(answer) => answer,
        Step::Stop(stop) => abort_with(stop),
        step => {
            match suspend(Yield::Op(step)) {
                Resume::Answer(answer) => answer,
                Resume::Go => abort_with(Stop::Failure(with_shared(|s| {
                    s.engine().failure(
                    FailureKind::Internal,
                    format!("thread {t} was resumed at {src} without the answer to its operation (an error in scopecheck)"),
                    Some(t),
                    vec![],
                    Some(src),
                )
                }))),
            }
        }
    };
    if fenced {
        op_at(sc_fence(), src);
    }
    answer
}

/// Spawns a model thread running `f` at `placement` (a GPU thread's device,
/// block, warp and lane); returns its id.
pub fn spawn_at(f: Box<dyn FnOnce()>, placement: Placement, src: SourceLoc) -> ThreadId {
    if CURRENT.with(|c| c.get()).is_some() {
        let over = with_shared(|s| {
            s.threads_made += 1;
            s.max_threads.filter(|&max| s.threads_made > max)
        });
        if let Some(max) = over {
            // Forgotten, as the bodies of threads never started are.
            std::mem::forget(f);
            panic!(
                "Model exceeded maximum number of threads: this spawn at {src} makes thread {} of an execution \
                 limited to max_threads = {max} (the main thread counts)",
                max + 1
            );
        }
    }
    let child = match op_at(Op::Spawn { placement }, src) {
        OpResult::Thread(child) => child,
        r => wrong_answer("thread::spawn", &r, src),
    };
    with_shared(|s| s.spawned.push((child, f)));
    child
}

/// A spin-loop hint: the calling thread waits until something it read changes.
#[track_caller]
pub fn spin() {
    hint(None, None)
}

/// [`spin`] inside a shim object's wait: a hang report says the thread waits
/// on `on` (`"a condvar"`) at the caller's line, not that it spins.
#[track_caller]
pub fn spin_on(on: &'static str) {
    hint(None, Some(on))
}

/// `thread::yield_now`: a scheduling hint that waits only when the thread
/// came round to the same yield having learnt nothing (`Engine::yield_hint`).
#[track_caller]
pub fn yield_now() {
    hint(Some(SourceLoc::caller()), None)
}

#[track_caller]
pub(super) fn hint(yield_site: Option<SourceLoc>, on: Option<&'static str>) {
    let Some(t) = CURRENT.with(|c| c.get()) else {
        outside_model(if yield_site.is_some() { "yield_now" } else { "spin_loop" })
    };
    let src = SourceLoc::caller();
    // Each hint is a step of the thread (max_steps, the deadline) first.
    let waits = with_shared(|s| {
        s.engine().hint_step(t, src)?;
        match yield_site {
            Some(site) => s.engine().yield_hint(t, site),
            None => s.engine().spin_at(t, WaitSite { src: Some(src), on }),
        }
    });
    match waits {
        Ok(true) => {
            suspend(Yield::SpinWait);
        }
        Ok(false) => {}
        Err(stop) => abort_with(stop),
    }
}

/// A step that does no operation (one iteration of an interpreted loop
/// whose body touches no memory): it counts toward the thread's
/// [`RunConfig::max_steps`](super::RunConfig::max_steps) and lets the run's deadline
/// ([`RunConfig::max_duration`](super::RunConfig::max_duration)) stop the execution even when the thread
/// never reaches a shim operation; `src` is where the loop is (a runaway
/// report names it). Outside a model: nothing.
pub fn tick(src: SourceLoc) {
    let Some(t) = CURRENT.with(|c| c.get()) else {
        return;
    };
    if let Err(stop) = with_shared(|s| s.engine().step(t, src)) {
        abort_with(stop);
    }
}

/// Gives up the current execution without a result, like herd discards
/// executions whose loops need more iterations than the unroll bound: the
/// calling thread never runs again, the other threads run on (so the
/// alternatives their events open are still explored), and the execution
/// counts as blocked.
#[track_caller]
pub fn discard() -> ! {
    if CURRENT.with(|c| c.get()).is_none() {
        outside_model("discard")
    }
    suspend(Yield::Discard);
    unreachable!("a discarded model thread was resumed");
}

/// Fails the current execution with a failure of `kind` at `src` (the
/// user's line), saying `message` and suggesting `fix`: for misuse a shim
/// object finds on its own (a thread calling a partial warp barrier whose
/// mask leaves it out is barrier divergence).
pub fn fail(kind: FailureKind, message: String, fix: Option<String>, src: SourceLoc) -> ! {
    let Some(t) = CURRENT.with(|c| c.get()) else {
        panic!("scopecheck: {message}");
    };
    let mut f = with_shared(|s| s.engine().failure(kind, message, Some(t), vec![], Some(src)));
    f.set_fix(fix);
    abort_with(Stop::Failure(f));
}

/// Stops the execution because the engine answered an operation of kind
/// `what` with a result of the wrong kind (`answer`): a fault of
/// scopecheck, reported as its own internal error at the user's line `src`
/// and never as a panic of the user's program.
#[cold]
pub fn wrong_answer(what: &str, answer: &OpResult, src: SourceLoc) -> ! {
    fail(
        FailureKind::Internal,
        format!("the checker answered a {what} with {answer:?} (an error in scopecheck, not in the program)"),
        None,
        src,
    )
}

/// Records that `loc`, just allocated, lives in `res` (a memory kind, seed
/// 001): the checker then judges whether its system-scope atomics are atomic.
pub fn set_memory_kind(loc: Loc, res: Residence) {
    with_shared(|s| s.engine().set_memory_kind(loc, res));
}

/// Records a kernel launch on `device` whose block `b` is the threads
/// `blocks[b]` (the occupancy-bound progress model dispatches blocks).
pub fn register_kernel(device: u32, blocks: Vec<Vec<ThreadId>>) {
    with_shared(|s| s.engine().register_kernel(device, blocks));
}

/// The calling thread used the value read by `of` (DRFrlx observability).
#[track_caller]
pub fn observe(of: EventId) {
    op_at(Op::Observe { of }, SourceLoc::caller());
}

/// The calling model thread's id and the index its next event takes, if
/// inside a model (keys choices that must be the same in every
/// re-execution of the same program path).
pub fn position() -> Option<(ThreadId, u32)> {
    let t = CURRENT.with(|c| c.get())?;
    Some((t, with_shared(|s| s.engine().cursor(t))))
}

/// A copy of the current execution graph (for drawing a witness).
#[track_caller]
pub fn current_graph() -> ExecutionGraph {
    if CURRENT.with(|c| c.get()).is_none() {
        outside_model("current_graph")
    }
    with_shared(|s| s.engine().graph.clone())
}

/// Calls `f` with the current execution's graph, without copying it
/// (`current_graph` copies): for a caller that looks at a few events of
/// many executions.
pub fn with_current_graph<R>(f: impl FnOnce(&ExecutionGraph) -> R) -> R {
    if CURRENT.with(|c| c.get()).is_none() {
        outside_model("with_current_graph")
    }
    with_shared(|s| f(&s.engine().graph))
}
