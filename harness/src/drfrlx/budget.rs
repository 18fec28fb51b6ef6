//! The bounds of one DRFrlx check (`--timeout`, `--max-executions`,
//! [`super::Check::max_duration`], [`super::Check::max_executions`]): one
//! allowance shared by every exploration the check runs (the program, each
//! combination of the quantum-equivalent program, the weak model, class
//! inference), each run given what is left of it, so that the runtime cuts
//! inside an execution when the time is up.

use scopecheck_instrument::rt::{RunConfig, RunResult};
use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

/// What is left of a check's bounds.
pub(super) struct Budget {
    deadline: Option<Instant>,
    max_duration: Option<Duration>,
    max_executions: Option<u64>,
    /// Executions left (`None`: no bound).
    left: Cell<Option<u64>>,
    /// Why the budget ran out, once it has.
    spent: RefCell<Option<String>>,
}

impl Budget {
    /// The bounds, starting now.
    pub(super) fn new(max_executions: Option<u64>, max_duration: Option<Duration>) -> Budget {
        Budget {
            deadline: max_duration.and_then(|d| Instant::now().checked_add(d)),
            max_duration,
            max_executions,
            left: Cell::new(max_executions),
            spent: RefCell::new(None),
        }
    }

    /// Gives a run what is left: its executions and its time.
    pub(super) fn apply(&self, config: &mut RunConfig) {
        config.max_executions = self.left.get();
        config.max_duration = self.deadline.map(|d| d.saturating_duration_since(Instant::now()));
    }

    /// Takes a finished run's executions off the allowance, and notes
    /// whether the budget ran out.
    pub(super) fn charge(&self, r: &RunResult) {
        let runs = r.stats.complete + r.stats.blocked + r.stats.failed;
        if let Some(left) = self.left.get() {
            let left = left.saturating_sub(runs);
            self.left.set(Some(left));
            if left == 0 && !r.complete {
                self.spend(format!(
                    "the limit of {} executions was reached",
                    self.max_executions.unwrap_or_default()
                ));
            }
        }
        self.check_clock();
    }

    /// Whether the time is up (noted as the reason if it is).
    fn check_clock(&self) {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.spend(format!(
                "the time limit of {:?} ran out",
                self.max_duration.unwrap_or_default()
            ));
        }
    }

    fn spend(&self, why: String) {
        let mut s = self.spent.borrow_mut();
        if s.is_none() {
            *s = Some(why);
        }
    }

    /// Why the budget ran out, if it has (the clock is read).
    pub(super) fn spent(&self) -> Option<String> {
        self.check_clock();
        if self.left.get() == Some(0) {
            self.spend(format!(
                "the limit of {} executions was reached",
                self.max_executions.unwrap_or_default()
            ));
        }
        self.spent.borrow().clone()
    }
}
