//! The operations shim code calls: [`op`] / [`op_at`] (an invisible
//! operation applied on the spot; a visible one replayed inline, scheduled
//! on the caller's own stack, or suspended to the runtime), thread spawns,
//! spin and yield hints, `tick`, `discard`, `fail`, and the side calls
//! (memory kinds, kernels, DRFrlx classes, positions). Apart from the loop
//! that runs executions: this is the model thread's side.

use super::{abort_with, needs_paired_fences, outside_model, suspend, with_shared, Resume, Shared, Yield, CURRENT};
use scopecheck_checker::drfrlx::RlxClass;
use scopecheck_checker::engine::{Sched, Stop, ThreadStatus, WaitSite};
use scopecheck_checker::event::{EventId, EventKind, Loc, Op, OpResult, Order, Placement, Scope, SourceLoc, ThreadId};
use scopecheck_checker::failure::FailureKind;
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::memory::Residence;

/// What a thread that reached a visible operation does next.
pub(super) enum Here {
    /// It was chosen and performed the operation: its answer.
    Done(OpResult),
    /// The operation ended the execution.
    Abort(Stop),
    /// It suspends; the runtime carries out the decision, or takes one.
    Suspend(Option<Sched>),
}

/// The scheduling point of thread `t`, about to perform the visible `op`,
/// taken on its own stack: the engine chooses the next thread exactly as
/// the runtime's loop would once `t` suspended (the same threads wait, the
/// same statuses), and when it chooses `t`, `t` performs `op` on the spot
/// and runs on. That spares the two coroutine switches of a trip through
/// the runtime for every operation whose thread keeps running: every one
/// the optimal explorer adds while the lowest runnable thread goes on (it
/// always takes that one), and about half of a random walk's with two
/// threads. Threads spawned since the runtime last looked are not started
/// yet, so the decision is then left to the runtime, which starts them
/// first.
pub(super) fn schedule_here(s: &mut Shared, t: ThreadId, op: &Op, src: SourceLoc) -> Here {
    // Field by field when the thread already waits at an operation (the
    // common case): a whole new status is built on the stack and copied
    // in with loads that straddle the stores that built it, which stall.
    match &mut s.status[t as usize] {
        ThreadStatus::Op(o, at) => {
            *o = op.clone();
            *at = src;
        }
        st => *st = ThreadStatus::Op(op.clone(), src),
    }
    if s.unstarted > 0 || !s.spawned.is_empty() {
        return Here::Suspend(None);
    }
    let (engine, status) = s.engine_and_status();
    match engine.schedule(status) {
        Sched::Run(u) if u == t => {
            let ThreadStatus::Op(op, src) = &status[t as usize] else {
                unreachable!("the status was just set")
            };
            match engine.visible(t, op, *src, status) {
                Ok(Some(r)) => Here::Done(r),
                // It waits (a mutex it cannot take yet): the runtime chooses again.
                Ok(None) => Here::Suspend(None),
                Err(stop) => Here::Abort(stop),
            }
        }
        other => Here::Suspend(Some(other)),
    }
}

/// Performs `op` for the calling model thread and returns the checker's answer.
#[track_caller]
pub fn op(op: Op) -> OpResult {
    op_at(op, SourceLoc::caller())
}

/// Like [`op`], with an explicit source location.
pub fn op_at(op: Op, src: SourceLoc) -> OpResult {
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
    if !op.is_visible() {
        return match with_shared(|s| s.engine().invisible(t, &op, src)) {
            Ok(v) => v,
            Err(stop) => abort_with(stop),
        };
    }
    let fenced = needs_paired_fences(t, &op);
    let sc_fence = || Op::Fence {
        order: Order::SeqCst,
        scope: Scope::System,
    };
    if fenced {
        op_at(sc_fence(), src);
    }
    // While the thread replays the kept graph and its event is ready, it
    // runs on without a switch to the scheduler; past it, it takes the
    // scheduling decision here (one borrow of the shared state for both).
    let here = with_shared(|s| match s.engine().replay_inline(t, &op, src) {
        Some(Ok(r)) => Here::Done(r),
        Some(Err(stop)) => Here::Abort(stop),
        None => schedule_here(s, t, &op, src),
    });
    let r = match here {
        Here::Done(r) => r,
        Here::Abort(stop) => abort_with(stop),
        Here::Suspend(decision) => match suspend(Yield::Op(decision)) {
            Resume::Result(r) => r,
            Resume::Go => unreachable!("visible operation resumed without a result"),
        },
    };
    if fenced {
        op_at(sc_fence(), src);
    }
    r
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
    let OpResult::Thread(child) = op_at(Op::Spawn { placement }, src) else {
        unreachable!("spawn answers with a thread")
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

/// Announces the DRFrlx class of the calling thread's next access (`None`
/// clears it). The shim's classified atomics set it around each operation.
pub fn set_next_class(class: Option<RlxClass>) {
    let Some(t) = CURRENT.with(|c| c.get()) else { return };
    with_shared(|s| s.engine().set_next_class(t, class));
}

/// The read event of the calling thread's latest load or RMW (the read part
/// of an RMW), if any: what an `Observed` value points at.
pub fn last_read() -> Option<EventId> {
    let t = CURRENT.with(|c| c.get())?;
    with_shared(|s| {
        let end = s.engine().cursor(t);
        let evs = s.engine().graph.thread_events(t);
        (0..end.min(evs.len() as u32))
            .rev()
            .find(|&i| matches!(evs[i as usize].kind, EventKind::Read(_)))
            .map(|i| EventId::new(t, i))
    })
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
