//! `thread::park` and `Thread::unpark`.
//!
//! Every model thread has a park token, a location holding 1 while the
//! token is available and 0 otherwise, as std describes it. [`Thread::unpark`](super::Thread::unpark)
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
//! The token is the checker's [`Loc::park_token`] of the thread: it exists
//! from the thread's start without an event of its own, so a program that
//! never parks has exactly the events it had before.

use crate::rt;
use scopecheck_checker::event::{Loc, Op, OpResult, Order, RmwOp, Scope, SourceLoc, ValueType};

/// Makes `token` available (a release store).
pub(super) fn unpark(token: Loc, src: SourceLoc) {
    rt::op_at(
        Op::Store {
            loc: token,
            order: Order::Release,
            value: 1,
            scope: Scope::System,
            class: None,
        },
        src,
    );
}

/// Blocks the calling thread until its park token is available, then takes
/// it (see the [module documentation](self)).
#[track_caller]
pub fn park() {
    let src = SourceLoc::caller();
    let token = Loc::park_token(rt::current());
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
                class: None,
            },
            src,
        );
        match taken {
            OpResult::Cas(_, true) => return,
            OpResult::Cas(_, false) => rt::spin_on("`thread::park`"),
            r => rt::wrong_answer("compare-exchange", &r, src),
        }
    }
}
