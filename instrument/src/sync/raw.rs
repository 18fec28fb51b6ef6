//! Raw operations on the locations the primitives are built on: loads,
//! stores, read-modify-writes and compare-exchanges of a location through the
//! checker, and taking and giving back a lock word.

use crate::rt;
use scopecheck_checker::event::{Await, Loc, Op, OpResult, Order, RmwOp, Scope, SourceLoc, Value, ValueType};
use std::fmt;

/// A load of `loc`.
pub(crate) fn load(loc: Loc, order: Order, src: SourceLoc) -> Value {
    load_in(loc, order, Scope::System, src)
}

/// A load of `loc` at `scope` (the GPU primitives' words).
pub(crate) fn load_in(loc: Loc, order: Order, scope: Scope, src: SourceLoc) -> Value {
    match rt::op_at(
        Op::Load {
            loc,
            order,
            scope,
            class: None,
        },
        src,
    ) {
        OpResult::Value(v) => v,
        r => rt::wrong_answer("load", &r, src),
    }
}

/// A store to `loc`.
pub(crate) fn store(loc: Loc, value: Value, order: Order, src: SourceLoc) {
    rt::op_at(
        Op::Store {
            loc,
            order,
            value,
            scope: Scope::System,
            class: None,
        },
        src,
    );
}

/// A read-modify-write of `loc` that always writes; returns the old value.
pub(crate) fn fetch(loc: Loc, op: RmwOp, order: Order, src: SourceLoc) -> Value {
    fetch_in(loc, op, order, Scope::System, src)
}

/// [`fetch`] at `scope`.
pub(crate) fn fetch_in(loc: Loc, op: RmwOp, order: Order, scope: Scope, src: SourceLoc) -> Value {
    match rt::op_at(
        Op::Rmw {
            loc,
            op,
            ty: ValueType::U64,
            success: order,
            failure: order,
            await_: None,
            scope,
            class: None,
        },
        src,
    ) {
        OpResult::Value(v) => v,
        r => rt::wrong_answer("read-modify-write", &r, src),
    }
}

/// A strong compare-exchange of `loc` from `expected` to `new`: `Ok(old)` if it
/// exchanged, `Err(current)` if not. With `await_`, the thread does not take
/// the step until it can read a value the condition admits (a blocking lock).
pub(crate) fn cas(
    loc: Loc,
    expected: Value,
    new: Value,
    success: Order,
    failure: Order,
    await_: Option<Await>,
    src: SourceLoc,
) -> Result<Value, Value> {
    cas_in(loc, expected, new, success, failure, await_, Scope::System, src)
}

/// [`cas`] at `scope`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn cas_in(
    loc: Loc,
    expected: Value,
    new: Value,
    success: Order,
    failure: Order,
    await_: Option<Await>,
    scope: Scope,
    src: SourceLoc,
) -> Result<Value, Value> {
    match rt::op_at(
        Op::Rmw {
            loc,
            op: RmwOp::Cas {
                expected,
                new,
                weak: false,
            },
            ty: ValueType::U64,
            success,
            failure,
            await_,
            scope,
            class: None,
        },
        src,
    ) {
        OpResult::Cas(v, true) => Ok(v),
        OpResult::Cas(v, false) => Err(v),
        r => rt::wrong_answer("compare-exchange", &r, src),
    }
}

/// Value of an unlocked lock word.
pub(super) const UNLOCKED: Value = 0;
/// Value of a locked mutex word.
pub(super) const LOCKED: Value = 1;

/// Takes the lock word `loc` from `UNLOCKED` to `locked` in one operation:
/// the checker lets the thread take the step only once it can read an unlock.
pub(super) fn acquire_word(loc: Loc, locked: Value, src: SourceLoc) {
    let _ = cas(
        loc,
        UNLOCKED,
        locked,
        Order::Acquire,
        Order::Acquire,
        Some(Await::ValueEq(UNLOCKED)),
        src,
    );
}

/// Tries once to take the lock word `loc` from `UNLOCKED` to `locked`.
pub(super) fn try_acquire_word(loc: Loc, locked: Value, src: SourceLoc) -> bool {
    cas(loc, UNLOCKED, locked, Order::Acquire, Order::Acquire, None, src).is_ok()
}

/// Releases the lock word `loc`.
pub(super) fn release_word(loc: Loc, src: SourceLoc) {
    store(loc, UNLOCKED, Order::Release, src);
}

/// What std's `Debug` impls print for a lock that cannot be read right now.
pub(super) struct LockedPlaceholder;

impl fmt::Debug for LockedPlaceholder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<locked>")
    }
}
