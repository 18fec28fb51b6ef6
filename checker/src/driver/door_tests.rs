//! The engine's one door for operations (`Engine::perform`, and
//! `Engine::next_turn` for the runtime's loop), scripted by hand without
//! coroutines: each test plays the runtime, handing the engine one
//! operation of one thread at a time, and checks the exact `Step` it gets
//! back: an answer (with the read event of a load or RMW, and the
//! operation's scope and DRFrlx class on the events), a wait for threads
//! not started yet, a switch to another thread when a join's target runs
//! or a mutex is held, and a stop (a deadlock, a misuse).

use super::{strategy_for, RunConfig, StrategyChoice};
use crate::engine::{Engine, Limits, Resume, Step, Stop};
use crate::event::{
    Answer, Await, EventId, EventKind, Loc, LocKind, Op, OpResult, Order, Placement, RlxClass, RmwOp, Scope, SourceLoc,
    ThreadId, ValueType,
};
use crate::failure::FailureKind;
use crate::model::MemoryModel;
use crate::sched::ThreadStatus;
use crate::space::Space;

/// An engine under `model` with the optimal explorer (which always runs
/// the lowest thread that can go on), its first execution begun.
fn engine(model: MemoryModel) -> Engine {
    let config = RunConfig {
        model,
        strategy: StrategyChoice::Exhaustive,
        ..RunConfig::default()
    };
    let limits = Limits {
        max_steps: config.max_steps,
        record_races: false,
        deadline: None,
        max_branches: None,
        porf_cycles: config.porf_cycles,
    };
    let mut e = Engine::new(model, strategy_for(&config).expect("the optimal explorer"), limits);
    assert!(e.begin_execution());
    e.start_main(src());
    e
}

/// Where the scripted operations are issued (one line for all).
fn src() -> SourceLoc {
    SourceLoc::caller()
}

/// `op` for thread `t`, which must be answered on the spot.
fn done(e: &mut Engine, t: ThreadId, op: Op) -> Answer {
    match e.perform(t, &op, src()) {
        Step::Done(a) => a,
        other => panic!("thread {t}'s {op:?} answered {other:?}"),
    }
}

fn alloc(e: &mut Engine, kind: LocKind) -> Loc {
    let op = Op::Alloc {
        init: 0,
        kind,
        space: Space::Global,
        addresses: false,
    };
    match done(e, 0, op).result {
        OpResult::Loc(l) => l,
        r => panic!("an allocation answered {r:?}"),
    }
}

fn spawn(e: &mut Engine) -> ThreadId {
    let op = Op::Spawn {
        placement: Placement::HOST,
    };
    match done(e, 0, op) {
        Answer {
            result: OpResult::Thread(t),
            read: None,
        } => t,
        a => panic!("a spawn answered {a:?}"),
    }
}

fn load(loc: Loc, class: Option<RlxClass>) -> Op {
    Op::Load {
        loc,
        order: Order::Relaxed,
        scope: Scope::System,
        class,
    }
}

fn store(loc: Loc, value: u64, order: Order) -> Op {
    Op::Store {
        loc,
        order,
        value,
        scope: Scope::System,
        class: None,
    }
}

fn fetch_add(loc: Loc, scope: Scope, class: Option<RlxClass>) -> Op {
    Op::Rmw {
        loc,
        op: RmwOp::Add(1),
        ty: ValueType::U64,
        success: Order::Relaxed,
        failure: Order::Relaxed,
        await_: None,
        scope,
        class,
    }
}

/// A mutex acquisition as the shim issues it: a compare-exchange from 0 to
/// 1 that waits until it can read 0.
fn lock(m: Loc) -> Op {
    Op::Rmw {
        loc: m,
        op: RmwOp::Cas {
            expected: 0,
            new: 1,
            weak: false,
        },
        ty: ValueType::U64,
        success: Order::Acquire,
        failure: Order::Relaxed,
        await_: Some(Await::ValueEq(0)),
        scope: Scope::System,
        class: None,
    }
}

#[test]
fn a_value_comes_back_with_its_read_event_and_the_operation_s_scope_and_class_are_on_the_events() {
    let mut e = engine(MemoryModel::Rc11);
    let x = alloc(&mut e, LocKind::Atomic);
    // Start (0), alloc (1), then the store (2).
    let stored = done(&mut e, 0, store(x, 5, Order::Relaxed));
    assert_eq!(
        stored,
        Answer {
            result: OpResult::Done,
            read: None
        }
    );
    let loaded = done(&mut e, 0, load(x, Some(RlxClass::Speculative)));
    assert_eq!(
        loaded,
        Answer {
            result: OpResult::Value(5),
            read: Some(EventId::new(0, 3))
        }
    );
    let added = done(&mut e, 0, fetch_add(x, Scope::Block, Some(RlxClass::Commutative)));
    assert_eq!(
        added,
        Answer {
            result: OpResult::Value(5),
            read: Some(EventId::new(0, 4))
        }
    );
    let plain = done(&mut e, 0, load(x, None));
    assert_eq!(plain.result, OpResult::Value(6));
    assert_eq!(plain.read, Some(EventId::new(0, 6)));
    // Each event carries its own operation's class and scope, and nothing
    // leaks into the next operation's events.
    let ev = |i| e.graph.event(EventId::new(0, i));
    assert!(matches!(ev(3).kind, EventKind::Read(r) if r.value == 5 && r.rmw.is_none()));
    assert_eq!((ev(3).rlx, ev(3).scope), (Some(RlxClass::Speculative), Scope::System));
    assert!(matches!(ev(4).kind, EventKind::Read(r) if r.rmw.is_some()));
    assert_eq!((ev(4).rlx, ev(4).scope), (Some(RlxClass::Commutative), Scope::Block));
    assert!(matches!(ev(5).kind, EventKind::Write(w) if w.rmw && w.value == 6));
    assert_eq!((ev(5).rlx, ev(5).scope), (Some(RlxClass::Commutative), Scope::Block));
    assert_eq!((ev(6).rlx, ev(6).scope), (None, Scope::System));
    assert_eq!(ev(2).rlx, None);
}

#[test]
fn threads_not_started_yet_make_a_visible_operation_wait() {
    let mut e = engine(MemoryModel::Sc);
    let x = alloc(&mut e, LocKind::Atomic);
    let a = spawn(&mut e);
    let b = spawn(&mut e);
    // An invisible operation is answered even so.
    assert!(matches!(
        e.perform(
            0,
            &Op::Fence {
                order: Order::SeqCst,
                scope: Scope::System
            },
            src()
        ),
        Step::Done(_)
    ));
    // The main thread waits at its store: nobody may be chosen before
    // both children have reached their first step.
    assert!(matches!(e.perform(0, &store(x, 1, Order::Relaxed), src()), Step::Wait));
    assert!(matches!(
        &e.status()[0],
        ThreadStatus::Op(Op::Store { value: 1, .. }, _)
    ));
    assert!(matches!(e.perform(a, &load(x, None), src()), Step::Wait));
    // The last one to start lets the engine choose: the lowest thread, the
    // main one, whose store it performs.
    match e.perform(b, &load(x, None), src()) {
        Step::Switch {
            to: 0,
            resume:
                Resume::Answer(Answer {
                    result: OpResult::Done,
                    read: None,
                }),
        } => {}
        other => panic!("expected a switch to the main thread, got {other:?}"),
    }
}

#[test]
fn a_join_of_a_running_thread_switches_to_it_and_the_joiner_resumes_when_it_ends() {
    let mut e = engine(MemoryModel::Sc);
    let x = alloc(&mut e, LocKind::Atomic);
    let a = spawn(&mut e);
    assert!(matches!(e.perform(0, &Op::Join { target: a }, src()), Step::Wait));
    // `a` starts: the main thread cannot join it yet, so `a` goes on.
    let first = done(&mut e, a, store(x, 7, Order::Release));
    assert_eq!(first.result, OpResult::Done);
    // `a` reads its own store, on its own stack.
    assert_eq!(done(&mut e, a, load(x, None)).result, OpResult::Value(7));
    // It ends: the runtime asks whom to run, and the main thread's join is
    // performed for it.
    e.thread_end(a, src()).expect("a ends");
    match e.next_turn() {
        Step::Switch {
            to: 0,
            resume:
                Resume::Answer(Answer {
                    result: OpResult::Done,
                    read: None,
                }),
        } => {}
        other => panic!("expected the main thread's join, got {other:?}"),
    }
    assert!(matches!(
        e.graph.event(EventId::new(0, e.cursor(0) - 1)).kind,
        EventKind::Join { target } if target == a
    ));
    e.thread_end(0, src()).expect("main ends");
    assert!(matches!(e.next_turn(), Step::Finished));
}

#[test]
fn a_held_mutex_makes_the_locker_wait_and_another_thread_runs() {
    let mut e = engine(MemoryModel::Rc11);
    let m = alloc(&mut e, LocKind::Mutex);
    let x = alloc(&mut e, LocKind::Atomic);
    let a = spawn(&mut e);
    let b = spawn(&mut e);
    // Main waits for `b`; `a` takes the mutex while `b` runs.
    assert!(matches!(e.perform(0, &Op::Join { target: b }, src()), Step::Wait));
    assert!(matches!(e.perform(a, &lock(m), src()), Step::Wait));
    match e.perform(b, &store(x, 1, Order::Relaxed), src()) {
        Step::Switch {
            to,
            resume:
                Resume::Answer(Answer {
                    result: OpResult::Cas(0, true),
                    read: Some(_),
                }),
        } if to == a => {}
        other => panic!("expected `a` to take the mutex, got {other:?}"),
    }
    // `a` holds it and waits for `b`, which stores and ends.
    match e.perform(a, &Op::Join { target: b }, src()) {
        Step::Switch {
            to,
            resume: Resume::Answer(Answer {
                result: OpResult::Done, ..
            }),
        } if to == b => {}
        other => panic!("expected a switch to `b`, got {other:?}"),
    }
    e.thread_end(b, src()).expect("b ends");
    // Both joins can go on; the main thread, the lowest, is chosen.
    assert!(matches!(e.next_turn(), Step::Switch { to: 0, .. }));
    // The main thread tries the mutex `a` holds: it waits, and `a` runs.
    match e.perform(0, &lock(m), src()) {
        Step::Switch {
            to,
            resume: Resume::Answer(Answer {
                result: OpResult::Done, ..
            }),
        } if to == a => {}
        other => panic!("expected the locker to wait and `a` to run, got {other:?}"),
    }
    // `a` unlocks (chosen before the unlock is made: the main thread's
    // lock cannot be taken yet) and ends; then the main thread takes the
    // mutex.
    assert_eq!(done(&mut e, a, store(m, 0, Order::Release)).result, OpResult::Done);
    e.thread_end(a, src()).expect("a ends");
    match e.next_turn() {
        Step::Switch {
            to: 0,
            resume:
                Resume::Answer(Answer {
                    result: OpResult::Cas(0, true),
                    read: Some(_),
                }),
        } => {}
        other => panic!("expected the main thread to take the mutex, got {other:?}"),
    }
}

#[test]
fn a_mutex_never_released_stops_the_execution_with_a_deadlock() {
    let mut e = engine(MemoryModel::Sc);
    let m = alloc(&mut e, LocKind::Mutex);
    let a = spawn(&mut e);
    assert!(matches!(e.perform(0, &Op::Join { target: a }, src()), Step::Wait));
    // `a` locks and ends without unlocking; the main thread joins it and
    // then cannot lock.
    assert_eq!(done(&mut e, a, lock(m)).result, OpResult::Cas(0, true));
    e.thread_end(a, src()).expect("a ends");
    assert!(matches!(e.next_turn(), Step::Switch { to: 0, .. }));
    match e.perform(0, &lock(m), src()) {
        Step::Stop(Stop::Failure(f)) => {
            assert_eq!(f.kind(), FailureKind::Deadlock);
            assert!(
                f.message()
                    .contains(&format!("thread 0 waits at {} to lock the mutex {m}", src())),
                "{}",
                f.message()
            );
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

#[test]
fn an_operation_that_fails_stops_the_execution_with_its_failure() {
    let mut e = engine(MemoryModel::Sc);
    let cell = alloc(&mut e, LocKind::Cell);
    // An atomic load of a plain cell is the checker's own error (the shim
    // never issues one): said so, at the operation's line.
    match e.perform(0, &load(cell, None), src()) {
        Step::Stop(Stop::Failure(f)) => {
            assert_eq!(f.kind(), FailureKind::Internal);
            assert!(
                f.message().contains("used as the wrong kind of object"),
                "{}",
                f.message()
            );
        }
        other => panic!("expected a stop, got {other:?}"),
    }
    // A location of no allocation is the user's misuse.
    let mut e = engine(MemoryModel::Sc);
    match e.perform(0, &load(Loc::new(5, 5), None), src()) {
        Step::Stop(Stop::Failure(f)) => {
            assert_eq!(f.kind(), FailureKind::Misuse);
            assert!(f.message().contains("created in another execution"), "{}", f.message());
        }
        other => panic!("expected a stop, got {other:?}"),
    }
}
