//! Process-wide counters of program runs and forbidden outcomes, kept per
//! thread and flushed so that a parallel run does not share a cache line.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering as StdOrdering;

/// Invocations of the program closure by threads that have finished (for
/// every tool alike). A running thread counts its own in [`RUNS_HERE`]: one
/// shared counter bumped by every execution bounced its cache line between
/// the cores of a parallel run, which cost the parallel explorer about a
/// tenth of its speed.
pub(crate) static CLOSURE_RUNS: AtomicU64 = AtomicU64::new(0);

/// Which count is current: a thread's runs count only towards the count
/// they were made in (a thread that ends after a new count began, such as
/// a finished test's, adds nothing to it).
pub(crate) static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Held while a thread's runs are added to [`CLOSURE_RUNS`] and while a new
/// count begins, so that no addition lands in the count after the one it
/// was checked against.
pub(crate) static FLUSH: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub(crate) fn flush_lock() -> std::sync::MutexGuard<'static, ()> {
    FLUSH.lock().unwrap_or_else(|e| e.into_inner())
}

/// The calling thread's invocations of the program closure in the count
/// `.0`, added to [`CLOSURE_RUNS`] when the thread ends if that count is
/// still the current one.
struct RunsHere(std::cell::Cell<(u64, u64)>);

impl Drop for RunsHere {
    fn drop(&mut self) {
        let (generation, runs) = self.0.get();
        let _held = flush_lock();
        if generation == GENERATION.load(StdOrdering::Relaxed) {
            CLOSURE_RUNS.fetch_add(runs, StdOrdering::Relaxed);
        }
    }
}

thread_local! {
    static RUNS_HERE: RunsHere = const { RunsHere(std::cell::Cell::new((0, 0))) };
}

/// The calling thread's runs in the current count.
pub(crate) fn runs_here() -> u64 {
    let (generation, runs) = RUNS_HERE.with(|r| r.0.get());
    if generation == GENERATION.load(StdOrdering::Relaxed) {
        runs
    } else {
        0
    }
}

/// Invocations of the program closure so far: by finished threads and by
/// the calling one.
pub(crate) fn closure_runs() -> u64 {
    CLOSURE_RUNS.load(StdOrdering::Relaxed) + runs_here()
}

/// Starts counting invocations afresh.
pub(crate) fn reset_closure_runs() {
    let _held = flush_lock();
    GENERATION.fetch_add(1, StdOrdering::Relaxed);
    CLOSURE_RUNS.store(0, StdOrdering::Relaxed);
}

/// The tool runners keep process-wide counters: tests that run a tool hold
/// this lock so that they do not run at once.
#[cfg(test)]
pub(crate) fn tests_serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Counts program runs whose outcome the program's own logic forbids (the
/// programs report this instead of panicking, so every tool runs to the end).
pub(crate) static FORBIDDEN: AtomicU64 = AtomicU64::new(0);

pub(crate) fn count_run() {
    let runs = runs_here() + 1;
    RUNS_HERE.with(|r| r.0.set((GENERATION.load(StdOrdering::Relaxed), runs)));
}

pub(crate) fn record_outcome(allowed: bool) {
    if !allowed {
        FORBIDDEN.fetch_add(1, StdOrdering::Relaxed);
    }
}
