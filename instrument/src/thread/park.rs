//! `thread::park` and `Thread::unpark`.
//!
//! Every model thread has a park token, a location holding 1 while the
//! token is available and 0 otherwise, as std describes it. [`Thread::unpark`]
//! stores 1 with release order. [`park`] takes the token with an acquire
//! compare-exchange from 1 to 0; while the token is not available it waits
//! (with the spin-loop hint) until an unpark changes it, so:
//!
//! * an unpark that comes before the park is kept, and the park returns at
//!   once (std's semantics, and loom's);
//! * what the unparker did before `unpark` happens before what the parked
//!   thread does after `park` returns;
//! * a park that no unpark can end (a lost wake-up, or nobody unparks) is
//!   reported as a deadlock at the park's line.
//!
//! Like loom, `park` never returns spuriously: std allows it to, so code
//! that treats a return from `park` as proof of its condition can pass here
//! and still be wrong on a real machine.
//!
//! The token of a spawned thread is made by the thread that spawns it (when
//! it spawns it: every handle to the thread names the same token); the
//! main thread's is made by the main thread itself the first time it calls
//! [`current`](super::current) or [`park`] (a handle to the main thread can
//! only come from there).
//!
//! [`Thread::unpark`]: super::Thread::unpark

use super::registry;
use crate::atomic::alloc;
use crate::rt;
use scopecheck_checker::event::{
    Loc, LocKind, Op, OpResult, Order, RmwOp, Scope, SourceLoc, ThreadId as Tid, ValueType,
};

/// Makes the park token of `child`, just spawned by the calling thread.
#[track_caller]
pub(super) fn token_for_child(child: Tid) -> Loc {
    let token = alloc_token();
    registry::with_thread(child, |info| info.token = Some(token));
    token
}

#[track_caller]
fn alloc_token() -> Loc {
    alloc(0, LocKind::Atomic)
}

/// The park token of thread `t`: made now by the calling thread if `t` is
/// the calling thread and has none yet.
#[track_caller]
pub(super) fn token_of(t: Tid) -> Loc {
    if let Some(token) = registry::with_thread(t, |info| info.token) {
        return token;
    }
    let me = rt::current();
    if me != t {
        // Only a scoped thread's handle lacks a token (`thread::scope`'s
        // threads get one when they first ask for it themselves): making it
        // here would depend on the interleaving.
        panic!(
            "scopecheck: unparking thread {t} through its `ScopedJoinHandle` before it called `thread::current()` or \
             `thread::park()` is not supported; send the handle from `thread::current()` in that thread instead"
        );
    }
    let token = alloc_token();
    registry::with_thread(t, |info| info.token = Some(token));
    token
}

/// Makes `token` available (a release store).
pub(super) fn unpark(token: Loc, src: SourceLoc) {
    rt::op_at(
        Op::Store {
            loc: token,
            order: Order::Release,
            value: 1,
            scope: Scope::System,
        },
        src,
    );
}

/// Blocks the calling thread until its park token is available, then takes
/// it (see the [module documentation](self)).
#[track_caller]
pub fn park() {
    let src = SourceLoc::caller();
    let me = rt::current();
    let token = token_of(me);
    loop {
        let taken = rt::op_at(
            Op::Rmw {
                loc: token,
                op: RmwOp::Cas {
                    expected: 1,
                    new: 0,
                    weak: false,
                },
                ty: ValueType::U64,
                success: Order::Acquire,
                failure: Order::Relaxed,
                await_: None,
                scope: Scope::System,
            },
            src,
        );
        match taken {
            OpResult::Cas(_, true) => return,
            OpResult::Cas(_, false) => rt::spin_on("`thread::park`"),
            r => unreachable!("compare-exchange answered {r:?}"),
        }
    }
}
