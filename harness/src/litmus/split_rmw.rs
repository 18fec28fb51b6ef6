//! RMWs run as their read and write parts in a thread's runs alone with
//! the promising thread (`gpu_split.rs`), joined into RMWs afterwards.
//!
//! The promising thread stores each promised value of a location once,
//! and the engine's RMW consumes the write it reads (atomicity), so a
//! thread alone could not take a path on which two of its RMWs read one
//! promised value, although with the other threads' writes that may be an
//! execution of the test (docs/gpu-models.md, section 5, item 1). Storing
//! each value as often as a path could need it multiplies the promising
//! thread's mo orders without bound.
//!
//! Here the alone run does without atomicity instead: an RMW runs as a
//! load of the location (its read part) and, when the operation writes
//! (a compare-exchange only when it read the expected value), a store of
//! the new value right after it (its write part), with the RMW's scope,
//! source position and class. A load is never consumed, so any number of
//! RMWs read one promised value. The thread's events and values on every
//! path are those the RMW would give (the value read decides the rest),
//! and the paths are a superset: the write part may also go later in mo
//! than right after the write read, or the read part read a write that
//! another RMW read, neither of which an RMW allows. After each run the
//! pairs are joined back into RMW events ([`join`]), so everything after
//! (grouping, the combinations, the validation) sees the RMWs as the
//! engine makes them, and the validation, which gives each read every
//! write of its value and each location every order of its writes, leaves
//! atomicity to the model's judge as before. A path the superset adds that
//! no execution of the test takes is therefore rejected there.
//!
//! A weak compare-exchange is not split (its spurious failure is the
//! engine's choice) and neither is a DRFrlx quantum RMW; those still
//! consume, and `split_lost.rs` still says when that left a path out.

use scopecheck_checker::event::{EventId, EventKind, Order, RmwOp, ValueType};
use scopecheck_checker::graph::ExecutionGraph;
use std::sync::Mutex;

/// One RMW run as a load and maybe a store.
#[derive(Clone, Copy, Debug)]
pub struct SplitRmw {
    /// The load (the read part); the store, if any, is the next event.
    pub read: EventId,
    /// The operation, its type and its orders, as the engine's RMW has them.
    pub op: RmwOp,
    /// The value type.
    pub ty: ValueType,
    /// Success order.
    pub success: Order,
    /// Failure order (a compare-exchange that read another value).
    pub failure: Order,
    /// Whether it wrote (its store is the next event).
    pub wrote: bool,
}

/// The RMWs one execution of a program ran split (cleared by the caller
/// before each execution).
pub type Log = Mutex<Vec<SplitRmw>>;

/// Whether an RMW with `op` may run split (not a weak compare-exchange).
pub fn splits(op: RmwOp) -> bool {
    !matches!(op, RmwOp::Cas { weak: true, .. })
}

/// Turns each load and store of `rmws` in `g` into the read and write
/// parts of the RMW it ran for. An error (the checker's own) says where
/// the graph does not hold the events the log names.
///
/// Only the events change: what the graph keeps about them for the
/// engine's exploration (the consumed-write index, the seq_cst count) is
/// not redone. The graph is the run's copy, which only the litmus front end
/// reads after this; the combination graph is built from it by
/// `clone_restricted` and `push_event`, which count afresh.
pub fn join(g: &mut ExecutionGraph, rmws: &[SplitRmw]) -> Result<(), String> {
    for r in rmws {
        let read = g.event(r.read).as_read().copied().ok_or_else(|| {
            format!(
                "internal error of the checker (not of the test): the read part of a split RMW ({:?}) is not a read",
                r.read
            )
        })?;
        let write = EventId::new(r.read.thread, r.read.index + 1);
        if r.wrote {
            let ok =
                g.contains(write) && matches!(&g.event(write).kind, EventKind::Write(w) if w.loc == read.loc && !w.rmw);
            if !ok {
                return Err(format!(
                    "internal error of the checker (not of the test): the write part of a split RMW ({:?}) does \
                     not follow its read part",
                    r.read
                ));
            }
            if let EventKind::Write(w) = &mut g.event_mut(write).kind {
                w.rmw = true;
                w.order = Order::write_part(r.success);
            }
        }
        if let EventKind::Read(rd) = &mut g.event_mut(r.read).kind {
            rd.rmw = Some((r.op, r.ty, r.success, r.failure));
            rd.order = if r.wrote {
                Order::read_part(r.success)
            } else {
                r.failure
            };
        }
    }
    Ok(())
}
