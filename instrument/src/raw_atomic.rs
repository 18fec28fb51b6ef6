//! The raw core every atomic front end is built on: one location of the
//! checker ([`RawAtomic`]: allocation, the execution check, each operation
//! as an `Op`), and std orderings mapped to the checker's (`order`,
//! `load_order`, ...: std's words when an ordering is invalid). Apart from
//! the std-shaped front end (`atomic`) so that the front ends (`atomic`,
//! `typed`, `drfrlx`) all stand on it and none on another.

use crate::rt;
use scopecheck_checker::event::{
    EventId, Loc, LocKind, Op, OpResult, Order, RlxClass, RmwOp, Scope, SourceLoc, Space, Value, ValueType,
};
use std::sync::atomic::Ordering;

pub(crate) fn order(o: Ordering) -> Order {
    match o {
        Ordering::Relaxed => Order::Relaxed,
        Ordering::Acquire => Order::Acquire,
        Ordering::Release => Order::Release,
        Ordering::AcqRel => Order::AcqRel,
        Ordering::SeqCst => Order::SeqCst,
        _ => Order::SeqCst,
    }
}

#[track_caller]
pub(crate) fn load_order(o: Ordering) -> Order {
    match o {
        Ordering::Release => panic!("there is no such thing as a release load"),
        Ordering::AcqRel => panic!("there is no such thing as an acquire-release load"),
        o => order(o),
    }
}

#[track_caller]
pub(crate) fn store_order(o: Ordering) -> Order {
    match o {
        Ordering::Acquire => panic!("there is no such thing as an acquire store"),
        Ordering::AcqRel => panic!("there is no such thing as an acquire-release store"),
        o => order(o),
    }
}

#[track_caller]
pub(crate) fn failure_order(o: Ordering) -> Order {
    match o {
        Ordering::Release => panic!("there is no such thing as a release failure ordering"),
        Ordering::AcqRel => panic!("there is no such thing as an acquire-release failure ordering"),
        o => order(o),
    }
}

/// Allocates an atomic location holding `v`.
#[track_caller]
pub(crate) fn alloc(v: Value, kind: LocKind) -> Loc {
    alloc_in(v, kind, Space::Global, false)
}

/// Allocates a location holding `v` in memory space `space`; `addresses`:
/// its values are of a pointer type (taken from the running execution when
/// a kept graph is replayed, docs/heap-addresses.md).
#[track_caller]
pub(crate) fn alloc_in(v: Value, kind: LocKind, space: Space, addresses: bool) -> Loc {
    match rt::op(Op::Alloc {
        init: v,
        kind,
        space,
        addresses,
    }) {
        OpResult::Loc(l) => l,
        r => rt::wrong_answer("new atomic", &r, SourceLoc::caller()),
    }
}

/// The raw operations every atomic type is built on.
pub(crate) struct RawAtomic {
    pub(crate) loc: Loc,
    pub(crate) ty: ValueType,
    /// Its execution: checked at every access (an object kept past its
    /// execution would alias a location of a later one).
    born: rt::Born,
}

impl RawAtomic {
    /// A location in memory space `space` (local memory follows local
    /// happens-before: `space.rs`).
    #[track_caller]
    pub(crate) fn new_in(v: Value, ty: ValueType, kind: LocKind, space: Space, addresses: bool) -> RawAtomic {
        RawAtomic {
            loc: alloc_in(ty.mask(v), kind, space, addresses),
            ty,
            born: rt::Born::here(),
        }
    }

    /// Checks that the location is used in the execution that made it
    /// (every `RawAtomic` is an atomic location: locks and cells have
    /// their own front ends).
    #[inline(always)]
    #[track_caller]
    fn check(&self) {
        self.born.check("an atomic");
    }

    #[track_caller]
    pub(crate) fn load_at(&self, o: Order, scope: Scope) -> Value {
        self.check();
        match rt::op(Op::Load {
            loc: self.loc,
            order: o,
            scope,
            class: None,
        }) {
            OpResult::Value(v) => v,
            r => rt::wrong_answer("load", &r, SourceLoc::caller()),
        }
    }

    /// A load whose event takes the DRFrlx class `class`: the value and
    /// the read event it came from.
    #[track_caller]
    pub(crate) fn load_classed(&self, o: Order, scope: Scope, class: Option<RlxClass>) -> (Value, Option<EventId>) {
        self.check();
        let op = Op::Load {
            loc: self.loc,
            order: o,
            scope,
            class,
        };
        let a = rt::perform_at(op, SourceLoc::caller());
        match a.result {
            OpResult::Value(v) => (v, a.read),
            r => rt::wrong_answer("load", &r, SourceLoc::caller()),
        }
    }

    #[track_caller]
    pub(crate) fn store_at(&self, v: Value, o: Order, scope: Scope) {
        self.store_classed(v, o, scope, None)
    }

    /// A store whose event takes the DRFrlx class `class`.
    #[track_caller]
    pub(crate) fn store_classed(&self, v: Value, o: Order, scope: Scope, class: Option<RlxClass>) {
        self.check();
        rt::op(Op::Store {
            loc: self.loc,
            order: o,
            value: self.ty.mask(v),
            scope,
            class,
        });
    }

    // Inline: the caller's operation is then taken field by field, not
    // copied with wide loads that wait on the narrow stores that built it.
    #[inline(always)]
    #[track_caller]
    pub(crate) fn rmw_at(&self, op: RmwOp, success: Order, failure: Order, scope: Scope) -> (Value, bool) {
        match rt::op(self.rmw_op(op, success, failure, scope, None)) {
            OpResult::Value(v) => (v, true),
            OpResult::Cas(v, ok) => (v, ok),
            r => rt::wrong_answer("read-modify-write", &r, SourceLoc::caller()),
        }
    }

    /// An RMW whose events take the DRFrlx class `class`: the value read,
    /// whether it wrote, and its read event.
    #[track_caller]
    pub(crate) fn rmw_classed(
        &self,
        op: RmwOp,
        success: Order,
        failure: Order,
        scope: Scope,
        class: Option<RlxClass>,
    ) -> (Value, bool, Option<EventId>) {
        let a = rt::perform_at(self.rmw_op(op, success, failure, scope, class), SourceLoc::caller());
        match a.result {
            OpResult::Value(v) => (v, true, a.read),
            OpResult::Cas(v, ok) => (v, ok, a.read),
            r => rt::wrong_answer("read-modify-write", &r, SourceLoc::caller()),
        }
    }

    /// The operation of an RMW of this atomic (its operands masked to its
    /// width), after the execution check.
    #[inline(always)]
    #[track_caller]
    fn rmw_op(&self, op: RmwOp, success: Order, failure: Order, scope: Scope, class: Option<RlxClass>) -> Op {
        self.check();
        let op = match op {
            RmwOp::Cas { expected, new, weak } => RmwOp::Cas {
                expected: self.ty.mask(expected),
                new: self.ty.mask(new),
                weak,
            },
            other => other,
        };
        Op::Rmw {
            loc: self.loc,
            op,
            ty: self.ty,
            success,
            failure,
            await_: None,
            scope,
            class,
        }
    }
}
