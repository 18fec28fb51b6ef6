//! The one door from the runtime to the engine for operations:
//! [`Engine::perform`] takes one operation of one thread and says what the
//! thread does next ([`Step`]): go on with the answer, wait for the
//! runtime to start new threads, switch to another thread (which resumes
//! with the answer to its own pending operation), or stop. The runtime's
//! scheduler loop asks [`Engine::next_turn`] the same question when no
//! thread is running (one suspended at a spin hint, finished or gave up).
//!
//! The two speed tricks of the operation path live here, behind the door:
//! - while the thread replays the kept graph and its next kept event is
//!   ready, it performs the operation on the spot (`replay_inline`: no
//!   scheduling decision, no switch);
//! - past it, the scheduling decision is taken on the caller's stack, and
//!   when the engine picks the calling thread itself, it performs the
//!   operation and the thread runs on ([`Step::Done`]): that spares the two
//!   coroutine switches of a trip through the runtime for every operation
//!   whose thread keeps running.
//!
//! The engine keeps every thread's status ([`ThreadStatus`]) itself: an
//! operation a thread waits at is recorded here, so the runtime hands
//! nothing but the operation.

use super::{Engine, Resume, Sched, Step, Stop};
use crate::event::{Answer, EventId, Op, OpResult, SourceLoc, ThreadId};
use crate::sched::ThreadStatus;

impl Engine {
    /// Performs `op` for thread `t` (issued at `src`, the user's line) and
    /// says what `t` does next. An operation that involves no choice
    /// (allocation, fence, cell access, spawn, observation) is always
    /// [`Step::Done`] or [`Step::Stop`]; a visible one (load, store, RMW,
    /// join, barrier) may also make `t` wait ([`Step::Wait`],
    /// [`Step::Switch`]): it then waits at `op` until the engine chooses it
    /// and performs `op` for it (its answer comes back in the
    /// [`Step::Switch`] that resumes it).
    ///
    /// The operation carries everything the events take (scope, DRFrlx
    /// class), and the answer names the read event of a load or an RMW.
    #[inline]
    pub fn perform(&mut self, t: ThreadId, op: &Op, src: SourceLoc) -> Step {
        if !op.is_visible() {
            return match self.invisible(t, op, src) {
                Ok(result) => Step::Done(Answer { result, read: None }),
                Err(stop) => Step::Stop(stop),
            };
        }
        // While the thread replays the kept graph and its event is ready,
        // it runs on without a scheduling decision.
        let at = self.cursor(t);
        if let Some(r) = self.replay_inline(t, op, src) {
            return match r {
                Ok(result) => Step::Done(answer(t, at, op, result)),
                Err(stop) => Step::Stop(stop),
            };
        }
        self.wait_at(t, op, src);
        if self.starting > 0 {
            // Threads spawned since the last decision have no status yet.
            return Step::Wait;
        }
        self.turn(Some(t))
    }

    /// Whom the runtime runs next, when no thread runs (the last one
    /// suspended at a spin hint, finished or gave up the execution, or the
    /// runtime just started new threads): [`Step::Switch`] to a thread
    /// (whose pending operation the engine has performed, or which it woke
    /// from a spin wait), [`Step::Finished`] or [`Step::Stop`].
    pub fn next_turn(&mut self) -> Step {
        self.turn(None)
    }

    /// What each thread waits for.
    pub fn status(&self) -> &[ThreadStatus] {
        &self.status
    }

    /// Whether every thread but `me` has finished: none is running, waiting
    /// or still to be started (a thread starting has no status yet).
    pub fn others_finished(&self, me: ThreadId) -> bool {
        let me_starting = self.threads.get(me as usize).is_some_and(|r| r.starting);
        self.starting == me_starting as u32
            && self
                .status
                .iter()
                .enumerate()
                .all(|(u, st)| u == me as usize || matches!(st, ThreadStatus::Gone))
    }

    /// Sets thread `t`'s status, for what the runtime sees of a thread and
    /// the engine does not: it waits at a spin hint
    /// ([`ThreadStatus::SpinWait`], once [`Engine::spin_at`] or
    /// [`Engine::yield_hint`] said it must) or gave up the execution
    /// ([`ThreadStatus::Discarded`]); or it ended without reaching its end
    /// ([`ThreadStatus::Gone`]).
    #[inline]
    pub fn set_status(&mut self, t: ThreadId, st: ThreadStatus) {
        let i = t as usize;
        if self.status.len() <= i {
            self.status.resize_with(i + 1, || ThreadStatus::Gone);
        }
        self.status[i] = st;
        // Its first status: it is no longer starting.
        if let Some(r) = self.threads.get_mut(i) {
            if std::mem::take(&mut r.starting) {
                self.starting -= 1;
            }
        }
    }

    /// Thread `child` was spawned: it has no status until the runtime has
    /// run it to its first step.
    #[inline]
    pub(super) fn spawned(&mut self, child: ThreadId) {
        let i = child as usize;
        // (Children come in order: the table grows by one.)
        if self.status.len() == i {
            self.status.push(ThreadStatus::Gone);
        } else if self.status.len() < i {
            self.status.resize_with(i + 1, || ThreadStatus::Gone);
        }
        if let Some(r) = self.threads.get_mut(i) {
            if !r.starting {
                r.starting = true;
                self.starting += 1;
            }
        }
    }

    /// Records that thread `t` waits at `op`.
    #[inline]
    fn wait_at(&mut self, t: ThreadId, op: &Op, src: SourceLoc) {
        // Field by field when the thread already waits at an operation (the
        // common case): a whole new status is built on the stack and copied
        // in with loads that straddle the stores that built it, which stall.
        match self.status.get_mut(t as usize) {
            Some(ThreadStatus::Op(o, at)) => {
                *o = op.clone();
                *at = src;
            }
            _ => self.set_status(t, ThreadStatus::Op(op.clone(), src)),
        }
    }

    /// Chooses threads until one can go on: the caller `me` itself
    /// ([`Step::Done`]), another one ([`Step::Switch`]), or none.
    #[inline]
    fn turn(&mut self, me: Option<ThreadId>) -> Step {
        // Lent out for the decision: nothing in it changes a status.
        let status = std::mem::take(&mut self.status);
        let step = self.turn_with(me, &status);
        self.status = status;
        step
    }

    #[inline]
    fn turn_with(&mut self, me: Option<ThreadId>, status: &[ThreadStatus]) -> Step {
        loop {
            let u = match self.schedule_with(status) {
                Sched::Run(u) => u,
                Sched::Done => return Step::Finished,
                Sched::Blocked => return Step::Stop(Stop::Moot),
                Sched::Deadlock(f) => return Step::Stop(Stop::Failure(f)),
            };
            let resume = match &status[u as usize] {
                ThreadStatus::SpinWait => {
                    self.wake(u);
                    Resume::Go
                }
                ThreadStatus::Op(op, src) => {
                    let at = self.cursor(u);
                    match self.visible(u, op, *src, status) {
                        Ok(Some(result)) => Resume::Answer(answer(u, at, op, result)),
                        // It waits on (a mutex it cannot take yet): choose again.
                        Ok(None) => continue,
                        Err(stop) => return Step::Stop(stop),
                    }
                }
                ThreadStatus::Gone | ThreadStatus::Discarded => {
                    let f = self.failure(
                        crate::failure::FailureKind::Internal,
                        format!("the scheduler chose thread {u}, which cannot run (an error in scopecheck)"),
                        Some(u),
                        vec![],
                        None,
                    );
                    return Step::Stop(Stop::Failure(f));
                }
            };
            return match resume {
                Resume::Answer(a) if me == Some(u) => Step::Done(a),
                resume => Step::Switch { to: u, resume },
            };
        }
    }
}

/// The answer to `op`, performed by thread `t` from event index `at`: a
/// load's or an RMW's first event is its read.
#[inline]
fn answer(t: ThreadId, at: u32, op: &Op, result: OpResult) -> Answer {
    Answer {
        result,
        read: op.reads().then(|| EventId::new(t, at)),
    }
}
