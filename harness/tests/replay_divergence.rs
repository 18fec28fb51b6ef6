//! Replaying a token on a program that changed since the token was printed:
//! the replay checks every step against the token (thread, position,
//! operation kind, location, thread joined) and stops at the first that
//! differs, reporting "replay diverged at step N" with what the token
//! expected and what the program did; it never presents a failure of an
//! execution the token does not describe, and it is not a pass either. An
//! unchanged program still reproduces the exact failure.

mod common;

use scopecheck::cell::UnsafeCell;
use scopecheck::sync::atomic::{fence, AtomicUsize, Ordering::*};
use scopecheck::sync::{Arc, Mutex};
use scopecheck::{thread, Builder, Report, Strategy};

/// How the program differs from the one the token was recorded on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum V {
    Same,
    /// A third thread, spawned and joined after the recorded steps.
    AddThread,
    /// Main's first access stores to `x` instead of loading it.
    LoadToStore,
    /// Main's first access loads `y` instead of `x`.
    OtherLoc,
    /// Main loads `z` once more at its end.
    ExtraAtEnd,
    /// Main checks before its last recorded load.
    Shorter,
    /// Main issues a fence (no recorded step) before its first access.
    ExtraFence,
    /// The spawned thread makes a second store after the recorded ones.
    LongerChild,
}

/// Main reads `x`, joins the thread that writes `x` then `y`, reads `y`;
/// it asserts it did not see the `x` store (so the failing execution is the
/// one where the first load reads it).
fn prog(v: V) -> impl Fn() {
    move || {
        let x = Arc::new(AtomicUsize::new(0));
        let y = Arc::new(AtomicUsize::new(0));
        let z = Arc::new(AtomicUsize::new(0));
        let (x1, y1) = (x.clone(), y.clone());
        let t1 = thread::spawn(move || {
            x1.store(1, Relaxed);
            y1.store(1, Relaxed);
            if v == V::LongerChild {
                y1.store(2, Relaxed);
            }
        });
        if v == V::ExtraFence {
            fence(SeqCst);
        }
        let a = match v {
            V::LoadToStore => {
                x.store(7, Relaxed);
                1
            }
            V::OtherLoc => y.load(Relaxed),
            _ => x.load(Relaxed),
        };
        t1.join().unwrap();
        if v == V::AddThread {
            let z2 = z.clone();
            thread::spawn(move || z2.store(3, Relaxed)).join().unwrap();
        }
        if v == V::Shorter {
            assert_ne!(a, 1, "main saw the store to x");
        }
        let b = y.load(Relaxed);
        if v == V::ExtraAtEnd {
            z.load(Relaxed); // extra at end
        }
        assert!(b >= 1);
        assert_ne!(a, 1, "main saw the store to x");
    }
}

/// The line of this file holding `needle` (the first one).
fn line_of(needle: &str) -> u32 {
    include_str!("replay_divergence.rs")
        .lines()
        .position(|l| l.contains(needle))
        .expect("needle in this file") as u32
        + 1
}

/// `file:line` of the line of this file holding `needle`, as reports show it.
fn at(needle: &str) -> String {
    format!("{}:{}", file!(), line_of(needle))
}

/// The token of the first failure exhaustive exploration finds in `f`.
fn token_of(f: impl Fn()) -> String {
    let r = Builder::new().explore(f);
    assert_eq!(r.failures().len(), 1, "{r}");
    r.failures()[0].token().to_string()
}

fn replay(token: &str, f: impl Fn()) -> Report {
    let mut b = Builder::new();
    b.strategy = Strategy::Replay(token.to_string());
    b.explore(f)
}

/// Asserts that `r` is a replay that diverged at `step`, reported no
/// failure and is neither complete nor a pass; returns the divergence text.
fn diverged_at(r: &Report, step: usize, steps: usize) -> String {
    assert!(r.failures().is_empty(), "a diverged replay reported a failure:\n{r}");
    assert!(r.replay_diverged(), "{r}");
    let d = r.replay_divergence().expect("a divergence text").to_string();
    let head = format!("replay diverged at step {step} (of the token's {steps}): the token expected ");
    assert!(d.starts_with(&head), "wanted `{head}...`, got:\n{d}");
    assert!(d.contains("neither a failure nor a pass"), "{d}");
    assert_eq!(r.runs(), 1, "{r}");
    assert_eq!(r.blocked(), 1, "the one execution is abandoned: {r}");
    assert!(!r.is_complete(), "{r}");
    assert_eq!(r.incomplete_reason(), Some(d.as_str()));
    let text = r.to_string();
    assert!(text.starts_with(&format!("scopecheck: {head}")), "{text}");
    assert!(text.contains("incomplete: the replay diverged"), "{text}");
    d
}

/// The steps of the token recorded on `prog(V::Same)`: x.store and y.store
/// of thread 1, main's load of x (reading the store), its join of thread 1
/// and its load of y.
const STEPS: usize = 5;

#[test]
fn an_unchanged_program_reproduces_the_exact_failure() {
    let first = Builder::new().explore(prog(V::Same));
    let f = &first.failures()[0];
    let again = replay(f.token(), prog(V::Same));
    assert!(!again.replay_diverged(), "{again}");
    assert_eq!(again.replay_divergence(), None);
    assert_eq!(again.runs(), 1);
    assert_eq!(again.failures().len(), 1, "{again}");
    let g = &again.failures()[0];
    assert_eq!((g.kind(), g.message(), g.token()), (f.kind(), f.message(), f.token()));
    assert!(g.message().contains("main saw the store to x"), "{}", g.message());
}

#[test]
fn a_thread_added_after_the_recorded_steps_diverges_after_them() {
    let token = token_of(prog(V::Same));
    // Main waits to join the new thread (no recorded step can be taken);
    // the new thread's store, before main's last recorded load, is the
    // first step the token does not hold.
    let d = diverged_at(&replay(&token, prog(V::AddThread)), STEPS, STEPS);
    assert!(d.contains("expected no further step of thread 2"), "{d}");
    assert!(d.contains("thread 2 went to store to loc0.2"), "{d}");
    assert!(d.contains(&at("thread::spawn(move || z2.store(3, Relaxed))")), "{d}");
}

#[test]
fn a_thread_removed_diverges_where_main_would_join_it() {
    let token = token_of(prog(V::AddThread));
    let r = replay(&token, prog(V::Same));
    // Thread 1's two stores, main's load and join of thread 1 replay; main
    // then loads `y` where the token has it join thread 2.
    let d = diverged_at(&r, STEPS, STEPS + 2);
    assert!(
        d.contains("the token expected thread 0 to join thread 2 as event T0.8"),
        "{d}"
    );
    assert!(d.contains("but thread 0 went to load"), "{d}");
    assert!(d.contains(&at("let b = y.load(Relaxed);")), "{d}");
}

#[test]
fn a_load_changed_into_a_store_diverges_at_that_step() {
    let token = token_of(prog(V::Same));
    let d = diverged_at(&replay(&token, prog(V::LoadToStore)), 2, STEPS);
    assert!(d.contains("the token expected thread 0 to load loc0.0"), "{d}");
    assert!(
        d.contains(&format!(
            "thread 0 went to store to loc0.0 (created at {}:",
            at("let x = Arc::new")
        )),
        "{d}"
    );
    assert!(d.contains(&at("x.store(7, Relaxed);")), "{d}");
}

#[test]
fn a_load_of_another_location_diverges_at_that_step() {
    let token = token_of(prog(V::Same));
    let d = diverged_at(&replay(&token, prog(V::OtherLoc)), 2, STEPS);
    let (x, y) = (at("let x = Arc::new"), at("let y = Arc::new"));
    assert!(
        d.contains(&format!(
            "expected thread 0 to load loc0.0 (created at {x}:26) as event T0.5"
        )),
        "{d}"
    );
    let found = format!(
        "thread 0 went to load loc0.1 (created at {y}:26) at {}:",
        at("V::OtherLoc => y.load")
    );
    assert!(d.contains(&found), "{d}");
}

#[test]
fn an_extra_operation_at_the_end_diverges_after_the_recorded_steps() {
    let token = token_of(prog(V::Same));
    let d = diverged_at(&replay(&token, prog(V::ExtraAtEnd)), STEPS + 1, STEPS);
    assert!(d.contains("expected no further step of thread 0"), "{d}");
    assert!(
        d.contains(&format!(
            "thread 0 went to load loc0.2 (created at {}:",
            at("let z = Arc::new")
        )),
        "{d}"
    );
    assert!(d.contains(&at("z.load(Relaxed); // extra at end")), "{d}");
}

#[test]
fn a_shorter_program_that_fails_early_is_no_failure_of_the_replay() {
    let token = token_of(prog(V::Same));
    let d = diverged_at(&replay(&token, prog(V::Shorter)), STEPS, STEPS);
    assert!(d.contains("the token expected thread 0 to load loc0.1"), "{d}");
    assert!(
        d.contains("the program stopped at a failure before taking that step"),
        "{d}"
    );
    // What stopped it is said, not reported as a failure.
    assert!(d.contains("main saw the store to x"), "{d}");
}

#[test]
fn an_operation_added_before_a_step_shifts_its_position() {
    let token = token_of(prog(V::Same));
    let d = diverged_at(&replay(&token, prog(V::ExtraFence)), 2, STEPS);
    assert!(d.contains("expected thread 0 to load loc0.0"), "{d}");
    assert!(d.contains("as event T0.5, but thread 0 went to load"), "{d}");
    assert!(d.contains("as event T0.6"), "{d}");
}

#[test]
fn a_longer_spawned_thread_is_joined_only_once_it_ends() {
    // The token's join of thread 1 comes after its two stores; here thread 1
    // makes a third. The join must wait for it (joining before it ran would
    // make main's last load miss the write), and the extra store is the
    // divergence.
    let token = token_of(prog(V::Same));
    // Thread 1's two stores and main's load replay; the join waits.
    let d = diverged_at(&replay(&token, prog(V::LongerChild)), 4, STEPS);
    assert!(d.contains("expected no further step of thread 1"), "{d}");
    assert!(d.contains(&at("y1.store(2, Relaxed);")), "{d}");
}

/// Main spawns two threads that each store their number to `x`, joins them
/// (in the order given), and asserts `x` holds 2 (fails when thread 1's
/// store is mo-last).
fn joins(first_two: bool) -> impl Fn() {
    move || {
        let x = Arc::new(AtomicUsize::new(0));
        let (x1, x2) = (x.clone(), x.clone());
        let t1 = thread::spawn(move || x1.store(1, Relaxed));
        let t2 = thread::spawn(move || x2.store(2, Relaxed));
        if first_two {
            t2.join().unwrap(); // two first
            t1.join().unwrap();
        } else {
            t1.join().unwrap();
            t2.join().unwrap();
        }
        assert_eq!(x.load(Relaxed), 2, "thread 1's store is last");
    }
}

#[test]
fn a_join_ordered_differently_diverges_at_the_join() {
    let token = token_of(joins(false));
    let again = replay(&token, joins(false));
    assert!(!again.replay_diverged(), "{again}");
    assert_eq!(again.failures()[0].token(), token);
    let d = diverged_at(&replay(&token, joins(true)), 3, 5);
    assert!(
        d.contains("the token expected thread 0 to join thread 1 as event T0."),
        "{d}"
    );
    assert!(d.contains("but thread 0 went to join thread 2 at"), "{d}");
    assert!(d.contains(&at("t2.join().unwrap(); // two first")), "{d}");
}

/// A counter behind a mutex: thread 1 adds one, main reads it; main asserts
/// it ran first (fails when thread 1 took the lock first). `twice`: thread
/// 1 takes the lock a second time before it ends.
fn mutex_prog(twice: bool) -> impl Fn() {
    move || {
        let m = Arc::new(Mutex::new(0usize));
        let m1 = m.clone();
        let t = thread::spawn(move || {
            *m1.lock().unwrap() += 1;
            if twice {
                *m1.lock().unwrap() += 1; // second lock
            }
        });
        let v = *m.lock().unwrap();
        t.join().unwrap();
        assert_eq!(v, 0, "thread 1 locked first");
    }
}

#[test]
fn a_mutex_program_that_changed_diverges_without_a_runaway() {
    let token = token_of(mutex_prog(false));
    let again = replay(&token, mutex_prog(false));
    assert!(!again.replay_diverged(), "{again}");
    assert_eq!(again.failures()[0].token(), token);
    assert!(again.failures()[0].message().contains("thread 1 locked first"));
    // Thread 1's lock (read and write parts) and unlock, main's lock and
    // unlock replay (6 steps); main's join then waits for thread 1, whose
    // second lock is not in the token.
    let d = diverged_at(&replay(&token, mutex_prog(true)), 7, 7);
    assert!(d.contains("expected no further step of thread 1"), "{d}");
    assert!(d.contains("thread 1 went to lock loc0.0"), "{d}");
    assert!(d.contains(&at("*m1.lock().unwrap() += 1; // second lock")), "{d}");
}

/// A data race replays. On the fixed program (a release store: orders are
/// not part of a step) every recorded step replays, the race does not
/// happen, and the program goes on past the token's end: that is the
/// divergence, reported as such, not a race and not a pass.
#[test]
fn a_race_replays_and_the_fixed_program_diverges_past_the_token() {
    let racy = |sync: bool| {
        move || {
            let data = Arc::new(UnsafeCell::new(0));
            let flag = Arc::new(AtomicUsize::new(0));
            let (d, f) = (data.clone(), flag.clone());
            let t = thread::spawn(move || {
                d.with_mut(|p| unsafe { *p = 42 });
                f.store(1, if sync { Release } else { Relaxed });
            });
            if flag.load(Acquire) == 1 {
                assert_eq!(data.with(|p| unsafe { *p }), 42);
            }
            t.join().unwrap(); // racy join
        }
    };
    let token = token_of(racy(false));
    let again = replay(&token, racy(false));
    assert!(!again.replay_diverged(), "{again}");
    assert_eq!(again.failures()[0].token(), token);
    assert_eq!(again.failures()[0].kind(), scopecheck::FailureKind::DataRace);
    let d = diverged_at(&replay(&token, racy(true)), 3, 2);
    assert!(
        d.contains("the token expected no further step of thread 0 (the recorded execution stopped there)"),
        "{d}"
    );
    assert!(
        d.contains(&format!(
            "thread 0 went to join thread 1 at {}:",
            at("t.join().unwrap(); // racy join")
        )),
        "{d}"
    );
}

#[test]
fn a_diverged_replay_is_not_a_pass_of_check() {
    let token = token_of(prog(V::Same));
    let mut b = Builder::new();
    b.strategy = Strategy::Replay(token);
    let p = std::panic::catch_unwind(|| b.check(prog(V::OtherLoc))).expect_err("check must not pass");
    let msg = p.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("replay diverged at step 2"), "{msg}");
}

#[test]
fn a_token_of_an_older_version_is_a_clear_error() {
    let mut b = Builder::new();
    b.strategy = Strategy::Replay("sc1.AQUAAAMAAAABAAQAAQABAQAAAAEBAgACAwAF".into());
    let p = std::panic::catch_unwind(|| b.explore(prog(V::Same))).expect_err("refused");
    let msg = p.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        msg.contains("this replay token (`sc1.`) was printed by an older version of scopecheck"),
        "{msg}"
    );
}

/// The token of `mutex_prog` has thread 1 lock first; here main takes the
/// lock before it spawns thread 1 and holds it until its own unlock. The
/// token's first step (thread 1's lock) cannot be taken while main holds
/// the lock: the replay must not schedule thread 1 anyway (which would
/// wait forever and be reported as a runaway thread); main's lock, earlier
/// in its thread than the token has it, is the divergence.
#[test]
fn a_lock_taken_earlier_diverges_without_a_runaway() {
    let token = token_of(mutex_prog(false));
    let held = || {
        let m = Arc::new(Mutex::new(0usize)); // held
        let g = m.lock().unwrap(); // held lock
        let m1 = m.clone();
        let t = thread::spawn(move || {
            *m1.lock().unwrap() += 1;
        });
        let v = *g;
        drop(g);
        t.join().unwrap();
        assert_eq!(v, 0);
    };
    let d = diverged_at(&replay(&token, held), 1, 7);
    assert!(
        d.contains("the token expected thread 0 to do a read-modify-write (or lock) on loc0.0"),
        "{d}"
    );
    assert!(
        d.contains(&format!(
            "thread 0 went to lock loc0.0 (created at {}:",
            at("let m = Arc::new(Mutex::new(0usize)); // held")
        )),
        "{d}"
    );
    assert!(
        d.contains(&format!("at {}:", at("let g = m.lock().unwrap(); // held lock"))),
        "{d}"
    );
}

/// A litmus race that needs two iterations of a loop, replayed with a loop
/// bound of one: the loop gives the execution up where the token goes on.
/// That is a divergence (the thread gave up), not a quiet replay with no
/// result.
#[test]
fn a_loop_cut_by_its_bound_is_a_divergence() {
    use scopecheck::litmus::{check_source, Options};
    let src = "C loop-race\n{ x = 0; y = 0; }\n\
        P0 (atomic_int* x, int* y) {\n  *y = 1;\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n}\n\
        P1 (atomic_int* x, int* y) {\n  int n = 0;\n  while (atomic_load_explicit(x, memory_order_relaxed) == 0) {\n    n = n + 1;\n  }\n  if (n == 2) {\n    int r1 = *y;\n  }\n}\n\
        exists (1:n = 2)\n";
    let opts = |strategy, unroll| Options {
        strategy,
        unroll,
        ..Options::default()
    };
    let all = check_source("t.litmus", src, &opts(Strategy::Exhaustive, 2)).unwrap();
    assert_eq!(all.races.len(), 1);
    let token = all.races[0].token().to_string();
    let again = check_source("t.litmus", src, &opts(Strategy::Replay(token.clone()), 2)).unwrap();
    assert!(again.complete, "{:?}", again.incomplete_reason);
    assert_eq!(again.races.len(), 1);
    assert_eq!(again.races[0].token(), token);
    let short = check_source("t.litmus", src, &opts(Strategy::Replay(token), 1)).unwrap();
    assert!(short.races.is_empty() && short.failures.is_empty());
    assert_eq!((short.executions, short.blocked), (0, 1));
    assert!(!short.complete);
    let why = short.incomplete_reason.clone().unwrap();
    // P1 (thread 2) loaded x twice (0, then 0 again); the token's third load
    // is the step its loop bound cuts.
    assert!(
        why.starts_with("replay diverged at step 6 (of the token's 8): the token expected thread 2 to load loc0.0"),
        "{why}"
    );
    assert!(
        why.contains("as event T2.5, but thread 2 gave up the execution"),
        "{why}"
    );
    assert_eq!(short.verdict(), None, "{why}");
}

/// Message passing through atomics: thread 1 writes `data` then `flag`;
/// main reads `flag` then `data` and asserts it saw the data when it saw
/// the flag. `sync`: release/acquire on the flag.
fn mp_atomics(sync: bool) -> impl Fn() {
    move || {
        let data = Arc::new(AtomicUsize::new(0));
        let flag = Arc::new(AtomicUsize::new(0));
        let (d, f) = (data.clone(), flag.clone());
        let t = thread::spawn(move || {
            d.store(1, Relaxed);
            f.store(1, if sync { Release } else { Relaxed });
        });
        if flag.load(if sync { Acquire } else { Relaxed }) == 1 {
            assert_eq!(data.load(Relaxed), 1, "stale data"); // data load
        }
        t.join().unwrap();
    }
}

/// The same steps (orders are not part of a step), but with the flag
/// synchronizing, the stale read the token records is no longer one the
/// program can make: the replay diverges at that read, naming the writes it
/// may read, and reports no failure.
#[test]
fn a_recorded_read_the_program_can_no_longer_make_diverges_there() {
    let token = token_of(mp_atomics(false));
    let again = replay(&token, mp_atomics(false));
    assert_eq!(again.failures()[0].token(), token);
    assert!(again.failures()[0].message().contains("stale data"));
    // Thread 1's two stores and main's flag load replay; the data load is step 4.
    let d = diverged_at(&replay(&token, mp_atomics(true)), 4, 4);
    assert!(
        d.contains(&format!(
            "the token expected thread 0 to load loc0.0 (created at {}:29) as event T0.5 reading the initial value, \
             but the program cannot read that write there (it may read: T1.1 store(rlx) loc0.0 := 1 at {}:",
            at("let data = Arc::new(AtomicUsize::new(0));"),
            at("d.store(1, Relaxed);")
        )),
        "{d}"
    );
}
