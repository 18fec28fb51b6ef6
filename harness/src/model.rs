//! Running a closure under the checker: [`model`] and [`Builder`].

use crate::loom_compat::{self, LoomEnv};
use crate::progress_line::{self, Ticker};
use crate::report::Report;
use scopecheck_checker::memory::Platform;
use scopecheck_checker::progress::Progress;
use scopecheck_checker::token;
use scopecheck_instrument::rt;
use std::path::PathBuf;
use std::time::Duration;

pub use scopecheck_instrument::rt::execution_counts;
pub use scopecheck_instrument::rt::RunConfig;
pub use scopecheck_instrument::rt::StrategyChoice as Strategy;

/// Configures a check, with public fields like loom's `Builder` (loom's
/// own fields included, read from the same `LOOM_*` environment variables,
/// so a loom test's `loom::model::Builder` works unchanged).
///
/// The run's settings are one [`RunConfig`], [`Builder::run`], whose fields
/// read and write through the builder (`builder.max_steps = 1_000`,
/// `builder.model = MemoryModel::Rc11`, `builder.strategy = ...`): each
/// setting has one place. loom's `max_duration` is the run's (from
/// `LOOM_MAX_DURATION`, seconds). Three of loom's settings keep loom's
/// spelling here ([`Builder::max_threads`], [`Builder::max_branches`],
/// [`Builder::preemption_bound`], `usize`s) and set the run's field of the
/// same name when the check starts; the builder's field is the one to set.
#[derive(Clone, Debug)]
pub struct Builder {
    /// The run's settings: the memory model (default `cpp20`: C++20's
    /// model, which Rust uses), the strategy (default exhaustive;
    /// `SCOPECHECK_REPLAY` in the environment selects a replay), the
    /// bounds, the platform, the progress model, ...
    pub run: RunConfig,
    /// Whether a long run shows its progress (executions, rate, depth) on
    /// stderr: `None` (default) as `SCOPECHECK_PROGRESS` says (`0`/`off`,
    /// `1`/`on`), else only when stderr is a terminal. Not for
    /// [`Builder::explore_parallel`].
    pub show_progress: Option<bool>,
    /// How long a run goes on before its progress is shown (default 3 s).
    pub progress_after: Duration,
    /// loom: the most threads an execution may have, the main thread
    /// included; a spawn past it panics ("Model exceeded maximum number of
    /// threads"). Default `usize::MAX`, no bound (loom's default is 5,
    /// [`MAX_THREADS`](crate::MAX_THREADS), a limit of its fixed-size
    /// vector clocks that scopecheck does not have).
    pub max_threads: usize,
    /// loom: the most steps (operations and spin/yield hints) all threads
    /// together may take in one execution; past it the execution fails as a
    /// runaway with loom's words ("Model exceeded maximum number of
    /// branches"). From `LOOM_MAX_BRANCHES`; default `usize::MAX`, no bound
    /// (loom's default is 1,000; scopecheck bounds each thread by
    /// [`RunConfig::max_steps`] instead).
    pub max_branches: usize,
    /// loom: stop after this many executions (the report then says it is
    /// incomplete); from `LOOM_MAX_PERMUTATIONS`. The smaller of this and
    /// [`RunConfig::max_executions`] applies.
    pub max_permutations: Option<usize>,
    /// loom: the checkpoint file (from `LOOM_CHECKPOINT_FILE`). Here it
    /// holds the first failing execution's replay token: a run writes it
    /// there, and a run that finds it replays that execution. An
    /// exploration cannot be resumed midway (see `loom_compat`); a run says
    /// so in one line on stderr.
    pub checkpoint_file: Option<PathBuf>,
    /// loom: how often loom writes its checkpoint (`LOOM_CHECKPOINT_INTERVAL`,
    /// default 20,000). Not used: the checkpoint is written once, at the
    /// first failure.
    pub checkpoint_interval: usize,
    /// loom: start with exploration off until `loom::explore()`. Accepted;
    /// scopecheck explores every execution regardless (a superset).
    pub expect_explicit_explore: bool,
    /// loom: capture source locations (`LOOM_LOCATION`). scopecheck always
    /// does, at no extra cost, so this changes nothing.
    pub location: bool,
    /// loom: log the executions to stdout (`LOOM_LOG`): every execution's
    /// events, thread by thread with their lines, and how it ended, are
    /// printed (`print!`, so a test runner captures them).
    pub log: bool,
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

impl std::ops::Deref for Builder {
    type Target = RunConfig;

    fn deref(&self) -> &RunConfig {
        &self.run
    }
}

impl std::ops::DerefMut for Builder {
    fn deref_mut(&mut self) -> &mut RunConfig {
        &mut self.run
    }
}

impl Default for Builder {
    fn default() -> Builder {
        Builder::new()
    }
}

impl Builder {
    /// The default configuration, plus `SCOPECHECK_REPLAY` if it is set.
    pub fn new() -> Builder {
        let env = LoomEnv::read();
        let strategy = match std::env::var("SCOPECHECK_REPLAY") {
            Ok(t) if !t.trim().is_empty() => Strategy::Replay(t.trim().to_string()),
            _ => Strategy::Exhaustive,
        };
        Builder {
            run: RunConfig {
                strategy,
                max_duration: env.max_duration,
                ..RunConfig::default()
            },
            show_progress: None,
            progress_after: Duration::from_secs(3),
            max_threads: usize::MAX,
            max_branches: env.max_branches.unwrap_or(usize::MAX),
            max_permutations: env.max_permutations,
            checkpoint_file: env.checkpoint_file,
            checkpoint_interval: env.checkpoint_interval.unwrap_or(20_000),
            expect_explicit_explore: false,
            location: env.location,
            log: env.log,
            preemption_bound: env_preemption_bound(),
            budget: None,
        }
        .with_env_budget()
    }

    fn with_env_budget(mut self) -> Builder {
        self.budget = crate::budget::from_env(self.preemption_bound.is_some(), Duration::from_secs(1));
        self
    }

    /// loom's setter: the checkpoint file (see [`Builder::checkpoint_file`]'s field).
    pub fn checkpoint_file(&mut self, file: &str) -> &mut Builder {
        self.checkpoint_file = Some(file.into());
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

    /// The run's configuration as the check runs it: the model a replay
    /// token names, loom's settings in the run's terms, checked.
    fn config(&self) -> RunConfig {
        let mut c = self.run.clone();
        if let Strategy::Replay(t) = &c.strategy {
            match token::decode(t) {
                Ok(tok) => c.model = tok.model,
                Err(e) => panic!("scopecheck: SCOPECHECK_REPLAY / Strategy::Replay holds a bad token: {e}"),
            }
        }
        if let Err(e) = rt::validate_strategy(&c.strategy) {
            panic!("scopecheck: Builder::strategy: {e}");
        }
        check_progress(c.progress);
        let bound = |v: usize| (v != usize::MAX).then_some(v);
        c.max_executions = match (c.max_executions, self.max_permutations) {
            (Some(a), Some(b)) => Some(a.min(b as u64)),
            (a, b) => a.or(b.map(|b| b as u64)),
        };
        c.max_failures = c.max_failures.max(1);
        c.max_branches = bound(self.max_branches).map(|b| b as u64);
        c.max_threads = bound(self.max_threads);
        c.preemption_bound = self.preemption_bound.map(|b| u32::try_from(b).unwrap_or(u32::MAX));
        c
    }

    /// Explores `f` and returns what was found, without panicking on failures.
    pub fn explore<F: Fn()>(&self, f: F) -> Report {
        if let (Some(budget), Strategy::Exhaustive) = (self.budget, &self.strategy) {
            return crate::budget::explore(self, budget, &f);
        }
        if self.expect_explicit_explore {
            loom_compat::stop_exploring();
        }
        let checkpoint = self.checkpoint_file.as_deref();
        let replay = checkpoint.and_then(loom_compat::read_checkpoint);
        if let Some(path) = checkpoint {
            loom_compat::checkpoint_notice(path, replay.is_some());
        }
        let config = match &replay {
            Some(tok) => {
                let mut b = self.clone();
                b.strategy = Strategy::Replay(tok.clone());
                b.config()
            }
            None => self.config(),
        };
        let mut ticker = progress_line::wanted(self.show_progress).then(|| Ticker::new(self.progress_after));
        let mut n = 0u64;
        let r = rt::run_with(&config, &f, &mut |g, end| {
            if let Some(t) = ticker.as_mut() {
                t.ended(g, end);
            }
            if self.log {
                n += 1;
                let mut text = String::new();
                let _ = crate::report::write_execution(&mut text, g, &[]);
                print!("scopecheck: execution {n} ({end:?}):\n{text}");
            }
        });
        if let Some(t) = ticker {
            t.finish();
        }
        let report = Report::new(r, config.model).with_cycle_coverage(config.model, config.porf_cycles);
        if let (Some(path), None) = (checkpoint, &replay) {
            loom_compat::write_checkpoint(path, &report);
        }
        report
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
        Report::new(r, config.model).with_cycle_coverage(config.model, config.porf_cycles)
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
