//! `SCOPECHECK_REPLAY` in the environment turns `scopecheck::model` into a
//! replay of that one execution. (Its own test binary: the environment is
//! shared by every test of a binary.)

mod common;

use common::the_failure;
use scopecheck::cell::UnsafeCell;
use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::sync::Arc;
use scopecheck::{thread, Builder, FailureKind, Strategy};

fn racy() {
    let data = Arc::new(UnsafeCell::new(0));
    let flag = Arc::new(AtomicUsize::new(0));
    let (d, f) = (data.clone(), flag.clone());
    let t = thread::spawn(move || {
        d.with_mut(|p| unsafe { *p = 42 });
        f.store(1, Ordering::Relaxed);
    });
    if flag.load(Ordering::Acquire) == 1 {
        assert_eq!(data.with(|p| unsafe { *p }), 42);
    }
    t.join().unwrap();
}

#[test]
fn the_environment_variable_selects_a_replay() {
    let mut b = Builder::new();
    b.strategy = Strategy::Exhaustive;
    let first = b.explore(racy);
    let token = the_failure(&first, FailureKind::DataRace).token().to_string();
    std::env::set_var("SCOPECHECK_REPLAY", &token);
    let replay = Builder::new();
    assert_eq!(replay.strategy, Strategy::Replay(token.clone()));
    let r = replay.explore(racy);
    assert_eq!(r.runs(), 1);
    let f = the_failure(&r, FailureKind::DataRace);
    assert_eq!(f.token(), token);
    let panic = std::panic::catch_unwind(|| scopecheck::model(racy)).unwrap_err();
    let msg = panic.downcast_ref::<String>().unwrap();
    assert!(msg.contains("data race") && msg.contains(&token), "{msg}");
    std::env::remove_var("SCOPECHECK_REPLAY");
}

#[test]
#[should_panic(expected = "bad token")]
fn a_malformed_token_is_a_clear_error() {
    let mut b = Builder::new();
    b.strategy = Strategy::Replay("sc2.!!not-base64".into());
    b.explore(racy);
}
