//! A scripted program for the driver's and the engine's tests: threads
//! that run fixed sequences of loads, stores, read-modify-writes and fences
//! through the engine's one door for operations (`Engine::perform`), one
//! execution at a time, without coroutines: each thread is its script and
//! the index of its next action, and the program carries out the engine's
//! `Step`s as the runtime does. What each load (and each RMW) read is the
//! execution's outcome, under the key `T<thread>.<action>`.

use super::{Executed, Program};
use crate::engine::{Engine, Resume, Step, Stop};
use crate::event::{Loc, LocKind, Op, OpResult, Order, Placement, RmwOp, Scope, SourceLoc, ThreadId, ValueType};
use crate::ids::Value;
use crate::outcome::Outcome;
use crate::sched::ExecutionEnd;
use crate::space::Space;

/// One action of a scripted thread; locations are numbered from 0.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Act {
    Load(usize, Order),
    Store(usize, Value, Order),
    FetchAdd(usize, Value, Order),
    Fence(Order),
}

/// A program of `locs` locations (all 0 at first) whose main thread spawns
/// one thread per script, then joins them in order.
pub(crate) struct Scripted {
    pub(crate) locs: usize,
    pub(crate) threads: Vec<Vec<Act>>,
}

/// One execution's progress.
struct Run {
    locs: Vec<Loc>,
    /// Per thread (the main one first), the index of its next action (the
    /// main thread's: of its next join).
    next: Vec<usize>,
    /// The spawned threads' ids, in script order.
    ids: Vec<ThreadId>,
    outcome: Outcome,
}

/// Where the scripted threads' operations are issued.
fn here() -> SourceLoc {
    SourceLoc::caller()
}

impl Scripted {
    fn op(&self, run: &Run, act: Act) -> Op {
        let scope = Scope::System;
        match act {
            Act::Load(l, order) => Op::Load {
                loc: run.locs[l],
                order,
                scope,
                class: None,
            },
            Act::Store(l, value, order) => Op::Store {
                loc: run.locs[l],
                order,
                value,
                scope,
                class: None,
            },
            Act::FetchAdd(l, v, order) => Op::Rmw {
                loc: run.locs[l],
                op: RmwOp::Add(v),
                ty: ValueType::U64,
                success: order,
                failure: Order::Relaxed,
                await_: None,
                scope,
                class: None,
            },
            Act::Fence(order) => Op::Fence { order, scope },
        }
    }

    /// Thread `t`'s next operation, `None` at its end: the main thread
    /// joins the others in order.
    fn next_op(&self, run: &Run, t: ThreadId) -> Option<Op> {
        let i = run.next[t as usize];
        if t == 0 {
            return run.ids.get(i).map(|&target| Op::Join { target });
        }
        let script = run.ids.iter().position(|&id| id == t).map(|k| &self.threads[k][..]);
        script.expect("a scripted thread").get(i).map(|&act| self.op(run, act))
    }

    /// Thread `t` got `result` for its current action: records a value
    /// read and moves on.
    fn took(run: &mut Run, t: ThreadId, result: OpResult) {
        if let OpResult::Value(v) = result {
            let key = format!("T{t}.{}", run.next[t as usize]);
            run.outcome.0.insert(key, v.to_string());
        }
        run.next[t as usize] += 1;
    }

    /// Runs thread `t` on from its next action, as a coroutine would: each
    /// operation through `Engine::perform`, on while it answers
    /// `Step::Done`. Returns the step that suspended the thread, `None` when
    /// it finished.
    fn run_thread(&self, engine: &mut Engine, run: &mut Run, t: ThreadId) -> Result<Option<Step>, Stop> {
        loop {
            let Some(op) = self.next_op(run, t) else {
                engine.thread_end(t, here())?;
                return Ok(None);
            };
            match engine.perform(t, &op, here()) {
                Step::Done(a) => Self::took(run, t, a.result),
                Step::Stop(stop) => return Err(stop),
                step => return Ok(Some(step)),
            }
        }
    }

    fn run(&self, engine: &mut Engine, run: &mut Run) -> Result<ExecutionEnd, Stop> {
        let src = here();
        engine.start_main(src);
        let mut main = |op: Op| match engine.perform(0, &op, src) {
            Step::Done(a) => Ok(a.result),
            Step::Stop(stop) => Err(stop),
            step => panic!("the main thread's {op:?} answered {step:?}"),
        };
        for _ in 0..self.locs {
            let alloc = Op::Alloc {
                init: 0,
                kind: LocKind::Atomic,
                space: Space::Global,
                addresses: false,
            };
            match main(alloc)? {
                OpResult::Loc(l) => run.locs.push(l),
                r => panic!("an allocation answered {r:?}"),
            }
        }
        for _ in &self.threads {
            let spawn = Op::Spawn {
                placement: Placement::HOST,
            };
            match main(spawn)? {
                OpResult::Thread(t) => run.ids.push(t),
                r => panic!("a spawn answered {r:?}"),
            }
        }
        let n = run.ids.iter().map(|&t| t as usize + 1).max().unwrap_or(1);
        run.next = vec![0; n];
        // The main thread runs on to its first join; then the spawned
        // threads start, in order, each up to its first wait. The last
        // thread to suspend says what happens next.
        let mut pending = self.run_thread(engine, run, 0)?;
        for t in run.ids.clone() {
            if let Some(step) = self.run_thread(engine, run, t)? {
                pending = Some(step);
            }
        }
        loop {
            let step = match pending.take() {
                Some(Step::Wait) | None => engine.next_turn(),
                Some(step) => step,
            };
            match step {
                Step::Finished => return Ok(ExecutionEnd::Complete),
                Step::Stop(stop) => return Err(stop),
                Step::Switch { to, resume } => {
                    if let Resume::Answer(a) = resume {
                        Self::took(run, to, a.result);
                    }
                    pending = self.run_thread(engine, run, to)?;
                }
                step => panic!("the engine's next turn was {step:?}"),
            }
        }
    }
}

impl Program for Scripted {
    fn execute(&mut self, engine: &mut Engine) -> Option<Executed> {
        let mut run = Run {
            locs: Vec::new(),
            next: Vec::new(),
            ids: Vec::new(),
            outcome: Outcome::default(),
        };
        let (end, failure) = match self.run(engine, &mut run) {
            Ok(end) => (end, None),
            Err(Stop::Moot) => (ExecutionEnd::Blocked, None),
            Err(Stop::Failure(f)) => (ExecutionEnd::Failed, Some(*f)),
            Err(Stop::Cut) => return None,
        };
        Some(Executed {
            end,
            failure,
            failed_midway: false,
            outcome: run.outcome,
        })
    }
}
