//! The strategy factory: from a [`StrategyChoice`] (and a preemption
//! bound) to the checker's explorer, and the check that a choice names one
//! that exists ([`validate_strategy`]). Apart because it is the only place
//! that names the concrete explorers.

use super::{RunConfig, StrategyChoice};
use crate::explore::{
    pct::Pct,
    random::RandomWalk,
    reference::Reference,
    replay::Replay,
    trust::{Shard, Trust},
    values::Values,
    Strategy,
};
use crate::token;

/// Whether `c` names a strategy that exists: a shard `index` below its
/// `count`, a PCT depth of at least 1. The error says what is wrong.
pub fn validate_strategy(c: &StrategyChoice) -> Result<(), String> {
    match *c {
        StrategyChoice::Shard { index, count } if count == 0 || index >= count => Err(format!(
            "shard {index}/{count} does not exist (shards are 0..count, count >= 1)"
        )),
        StrategyChoice::Pct { depth: 0, .. } => Err(
            "PCT depth 0 does not exist: the depth is the number of ordering constraints a bug needs, at least 1 \
             (depth 1: no priority change point)"
                .into(),
        ),
        // A sampled run of no execution would report "complete" and pass
        // `check` on no evidence at all.
        StrategyChoice::Random { iterations: 0, .. } | StrategyChoice::Pct { iterations: 0, .. } => {
            Err("0 iterations: a run of no execution answers nothing (iterations must be at least 1)".into())
        }
        _ => Ok(()),
    }
}

/// The explorer `config` asks for (its strategy, under its preemption
/// bound where one applies), or what is wrong with the choice (a shard
/// that does not exist, a malformed replay token, ...).
pub fn strategy_for(config: &RunConfig) -> Result<Box<dyn Strategy>, String> {
    make_strategy(&config.strategy, bound_applies(config))
}

fn make_strategy(c: &StrategyChoice, bound: Option<u32>) -> Result<Box<dyn Strategy>, String> {
    validate_strategy(c)?;
    Ok(match (c, bound) {
        (StrategyChoice::Exhaustive, Some(b)) => Box::new(Trust::bounded(b)),
        (StrategyChoice::Reference, Some(b)) => Box::new(Reference::bounded(b)),
        _ => make_unbounded(c)?,
    })
}

/// Whether `config`'s preemption bound applies to its strategy.
pub(super) fn bound_applies(config: &RunConfig) -> Option<u32> {
    config
        .preemption_bound
        .filter(|_| matches!(config.strategy, StrategyChoice::Exhaustive | StrategyChoice::Reference))
}

fn make_unbounded(c: &StrategyChoice) -> Result<Box<dyn Strategy>, String> {
    Ok(match c {
        StrategyChoice::Exhaustive => Box::new(Trust::new()),
        StrategyChoice::Reference => Box::new(Reference::new()),
        StrategyChoice::Values => Box::new(Values::new()),
        StrategyChoice::Random { seed, iterations } => Box::new(RandomWalk::new(*seed, *iterations)),
        StrategyChoice::Replay(tok) => Box::new(Replay::new(
            token::decode(tok).map_err(|e| format!("cannot replay: {e}"))?,
        )),
        StrategyChoice::Pct {
            seed,
            iterations,
            depth,
        } => Box::new(Pct::new(*seed, *iterations, *depth)),
        StrategyChoice::Shard { index, count } => Box::new(Trust::sharded(Shard {
            index: *index,
            count: *count,
        })),
    })
}
