//! Replay: one execution, every choice taken from a token.

use super::Strategy;
use crate::engine::{RfChoice, ThreadStatus};
use crate::event::{EventId, ThreadId};
use crate::graph::ExecutionGraph;
use crate::model::MemoryModel;
use crate::token::{Record, Token};

/// Replays the execution a token describes.
pub struct Replay {
    token: Token,
    next: usize,
    started: bool,
    /// Whether the program asked for a choice the token does not have.
    pub diverged: bool,
}

impl Replay {
    /// Replays `token`.
    pub fn new(token: Token) -> Replay {
        Replay {
            token,
            next: 0,
            started: false,
            diverged: false,
        }
    }

    fn rank_of(&self, w: EventId) -> Option<u32> {
        self.token.records.iter().find_map(|r| match *r {
            Record::Write { event, rank, .. } if event == w => Some(rank),
            _ => None,
        })
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
        true
    }

    fn schedule(&mut self, g: &ExecutionGraph, enabled: &[ThreadId], status: &[ThreadStatus]) -> Option<ThreadId> {
        // The thread of the first recorded step not yet in the graph (write
        // parts of RMWs come with their read part).
        while let Some(rec) = self.token.records.get(self.next) {
            let e = rec.event();
            if g.contains(e) || matches!(rec, Record::Write { rmw: true, .. }) {
                self.next += 1;
                continue;
            }
            if matches!(
                status.get(e.thread as usize),
                Some(ThreadStatus::Op(..) | ThreadStatus::SpinWait)
            ) {
                return Some(e.thread);
            }
            self.diverged = true;
            break;
        }
        enabled.first().copied()
    }

    fn diverged(&self) -> bool {
        self.diverged
    }

    fn choose_rf(&mut self, _g: &ExecutionGraph, read: EventId, _s: u32, choices: &[RfChoice]) -> usize {
        let found = self.token.records.iter().enumerate().find_map(|(i, r)| match *r {
            Record::Read { event, rf, spurious } if event == read => Some((i, rf, spurious)),
            _ => None,
        });
        match found {
            Some((_, rf, spurious)) => match choices.iter().position(|c| c.write == rf && c.spurious == spurious) {
                Some(k) => k,
                None => {
                    self.diverged = true;
                    choices.len() - 1
                }
            },
            None => {
                self.diverged = true;
                choices.len() - 1
            }
        }
    }

    fn choose_mo(&mut self, g: &ExecutionGraph, write: EventId, _s: u32, places: &[usize]) -> usize {
        let Some(rank) = self.rank_of(write) else {
            self.diverged = true;
            return places.len() - 1;
        };
        // Where the write goes: after every present write of lower final rank.
        let below = |w: &EventId| self.rank_of(*w).is_some_and(|r| r < rank);
        let pos = self.token_pos(g, write, below);
        places.iter().position(|&p| p == pos).unwrap_or_else(|| {
            self.diverged = true;
            places.len() - 1
        })
    }
}

impl Replay {
    fn token_pos(&self, g: &ExecutionGraph, write: EventId, below: impl Fn(&EventId) -> bool) -> usize {
        let loc = self.token.loc_of(write);
        match loc.and_then(|l| g.loc(l)) {
            Some(d) => 1 + d.mo.iter().filter(|w| below(w)).count(),
            None => 1,
        }
    }
}
