//! The engine: turns each operation a thread performs into events of the
//! execution graph, replaying the part of the graph the explorer kept and
//! asking the [`Strategy`] for every new choice (which thread, which write to
//! read, where in mo).
//!
//! The runtime (in the `instrument` crate) owns the coroutines and calls the
//! engine; the engine knows nothing about them.

use crate::drfrlx::RlxClass;
use crate::event::*;
use crate::explore::Strategy;
use crate::failure::{EventInfo, Failure, FailureKind};
use crate::graph::ExecutionGraph;
use crate::graph::SyncRules;
use crate::memory::{MemoryTable, Platform, Residence};

mod deadline;
mod hang;
mod memory_race;
mod replay_values;
mod yield_hint;
use crate::model::relations::Relations;
use crate::model::{Candidates, MemoryModel, Places};
use crate::progress::{Progress, ProgressState};
use crate::races;
use crate::scope::narrowest_common;
use crate::token;
use smallvec::SmallVec;

/// Why an execution stops early.
#[derive(Debug)]
pub enum Stop {
    /// A failure to report.
    Failure(Box<Failure>),
    /// The execution is not worth finishing (an RMW that breaks atomicity was
    /// added only to compute revisits, or the graph became inconsistent): it
    /// is counted as blocked.
    Moot,
    /// The run's deadline ([`Limits::deadline`]) passed during the
    /// execution: it is abandoned unfinished, neither counted nor reported
    /// (what it would have done is unknown), and the run stops.
    Cut,
}

/// What the runtime knows about a thread when it asks whom to run.
#[derive(Clone, Debug)]
pub enum ThreadStatus {
    /// No such thread, or it has finished.
    Gone,
    /// It waits to perform this visible operation.
    Op(Op, SourceLoc),
    /// It called `spin_loop`/`yield_now` and waits for news.
    SpinWait,
    /// It gave up this execution (a litmus loop past its unroll bound): it
    /// never runs again, the others go on so that their events (and the
    /// alternatives they open) are still explored, and the execution then
    /// counts as blocked rather than complete.
    Discarded,
}

/// The scheduler's answer.
#[derive(Debug)]
pub enum Sched {
    /// Run this thread: perform its pending operation (or wake it from a spin).
    Run(ThreadId),
    /// All threads finished.
    Done,
    /// Nothing can run and some thread discarded the execution, or a replay
    /// left its token: it is blocked.
    Blocked,
    /// No thread can run: the program hangs.
    Deadlock(Box<Failure>),
}

/// How an execution ended.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ExecutionEnd {
    /// All threads finished.
    Complete,
    /// Abandoned without a result (counted as blocked).
    Blocked,
    /// Stopped at a failure.
    Failed,
}

/// Counters over a whole exploration.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Complete executions.
    pub complete: u64,
    /// Blocked or abandoned executions (an RMW that broke atomicity, a spin
    /// iteration that saw nothing new, an inconsistent step).
    pub blocked: u64,
    /// Executions that ended in a failure.
    pub failed: u64,
    /// Events added (not replayed) over the whole exploration.
    pub events_added: u64,
    /// Events replayed.
    pub events_replayed: u64,
    /// Executions the strategy stopped because they went past its search
    /// bound (a preemption bound; see [`Strategy::within_bound`]): neither
    /// complete nor blocked, and not checked to their end.
    pub pruned: u64,
}

/// What one loop iteration read: per location, the mo-latest write read.
type IterReads = SmallVec<[(Loc, EventId); 4]>;

#[derive(Clone, Default)]
struct ThreadRt {
    /// Index of the thread's next event.
    cursor: u32,
    /// Allocations made so far (names the next location).
    alloc_seq: u32,
    /// Operations performed (for the step bound).
    steps: u64,
    /// Reads since the last spin hint, one per location: (location, the
    /// mo-latest write read there). Kept per location, not per read, so a
    /// thread that reads one location many times without a spin hint keeps
    /// one entry (in place, without an allocation per execution).
    spin_reads: SmallVec<[(Loc, EventId); 4]>,
    /// What the previous iteration read, if it was a waiting one (per
    /// location, the mo-latest write read).
    spin_prev: Option<SmallVec<[(Loc, EventId); 4]>>,
    /// Whether the thread wrote (outside mutexes) since the last spin hint.
    spin_wrote: bool,
    /// Set while the thread waits at a spin hint.
    spin_wait: Option<SpinWait>,
    /// Where the thread's previous `yield_now` was and what the iteration
    /// before it read, if that iteration read something and wrote nothing
    /// (`yield_hint`).
    yield_prev: Option<(SourceLoc, IterReads)>,
    /// Set while the thread waits at a mutex acquisition: the stamp after which
    /// a new write may let it proceed.
    await_after: Option<u32>,
    /// The index of the event that follows the thread's last spin hint
    /// (marked [`Event::after_hint`] when it is added).
    hint_at: Option<u32>,
    finished: bool,
}

/// A thread waiting at a spin hint: per location it read in its last
/// iteration, the mo-latest write it read there.
#[derive(Clone)]
struct SpinWait {
    read: SmallVec<[(Loc, EventId); 4]>,
    /// Where the thread waits, and on what, for the hang report.
    at: WaitSite,
}

/// Where a thread waits at a spin hint, for reports: the hint's source line
/// (the user's, through `#[track_caller]`) and, for a hint inside a shim
/// object (`Condvar::wait`, `RwLock::read`, ...), what the object is.
#[derive(Copy, Clone, Debug, Default)]
pub struct WaitSite {
    /// The hint's source location, if known.
    pub src: Option<SourceLoc>,
    /// What the thread waits on, as a noun phrase (`"a condvar"`); `None`
    /// for a `spin_loop` or `yield_now` in user code.
    pub on: Option<&'static str>,
}

/// A choice of write for a read: the write, and for a weak compare-exchange
/// that could succeed, whether it fails spuriously.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct RfChoice {
    /// The write read from.
    pub write: EventId,
    /// A spurious failure of `compare_exchange_weak`.
    pub spurious: bool,
}

/// Read choices of one new read (inline: made for every read added).
type Choices = SmallVec<[RfChoice; 8]>;

/// Limits of one exploration.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Steps a thread may take in one execution.
    pub max_steps: u64,
    /// Keep going after a data race: races are found by scanning each
    /// complete execution and collected in [`Engine::races`] instead of
    /// ending the execution (herd's treatment, used for litmus tests).
    pub record_races: bool,
    /// When the run must stop, even in the middle of an execution: the
    /// clock is read every few hundred steps ([`Stop::Cut`]).
    pub deadline: Option<std::time::Instant>,
    /// Steps all threads together may take in one execution (loom's
    /// `max_branches`); past it the execution fails as a runaway, in loom's
    /// words. `None`: no such bound.
    pub max_branches: Option<u64>,
}

/// Data races collected when [`Limits::record_races`] is set.
#[derive(Debug, Default)]
pub struct RaceLog {
    /// One report per distinct pair of source lines, in the order found.
    pub distinct: Vec<Failure>,
    /// The pairs of source lines already reported.
    seen: std::collections::HashSet<(SourceLoc, SourceLoc)>,
    /// Complete executions with at least one race.
    pub racy_executions: u64,
}

/// The engine.
pub struct Engine {
    /// The execution graph of the current execution.
    pub graph: ExecutionGraph,
    /// The memory model.
    pub model: MemoryModel,
    /// Exploration statistics.
    pub stats: Stats,
    strategy: Box<dyn Strategy>,
    threads: Vec<ThreadRt>,
    limits: Limits,
    /// Races collected under [`Limits::record_races`].
    pub races: RaceLog,
    /// The scope of the operation being performed (events take it).
    cur_scope: Scope,
    /// Per thread, the DRFrlx class the runtime announced for the thread's
    /// next access (its read and write events take it).
    next_class: Vec<Option<RlxClass>>,
    /// Memory kinds of locations and the platform (seed 001, Atomicity).
    memory: MemoryTable,
    /// The forward-progress model and the kernels of this execution.
    progress: ProgressState,
    /// The strategy's fixed answers, asked at every step (kept here rather
    /// than asked through the trait object each time).
    unfiltered: bool,
    wants_revisits: bool,
    takes_leftmost: bool,
    /// Whether the strategy checks each new visible step (a replay).
    checks_steps: bool,
    /// Steps of every thread in the current execution (`Limits::max_branches`).
    branches: u64,
    /// Whether the strategy bounds the search (asked before each new step).
    bounds_search: bool,
    /// Whether the current execution was stopped at the search bound.
    pruned_now: bool,
    /// Whether the whole kept graph of this execution has been replayed.
    replayed: bool,
    /// The run's deadline, read every few hundred steps.
    deadline: deadline::Deadline,
}

impl Engine {
    /// An engine exploring under `model` with `strategy`.
    pub fn new(model: MemoryModel, strategy: Box<dyn Strategy>, limits: Limits) -> Engine {
        Engine {
            unfiltered: strategy.unfiltered(),
            wants_revisits: strategy.wants_revisits(),
            takes_leftmost: strategy.takes_leftmost(),
            checks_steps: strategy.checks_steps(),
            branches: 0,
            bounds_search: strategy.bounds_search(),
            pruned_now: false,
            replayed: false,
            deadline: deadline::Deadline::new(limits.deadline),
            graph: ExecutionGraph::new(),
            model,
            stats: Stats::default(),
            strategy,
            threads: Vec::new(),
            limits,
            races: RaceLog::default(),
            cur_scope: Scope::System,
            next_class: Vec::new(),
            memory: MemoryTable::default(),
            progress: ProgressState::default(),
        }
    }

    /// Sets the platform whose device attributes decide whether system-scope
    /// atomics on locations with a memory kind are atomic.
    pub fn set_platform(&mut self, platform: Platform) {
        self.memory.platform = platform;
    }

    /// Sets the forward-progress model.
    pub fn set_progress(&mut self, model: Progress) {
        self.progress.model = model;
    }

    /// Records that `loc` (just allocated) lives in `res` (`gpu::alloc_in`).
    pub fn set_memory_kind(&mut self, loc: Loc, res: Residence) {
        self.memory.set(loc, res);
    }

    /// Records a kernel launch on `device`: the threads of each block.
    pub fn register_kernel(&mut self, device: u32, blocks: Vec<Vec<ThreadId>>) {
        self.progress.register_kernel(device, blocks);
    }

    /// The strategy's name.
    pub fn strategy_name(&self) -> &'static str {
        self.strategy.name()
    }

    /// Whether the current execution is this run's to count and report (see
    /// [`crate::explore::Strategy::owns_execution`]).
    pub fn owns_execution(&self) -> bool {
        self.strategy.owns_execution()
    }

    /// Prepares the next execution. Returns false when the exploration is over.
    pub fn begin_execution(&mut self) -> bool {
        if !self.strategy.next_execution(&mut self.graph, self.model) {
            return false;
        }
        self.replayed = false;
        self.branches = 0;
        self.pruned_now = false;
        // Only backward revisits, the `porf` model and the unfair progress
        // check ask porf views; a strategy starting from an empty graph
        // with none of them spares their joins.
        let porf_needed =
            self.wants_revisits || self.model == MemoryModel::Porf || self.progress.model != Progress::Fair;
        self.graph.keep_porf(porf_needed);
        // One record per thread of the kept graph, made in place (growing
        // the vector one spawn at a time cloned a default record each time).
        self.threads.clear();
        self.threads.resize_with(self.graph.num_threads(), ThreadRt::default);
        // A thread abandoned in the middle of a classified access must not
        // pass the class on to its first access of the next execution.
        self.next_class.clear();
        // Memory kinds and kernels are registered again as the program re-runs.
        self.memory.clear();
        self.progress.clear();
        true
    }

    /// Ends the current execution. A replay may turn a failure into no
    /// result (the failure is not the token's): see
    /// [`Engine::replay_diverged`], which the caller asks before reporting it.
    pub fn end_execution(&mut self, end: ExecutionEnd) {
        let end = if end != ExecutionEnd::Complete && self.checks_steps && !self.strategy.accepts_end(&self.graph, end)
        {
            ExecutionEnd::Blocked
        } else {
            end
        };
        if std::mem::take(&mut self.pruned_now) && end == ExecutionEnd::Blocked {
            if self.strategy.owns_execution() {
                self.stats.pruned += 1;
            }
            self.strategy.execution_done(&self.graph, end);
            return;
        }
        // A complete execution the model's complete-graph axioms reject (c11)
        // did not happen: it ends as blocked, like an inconsistent step.
        let end = if end == ExecutionEnd::Complete && self.model.check_complete(&self.graph).is_err() {
            ExecutionEnd::Blocked
        } else {
            end
        };
        if !self.strategy.owns_execution() {
            // Another shard's execution: it counts there.
            self.strategy.execution_done(&self.graph, end);
            return;
        }
        if end == ExecutionEnd::Complete && self.limits.record_races {
            self.log_races();
        }
        match end {
            ExecutionEnd::Complete => self.stats.complete += 1,
            ExecutionEnd::Blocked => self.stats.blocked += 1,
            ExecutionEnd::Failed => self.stats.failed += 1,
        }
        self.strategy.execution_done(&self.graph, end);
    }

    /// Counts the current (complete) execution as racy if it is, and keeps a
    /// report of each pair of source lines not seen racing before.
    fn log_races(&mut self) {
        if self.model == MemoryModel::Porf {
            // `porf` has no happens-before: races are its client model's business.
            return;
        }
        let mut pairs = races::find_races(&self.graph, self.model.sync_rules().scoped);
        // Races that a memory kind makes (system-scope atomics that are not
        // atomic there); without memory kinds, none.
        let memory = if self.memory.is_empty() {
            Vec::new()
        } else {
            self.memory.find_races(&self.graph, self.model.sync_rules())
        };
        pairs.retain(|&(a, b)| {
            !memory
                .iter()
                .any(|m| (m.first, m.second) == (a, b) || (m.first, m.second) == (b, a))
        });
        if pairs.is_empty() && memory.is_empty() {
            return;
        }
        self.races.racy_executions += 1;
        for race in memory {
            let key = (self.graph.event(race.first).src, self.graph.event(race.second).src);
            if self.races.seen.insert(key) {
                if let Stop::Failure(f) = self.memory_race(race) {
                    self.races.distinct.push(*f);
                }
            }
        }
        for (a, b) in pairs {
            let key = (self.graph.event(a).src, self.graph.event(b).src);
            if self.races.seen.insert(key) {
                if let Stop::Failure(f) = self.race(a, b) {
                    self.races.distinct.push(*f);
                }
            }
        }
    }

    /// Distinct complete executions, when the strategy may repeat some.
    pub fn distinct_complete(&self) -> Option<u64> {
        self.strategy.distinct_complete()
    }

    /// Whether a replay met choices its token did not hold.
    pub fn replay_diverged(&self) -> bool {
        self.strategy.diverged()
    }

    /// For a replay that diverged: where and how, in the program's terms.
    pub fn replay_divergence(&self) -> Option<String> {
        self.strategy.divergence()
    }

    /// For a strategy that checks steps (a replay): shows it thread `t`'s
    /// next visible step; `Err(Moot)` when it does not agree (the replay
    /// diverged: the execution stops without a result). Asked after the
    /// checks that can fail the step itself (step bound, misuse, barrier
    /// divergence), so a recorded failure of that kind replays.
    #[inline]
    fn check_step(&mut self, t: ThreadId, op: &Op, src: SourceLoc) -> Result<(), Stop> {
        if self.checks_steps && !self.strategy.check_step(&self.graph, t, op, src) {
            return Err(Stop::Moot);
        }
        Ok(())
    }

    /// Whether a strategy that checks steps has diverged (asked after each
    /// choice it makes: a choice the token does not hold ends the execution).
    #[inline]
    fn off_track(&self) -> bool {
        self.checks_steps && self.strategy.diverged()
    }

    /// The progress of the exploration, if the strategy can tell.
    pub fn progress(&self) -> Option<f64> {
        self.strategy.progress()
    }

    #[inline]
    fn rt(&mut self, t: ThreadId) -> &mut ThreadRt {
        let i = t as usize;
        if self.threads.len() <= i {
            self.threads.resize_with(i + 1, ThreadRt::default);
        }
        &mut self.threads[i]
    }

    fn replaying(&self, t: ThreadId) -> bool {
        self.threads.get(t as usize).map_or(0, |r| r.cursor) < self.graph.thread_len(t)
    }

    /// Builds a failure report on the current graph.
    pub fn failure(
        &self,
        kind: FailureKind,
        message: String,
        thread: Option<ThreadId>,
        events: Vec<EventId>,
        location: Option<SourceLoc>,
    ) -> Box<Failure> {
        Box::new(Failure {
            kind,
            message,
            location,
            thread,
            events: events.iter().map(|&e| EventInfo::of(&self.graph, e)).collect(),
            fix: None,
            cause: None,
            graph: self.graph.clone(),
            token: token::encode(&self.graph, self.model),
            hang: None,
        })
    }

    fn nondeterminism(&self, t: ThreadId, what: &str, src: SourceLoc) -> Stop {
        let idx = self.threads[t as usize].cursor;
        let have = self.graph.event(EventId::new(t, idx)).describe();
        Stop::Failure(self.failure(
            FailureKind::Nondeterminism,
            format!(
                "thread {t} did `{what}` at {src} where an earlier run with the same choices did `{have}`; {}",
                replay_values::CAUSES
            ),
            Some(t),
            vec![EventId::new(t, idx)],
            Some(src),
        ))
    }

    /// Counts a step of thread `t` at `src` toward `max_steps` and the
    /// deadline: every operation's, and (through the runtime's `tick`) a
    /// litmus loop iteration that touches no memory, so loops that do
    /// nothing else (nested ones run 2^depth iterations under `--unroll 2`)
    /// still end.
    pub fn step(&mut self, t: ThreadId, src: SourceLoc) -> Result<(), Stop> {
        self.count_step(t, src, |t, max, src| {
            format!(
                "thread {t} took more than {max} steps in one execution (at {src}); a loop that waits for \
                 another thread needs `scopecheck::hint::spin_loop()` or `thread::yield_now()` in its body, or \
                 raise `max_steps`"
            )
        })
    }

    /// Counts one step of thread `t` at `src` toward `max_steps` and
    /// checks the deadline: the rule every step of a thread shares (an
    /// operation's, a spin hint's). `runaway` words the failure when the
    /// thread went past `max_steps`.
    pub(crate) fn count_step(
        &mut self,
        t: ThreadId,
        src: SourceLoc,
        runaway: impl FnOnce(ThreadId, u64, SourceLoc) -> String,
    ) -> Result<(), Stop> {
        if self.deadline.passed_at_step() {
            return Err(Stop::Cut);
        }
        self.branches += 1;
        if let Some(max) = self.limits.max_branches {
            if self.branches > max {
                return Err(Stop::Failure(self.failure(
                    FailureKind::Runaway,
                    format!(
                        "Model exceeded maximum number of branches. This is often caused by an algorithm \
                         requiring the processor to make progress, e.g. spin locks. (max_branches = {max}: the \
                         threads together took more than {max} steps in one execution; thread {t} took the last at \
                         {src})"
                    ),
                    Some(t),
                    vec![],
                    Some(src),
                )));
            }
        }
        let max = self.limits.max_steps;
        let r = self.rt(t);
        r.steps += 1;
        if r.steps > max {
            return Err(Stop::Failure(self.failure(
                FailureKind::Runaway,
                runaway(t, max, src),
                Some(t),
                vec![],
                Some(src),
            )));
        }
        Ok(())
    }

    /// Adds (or replays) the start of thread 0.
    pub fn start_main(&mut self, src: SourceLoc) {
        if self.replaying(0) {
            self.rt(0).cursor = 1;
            self.stats.events_replayed += 1;
            return;
        }
        let kind = EventKind::Start { parent: None };
        self.graph
            .push_event(0, kind, src, Scope::System, self.model.sync_rules(), true);
        self.rt(0).cursor = 1;
        self.stats.events_added += 1;
    }

    /// The index the next event of thread `t` takes (while a thread replays
    /// a kept graph, its later events are already in the graph).
    pub fn cursor(&self, t: ThreadId) -> u32 {
        self.threads.get(t as usize).map_or(0, |r| r.cursor)
    }

    /// The DRFrlx class announced for thread `t`'s next access, if any.
    pub fn next_class(&self, t: ThreadId) -> Option<RlxClass> {
        self.next_class.get(t as usize).copied().flatten()
    }

    /// Announces the DRFrlx class of thread `t`'s next access (`None`: the
    /// access is not classified). The runtime sets it before a classified
    /// operation and clears it after; events added for `t` in between take it.
    pub fn set_next_class(&mut self, t: ThreadId, class: Option<RlxClass>) {
        let i = t as usize;
        if self.next_class.len() <= i {
            if class.is_none() {
                return;
            }
            self.next_class.resize(i + 1, None);
        }
        self.next_class[i] = class;
    }

    fn push(&mut self, t: ThreadId, kind: EventKind, src: SourceLoc, added_max: bool) -> EventId {
        let scope = self.cur_scope;
        let access = matches!(kind, EventKind::Read(_) | EventKind::Write(_));
        let id = self
            .graph
            .push_event(t, kind, src, scope, self.model.sync_rules(), added_max);
        if access {
            if let Some(c) = self.next_class.get(t as usize).copied().flatten() {
                self.graph.event_mut(id).rlx = Some(c);
            }
        }
        let r = self.rt(t);
        r.cursor = id.index + 1;
        if r.hint_at == Some(id.index) {
            self.graph.event_mut(id).after_hint = true;
        }
        self.stats.events_added += 1;
        id
    }

    /// Performs an operation that involves no choice (allocation, fence,
    /// cell access, spawn).
    pub fn invisible(&mut self, t: ThreadId, op: &Op, src: SourceLoc) -> Result<OpResult, Stop> {
        self.step(t, src)?;
        self.cur_scope = op.scope();
        if self.replaying(t) {
            let id = EventId::new(t, self.threads[t as usize].cursor);
            let ev = self.graph.event(id).kind.clone();
            let res = match (op, &ev) {
                (
                    Op::Alloc { init, kind, .. },
                    EventKind::Alloc {
                        loc,
                        init: kept,
                        kind: k2,
                        ..
                    },
                ) if kind == k2 => {
                    if init != kept {
                        self.replay_init(t, *loc, *init, src)?;
                    }
                    self.rt(t).alloc_seq += 1;
                    OpResult::Loc(*loc)
                }
                (Op::Fence { .. }, EventKind::Fence { .. }) => OpResult::Done,
                (Op::Observe { of }, EventKind::Observe { of: o2 }) if of == o2 => OpResult::Done,
                (Op::CellAccess { loc, .. }, EventKind::Cell { loc: l2, .. }) if loc == l2 => OpResult::Done,
                (Op::Spawn { .. }, EventKind::Spawn { child }) => {
                    let child = *child;
                    self.rt(child).cursor = 1; // its Start event
                    self.stats.events_replayed += 1;
                    OpResult::Thread(child)
                }
                _ => return Err(self.nondeterminism(t, &format!("{op:?}"), src)),
            };
            self.rt(t).cursor += 1;
            self.stats.events_replayed += 1;
            return Ok(res);
        }
        match *op {
            Op::Alloc {
                init,
                kind,
                space,
                addresses,
            } => {
                let seq = self.rt(t).alloc_seq;
                self.rt(t).alloc_seq += 1;
                let loc = Loc::new(t, seq);
                let alloc = EventKind::Alloc {
                    loc,
                    init,
                    kind,
                    space,
                    addresses,
                };
                self.push(t, alloc, src, true);
                Ok(OpResult::Loc(loc))
            }
            Op::Fence { order, .. } => {
                let id = self.push(t, EventKind::Fence { order }, src, true);
                if order.is_sc() && self.model.check_added(&self.graph, id).is_err() {
                    return Err(Stop::Moot);
                }
                self.declarative_check()?;
                Ok(OpResult::Done)
            }
            Op::Observe { of } => {
                if of.thread != t || !self.graph.contains(of) {
                    return Err(Stop::Failure(self.failure(
                        FailureKind::Internal,
                        format!("thread {t} observed {of:?} at {src}, which is not one of its own events"),
                        Some(t),
                        vec![],
                        Some(src),
                    )));
                }
                self.push(t, EventKind::Observe { of }, src, true);
                Ok(OpResult::Done)
            }
            Op::CellAccess { loc, write } => {
                self.check_loc(t, loc, src, false)?;
                let id = self.push(t, EventKind::Cell { loc, write }, src, true);
                self.check_cell_race(id, loc, write)?;
                Ok(OpResult::Done)
            }
            Op::Spawn { placement } => {
                let child = self.graph.free_thread_slot();
                self.graph.set_placement(child, placement);
                let sp = self.push(t, EventKind::Spawn { child }, src, true);
                let n = self.threads.len().max(child as usize + 1);
                self.threads.resize_with(n, ThreadRt::default);
                self.threads[child as usize] = ThreadRt::default();
                self.push(child, EventKind::Start { parent: Some(sp) }, src, true);
                Ok(OpResult::Thread(child))
            }
            _ => unreachable!("visible operation {op:?} given to Engine::invisible"),
        }
    }

    fn check_loc(&self, t: ThreadId, loc: Loc, src: SourceLoc, atomic: bool) -> Result<(), Stop> {
        match self.graph.loc(loc) {
            // (Asked at every access: only local memory has an owner.)
            Some(d) if (d.kind == LocKind::Cell) != atomic && d.space != Space::Local => Ok(()),
            Some(d) if (d.kind == LocKind::Cell) != atomic => self.check_local_owner(t, loc, d, src),
            Some(_) => Err(Stop::Failure(self.failure(
                FailureKind::Internal,
                format!("location {loc} used as the wrong kind of object at {src}"),
                Some(t),
                vec![],
                Some(src),
            ))),
            None => Err(Stop::Failure(self.failure(
                FailureKind::Misuse,
                format!(
                    "thread {t} used at {src} an object created in another execution or outside \
                     `scopecheck::model` (objects must be created inside the model's closure)"
                ),
                Some(t),
                vec![],
                Some(src),
            ))),
        }
    }

    /// Local memory has one instance per block: an access to a local
    /// location by a host thread, or by a thread of another block than an
    /// earlier access's, is a misuse (the instance was shared instead of
    /// made per block). Judged on the graph, so it needs no state of its own.
    fn check_local_owner(&self, t: ThreadId, loc: Loc, d: &crate::graph::LocData, src: SourceLoc) -> Result<(), Stop> {
        let me = self.graph.placement(t);
        let block = |p: &Placement| p.gpu.map(|g| (g.device, g.block));
        let created = self.graph.event(d.alloc).src;
        let other =
            d.mo.iter()
                .chain(&d.reads)
                .chain(&d.cells)
                .find(|e| block(self.graph.placement(e.thread)) != block(me));
        let why = match (me.gpu, other) {
            (None, _) => format!(
                "thread {t} (a host thread) accessed local memory {loc} (created at {created}) at {src}; local \
                 memory exists only inside a kernel"
            ),
            (Some(_), Some(o)) => format!(
                "local memory {loc} (created at {created}) is used by two blocks: thread {} {} at {} and thread {t} \
                 {} at {src}; local memory has one instance per block",
                o.thread,
                self.graph.placement(o.thread).describe(),
                self.graph.event(*o).src,
                me.describe()
            ),
            (Some(_), None) => return Ok(()),
        };
        let mut f = self.failure(FailureKind::Misuse, why, Some(t), vec![], Some(src));
        f.fix = Some(
            "make local memory in `gpu::launch`'s per-block closure (`|_| Buffer::local(n)`) and reach it \
             through `ctx.shared()`"
                .into(),
        );
        Err(Stop::Failure(f))
    }

    /// Thread `t` finished.
    pub fn thread_end(&mut self, t: ThreadId, src: SourceLoc) -> Result<(), Stop> {
        if self.replaying(t) {
            let id = EventId::new(t, self.threads[t as usize].cursor);
            if !matches!(self.graph.event(id).kind, EventKind::End) {
                return Err(self.nondeterminism(t, "return", src));
            }
            self.rt(t).cursor += 1;
            self.rt(t).finished = true;
            self.stats.events_replayed += 1;
            return Ok(());
        }
        self.push(t, EventKind::End, src, true);
        self.rt(t).finished = true;
        Ok(())
    }

    /// Thread `t` called a spin hint: the end of a loop iteration.
    ///
    /// The spin contract: an iteration that read something and wrote nothing
    /// (mutex lock words aside) is a *waiting* iteration. After one, the
    /// thread waits until another thread has written, to a location the
    /// iteration read, a write mo-after the one it read there; and a next
    /// waiting iteration that reads the same locations must read at least one
    /// such newer write, since otherwise it repeats the previous one step for step.
    /// Both are properties of the graph, so every strategy explores the same
    /// executions. Returns whether the thread must wait; `Err(Moot)` when the
    /// iteration saw nothing new.
    /// `at` is where the thread waits, for the hang report.
    pub fn spin_at(&mut self, t: ThreadId, at: WaitSite) -> Result<bool, Stop> {
        let replaying = self.replaying(t);
        let r = self.rt(t);
        r.hint_at = Some(r.cursor);
        // Already one entry per location, the mo-latest write read there.
        let read = std::mem::take(&mut r.spin_reads);
        let wrote = std::mem::replace(&mut r.spin_wrote, false);
        // A spin hint ends the iteration a later `yield_now` compares with.
        r.yield_prev = None;
        if wrote || read.is_empty() {
            r.spin_prev = None;
            return Ok(false);
        }
        let prev = self.threads[t as usize].spin_prev.take();
        if !replaying {
            if let Some(prev) = prev {
                if !self.sees_news(t, &prev, &read) {
                    return Err(Stop::Moot);
                }
            }
        }
        let r = self.rt(t);
        r.spin_prev = Some(read.clone());
        if replaying {
            return Ok(false);
        }
        r.spin_wait = Some(SpinWait { read, at });
        Ok(true)
    }

    /// Whether `w` (read by `t` at `loc`) is news with respect to `before`:
    /// another thread's write, mo-after what `t` read there before.
    fn is_news(&self, t: ThreadId, loc: Loc, before: EventId, w: EventId) -> bool {
        !w.is_init() && w.thread != t && self.graph.mo_position(loc, w) > self.graph.mo_position(loc, before)
    }

    /// Whether an iteration that read `now` differs from the previous one,
    /// which read `prev`: it read other locations (the thread took another
    /// path, e.g. it was woken by news on a location it no longer reads), or it
    /// read news somewhere. Only an exact repetition is pruned: it was woken by
    /// news on one of these very locations and chose not to read it, so the
    /// branch that reads it covers this one.
    fn sees_news(&self, t: ThreadId, prev: &[(Loc, EventId)], now: &[(Loc, EventId)]) -> bool {
        let same_locs = now.len() == prev.len() && now.iter().all(|(l, _)| prev.iter().any(|(p, _)| p == l));
        !same_locs
            || now.iter().any(|&(loc, w)| {
                let before = prev.iter().find(|(l, _)| *l == loc).expect("same locations").1;
                self.is_news(t, loc, before, w)
            })
    }

    fn spin_woken(&self, t: ThreadId, w: &SpinWait) -> bool {
        w.read.iter().any(|&(loc, before)| {
            self.graph
                .loc(loc)
                .is_some_and(|d| d.mo.iter().any(|&x| self.is_news(t, loc, before, x)))
        })
    }

    /// The candidates of an await (mutex) read: the coherent writes whose value
    /// satisfies the condition, split into those free to read and those already
    /// consumed by another RMW.
    fn await_candidates(&self, t: ThreadId, loc: Loc, aw: Await) -> (Vec<EventId>, Vec<EventId>) {
        let mut free = Vec::new();
        let mut taken = Vec::new();
        for c in self.model.read_candidates(&self.graph, t, loc) {
            if aw.admits(self.graph.write_value(loc, c)) {
                if self.graph.rmw_reader_of(loc, c, None).is_some() {
                    taken.push(c);
                } else {
                    free.push(c);
                }
            }
        }
        (free, taken)
    }

    /// Reference mode: whether some write satisfying the await can be read
    /// (with the RMW's write) in a graph that satisfies the axioms.
    #[allow(clippy::too_many_arguments)]
    fn await_possible_declarative(
        &self,
        t: ThreadId,
        loc: Loc,
        aw: Await,
        rop: RmwOp,
        ty: ValueType,
        success: Order,
        scope: Scope,
        src: &SourceLoc,
    ) -> bool {
        self.all_writes(loc).into_iter().any(|w| {
            let old = self.graph.write_value(loc, w);
            let Some(new) = rop.apply(ty, old).filter(|_| aw.admits(old)) else {
                return false;
            };
            let mut g = self.graph.clone();
            let rk = EventKind::Read(ReadEvent {
                loc,
                order: Order::read_part(success),
                rf: w,
                value: old,
                rmw: Some((rop, ty, success, success)),
                spurious: false,
                await_: Some(aw),
            });
            g.push_event(t, rk, *src, scope, self.model.sync_rules(), false);
            let wk = EventKind::Write(WriteEvent {
                loc,
                order: Order::write_part(success),
                value: new,
                rmw: true,
            });
            let wid = g.push_event(t, wk, *src, scope, self.model.sync_rules(), false);
            let pos = g.mo_position(loc, w) + 1;
            g.insert_mo(loc, wid, pos);
            self.model.consistent_declarative(&g).is_ok()
        })
    }

    /// Whether thread `t`, in status `st`, can take its next step. Asked
    /// for every thread at every step: the common answer (an operation
    /// that never waits) is given inline, the rest by
    /// [`Engine::enabled_slow`].
    #[inline]
    fn enabled(&self, t: ThreadId, st: &ThreadStatus, status: &[ThreadStatus]) -> bool {
        match st {
            ThreadStatus::Op(Op::Join { target }, _) => self.threads.get(*target as usize).is_some_and(|r| r.finished),
            ThreadStatus::Op(Op::Barrier { .. }, _) | ThreadStatus::Op(Op::Rmw { await_: Some(_), .. }, _) => {
                self.enabled_slow(t, st, status)
            }
            ThreadStatus::Op(..) => true,
            _ => self.enabled_slow(t, st, status),
        }
    }

    #[inline(never)]
    fn enabled_slow(&self, t: ThreadId, st: &ThreadStatus, status: &[ThreadStatus]) -> bool {
        match st {
            ThreadStatus::Gone | ThreadStatus::Discarded => false,
            ThreadStatus::SpinWait => match self.threads.get(t as usize).and_then(|r| r.spin_wait.as_ref()) {
                Some(w) => self.spin_woken(t, w),
                None => true,
            },
            ThreadStatus::Op(Op::Barrier { group, size, .. }, _) => {
                let instance = self.barrier_instance(t, *group);
                self.barrier_arrivals(*group, instance, status).len() as u32 == *size
            }
            ThreadStatus::Op(
                Op::Rmw {
                    loc,
                    await_: Some(aw),
                    op,
                    ty,
                    success,
                    scope,
                    ..
                },
                src,
            ) if self.unfiltered => self.await_possible_declarative(t, *loc, *aw, *op, *ty, *success, *scope, src),
            ThreadStatus::Op(
                Op::Rmw {
                    loc, await_: Some(aw), ..
                },
                _,
            ) => {
                let (free, taken) = self.await_candidates(t, *loc, *aw);
                match self.threads.get(t as usize).and_then(|r| r.await_after) {
                    // It already took its alternatives: only a new free write helps.
                    Some(after) => free.iter().any(|&w| !w.is_init() && self.graph.event(w).stamp > after),
                    None => !free.is_empty() || !taken.is_empty(),
                }
            }
            ThreadStatus::Op(..) => true,
        }
    }

    /// Chooses the thread that runs next.
    pub fn schedule(&mut self, status: &[ThreadStatus]) -> Sched {
        // First reproduce what the graph already holds.
        if let Some(sched) = self.schedule_replay(status) {
            return sched;
        }
        if self.takes_leftmost && self.progress.model == Progress::Fair {
            // The strategy takes the first enabled thread and no progress
            // model filters the set: no need to judge the others.
            if let Some(t) = (0..status.len()).find(|&t| self.enabled(t as ThreadId, &status[t], status)) {
                return Sched::Run(t as ThreadId);
            }
        }
        let mut enabled: SmallVec<[ThreadId; 16]> = SmallVec::new();
        for (t, st) in status.iter().enumerate() {
            if self.enabled(t as ThreadId, st, status) {
                enabled.push(t as ThreadId);
            }
        }
        if let Some(f) = self.progress_hang(status, &mut enabled) {
            return Sched::Deadlock(f);
        }
        if let Some(t) = self.strategy.schedule(&self.graph, &enabled, status) {
            return Sched::Run(t);
        }
        if self.off_track() {
            // A replay that left its token: no result, not a hang.
            return Sched::Blocked;
        }
        if status.iter().all(|s| matches!(s, ThreadStatus::Gone)) {
            return Sched::Done;
        }
        // A discarded thread leaves the others waiting for it (its joiner,
        // say): that is the end of a blocked execution, not a hang.
        if status.iter().any(|s| matches!(s, ThreadStatus::Discarded)) {
            return Sched::Blocked;
        }
        // Threads stuck at a barrier that the rest of their group never
        // reaches: barrier divergence, a failure of its own.
        if let Some((t, group, size, at)) = status.iter().enumerate().find_map(|(t, st)| match st {
            ThreadStatus::Op(Op::Barrier { group, size, .. }, src) => Some((t as ThreadId, *group, *size, *src)),
            _ => None,
        }) {
            let instance = self.barrier_instance(t, group);
            let arrived = self.barrier_arrivals(group, instance, status);
            let members: Vec<String> = arrived.iter().map(|(u, ..)| format!("thread {u}")).collect();
            let mut others = Vec::new();
            for (u, st) in status.iter().enumerate() {
                if arrived.iter().any(|a| a.0 as usize == u) || self.graph.thread_len(u as ThreadId) == 0 {
                    continue;
                }
                match st {
                    ThreadStatus::Gone => others.push(format!("thread {u} finished")),
                    ThreadStatus::Op(Op::Barrier { group: g, .. }, src) => {
                        others.push(format!("thread {u} waits at {src} at the barrier of {g}"))
                    }
                    ThreadStatus::Op(op, src) => others.push(format!("thread {u} waits at {src} ({op:?})")),
                    _ => others.push(format!("thread {u} waits")),
                }
            }
            let mut f = self.failure(
                FailureKind::BarrierDivergence,
                format!(
                    "barrier divergence in {group}: {} of its {size} threads ({}) wait at the barrier at {at} that \
                     the others never reach{}{}",
                    arrived.len(),
                    members.join(", "),
                    if others.is_empty() { "" } else { "; " },
                    others.join("; ")
                ),
                Some(t),
                vec![],
                Some(at),
            );
            f.fix = Some(
                "every thread of the group must reach each barrier: do not return early or branch around a \
                 barrier on a condition that differs between threads"
                    .into(),
            );
            return Sched::Deadlock(f);
        }
        // Nobody can run: the program hangs.
        let mut waiting = Vec::new();
        for (t, st) in status.iter().enumerate() {
            match st {
                ThreadStatus::Gone | ThreadStatus::Discarded => {}
                ThreadStatus::SpinWait => {
                    let w = self.threads[t].spin_wait.clone().expect("spin wait state");
                    waiting.push(spin_wait_text(t, &w));
                }
                ThreadStatus::Op(Op::Join { target }, src) => {
                    waiting.push(format!("thread {t} waits at {src} to join thread {target}"))
                }
                ThreadStatus::Op(Op::Rmw { loc, .. }, src) => {
                    waiting.push(format!("thread {t} waits at {src} to lock the mutex {loc}"))
                }
                ThreadStatus::Op(op, src) => waiting.push(format!("thread {t} waits at {src} ({op:?})")),
            }
        }
        Sched::Deadlock(self.failure(
            FailureKind::Deadlock,
            format!("no thread can make progress: {}", waiting.join("; ")),
            None,
            vec![],
            None,
        ))
    }

    /// Whether event `e` has been replayed (or added) in this execution.
    fn reached(&self, e: EventId) -> bool {
        e.is_init() || self.cursor(e.thread) > e.index
    }

    /// Whether thread `t` still replays the kept graph and its next kept
    /// event can be replayed now: what it depends on besides program order
    /// (the write a read reads, the end of a joined thread, the partners'
    /// arrival at a barrier) has been replayed. Spawn and start need no
    /// check: a thread runs only once its parent spawned it.
    fn replay_ready(&self, t: ThreadId) -> bool {
        let c = self.cursor(t);
        if c >= self.graph.thread_len(t) {
            return false;
        }
        match &self.graph.event(EventId::new(t, c)).kind {
            EventKind::Read(r) => self.reached(r.rf),
            EventKind::Join { target } => {
                let n = self.graph.thread_len(*target);
                n > 0 && self.reached(EventId::new(*target, n - 1))
            }
            EventKind::Barrier { partners, .. } => partners.iter().all(|&p| self.reached(p)),
            _ => true,
        }
    }

    /// Replays the visible operation `op` of thread `t` on the spot, without
    /// a trip through the scheduler, when its kept event is ready
    /// (`Engine::replay_ready`). The replay needs only an order compatible
    /// with po, rf, spawn/join and barriers (the kept graph already holds
    /// every choice, and that order is all real memory depends on in a
    /// race-free program: hb is contained in (po | rf)+); letting a thread
    /// run on while its next kept event is ready is such an order, and it
    /// spares one coroutine switch per replayed event. `None`: the thread
    /// must wait for the scheduler (it is past the kept graph, or its next
    /// kept event waits for another thread).
    pub fn replay_inline(&mut self, t: ThreadId, op: &Op, src: SourceLoc) -> Option<Result<OpResult, Stop>> {
        // (Once every thread is past the kept graph, none replays again.)
        if self.replayed || !self.replay_ready(t) {
            return None;
        }
        Some(self.step(t, src).and_then(|()| {
            self.cur_scope = op.scope();
            self.replay_visible(t, op, src)
        }))
    }

    /// While some thread still replays the kept graph: a thread whose next
    /// kept event is ready to run (the lowest such), or, when none is, the
    /// nondeterminism that stopped the replay. `None` once the whole kept
    /// graph has been replayed: new choices follow.
    fn schedule_replay(&mut self, status: &[ThreadStatus]) -> Option<Sched> {
        if self.replayed {
            return None;
        }
        let mut behind = None;
        for t in 0..self.graph.num_threads() as ThreadId {
            if self.cursor(t) >= self.graph.thread_len(t) {
                continue;
            }
            if matches!(status.get(t as usize), Some(ThreadStatus::Op(..))) && self.replay_ready(t) {
                return Some(Sched::Run(t));
            }
            behind.get_or_insert(t);
        }
        let Some(t) = behind else {
            // Every thread is past the kept graph, and stays past it: its
            // new events are added at its cursor.
            self.replayed = true;
            return None;
        };
        let e = EventId::new(t, self.cursor(t));
        let what = format!(
            "thread {t} did not reach its recorded event {e:?}; {}",
            replay_values::CAUSES
        );
        Some(Sched::Deadlock(self.failure(
            FailureKind::Nondeterminism,
            what,
            Some(t),
            vec![e],
            None,
        )))
    }

    fn barrier_instance(&self, t: ThreadId, group: BarrierGroup) -> u32 {
        (0..self.graph.thread_len(t))
            .filter(|&i| {
                matches!(&self.graph.event(EventId::new(t, i)).kind, EventKind::Barrier { group: g, .. } if *g == group)
            })
            .count() as u32
    }

    /// The members of `group` that have arrived at its `instance`-th barrier:
    /// (thread, its last event before the barrier, where the barrier is,
    /// the spaces it fences). A member has arrived if it passed that
    /// barrier already or waits at it.
    fn barrier_arrivals(
        &self,
        group: BarrierGroup,
        instance: u32,
        status: &[ThreadStatus],
    ) -> Vec<(ThreadId, EventId, SourceLoc, FenceSpace)> {
        let mut out = Vec::new();
        for u in 0..self.graph.num_threads() as ThreadId {
            let n = self.graph.thread_len(u);
            let mut seen = 0;
            let mut passed = None;
            for i in 0..n {
                let e = self.graph.event(EventId::new(u, i));
                if let EventKind::Barrier { group: g, fence, .. } = &e.kind {
                    if *g != group {
                        continue;
                    }
                    if seen == instance {
                        passed = Some((EventId::new(u, i - 1), e.src, *fence));
                        break;
                    }
                    seen += 1;
                }
            }
            if let Some((pre, at, fence)) = passed {
                out.push((u, pre, at, fence));
            } else if n > 0 && seen == instance {
                if let Some(ThreadStatus::Op(Op::Barrier { group: g, fence, .. }, at)) = status.get(u as usize) {
                    if *g == group {
                        out.push((u, EventId::new(u, n - 1), *at, *fence));
                    }
                }
            }
        }
        out
    }

    /// Wakes thread `t` from a spin wait (it takes no step).
    pub fn wake(&mut self, t: ThreadId) {
        self.rt(t).spin_wait = None;
    }

    /// Performs the visible operation of thread `t`. Returns `None` when the
    /// thread took no step and still waits (a mutex it cannot take yet).
    /// `status` is every thread's, as given to [`Engine::schedule`] (a
    /// barrier looks at who waits at it).
    pub fn visible(
        &mut self,
        t: ThreadId,
        op: &Op,
        src: SourceLoc,
        status: &[ThreadStatus],
    ) -> Result<Option<OpResult>, Stop> {
        self.step(t, src)?;
        self.cur_scope = op.scope();
        if self.replaying(t) {
            return self.replay_visible(t, op, src).map(Some);
        }
        if self.bounds_search && !self.strategy.within_bound(&self.graph) {
            self.pruned_now = true;
            return Err(Stop::Moot);
        }
        if let Some(loc) = op.loc().filter(|l| l.is_park_token()) {
            self.graph.ensure_park_token(loc);
        }
        match *op {
            Op::Load { loc, order, .. } => {
                self.check_loc(t, loc, src, true)?;
                self.check_step(t, op, src)?;
                let v = self.new_read(t, loc, order, src)?;
                Ok(Some(OpResult::Value(v.1)))
            }
            Op::Store { loc, order, value, .. } => {
                self.check_loc(t, loc, src, true)?;
                self.check_step(t, op, src)?;
                self.new_store(t, loc, order, value, src)?;
                Ok(Some(OpResult::Done))
            }
            Op::Rmw {
                loc,
                op: rop,
                ty,
                success,
                failure,
                await_,
                ..
            } => {
                self.check_loc(t, loc, src, true)?;
                self.check_step(t, op, src)?;
                self.new_rmw(t, loc, rop, ty, success, failure, await_, src)
            }
            Op::Join { target } => {
                self.check_step(t, op, src)?;
                self.push(t, EventKind::Join { target }, src, true);
                Ok(Some(OpResult::Done))
            }
            Op::Barrier { group, fence, .. } => {
                let instance = self.barrier_instance(t, group);
                let arrived = self.barrier_arrivals(group, instance, status);
                // Every member must have reached the same barrier (the same
                // line of code, fencing the same spaces); meeting at
                // different ones is divergence.
                let mut places: Vec<(SourceLoc, FenceSpace)> = arrived.iter().map(|a| (a.2, a.3)).collect();
                places.sort_by_key(|(at, f)| (*at, f.name()));
                places.dedup();
                if places.len() > 1 {
                    let who: Vec<String> = arrived
                        .iter()
                        .map(|(u, _, at, f)| {
                            format!(
                                "thread {u} ({}) at {at} (fencing {f} memory)",
                                self.graph.placement(*u).describe()
                            )
                        })
                        .collect();
                    let mut f = self.failure(
                        FailureKind::BarrierDivergence,
                        format!(
                            "barrier divergence in {group}: its threads meet at different barriers: {}",
                            who.join("; ")
                        ),
                        Some(t),
                        vec![],
                        Some(src),
                    );
                    f.fix = Some(
                        "every thread of the group must reach the same barrier call the same number of times; \
                         move the barrier out of the divergent branch"
                            .into(),
                    );
                    return Err(Stop::Failure(f));
                }
                self.check_step(t, op, src)?;
                let partners = arrived.iter().filter(|a| a.0 != t).map(|a| a.1).collect();
                self.push(
                    t,
                    EventKind::Barrier {
                        group,
                        instance,
                        partners,
                        fence,
                    },
                    src,
                    true,
                );
                Ok(Some(OpResult::Done))
            }
            _ => unreachable!("invisible operation {op:?} given to Engine::visible"),
        }
    }

    fn replay_visible(&mut self, t: ThreadId, op: &Op, src: SourceLoc) -> Result<OpResult, Stop> {
        let id = EventId::new(t, self.threads[t as usize].cursor);
        // What the kept event holds, copied out (a barrier's partner list
        // is not needed to replay it, so the event is not cloned).
        let ev = match &self.graph.event(id).kind {
            EventKind::Read(r) => EventKind::Read(*r),
            EventKind::Write(w) => EventKind::Write(*w),
            EventKind::Join { target } => EventKind::Join { target: *target },
            EventKind::Barrier {
                group, instance, fence, ..
            } => EventKind::Barrier {
                group: *group,
                instance: *instance,
                partners: Vec::new(),
                fence: *fence,
            },
            other => other.clone(),
        };
        let res = match (op, &ev) {
            (Op::Load { loc, .. }, EventKind::Read(r)) if r.loc == *loc && r.rmw.is_none() => {
                // The value its write holds in this execution (an address
                // may have moved since the read was recorded).
                let mut v = r.value;
                if self.graph.may_hold_addresses() {
                    v = self.graph.write_value(r.loc, r.rf);
                    if v != r.value {
                        self.replay_read(t, id, r, None, src)?;
                    }
                }
                self.note_read(t, r.loc, r.rf);
                OpResult::Value(v)
            }
            // The value too: a store that writes something else than the
            // kept graph says (a counter kept outside the model) would let
            // later reads see a value never written; an address that moved
            // replaces the kept one (`replay_values`).
            (Op::Store { loc, value, .. }, EventKind::Write(w)) if w.loc == *loc && !w.rmw => {
                if w.value != *value {
                    self.replay_write_value(t, id, *value, "store to", src)?;
                }
                self.note_write(t, *loc);
                OpResult::Done
            }
            (Op::Join { target }, EventKind::Join { target: t2 }) if target == t2 => OpResult::Done,
            (Op::Barrier { group, .. }, EventKind::Barrier { group: g2, .. }) if group == g2 => OpResult::Done,
            (
                Op::Rmw {
                    loc,
                    op: rop,
                    ty,
                    success,
                    await_,
                    ..
                },
                EventKind::Read(r),
            ) if r.loc == *loc && r.rmw.is_some() => {
                // Decided again on this execution's values (and operands):
                // it must write exactly when the kept graph says it did.
                let r = &if self.graph.may_hold_addresses()
                    && (r.value != self.graph.write_value(r.loc, r.rf) || r.rmw.is_some_and(|m| m.0 != *rop))
                {
                    self.replay_read(t, id, r, Some(*rop), src)?
                } else {
                    *r
                };
                self.stats.events_replayed += 1;
                self.rt(t).cursor += 1;
                self.note_read(t, r.loc, r.rf);
                let old = r.value;
                if r.is_exclusive() {
                    let new = rop.apply(*ty, old).expect("exclusive read writes");
                    if self.replaying(t) {
                        let wid = EventId::new(t, self.threads[t as usize].cursor);
                        match &self.graph.event(wid).kind {
                            EventKind::Write(w) if w.rmw && w.value == new => {}
                            EventKind::Write(w) if w.rmw => {
                                self.replay_write_value(t, wid, new, &format!("{} on", rop.name()), src)?;
                            }
                            _ => return Err(self.nondeterminism(t, rop.name(), src)),
                        }
                        self.rt(t).cursor += 1;
                        self.stats.events_replayed += 1;
                        self.note_write(t, *loc);
                    } else {
                        // The read part was revisited: its write part is new.
                        self.new_rmw_write(t, id, *loc, new, Order::write_part(*success), src, false)?;
                    }
                }
                let _ = await_;
                return Ok(match rop {
                    RmwOp::Cas { .. } => OpResult::Cas(old, r.is_exclusive()),
                    _ => OpResult::Value(old),
                });
            }
            _ => return Err(self.nondeterminism(t, &format!("{op:?}"), src)),
        };
        self.rt(t).cursor += 1;
        self.stats.events_replayed += 1;
        Ok(res)
    }

    fn note_read(&mut self, t: ThreadId, loc: Loc, rf: EventId) {
        let porf = self.model == MemoryModel::Porf;
        let i = self.rt(t).spin_reads.iter().position(|(l, _)| *l == loc);
        match i {
            // A later read of the same location reads a write at or after
            // the earlier one's in mo (CoRR), except under `porf`, which
            // has no coherence: there the later in mo is kept.
            Some(i) => {
                let before = self.threads[t as usize].spin_reads[i].1;
                if !porf || self.graph.mo_position(loc, rf) > self.graph.mo_position(loc, before) {
                    self.threads[t as usize].spin_reads[i].1 = rf;
                }
            }
            None => self.rt(t).spin_reads.push((loc, rf)),
        }
    }

    fn note_write(&mut self, t: ThreadId, loc: Loc) {
        let kind = self.graph.loc(loc).map(|d| d.kind);
        self.note_write_to(t, kind);
    }

    /// [`Engine::note_write`] for a location of kind `kind` already looked
    /// up: a write to a mutex's lock word is not progress.
    fn note_write_to(&mut self, t: ThreadId, kind: Option<LocKind>) {
        if kind.is_some_and(|k| !k.is_lock()) {
            self.rt(t).spin_wrote = true;
        }
    }

    /// Whether a spurious failure of thread `t`'s weak compare-exchange on
    /// `loc` reading `w` would repeat an earlier one exactly, so that it is
    /// not explored (`crate::retry`; otherwise every retry loop would have
    /// infinitely many executions).
    fn just_failed_spuriously(&self, t: ThreadId, loc: Loc, w: EventId) -> bool {
        crate::retry::repeats_spurious_failure(&self.graph, t, loc, w)
    }

    fn sc_check_needed(&self) -> bool {
        self.model == MemoryModel::Sc || (self.model != MemoryModel::Porf && self.graph.sc_events() >= 2)
    }

    /// Whether a new access's choices (seq_cst when `sc`) are each tried
    /// against the consistency check before one is taken: under `sc`, and
    /// for psc once seq_cst events are involved; never for the reference
    /// enumerator (it judges whole graphs) or under `porf`.
    fn choices_filtered(&self, sc: bool) -> bool {
        !self.unfiltered && self.model != MemoryModel::Porf && (sc || self.sc_check_needed())
    }

    /// Keeps the read choices whose graph is consistent (only `sc`, and psc
    /// for seq_cst, need this check).
    fn filter_reads(&mut self, t: ThreadId, kind: &ReadEvent, choices: Choices, src: SourceLoc) -> Choices {
        if !self.choices_filtered(kind.order.is_sc()) {
            return choices;
        }
        let mut keep = Choices::new();
        for c in choices {
            let mut k = *kind;
            k.rf = c.write;
            k.value = self.graph.write_value(kind.loc, c.write);
            k.spurious = c.spurious;
            let kind = EventKind::Read(k);
            // Tried on the graph itself and taken back (a clone per choice
            // cost more than the check).
            let id = self
                .graph
                .push_event(t, kind, src, self.cur_scope, self.model.sync_rules(), false);
            let ok = self.model.check_added(&self.graph, id).is_ok();
            self.graph.pop_event(t);
            if ok {
                keep.push(c);
            }
        }
        keep
    }

    /// Adds a read of `loc` by `t`; returns (event, value).
    /// Every write of `loc`, initial write first (the reference enumerator's candidates).
    fn all_writes(&self, loc: Loc) -> Candidates {
        let mut v: Candidates = smallvec::smallvec![EventId::INIT];
        v.extend(self.graph.loc(loc).expect("loc").mo.iter().copied());
        v
    }

    /// With the reference enumerator, the graph is judged by the axioms after every step.
    fn declarative_check(&self) -> Result<(), Stop> {
        if self.unfiltered && self.model.consistent_declarative(&self.graph).is_err() {
            return Err(Stop::Moot);
        }
        Ok(())
    }

    fn candidates(&self, t: ThreadId, loc: Loc) -> Candidates {
        if self.unfiltered {
            self.all_writes(loc)
        } else {
            self.model.read_candidates(&self.graph, t, loc)
        }
    }

    fn new_read(&mut self, t: ThreadId, loc: Loc, order: Order, src: SourceLoc) -> Result<(EventId, Value), Stop> {
        let cands: Choices = self
            .candidates(t, loc)
            .into_iter()
            .map(|write| RfChoice { write, spurious: false })
            .collect();
        let proto = ReadEvent {
            loc,
            order,
            rf: EventId::INIT,
            value: 0,
            rmw: None,
            spurious: false,
            await_: None,
        };
        let cands = self.filter_reads(t, &proto, cands, src);
        if cands.is_empty() {
            return Err(Stop::Moot);
        }
        let stamp = self.graph.next_stamp();
        let i = self
            .strategy
            .choose_rf(&self.graph, EventId::new(t, self.graph.thread_len(t)), stamp, &cands);
        if self.off_track() {
            return Err(Stop::Moot);
        }
        let c = cands[i];
        let value = self.graph.write_value(loc, c.write);
        let added_max = c.write == self.graph.mo_max(loc);
        let id = self.push(
            t,
            EventKind::Read(ReadEvent {
                rf: c.write,
                value,
                ..proto
            }),
            src,
            added_max,
        );
        self.note_read(t, loc, c.write);
        self.declarative_check()?;
        if order == Order::NonAtomic || self.has_plain(loc) || self.model.sync_rules().scoped {
            self.check_access_race(id, loc, false)?;
        }
        Ok((id, value))
    }

    /// Whether accesses of `loc` need the race check even when all are
    /// atomic: it has plain accesses, or a memory kind that may make
    /// system-scope atomics plain.
    fn has_plain(&self, loc: Loc) -> bool {
        self.graph.loc(loc).expect("loc").has_plain || self.memory.tracked(loc)
    }

    fn new_store(
        &mut self,
        t: ThreadId,
        loc: Loc,
        order: Order,
        value: Value,
        src: SourceLoc,
    ) -> Result<EventId, Stop> {
        let unfiltered = self.unfiltered;
        let mut places = if unfiltered {
            (1..=self.graph.loc(loc).expect("loc").mo.len() + 1).collect()
        } else {
            self.model.write_placements(&self.graph, t, loc)
        };
        let kind = EventKind::Write(WriteEvent {
            loc,
            order,
            value,
            rmw: false,
        });
        if self.choices_filtered(order.is_sc()) {
            // Tried on the graph itself in every place, then taken back.
            let id = self
                .graph
                .push_event(t, kind.clone(), src, self.cur_scope, self.model.sync_rules(), false);
            let mut keep = Places::new();
            let mut placed: Option<usize> = None;
            for &p in &places {
                match placed {
                    None => self.graph.insert_mo(loc, id, p),
                    Some(_) => self.graph.move_mo(loc, id, p),
                }
                placed = Some(p);
                if self.model.check_added(&self.graph, id).is_ok() {
                    keep.push(p);
                }
            }
            self.graph.pop_event(t);
            places = keep;
        }
        if places.is_empty() {
            return Err(Stop::Moot);
        }
        let n = self.graph.loc(loc).expect("loc").mo.len();
        let stamp = self.graph.next_stamp();
        let i = self
            .strategy
            .choose_mo(&self.graph, EventId::new(t, self.graph.thread_len(t)), stamp, &places);
        if self.off_track() {
            return Err(Stop::Moot);
        }
        let p = places[i];
        let id = self.push(t, kind, src, p == n + 1);
        self.graph.insert_mo(loc, id, p);
        self.note_write(t, loc);
        self.declarative_check()?;
        self.strategy.write_added(&self.graph, id, self.model);
        if order == Order::NonAtomic || self.has_plain(loc) || self.model.sync_rules().scoped {
            self.check_access_race(id, loc, true)?;
        }
        Ok(id)
    }

    #[allow(clippy::too_many_arguments)]
    fn new_rmw(
        &mut self,
        t: ThreadId,
        loc: Loc,
        rop: RmwOp,
        ty: ValueType,
        success: Order,
        failure: Order,
        await_: Option<Await>,
        src: SourceLoc,
    ) -> Result<Option<OpResult>, Stop> {
        let weak = matches!(rop, RmwOp::Cas { weak: true, .. });
        let unfiltered = self.unfiltered;
        let mut free = Choices::new();
        let mut taken = Candidates::new();
        // An RMW that writes whatever it reads, in a strategy that explores
        // no alternatives, can only read a write no other RMW consumed; when
        // the last in mo is the only one (every write before it, plain or
        // not, was consumed by an RMW), that is its one candidate, whatever
        // the coherence floor. Neither the floor nor the scan is needed.
        let only_last = !unfiltered
            && !self.wants_revisits
            && self.model != MemoryModel::Porf
            && await_.is_none()
            && rop.always_writes()
            && self.graph.free_writes(loc) == 1;
        let filtered = self.choices_filtered(success.is_sc() || failure.is_sc());
        if only_last {
            let w = self.graph.mo_max(loc);
            debug_assert!(
                self.graph.rmw_reader_of(loc, w, None).is_none(),
                "checker invariant: the last write in mo is consumed"
            );
            let last = RfChoice {
                write: w,
                spurious: false,
            };
            if !filtered {
                // (Asked all the same: a random walk's later choices must
                // not depend on whether this one had an alternative.)
                let stamp = self.graph.next_stamp();
                let i = self.strategy.choose_rf(
                    &self.graph,
                    EventId::new(t, self.graph.thread_len(t)),
                    stamp,
                    std::slice::from_ref(&last),
                );
                debug_assert_eq!(i, 0, "checker invariant: a choice outside the one offered");
                if self.off_track() {
                    return Err(Stop::Moot);
                }
                return self.take_rmw_choice(t, loc, last, rop, ty, success, failure, None, src);
            }
            // Filtered: the one candidate goes through the check below.
            free.push(last);
        } else {
            // The candidates are the writes from mo position `floor` on.
            let writes = self.graph.loc(loc).expect("loc").mo.len();
            let floor = if unfiltered {
                0
            } else {
                self.model.read_floor(&self.graph, t, loc)
            };
            for pos in floor..=writes {
                let w = self.graph.mo_at(loc, pos);
                let v = self.graph.write_value(loc, w);
                if await_.is_some_and(|a| !a.admits(v)) {
                    continue;
                }
                if rop.apply(ty, v).is_some() {
                    if weak && !self.just_failed_spuriously(t, loc, w) {
                        free.push(RfChoice {
                            write: w,
                            spurious: true,
                        });
                    }
                    let consumed = !unfiltered
                        && if self.model == MemoryModel::Porf {
                            self.graph.rmw_reader_of(loc, w, None).is_some()
                        } else {
                            self.graph.consumed_at(loc, pos)
                        };
                    if consumed {
                        taken.push(w);
                    } else {
                        free.push(RfChoice {
                            write: w,
                            spurious: false,
                        });
                    }
                } else {
                    free.push(RfChoice {
                        write: w,
                        spurious: false,
                    });
                }
            }
        }
        let proto = |order| ReadEvent {
            loc,
            order,
            rf: EventId::INIT,
            value: 0,
            rmw: Some((rop, ty, success, failure)),
            spurious: false,
            await_,
        };
        // Reads of a write another RMW already read break atomicity; they are
        // explored only for the backward revisits their write part causes.
        if let Some(after) = self.threads[t as usize].await_after {
            // Alternatives already taken when the thread first waited here.
            taken.retain(|w| !w.is_init() && self.graph.event(*w).stamp > after);
        }
        if self.wants_revisits {
            for &w in &taken {
                self.conflicting_alternative(t, loc, w, proto(Order::read_part(success)), ty, rop, src);
            }
        }
        if await_.is_some() && free.is_empty() {
            // The mutex is held: wait for a new unlock.
            let after = self.graph.next_stamp().saturating_sub(1);
            self.rt(t).await_after = Some(after);
            return Ok(None);
        }
        // Consistency filter (sc / psc), per choice with its order; most
        // runs need none (as `filter_reads` decides for one order).
        let kept = if !filtered {
            free
        } else {
            let mut kept = Choices::new();
            for c in free {
                let v = self.graph.write_value(loc, c.write);
                let writes = !c.spurious && rop.apply(ty, v).is_some();
                let order = if writes { Order::read_part(success) } else { failure };
                let one = self.filter_reads(t, &proto(order), smallvec::smallvec![c], src);
                kept.extend(one);
            }
            kept
        };
        if kept.is_empty() {
            return Err(Stop::Moot);
        }
        let stamp = self.graph.next_stamp();
        let i = self
            .strategy
            .choose_rf(&self.graph, EventId::new(t, self.graph.thread_len(t)), stamp, &kept);
        if self.off_track() {
            return Err(Stop::Moot);
        }
        self.take_rmw_choice(t, loc, kept[i], rop, ty, success, failure, await_, src)
    }

    /// Adds an RMW of thread `t` reading the write choice `c`: its read
    /// part, and its write part unless it fails.
    #[allow(clippy::too_many_arguments)]
    fn take_rmw_choice(
        &mut self,
        t: ThreadId,
        loc: Loc,
        c: RfChoice,
        rop: RmwOp,
        ty: ValueType,
        success: Order,
        failure: Order,
        await_: Option<Await>,
        src: SourceLoc,
    ) -> Result<Option<OpResult>, Stop> {
        let old = self.graph.write_value(loc, c.write);
        let new = if c.spurious { None } else { rop.apply(ty, old) };
        let order = if new.is_some() {
            Order::read_part(success)
        } else {
            failure
        };
        let added_max = c.write == self.graph.mo_max(loc) && !c.spurious;
        let rid = self.push(
            t,
            EventKind::Read(ReadEvent {
                loc,
                order,
                rf: c.write,
                value: old,
                rmw: Some((rop, ty, success, failure)),
                spurious: c.spurious,
                await_,
            }),
            src,
            added_max,
        );
        self.rt(t).await_after = None;
        self.note_read(t, loc, c.write);
        self.declarative_check()?;
        if self.has_plain(loc) || self.model.sync_rules().scoped {
            self.check_access_race(rid, loc, false)?;
        }
        if let Some(new) = new {
            // Unless every write was offered (the reference enumerator), it
            // read a write no other RMW consumed.
            let free = !self.unfiltered;
            self.new_rmw_write(t, rid, loc, new, Order::write_part(success), src, free)?;
        }
        Ok(Some(match rop {
            RmwOp::Cas { .. } => OpResult::Cas(old, new.is_some()),
            _ => OpResult::Value(old),
        }))
    }

    /// Adds the write part of an RMW whose read part is `rid`. `free`: the
    /// read part is known to have read a write no other RMW
    /// consumed.
    #[allow(clippy::too_many_arguments)]
    fn new_rmw_write(
        &mut self,
        t: ThreadId,
        rid: EventId,
        loc: Loc,
        value: Value,
        order: Order,
        src: SourceLoc,
        free: bool,
    ) -> Result<EventId, Stop> {
        let rf = self.graph.event(rid).as_read().expect("read part").rf;
        let conflict = !free && self.graph.rmw_reader_of(loc, rf, Some(rid)).is_some();
        debug_assert!(
            !free || self.graph.rmw_reader_of(loc, rf, Some(rid)).is_none(),
            "checker invariant: an RMW chosen to read a free write found it consumed"
        );
        let pos = self.graph.mo_position(loc, rf) + 1;
        // What else this needs of the location, in one look (a write part
        // is atomic: it changes neither the location's kind nor `has_plain`).
        let (last, kind, plain) = {
            let d = self.graph.loc(loc).expect("loc");
            (pos == d.mo.len() + 1, d.kind, d.has_plain)
        };
        let id = self.push(
            t,
            EventKind::Write(WriteEvent {
                loc,
                order,
                value,
                rmw: true,
            }),
            src,
            last,
        );
        self.graph.insert_mo(loc, id, pos);
        self.note_write_to(t, Some(kind));
        self.declarative_check()?;
        if conflict {
            self.strategy.write_added(&self.graph, id, self.model);
            return Err(Stop::Moot);
        }
        if (self.model == MemoryModel::Sc || self.sc_check_needed()) && self.model.check_added(&self.graph, id).is_err()
        {
            return Err(Stop::Moot);
        }
        self.strategy.write_added(&self.graph, id, self.model);
        if plain || self.memory.tracked(loc) || self.model.sync_rules().scoped {
            self.check_access_race(id, loc, true)?;
        }
        Ok(id)
    }

    /// Explores, without running it, the choice of an RMW reading `w` that
    /// another RMW already read: adds the read and write parts, lets the
    /// strategy compute the backward revisits of that write, and takes them back.
    #[allow(clippy::too_many_arguments)]
    fn conflicting_alternative(
        &mut self,
        t: ThreadId,
        loc: Loc,
        w: EventId,
        proto: ReadEvent,
        ty: ValueType,
        rop: RmwOp,
        src: SourceLoc,
    ) {
        let old = self.graph.write_value(loc, w);
        let new = rop.apply(ty, old).expect("conflicting alternatives write");
        let wo = Order::write_part(proto.rmw.expect("rmw").2);
        let kind = EventKind::Read(ReadEvent {
            rf: w,
            value: old,
            ..proto
        });
        let rid = self
            .graph
            .push_event(t, kind, src, self.cur_scope, self.model.sync_rules(), false);
        let wk = EventKind::Write(WriteEvent {
            loc,
            order: wo,
            value: new,
            rmw: true,
        });
        let wid = self
            .graph
            .push_event(t, wk, src, self.cur_scope, self.model.sync_rules(), false);
        // The strategy may keep this graph as a revisit: its events carry
        // the thread's DRFrlx class like those `push` adds.
        let class = self.next_class.get(t as usize).copied().flatten();
        self.graph.event_mut(rid).rlx = class;
        self.graph.event_mut(wid).rlx = class;
        let pos = self.graph.mo_position(loc, w) + 1;
        self.graph.insert_mo(loc, wid, pos);
        self.strategy.write_added(&self.graph, wid, self.model);
        self.graph.pop_event(t);
        self.graph.pop_event(rid.thread);
    }

    /// Race between the new access `id` to an atomic location and earlier
    /// conflicting accesses of other threads, when one of the two is plain.
    fn check_access_race(&self, id: EventId, loc: Loc, is_write: bool) -> Result<(), Stop> {
        if self.limits.record_races || self.model == MemoryModel::Porf {
            return Ok(());
        }
        let scoped = self.model.sync_rules().scoped;
        let g = &self.graph;
        let me = g.event(id);
        let my_order = match &me.kind {
            EventKind::Read(r) => r.order,
            EventKind::Write(w) => w.order,
            _ => return Ok(()),
        };
        if let Some(o) = races::first_racing_access(g, id, loc, is_write, my_order.is_atomic(), scoped) {
            return Err(self.race(o, id));
        }
        // The whole location: whether an access is atomic for its memory
        // kind can depend on every thread that touches it (seed 001: GPU
        // memory that a host thread accesses).
        if let Some(race) = self.memory.find_race(g, loc, self.model.sync_rules()) {
            return Err(self.memory_race(race));
        }
        Ok(())
    }

    fn check_cell_race(&self, id: EventId, loc: Loc, write: bool) -> Result<(), Stop> {
        if self.limits.record_races || self.model == MemoryModel::Porf {
            return Ok(());
        }
        let g = &self.graph;
        for &o in &g.loc(loc).expect("loc").cells {
            if o.thread == id.thread {
                continue;
            }
            let o_write = matches!(g.event(o).kind, EventKind::Cell { write: true, .. });
            if (write || o_write) && races::pair_races(g, (o, false), (id, false), false) {
                return Err(self.race(o, id));
            }
        }
        Ok(())
    }

    /// Under a scoped model, whether racing accesses `a` and `b` would be
    /// ordered if every synchronization ignored scopes; if so, the release
    /// whose scope is too narrow, said in words, and the fix.
    fn too_narrow_sync(&self, a: EventId, b: EventId) -> Option<(String, String)> {
        let rules = self.model.sync_rules();
        if !rules.scoped {
            return None;
        }
        let g = &self.graph;
        let scoped = Relations::of(g, rules);
        let wide = Relations::of(g, SyncRules { scoped: false, ..rules });
        let (ia, ib) = (wide.index_of(a)?, wide.index_of(b)?);
        // The hb of the raced location's memory space (`space.rs`, rule 4).
        let local = g.event(a).loc().is_some_and(|l| g.space_of(l) == Space::Local);
        let hb = wide.hb_of(if local { Space::Local } else { Space::Global });
        let before = |x: usize, y: usize| x == y || hb.has(x, y);
        let (first, second) = if hb.has(ia, ib) {
            (ia, ib)
        } else if hb.has(ib, ia) {
            (ib, ia)
        } else {
            return None;
        };
        let n = wide.ids.len();
        for rel in 0..n {
            for acq in 0..n {
                if wide.sw.has(rel, acq) && !scoped.sw.has(rel, acq) && before(first, rel) && before(acq, second) {
                    let (r, q) = (wide.ids[rel], wide.ids[acq]);
                    let (er, eq) = (g.event(r), g.event(q));
                    let need = narrowest_common(g.actor(r.thread, er.scope), g.actor(q.thread, eq.scope));
                    let why = format!(
                        "`{}` at {} scope (thread {}, {}) does not reach thread {} at {}, whose `{}` ({}, {} scope) \
                         would otherwise synchronize with it",
                        er.describe(),
                        er.scope,
                        r.thread,
                        er.src,
                        q.thread,
                        g.placement(q.thread).describe(),
                        eq.describe(),
                        eq.src,
                        eq.scope
                    );
                    let fix = format!(
                        "use {need} scope (or wider) on both `{}` ({}) and `{}` ({})",
                        er.describe(),
                        er.src,
                        eq.describe(),
                        eq.src
                    );
                    return Some((why, fix));
                }
            }
        }
        None
    }

    /// Whether racing accesses `a` and `b` are ordered in the other memory
    /// space's happens-before: then a barrier between them fences only that
    /// other space (`space.rs`, rule 3); if so, the explanation and the fix.
    fn unfenced_space(&self, a: EventId, b: EventId) -> Option<(String, String)> {
        let g = &self.graph;
        let space = g.space_of(g.event(a).loc()?);
        let other = match space {
            Space::Global => Space::Local,
            Space::Local => Space::Global,
        };
        let (first, second) = if g.hb(b).contains_in(other, a) {
            (a, b)
        } else if g.hb(a).contains_in(other, b) {
            (b, a)
        } else {
            return None;
        };
        let why = format!(
            "the barrier between {} and {} fences only {other} memory, and this location is in {space} memory",
            g.event(first).src,
            g.event(second).src
        );
        let fix = format!(
            "make that barrier fence {space} memory too (`FenceSpace::Both`, SYCL's \
             `fence_space::global_and_local`, `__syncthreads()`)"
        );
        Some((why, fix))
    }

    fn race(&self, a: EventId, b: EventId) -> Stop {
        let g = &self.graph;
        let (ea, eb) = (g.event(a), g.event(b));
        let loc = ea
            .loc()
            .map(|l| match g.loc(l) {
                Some(d) if d.space == Space::Local => {
                    format!("{l} in local memory (created at {})", g.event(d.alloc).src)
                }
                Some(d) => format!("{l} (created at {})", g.event(d.alloc).src),
                None => l.to_string(),
            })
            .unwrap_or_default();
        let atomic = |e: &Event| match &e.kind {
            EventKind::Read(r) => r.order.is_atomic(),
            EventKind::Write(w) => w.order.is_atomic(),
            _ => false,
        };
        if atomic(ea) && atomic(eb) {
            // Both atomic: the race is a scope mismatch.
            let (xa, xb) = (g.actor(a.thread, ea.scope), g.actor(b.thread, eb.scope));
            let need = narrowest_common(xa, xb);
            let side = |e: &Event, id: EventId| {
                format!(
                    "`{}` (thread {} at {}, {} scope, {})",
                    e.describe(),
                    id.thread,
                    g.placement(id.thread).describe(),
                    e.scope,
                    e.src
                )
            };
            let mut f = self.failure(
                FailureKind::HeterogeneousRace,
                format!(
                    "heterogeneous race (scope mismatch) on {loc}: {} and {} conflict, neither happens before \
                     the other, and their scopes do not include each other's thread",
                    side(ea, a),
                    side(eb, b)
                ),
                Some(b.thread),
                vec![a, b],
                Some(eb.src),
            );
            f.fix = Some(format!(
                "use {need} scope (or wider) on both operations: {need} is the narrowest scope whose group \
                 around each thread holds the other"
            ));
            return Stop::Failure(f);
        }
        let narrow = self.too_narrow_sync(a, b).or_else(|| self.unfenced_space(a, b));
        let mut f = self.failure(
            FailureKind::DataRace,
            format!(
                "data race on {loc}: `{}` (thread {}, {}) and `{}` (thread {}, {}) conflict and neither happens before the other{}",
                ea.describe(),
                a.thread,
                ea.src,
                eb.describe(),
                b.thread,
                eb.src,
                narrow.as_ref().map(|(why, _)| format!("; {why}")).unwrap_or_default()
            ),
            Some(b.thread),
            vec![a, b],
            Some(eb.src),
        );
        f.cause = narrow.as_ref().map(|(why, _)| why.clone());
        f.fix = Some(match narrow {
            Some((_, fix)) => fix,
            None => "order the two accesses with happens-before: publish with a Release store (or fence) \
                     and read with an Acquire load (or fence) of the same atomic, or protect both with a Mutex"
                .into(),
        });
        Stop::Failure(f)
    }
}

/// How a thread stuck at a spin hint is described in a hang report: at the
/// hint's line, and by the object it waits on when the hint is a shim
/// object's (a condvar wait is "waits on a condvar", not a spin on its
/// sequence number).
fn spin_wait_text(t: usize, w: &SpinWait) -> String {
    let locs: Vec<String> = w.read.iter().map(|(l, _)| l.to_string()).collect();
    let locs = locs.join(", ");
    match (w.at.on, w.at.src) {
        (Some(on), Some(src)) => format!("thread {t} waits at {src} on {on} ({locs}) that no other thread will change"),
        (Some(on), None) => format!("thread {t} waits on {on} ({locs}) that no other thread will change"),
        (None, Some(src)) => format!("thread {t} spins on {locs} at {src}, which no other thread will change"),
        (None, None) => format!("thread {t} spins on {locs} that no other thread will change"),
    }
}
