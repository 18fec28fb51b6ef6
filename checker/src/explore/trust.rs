//! The optimal exhaustive explorer, after TruSt (Kokologiannakis, Marmanis,
//! Gladstein, Vafeiadis, POPL 2022) and GenMC's driver.
//!
//! Every event is added with a default choice (a read reads the mo-maximal
//! write, a write goes mo-last); the other choices become *forward* items,
//! replayed later from the graph cut back to that event's stamp. Each new
//! write also tries to *revisit* earlier reads of its location that are not
//! in its porf prefix: the graph is cut to the events added up to the read
//! plus the write's prefix, and the read now reads the write. A revisit is
//! taken only if everything it deletes was added with its default choice
//! ("maximally"), which makes each consistent graph come up exactly once.
//!
//! Forward items only ever cut the current graph back, so they are kept as
//! (stamp, choice). A revisit builds a new graph, explored as a nested level
//! whose parent graph is saved until the level is done; until its turn it
//! is kept as what rebuilds that graph from its level's (`revisit.rs`).

use super::cyclic::{promise_reads, PromiseItem};
use super::pool::{Subtree, WorkPool};
use super::revisit::{needs_check, revisit_graph, revisit_view, Revisit};
use super::Strategy;
use crate::clock::Clock;
use crate::event::*;
use crate::graph::{ExecutionGraph, View};
use crate::model::MemoryModel;
use crate::sched::{RfChoice, ThreadStatus};
use smallvec::SmallVec;
use std::sync::Arc;

enum Item {
    /// Read `read` (stamp `stamp`) reads `choice` instead.
    Rf {
        read: EventId,
        stamp: u32,
        choice: RfChoice,
    },
    /// Write `write` (stamp `stamp`) goes to mo position `pos` instead.
    Mo { write: EventId, stamp: u32, pos: usize },
    /// A backward revisit, as what rebuilds the graph it produces.
    Revisit(Revisit),
    /// A read promised the value of a write po ∪ rf-after it (`cyclic.rs`).
    Promise(PromiseItem),
}

#[derive(Default)]
struct Level {
    /// The graph of this level, kept while a nested level runs.
    saved: Option<ExecutionGraph>,
    /// Items with their depth in the exploration tree (the execution that
    /// pushed an item is its parent; the first execution has depth 0).
    items: Vec<(u32, Item)>,
}

/// Which part of the exploration tree this explorer covers (`--shard i/n`).
///
/// The tree of executions is the same in every run of the same program, and
/// so is the order in which it is walked. Every shard walks the tree down to
/// [`SPLIT_DEPTH`]; the executions at that depth are dealt out in walk order,
/// the k-th to shard `k mod n`, and each shard explores only the subtrees of
/// its own. Every execution therefore belongs to exactly one shard: those at
/// depth `SPLIT_DEPTH` or deeper to the owner of their ancestor at that
/// depth, and the few above it to shard 0 (the others run them too, to find
/// the split points, but do not count or report them). The shards' counts
/// add up to one whole run's.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u32,
    /// How many shards the tree is split into.
    pub count: u32,
}

/// The depth of the executions dealt out among shards: deep enough that
/// there are many of them, shallow enough that the part every shard
/// repeats stays small.
pub const SPLIT_DEPTH: u32 = 3;

/// The optimal exhaustive explorer.
#[derive(Default)]
pub struct Trust {
    levels: Vec<Level>,
    started: bool,
    /// The depth of the current execution.
    depth: u32,
    shard: Option<Shard>,
    /// Executions at `SPLIT_DEPTH` met so far.
    dealt: u64,
    /// Whether the current execution belongs to this shard.
    owned: bool,
    /// The pool this explorer shares work with (parallel exploration).
    pool: Option<Arc<WorkPool>>,
    /// The subtree a pool explorer starts from.
    root: Option<Subtree>,
    /// This explorer's number in its pool.
    me: usize,
    /// The preemption bound, if any (see [`super::preemption`]).
    bound: Option<u32>,
    /// Whether promises (po ∪ rf cycles) are turned off.
    acyclic_only: bool,
}

impl Trust {
    /// A new explorer.
    pub fn new() -> Trust {
        Trust {
            owned: true,
            ..Trust::default()
        }
    }

    /// An explorer that stops every execution once its graph is past
    /// `bound` preemptions plus [`super::preemption::slack`]: it explores
    /// every complete execution that some interleaving with at most `bound`
    /// preemptions reaches (and some with more).
    pub fn bounded(bound: u32) -> Trust {
        Trust {
            owned: true,
            bound: Some(bound),
            ..Trust::default()
        }
    }

    /// An explorer of one shard of the tree.
    pub fn sharded(shard: Shard) -> Trust {
        Trust {
            shard: Some(shard),
            owned: shard.index == 0,
            ..Trust::default()
        }
    }

    /// An explorer of `root`, one subtree of the tree shared through
    /// `pool`: it gives subtrees away while another explorer of the pool
    /// waits for work.
    pub fn worker(pool: Arc<WorkPool>, root: Subtree, me: usize) -> Trust {
        Trust {
            owned: true,
            pool: Some(pool),
            root: Some(root),
            me,
            ..Trust::default()
        }
    }

    /// The same explorer, bounded as [`Trust::bounded`] is when `bound`
    /// is set (each graph is judged by itself, so a bound composes with
    /// any split of the tree: shards and workers prune the same graphs).
    pub fn with_bound(mut self, bound: Option<u32>) -> Trust {
        self.bound = bound;
        self
    }

    /// The oldest item kept (the bottom of the lowest level that holds
    /// any), as a subtree another explorer can start from; `None` when
    /// fewer than two items are left (giving the last one away would only
    /// move the idleness here).
    fn give_away(&mut self, graph: &ExecutionGraph, model: MemoryModel) -> Option<Subtree> {
        if self.levels.iter().map(|l| l.items.len()).sum::<usize>() < 2 {
            return None;
        }
        let lvl = self.levels.iter().position(|l| !l.items.is_empty())?;
        let (_, item) = self.levels[lvl].items.remove(0);
        // Level k's graph: the current one for the top level, else the one
        // saved when level k+1 began.
        let base = if lvl + 1 == self.levels.len() {
            graph
        } else {
            self.levels[lvl].saved.as_ref().expect("a lower level keeps its graph")
        };
        Some(match item {
            Item::Rf { read, stamp, choice } => {
                let mut g = base.clone();
                g.restrict_to_stamp(stamp);
                g.set_rf(read, choice.write, choice.spurious, model.sync_rules());
                g.event_mut(read).added_max = false;
                Subtree {
                    graph: g,
                    moved_write: None,
                    owner: None,
                }
            }
            Item::Mo { write, stamp, pos } => {
                let mut g = base.clone();
                g.restrict_to_stamp(stamp);
                let loc = g.event(write).as_write().expect("write").loc;
                g.move_mo(loc, write, pos);
                g.event_mut(write).added_max = false;
                Subtree {
                    graph: g,
                    moved_write: Some(write),
                    owner: None,
                }
            }
            Item::Revisit(rv) => {
                let mut g = base.clone();
                Subtree {
                    graph: rv.rebuild(&mut g, model),
                    moved_write: None,
                    owner: None,
                }
            }
            Item::Promise(p) => {
                let mut g = base.clone();
                Subtree {
                    graph: p.rebuild(&mut g),
                    moved_write: None,
                    owner: None,
                }
            }
        })
    }

    /// Sets up the next execution of this explorer's own tree.
    fn advance(&mut self, graph: &mut ExecutionGraph, model: MemoryModel) -> bool {
        if !self.started {
            self.started = true;
            self.levels.push(Level::default());
            graph.clear();
            return true;
        }
        loop {
            let item = self.levels.last_mut().and_then(|l| l.items.pop());
            if let Some((depth, _)) = &item {
                let depth = *depth;
                let owned = self.take(depth);
                if depth >= SPLIT_DEPTH && !owned {
                    // Another shard's subtree: skip it whole.
                    continue;
                }
                self.owned = owned;
                self.depth = depth;
            }
            match item.map(|(_, i)| i) {
                Some(Item::Rf { read, stamp, choice }) => {
                    graph.restrict_to_stamp(stamp);
                    graph.set_rf(read, choice.write, choice.spurious, model.sync_rules());
                    graph.event_mut(read).added_max = false;
                    return true;
                }
                Some(Item::Mo { write, stamp, pos }) => {
                    graph.restrict_to_stamp(stamp);
                    let loc = graph.event(write).as_write().expect("write").loc;
                    graph.move_mo(loc, write, pos);
                    graph.event_mut(write).added_max = false;
                    self.write_added(graph, write, model);
                    return true;
                }
                Some(Item::Revisit(rv)) => {
                    let g1 = rv.rebuild(graph, model);
                    let parent = std::mem::replace(graph, g1);
                    self.levels.last_mut().expect("level").saved = Some(parent);
                    self.levels.push(Level::default());
                    return true;
                }
                Some(Item::Promise(p)) => {
                    let g1 = p.rebuild(graph);
                    let parent = std::mem::replace(graph, g1);
                    self.levels.last_mut().expect("level").saved = Some(parent);
                    self.levels.push(Level::default());
                    return true;
                }
                None => {
                    if self.levels.len() <= 1 {
                        return false;
                    }
                    self.levels.pop();
                    *graph = self
                        .levels
                        .last_mut()
                        .expect("parent level")
                        .saved
                        .take()
                        .expect("parent graph saved");
                }
            }
        }
    }

    fn push(&mut self, item: Item) {
        let depth = self.depth + 1;
        self.levels.last_mut().expect("a level").items.push((depth, item));
    }

    /// Whether an execution at `depth` belongs to this shard; counts the
    /// executions dealt out at the split depth.
    fn take(&mut self, depth: u32) -> bool {
        let Some(shard) = self.shard else { return true };
        if depth < SPLIT_DEPTH {
            return shard.index == 0;
        }
        if depth > SPLIT_DEPTH {
            // Only reached inside a subtree this shard owns.
            return true;
        }
        let k = self.dealt;
        self.dealt += 1;
        k % shard.count as u64 == shard.index as u64
    }
}

/// The end of a location's mo as a revisit sees it: the mo-latest write
/// it keeps (other than the revisiting write) and the writes after that
/// one, which it all deletes. Found once per location and revisit, so the
/// maximality test asks each deleted event in constant time (or a search
/// of the tail) instead of scanning mo per event: with N threads each
/// adding an RMW to one location, the scans made the first execution's
/// revisits cost N⁴.
struct Tail {
    loc: Loc,
    last_kept: Option<EventId>,
    /// The writes after `last_kept`, sorted once there are many.
    after: SmallVec<[EventId; 16]>,
}

impl Tail {
    fn of(g: &ExecutionGraph, loc: Loc, except: EventId, v: &Clock) -> Tail {
        let mo = &g.loc(loc).expect("loc").mo;
        let mut after = SmallVec::new();
        for &x in mo.iter().rev() {
            if x != except && v.contains(x) {
                if after.len() > 16 {
                    after.sort_unstable();
                }
                return Tail {
                    loc,
                    last_kept: Some(x),
                    after,
                };
            }
            after.push(x);
        }
        Tail {
            loc,
            last_kept: None,
            after: SmallVec::new(),
        }
    }

    /// Whether a kept write (other than the revisiting one) is mo-after
    /// `w`, a write of the location (or its initial write).
    fn kept_after(&self, w: EventId) -> bool {
        let Some(k) = self.last_kept else { return false };
        let in_tail = if self.after.len() > 16 {
            self.after.binary_search(&w).is_ok()
        } else {
            self.after.contains(&w)
        };
        w != k && !in_tail
    }
}

/// Whether some write of `loc` mo-after `after` (other than `except`) is in
/// `v`, by the definition: debug builds check [`Tail::kept_after`] with it.
#[cfg(debug_assertions)]
fn co_after_in(g: &ExecutionGraph, loc: Loc, after: EventId, except: EventId, v: &Clock) -> bool {
    let d = g.loc(loc).expect("loc");
    let start = g.mo_position(loc, after); // index into d.mo of the first write after `after`
    d.mo[start..].iter().any(|&s| s != except && v.contains(s))
}

/// TruSt's condition for the revisit of `r` by `w` keeping `v`: every event
/// it deletes, and `r` itself, was added maximally, has not been frozen by
/// an earlier revisit, and stays maximal with respect to what is kept.
fn is_maximal_extension(g: &ExecutionGraph, r: EventId, w: EventId, v: &Clock) -> bool {
    let we = g.event(w).as_write().expect("revisiting write");
    // Revisits must not differ only in where w sits among deleted writes.
    if !we.rmw {
        let d = g.loc(we.loc).expect("loc");
        let p = g.mo_position(we.loc, w);
        if let Some(&succ) = d.mo.get(p) {
            if !v.contains(succ) {
                return false;
            }
        }
    }
    let mut tails: SmallVec<[Tail; 2]> = SmallVec::new();
    for (id, e) in g.events() {
        if id != r && v.contains(id) {
            continue;
        }
        if !e.revisitable || !e.added_max {
            return false;
        }
        // A deleted read must not have a kept write mo-after the one it
        // read, a deleted write none mo-after itself.
        let (loc, after) = match &e.kind {
            EventKind::Read(rd) => (rd.loc, rd.rf),
            EventKind::Write(wr) => (wr.loc, id),
            _ => continue,
        };
        let i = match tails.iter().position(|t| t.loc == loc) {
            Some(i) => i,
            None => {
                tails.push(Tail::of(g, loc, w, v));
                tails.len() - 1
            }
        };
        let kept = tails[i].kept_after(after);
        #[cfg(debug_assertions)]
        debug_assert_eq!(
            kept,
            crate::work::uncounted(|| co_after_in(g, loc, after, w, v)),
            "checker invariant: the mo tail answers as the scan of mo"
        );
        if kept {
            return false;
        }
    }
    true
}

impl Strategy for Trust {
    fn name(&self) -> &'static str {
        "exhaustive"
    }

    fn next_execution(&mut self, graph: &mut ExecutionGraph, model: MemoryModel) -> bool {
        if self.pool.is_none() {
            return self.advance(graph, model);
        }
        if let Some(mut root) = self.root.take() {
            self.started = true;
            self.levels.push(Level::default());
            *graph = self.pool.as_ref().expect("a pool explorer").adopt(&mut root, self.me);
            if let Some(w) = root.moved_write {
                self.write_added(graph, w, model);
            }
        } else {
            let pool = self.pool.as_ref().expect("a pool explorer");
            if pool.is_stopped() {
                return false;
            }
            if pool.wants_work() {
                if let Some(s) = self.give_away(graph, model) {
                    self.pool.as_ref().expect("a pool explorer").give(s, self.me);
                }
            }
            if !self.advance(graph, model) {
                return false;
            }
        }
        self.pool.as_ref().expect("a pool explorer").next_execution()
    }

    fn schedule(&mut self, _g: &ExecutionGraph, enabled: &[ThreadId], _s: &[ThreadStatus]) -> Option<ThreadId> {
        // next_P: the leftmost thread that can take a step.
        enabled.first().copied()
    }

    fn choose_rf(&mut self, _g: &ExecutionGraph, read: EventId, stamp: u32, choices: &[RfChoice]) -> usize {
        let last = choices.len() - 1;
        for &choice in &choices[..last] {
            self.push(Item::Rf { read, stamp, choice });
        }
        last
    }

    fn choose_mo(&mut self, _g: &ExecutionGraph, write: EventId, stamp: u32, places: &[usize]) -> usize {
        let last = places.len() - 1;
        for &pos in &places[..last] {
            self.push(Item::Mo { write, stamp, pos });
        }
        last
    }

    fn takes_leftmost(&self) -> bool {
        true
    }

    fn wants_revisits(&self) -> bool {
        true
    }

    fn set_porf_cycles(&mut self, on: bool) {
        self.acyclic_only = !on;
    }

    fn owns_execution(&self) -> bool {
        self.owned
    }

    fn bounds_search(&self) -> bool {
        self.bound.is_some()
    }

    fn within_bound(&mut self, g: &ExecutionGraph) -> bool {
        self.bound.is_none_or(|b| super::preemption::keeps(g, b))
    }

    fn write_added(&mut self, g: &ExecutionGraph, w: EventId, model: MemoryModel) {
        let we = g.event(w);
        let wr = *we.as_write().expect("write");
        let loc = wr.loc;
        let prefix = g.porf(w);
        let d = g.loc(loc).expect("loc");
        // The reads not in w's prefix: a suffix of each thread's reads.
        let mut reads: Vec<EventId> = Vec::new();
        for t in 0..d.thread_slots() as ThreadId {
            let rs = d.thread_reads(t);
            let from = rs.partition_point(|&i| i < prefix.get(t));
            reads.extend(
                rs[from..]
                    .iter()
                    .map(|&i| EventId::new(t, i))
                    .filter(|&r| g.event(r).revisitable),
            );
        }
        let wpos = g.mo_position(loc, w);
        let mut rmw_source = None;
        if wr.rmw {
            // An RMW that read a write another RMW already read: only revisits
            // that delete that other RMW can give a consistent graph.
            let rd = EventId::new(w.thread, w.index - 1);
            let src = g.event(rd).as_read().expect("read part").rf;
            let other = if !model.coherent() {
                g.rmw_reader_of(loc, src, Some(rd))
            } else {
                // Every other RMW's write part sits right after the write it
                // read (and w was put right after its source): another
                // reader of w's source has its write part right after w.
                let found = d.mo.get(wpos).and_then(|&x| {
                    let part = (x.index > 0).then(|| EventId::new(x.thread, x.index - 1))?;
                    let reads_src = matches!(&g.event(x).kind, EventKind::Write(xw) if xw.rmw)
                        && g.event(part).as_read().is_some_and(|pr| pr.rf == src);
                    (reads_src && part != rd).then_some(part)
                });
                debug_assert_eq!(
                    found,
                    crate::work::uncounted(|| g.rmw_reader_of(loc, src, Some(rd))),
                    "checker invariant: another RMW that read the same write sits right after it in mo"
                );
                found
            };
            if let Some(other) = other {
                let s = g.event(other).stamp;
                reads.retain(|&r| g.event(r).stamp <= s);
                rmw_source = Some((rd, src));
            }
        }
        reads.sort_by_key(|&r| std::cmp::Reverse(g.event(r).stamp));
        for r in reads {
            // Coherence of r reading w: w at or after what r's hb forces.
            let base = if r.index > 0 {
                g.hb(EventId::new(r.thread, r.index - 1))
            } else {
                View::empty()
            };
            // (Without coherence the floor is 0: any write not porf-after r will do.)
            if wpos < model.floor(g, loc, base, Some(r)) {
                continue;
            }
            let v = revisit_view(g, r, w);
            if !is_maximal_extension(g, r, w, &v) {
                continue;
            }
            if let Some((rd, src)) = rmw_source {
                // The other RMW reading w's source may survive the revisit (it
                // is in w's porf prefix: under `porf` nothing keeps an RMW from
                // reading a write its own thread's earlier RMW consumed). Then
                // the graph breaks atomicity whatever r reads. (In the
                // revisit's graph r reads w and has no write part.)
                let survives = g
                    .loc(loc)
                    .expect("loc")
                    .consumed_pairs()
                    .any(|(s, x)| s == src && x != rd && x != r && v.contains(x.next()));
                if survives {
                    continue;
                }
            }
            // The revisit's graph is built now only when it must be judged
            // (and, in debug builds, to check the one rebuilt later).
            let check = needs_check(g, r, w, model);
            let built = (check || cfg!(debug_assertions)).then(|| revisit_graph(g, r, w, &v, model));
            if let (Some(g1), Some((rd, src))) = (&built, rmw_source) {
                debug_assert!(
                    g1.rmw_reader_of(loc, src, Some(rd)).is_none(),
                    "checker invariant: the revisit's atomicity test agrees with its graph"
                );
            }
            if check && model.check_graph(built.as_ref().expect("built when checked")).is_err() {
                continue;
            }
            if let Some(g1) = &built {
                debug_assert!(
                    check || model.check_graph(g1).is_ok(),
                    "checker invariant: a revisit graph that needs no check is consistent"
                );
            }
            self.push(Item::Revisit(Revisit::new(g, r, w, rmw_source.is_some(), built)));
        }
        // Reads in w's prefix, under a model that allows po ∪ rf cycles (not
        // for a tentative RMW: the engine takes its events back).
        if model.allows_porf_cycles() && rmw_source.is_none() && !self.acyclic_only {
            for r in promise_reads(g, w, model) {
                self.push(Item::Promise(PromiseItem::new(g, r, w)));
            }
        }
    }
}
