//! The driver, the engine and the explorers, tested on scripted programs
//! (`scripted.rs`) without coroutines: exact execution counts and outcome
//! sets of the classic litmus shapes under `sc`, `rc11` and `cpp20`, from
//! the optimal explorer, the parallel pool and the reference enumerator.

use super::scripted::{Act, Scripted};
use super::{explore, run_parallel, strategy_for, RunConfig, RunResult, StrategyChoice};
use crate::event::Order::{self, Acquire, Relaxed, Release, SeqCst};
use crate::model::MemoryModel;
use std::collections::BTreeSet;

const MODELS: [MemoryModel; 3] = [MemoryModel::Sc, MemoryModel::Rc11, MemoryModel::Cpp20];

fn config(model: MemoryModel, strategy: StrategyChoice) -> RunConfig {
    RunConfig {
        model,
        strategy,
        ..RunConfig::default()
    }
}

fn run(program: &dyn Fn() -> Scripted, model: MemoryModel, strategy: StrategyChoice) -> RunResult {
    let config = config(model, strategy);
    let strategy = strategy_for(&config).expect("a strategy that exists");
    explore(&config, strategy, &mut program(), &mut |_, _| {})
}

/// The outcomes of a run, as `T1.1=0; T2.1=1` lines.
fn outcomes(r: &RunResult) -> BTreeSet<String> {
    r.outcomes.keys().map(|o| o.to_string()).collect()
}

/// Explores `program` under `model` with the optimal explorer, with the
/// parallel pool (1 and 3 threads) and with the reference enumerator, and
/// checks that each finds exactly `executions` complete executions with
/// exactly the outcomes `expected`.
fn check(program: &(dyn Fn() -> Scripted + Sync), model: MemoryModel, executions: u64, expected: &[&str]) {
    let expected: BTreeSet<String> = expected.iter().map(|s| s.to_string()).collect();
    let optimal = run(program, model, StrategyChoice::Exhaustive);
    assert!(optimal.complete, "{model:?}: {:?}", optimal.incomplete_reason);
    assert!(optimal.failures.is_empty(), "{model:?}: {:?}", optimal.failures);
    assert_eq!(optimal.stats.complete, executions, "{model:?}, optimal");
    assert_eq!(optimal.stats.blocked, 0, "{model:?}, optimal");
    assert_eq!(outcomes(&optimal), expected, "{model:?}, optimal");
    // Each complete execution is a distinct outcome here, once.
    assert!(
        optimal.outcomes.values().all(|&n| n == 1),
        "{model:?}: {:?}",
        optimal.outcomes
    );
    for threads in [1, 3] {
        let parallel = run_parallel(&config(model, StrategyChoice::Exhaustive), threads, &|| program());
        assert!(parallel.complete, "{model:?}");
        assert_eq!(
            parallel.stats.complete, executions,
            "{model:?}, {threads} explorer threads"
        );
        assert_eq!(outcomes(&parallel), expected, "{model:?}, {threads} explorer threads");
    }
    let reference = run(program, model, StrategyChoice::Reference);
    assert!(reference.complete, "{model:?}");
    assert_eq!(reference.distinct, Some(executions), "{model:?}, reference");
    assert_eq!(outcomes(&reference), expected, "{model:?}, reference");
}

/// Store buffering: each thread stores 1 to its own location and loads the
/// other's.
fn sb(store: Order, load: Order) -> impl Fn() -> Scripted + Sync {
    move || Scripted {
        locs: 2,
        threads: vec![
            vec![Act::Store(0, 1, store), Act::Load(1, load)],
            vec![Act::Store(1, 1, store), Act::Load(0, load)],
        ],
    }
}

#[test]
fn store_buffering() {
    let sc_outcomes = ["T1.1=0; T2.1=1", "T1.1=1; T2.1=0", "T1.1=1; T2.1=1"];
    let weak_outcomes = ["T1.1=0; T2.1=0", "T1.1=0; T2.1=1", "T1.1=1; T2.1=0", "T1.1=1; T2.1=1"];
    check(&sb(Relaxed, Relaxed), MemoryModel::Sc, 3, &sc_outcomes);
    check(&sb(Relaxed, Relaxed), MemoryModel::Rc11, 4, &weak_outcomes);
    check(&sb(Relaxed, Relaxed), MemoryModel::Cpp20, 4, &weak_outcomes);
    // Release/acquire does not forbid it; seq_cst does, in every model.
    check(&sb(Release, Acquire), MemoryModel::Cpp20, 4, &weak_outcomes);
    for model in MODELS {
        check(&sb(SeqCst, SeqCst), model, 3, &sc_outcomes);
    }
}

#[test]
fn store_buffering_with_seq_cst_fences() {
    let fenced = || Scripted {
        locs: 2,
        threads: vec![
            vec![Act::Store(0, 1, Relaxed), Act::Fence(SeqCst), Act::Load(1, Relaxed)],
            vec![Act::Store(1, 1, Relaxed), Act::Fence(SeqCst), Act::Load(0, Relaxed)],
        ],
    };
    // The load is each thread's third step (the fence is the second).
    for model in MODELS {
        check(
            &fenced,
            model,
            3,
            &["T1.2=0; T2.2=1", "T1.2=1; T2.2=0", "T1.2=1; T2.2=1"],
        );
    }
}

/// Message passing: data then flag; the reader reads the flag then the data.
fn mp(flag_store: Order, flag_load: Order) -> impl Fn() -> Scripted + Sync {
    move || Scripted {
        locs: 2,
        threads: vec![
            vec![Act::Store(0, 1, Relaxed), Act::Store(1, 1, flag_store)],
            vec![Act::Load(1, flag_load), Act::Load(0, Relaxed)],
        ],
    }
}

#[test]
fn message_passing() {
    let ordered = ["T2.0=0; T2.1=0", "T2.0=0; T2.1=1", "T2.0=1; T2.1=1"];
    for model in MODELS {
        check(&mp(Release, Acquire), model, 3, &ordered);
    }
    check(&mp(Relaxed, Relaxed), MemoryModel::Sc, 3, &ordered);
    let weak = ["T2.0=0; T2.1=0", "T2.0=0; T2.1=1", "T2.0=1; T2.1=0", "T2.0=1; T2.1=1"];
    check(&mp(Relaxed, Relaxed), MemoryModel::Rc11, 4, &weak);
    check(&mp(Relaxed, Relaxed), MemoryModel::Cpp20, 4, &weak);
}

#[test]
fn load_buffering_without_porf_cycles() {
    // Each thread loads the other's location, then stores 1 to its own.
    // Both loads reading 1 needs a cycle in po ∪ rf, which none of these
    // models has.
    let lb = || Scripted {
        locs: 2,
        threads: vec![
            vec![Act::Load(0, Relaxed), Act::Store(1, 1, Relaxed)],
            vec![Act::Load(1, Relaxed), Act::Store(0, 1, Relaxed)],
        ],
    };
    for model in MODELS {
        check(&lb, model, 3, &["T1.0=0; T2.0=0", "T1.0=0; T2.0=1", "T1.0=1; T2.0=0"]);
    }
}

/// Under `c11` the explorer also builds load buffering's cycle (a promised
/// read): one more execution, counted once whether the run is sequential or
/// asked for several explorer threads (it then runs on one: the keys that
/// count a cyclic execution once are one engine's); a shard keeps to the
/// acyclic executions and says its part is incomplete.
#[test]
fn load_buffering_under_c11_is_counted_once_in_every_driver() {
    let lb = || Scripted {
        locs: 2,
        threads: vec![
            vec![Act::Load(0, Relaxed), Act::Store(1, 1, Relaxed)],
            vec![Act::Load(1, Relaxed), Act::Store(0, 1, Relaxed)],
        ],
    };
    let all = ["T1.0=0; T2.0=0", "T1.0=0; T2.0=1", "T1.0=1; T2.0=0", "T1.0=1; T2.0=1"];
    let all: BTreeSet<String> = all.iter().map(|s| s.to_string()).collect();
    let seq = run(&lb, MemoryModel::C11, StrategyChoice::Exhaustive);
    assert!(seq.complete, "{:?}", seq.incomplete_reason);
    assert_eq!((seq.stats.complete, outcomes(&seq)), (4, all.clone()));
    for threads in [1, 3] {
        let par = run_parallel(&config(MemoryModel::C11, StrategyChoice::Exhaustive), threads, &|| lb());
        assert!(par.complete, "{:?}", par.incomplete_reason);
        assert_eq!(
            (par.stats.complete, outcomes(&par)),
            (4, all.clone()),
            "{threads} threads"
        );
    }
    let mut shards = 0;
    for index in 0..2 {
        let r = run(&lb, MemoryModel::C11, StrategyChoice::Shard { index, count: 2 });
        assert!(!r.complete);
        assert!(
            r.incomplete_reason
                .as_deref()
                .is_some_and(|w| w.contains("acyclic executions only")),
            "{:?}",
            r.incomplete_reason
        );
        shards += r.stats.complete;
    }
    assert_eq!(shards, 3, "the shards' acyclic executions add up to the acyclic run's");
}

#[test]
fn rmw_chain() {
    // Two threads, two relaxed increments each: the four RMWs read 0, 1,
    // 2, 3 in one of the C(4, 2) = 6 orders that keep each thread's two in
    // program order.
    let chain = || Scripted {
        locs: 1,
        threads: vec![
            vec![Act::FetchAdd(0, 1, Relaxed), Act::FetchAdd(0, 1, Relaxed)],
            vec![Act::FetchAdd(0, 1, Relaxed), Act::FetchAdd(0, 1, Relaxed)],
        ],
    };
    let expected = [
        "T1.0=0; T1.1=1; T2.0=2; T2.1=3",
        "T1.0=0; T1.1=2; T2.0=1; T2.1=3",
        "T1.0=0; T1.1=3; T2.0=1; T2.1=2",
        "T1.0=1; T1.1=2; T2.0=0; T2.1=3",
        "T1.0=1; T1.1=3; T2.0=0; T2.1=2",
        "T1.0=2; T1.1=3; T2.0=0; T2.1=1",
    ];
    for model in MODELS {
        check(&chain, model, 6, &expected);
    }
}

#[test]
fn three_threads_of_one_increment_give_3_factorial_executions() {
    let three = || Scripted {
        locs: 1,
        threads: vec![vec![Act::FetchAdd(0, 1, Relaxed)]; 3],
    };
    let expected = [
        "T1.0=0; T2.0=1; T3.0=2",
        "T1.0=0; T2.0=2; T3.0=1",
        "T1.0=1; T2.0=0; T3.0=2",
        "T1.0=1; T2.0=2; T3.0=0",
        "T1.0=2; T2.0=0; T3.0=1",
        "T1.0=2; T2.0=1; T3.0=0",
    ];
    for model in MODELS {
        check(&three, model, 6, &expected);
    }
}

#[test]
fn the_driver_stops_at_max_executions_and_says_so() {
    let mut c = config(MemoryModel::Rc11, StrategyChoice::Exhaustive);
    c.max_executions = Some(2);
    let strategy = strategy_for(&c).unwrap();
    let r = explore(&c, strategy, &mut sb(Relaxed, Relaxed)(), &mut |_, _| {});
    assert_eq!(r.stats.complete, 2);
    assert!(!r.complete);
    assert_eq!(r.incomplete_reason.as_deref(), Some("stopped after max_executions = 2"));
}

#[test]
fn shards_add_up_to_the_whole_exploration() {
    let mut total = None::<RunResult>;
    for index in 0..3 {
        let r = run(
            &sb(Relaxed, Relaxed),
            MemoryModel::Rc11,
            StrategyChoice::Shard { index, count: 3 },
        );
        match total.as_mut() {
            Some(t) => t.merge(r),
            None => total = Some(r),
        }
    }
    let total = total.unwrap();
    assert!(total.complete);
    assert_eq!(total.stats.complete, 4);
    assert_eq!(outcomes(&total).len(), 4);
}
