//! Parallel exhaustive exploration by work stealing.
//!
//! Every item an optimal explorer keeps for later (a read's other write, a
//! write's other mo position, a backward revisit) is the root of a subtree
//! of the exploration tree that depends on nothing but the graph the item
//! starts from. So a subtree can be handed to another explorer as that
//! graph (a [`Subtree`]), and explored there exactly as it would have been
//! here: the explorers of one [`WorkPool`] together visit each execution
//! once, whatever the timing.
//!
//! An explorer gives work away when some explorer of its pool is idle, and
//! gives the oldest item it holds: its subtree is the biggest (items are
//! kept in a stack, the oldest at the bottom, closest to the root). This
//! balances uneven trees that a static split (the shards of
//! [`super::trust::Shard`]) cannot: a static split deals subtrees out before
//! their sizes are known.
//!
//! Memory stays with the thread that allocated it. A subtree's graph is
//! made by the explorer that gives it away; the one that takes it works on
//! a copy of its own and hands the original back to be freed where it was
//! allocated. With glibc's allocator, a block freed or grown by another
//! thread than the one whose arena it came from takes that arena's lock
//! while its owner allocates there; a taken graph's event vectors, recycled
//! every execution, did that tens of thousands of times a run (84,000 futex
//! calls on the 12-thread compare-exchange rotation) and cost the two
//! explorers a fifth of their speed.

use crate::event::EventId;
use crate::graph::ExecutionGraph;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

/// A subtree of the exploration tree: the graph its first execution starts
/// from.
pub struct Subtree {
    /// The graph, cut back and with the item's choice applied.
    pub(super) graph: ExecutionGraph,
    /// For a write moved in mo: the write, whose revisits the receiving
    /// explorer computes (they are part of the subtree).
    pub(super) moved_write: Option<EventId>,
    /// The explorer that made the graph (and frees it).
    pub(super) owner: Option<usize>,
}

impl Subtree {
    /// The whole tree: its first execution starts from the empty graph.
    pub fn whole() -> Subtree {
        Subtree {
            graph: ExecutionGraph::new(),
            moved_write: None,
            owner: None,
        }
    }
}

/// Why a pool stopped before the tree was done.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PoolStop {
    /// An explorer met as many failures as the run allows.
    Failures,
    /// The pool's execution budget ran out.
    Executions(u64),
    /// The deadline passed.
    Deadline,
}

/// Subtrees given away and not taken yet, and the explorers waiting for one.
struct Queue {
    subtrees: Vec<Subtree>,
    /// Explorers waiting in [`WorkPool::take`].
    idle: usize,
    /// Set once every explorer waits and no subtree is left: the tree is done.
    finished: bool,
}

/// Where explorers running side by side (one per OS thread) share work.
pub struct WorkPool {
    queue: Mutex<Queue>,
    wake: Condvar,
    workers: usize,
    /// `idle - queued`, kept outside the lock: explorers look at it before
    /// every execution, and give work away only while it is positive.
    hungry: AtomicUsize,
    stopped: AtomicBool,
    stop_reason: Mutex<Option<PoolStop>>,
    executions: AtomicU64,
    max_executions: Option<u64>,
    deadline: Option<Instant>,
    /// Per explorer, the graphs it gave away, handed back to be freed.
    returned: Mutex<Vec<Vec<ExecutionGraph>>>,
}

impl WorkPool {
    /// A pool for `workers` explorers, holding the whole tree; the pool
    /// stops after `max_executions` executions in all or at `deadline`.
    pub fn new(workers: usize, max_executions: Option<u64>, deadline: Option<Instant>) -> WorkPool {
        WorkPool {
            queue: Mutex::new(Queue {
                subtrees: vec![Subtree::whole()],
                idle: 0,
                finished: false,
            }),
            wake: Condvar::new(),
            workers: workers.max(1),
            hungry: AtomicUsize::new(0),
            stopped: AtomicBool::new(false),
            stop_reason: Mutex::new(None),
            executions: AtomicU64::new(0),
            max_executions,
            deadline,
            returned: Mutex::new((0..workers.max(1)).map(|_| Vec::new()).collect()),
        }
    }

    /// The graph explorer `me` starts `s` from: a copy made here when
    /// another explorer made it, whose original goes back to that one.
    pub fn adopt(&self, s: &mut Subtree, me: usize) -> ExecutionGraph {
        let empty = ExecutionGraph::new();
        match s.owner {
            Some(owner) if owner != me => {
                let mine = s.graph.clone();
                let original = std::mem::replace(&mut s.graph, empty);
                let mut r = self.returned.lock().unwrap_or_else(|e| e.into_inner());
                r[owner].push(original);
                mine
            }
            _ => std::mem::replace(&mut s.graph, empty),
        }
    }

    /// Frees the graphs explorer `me` gave away and got back.
    fn free_returned(&self, me: usize) {
        let mine = {
            let mut r = self.returned.lock().unwrap_or_else(|e| e.into_inner());
            std::mem::take(&mut r[me])
        };
        drop(mine);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        // A worker that panicked while holding the lock left the queue in a
        // consistent state (every change is one push or pop).
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn update_hungry(&self, q: &Queue) {
        self.hungry
            .store(q.idle.saturating_sub(q.subtrees.len()), Ordering::Relaxed);
    }

    /// The next subtree for explorer `me` to explore, waiting while other
    /// explorers may still give some away; `None` when the tree is done or
    /// the pool stopped.
    pub fn take(&self, me: usize) -> Option<Subtree> {
        self.free_returned(me);
        let mut q = self.lock();
        loop {
            if self.is_stopped() || q.finished {
                return None;
            }
            if let Some(s) = q.subtrees.pop() {
                self.update_hungry(&q);
                return Some(s);
            }
            q.idle += 1;
            if q.idle == self.workers {
                // Nobody explores, so nobody will give anything away.
                q.finished = true;
                self.wake.notify_all();
                return None;
            }
            self.update_hungry(&q);
            q = self.wake.wait(q).unwrap_or_else(|e| e.into_inner());
            q.idle -= 1;
            self.update_hungry(&q);
        }
    }

    /// Whether an explorer is waiting for work that nobody has given yet.
    #[inline]
    pub fn wants_work(&self) -> bool {
        self.hungry.load(Ordering::Relaxed) > 0
    }

    /// Hands a subtree made by explorer `me` to a waiting explorer.
    pub fn give(&self, mut s: Subtree, me: usize) {
        self.free_returned(me);
        s.owner = Some(me);
        let mut q = self.lock();
        q.subtrees.push(s);
        self.update_hungry(&q);
        self.wake.notify_one();
    }

    /// Counts one execution; false once the pool must stop (budget spent,
    /// deadline passed, or stopped by [`WorkPool::stop`]).
    pub fn next_execution(&self) -> bool {
        if self.is_stopped() {
            return false;
        }
        if self.max_executions.is_none() && self.deadline.is_none() {
            // Nothing to count: the explorers only read the pool's shared
            // flags, so its cache line is not bounced between cores every
            // execution.
            return true;
        }
        let n = self.executions.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(max) = self.max_executions {
            if n > max {
                self.stop(PoolStop::Executions(max));
                return false;
            }
        }
        if let Some(d) = self.deadline {
            // Looking at the clock every execution costs little next to an
            // execution, but there is no need to.
            if n.is_multiple_of(64) && Instant::now() >= d {
                self.stop(PoolStop::Deadline);
                return false;
            }
        }
        true
    }

    /// Stops every explorer of the pool at its next execution.
    pub fn stop(&self, why: PoolStop) {
        let mut r = self.stop_reason.lock().unwrap_or_else(|e| e.into_inner());
        r.get_or_insert(why);
        self.stopped.store(true, Ordering::Relaxed);
        drop(r);
        let _q = self.lock();
        self.wake.notify_all();
    }

    /// Whether the pool was stopped.
    #[inline]
    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    /// Why the pool stopped early, if it did.
    pub fn stop_reason(&self) -> Option<PoolStop> {
        *self.stop_reason.lock().unwrap_or_else(|e| e.into_inner())
    }
}
