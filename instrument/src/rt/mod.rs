//! The runtime: runs the model's threads as stackful coroutines on the
//! calling OS thread, one execution after another, and connects each shim
//! operation to the checker's [`Engine`].
//!
//! Shim code calls [`op`] (and [`spawn_at`], [`spin`], ...). An operation that
//! involves no choice is applied on the spot; a visible one suspends the
//! coroutine, and the scheduler loop in [`run`] asks the engine which thread
//! goes next.

mod cells;
mod epoch;
mod leaks;
mod overflow;
mod panic_hook;
mod stacks;
pub use stacks::stacks_made;
mod teardown;

use crate::gpu_record::Outcome;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use scopecheck_checker::drfrlx::RlxClass;
use scopecheck_checker::engine::{ExecutionEnd, Limits, Sched, Stats, Stop, ThreadStatus, WaitSite};
use scopecheck_checker::event::{EventId, EventKind, Loc, Op, OpResult, Order, Placement, Scope, SourceLoc, ThreadId};
use scopecheck_checker::explore::{
    pct::Pct,
    pool::{PoolStop, WorkPool},
    random::RandomWalk,
    reference::Reference,
    replay::Replay,
    trust::{Shard, Trust},
    Strategy,
};
use scopecheck_checker::failure::{Failure, FailureKind};
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::memory::{Platform, Residence};
use scopecheck_checker::progress::Progress;
use scopecheck_checker::{token, Engine, MemoryModel};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use cells::{cell_begin, cell_end, CellAccessGuard};
pub use epoch::Born;
pub use leaks::{leak_alloc, leak_arc, leak_dealloc, leak_track, leak_untrack, AliveProbe};
pub use panic_hook::panic_message;

/// How the runtime explores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StrategyChoice {
    /// Every consistent execution exactly once (optimal, TruSt-style).
    Exhaustive,
    /// Every interleaving and choice, judged by the axioms; slow, for cross-checks.
    Reference,
    /// Uniformly random choices.
    Random {
        /// Seed of the generator.
        seed: u64,
        /// Number of executions.
        iterations: u64,
    },
    /// One execution, replayed from a token.
    Replay(String),
    /// PCT (probabilistic concurrency testing): random thread priorities with
    /// `depth - 1` priority change points per execution, so that a bug needing
    /// `depth` ordering constraints is found with a probability that does
    /// not shrink with the program's other choices; memory choices random.
    Pct {
        /// Seed of the generator.
        seed: u64,
        /// Number of executions.
        iterations: u64,
        /// The bug depth it targets (1: no change point).
        depth: u32,
    },
    /// One part of the exhaustive exploration: shard `index` of `count`.
    /// The shards' executions are disjoint and together are exactly those of
    /// [`StrategyChoice::Exhaustive`], so their counts add up.
    Shard {
        /// This shard, `0..count`.
        index: u32,
        /// Number of shards.
        count: u32,
    },
}

/// Everything a run needs to know.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// Memory model.
    pub model: MemoryModel,
    /// Strategy.
    pub strategy: StrategyChoice,
    /// Stop after this many executions (the run is then incomplete).
    pub max_executions: Option<u64>,
    /// Stop after this much time (the run is then incomplete), even inside
    /// an execution: the engine reads the clock every few steps
    /// ([`Limits::deadline`](scopecheck_checker::engine::Limits::deadline)),
    /// and an execution it cuts is neither counted nor reported.
    pub max_duration: Option<Duration>,
    /// Steps one thread may take in one execution.
    pub max_steps: u64,
    /// Stack size of each model thread (default 2 MiB, std's for a spawned
    /// thread); an overflow fails the execution (`overflow`).
    pub stack_size: usize,
    /// Keep exploring after a failure (collect up to this many).
    pub max_failures: usize,
    /// Keep going after data races, collecting them in
    /// [`RunResult::races`] (herd's treatment; for litmus tests).
    pub record_races: bool,
    /// The platform: device attributes that decide whether system-scope
    /// atomics on memory of a given kind are atomic (seed 001).
    pub platform: Platform,
    /// The forward-progress model (which spin-waits are hangs).
    pub progress: Progress,
    /// Steps all threads together may take in one execution (loom's
    /// `max_branches`; `None`: no bound).
    pub max_branches: Option<u64>,
    /// Threads one execution may have, the main thread included (loom's
    /// `max_threads`; `None`: no bound). A spawn past it panics.
    pub max_threads: Option<usize>,
    /// A preemption bound with loom's meaning, for the exhaustive and the
    /// reference strategies: every execution that some interleaving with
    /// at most this many preemptions reaches is explored (the exhaustive
    /// explorer explores some with more too). `None`: no bound.
    pub preemption_bound: Option<u32>,
}

impl Default for RunConfig {
    fn default() -> RunConfig {
        RunConfig {
            model: MemoryModel::default(),
            strategy: StrategyChoice::Exhaustive,
            max_executions: None,
            max_duration: None,
            max_steps: 100_000,
            // std's default for a spawned thread: a program that runs on a
            // std thread runs on a model thread.
            stack_size: 2 << 20,
            max_failures: 1,
            record_races: false,
            platform: Platform::default(),
            progress: Progress::Fair,
            max_branches: None,
            max_threads: None,
            preemption_bound: None,
        }
    }
}

/// What a run found.
#[derive(Debug)]
pub struct RunResult {
    /// Counters.
    pub stats: Stats,
    /// Distinct complete executions, when the strategy may repeat them.
    pub distinct: Option<u64>,
    /// Failures found (at most `max_failures`).
    pub failures: Vec<Failure>,
    /// Whether the exploration covered everything its strategy meant to.
    pub complete: bool,
    /// Why it did not, if it did not.
    pub incomplete_reason: Option<String>,
    /// Wall time.
    pub elapsed: Duration,
    /// Strategy name.
    pub strategy: &'static str,
    /// For a replay: whether the program asked for choices the token did not hold.
    pub replay_diverged: bool,
    /// For a replay that diverged: at which step, what the token expected
    /// and what the program did. The run is then incomplete (its reason
    /// is this text): the execution was abandoned, neither failed nor passed.
    pub replay_divergence: Option<String>,
    /// Under [`RunConfig::record_races`]: one report per distinct racing pair
    /// of source lines.
    pub races: Vec<Failure>,
    /// Under [`RunConfig::record_races`]: complete executions with a race.
    pub racy_executions: u64,
    /// What the complete executions recorded with `gpu::record`: each
    /// outcome and how many complete executions had it.
    pub outcomes: BTreeMap<Outcome, u64>,
    /// The preemption bound the run kept to, if one applied (what its
    /// completeness means: every execution with at most this many
    /// preemptions was explored).
    pub preemption_bound: Option<u32>,
}

impl RunResult {
    /// Adds another shard's result to this one: counts add up, failures are
    /// kept, race reports once per pair of source lines, and the whole
    /// is complete only if both parts are. Elapsed time is the longer one
    /// (the shards ran side by side).
    pub fn merge(&mut self, other: RunResult) {
        self.stats.complete += other.stats.complete;
        self.stats.blocked += other.stats.blocked;
        self.stats.failed += other.stats.failed;
        self.stats.events_added += other.stats.events_added;
        self.stats.events_replayed += other.stats.events_replayed;
        self.stats.pruned += other.stats.pruned;
        self.distinct = match (self.distinct, other.distinct) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        // One report per failing execution, as in a single run; race
        // reports are per distinct pair of lines, so a pair both parts
        // found is kept once.
        self.failures.extend(other.failures);
        let same = |a: &Failure, b: &Failure| a.kind == b.kind && a.location == b.location && a.message == b.message;
        for f in other.races {
            if !self.races.iter().any(|g| same(g, &f)) {
                self.races.push(f);
            }
        }
        self.racy_executions += other.racy_executions;
        for (o, n) in other.outcomes {
            *self.outcomes.entry(o).or_default() += n;
        }
        self.complete &= other.complete;
        if self.incomplete_reason.is_none() {
            self.incomplete_reason = other.incomplete_reason;
        }
        self.elapsed = self.elapsed.max(other.elapsed);
        self.replay_diverged |= other.replay_diverged;
        if self.replay_divergence.is_none() {
            self.replay_divergence = other.replay_divergence;
        }
    }
}

/// Runs the exhaustive exploration of `f` on `threads` OS threads that
/// share the work as it comes ([`WorkPool`]: an explorer gives the oldest
/// subtree it holds to one that waits), and merges their results: the counts
/// are exactly those of one exhaustive run. `config.strategy` is ignored;
/// `max_executions` and `max_duration` bound the whole run.
pub fn run_parallel(config: &RunConfig, threads: usize, f: &(dyn Fn() + Sync)) -> RunResult {
    // Before any explorer thread starts: they have their own thread-locals,
    // so only this thread can tell that it already runs a model.
    check_not_nested("Builder::explore_parallel");
    let threads = threads.max(1);
    let start = Instant::now();
    let deadline = config.max_duration.and_then(|d| start.checked_add(d));
    let pool = Arc::new(WorkPool::new(threads, config.max_executions, deadline));
    let mut each = config.clone();
    each.max_executions = None;
    each.max_duration = None;
    // One explorer per OS thread; the calling thread is one of them.
    let explore = |pool: &Arc<WorkPool>, me: usize| {
        let mut mine: Vec<RunResult> = Vec::new();
        while let Some(subtree) = pool.take(me) {
            let strategy = Box::new(Trust::worker(pool.clone(), subtree, me));
            // Each explorer also watches the pool's deadline inside its
            // executions: the pool itself only looks between them.
            let (r, cut) = run_strategy(&each, deadline, strategy, f, &mut |_, _| {});
            if cut {
                pool.stop(PoolStop::Deadline);
            }
            if r.failures.len() >= each.max_failures {
                pool.stop(PoolStop::Failures);
            }
            mine.push(r);
        }
        mine
    };
    let results: Vec<RunResult> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads)
            .map(|me| {
                let (explore, pool) = (&explore, &pool);
                scope.spawn(move || explore(pool, me))
            })
            .collect();
        let mut all = explore(&pool, 0);
        for h in handles {
            match h.join() {
                Ok(r) => all.extend(r),
                Err(p) => std::panic::resume_unwind(p),
            }
        }
        all
    });
    let mut it = results.into_iter();
    let mut total = it.next().expect("the first subtree was explored");
    for r in it {
        total.merge(r);
    }
    total.failures.truncate(config.max_failures);
    total.elapsed = start.elapsed();
    if let Some(why) = pool.stop_reason() {
        total.complete = false;
        total.incomplete_reason = Some(match why {
            PoolStop::Failures => "stopped at the first failure".into(),
            PoolStop::Executions(max) => format!("stopped after max_executions = {max}"),
            PoolStop::Deadline => deadline_reason(config.max_duration.unwrap_or_default()),
        });
    }
    total.strategy = "exhaustive (parallel)";
    total
}

/// What a suspended model thread asks for.
enum Yield {
    /// It waits to perform the visible operation its status names; the
    /// scheduling decision it already took for the runtime, if any.
    Op(Option<Sched>),
    SpinWait,
    Discard,
    Abort,
}

/// What a suspended model thread gets back.
#[derive(Clone, Copy)]
enum Resume {
    Go,
    Result(OpResult),
}

/// How a model thread ended.
enum Exit {
    Finished,
    Panicked(String),
    Aborted,
    /// It overflowed its stack (set up by the signal handler: `overflow`).
    Overflowed,
}

type ThreadCoroutine = Coroutine<Resume, Yield, Exit, stacks::ColouredStack>;

/// Per-execution shared state, reachable from shim code through a thread-local.
struct Shared {
    engine: Engine,
    /// The stop that ended the execution early.
    stop: Option<Stop>,
    /// Threads spawned since the scheduler last looked, with their bodies.
    spawned: Vec<(ThreadId, Box<dyn FnOnce()>)>,
    /// What each thread waits for (the scheduler's view of the threads).
    status: Vec<ThreadStatus>,
    /// Spawned threads the runtime has taken to start but not started yet
    /// (their statuses are not known: nobody may schedule meanwhile).
    unstarted: usize,
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
}

thread_local! {
    static SHARED: RefCell<Option<Shared>> = const { RefCell::new(None) };
    static CURRENT: Cell<Option<ThreadId>> = const { Cell::new(None) };
    static YIELDERS: RefCell<Vec<*const Yielder<Resume, Yield>>> = const { RefCell::new(Vec::new()) };
    static DRFRLX_SYSTEM: Cell<bool> = const { Cell::new(false) };
}

/// While a `DrfrlxSystem` is alive, runs on this thread map a DRFrlx program onto a DRFrlx system in C11
/// terms, as the DRFrlx check's weak-model run needs:
/// - unpaired accesses run as `SeqCst` ([`crate::drfrlx::relaxed_order`]):
///   DRF1 keeps unpaired atomics in program order with the other atomics of
///   their thread, and `SeqCst` is C11's nearest order that does so (seed
///   004, section 3.7: the theorem assumes a DRF1-compliant system);
/// - every paired access (a seq_cst atomic access that carries no DRFrlx
///   class; acquire and release ones are outside DRFrlx and run as they
///   are) is issued between two seq_cst fences. DRFrlx
///   lets relaxed classes be reordered with each other and with data, but
///   not across paired atomics (sections 3.2-3.4: "reordering ... with
///   respect to other relaxed atomics"); C11's seq_cst accesses alone do not
///   stop a relaxed access from moving across them (figure 2b's program has
///   no illegal race, yet `rc11` lets its relaxed `Y` load be satisfied
///   before the paired `Z` load, which SC forbids).
///
/// A guard rather than an on/off switch, so that a panic between the two
/// (inside the checker, or a panicking callback) cannot leave later runs on
/// this thread mapped.
pub struct DrfrlxSystem {
    _private: (),
}

impl DrfrlxSystem {
    /// Turns the mapping on until the guard is dropped.
    pub fn on() -> DrfrlxSystem {
        DRFRLX_SYSTEM.with(|p| p.set(true));
        DrfrlxSystem { _private: () }
    }
}

impl Drop for DrfrlxSystem {
    fn drop(&mut self) {
        DRFRLX_SYSTEM.with(|p| p.set(false));
    }
}

/// Whether a [`DrfrlxSystem`] guard is alive on this thread.
pub fn drfrlx_system() -> bool {
    DRFRLX_SYSTEM.with(|p| p.get())
}

/// Whether `op`, issued by thread `t`, is a paired access that
/// a [`DrfrlxSystem`] run brackets with fences.
fn needs_paired_fences(t: ThreadId, op: &Op) -> bool {
    let order = match *op {
        Op::Load { order, .. } | Op::Store { order, .. } => order,
        Op::Rmw { success, .. } => success,
        _ => return false,
    };
    // Only seq_cst ones: DRFrlx's paired atomics are SC atomics. Acquire
    // and release atomics are outside the model and keep their own
    // semantics here, so that what they allow beyond SC shows up (and is
    // blamed on them, not certified away by the fences).
    order == Order::SeqCst && drfrlx_system() && with_shared(|s| s.engine.next_class(t).is_none())
}

/// Whether every thread of the execution but the calling one has finished
/// (and none is spawned and waiting to start).
pub(crate) fn others_finished() -> bool {
    let Some(me) = CURRENT.with(|c| c.get()) else {
        return false;
    };
    with_shared(|s| {
        s.spawned.is_empty()
            && s.unstarted == 0
            && s.status
                .iter()
                .enumerate()
                .all(|(t, st)| t == me as usize || matches!(st, ThreadStatus::Gone))
    })
}

/// Whether the calling code runs inside `scopecheck::model`.
pub fn in_model() -> bool {
    CURRENT.with(|c| c.get().is_some())
}

/// Whether the current execution counts in this run: always, except in a
/// sharded run for the few executions every shard walks through but only
/// shard 0 counts ([`StrategyChoice::Shard`]). A program that tallies its
/// own executions (outcome histograms, say) should tally only these.
/// Outside a model: true.
pub fn execution_counts() -> bool {
    if CURRENT.with(|c| c.get()).is_none() {
        return true;
    }
    with_shared(|s| s.engine.owns_execution())
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

/// Sets thread `t`'s status.
fn set_status(t: ThreadId, st: ThreadStatus) {
    with_shared(|s| s.status[t as usize] = st);
}

/// What a thread that reached a visible operation does next.
enum Here {
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
fn schedule_here(s: &mut Shared, t: ThreadId, op: &Op, src: SourceLoc) -> Here {
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
    match s.engine.schedule(&s.status) {
        Sched::Run(u) if u == t => {
            let ThreadStatus::Op(op, src) = &s.status[t as usize] else {
                unreachable!("the status was just set")
            };
            match s.engine.visible(t, op, *src, &s.status) {
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
        return match with_shared(|s| s.engine.invisible(t, &op, src)) {
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
    let here = with_shared(|s| match s.engine.replay_inline(t, &op, src) {
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
fn hint(yield_site: Option<SourceLoc>, on: Option<&'static str>) {
    let Some(t) = CURRENT.with(|c| c.get()) else {
        outside_model(if yield_site.is_some() { "yield_now" } else { "spin_loop" })
    };
    let src = SourceLoc::caller();
    // Each hint is a step of the thread (max_steps, the deadline) first.
    let waits = with_shared(|s| {
        s.engine.hint_step(t, src)?;
        match yield_site {
            Some(site) => s.engine.yield_hint(t, site),
            None => s.engine.spin_at(t, WaitSite { src: Some(src), on }),
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
/// [`RunConfig::max_steps`] and lets the run's deadline
/// ([`RunConfig::max_duration`]) stop the execution even when the thread
/// never reaches a shim operation; `src` is where the loop is (a runaway
/// report names it). Outside a model: nothing.
pub fn tick(src: SourceLoc) {
    let Some(t) = CURRENT.with(|c| c.get()) else {
        return;
    };
    if let Err(stop) = with_shared(|s| s.engine.step(t, src)) {
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
    let mut f = with_shared(|s| s.engine.failure(kind, message, Some(t), vec![], Some(src)));
    f.fix = fix;
    abort_with(Stop::Failure(f));
}

/// Records that `loc`, just allocated, lives in `res` (a memory kind, seed
/// 001): the checker then judges whether its system-scope atomics are atomic.
pub fn set_memory_kind(loc: Loc, res: Residence) {
    with_shared(|s| s.engine.set_memory_kind(loc, res));
}

/// Records a kernel launch on `device` whose block `b` is the threads
/// `blocks[b]` (the occupancy-bound progress model dispatches blocks).
pub fn register_kernel(device: u32, blocks: Vec<Vec<ThreadId>>) {
    with_shared(|s| s.engine.register_kernel(device, blocks));
}

/// Announces the DRFrlx class of the calling thread's next access (`None`
/// clears it). The shim's classified atomics set it around each operation.
pub fn set_next_class(class: Option<RlxClass>) {
    let Some(t) = CURRENT.with(|c| c.get()) else { return };
    with_shared(|s| s.engine.set_next_class(t, class));
}

/// The read event of the calling thread's latest load or RMW (the read part
/// of an RMW), if any: what an `Observed` value points at.
pub fn last_read() -> Option<EventId> {
    let t = CURRENT.with(|c| c.get())?;
    with_shared(|s| {
        let end = s.engine.cursor(t);
        let evs = s.engine.graph.thread_events(t);
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
    Some((t, with_shared(|s| s.engine.cursor(t))))
}

/// A copy of the current execution graph (for drawing a witness).
#[track_caller]
pub fn current_graph() -> ExecutionGraph {
    if CURRENT.with(|c| c.get()).is_none() {
        outside_model("current_graph")
    }
    with_shared(|s| s.engine.graph.clone())
}

/// Marks the end of the calling thread's user code (called by the runtime).
fn finish_thread(t: ThreadId, src: SourceLoc) -> Result<(), Stop> {
    with_shared(|s| s.engine.thread_end(t, src))
}

/// Whether `c` names a strategy that exists: a shard `index` below its
/// `count`, a PCT depth of at least 1. The error says what is wrong.
pub fn validate_strategy(c: &StrategyChoice) -> Result<(), String> {
    match *c {
        StrategyChoice::Shard { index, count } if count == 0 || index >= count => Err(format!(
            "shard {index}/{count} does not exist (shards are 0..count, count >= 1)"
        )),
        StrategyChoice::Pct { depth: 0, .. } => Err(
            "PCT depth 0 does not exist: the depth is the number of ordering constraints a bug needs, at least 1 \
             (depth 1: no priority change point)"
                .into(),
        ),
        // A sampled run of no execution would report "complete" and pass
        // `check` on no evidence at all.
        StrategyChoice::Random { iterations: 0, .. } | StrategyChoice::Pct { iterations: 0, .. } => {
            Err("0 iterations: a run of no execution answers nothing (iterations must be at least 1)".into())
        }
        _ => Ok(()),
    }
}

fn make_strategy(c: &StrategyChoice, bound: Option<u32>) -> Result<Box<dyn Strategy>, String> {
    validate_strategy(c)?;
    Ok(match (c, bound) {
        (StrategyChoice::Exhaustive, Some(b)) => Box::new(Trust::bounded(b)),
        (StrategyChoice::Reference, Some(b)) => Box::new(Reference::bounded(b)),
        _ => make_unbounded(c)?,
    })
}

/// Whether `config`'s preemption bound applies to its strategy.
fn bound_applies(config: &RunConfig) -> Option<u32> {
    config
        .preemption_bound
        .filter(|_| matches!(config.strategy, StrategyChoice::Exhaustive | StrategyChoice::Reference))
}

fn make_unbounded(c: &StrategyChoice) -> Result<Box<dyn Strategy>, String> {
    Ok(match c {
        StrategyChoice::Exhaustive => Box::new(Trust::new()),
        StrategyChoice::Reference => Box::new(Reference::new()),
        StrategyChoice::Random { seed, iterations } => Box::new(RandomWalk::new(*seed, *iterations)),
        StrategyChoice::Replay(tok) => Box::new(Replay::new(
            token::decode(tok).map_err(|e| format!("cannot replay: {e}"))?,
        )),
        StrategyChoice::Pct {
            seed,
            iterations,
            depth,
        } => Box::new(Pct::new(*seed, *iterations, *depth)),
        StrategyChoice::Shard { index, count } => Box::new(Trust::sharded(Shard {
            index: *index,
            count: *count,
        })),
    })
}

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
    let strategy = match make_strategy(&config.strategy, bound_applies(config)) {
        Ok(s) => s,
        Err(e) => panic!("scopecheck: {e}"),
    };
    let deadline = config.max_duration.and_then(|d| Instant::now().checked_add(d));
    let mut r = run_strategy(config, deadline, strategy, f, on_end).0;
    r.preemption_bound = bound_applies(config);
    r
}

/// Why a run stopped at its time bound. Said the same way whether the
/// deadline passed between executions or inside one: the one it cut is
/// neither counted nor reported, so the counts are those of the executions
/// that finished.
fn deadline_reason(max: Duration) -> String {
    format!("stopped after max_duration = {max:?} (an execution the deadline cut is not counted)")
}

/// [`run_with`] with a strategy made by the caller (`config.strategy` is
/// not looked at) and the run's deadline (`config.max_duration` is not
/// looked at either). Also returns whether the deadline cut an execution.
fn run_strategy(
    config: &RunConfig,
    deadline: Option<Instant>,
    strategy: Box<dyn Strategy>,
    f: &dyn Fn(),
    on_end: &mut dyn FnMut(&ExecutionGraph, ExecutionEnd),
) -> (RunResult, bool) {
    // The first stack is mapped before any model state exists: a
    // `stack_size` that cannot be mapped is the user's setting, refused
    // plainly (not a panic inside the model labelled as the checker's).
    let mut pool = stacks::Pool::new(config.stack_size).unwrap_or_else(|e| panic!("{e}"));
    let strategy_name = strategy.name();
    let engine = Engine::new(
        config.model,
        strategy,
        Limits {
            max_steps: config.max_steps,
            record_races: config.record_races,
            deadline,
            max_branches: config.max_branches,
        },
    );
    let mut engine = engine;
    engine.set_platform(config.platform.clone());
    engine.set_progress(config.progress);
    SHARED.with(|s| {
        *s.borrow_mut() = Some(Shared {
            engine,
            stop: None,
            spawned: Vec::new(),
            status: Vec::new(),
            unstarted: 0,
            leaks: leaks::Leaks::default(),
            execution: 0,
            live_cells: cells::LiveCells::default(),
            threads_made: 1,
            max_threads: config.max_threads,
        })
    });
    let _guard = StateGuard;
    panic_hook::enter_model();
    overflow::prepare_thread(config.stack_size);
    let mut threads = Threads {
        coroutines: Vec::new(),
        guards: Vec::new(),
        decision: None,
        failed_midway: false,
    };
    let start = Instant::now();
    let mut failures = Vec::new();
    let mut incomplete_reason = None;
    let mut executions = 0u64;
    let mut stray_failure: Option<String> = None;
    let mut cut = false;
    let mut failed_midway = 0u64;
    let mut outcomes = BTreeMap::new();
    let run_id = epoch::new_run();
    loop {
        // The strategy is asked first: a run whose last execution was also
        // the last one a bound allowed is complete, not cut (the execution
        // it prepared is simply not run).
        if !with_shared(|s| s.engine.begin_execution()) {
            break;
        }
        if let Some(max) = config.max_executions {
            if executions >= max {
                incomplete_reason = Some(format!("stopped after max_executions = {max}"));
                break;
            }
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            incomplete_reason = Some(deadline_reason(config.max_duration.unwrap_or_default()));
            break;
        }
        executions += 1;
        epoch::enter(run_id, executions);
        let Some((end, failure)) = run_one(f, &mut pool, &mut threads) else {
            // The deadline passed inside the execution: it is dropped
            // without a verdict (not counted, not shown to `on_end`, no
            // failure), as if the run had stopped just before it.
            cut = true;
            incomplete_reason = Some(deadline_reason(config.max_duration.unwrap_or_default()));
            break;
        };
        let owned = with_shared(|s| {
            let owned = s.engine.owns_execution();
            if owned {
                on_end(&s.engine.graph, end);
            }
            s.engine.end_execution(end);
            owned
        });
        // Taken after every execution, so none sees another's records.
        let recorded = crate::gpu_record::take();
        if owned && end == ExecutionEnd::Complete {
            *outcomes.entry(recorded).or_default() += 1;
        }
        // A shard reports only the executions it owns (another shard
        // reports this one's failure).
        let failure = failure.filter(|_| owned);
        // A replay that left its token found no failure of the program: it
        // says where it diverged instead (with what stopped it, if anything).
        let failure = match failure {
            Some(fl) if with_shared(|s| s.engine.replay_diverged()) => {
                stray_failure = Some(format!("{}: {}", fl.kind.name(), fl.message));
                None
            }
            f => f,
        };
        if let Some(fl) = failure {
            failed_midway += u64::from(threads.failed_midway);
            failures.push(fl);
            if failures.len() >= config.max_failures {
                incomplete_reason = Some("stopped at the first failure".into());
                break;
            }
        }
    }
    let (stats, distinct, diverged, divergence, races, racy_executions) = with_shared(|s| {
        (
            s.engine.stats.clone(),
            s.engine.distinct_complete(),
            s.engine.replay_diverged(),
            s.engine.replay_divergence(),
            std::mem::take(&mut s.engine.races.distinct),
            s.engine.races.racy_executions,
        )
    });
    let divergence = match (divergence, stray_failure) {
        (Some(d), Some(f)) => Some(format!("{d} (what stopped the program: {f})")),
        (d, _) => d,
    };
    // A replay that left its token covered nothing it meant to.
    if let Some(d) = &divergence {
        incomplete_reason.get_or_insert_with(|| d.clone());
    }
    // A failed execution stops where it failed: the systematic explorers
    // never see the events its other threads would have added next, so the
    // executions that extend it past that point (and the alternatives they
    // open) were not explored. Keeping on to `max_failures` covers the
    // rest of the tree, not those. (Under `record_races`, the litmus and
    // DRFrlx runs, a failure already decides the answer; they are left as
    // they were.)
    if failed_midway > 0 && !config.record_races && matches!(strategy_name, "exhaustive" | "reference") {
        incomplete_reason.get_or_insert_with(|| {
            format!(
                "{failed_midway} failed execution(s) stopped at their failure while other threads could go on: \
                 the executions that extend them past it were not explored"
            )
        });
    }
    let result = RunResult {
        stats,
        distinct,
        failures,
        complete: incomplete_reason.is_none(),
        incomplete_reason,
        elapsed: start.elapsed(),
        strategy: strategy_name,
        replay_diverged: diverged,
        replay_divergence: divergence,
        races,
        racy_executions,
        outcomes,
        preemption_bound: None,
    };
    (result, cut)
}

struct Threads {
    coroutines: Vec<Option<ThreadCoroutine>>,
    /// What the stack-overflow handler needs to know about each thread
    /// (written in place when its coroutine is made).
    guards: Vec<Option<overflow::Guard>>,
    /// The scheduling decision the last suspended thread took (see
    /// [`schedule_here`]), for the runtime to carry out.
    decision: Option<Sched>,
    /// Whether the last execution failed while some thread could still go
    /// on (so executions extending it were never seen).
    failed_midway: bool,
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
fn new_coroutine(th: &mut Threads, pool: &mut stacks::Pool, t: ThreadId, body: Box<dyn FnOnce() + '_>) {
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
            crate::thread::registry::thread_exit(t);
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
fn resume(th: &mut Threads, pool: &mut stacks::Pool, t: ThreadId, with: Resume) -> Option<Result<(), Stop>> {
    let co = th.coroutines[t as usize].as_mut().expect("thread has a coroutine");
    let guard = th.guards[t as usize].as_ref().expect("thread has a guard");
    CURRENT.with(|c| c.set(Some(t)));
    overflow::enter(guard);
    let r = co.resume(with);
    overflow::leave();
    match r {
        CoroutineResult::Yield(Yield::Op(decision)) => {
            th.decision = decision;
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
            set_status(t, ThreadStatus::Gone);
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
                        s.engine.failure(
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
                        s.engine.failure(
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
fn start_spawned(th: &mut Threads, pool: &mut stacks::Pool) -> Option<Result<(), Stop>> {
    loop {
        // (Asked after every step: the common answer takes nothing.)
        let spawned = with_shared(|s| {
            s.unstarted = s.spawned.len();
            (!s.spawned.is_empty()).then(|| std::mem::take(&mut s.spawned))
        });
        let mut spawned = spawned?.into_iter();
        while let Some((child, body)) = spawned.next() {
            let i = child as usize;
            with_shared(|s| {
                if s.status.len() <= i {
                    s.status.resize_with(i + 1, || ThreadStatus::Gone);
                }
                s.unstarted -= 1;
            });
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
fn run_one(f: &dyn Fn(), pool: &mut stacks::Pool, th: &mut Threads) -> Option<(ExecutionEnd, Option<Failure>)> {
    // The vectors are kept from one execution to the next (their capacity).
    th.coroutines.clear();
    th.guards.clear();
    th.decision = None;
    let probes = with_shared(|s| {
        s.status.clear();
        s.status.push(ThreadStatus::Gone);
        s.execution += 1;
        s.live_cells.clear();
        s.threads_made = 1;
        s.leaks.reset()
    });
    drop(probes);
    let main_src = SourceLoc::caller();
    with_shared(|s| s.engine.start_main(main_src));
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
        // The decision the suspended thread took, or a new one.
        let sched = match th.decision.take() {
            Some(d) => d,
            None => with_shared(|s| s.engine.schedule(&s.status)),
        };
        match sched {
            Sched::Done => break Ok(ExecutionEnd::Complete),
            Sched::Blocked => break Err(Stop::Moot),
            Sched::Deadlock(f) => break Err(Stop::Failure(f)),
            Sched::Run(t) => {
                // What the thread resumes with (`None`: it waits on), in
                // one borrow of the shared state.
                let step = with_shared(|s| {
                    let Shared { engine, status, .. } = s;
                    match &status[t as usize] {
                        ThreadStatus::SpinWait => {
                            engine.wake(t);
                            Ok(Some(Resume::Go))
                        }
                        ThreadStatus::Op(op, src) => engine.visible(t, op, *src, status).map(|r| r.map(Resume::Result)),
                        ThreadStatus::Gone | ThreadStatus::Discarded => {
                            unreachable!("scheduled a thread that cannot run")
                        }
                    }
                });
                match step {
                    Ok(Some(with)) => outcome = resume(th, pool, t, with),
                    Ok(None) => {}
                    Err(stop) => break Err(stop),
                }
                if outcome.is_none() {
                    outcome = start_spawned(th, pool);
                }
            }
        }
    };
    // A complete execution must have freed what it allocated through the
    // shim (loom's leak check; abandoned executions are not judged).
    let result = match result {
        Ok(ExecutionEnd::Complete) => match with_shared(|s| {
            s.leaks.first_leak().map(|l| {
                s.engine
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
        Err(Stop::Failure(f)) if !matches!(f.kind, FailureKind::Deadlock | FailureKind::Hang) => {
            let failing = f.thread;
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
    let unstarted = with_shared(|s| {
        s.unstarted = 0;
        std::mem::take(&mut s.spawned)
    });
    teardown::abandon_bodies(unstarted);
    CURRENT.with(|c| c.set(None));
    match result {
        Ok(end) => Some((end, None)),
        Err(Stop::Moot) => Some((ExecutionEnd::Blocked, None)),
        Err(Stop::Failure(f)) => Some((ExecutionEnd::Failed, Some(*f))),
        Err(Stop::Cut) => None,
    }
}
