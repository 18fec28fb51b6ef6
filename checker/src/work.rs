//! Counts of the checker's work, for tests that assert how the work grows
//! with the program (a long thread must cost its length, not its length
//! squared) without timing anything.
//!
//! Counting needs the `work-count` feature; without it the counting
//! functions are empty and [`counts`] answers zeros. Counts are kept per OS
//! thread (an exploration runs on the thread that started it).

/// What the checker did on this OS thread since the last [`reset`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkCount {
    /// Events looked up in a graph (`ExecutionGraph::event`): every scan
    /// of a location's accesses or of a thread's events looks each up.
    pub event_lookups: u64,
    /// Consistency checks that judged a whole graph (`sc`, psc).
    pub full_checks: u64,
}

#[cfg(feature = "work-count")]
thread_local! {
    static COUNTS: std::cell::Cell<WorkCount> = const {
        std::cell::Cell::new(WorkCount {
            event_lookups: 0,
            full_checks: 0,
        })
    };
}

/// The counts since the last [`reset`] (zeros without the `work-count` feature).
pub fn counts() -> WorkCount {
    #[cfg(feature = "work-count")]
    return COUNTS.with(|c| c.get());
    #[cfg(not(feature = "work-count"))]
    WorkCount::default()
}

/// Whether this build counts (the `work-count` feature).
pub fn enabled() -> bool {
    cfg!(feature = "work-count")
}

/// Sets the counts to zero.
pub fn reset() {
    #[cfg(feature = "work-count")]
    COUNTS.with(|c| c.set(WorkCount::default()));
}

#[inline(always)]
pub(crate) fn event_lookup() {
    #[cfg(feature = "work-count")]
    COUNTS.with(|c| {
        let mut w = c.get();
        w.event_lookups += 1;
        c.set(w);
    });
}

#[inline(always)]
pub(crate) fn full_check() {
    #[cfg(feature = "work-count")]
    COUNTS.with(|c| {
        let mut w = c.get();
        w.full_checks += 1;
        c.set(w);
    });
}

/// Runs `f` without counting its work: the cross-checks of debug builds
/// scan what the counted code avoids scanning.
pub(crate) fn uncounted<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(feature = "work-count")]
    {
        let saved = COUNTS.with(|c| c.get());
        let r = f();
        COUNTS.with(|c| c.set(saved));
        r
    }
    #[cfg(not(feature = "work-count"))]
    f()
}
