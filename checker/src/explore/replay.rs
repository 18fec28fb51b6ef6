//! Replay: one execution, every choice taken from a token, every step
//! checked against it.
//!
//! The program may have changed since the token was printed. Replay then
//! must not invent anything: it runs only threads the engine says can run,
//! takes only choices the engine offers, and checks each visible step
//! against the token (thread, position in the thread, operation kind,
//! location, the thread joined). At the first step that differs, or the
//! first recorded choice the program no longer offers, it stops: the
//! execution is abandoned (neither a failure nor a pass of the program) and
//! [`Strategy::divergence`] says where, in the program's terms.

use super::Strategy;
use crate::event::{EventId, EventKind, Loc, Op, SourceLoc, ThreadId};
use crate::graph::ExecutionGraph;
use crate::model::MemoryModel;
use crate::sched::{ExecutionEnd, RfChoice, ThreadStatus};
use crate::token::{Record, Token};
use std::collections::HashMap;

/// Replays the execution a token describes.
pub struct Replay {
    token: Token,
    /// The record of each recorded event.
    at: HashMap<EventId, usize>,
    /// Per thread, its records in program order, RMW write parts left out
    /// (they come with their read part), and how many of them are done
    /// (advanced lazily): what the thread must do next. (A map: a token's
    /// thread numbers are not trusted to be small.)
    per_thread: HashMap<ThreadId, (Vec<usize>, usize)>,
    /// The first record, in token order, that may not be done yet.
    next: usize,
    started: bool,
    /// Where the program left the token, once it has.
    divergence: Option<String>,
}

impl Replay {
    /// Replays `token`.
    pub fn new(token: Token) -> Replay {
        let mut at = HashMap::with_capacity(token.records.len());
        let mut per_thread: HashMap<ThreadId, (Vec<usize>, usize)> = HashMap::new();
        for (i, r) in token.records.iter().enumerate() {
            let e = r.event();
            at.insert(e, i);
            if matches!(r, Record::Write { rmw: true, .. }) {
                continue;
            }
            per_thread.entry(e.thread).or_default().0.push(i);
        }
        // Program order within each thread (a token lists steps in a
        // po-compatible order already; sorting makes a hand-made one safe).
        for (v, _) in per_thread.values_mut() {
            v.sort_by_key(|&i| token.records[i].event().index);
        }
        Replay {
            token,
            at,
            per_thread,
            next: 0,
            started: false,
            divergence: None,
        }
    }

    fn rank_of(&self, w: EventId) -> Option<u32> {
        match self.at.get(&w).map(|&i| self.token.records[i]) {
            Some(Record::Write { rank, .. }) => Some(rank),
            _ => None,
        }
    }

    /// Whether record `i` has been replayed: the graph holds its event,
    /// and that event is the step recorded (not another one that took its
    /// place, as when the thread made an extra step before it).
    fn is_done(&self, g: &ExecutionGraph, i: usize) -> bool {
        let r = &self.token.records[i];
        let e = r.event();
        if !g.contains(e) {
            return false;
        }
        match (*r, &g.event(e).kind) {
            (Record::Read { loc, rmw, .. }, EventKind::Read(x)) => x.loc == loc && x.rmw.is_some() == rmw,
            (Record::Write { loc, rmw, .. }, EventKind::Write(x)) => x.loc == loc && x.rmw == rmw,
            (Record::Join { target, .. }, EventKind::Join { target: t }) => target == *t,
            (Record::Barrier { .. }, EventKind::Barrier { .. }) => true,
            _ => false,
        }
    }

    /// The record thread `t` must match next (`None`: the token holds no
    /// further step of `t`).
    fn next_of(&mut self, g: &ExecutionGraph, t: ThreadId) -> Option<usize> {
        let (mine, done) = self.per_thread.get(&t)?;
        let mut k = *done;
        while k < mine.len() && self.is_done(g, mine[k]) {
            k += 1;
        }
        let (mine, done) = self.per_thread.get_mut(&t).expect("looked up above");
        *done = k;
        mine.get(k).copied()
    }

    /// Whether the recorded step `r` can be taken now as far as the graph
    /// goes (the write a read reads has been replayed; joins and barriers
    /// are judged by the engine's enabled set).
    fn ready(&self, g: &ExecutionGraph, r: &Record) -> bool {
        match *r {
            Record::Read { rf, .. } => rf.is_init() || self.at.get(&rf).is_some_and(|&k| self.is_done(g, k)),
            _ => true,
        }
    }

    /// Recorded steps replayed so far.
    fn replayed(&self, g: &ExecutionGraph) -> usize {
        (0..self.token.records.len()).filter(|&i| self.is_done(g, i)).count()
    }

    /// The first recorded step not replayed, RMW write parts aside (they
    /// come with their read part).
    fn first_pending(&self, g: &ExecutionGraph) -> Option<usize> {
        (0..self.token.records.len())
            .find(|&i| !matches!(self.token.records[i], Record::Write { rmw: true, .. }) && !self.is_done(g, i))
    }

    /// Records the divergence: `expected` is what the token holds, `found`
    /// what the program did. The step is the first one not replayed.
    fn diverge(&mut self, g: &ExecutionGraph, expected: String, found: String) {
        if self.divergence.is_some() {
            return;
        }
        let step = self.replayed(g) + 1;
        let total = self.token.records.len();
        self.divergence = Some(format!(
            "replay diverged at step {step} (of the token's {total}): the token expected {expected}, but {found}. \
             The program no longer runs the execution the token describes (it changed since the token was \
             printed, or it depends on something the checker does not control); the replay stopped there, so \
             this is neither a failure nor a pass of the program: explore it again without the token"
        ));
    }

    /// Record `i` in the program's terms: `thread 1 to load loc0.1 (created
    /// at src) as event T1.3` (events named as failure reports name them).
    fn describe_record(&self, g: &ExecutionGraph, i: usize) -> String {
        let r = self.token.records[i];
        let e = r.event();
        let what = match r {
            Record::Read { loc, rmw: false, .. } => format!("load {}", loc_text(g, loc)),
            Record::Read { loc, rmw: true, .. } => format!("do a read-modify-write (or lock) on {}", loc_text(g, loc)),
            Record::Write { loc, rmw: false, .. } => format!("store to {}", loc_text(g, loc)),
            Record::Write { loc, rmw: true, .. } => {
                format!("write {} as part of a read-modify-write", loc_text(g, loc))
            }
            Record::Join { target, .. } => format!("join thread {target}"),
            Record::Barrier { .. } => "wait at a GPU barrier".into(),
        };
        format!("thread {} to {what} as event T{}.{}", e.thread, e.thread, e.index)
    }

    /// The write `w` in the program's terms.
    fn describe_write(g: &ExecutionGraph, w: EventId) -> String {
        if w.is_init() {
            "the initial value".into()
        } else if g.contains(w) {
            format!(
                "T{}.{} {} at {}",
                w.thread,
                w.index,
                g.event(w).describe(),
                g.event(w).src
            )
        } else {
            format!("event T{}.{} (which the program has not made)", w.thread, w.index)
        }
    }
}

/// A location in the program's terms: where it was created, when known.
fn loc_text(g: &ExecutionGraph, l: Loc) -> String {
    match g.loc(l) {
        Some(d) => format!("{l} (created at {})", g.event(d.alloc).src),
        None => format!("{l} (not created in this run)"),
    }
}

/// What a thread's pending operation is, in the program's terms.
fn op_text(g: &ExecutionGraph, op: &Op, src: SourceLoc) -> String {
    let what = match *op {
        Op::Load { loc, .. } => format!("load {}", loc_text(g, loc)),
        Op::Store { loc, .. } => format!("store to {}", loc_text(g, loc)),
        Op::Rmw {
            loc, await_: Some(_), ..
        } => format!("lock {}", loc_text(g, loc)),
        Op::Rmw { loc, op, .. } => format!("{} on {}", op.name(), loc_text(g, loc)),
        Op::Join { target } => format!("join thread {target}"),
        Op::Barrier { .. } => "wait at a GPU barrier".into(),
        ref other => format!("{other:?}"),
    };
    format!("{what} at {src}")
}

/// Whether `op` is the step `r` records (kind, location, thread joined).
fn same_step(r: &Record, op: &Op) -> bool {
    match (*r, op) {
        (Record::Read { loc, rmw: false, .. }, Op::Load { loc: l, .. }) => loc == *l,
        (Record::Read { loc, rmw: true, .. }, Op::Rmw { loc: l, .. }) => loc == *l,
        (Record::Write { loc, rmw: false, .. }, Op::Store { loc: l, .. }) => loc == *l,
        (Record::Join { target, .. }, Op::Join { target: t }) => target == *t,
        (Record::Barrier { .. }, Op::Barrier { .. }) => true,
        _ => false,
    }
}

impl Strategy for Replay {
    fn name(&self) -> &'static str {
        "replay"
    }

    fn next_execution(&mut self, graph: &mut ExecutionGraph, _model: MemoryModel) -> bool {
        if self.started {
            return false;
        }
        self.started = true;
        graph.clear();
        // A promised read returns its promised value again (the engine
        // reads the promises off the graph), and the execution counts only
        // if the program keeps each promise (`engine/promised.rs`).
        for &p in &self.token.promises {
            graph.add_promise(p);
        }
        true
    }

    fn schedule(&mut self, g: &ExecutionGraph, enabled: &[ThreadId], status: &[ThreadStatus]) -> Option<ThreadId> {
        if self.divergence.is_some() {
            return None;
        }
        while self.next < self.token.records.len() && self.is_done(g, self.next) {
            self.next += 1;
        }
        let records = &self.token.records;
        // The earliest recorded step, in token order, that is some thread's
        // next one and can be taken now. (Usually the very first pending
        // one: the token's order is one the program can follow.)
        let mut seen: smallvec::SmallVec<[ThreadId; 8]> = smallvec::SmallVec::new();
        let mut first_pending = None;
        for (i, r) in records.iter().enumerate().skip(self.next) {
            let e = r.event();
            if matches!(r, Record::Write { rmw: true, .. }) || self.is_done(g, i) {
                continue;
            }
            if seen.contains(&e.thread) {
                continue;
            }
            seen.push(e.thread);
            first_pending.get_or_insert(i);
            if enabled.contains(&e.thread) && self.ready(g, r) {
                return Some(e.thread);
            }
        }
        // No recorded step can be taken. A thread that can run anyway goes
        // on: its next step is checked (`check_step`, `choose_rf`), so what
        // it does beyond or against the token is caught there.
        if let Some(&t) = enabled.first() {
            return Some(t);
        }
        let Some(i) = first_pending else {
            // The whole token was replayed and nothing can run: the engine
            // reports the end (or the hang) the token led to. Every step the
            // program took must be one of the token's (an RMW that writes
            // where the recorded one failed made a step of its own).
            let extra = (0..g.num_threads() as ThreadId)
                .flat_map(|t| (0..g.thread_len(t)).map(move |k| EventId::new(t, k)))
                .find(|&e| {
                    matches!(
                        g.event(e).kind,
                        EventKind::Read(_) | EventKind::Write(_) | EventKind::Join { .. } | EventKind::Barrier { .. }
                    ) && !self.at.get(&e).is_some_and(|&k| self.is_done(g, k))
                });
            if let Some(e) = extra {
                let found = format!(
                    "thread {} did {} at {}, which the token does not hold",
                    e.thread,
                    g.event(e).describe(),
                    g.event(e).src
                );
                self.diverge(g, "no further step".into(), found);
            }
            return None;
        };
        // Recorded steps remain and no thread can run: the program stopped
        // short of the token (a thread ended early, or waits for something
        // the recorded execution did not wait for).
        let t = records[i].event().thread;
        let found = match status.get(t as usize) {
            _ if g.thread_len(t) == 0 => format!("the program never started thread {t}"),
            Some(ThreadStatus::Op(op, src)) => {
                format!("thread {t} cannot proceed: it waits to {}", op_text(g, op, *src))
            }
            Some(ThreadStatus::SpinWait) => format!("thread {t} spins waiting for a write that never comes"),
            Some(ThreadStatus::Discarded) => format!("thread {t} gave up the execution"),
            Some(ThreadStatus::Gone) | None => format!("thread {t} had finished"),
        };
        let expected = self.describe_record(g, i);
        self.diverge(g, expected, found);
        None
    }

    fn checks_steps(&self) -> bool {
        true
    }

    fn accepts_end(&mut self, g: &ExecutionGraph, end: ExecutionEnd) -> bool {
        if self.divergence.is_some() {
            return false;
        }
        let pending = self.first_pending(g);
        let expected = match pending {
            Some(i) => self.describe_record(g, i),
            None => "the execution to end as recorded".into(),
        };
        match end {
            // A recorded failure ends the execution at the token's last
            // step: the token is the graph at that moment. One that comes
            // while recorded steps remain is not the token's (the program
            // fails earlier than it did).
            ExecutionEnd::Failed if pending.is_none() => return true,
            ExecutionEnd::Failed => self.diverge(
                g,
                expected,
                "the program stopped at a failure before taking that step".into(),
            ),
            // A token records an execution that ended (in a failure); one
            // abandoned on the way is not it.
            ExecutionEnd::Blocked => {
                let promised = if self.token.promises.is_empty() {
                    ""
                } else {
                    ", a promised value the program did not write where the token says"
                };
                self.diverge(
                    g,
                    expected,
                    format!(
                        "the program abandoned the execution there (a spin-loop iteration that saw nothing new, a \
                         step the memory model does not allow{promised}, or a loop past its bound)"
                    ),
                )
            }
            ExecutionEnd::Complete => return true,
        }
        false
    }

    fn check_step(&mut self, g: &ExecutionGraph, t: ThreadId, op: &Op, src: SourceLoc) -> bool {
        if self.divergence.is_some() {
            return false;
        }
        let index = g.thread_len(t);
        let found = |g: &ExecutionGraph| format!("thread {t} went to {} as event T{t}.{index}", op_text(g, op, src));
        match self.next_of(g, t) {
            None => {
                let expected = format!("no further step of thread {t} (the recorded execution stopped there)");
                let found = found(g);
                self.diverge(g, expected, found);
                false
            }
            Some(i) => {
                let r = self.token.records[i];
                if r.event().index == index && same_step(&r, op) {
                    return true;
                }
                let expected = self.describe_record(g, i);
                let found = found(g);
                self.diverge(g, expected, found);
                false
            }
        }
    }

    fn diverged(&self) -> bool {
        self.divergence.is_some()
    }

    fn divergence(&self) -> Option<String> {
        self.divergence.clone()
    }

    fn choose_rf(&mut self, g: &ExecutionGraph, read: EventId, _s: u32, choices: &[RfChoice]) -> usize {
        let rec = self.at.get(&read).map(|&i| (i, self.token.records[i]));
        if let Some((_, Record::Read { rf, spurious, .. })) = rec {
            if let Some(k) = choices.iter().position(|c| c.write == rf && c.spurious == spurious) {
                return k;
            }
        }
        let expected = match rec {
            Some((i, Record::Read { rf, spurious, .. })) => format!(
                "{} reading {}{}",
                self.describe_record(g, i),
                Self::describe_write(g, rf),
                if spurious { " (failing spuriously)" } else { "" }
            ),
            _ => format!("no read as event T{}.{}", read.thread, read.index),
        };
        let found = format!(
            "the program cannot read that write there (it may read: {})",
            choices
                .iter()
                .map(|c| Self::describe_write(g, c.write))
                .collect::<Vec<_>>()
                .join("; ")
        );
        self.diverge(g, expected, found);
        choices.len() - 1
    }

    fn choose_mo(&mut self, g: &ExecutionGraph, write: EventId, _s: u32, places: &[usize]) -> usize {
        let rec = self.at.get(&write).map(|&i| (i, self.token.records[i]));
        if let Some((_, Record::Write { loc, rank, .. })) = rec {
            // Where the write goes: after every present write of lower final rank.
            let pos = match g.loc(loc) {
                Some(d) => {
                    1 + d
                        .mo
                        .iter()
                        .filter(|w| self.rank_of(**w).is_some_and(|r| r < rank))
                        .count()
                }
                None => 1,
            };
            if let Some(k) = places.iter().position(|&p| p == pos) {
                return k;
            }
        }
        let expected = match rec {
            Some((i, Record::Write { rank, .. })) => {
                format!(
                    "{} at rank {rank} of its modification order",
                    self.describe_record(g, i)
                )
            }
            _ => format!("no write as event T{}.{}", write.thread, write.index),
        };
        self.diverge(g, expected, "the program cannot place the write there".into());
        places.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_thread_number_costs_nothing_to_replay() {
        // A well-formed token naming thread 4,000,000,000 (the one of
        // `token`'s test of the same name): the replay keeps its threads in
        // a map, not a vector that long.
        let t = crate::token::decode("sc2.AgABhbC4p2gBBQ").unwrap();
        assert_eq!(t.records.len(), 1);
        let _ = Replay::new(t);
    }
}
