//! loom's `sync::mpsc` and `sync::Notify`: exact outcomes and counts, the
//! synchronization each gives (and does not give), and the deadlocks they
//! must report. Warnings are errors here, as in loom's own tests: the shim
//! must not warn where loom does not (a lock guard dropped at once).
#![deny(warnings)]

mod common;

use common::{position, the_failure};
use scopecheck::cell::UnsafeCell;
use scopecheck::sync::mpsc::{channel, RecvError, TryRecvError};
use scopecheck::sync::{Arc, Mutex, Notify};
use scopecheck::{thread, Builder, FailureKind, MemoryModel, Strategy};
use std::collections::BTreeSet;

const SRC: &str = include_str!("loom_api_sync.rs");

fn exhaustive() -> Builder {
    common::builder(MemoryModel::Rc11, Strategy::Exhaustive)
}

fn reference() -> Builder {
    common::builder(MemoryModel::Rc11, Strategy::Reference)
}

#[test]
fn messages_come_in_the_order_of_their_sends() {
    let body = |rec: &dyn Fn((u32, u32))| {
        let (s, r) = channel();
        let s2 = s.clone();
        let a = thread::spawn(move || s.send(5).unwrap());
        let b = thread::spawn(move || s2.send(6).unwrap());
        let first = r.recv().unwrap();
        let second = r.recv().unwrap();
        rec((first, second));
        a.join().unwrap();
        b.join().unwrap();
    };
    let (o, r) = common::outcomes(&exhaustive(), body);
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(o, BTreeSet::from([(5, 6), (6, 5)]));
}

#[test]
fn a_single_sequential_message() {
    let r = exhaustive().explore(|| {
        let (s, r) = channel();
        s.send(5).unwrap();
        assert_eq!(r.recv(), Ok(5));
        assert_eq!(r.try_recv(), Err(TryRecvError::Empty));
        drop(s);
        assert_eq!(r.try_recv(), Err(TryRecvError::Disconnected));
        assert_eq!(r.recv(), Err(RecvError));
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(r.executions(), 1);
}

#[test]
fn recv_after_every_sender_dropped_is_an_error_not_a_hang() {
    let (o, r) = common::outcomes(&exhaustive(), |rec: &dyn Fn(Option<u32>)| {
        let (s, r) = channel::<u32>();
        let s2 = s.clone();
        let a = thread::spawn(move || drop(s));
        let b = thread::spawn(move || {
            s2.send(1).unwrap();
        });
        // Either the message, or (never) an error: the message was sent
        // before the last sender went away.
        rec(r.recv().ok());
        assert_eq!(r.recv(), Err(RecvError));
        a.join().unwrap();
        b.join().unwrap();
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(o, BTreeSet::from([Some(1)]));
}

#[test]
fn a_send_after_the_receiver_is_gone_gives_the_message_back() {
    let r = exhaustive().explore(|| {
        let (s, r) = channel();
        drop(r);
        assert_eq!(s.send(3).unwrap_err().0, 3);
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
}

#[test]
fn a_recv_nobody_sends_to_is_a_deadlock_at_its_line() {
    let r = exhaustive().explore(|| {
        let (_s, r) = channel::<u8>();
        let _ = r.recv(); // nobody sends
    });
    let f = the_failure(&r, FailureKind::Deadlock);
    let at = position(file!(), SRC, "r.^recv(); // nobody sends");
    assert!(
        f.message()
            .contains(&format!("thread 0 waits at {at} on a channel receive")),
        "{}",
        f.message()
    );
}

#[test]
fn a_receive_synchronizes_with_its_send() {
    let r = exhaustive().explore(|| {
        let data = Arc::new(UnsafeCell::new(0));
        let (s, r) = channel();
        let d2 = data.clone();
        let h = thread::spawn(move || {
            d2.with_mut(|p| unsafe { *p = 1 });
            s.send(()).unwrap();
        });
        r.recv().unwrap();
        assert_eq!(data.with(|p| unsafe { *p }), 1);
        h.join().unwrap();
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
}

#[test]
fn a_receive_does_not_synchronize_with_later_sends() {
    // Thread b writes plain data and then sends; the main thread receives
    // only the first message and reads the data. When a's message came
    // first, nothing orders b's write before the read: a data race.
    let r = exhaustive().explore(|| {
        let data = Arc::new(UnsafeCell::new(0));
        let (s, r) = channel();
        let s2 = s.clone();
        let d2 = data.clone();
        let _a = thread::spawn(move || s.send(1).unwrap());
        let _b = thread::spawn(move || {
            d2.with_mut(|p| unsafe { *p = 1 });
            s2.send(2).unwrap();
        });
        if r.recv().unwrap() == 1 {
            data.with(|p| unsafe { *p });
        }
    });
    the_failure(&r, FailureKind::DataRace);
}

#[test]
fn notify_hands_over_and_keeps_an_early_notification() {
    let body = |rec: &dyn Fn(u32)| {
        let data = Arc::new(UnsafeCell::new(0));
        let n = Arc::new(Notify::new());
        let (d2, n2) = (data.clone(), n.clone());
        let h = thread::spawn(move || {
            d2.with_mut(|p| unsafe { *p = 4 });
            n2.notify();
        });
        n.wait();
        rec(data.with(|p| unsafe { *p }));
        h.join().unwrap();
    };
    let (o, r) = common::outcomes(&exhaustive(), body);
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
    assert_eq!(o, BTreeSet::from([4]));
    // The wait's compare-exchange reads the initial 0 (and waits) or the
    // notification: two executions, as the reference enumerator counts.
    let (_, r2) = common::outcomes(&reference(), body);
    assert_eq!((r.executions(), r2.executions()), (2, 2), "{r}\n{r2}");
}

#[test]
fn a_wait_nobody_notifies_is_a_deadlock_at_its_line() {
    let r = exhaustive().explore(|| {
        let n = Notify::new();
        n.notify();
        n.wait();
        n.wait(); // the one notification is taken
    });
    let f = the_failure(&r, FailureKind::Deadlock);
    let at = position(file!(), SRC, "n.^wait(); // the one notification is taken");
    assert!(
        f.message().contains(&format!("thread 0 waits at {at} on a Notify")),
        "{}",
        f.message()
    );
}

#[test]
fn a_guard_dropped_at_once_is_not_a_warning() {
    // loom's `thread_api::many_joins` locks just to wait for the lock;
    // loom's guards carry no `must_use`, so neither do these.
    let r = exhaustive().explore(|| {
        let m = Mutex::new(());
        m.lock().unwrap();
        m.lock().unwrap();
    });
    assert!(r.failures().is_empty() && r.is_complete(), "{r}");
}
