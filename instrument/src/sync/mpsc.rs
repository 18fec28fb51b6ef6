//! Shim of `std::sync::mpsc` (and loom's `sync::mpsc`): [`channel`],
//! [`Sender`] and [`Receiver`].
//!
//! How a channel is modelled:
//!
//! * Sends are ordered by a read-modify-write (acquire-release) of the
//!   channel's send counter: messages are received in that order, and the
//!   checker explores every order of sends that race.
//! * Each message is published with a release store of its own location,
//!   which the receive of that message reads with acquire: receiving a
//!   message synchronizes with its send and, through the counter, with every
//!   send before it (loom's guarantee), not with later sends.
//! * [`Receiver::recv`] waits (with the spin-loop hint) while the channel is
//!   empty and some sender lives; when every [`Sender`] has been dropped and
//!   the channel is empty it returns `Err(RecvError)`, as std does (loom
//!   blocks instead). A receive that nothing can end is reported as a
//!   deadlock at its line.
//! * Each `Sender` has a flag that its drop clears (a release store), so
//!   drops in different threads are not ordered with each other: only the
//!   receive that finds the channel empty reads them.
//! * [`Sender::send`] fails with `SendError` once it sees the receiver
//!   dropped (a relaxed read: a send racing with the drop may succeed, its
//!   message then dropped with the channel, as std allows).
//!
//! The messages themselves are plain values the checker does not track.

use super::{fetch, load, store};
use crate::raw_atomic::alloc;
use crate::rt;
use scopecheck_checker::event::{Loc, LocKind, Order, RmwOp, SourceLoc, Value};
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, MutexGuard};

pub use std::sync::mpsc::{RecvError, RecvTimeoutError, SendError, TryRecvError};

/// A message's location once the message is published.
const PUBLISHED: Value = 1;

struct Chan<T> {
    /// Number of messages sent.
    sent: Loc,
    /// Number of `Sender` handles made (each has a flag in `senders`).
    clones: Loc,
    /// 1 while the receiver lives.
    receiver_alive: Loc,
    born: rt::Born,
    state: Mutex<State<T>>,
}

struct State<T> {
    /// Message `i`'s location and value (taken by its receive).
    slots: Vec<(Loc, Option<T>)>,
    /// Sender handle `i`'s flag: 1 while it lives.
    senders: Vec<Loc>,
    /// Number of messages received.
    received: u64,
}

impl<T> Chan<T> {
    fn state(&self) -> MutexGuard<'_, State<T>> {
        // Never poisoned: nothing panics while it is held.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Creates a channel (inside a model only): its sending and receiving halves.
#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let flag = alloc(1, LocKind::Atomic);
    let chan = Arc::new(Chan {
        sent: alloc(0, LocKind::Atomic),
        clones: alloc(1, LocKind::Atomic),
        receiver_alive: alloc(1, LocKind::Atomic),
        born: rt::Born::here(),
        state: Mutex::new(State {
            slots: Vec::new(),
            senders: vec![flag],
            received: 0,
        }),
    });
    let sender = Sender {
        chan: chan.clone(),
        flag,
        src: SourceLoc::caller(),
    };
    let receiver = Receiver {
        chan,
        src: SourceLoc::caller(),
        _not_sync: PhantomData,
    };
    (sender, receiver)
}

/// The sending half of a channel (shim of `std::sync::mpsc::Sender`).
pub struct Sender<T> {
    chan: Arc<Chan<T>>,
    /// This handle's flag (1 while it lives).
    flag: Loc,
    /// Where the handle was made: its drop is reported there.
    src: SourceLoc,
}

impl<T> Sender<T> {
    /// Sends `t`; fails (giving `t` back) once the receiver has been dropped.
    #[track_caller]
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        let chan = &*self.chan;
        chan.born.check("a channel Sender");
        let src = SourceLoc::caller();
        if load(chan.receiver_alive, Order::Relaxed, src) == 0 {
            return Err(SendError(t));
        }
        let index = fetch(chan.sent, RmwOp::Add(1), Order::AcqRel, src);
        // No visible operation until the slot is filled: a receive that
        // reads the new count finds it.
        let published = alloc(0, LocKind::Atomic);
        {
            let mut st = chan.state();
            debug_assert_eq!(st.slots.len() as u64, index);
            st.slots.push((published, Some(t)));
        }
        store(published, PUBLISHED, Order::Release, src);
        Ok(())
    }
}

impl<T> Clone for Sender<T> {
    /// Another sending handle (inside the model that made the channel).
    #[track_caller]
    fn clone(&self) -> Sender<T> {
        let chan = &*self.chan;
        chan.born.check("a channel Sender");
        let src = SourceLoc::caller();
        let index = fetch(chan.clones, RmwOp::Add(1), Order::Relaxed, src);
        let flag = alloc(1, LocKind::Atomic);
        {
            let mut st = chan.state();
            debug_assert_eq!(st.senders.len() as u64, index);
            st.senders.push(flag);
        }
        Sender {
            chan: self.chan.clone(),
            flag,
            src,
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        // Dropped after its execution (kept in a static, say): nothing to tell.
        if self.chan.born.is_current() {
            store(self.flag, 0, Order::Release, self.src);
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

/// The receiving half of a channel (shim of `std::sync::mpsc::Receiver`).
pub struct Receiver<T> {
    chan: Arc<Chan<T>>,
    src: SourceLoc,
    /// Like std's, it can move to another thread but not be shared.
    _not_sync: PhantomData<Cell<()>>,
}

/// What a look at the channel found.
enum Look<T> {
    Message(T),
    Empty,
    Disconnected,
}

impl<T> Receiver<T> {
    /// Waits for a message; fails once the channel is empty and every
    /// [`Sender`] has been dropped. A receive that no send can end is
    /// reported as a deadlock.
    #[track_caller]
    pub fn recv(&self) -> Result<T, RecvError> {
        self.chan.born.check("a channel Receiver");
        let src = SourceLoc::caller();
        loop {
            match self.look(src) {
                Look::Message(t) => return Ok(t),
                Look::Disconnected => return Err(RecvError),
                Look::Empty => rt::spin_on("a channel receive"),
            }
        }
    }

    /// Takes a message if one has been sent, without waiting.
    #[track_caller]
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        self.chan.born.check("a channel Receiver");
        match self.look(SourceLoc::caller()) {
            Look::Message(t) => Ok(t),
            Look::Empty => Err(TryRecvError::Empty),
            Look::Disconnected => Err(TryRecvError::Disconnected),
        }
    }

    /// The checker has no clock: this is [`try_recv`](Self::try_recv)
    /// whose `Empty` is a timeout (loom does not support it at all).
    #[track_caller]
    pub fn recv_timeout(&self, timeout: std::time::Duration) -> Result<T, RecvTimeoutError> {
        let _ = timeout;
        self.chan.born.check("a channel Receiver");
        match self.look(SourceLoc::caller()) {
            Look::Message(t) => Ok(t),
            Look::Empty => Err(RecvTimeoutError::Timeout),
            Look::Disconnected => Err(RecvTimeoutError::Disconnected),
        }
    }

    /// An iterator that waits for messages with [`recv`](Self::recv) and
    /// ends when the channel is disconnected.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { rx: self }
    }

    /// An iterator over the messages already sent ([`try_recv`](Self::try_recv)).
    pub fn try_iter(&self) -> TryIter<'_, T> {
        TryIter { rx: self }
    }

    /// One look at the channel: the next message if it has been sent, else
    /// whether a sender lives.
    fn look(&self, src: SourceLoc) -> Look<T> {
        let chan = &*self.chan;
        let next = chan.state().received;
        if load(chan.sent, Order::Relaxed, src) > next {
            return Look::Message(self.take(next, src));
        }
        if !self.senders_gone(src) {
            return Look::Empty;
        }
        // Every send happens before the drops just read: this sees them all.
        if load(chan.sent, Order::Relaxed, src) > next {
            return Look::Message(self.take(next, src));
        }
        Look::Disconnected
    }

    /// Whether every sender handle has been dropped: every flag reads 0
    /// (acquire), and no handle was made meanwhile (a clone happens before
    /// the drop of the handle it was cloned from, so reading the count again
    /// sees it).
    fn senders_gone(&self, src: SourceLoc) -> bool {
        let chan = &*self.chan;
        let mut checked = 0;
        loop {
            let made = load(chan.clones, Order::Acquire, src);
            if made == checked {
                return true;
            }
            while checked < made {
                let flag = chan.state().senders[checked as usize];
                if load(flag, Order::Acquire, src) != 0 {
                    return false;
                }
                checked += 1;
            }
        }
    }

    /// Receives message `index`, which has been sent (its count was read):
    /// an acquire read of its publication, waiting (with the spin-loop
    /// hint) if the sender has not published it yet.
    fn take(&self, index: u64, src: SourceLoc) -> T {
        let chan = &*self.chan;
        let published = chan.state().slots[index as usize].0;
        while load(published, Order::Acquire, src) != PUBLISHED {
            rt::spin_on("a channel receive");
        }
        let mut st = chan.state();
        st.received += 1;
        st.slots[index as usize]
            .1
            .take()
            .expect("each message is received once")
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if self.chan.born.is_current() {
            store(self.chan.receiver_alive, 0, Order::Relaxed, self.src);
        }
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}

/// Messages of a [`Receiver`], waiting for each ([`Receiver::iter`]).
#[derive(Debug)]
pub struct Iter<'a, T> {
    rx: &'a Receiver<T>,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;
    #[track_caller]
    fn next(&mut self) -> Option<T> {
        self.rx.recv().ok()
    }
}

/// Messages already sent to a [`Receiver`] ([`Receiver::try_iter`]).
#[derive(Debug)]
pub struct TryIter<'a, T> {
    rx: &'a Receiver<T>,
}

impl<T> Iterator for TryIter<'_, T> {
    type Item = T;
    #[track_caller]
    fn next(&mut self) -> Option<T> {
        self.rx.try_recv().ok()
    }
}

impl<'a, T> IntoIterator for &'a Receiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}
