//! A scripted program for the driver's and the engine's tests: threads
//! that run fixed sequences of loads, stores, read-modify-writes and fences
//! through the engine's operation API, one execution at a time, without
//! coroutines. What each load (and each RMW) read is the execution's
//! outcome, under the key `T<thread>.<step>`.

use super::{Executed, Program};
use crate::engine::{Engine, Sched, Stop};
use crate::event::{Loc, LocKind, Op, OpResult, Order, Placement, RmwOp, Scope, SourceLoc, ThreadId, ValueType};
use crate::ids::Value;
use crate::outcome::Outcome;
use crate::sched::{ExecutionEnd, ThreadStatus};
use crate::space::Space;

/// One step of a scripted thread; locations are numbered from 0.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Step {
    Load(usize, Order),
    Store(usize, Value, Order),
    FetchAdd(usize, Value, Order),
    Fence(Order),
}

/// A program of `locs` locations (all 0 at first) whose main thread spawns
/// one thread per script, then joins them in order.
pub(crate) struct Scripted {
    pub(crate) locs: usize,
    pub(crate) threads: Vec<Vec<Step>>,
}

/// One execution's progress.
struct Run {
    locs: Vec<Loc>,
    /// Per thread (the main one first), the index of its next step.
    next: Vec<usize>,
    /// The spawned threads' ids, in script order.
    ids: Vec<ThreadId>,
    status: Vec<ThreadStatus>,
    outcome: Outcome,
}

impl Scripted {
    fn op(&self, run: &Run, step: Step) -> Op {
        let scope = Scope::System;
        match step {
            Step::Load(l, order) => Op::Load {
                loc: run.locs[l],
                order,
                scope,
            },
            Step::Store(l, value, order) => Op::Store {
                loc: run.locs[l],
                order,
                value,
                scope,
            },
            Step::FetchAdd(l, v, order) => Op::Rmw {
                loc: run.locs[l],
                op: RmwOp::Add(v),
                ty: ValueType::U64,
                success: order,
                failure: Order::Relaxed,
                await_: None,
                scope,
            },
            Step::Fence(order) => Op::Fence { order, scope },
        }
    }

    /// Thread `t`'s script (the main thread's is its joins, answered apart).
    fn script(&self, run: &Run, t: ThreadId) -> Option<&[Step]> {
        run.ids.iter().position(|&id| id == t).map(|i| &self.threads[i][..])
    }

    /// Runs thread `t` on from its next step through its fences to its next
    /// load, store or RMW (its status), or to its end.
    fn advance(&self, engine: &mut Engine, run: &mut Run, t: ThreadId, src: SourceLoc) -> Result<(), Stop> {
        let i = t as usize;
        if t == 0 {
            run.status[i] = match run.ids.get(run.next[i]) {
                Some(&target) => ThreadStatus::Op(Op::Join { target }, src),
                None => {
                    engine.thread_end(t, src)?;
                    ThreadStatus::Gone
                }
            };
            return Ok(());
        }
        let script = self.script(run, t).expect("a scripted thread");
        loop {
            match script.get(run.next[i]).copied() {
                Some(Step::Fence(order)) => {
                    let op = self.op(run, Step::Fence(order));
                    engine.invisible(t, &op, src)?;
                    run.next[i] += 1;
                }
                Some(step) => {
                    run.status[i] = ThreadStatus::Op(self.op(run, step), src);
                    return Ok(());
                }
                None => {
                    run.status[i] = ThreadStatus::Gone;
                    return engine.thread_end(t, src);
                }
            }
        }
    }

    fn run(&self, engine: &mut Engine, run: &mut Run) -> Result<ExecutionEnd, Stop> {
        let src = SourceLoc::caller();
        engine.start_main(src);
        for _ in 0..self.locs {
            let alloc = Op::Alloc {
                init: 0,
                kind: LocKind::Atomic,
                space: Space::Global,
                addresses: false,
            };
            match engine.invisible(0, &alloc, src)? {
                OpResult::Loc(l) => run.locs.push(l),
                r => panic!("an allocation answered {r:?}"),
            }
        }
        for _ in &self.threads {
            let spawn = Op::Spawn {
                placement: Placement::HOST,
            };
            match engine.invisible(0, &spawn, src)? {
                OpResult::Thread(t) => run.ids.push(t),
                r => panic!("a spawn answered {r:?}"),
            }
        }
        let n = run.ids.iter().map(|&t| t as usize + 1).max().unwrap_or(1);
        run.next = vec![0; n];
        run.status = vec![ThreadStatus::Gone; n];
        self.advance(engine, run, 0, src)?;
        for t in run.ids.clone() {
            self.advance(engine, run, t, src)?;
        }
        loop {
            let t = match engine.schedule(&run.status) {
                Sched::Run(t) => t,
                Sched::Done => return Ok(ExecutionEnd::Complete),
                Sched::Blocked => return Err(Stop::Moot),
                Sched::Deadlock(f) => return Err(Stop::Failure(f)),
            };
            let ThreadStatus::Op(op, at) = run.status[t as usize].clone() else {
                panic!("scheduled thread {t}, which waits at no operation");
            };
            let Some(r) = engine.visible(t, &op, at, &run.status)? else {
                continue;
            };
            if let OpResult::Value(v) = r {
                let key = format!("T{t}.{}", run.next[t as usize]);
                run.outcome.0.insert(key, v.to_string());
            }
            run.next[t as usize] += 1;
            self.advance(engine, run, t, src)?;
        }
    }
}

impl Program for Scripted {
    fn execute(&mut self, engine: &mut Engine) -> Option<Executed> {
        let mut run = Run {
            locs: Vec::new(),
            next: Vec::new(),
            ids: Vec::new(),
            status: Vec::new(),
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
