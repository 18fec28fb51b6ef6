//! A time budget for exhaustive runs: past it, a run gives up exhaustive
//! coverage and says so, having first looked for shallow bugs with PCT.
//!
//! Tests written for loom's preemption bound (`LOOM_MAX_PREEMPTIONS=4`)
//! often have far more executions within the bound under a weak memory
//! model than loom's interleavings: they would not finish. With a budget,
//! a run first takes [`PCT_FIRST`] PCT executions (bugs of small depth show
//! up in milliseconds), then explores exhaustively (within the preemption
//! bound, if any) until the budget is spent. The report says which of the
//! two it got to: "complete up to N preemptions", or the exhaustive part
//! was cut and only the PCT executions and the explored part were checked.

use crate::model::Builder;
use crate::report::Report;
use scopecheck_instrument::rt::StrategyChoice;
use std::time::{Duration, Instant};

/// PCT executions taken before the exhaustive part.
pub const PCT_FIRST: u64 = 1000;

/// The seed of the PCT part (fixed: a failure it finds replays by token).
const PCT_SEED: u64 = 0x5c09e;

/// `SCOPECHECK_BUDGET` (seconds) as a duration; with
/// `LOOM_MAX_PREEMPTIONS` set and no `SCOPECHECK_BUDGET`, `default`.
///
/// # Panics
/// If `SCOPECHECK_BUDGET` is not a number of seconds.
pub(crate) fn from_env(loom_bound: bool, default: Duration) -> Option<Duration> {
    match std::env::var("SCOPECHECK_BUDGET") {
        Ok(v) => match v.trim().parse::<f64>() {
            Ok(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
            _ => panic!("scopecheck: SCOPECHECK_BUDGET = {v:?} is not a number of seconds (such as 2 or 0.5)"),
        },
        Err(_) => loom_bound.then_some(default),
    }
}

/// Runs `f` as [`Builder::explore`] does, within `budget`: PCT first, then
/// the exhaustive strategy until the budget is spent.
pub(crate) fn explore(b: &Builder, budget: Duration, f: &dyn Fn()) -> Report {
    let start = Instant::now();
    let depth = b.preemption_bound.map_or(3, |n| n.clamp(1, 3) as u32 + 1);
    let mut pct = b.clone();
    pct.budget = None;
    pct.strategy = StrategyChoice::Pct {
        seed: PCT_SEED,
        iterations: PCT_FIRST,
        depth,
    };
    pct.max_duration = Some(budget);
    let first = pct.explore(f);
    let pct_note = format!(
        "before it, PCT (depth {depth}, seed {PCT_SEED:#x}) ran {} execution(s) in {:.3}s",
        first.runs(),
        first.elapsed().as_secs_f64()
    );
    if !first.failures().is_empty() {
        return first.with_note(format!(
            "found by PCT (depth {depth}, seed {PCT_SEED:#x}) before the exhaustive search (budget {budget:?})"
        ));
    }
    let mut ex = b.clone();
    ex.budget = None;
    let left = budget.saturating_sub(start.elapsed()).max(Duration::from_millis(1));
    ex.max_duration = Some(b.max_duration.map_or(left, |d| d.min(left)));
    let r = ex.explore(f);
    let cut = !r.is_complete() && b.max_duration.is_none_or(|d| d > left) && r.failures().is_empty();
    let r = if cut {
        r.with_note(format!(
            "the exhaustive search was cut at the budget (SCOPECHECK_BUDGET / Builder::budget = {budget:?}): \
             only the executions counted here and the PCT ones were checked"
        ))
    } else {
        r
    };
    r.with_note(pct_note)
}
