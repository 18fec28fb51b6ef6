//! What a run is given and what it gives back: the strategy choice
//! ([`StrategyChoice`]), the run's configuration ([`RunConfig`]) and its
//! result ([`RunResult`], with the merge of shard results). Plain data,
//! apart from the code that acts on it.

use super::StopCause;
use crate::engine::Stats;
use crate::failure::Failure;
use crate::memory::Platform;
use crate::model::MemoryModel;
use crate::outcome::Outcome;
use crate::progress::Progress;
use std::collections::BTreeMap;
use std::time::Duration;

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
    /// Every distinct value each read can take under one fixed interleaving,
    /// every write last in mo: the litmus front end's runs of one thread
    /// alone with a thread that only writes, on the `porf` base
    /// (`crate::explore::values`). Not an explorer for programs in general:
    /// anywhere else it leaves executions out.
    Values,
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
    /// The memory model (default `cpp20`: C++20's model, which Rust uses).
    pub model: MemoryModel,
    /// The exploration strategy (default exhaustive).
    pub strategy: StrategyChoice,
    /// Stop after this many executions (the run, and its report, then say
    /// it is incomplete).
    pub max_executions: Option<u64>,
    /// Stop after this much time (the run is then incomplete), even inside
    /// an execution: the engine reads the clock every few steps
    /// ([`Limits::deadline`](crate::engine::Limits::deadline)),
    /// and an execution it cuts is neither counted nor reported: what it
    /// would have done is unknown. Code that loops without touching a shim
    /// object cannot be interrupted.
    pub max_duration: Option<Duration>,
    /// Steps one thread may take in one execution before it is reported as
    /// runaway: its operations and its spin hints (`spin_loop`,
    /// `yield_now`).
    pub max_steps: u64,
    /// Stack size of each model thread, in bytes (default 2 MiB, as a std
    /// thread gets; below it lies a guard page). A thread that overflows it
    /// fails its execution with a
    /// [`FailureKind::StackOverflow`](crate::failure::FailureKind::StackOverflow)
    /// report (Linux; elsewhere the process crashes as with std). Read by
    /// the program runner (the shim's runtime), not by the driver.
    pub stack_size: usize,
    /// How many failures to collect before stopping (default 1).
    pub max_failures: usize,
    /// Keep exploring through data and heterogeneous races (default false):
    /// every execution runs to its end, each distinct racing pair of source
    /// lines is reported once ([`RunResult::races`]), and what racy
    /// executions do afterwards is still explored (herd's treatment; it
    /// shows, say, both the scope mismatch on a flag and the data race it
    /// lets through).
    pub record_races: bool,
    /// The platform: device attributes that decide whether system-scope
    /// atomics on memory of a given kind (`gpu::alloc_in`) are atomic (seed
    /// 001, Atomicity). Default: every attribute 0.
    pub platform: Platform,
    /// The forward-progress model: which spin-waits are hangs (default fair).
    pub progress: Progress,
    /// Steps all threads together may take in one execution (loom's
    /// `max_branches`; `None`: no bound).
    pub max_branches: Option<u64>,
    /// Threads one execution may have, the main thread included (loom's
    /// `max_threads`; `None`: no bound). A spawn past it panics. Read by
    /// the program runner (the shim's runtime), not by the driver.
    pub max_threads: Option<usize>,
    /// A preemption bound with loom's meaning, for the exhaustive and the
    /// reference strategies: every execution that some interleaving with
    /// at most this many preemptions reaches is explored (the exhaustive
    /// explorer explores some with more too). `None`: no bound.
    pub preemption_bound: Option<u32>,
    /// Run the program as a DRFrlx system in C11 terms (the DRFrlx check's
    /// weak-model run): unpaired classified accesses as `SeqCst`, and every
    /// paired access (a `SeqCst` access without a DRFrlx class) between two
    /// `SeqCst` fences. A setting of the run, so it holds on every OS thread
    /// the run uses and ends with the run, however the run ends. Read by the
    /// program runner (the shim's runtime), not by the driver.
    pub drfrlx_system: bool,
    /// Under `c11` (a model without acyclic(po ∪ rf)), whether the
    /// exhaustive explorer also builds executions with a cycle in po ∪ rf
    /// (default; docs/c11-model.md section 4). `false` keeps to the
    /// po ∪ rf-acyclic ones (the litmus front end's cross-checks).
    pub porf_cycles: bool,
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
            drfrlx_system: false,
            porf_cycles: true,
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
    /// Why it did not, if it did not: the rendering of [`RunResult::stop`]
    /// for a run the driver stopped early, or a caller's fuller account of
    /// a run it cut itself (the litmus front end's work caps).
    pub incomplete_reason: Option<String>,
    /// Why the driver stopped the run early, if it did: match this, not
    /// the text of `incomplete_reason`.
    pub stop: Option<StopCause>,
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
        self.stats.cyclic += other.stats.cyclic;
        self.stats.cyclic_dropped += other.stats.cyclic_dropped;
        self.stats.consumed_only.extend(other.stats.consumed_only);
        self.distinct = match (self.distinct, other.distinct) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        // One report per failing execution, as in a single run; race
        // reports are per distinct pair of lines, so a pair both parts
        // found is kept once.
        self.failures.extend(other.failures);
        let same = |a: &Failure, b: &Failure| {
            a.kind() == b.kind() && a.location() == b.location() && a.message() == b.message()
        };
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
        if self.stop.is_none() {
            self.stop = other.stop;
        }
        self.elapsed = self.elapsed.max(other.elapsed);
        self.replay_diverged |= other.replay_diverged;
        if self.replay_divergence.is_none() {
            self.replay_divergence = other.replay_divergence;
        }
    }
}
