//! Executions until the first failure: scopecheck's random walk and PCT
//! against shuttle's random and PCT schedulers, on seeded buggy programs,
//! averaged over seeds (issue 5, deliverable 3).
//!
//! Each program is written once in `buggy!` and instantiated for both
//! shims. Its bug is a schedule bug: it shows under sequential consistency
//! too, so shuttle (which runs every atomic as SeqCst) can find it as well.
//! Every run stops at its first failure. The count is the number of
//! invocations of the program closure up to and including the failing one.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering as StdOrdering};
use std::time::{Duration, Instant};

static RUNS: AtomicU64 = AtomicU64::new(0);

macro_rules! buggy {
    ($module:ident, $krate:ident) => {
        /// The buggy programs written against this tool's shim.
        pub mod $module {
            use ::$krate::sync::atomic::{AtomicUsize, Ordering::SeqCst};
            use ::$krate::sync::Arc;
            use ::$krate::thread;

            /// Two threads increment with a load and a store (not one RMW),
            /// twice each: an update is lost when one thread's pair is
            /// split by the other's store.
            pub fn lost_update() {
                let x = Arc::new(AtomicUsize::new(0));
                let hs: Vec<_> = (0..2)
                    .map(|_| {
                        let x = x.clone();
                        thread::spawn(move || {
                            for _ in 0..2 {
                                let v = x.load(SeqCst);
                                x.store(v + 1, SeqCst);
                            }
                        })
                    })
                    .collect();
                for h in hs {
                    h.join().unwrap();
                }
                assert_eq!(x.load(SeqCst), 4, "an increment was lost");
            }

            /// Thread 1 takes `steps` steps and then sets a flag; the main
            /// thread's very first access must not see it. Failing needs
            /// thread 1 to run its whole stretch before the main thread
            /// moves: one ordering constraint (PCT depth 1), but about
            /// 2^-steps for a uniformly random scheduler.
            pub fn long_stretch(steps: usize) {
                let noise = Arc::new(AtomicUsize::new(0));
                let flag = Arc::new(AtomicUsize::new(0));
                let (n2, f2) = (noise.clone(), flag.clone());
                let t = thread::spawn(move || {
                    for _ in 0..steps {
                        n2.fetch_add(1, SeqCst);
                    }
                    f2.store(1, SeqCst);
                });
                assert_eq!(flag.load(SeqCst), 0, "thread 1 finished its stretch first");
                t.join().unwrap();
            }

            /// Thread 1 stores 1 then, after `steps` other steps, 2; thread
            /// 2 takes `steps` steps and then reads. Failing needs the read
            /// between the two stores: two ordering constraints (PCT depth
            /// 2).
            pub fn between(steps: usize) {
                let a = Arc::new(AtomicUsize::new(0));
                let noise = Arc::new(AtomicUsize::new(0));
                let (a1, n1) = (a.clone(), noise.clone());
                let t1 = thread::spawn(move || {
                    a1.store(1, SeqCst);
                    for _ in 0..steps {
                        n1.fetch_add(1, SeqCst);
                    }
                    a1.store(2, SeqCst);
                });
                let (a2, n2) = (a.clone(), noise.clone());
                let t2 = thread::spawn(move || {
                    for _ in 0..steps {
                        n2.fetch_add(1, SeqCst);
                    }
                    assert_ne!(a2.load(SeqCst), 1, "read between the two stores");
                });
                t1.join().unwrap();
                t2.join().unwrap();
            }
        }
    };
}

buggy!(bugs_on_scopecheck, scopecheck);
buggy!(bugs_on_shuttle, shuttle);

/// A seeded buggy program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {
    /// [`bugs_on_scopecheck::lost_update`].
    LostUpdate,
    /// [`bugs_on_scopecheck::long_stretch`] with 8 steps.
    LongStretch,
    /// [`bugs_on_scopecheck::between`] with 4 steps.
    Between,
}

impl Bug {
    /// Every program, in table order.
    pub const ALL: [Bug; 3] = [Bug::LostUpdate, Bug::LongStretch, Bug::Between];

    /// Its name in the table.
    pub fn name(self) -> &'static str {
        match self {
            Bug::LostUpdate => "lost-update",
            Bug::LongStretch => "long-stretch-8",
            Bug::Between => "between-4",
        }
    }

    fn run_scopecheck(self) {
        match self {
            Bug::LostUpdate => bugs_on_scopecheck::lost_update(),
            Bug::LongStretch => bugs_on_scopecheck::long_stretch(8),
            Bug::Between => bugs_on_scopecheck::between(4),
        }
    }

    fn run_shuttle(self) {
        match self {
            Bug::LostUpdate => bugs_on_shuttle::lost_update(),
            Bug::LongStretch => bugs_on_shuttle::long_stretch(8),
            Bug::Between => bugs_on_shuttle::between(4),
        }
    }
}

/// How the failure is looked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finder {
    /// `Strategy::Random { seed, .. }`.
    ScopecheckRandom,
    /// shuttle's `RandomScheduler::new_from_seed`.
    ShuttleRandom,
    /// `Strategy::Pct { seed, depth, .. }`.
    ScopecheckPct,
    /// shuttle's `PctScheduler::new_from_seed`.
    ShuttlePct,
}

impl Finder {
    /// Every finder, in table order.
    pub const ALL: [Finder; 4] = [
        Finder::ScopecheckRandom,
        Finder::ShuttleRandom,
        Finder::ScopecheckPct,
        Finder::ShuttlePct,
    ];

    /// Its name in the table.
    pub fn name(self) -> &'static str {
        match self {
            Finder::ScopecheckRandom => "scopecheck-random",
            Finder::ShuttleRandom => "shuttle",
            Finder::ScopecheckPct => "scopecheck-pct",
            Finder::ShuttlePct => "shuttle-pct",
        }
    }
}

/// PCT depth used for every program (the deepest bug above needs 2).
pub const PCT_DEPTH: usize = 2;

/// Runs of `bug` under `finder` with `seed` until the first failure, at
/// most `limit`; `None` if none failed.
pub fn runs_to_failure(bug: Bug, finder: Finder, seed: u64, limit: u64) -> Option<u64> {
    RUNS.store(0, StdOrdering::Relaxed);
    match finder {
        Finder::ScopecheckRandom | Finder::ScopecheckPct => {
            let mut b = scopecheck::Builder::new();
            b.model = scopecheck::MemoryModel::Sc;
            b.strategy = if finder == Finder::ScopecheckRandom {
                scopecheck::Strategy::Random {
                    seed,
                    iterations: limit,
                }
            } else {
                scopecheck::Strategy::Pct {
                    seed,
                    iterations: limit,
                    depth: PCT_DEPTH as u32,
                }
            };
            let report = b.explore(|| {
                RUNS.fetch_add(1, StdOrdering::Relaxed);
                bug.run_scopecheck();
            });
            (!report.failures().is_empty()).then(|| RUNS.load(StdOrdering::Relaxed))
        }
        Finder::ShuttleRandom | Finder::ShuttlePct => {
            let body = move || {
                RUNS.fetch_add(1, StdOrdering::Relaxed);
                bug.run_shuttle();
            };
            let limit = limit as usize;
            let failed = catch_unwind(AssertUnwindSafe(|| {
                if finder == Finder::ShuttleRandom {
                    let s = shuttle::scheduler::RandomScheduler::new_from_seed(seed, limit);
                    shuttle::Runner::new(s, shuttle::Config::new()).run(body);
                } else {
                    let s = shuttle::scheduler::PctScheduler::new_from_seed(seed, PCT_DEPTH, limit);
                    shuttle::Runner::new(s, shuttle::Config::new()).run(body);
                }
            }))
            .is_err();
            failed.then(|| RUNS.load(StdOrdering::Relaxed))
        }
    }
}

/// One row of the table: the mean runs to the first failure over the seeds
/// (a seed that found nothing within the limit counts as the limit), how
/// many seeds found it, and the wall time of all of them.
pub struct FirstFailure {
    /// The program.
    pub bug: Bug,
    /// The finder.
    pub finder: Finder,
    /// Mean runs until the first failure.
    pub mean_runs: f64,
    /// Seeds that found the failure within the limit.
    pub found: u64,
    /// Seeds tried.
    pub seeds: u64,
    /// Wall time over all seeds.
    pub wall: Duration,
}

/// The table for `seeds` seeds (0..seeds) with `limit` runs per seed.
pub fn first_failure_table(seeds: u64, limit: u64) -> Vec<FirstFailure> {
    let mut rows = Vec::new();
    for bug in Bug::ALL {
        for finder in Finder::ALL {
            let start = Instant::now();
            let (mut total, mut found) = (0u64, 0u64);
            for seed in 0..seeds {
                match runs_to_failure(bug, finder, seed, limit) {
                    Some(n) => {
                        total += n;
                        found += 1;
                    }
                    None => total += limit,
                }
            }
            rows.push(FirstFailure {
                bug,
                finder,
                mean_runs: total as f64 / seeds.max(1) as f64,
                found,
                seeds,
                wall: start.elapsed(),
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finder_finds_the_lost_update() {
        let _g = crate::tests_serial();
        let found: Vec<Option<u64>> = Finder::ALL
            .iter()
            .map(|&f| runs_to_failure(Bug::LostUpdate, f, 3, 10_000))
            .collect();
        // Seed 3, in `Finder::ALL` order: each run is deterministic.
        assert_eq!(found, vec![Some(1), Some(1), Some(2), Some(10)]);
    }

    #[test]
    fn each_program_both_fails_and_passes_under_sc() {
        let _g = crate::tests_serial();
        // Exhaustively under `sc`: (failing executions, passing ones).
        let expected = [
            (Bug::LostUpdate, 28, 6),
            (Bug::LongStretch, 1, 1),
            (Bug::Between, 70, 71),
        ];
        for (bug, failed, passed) in expected {
            let mut b = scopecheck::Builder::new();
            b.model = scopecheck::MemoryModel::Sc;
            b.max_failures = usize::MAX;
            let report = b.explore(|| bug.run_scopecheck());
            assert_eq!((report.failed(), report.executions()), (failed, passed), "{bug:?}");
        }
    }
}
