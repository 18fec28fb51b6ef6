//! Mapping a program onto a DRFrlx system (the DRFrlx check's weak-model
//! run) is a setting of the run (`RunConfig::drfrlx_system`), not a switch
//! of the OS thread: it holds on every OS thread a run explores on, and a
//! run that ends by a panic leaves the next run on the same thread as its
//! own configuration says.

use scopecheck::drfrlx::Class;
use scopecheck::model::Builder;
use scopecheck::sync::atomic::AtomicU32;
use scopecheck::sync::Arc;
use scopecheck::thread;
use scopecheck::MemoryModel;
use scopecheck_instrument::rt::{self, RunConfig};

/// Store buffering with unpaired accesses: relaxed ones give 4 executions
/// under rc11 (each load reads 0 or 1); as a DRFrlx system they run as
/// `SeqCst`, and both loads reading 0 is gone (3).
fn unpaired_store_buffering() {
    let x = Arc::new(AtomicU32::new(0));
    let y = Arc::new(AtomicU32::new(0));
    let (x2, y2) = (x.clone(), y.clone());
    let t = thread::spawn(move || {
        y2.rlx(Class::Unpaired).store(1);
        x2.rlx(Class::Unpaired).load().discard();
    });
    x.rlx(Class::Unpaired).store(1);
    y.rlx(Class::Unpaired).load().discard();
    t.join().unwrap();
}

fn config(drfrlx_system: bool) -> RunConfig {
    RunConfig {
        model: MemoryModel::Rc11,
        drfrlx_system,
        ..RunConfig::default()
    }
}

#[test]
fn the_mapping_is_the_runs_own() {
    assert!(!rt::drfrlx_system());
    let plain = rt::run(&config(false), &unpaired_store_buffering);
    assert_eq!(plain.stats.complete, 4);
    let mapped = rt::run(&config(true), &|| {
        assert!(rt::drfrlx_system());
        unpaired_store_buffering()
    });
    assert!(mapped.failures.is_empty(), "{:?}", mapped.failures);
    assert_eq!(mapped.stats.complete, 3);
    assert!(!rt::drfrlx_system());
}

#[test]
fn a_run_that_panics_leaves_the_next_run_unmapped() {
    // The checker's callback panics in the middle of a mapped run (as a
    // misuse error inside the weak-model run would): the panic leaves the
    // run, and the run's settings with it.
    let r = std::panic::catch_unwind(|| {
        rt::run_with(&config(true), &unpaired_store_buffering, &mut |_, _| {
            panic!("inside the weak run");
        })
    });
    assert!(r.is_err());
    assert!(!rt::drfrlx_system());
    let next = rt::run(&config(false), &unpaired_store_buffering);
    assert_eq!(next.stats.complete, 4);
    // And a mapped run after it is mapped again.
    assert_eq!(rt::run(&config(true), &unpaired_store_buffering).stats.complete, 3);
}

#[test]
fn a_parallel_run_is_mapped_on_every_explorer_thread() {
    // Enough executions that the explorers share the work: five copies of
    // store buffering side by side (3^5 = 243 executions mapped, 4^5 =
    // 1024 not). With the mapping a switch of the OS thread, the explorer
    // threads ran unmapped (272 executions with 2 explorers, on one try).
    let five = || {
        let others: Vec<_> = (0..4).map(|_| thread::spawn(unpaired_store_buffering)).collect();
        unpaired_store_buffering();
        for h in others {
            h.join().unwrap();
        }
    };
    let mut b = Builder::new();
    b.model = MemoryModel::Rc11;
    assert_eq!(b.explore(five).executions(), 1024);
    b.drfrlx_system = true;
    for threads in [1, 2, 4] {
        let r = b.explore_parallel(threads, five);
        assert!(r.is_complete());
        assert_eq!(r.executions(), 243, "{threads} explorer threads");
    }
}
