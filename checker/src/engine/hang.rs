//! Forward-progress hangs (`crate::progress`): the engine's side, which
//! needs the threads' spin-wait state.

use super::{Engine, ThreadStatus};
use crate::event::{Op, ThreadId};
use crate::failure::{Failure, FailureKind};
use crate::progress::{self, Guarantee, HangInfo, Progress};
use smallvec::SmallVec;

impl Engine {
    /// Applies the progress model at a scheduling point: holds back the
    /// threads an occupancy-bound GPU need not schedule and reports a hang
    /// when the threads left all wait on them; under the unfair model,
    /// reports a thread that spin-waits for a write other threads need never
    /// make. `None` under the fair model.
    pub(super) fn progress_hang(
        &mut self,
        status: &[ThreadStatus],
        enabled: &mut SmallVec<[ThreadId; 16]>,
    ) -> Option<Box<Failure>> {
        match self.progress.model {
            Progress::Fair => None,
            Progress::Unfair | Progress::PerLevel { .. } | Progress::Gpu(_) => {
                for (t, st) in status.iter().enumerate() {
                    if !matches!(st, ThreadStatus::SpinWait) {
                        continue;
                    }
                    let Some(w) = self.threads.get(t).and_then(|r| r.spin_wait.as_ref()) else {
                        continue;
                    };
                    let t = t as ThreadId;
                    if let Some(awaited) = progress::unfair_hang(&self.graph, status, t, &w.read) {
                        // Only a thread the model lets the scheduler starve
                        // next to `t` may stay unscheduled: if one that must
                        // be run could end the wait, it is not a hang (yet).
                        let starvable = |u: ThreadId| self.starvable(t, u);
                        if !awaited.iter().all(|&u| starvable(u)) {
                            continue;
                        }
                        let names: Vec<String> = awaited.iter().map(|u| self.thread_name(*u)).collect();
                        let why = match self.progress.model {
                            Progress::PerLevel { .. } => {
                                let same = awaited.iter().all(|&u| self.same_group(t, u));
                                format!(
                                    "under the {} progress model a work-group's scheduler may keep running the \
                                     spinning thread and never run {} ({})",
                                    self.progress.model,
                                    if awaited.len() == 1 { "it" } else { "them" },
                                    if same {
                                        "work-items of its own work-group"
                                    } else {
                                        "threads outside its work-group"
                                    }
                                )
                            }
                            Progress::Gpu(m) => format!(
                                "under the {m} progress model the scheduler may keep running the spinning thread \
                                 and never run {}",
                                if awaited.len() == 1 { "it" } else { "them" }
                            ),
                            _ => format!(
                                "under the unfair progress model the scheduler may keep running the spinning \
                                 thread and never run {}",
                                if awaited.len() == 1 { "it" } else { "them" }
                            ),
                        };
                        let message = format!(
                            "{} waits for a write that no thread has made yet, and {} could make it; {why}, so it \
                             spins forever",
                            self.waits_on(t, status),
                            names.join(", "),
                        );
                        return Some(self.hang_failure(
                            message,
                            HangInfo {
                                waiting: vec![t],
                                awaited,
                            },
                        ));
                    }
                }
                None
            }
            Progress::OccupancyBound { resident_blocks } => {
                let held = self.progress.gate(&self.graph, status, enabled);
                if !enabled.is_empty() || held.is_empty() {
                    return None;
                }
                let h = self.progress.occupancy_hang(&self.graph, status, &held)?;
                let list = |v: &[u32]| v.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(", ");
                let waits: Vec<String> = h.info.waiting.iter().map(|&t| self.waits_on(t, status)).collect();
                let awaited: Vec<String> = h.info.awaited.iter().map(|&t| self.thread_name(t)).collect();
                let message = format!(
                    "the resident blocks of device {} (block{} {}) cannot go on: {}; only threads of block{} {} ({}) \
                     could still change that, and block{} {} {} never scheduled while {} block{} of the device {} \
                     resident (progress model: {})",
                    h.device,
                    if h.resident.len() == 1 { "" } else { "s" },
                    list(&h.resident),
                    waits.join("; "),
                    if h.unscheduled.len() == 1 { "" } else { "s" },
                    list(&h.unscheduled),
                    awaited.join(", "),
                    if h.unscheduled.len() == 1 { "" } else { "s" },
                    list(&h.unscheduled),
                    if h.unscheduled.len() == 1 { "is" } else { "are" },
                    h.resident.len(),
                    if h.resident.len() == 1 { "" } else { "s" },
                    if h.resident.len() == 1 { "is" } else { "are" },
                    Progress::OccupancyBound { resident_blocks }
                );
                Some(self.hang_failure(message, h.info))
            }
        }
    }

    /// Whether threads `t` and `u` are work-items of one work-group (one
    /// block of one launch); host threads are groups of their own.
    fn same_group(&self, t: ThreadId, u: ThreadId) -> bool {
        match (self.progress.group_of(t), self.progress.group_of(u)) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        }
    }

    /// Whether the progress model lets the scheduler run `t` and never `u`.
    fn starvable(&self, t: ThreadId, u: ThreadId) -> bool {
        if let Progress::Gpu(m) = self.progress.model {
            return crate::progress_model::starvable(&self.progress, &self.graph, m, t, u);
        }
        self.progress.model.between(self.same_group(t, u)) == Some(Guarantee::Weak)
    }

    /// A thread's name in a hang report: `thread 3 (block 2)` for a kernel thread.
    fn thread_name(&self, t: ThreadId) -> String {
        match self.progress.block_of(t) {
            Some(b) => format!("thread {t} (block {b})"),
            None => format!("thread {t}"),
        }
    }

    /// What thread `t` waits for, in words.
    fn waits_on(&self, t: ThreadId, status: &[ThreadStatus]) -> String {
        let who = self.thread_name(t);
        match status.get(t as usize) {
            Some(ThreadStatus::SpinWait) => match self.threads.get(t as usize).and_then(|r| r.spin_wait.as_ref()) {
                Some(w) => {
                    let locs: Vec<String> = w.read.iter().map(|(l, _)| l.to_string()).collect();
                    let locs = locs.join(", ");
                    // Where it waits and on what, when the wait says so
                    // (a barrier, latch or semaphore of the shim).
                    match (w.at.on, w.at.src) {
                        (Some(on), Some(src)) => format!("{who} waits at {src} on {on} ({locs})"),
                        (Some(on), None) => format!("{who} waits on {on} ({locs})"),
                        (None, _) => format!("{who} spins on {locs}"),
                    }
                }
                None => format!("{who} spins"),
            },
            Some(ThreadStatus::Op(Op::Join { target }, src)) => format!("{who} waits at {src} to join thread {target}"),
            Some(ThreadStatus::Op(Op::Barrier { group, .. }, src)) => {
                format!("{who} waits at the barrier of {group} at {src}")
            }
            Some(ThreadStatus::Op(Op::Rmw { loc, .. }, src)) => format!("{who} waits at {src} to lock the mutex {loc}"),
            Some(ThreadStatus::Op(op, src)) => format!("{who} waits at {src} ({op:?})"),
            _ => format!("{who} waits"),
        }
    }

    fn hang_failure(&self, message: String, info: HangInfo) -> Box<Failure> {
        let mut f = self.failure(FailureKind::Hang, message, info.waiting.first().copied(), vec![], None);
        f.fix = match self.progress.model {
            Progress::PerLevel { .. } => Some(
                "do not make a work-item spin on a write that a work-item the progress model need not schedule \
                 beside it must make: synchronize work-items of one work-group with a group barrier, and do not \
                 make work-groups wait for each other (split the kernel in two launches, or use device-scope \
                 atomics without waiting)"
                    .into(),
            ),
            Progress::Unfair => Some(
                "do not spin on another thread's write under an unfair scheduler: wait with a \
                                 blocking primitive (a barrier, a join, a mutex), or run where threads are scheduled \
                                 fairly"
                    .into(),
            ),
            Progress::OccupancyBound { resident_blocks } => Some(format!(
                "launch no more blocks than can be resident at once ({resident_blocks} here; a cooperative launch, \
                 which `sync_grid` needs, refuses larger grids), or do not make a block wait for a block dispatched \
                 after it (a higher index), which need not have started"
            )),
            Progress::Gpu(m) => Some(format!(
                "under {m} a work-group (or work-item) need not run while another spins: do not make a block wait \
                 for a block the model need not schedule (hsa: a higher index; obe: one that may not have started; \
                 lobe: a higher index not started), nor a thread for such a thread of its own block"
            )),
            // Fair progress reports no hangs (a wait nobody ends is a deadlock).
            Progress::Fair => None,
        };
        f.hang = Some(info);
        f
    }
}
