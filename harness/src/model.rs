//! Running a closure under the checker: [`model`] and [`Builder`].

use crate::progress_line::{self, Ticker};
use crate::report::Report;
use scopecheck_checker::memory::Platform;
use scopecheck_checker::progress::Progress;
use scopecheck_checker::token;
use scopecheck_checker::MemoryModel;
use scopecheck_instrument::rt::{self, RunConfig};
use std::time::Duration;

pub use scopecheck_instrument::rt::execution_counts;
pub use scopecheck_instrument::rt::StrategyChoice as Strategy;

/// Configures a check, with public fields like loom's `Builder`.
#[derive(Clone, Debug)]
pub struct Builder {
    /// The memory model (default `cpp20`: C++20's model, which Rust uses).
    pub memory_model: MemoryModel,
    /// The exploration strategy (default exhaustive; `SCOPECHECK_REPLAY`
    /// in the environment selects a replay).
    pub strategy: Strategy,
    /// Stop after this many executions; the report then says it is incomplete.
    pub max_executions: Option<u64>,
    /// Stop after this much time, even in the middle of an execution (the
    /// clock is read every few steps); the report then says it is
    /// incomplete. An execution the deadline cuts is neither counted nor
    /// reported: what it would have done is unknown. Code that loops
    /// without touching a shim object cannot be interrupted.
    pub max_duration: Option<Duration>,
    /// Steps one thread may take in one execution before it is reported as
    /// runaway: its shim operations and its spin hints (`spin_loop`,
    /// `yield_now`).
    pub max_steps: u64,
    /// Stack size of each model thread, in bytes (default 2 MiB, as a std
    /// thread gets; below it lies a guard page). A thread that overflows it
    /// fails its execution with a [`FailureKind::StackOverflow`] report
    /// (Linux; elsewhere the process crashes as with std).
    ///
    /// [`FailureKind::StackOverflow`]: crate::FailureKind::StackOverflow
    pub stack_size: usize,
    /// How many failures to collect before stopping (default 1).
    pub max_failures: usize,
    /// Keep exploring through data and heterogeneous races (default false):
    /// every execution runs to its end, each distinct racing pair of source
    /// lines is reported once among the failures, and what racy executions
    /// do afterwards is still explored (herd's treatment; it shows, say, both
    /// the scope mismatch on a flag and the data race it lets through).
    pub record_races: bool,
    /// The platform whose device attributes decide whether system-scope
    /// atomics on memory of a given kind (`gpu::alloc_in`) are atomic (seed
    /// 001, Atomicity). Default: every attribute 0.
    pub platform: Platform,
    /// The forward-progress model: which spin-waits are hangs (default fair).
    pub progress: Progress,
    /// Whether a long run shows its progress (executions, rate, depth) on
    /// stderr: `None` (default) as `SCOPECHECK_PROGRESS` says (`0`/`off`,
    /// `1`/`on`), else only when stderr is a terminal. Not for
    /// [`Builder::explore_parallel`].
    pub show_progress: Option<bool>,
    /// How long a run goes on before its progress is shown (default 3 s).
    pub progress_after: Duration,
    /// Explore only up to this many preemptions, with loom's meaning (a
    /// switch away from a thread that could go on: not finished, blocked or
    /// yielding). `None` (default): no bound; `LOOM_MAX_PREEMPTIONS` in the
    /// environment sets it. A complete bounded run explored every execution
    /// some interleaving with at most that many preemptions reaches (and
    /// some with more): its report says so. Applies to the exhaustive
    /// strategy (and the reference enumerator).
    pub preemption_bound: Option<usize>,
    /// A wall-time budget for the exhaustive strategy: the run first takes
    /// 1000 PCT executions, then explores exhaustively until the budget is
    /// spent; the report says whether the exhaustive part finished. `None`
    /// (default) unless `SCOPECHECK_BUDGET` (seconds) is set, or
    /// `LOOM_MAX_PREEMPTIONS` is (then 1 s: loom's tests are written for
    /// loom's far smaller state space).
    pub budget: Option<Duration>,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder::new()
    }
}

impl Builder {
    /// The default configuration, plus `SCOPECHECK_REPLAY` if it is set.
    pub fn new() -> Builder {
        let d = RunConfig::default();
        let strategy = match std::env::var("SCOPECHECK_REPLAY") {
            Ok(t) if !t.trim().is_empty() => Strategy::Replay(t.trim().to_string()),
            _ => Strategy::Exhaustive,
        };
        Builder {
            memory_model: MemoryModel::default(),
            strategy,
            max_executions: None,
            max_duration: None,
            max_steps: d.max_steps,
            stack_size: d.stack_size,
            max_failures: 1,
            record_races: false,
            platform: Platform::default(),
            progress: Progress::Fair,
            show_progress: None,
            progress_after: Duration::from_secs(3),
            preemption_bound: env_preemption_bound(),
            budget: None,
        }
        .with_env_budget()
    }

    fn with_env_budget(mut self) -> Builder {
        self.budget = crate::budget::from_env(self.preemption_bound.is_some(), Duration::from_secs(1));
        self
    }

    /// The same configuration on `platform` (device attributes and peer atomics).
    pub fn platform(mut self, platform: Platform) -> Builder {
        self.platform = platform;
        self
    }

    /// The same configuration under the forward-progress model `progress`.
    ///
    /// # Panics
    /// If `progress` is `OccupancyBound` with no resident block.
    #[track_caller]
    pub fn progress(mut self, progress: Progress) -> Builder {
        check_progress(progress);
        self.progress = progress;
        self
    }

    fn config(&self) -> RunConfig {
        let mut model = self.memory_model;
        if let Strategy::Replay(t) = &self.strategy {
            match token::decode(t) {
                Ok(tok) => model = tok.model,
                Err(e) => panic!("scopecheck: SCOPECHECK_REPLAY / Strategy::Replay holds a bad token: {e}"),
            }
        }
        let strategy = self.strategy.clone();
        if let Err(e) = rt::validate_strategy(&strategy) {
            panic!("scopecheck: Builder::strategy: {e}");
        }
        check_progress(self.progress);
        RunConfig {
            model,
            strategy,
            max_executions: self.max_executions,
            max_duration: self.max_duration,
            max_steps: self.max_steps,
            stack_size: self.stack_size,
            max_failures: self.max_failures.max(1),
            record_races: self.record_races,
            platform: self.platform.clone(),
            progress: self.progress,
            preemption_bound: self.preemption_bound.map(|b| u32::try_from(b).unwrap_or(u32::MAX)),
        }
    }

    /// Explores `f` and returns what was found, without panicking on failures.
    pub fn explore<F: Fn()>(&self, f: F) -> Report {
        if let (Some(budget), Strategy::Exhaustive) = (self.budget, &self.strategy) {
            return crate::budget::explore(self, budget, &f);
        }
        let config = self.config();
        let r = if progress_line::wanted(self.show_progress) {
            let mut ticker = Ticker::new(self.progress_after);
            let r = rt::run_with(&config, &f, &mut |g, end| ticker.ended(g, end));
            ticker.finish();
            r
        } else {
            rt::run(&config, &f)
        };
        Report::new(r, config.model)
    }

    /// Explores `f` exhaustively on `threads` OS threads (all cores: pass
    /// `std::thread::available_parallelism()`), and returns the same counts,
    /// failures and races as [`Builder::explore`] with
    /// [`Strategy::Exhaustive`]. The threads share the tree of executions
    /// by work stealing: a thread that runs out of work is handed the
    /// biggest subtree another thread has not started yet, so uneven trees
    /// keep every thread busy (`docs/exploration.md`). `f` must be `Sync`:
    /// each thread runs its own executions of it. The strategy field is
    /// ignored; `max_executions` and `max_duration` bound the whole run,
    /// and the first failure (up to `max_failures`) stops every thread.
    pub fn explore_parallel<F: Fn() + Sync>(&self, threads: usize, f: F) -> Report {
        let config = self.config();
        let threads = threads.max(1);
        let r = rt::run_parallel(&config, threads, &f);
        Report::new(r, config.model)
    }

    /// Explores `f` and panics with the report if any execution fails
    /// (so `#[should_panic]` works), if a complete exploration finished
    /// no execution at all (every one blocked: nothing was checked, so
    /// passing would mean nothing; a run cut short by a bound before its
    /// first execution ended passes, and its report says so), or if a
    /// replay diverged from its token (the replay proved nothing).
    #[track_caller]
    pub fn check<F: Fn()>(&self, f: F) {
        let report = self.explore(f);
        if !report.failures().is_empty()
            || (report.is_complete() && report.no_answer().is_some())
            || report.replay_divergence().is_some()
        {
            panic!("{report}");
        }
    }
}

/// `LOOM_MAX_PREEMPTIONS`, as loom reads it.
///
/// # Panics
/// If it is set to something other than a number.
fn env_preemption_bound() -> Option<usize> {
    let v = std::env::var("LOOM_MAX_PREEMPTIONS").ok()?;
    match v.trim().parse() {
        Ok(n) => Some(n),
        Err(_) => panic!(
            "scopecheck: LOOM_MAX_PREEMPTIONS = {v:?} is not a number of preemptions (a whole number such as 2 or 4)"
        ),
    }
}

#[track_caller]
fn check_progress(p: Progress) {
    if let Progress::OccupancyBound { resident_blocks: 0 } = p {
        panic!(
            "scopecheck: Progress::OccupancyBound needs at least one resident block (resident_blocks = 0 would \
             never run any block)"
        );
    }
}

/// Explores every execution of `f` under the default configuration and
/// panics with a report on the first failure.
#[track_caller]
pub fn model<F: Fn()>(f: F) {
    Builder::new().check(f)
}
