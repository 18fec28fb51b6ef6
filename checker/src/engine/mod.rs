//! The engine: turns each operation a thread performs into events of the
//! execution graph, replaying the part of the graph the explorer kept and
//! asking the [`Strategy`] for every new choice (which thread, which write to
//! read, where in mo).
//!
//! The runtime (in the `instrument` crate) owns the coroutines and calls the
//! engine; the engine knows nothing about them.
//!
//! This file holds the engine's types and state, the start and end of an
//! execution, step counting and event pushing; the rest is split by seam:
//! `schedule` (who runs next, replay order), `ops` (performing an
//! operation, replaying a kept one), `accesses` (new reads, stores and RMWs
//! and their choices), `spin` (spin loops and awaits), `barrier` (barrier
//! matching and divergence), `race_check` (data-race checks and reports),
//! and the smaller `deadline`, `hang`, `memory_race`, `replay_values`,
//! `yield_hint`.

mod accesses;
mod barrier;
mod deadline;
mod guessed;
mod hang;
mod memory_race;
mod ops;
mod perform;
mod promised;
mod race_check;
mod replay_values;
mod schedule;
mod spin;
mod verdict;
mod yield_hint;

use crate::drfrlx::RlxClass;
use crate::event::*;
use crate::explore::Strategy;
use crate::failure::{EventInfo, Failure, FailureKind};
use crate::graph::ExecutionGraph;
use crate::memory::{MemoryTable, Platform, Residence};
use crate::model::MemoryModel;
use crate::progress::{Progress, ProgressState};
use crate::token;
use smallvec::SmallVec;

pub use crate::sched::{ExecutionEnd, Resume, RfChoice, Sched, Step, Stop, ThreadStatus, WaitSite};

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
    /// Each (location, value) that an RMW could not read because every
    /// write of that value there was already read by another RMW (an RMW
    /// consumes the write it reads): the paths where it reads that value
    /// were not run. The po ∪ rf-cyclic enumeration of litmus tests reads
    /// this: its promising thread stores each value once, so a thread run
    /// alone cannot take one promised value by two RMWs it runs as RMWs
    /// there (weak compare-exchanges; the others run as a load and a store:
    /// docs/gpu-models.md).
    pub consumed_only: std::collections::BTreeSet<(Loc, Value)>,
    /// Complete executions with a cycle in po ∪ rf (promised reads kept,
    /// under a model that allows such cycles: `engine/promised.rs`), each
    /// counted once, like [`Stats::complete`], which includes them.
    pub cyclic: u64,
    /// Distinct executions with a cycle in po ∪ rf that kept their
    /// promises and passed the model but were dropped because a promised
    /// read synchronizes (its happens-before is not the engine's views',
    /// which races are found from: `engine/promised.rs`). The outcome set
    /// lacks them; 0 says it lacks none for this reason.
    pub cyclic_dropped: u64,
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
    /// Whether the thread was spawned and has not reached its first step
    /// (counted in `Engine::starting`).
    starting: bool,
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

/// The scope and DRFrlx class of the operation being performed.
#[derive(Copy, Clone)]
struct Performing {
    scope: Scope,
    class: Option<RlxClass>,
}

impl Performing {
    /// What events that belong to no shim operation take (a thread's start
    /// and end): the system scope, no class.
    const NONE: Performing = Performing {
        scope: Scope::System,
        class: None,
    };
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
    /// Under a model that allows cycles in po ∪ rf (`c11`), whether the
    /// explorer builds executions with one (default in `RunConfig`); off
    /// for cross-checks against the litmus front end's own enumeration.
    pub porf_cycles: bool,
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
    /// The scope and DRFrlx class of the operation being performed, copied
    /// from the [`Op`] when the engine starts performing it: the events it
    /// adds take them.
    performing: Performing,
    /// What each thread waits for (the scheduler's view of the threads).
    status: Vec<ThreadStatus>,
    /// Threads spawned whose first step is not known yet (the runtime has
    /// not started them): nobody may be chosen to run meanwhile.
    starting: u32,
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
    /// The program dropped the current execution before it ended
    /// ([`Engine::drop_execution`]: herd's `filter`).
    dropped_by_program: bool,
    /// Whether the whole kept graph of this execution has been replayed.
    replayed: bool,
    /// The run's deadline, read every few hundred steps.
    deadline: deadline::Deadline,
    /// The canonical keys of the po ∪ rf-cyclic executions counted so far
    /// (`promised.rs`: the explorer may reach one more than once).
    cyclic_seen: std::collections::HashSet<String>,
    /// The canonical keys of the cyclic executions dropped because a
    /// promised read synchronizes ([`Stats::cyclic_dropped`]).
    cyclic_dropped: std::collections::HashSet<String>,
    /// Whether the current execution is a cyclic one already counted.
    repeated: bool,
    /// The verdict on the current execution's promises, once taken.
    promise_verdict: Option<ExecutionEnd>,
    /// The reference enumerator's guessed reads in the current execution
    /// (`guessed.rs`).
    guesses: guessed::Guesses,
}

impl Engine {
    /// An engine exploring under `model` with `strategy`.
    pub fn new(model: MemoryModel, mut strategy: Box<dyn Strategy>, limits: Limits) -> Engine {
        strategy.set_porf_cycles(limits.porf_cycles);
        Engine {
            unfiltered: strategy.unfiltered(),
            wants_revisits: strategy.wants_revisits(),
            takes_leftmost: strategy.takes_leftmost(),
            checks_steps: strategy.checks_steps(),
            branches: 0,
            bounds_search: strategy.bounds_search(),
            pruned_now: false,
            dropped_by_program: false,
            replayed: false,
            deadline: deadline::Deadline::new(limits.deadline),
            cyclic_seen: std::collections::HashSet::new(),
            cyclic_dropped: std::collections::HashSet::new(),
            repeated: false,
            promise_verdict: None,
            guesses: guessed::Guesses::default(),
            graph: ExecutionGraph::new(),
            model,
            stats: Stats::default(),
            strategy,
            threads: Vec::new(),
            limits,
            races: RaceLog::default(),
            performing: Performing::NONE,
            status: Vec::new(),
            starting: 0,
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
        self.strategy.owns_execution() && !self.repeated
    }

    /// Prepares the next execution. Returns false when the exploration is over.
    pub fn begin_execution(&mut self) -> bool {
        if !self.strategy.next_execution(&mut self.graph, self.model) {
            return false;
        }
        self.replayed = false;
        self.repeated = false;
        self.promise_verdict = None;
        self.guesses.clear();
        self.branches = 0;
        self.pruned_now = false;
        self.dropped_by_program = false;
        // Only backward revisits, a model without coherence (whose reads'
        // choices porf bounds) and the unfair progress check ask porf
        // views; a strategy starting from an empty graph with none of
        // them spares their joins.
        let porf_needed = self.wants_revisits || !self.model.coherent() || self.progress.model != Progress::Fair;
        self.graph.keep_porf(porf_needed);
        // One record per thread of the kept graph, made in place (growing
        // the vector one spawn at a time cloned a default record each time).
        self.threads.clear();
        self.threads.resize_with(self.graph.num_threads(), ThreadRt::default);
        // Thread 0 runs first; the others appear as they are spawned.
        self.status.clear();
        self.status.push(ThreadStatus::Gone);
        self.starting = 0;
        self.performing = Performing::NONE;
        // Memory kinds and kernels are registered again as the program re-runs.
        self.memory.clear();
        self.progress.clear();
        true
    }

    /// Ends the current execution with `end` as [`Engine::judge_complete`]
    /// gave it (the model's verdict on the complete graph is taken there,
    /// once: not again here). A replay may turn a failure into no result
    /// (the failure is not the token's): see [`Engine::replay_diverged`],
    /// which the caller asks before reporting it.
    pub fn end_execution(&mut self, end: ExecutionEnd) {
        if end == ExecutionEnd::Complete {
            self.hand_resolved();
        }
        let end = if end != ExecutionEnd::Complete && self.checks_steps && !self.strategy.accepts_end(&self.graph, end)
        {
            ExecutionEnd::Blocked
        } else {
            end
        };
        if std::mem::take(&mut self.pruned_now) && end == ExecutionEnd::Blocked {
            if self.owns_execution() {
                self.stats.pruned += 1;
            }
            self.strategy.execution_done(&self.graph, end);
            return;
        }
        if !self.owns_execution() {
            // Another shard's execution: it counts there (or a cyclic one
            // counted already).
            self.strategy.execution_done(&self.graph, end);
            return;
        }
        if end == ExecutionEnd::Complete && self.limits.record_races {
            self.log_races();
        }
        match end {
            ExecutionEnd::Complete => {
                self.stats.complete += 1;
                // A complete execution with promises passed their verdict,
                // which keeps only cyclic graphs.
                self.stats.cyclic += !self.graph.promises().is_empty() as u64;
            }
            ExecutionEnd::Blocked => self.stats.blocked += 1,
            ExecutionEnd::Failed => self.stats.failed += 1,
        }
        self.strategy.execution_done(&self.graph, end);
    }

    /// Distinct complete executions, when the strategy may repeat some.
    pub fn distinct_complete(&self) -> Option<u64> {
        self.strategy.distinct_complete()
    }

    /// When the reference enumerator's guessed values did not settle: after
    /// how many rounds (see [`crate::explore::Strategy::unsettled_rounds`]).
    pub fn unsettled_rounds(&self) -> Option<u32> {
        self.strategy.unsettled_rounds()
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

    /// Starts performing `op`: the events it adds take its scope and class.
    #[inline]
    fn begin_op(&mut self, op: &Op) {
        self.performing = Performing {
            scope: op.scope(),
            class: op.class(),
        };
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
    #[inline]
    pub fn cursor(&self, t: ThreadId) -> u32 {
        self.threads.get(t as usize).map_or(0, |r| r.cursor)
    }

    fn push(&mut self, t: ThreadId, kind: EventKind, src: SourceLoc, added_max: bool) -> EventId {
        let Performing { scope, class } = self.performing;
        let access = matches!(kind, EventKind::Read(_) | EventKind::Write(_));
        let id = self
            .graph
            .push_event(t, kind, src, scope, self.model.sync_rules(), added_max);
        if access {
            if let Some(c) = class {
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
}
