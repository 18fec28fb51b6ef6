//! The synchronizes-with edges of a graph as each model defines them, for
//! pictures ([`crate::dot`]).
//!
//! The picture used to derive sw itself, with C++20's rules, so an `rc11`
//! or `src11` graph could show an edge its model does not have (and an `sc`
//! graph none of the edges its model has). Here each model answers from the
//! relations it judges graphs with: the RC11 family from
//! [`Relations::of`] with the model's [`SyncRules`](crate::graph::SyncRules),
//! `c11` from [`C11::of`], `opencl` from its own check
//! ([`super::opencl::Judgement::sw`]).

use super::c11::{Judge, C11};
use super::relations::{Rel, Relations};
use super::MemoryModel;
use crate::event::EventId;
use crate::graph::ExecutionGraph;

impl MemoryModel {
    /// The sw edges of `g` under this model, between events of the graph
    /// (edges from initial writes left out), or `None` for a model whose
    /// synchronization is not one sw relation of events (`porf`, which has
    /// none, and the hardware models, judged by [`super::gpu_rust`]).
    pub fn sync_edges(self, g: &ExecutionGraph) -> Option<Vec<(EventId, EventId)>> {
        match self {
            MemoryModel::Sc | MemoryModel::Rc11 | MemoryModel::Cpp20 | MemoryModel::Src11 => {
                let r = Relations::of(g, self.sync_rules());
                Some(edges_of(&r.sw, &r.ids))
            }
            MemoryModel::C11 => {
                let m = C11::of(g, Judge::Complete);
                Some(edges_of(&m.sw, &m.base.ids))
            }
            MemoryModel::Porf | MemoryModel::Ptx75 | MemoryModel::Vulkan => None,
        }
    }
}

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
