//! Barriers: which instance of a group's barrier a thread is at, who has
//! arrived there, and the two barrier-divergence reports (threads that meet
//! at different barriers; threads stuck at a barrier the rest of their group
//! never reaches). Apart because barrier matching is GPU work-group logic
//! that both the scheduler and the barrier operation need.

use super::{Engine, Stop, ThreadStatus};
use crate::event::*;
use crate::failure::{Failure, FailureKind};

impl Engine {
    pub(super) fn barrier_instance(&self, t: ThreadId, group: BarrierGroup) -> u32 {
        (0..self.graph.thread_len(t))
            .filter(|&i| {
                matches!(&self.graph.event(EventId::new(t, i)).kind, EventKind::Barrier { group: g, .. } if *g == group)
            })
            .count() as u32
    }

    /// The members of `group` that have arrived at its `instance`-th barrier:
    /// (thread, its last event before the barrier, where the barrier is,
    /// the spaces it fences). A member has arrived if it passed that
    /// barrier already or waits at it.
    pub(super) fn barrier_arrivals(
        &self,
        group: BarrierGroup,
        instance: u32,
        status: &[ThreadStatus],
    ) -> Vec<(ThreadId, EventId, SourceLoc, FenceSpace)> {
        let mut out = Vec::new();
        for u in 0..self.graph.num_threads() as ThreadId {
            let n = self.graph.thread_len(u);
            let mut seen = 0;
            let mut passed = None;
            for i in 0..n {
                let e = self.graph.event(EventId::new(u, i));
                if let EventKind::Barrier { group: g, fence, .. } = &e.kind {
                    if *g != group {
                        continue;
                    }
                    if seen == instance {
                        passed = Some((EventId::new(u, i - 1), e.src, *fence));
                        break;
                    }
                    seen += 1;
                }
            }
            if let Some((pre, at, fence)) = passed {
                out.push((u, pre, at, fence));
            } else if n > 0 && seen == instance {
                if let Some(ThreadStatus::Op(Op::Barrier { group: g, fence, .. }, at)) = status.get(u as usize) {
                    if *g == group {
                        out.push((u, EventId::new(u, n - 1), *at, *fence));
                    }
                }
            }
        }
        out
    }

    /// Barrier divergence at a barrier operation: every member must have
    /// reached the same barrier (the same line of code, fencing the same
    /// spaces); meeting at different ones is divergence.
    pub(super) fn check_same_barrier(
        &self,
        t: ThreadId,
        group: BarrierGroup,
        arrived: &[(ThreadId, EventId, SourceLoc, FenceSpace)],
        src: SourceLoc,
    ) -> Result<(), Stop> {
        let mut places: Vec<(SourceLoc, FenceSpace)> = arrived.iter().map(|a| (a.2, a.3)).collect();
        places.sort_by_key(|(at, f)| (*at, f.name()));
        places.dedup();
        if places.len() > 1 {
            let who: Vec<String> = arrived
                .iter()
                .map(|(u, _, at, f)| {
                    format!(
                        "thread {u} ({}) at {at} (fencing {f} memory)",
                        self.graph.placement(*u).describe()
                    )
                })
                .collect();
            let mut f = self.failure(
                FailureKind::BarrierDivergence,
                format!(
                    "barrier divergence in {group}: its threads meet at different barriers: {}",
                    who.join("; ")
                ),
                Some(t),
                vec![],
                Some(src),
            );
            f.fix = Some(
                "every thread of the group must reach the same barrier call the same number of times; \
                 move the barrier out of the divergent branch"
                    .into(),
            );
            return Err(Stop::Failure(f));
        }
        Ok(())
    }

    /// Barrier divergence found when no thread can run: threads stuck at a
    /// barrier that the rest of their group never reaches, a failure of its
    /// own (not a deadlock). `None` when no thread waits at a barrier.
    pub(super) fn stuck_at_barrier(&self, status: &[ThreadStatus]) -> Option<Box<Failure>> {
        let (t, group, size, at) = status.iter().enumerate().find_map(|(t, st)| match st {
            ThreadStatus::Op(Op::Barrier { group, size, .. }, src) => Some((t as ThreadId, *group, *size, *src)),
            _ => None,
        })?;
        let instance = self.barrier_instance(t, group);
        let arrived = self.barrier_arrivals(group, instance, status);
        let members: Vec<String> = arrived.iter().map(|(u, ..)| format!("thread {u}")).collect();
        let mut others = Vec::new();
        for (u, st) in status.iter().enumerate() {
            if arrived.iter().any(|a| a.0 as usize == u) || self.graph.thread_len(u as ThreadId) == 0 {
                continue;
            }
            match st {
                ThreadStatus::Gone => others.push(format!("thread {u} finished")),
                ThreadStatus::Op(Op::Barrier { group: g, .. }, src) => {
                    others.push(format!("thread {u} waits at {src} at the barrier of {g}"))
                }
                ThreadStatus::Op(op, src) => others.push(format!("thread {u} waits at {src} ({op:?})")),
                _ => others.push(format!("thread {u} waits")),
            }
        }
        let mut f = self.failure(
            FailureKind::BarrierDivergence,
            format!(
                "barrier divergence in {group}: {} of its {size} threads ({}) wait at the barrier at {at} that \
                 the others never reach{}{}",
                arrived.len(),
                members.join(", "),
                if others.is_empty() { "" } else { "; " },
                others.join("; ")
            ),
            Some(t),
            vec![],
            Some(at),
        );
        f.fix = Some(
            "every thread of the group must reach each barrier: do not return early or branch around a \
             barrier on a condition that differs between threads"
                .into(),
        );
        Some(f)
    }
}
