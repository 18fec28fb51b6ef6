//! The run's deadline, looked at from inside an execution: one long
//! execution (a thread that loops a million times, a litmus `while (1)`
//! under a large unroll bound) must not outlive the run's time bound.
//!
//! Reading the clock costs tens of nanoseconds, a step of the engine from
//! about a hundred nanoseconds (two threads) to milliseconds (hundreds of
//! threads, whose every event carries a clock per thread). So the clock is
//! read every so many steps, and that number adapts: it halves while the
//! steps between two readings took longer than [`LOOK_EVERY`], and doubles
//! while they took less than a tenth of it, between 1 and [`MAX_STEPS`].
//! The hot path pays a countdown decrement per step; the deadline is seen
//! within a few [`LOOK_EVERY`] of passing however slow the steps are.

use std::time::{Duration, Instant};

/// How often the clock should be read, roughly.
const LOOK_EVERY: Duration = Duration::from_millis(1);

/// The most steps between two readings (with 100 ns steps, a reading
/// every 25 us: under 0.1 ns per step).
const MAX_STEPS: u32 = 256;

/// When the run must stop, and the steps left before the clock is read again.
#[derive(Clone, Debug)]
pub(super) struct Deadline {
    at: Option<Instant>,
    countdown: u32,
    /// Steps between two readings.
    every: u32,
    /// The last reading.
    last: Option<Instant>,
}

impl Deadline {
    /// A deadline at `at` (`None`: the clock is never read).
    pub(super) fn new(at: Option<Instant>) -> Deadline {
        Deadline {
            at,
            countdown: if at.is_some() { 1 } else { u32::MAX },
            every: 1,
            last: None,
        }
    }

    /// Counts one step; true when the deadline has passed.
    #[inline]
    pub(super) fn passed_at_step(&mut self) -> bool {
        self.countdown -= 1;
        self.countdown == 0 && self.look()
    }

    #[cold]
    fn look(&mut self) -> bool {
        let Some(at) = self.at else {
            self.countdown = u32::MAX;
            return false;
        };
        let now = Instant::now();
        if let Some(last) = self.last {
            let took = now.saturating_duration_since(last);
            if took > LOOK_EVERY {
                self.every = (self.every / 2).max(1);
            } else if took < LOOK_EVERY / 10 {
                self.every = (self.every * 2).min(MAX_STEPS);
            }
        }
        self.last = Some(now);
        self.countdown = self.every;
        now >= at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_deadline_the_clock_is_not_read() {
        let mut d = Deadline::new(None);
        for _ in 0..1000 {
            assert!(!d.passed_at_step());
        }
        assert!(d.last.is_none());
    }

    #[test]
    fn a_passed_deadline_is_seen_at_the_first_step() {
        let mut d = Deadline::new(Some(Instant::now()));
        assert!(d.passed_at_step());
    }

    #[test]
    fn fast_steps_are_counted_between_readings() {
        let mut d = Deadline::new(Some(Instant::now() + Duration::from_secs(3600)));
        for _ in 0..10_000 {
            assert!(!d.passed_at_step());
        }
        assert_eq!(d.every, MAX_STEPS);
    }
}
