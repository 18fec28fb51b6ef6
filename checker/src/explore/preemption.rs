//! Preemptions of an execution graph, with loom's meaning, and the bound
//! the optimal explorer prunes by.
//!
//! loom counts a *preemption* each time the scheduler switches away from a
//! thread that could have gone on: not finished, not blocked (on a lock, a
//! join, a barrier) and not just after a spin hint (`yield_now`,
//! `spin_loop`). A graph does not fix an interleaving; its preemption count
//! here is the least number of preemptions of any interleaving that adds
//! its events in an order respecting po ∪ rf (and spawn, join, barrier
//! edges). Interleavings are made of *slices*: a thread is scheduled at
//! each visible operation (a load, a store, a read-modify-write, a join, a
//! barrier) and runs on through its invisible events (allocations, fences,
//! cell accesses, spawns, its end) to its next visible one.
//!
//! The count is a lower bound of every schedule the engine can take to
//! reach the graph, counted as the bounded reference enumerator counts
//! ([`super::reference::Reference::bounded`]): switching away from a thread
//! whose next slice starts with a join, a mutex acquisition or a barrier,
//! or follows a spin hint, is counted as free (the engine may have had the
//! thread blocked there), which can only lower the count.
//!
//! Pruning graphs over the bound is not enough for the optimal explorer:
//! a backward revisit produces a graph from a parent that holds more
//! events (those the revisit deletes), so an ancestor can be over the
//! bound while its descendant is within it (Marmanis, Kokologiannakis,
//! Vafeiadis, "Reconciling Preemption Bounding with DPOR", TACAS 2023).
//! Appending the deleted events after an interleaving of the descendant
//! costs at most one preemption per thread that holds deleted events, and
//! only events a revisit may still delete can go that way: so the explorer
//! keeps every graph whose count is at most the bound plus the number of
//! threads that hold such events ([`slack`]), a slack at least as large as
//! the paper's.

use crate::event::*;
use crate::graph::ExecutionGraph;
use std::collections::HashMap;

/// How many search states one count may visit before it gives up and
/// answers "within the bound" (which only keeps more graphs).
const STATE_CAP: usize = 20_000;

struct Slice {
    /// The stamp of its first event.
    first_stamp: u32,
    /// Per other thread, how many of its slices must be done first.
    needs: Vec<(ThreadId, u32)>,
    /// Whether switching away from the thread when this slice is its next
    /// is free (it may have been blocked, or it gave a spin hint).
    free_before: bool,
    /// Whether the slice holds a visible event (else it is never scheduled
    /// by itself: it runs whenever its dependencies allow, at no cost).
    visible: bool,
}

fn is_visible(k: &EventKind) -> bool {
    match k {
        EventKind::Read(_) | EventKind::Join { .. } | EventKind::Barrier { .. } => true,
        EventKind::Write(w) => !w.rmw,
        _ => false,
    }
}

fn may_block(k: &EventKind) -> bool {
    match k {
        EventKind::Join { .. } | EventKind::Barrier { .. } => true,
        EventKind::Read(r) => r.await_.is_some(),
        _ => false,
    }
}

/// The slices of every thread of `g`.
fn slices(g: &ExecutionGraph) -> Vec<Vec<Slice>> {
    let n = g.num_threads();
    // First cut each thread, then turn event needs into slice needs.
    let mut bounds: Vec<Vec<(u32, u32, bool, bool)>> = Vec::with_capacity(n);
    for t in 0..n as ThreadId {
        let evs = g.thread_events(t);
        let mut cuts = Vec::new();
        let mut start = 0u32;
        let mut has_visible = false;
        let mut free = false;
        let mut hint = false;
        for (i, e) in evs.iter().enumerate() {
            hint |= e.after_hint;
            if is_visible(&e.kind) {
                // What the thread did before its first visible step (its
                // start, a spawn, ...) is a slice of its own, run whenever
                // its dependencies allow: others may depend on it (a child
                // on its spawn) while it is not a scheduling point.
                if has_visible || i > 0 {
                    cuts.push((start, i as u32, free, has_visible));
                    start = i as u32;
                }
                has_visible = true;
                free = hint || may_block(&e.kind);
                hint = false;
            }
        }
        if !evs.is_empty() {
            cuts.push((start, evs.len() as u32, free, has_visible));
        }
        bounds.push(cuts);
    }
    let slice_of = |u: ThreadId, idx: u32| -> u32 {
        let cuts = &bounds[u as usize];
        cuts.partition_point(|c| c.1 <= idx) as u32
    };
    let mut out = Vec::with_capacity(n);
    for t in 0..n as ThreadId {
        let evs = g.thread_events(t);
        let mut v = Vec::new();
        for &(s, e, free, visible) in &bounds[t as usize] {
            let mut needs: Vec<(ThreadId, u32)> = Vec::new();
            let mut need = |u: ThreadId, count: u32| {
                if u == t || count == 0 || u as usize >= n || g.thread_len(u) == 0 {
                    return;
                }
                let k = slice_of(u, count.min(g.thread_len(u)) - 1) + 1;
                match needs.iter_mut().find(|x| x.0 == u) {
                    Some(x) => x.1 = x.1.max(k),
                    None => needs.push((u, k)),
                }
            };
            for ev in &evs[s as usize..e as usize] {
                match &ev.kind {
                    EventKind::Read(r) if !r.rf.is_init() => need(r.rf.thread, r.rf.index + 1),
                    EventKind::Start { parent: Some(p) } => need(p.thread, p.index + 1),
                    EventKind::Join { target } => need(*target, g.thread_len(*target)),
                    EventKind::Barrier { partners, .. } => {
                        for p in partners {
                            need(p.thread, p.index + 1);
                        }
                    }
                    _ => {}
                }
            }
            v.push(Slice {
                first_stamp: evs[s as usize].stamp,
                needs,
                free_before: free,
                visible,
            });
        }
        out.push(v);
    }
    out
}

struct Search<'a> {
    slices: &'a [Vec<Slice>],
    done: Vec<u32>,
    /// (progress, current thread) → the largest budget known not to suffice.
    failed: HashMap<(Vec<u32>, Option<ThreadId>), u32>,
    visited: usize,
    gave_up: bool,
}

impl Search<'_> {
    fn ready(&self, t: usize) -> bool {
        match self.next(t) {
            Some(s) => s.needs.iter().all(|&(u, k)| self.done[u as usize] >= k),
            None => false,
        }
    }

    /// Thread `t`'s next slice, if it has one left.
    fn next(&self, t: usize) -> Option<&Slice> {
        self.slices.get(t)?.get(self.done[t] as usize)
    }

    /// Runs every ready slice that is never scheduled by itself.
    fn run_invisible(&mut self) {
        loop {
            let mut ran = false;
            for t in 0..self.slices.len() {
                while self.ready(t) && self.next(t).is_some_and(|s| !s.visible) {
                    self.done[t] += 1;
                    ran = true;
                }
            }
            if !ran {
                return;
            }
        }
    }

    /// Whether switching away from `cur` now costs a preemption.
    fn switch_cost(&self, cur: Option<ThreadId>) -> u32 {
        match cur.and_then(|c| self.next(c as usize)) {
            Some(next) if !next.free_before => 1,
            _ => 0,
        }
    }

    /// The preemptions of one interleaving: the current thread goes on
    /// while it can, else the ready slice added first runs (`u32::MAX` if
    /// none is ready: not a graph of this checker).
    fn greedy(&mut self) -> u32 {
        let saved = self.done.clone();
        let mut cur = Some(0);
        let mut count = 0u32;
        loop {
            self.run_invisible();
            if let Some(c) =
                cur.filter(|&c| self.ready(c as usize) && self.next(c as usize).is_some_and(|s| !s.free_before))
            {
                self.done[c as usize] += 1;
                continue;
            }
            let pick = (0..self.slices.len())
                .filter(|&u| self.ready(u))
                .min_by_key(|&u| self.next(u).map(|s| s.first_stamp));
            let Some(u) = pick else {
                let finished = self.done.iter().zip(self.slices).all(|(&d, s)| d as usize == s.len());
                if !finished {
                    count = u32::MAX;
                }
                break;
            };
            if cur != Some(u as ThreadId) {
                count = count.saturating_add(self.switch_cost(cur));
            }
            cur = Some(u as ThreadId);
            self.done[u] += 1;
        }
        self.done = saved;
        count
    }

    /// Whether the rest can be scheduled with at most `budget` preemptions,
    /// `cur` having run last.
    fn feasible(&mut self, cur: Option<ThreadId>, budget: u32) -> bool {
        let saved = self.done.clone();
        let ok = self.feasible_inner(cur, budget);
        self.done = saved;
        ok
    }

    fn feasible_inner(&mut self, cur: Option<ThreadId>, budget: u32) -> bool {
        // Going on with the current thread never costs more than switching
        // (an exchange argument: moving its next slice first removes the
        // switches around it and adds none), unless it could block there.
        loop {
            self.run_invisible();
            match cur {
                Some(c) if self.ready(c as usize) && self.next(c as usize).is_some_and(|s| !s.free_before) => {
                    self.done[c as usize] += 1;
                }
                _ => break,
            }
        }
        if self.done.iter().zip(self.slices).all(|(&d, s)| d as usize == s.len()) {
            return true;
        }
        self.visited += 1;
        if self.visited > STATE_CAP {
            self.gave_up = true;
            return true;
        }
        let key = (self.done.clone(), cur);
        if self.failed.get(&key).is_some_and(|&b| b >= budget) {
            return false;
        }
        let away = self.switch_cost(cur);
        for u in 0..self.slices.len() {
            if !self.ready(u) {
                continue;
            }
            let u = u as ThreadId;
            let cost = if Some(u) == cur { 0 } else { away };
            if cost > budget {
                continue;
            }
            let saved = self.done.clone();
            self.done[u as usize] += 1;
            let ok = self.feasible_inner(Some(u), budget - cost);
            self.done = saved;
            if ok {
                return true;
            }
        }
        self.failed.insert(key, budget);
        false
    }
}

/// Whether every interleaving of `g` takes more than `bound` preemptions
/// (false also when the search gave up: that keeps the graph).
pub fn exceeds(g: &ExecutionGraph, bound: u32) -> bool {
    let sl = slices(g);
    let mut s = Search {
        done: vec![0; sl.len()],
        slices: &sl,
        failed: HashMap::new(),
        visited: 0,
        gave_up: false,
    };
    // One interleaving close to the order the events were added in settles
    // most graphs; only the others need the search.
    if s.greedy() <= bound {
        return false;
    }
    !s.feasible(Some(0), bound)
}

/// The least number of preemptions of any interleaving of `g` (`None`
/// when it is more than `cap`, or the search gave up).
pub fn count(g: &ExecutionGraph, cap: u32) -> Option<u32> {
    let sl = slices(g);
    for b in 0..=cap {
        let mut s = Search {
            done: vec![0; sl.len()],
            slices: &sl,
            failed: HashMap::new(),
            visited: 0,
            gave_up: false,
        };
        let ok = s.feasible(Some(0), b);
        if s.gave_up {
            return None;
        }
        if ok {
            return Some(b);
        }
    }
    None
}

/// The slack added to the bound before a graph is pruned, after Marmanis
/// et al.: one less than the number of threads holding an event a backward
/// revisit may still delete, and at most two less than the number of
/// threads that did anything.
pub fn slack(g: &ExecutionGraph) -> u32 {
    let n = g.num_threads() as ThreadId;
    let unstable = (0..n)
        .filter(|&t| g.thread_events(t).iter().any(|e| e.revisitable))
        .count() as u32;
    let nonempty = (0..n).filter(|&t| g.thread_len(t) > 1).count() as u32;
    unstable.saturating_sub(1).min(nonempty.saturating_sub(2))
}

/// Whether the optimal explorer keeps `g` under a preemption bound of
/// `bound`: its count is at most `bound` plus [`slack`].
pub fn keeps(g: &ExecutionGraph, bound: u32) -> bool {
    !exceeds(g, bound.saturating_add(slack(g)))
}
