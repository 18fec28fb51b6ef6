//! The synchronizes-with edges of a graph as each model defines them, for
//! pictures ([`crate::dot`]).
//!
//! The picture used to derive sw itself, with C++20's rules, so an `rc11`
//! or `src11` graph could show an edge its model does not have (and an `sc`
//! graph none of the edges its model has). Here each model answers from the
//! relations it judges graphs with ([`super::Semantics::sync_edges`]): the
//! RC11 family and `sc` from [`super::relations::Relations::of`] with the
//! model's [`SyncRules`](crate::graph::SyncRules), `c11` from
//! [`super::c11::C11::of`], `opencl` from its own check
//! ([`super::opencl::Judgement::sw`]); this file holds what they share.

use super::relations::Rel;
use crate::event::EventId;

/// The pairs of `rel` as events (`ids` names each index), initial writes
/// left out.
pub fn edges_of(rel: &Rel, ids: &[EventId]) -> Vec<(EventId, EventId)> {
    let mut out = Vec::new();
    for (a, &ea) in ids.iter().enumerate() {
        if ea.is_init() {
            continue;
        }
        for (b, &eb) in ids.iter().enumerate() {
            if !eb.is_init() && rel.has(a, b) {
                out.push((ea, eb));
            }
        }
    }
    out
}
