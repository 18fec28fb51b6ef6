//! The GPU progress models of Sorensen et al. (OOPSLA 2021) for Rust
//! kernels (`Progress::Gpu`), with the rules Dat3M encodes and the litmus
//! front end's `--progress` uses (docs/gpu-api.md, docs/gpu-models.md §6),
//! applied at two levels: between the blocks (work-groups) of the
//! kernels, ordered by launch then block index, and between the threads of
//! one block, ordered by thread id. Host threads are always scheduled.
//!
//! The engine asks one question (`Engine::progress_hang`): thread `t` spins
//! forever waiting for a write only `u` could make; may the model leave `u`
//! unscheduled while `t` spins? At each level, with `t`'s group (or `t`)
//! known to be running:
//! - `Hsa`: only the lowest-id group that can run is guaranteed: `u` may
//!   starve when it comes after `t`.
//! - `Obe`: a started group is scheduled fairly, one not started need never
//!   start: `u` may starve when it has not started.
//! - `Lobe`: a started group and every one before it are scheduled: `u` may
//!   starve when neither it nor any group after it has started.
//! - `HsaObe`: both guarantees: `u` may starve only when both allow it.
//!
//! A group or thread has started once it has a visible event (an access, a
//! barrier, a join) in the state where `t` waits: the porf prefix of `t`'s
//! last event, the state `progress::unfair_hang` judges the wait in (events
//! of the graph outside it may come later in the schedule).

use crate::event::{EventId, EventKind, ThreadId};
pub use crate::gpu_progress::GpuProgress;
use crate::graph::ExecutionGraph;
use crate::progress::ProgressState;

/// Whether thread `u` has a visible event among its first `n` in `g`.
fn thread_started(g: &ExecutionGraph, u: ThreadId, n: u32) -> bool {
    let evs = g.thread_events(u);
    evs[..(n as usize).min(evs.len())].iter().any(|e| {
        matches!(
            e.kind,
            EventKind::Read(_) | EventKind::Write(_) | EventKind::Barrier { .. } | EventKind::Join { .. }
        )
    })
}

/// One level's rule: `t`'s group runs; may `u`'s (ids ordered), given
/// whether `u`'s has started and whether one after it has?
fn level(model: GpuProgress, t: (usize, u32), u: (usize, u32), started_u: bool, later_started: bool) -> bool {
    let hsa = u > t;
    let obe = !started_u;
    match model {
        GpuProgress::Hsa => hsa,
        GpuProgress::Obe => obe,
        GpuProgress::Lobe => !started_u && !later_started,
        GpuProgress::HsaObe => hsa && obe,
    }
}

/// Whether, under `model`, the scheduler may keep running the spinning
/// thread `t` and never run `u` (see the module's rules).
pub fn starvable(state: &ProgressState, g: &ExecutionGraph, model: GpuProgress, t: ThreadId, u: ThreadId) -> bool {
    let (Some(bt), Some(bu)) = (state.group_of(t), state.group_of(u)) else {
        // Host threads are scheduled fairly.
        return false;
    };
    let n = g.thread_len(t);
    if n == 0 {
        return false;
    }
    let prefix = g.porf(EventId::new(t, n - 1));
    let thread_started = |g: &ExecutionGraph, x: ThreadId| thread_started(g, x, prefix.get(x));
    if bt != bu {
        let blocks = state.blocks();
        let started = |b: (usize, u32)| {
            blocks
                .iter()
                .find(|(k, i, _)| (*k, *i) == b)
                .is_some_and(|(_, _, ts)| ts.iter().any(|&x| thread_started(g, x)))
        };
        let later = blocks
            .iter()
            .any(|(k, i, ts)| (*k, *i) > bu && ts.iter().any(|&x| thread_started(g, x)));
        return level(model, bt, bu, started(bu), later);
    }
    let members = state
        .blocks()
        .into_iter()
        .find(|(k, i, _)| (*k, *i) == bu)
        .map(|(_, _, ts)| ts.to_vec())
        .unwrap_or_default();
    let later = members.iter().any(|&x| x > u && thread_started(g, x));
    level(model, (0, t), (0, u), thread_started(g, u), later)
}
