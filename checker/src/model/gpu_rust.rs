//! Rust programs under the GPU hardware models `ptx7.5` and `vulkan`
//! (docs/gpu-models.md section 7): how the shim's orders and scopes become
//! the attributes ([`GpuOp`]) the cat-file models judge, which operations
//! have no mapping (refused with a reason before they run), and the
//! judgement of a complete graph.
//!
//! The explorer enumerates graphs under the `porf` base, as for litmus
//! tests; [`judge`] keeps those the hardware model allows. The attributes
//! are taken from each event itself (not from its source position: one
//! call site may run with different orders), through [`GpuEnv::by_event`].

use super::gpu::{GpuEnv, GpuKind, GpuOp, GpuOrder};
use super::porf::PORF_SYNC;
use super::relations::{Axiom, Relations};
use super::semantics::Semantics;
use super::{ptx, vulkan, MemoryModel};
use crate::event::*;
use crate::graph::{ExecutionGraph, SyncRules};
use crate::scope::{Placement, Scope};

/// `ptx7.5`: Dat3M's `ptx-v7.5.cat` for Rust programs.
pub struct Ptx75Model;
/// `vulkan`: Dat3M's `vulkan.cat` for Rust programs, with its data races
/// (`dr`).
pub struct VulkanModel;

/// The hardware models' answers: graphs enumerated on the `porf` base
/// (`porf.rs`), operations without a mapping refused, each complete graph
/// judged by the cat model ([`judge`]).
macro_rules! hardware_model {
    ($ty:ident, $variant:ident, $name:literal, $code:literal, $races:literal) => {
        impl Semantics for $ty {
            const NAME: &'static str = $name;
            const CODE: u8 = $code;
            const SYNC: SyncRules = PORF_SYNC;
            const COHERENT: bool = false;
            const HB_RACES: bool = false;
            const REFUSES_OPERATIONS: bool = true;
            const RACE_DEFINITION: &'static str = $races;

            fn refusal(op: &Op, place: &Placement) -> Option<String> {
                refusal(MemoryModel::$variant, op, place)
            }

            fn check_needed(_sc_events: usize, _new_sc: bool) -> bool {
                false
            }

            fn check_graph(_g: &ExecutionGraph) -> Result<(), Axiom> {
                Ok(())
            }

            fn judge_complete(g: &ExecutionGraph) -> Result<Vec<(EventId, EventId)>, Axiom> {
                judge(g, MemoryModel::$variant).map_err(|_| Axiom::HardwareModel)
            }

            fn consistent_declarative(g: &ExecutionGraph) -> Result<(), Axiom> {
                Relations::of(g, Self::SYNC).check_porf()?;
                Self::judge_complete(g).map(|_| ())
            }

            fn sync_edges(_g: &ExecutionGraph) -> Option<Vec<(EventId, EventId)>> {
                None
            }
        }
    };
}

// (PTX defines no data races: its judgement returns none.)
hardware_model!(Ptx75Model, Ptx75, "ptx7.5", 6, "PTX's data-race definition");
hardware_model!(VulkanModel, Vulkan, "vulkan", 7, "Vulkan's data-race definition (`dr`)");

/// Why operation `op` of a thread placed at `place` cannot run under the
/// hardware model `model` (`None`: it can, or `model` is not a hardware
/// model). The caller reports it with the operation's source position.
pub fn refusal(model: MemoryModel, op: &Op, place: &Placement) -> Option<String> {
    let name = model.name();
    if !model.refuses_operations() {
        return None;
    }
    let what = match op {
        Op::Load {
            order: Order::NonAtomic,
            ..
        } => "a plain load",
        Op::Store {
            order: Order::NonAtomic,
            ..
        } => "a plain store",
        Op::Load { .. } => "an atomic load",
        Op::Store { .. } => "an atomic store",
        Op::Rmw { .. } => "an atomic read-modify-write",
        Op::Fence { .. } => "a fence",
        Op::CellAccess { .. } => {
            return Some(format!(
                "a plain cell access (`UnsafeCell`) has no mapping under `{name}` yet: its reads take no \
                 write of the model's choosing; keep plain data in `sync::atomic_ref::Plain` (weak accesses) \
                 instead"
            ))
        }
        Op::Barrier { group, fence, .. } => {
            // A whole block's barrier over every memory space is PTX's
            // `bar.cta.sync` and Vulkan's workgroup control barrier
            // ([`barrier_op`]); the models have nothing narrower or wider.
            let why = match (group.level, group.lanes, fence) {
                (Scope::Block, 0, FenceSpace::Both) => return None,
                (Scope::Block, 0, _) => {
                    "a block barrier that orders only one memory space (the model's barrier \
                                         orders all of them: use `sync_threads`)"
                }
                (Scope::Warp, ..) => "a warp or tile barrier (the model has block barriers only)",
                _ => "a cluster or grid barrier (the model has block barriers only)",
            };
            return Some(format!("{why} has no mapping under `{name}`"));
        }
        _ => return None,
    };
    if place.gpu.is_none() {
        return Some(format!(
            "{what} by a host thread: `{name}` relates GPU threads only (it has no host-device ordering); \
             run the accesses in threads spawned with `Placement::gpu` or `gpu::launch`"
        ));
    }
    let (order, scope) = match *op {
        Op::Load { order, scope, .. } | Op::Store { order, scope, .. } | Op::Fence { order, scope } => (order, scope),
        // A compare-exchange's failure order is its read's when it fails.
        Op::Rmw {
            success,
            failure,
            scope,
            ..
        } => (if failure == Order::SeqCst { failure } else { success }, scope),
        _ => return None,
    };
    let is_fence = matches!(op, Op::Fence { .. });
    if order == Order::SeqCst && !is_fence {
        return Some(if model == MemoryModel::Vulkan {
            format!(
                "{what} with `SeqCst`: `vulkan` has no sequential consistency; use `Acquire`, `Release` or `AcqRel`"
            )
        } else {
            format!(
                "{what} with `SeqCst`: `{name}` has no sequentially consistent access; write the mapping out \
                 (`fence_scoped(SeqCst, scope)` then an acquire load or a release store)"
            )
        });
    }
    if order == Order::SeqCst && model == MemoryModel::Vulkan {
        return Some("a `SeqCst` fence: `vulkan` has no sequentially consistent fence (use `AcqRel`)".to_string());
    }
    // A plain access names no scope (weak in PTX, non-atomic in Vulkan).
    if order != Order::NonAtomic && level(model, scope).is_none() {
        return Some(format!(
            "{what} at {} scope: `{name}` has no such scope (PTX: block, cluster, device, system; Vulkan: \
             warp, block, cluster, device, system)",
            scope.name()
        ));
    }
    None
}

/// The model's scope level for `scope` (0 subgroup, 1 CTA / workgroup,
/// 2 GPU / queue family, 3 system / device). Cluster becomes the block's
/// level: narrower than real, so a program passes only if it would with
/// block scope (an over-approximation of behaviours, never an under-one).
fn level(model: MemoryModel, scope: Scope) -> Option<u8> {
    match (model, scope) {
        (_, Scope::Thread) => None,
        (MemoryModel::Ptx75, Scope::Warp) => None,
        (_, Scope::Warp) => Some(0),
        (_, Scope::Block | Scope::Cluster) => Some(1),
        (MemoryModel::Ptx75, Scope::Device) => Some(2),
        (_, Scope::Device) => Some(3),
        (_, Scope::System) => Some(3),
    }
}

/// The attributes of a block barrier (`sync_threads`: the only barrier
/// [`refusal`] lets run) whose meeting is `id`: PTX's `bar.cta.sync id`
/// (weak, CTA scope, as the litmus front end reads it); Vulkan's
/// `cbar.acq_rel.wg.semsc0.semav.semvis id`, SPIR-V's `OpControlBarrier`
/// at workgroup scope with AcquireRelease, MakeAvailable and MakeVisible
/// semantics over the one storage class, so that plain data written
/// before it is visible after it, as `__syncthreads()` means.
fn barrier_op(model: MemoryModel, id: i64) -> GpuOp {
    let mut op = GpuOp {
        kind: GpuKind::Barrier {
            id: Some(id),
            quorum: None,
            arrive: false,
        },
        order: GpuOrder::Weak,
        scope: Some(1),
        ..GpuOp::default()
    };
    if model == MemoryModel::Vulkan {
        op.order = GpuOrder::AcqRel;
        op.semsc = 1;
        op.semav = true;
        op.semvis = true;
        op.nonpriv = true;
    }
    op
}

/// The attributes of event `e` (`None` for events the model does not judge).
fn op_of(model: MemoryModel, e: &Event) -> Option<GpuOp> {
    let (order, is_load, is_store, rmw) = match &e.kind {
        EventKind::Read(r) => (r.order, true, false, r.is_exclusive()),
        EventKind::Write(w) => (w.order, false, true, w.rmw),
        EventKind::Fence { order } => (*order, false, false, false),
        _ => return None,
    };
    let fence = !is_load && !is_store;
    let gpu_order = match order {
        Order::NonAtomic => GpuOrder::Weak,
        Order::Relaxed => GpuOrder::Relaxed,
        Order::Acquire => GpuOrder::Acquire,
        Order::Release => GpuOrder::Release,
        // A fence only (accesses are refused): PTX's fence.sc.
        Order::SeqCst => GpuOrder::Sc,
        // A fence is fence.acq_rel; an RMW's parts keep their half (Nodes::of).
        Order::AcqRel => GpuOrder::AcqRel,
    };
    let atomic = order != Order::NonAtomic;
    let mut op = GpuOp {
        kind: if fence { GpuKind::Fence } else { GpuKind::Access },
        order: gpu_order,
        atomic,
        scope: if atomic { level(model, e.scope) } else { None },
        ..GpuOp::default()
    };
    if model == MemoryModel::Vulkan {
        // Every location is in storage class 0; semantics cover it. Shim
        // memory is coherent memory shared by every thread: every access is
        // non-private (SPIR-V's NonPrivatePointer), a release makes the
        // thread's writes available (MakeAvailable) and an acquire makes
        // them visible (MakeVisible), as libcu++-style code means.
        op.sc = u8::from(!fence);
        op.semsc = u8::from(gpu_order.acquire() || gpu_order.release());
        op.semav = gpu_order.release();
        op.semvis = gpu_order.acquire();
        op.nonpriv = true;
        // Atomics are implicitly available (stores) and visible (loads).
        op.av = atomic && (is_store || rmw);
        op.vis = atomic && (is_load || rmw);
    }
    Some(op)
}

/// The side table of complete graph `g` under hardware model `model`.
pub fn env_of(g: &ExecutionGraph, model: MemoryModel) -> GpuEnv {
    let mut env = GpuEnv::default();
    let mut meetings: std::collections::HashMap<(BarrierGroup, u32), i64> = std::collections::HashMap::new();
    for t in 0..g.num_threads() as ThreadId {
        let place = match g.placement(t).gpu {
            // PTX has no subgroup level: the thread's own index keeps it apart.
            Some(p) if model == MemoryModel::Ptx75 => [t, p.block, p.device],
            Some(p) => [p.warp, p.block, p.device],
            // Host threads make no judged access (refused); a place of their own.
            None => [u32::MAX - t, u32::MAX - t, u32::MAX - t],
        };
        env.places.insert(t, place);
        for (i, e) in g.thread_events(t).iter().enumerate() {
            let op = match &e.kind {
                // The threads' k-th barriers of one block meet: one id per
                // (block of a launch, k), so barriers of other launches or
                // blocks never meet them.
                EventKind::Barrier { group, instance, .. } => {
                    let next = meetings.len() as i64;
                    Some(barrier_op(model, *meetings.entry((*group, *instance)).or_insert(next)))
                }
                _ => op_of(model, e),
            };
            if let Some(op) = op {
                env.by_event.insert(EventId::new(t, i as u32), op);
            }
        }
    }
    env
}

/// Whether complete graph `g` is an execution `model` allows: `Ok` with
/// its racing pairs (Vulkan's `dr`; PTX defines none), `Err` naming the
/// violated axiom of the cat file.
pub fn judge(g: &ExecutionGraph, model: MemoryModel) -> Result<Vec<(EventId, EventId)>, String> {
    let env = env_of(g, model);
    match model {
        MemoryModel::Ptx75 => ptx::check(g, &env, ptx::PtxVersion::V75)
            .map(|()| Vec::new())
            .map_err(|a| format!("{a:?}")),
        // One graph per execution: orders of writes the model never reads
        // apart would count one execution several times.
        MemoryModel::Vulkan => match vulkan::check_counted(g, &env, true) {
            Some(judged) => judged.map_err(|a| format!("{a:?}")),
            None => Err("a modification order that differs only where vulkan.cat reads none (counted once)".into()),
        },
        _ => Ok(Vec::new()),
    }
}
