//! A free choice for the explorer, shared by `block_on`'s spurious wake-up
//! and `Condvar::wait_timeout`'s timeout (apart so that neither `future`
//! nor `sync` imports the other).

use crate::raw_atomic::alloc;
use crate::rt;
use scopecheck_checker::event::{LocKind, Op, OpResult, Order, RmwOp, Scope, SourceLoc, ValueType};

/// Whether this wait ends spuriously: the spurious failure of a weak
/// compare-exchange on a location of the call's own, which the explorer
/// takes as a choice (it synchronizes with nothing: relaxed, and no other
/// thread sees the location). `Condvar::wait_timeout`'s timeout is the
/// same choice.
pub(crate) fn spurious_wake(src: SourceLoc) -> bool {
    let choice = alloc(0, LocKind::Atomic);
    let r = rt::op_at(
        Op::Rmw {
            loc: choice,
            op: RmwOp::Cas {
                expected: 0,
                new: 0,
                weak: true,
            },
            ty: ValueType::U64,
            success: Order::Relaxed,
            failure: Order::Relaxed,
            await_: None,
            scope: Scope::System,
            class: None,
        },
        src,
    );
    matches!(r, OpResult::Cas(_, false))
}
