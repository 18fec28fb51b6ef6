//! The DRFrlx rewrite: a run with
//! [`RunConfig::drfrlx_system`](super::RunConfig::drfrlx_system) maps a
//! DRFrlx program onto a DRFrlx system in C11 terms (paired seq_cst
//! accesses bracketed by seq_cst fences). Apart because it is one
//! analysis's switch, consulted by the operation path but owned by no other
//! part of the runtime.

use super::{with_shared, SHARED};
use scopecheck_checker::event::{Op, Order};

/// Whether the run on this thread maps a DRFrlx program onto a DRFrlx
/// system in C11 terms, as the DRFrlx check's weak-model run needs
/// ([`RunConfig::drfrlx_system`](super::RunConfig::drfrlx_system)):
/// - unpaired accesses run as `SeqCst` ([`crate::drfrlx::relaxed_order`]):
///   DRF1 keeps unpaired atomics in program order with the other atomics of
///   their thread, and `SeqCst` is C11's nearest order that does so (seed
///   004, section 3.7: the theorem assumes a DRF1-compliant system);
/// - every paired access (a seq_cst atomic access that carries no DRFrlx
///   class; acquire and release ones are outside DRFrlx and run as they
///   are) is issued between two seq_cst fences. DRFrlx
///   lets relaxed classes be reordered with each other and with data, but
///   not across paired atomics (sections 3.2-3.4: "reordering ... with
///   respect to other relaxed atomics"); C11's seq_cst accesses alone do not
///   stop a relaxed access from moving across them (figure 2b's program has
///   no illegal race, yet `rc11` lets its relaxed `Y` load be satisfied
///   before the paired `Z` load, which SC forbids).
///
/// A field of the run's state, not a switch of its own: it holds on every
/// OS thread the run explores on (a parallel run's too) and ends with the
/// run, however the run ends. False outside a model.
pub fn drfrlx_system() -> bool {
    SHARED.with(|s| s.try_borrow().ok().and_then(|s| s.as_ref().map(|s| s.drfrlx_system)) == Some(true))
}

/// Whether `op` is a paired access that a [`drfrlx_system`] run brackets
/// with fences: a seq_cst access that carries no DRFrlx class.
#[inline]
pub(super) fn needs_paired_fences(op: &Op) -> bool {
    let (order, class) = match *op {
        Op::Load { order, class, .. } | Op::Store { order, class, .. } => (order, class),
        Op::Rmw { success, class, .. } => (success, class),
        _ => return false,
    };
    // Only seq_cst ones: DRFrlx's paired atomics are SC atomics. Acquire
    // and release atomics are outside the model and keep their own
    // semantics here, so that what they allow beyond SC shows up (and is
    // blamed on them, not certified away by the fences).
    order == Order::SeqCst && class.is_none() && with_shared(|s| s.drfrlx_system)
}
