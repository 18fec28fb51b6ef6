//! Views (vector clocks) over the events of an execution graph.
//!
//! A view holds, per thread, how many of that thread's first events it
//! contains. Since every relation the checker keeps views of (porf, hb) is
//! closed under program-order predecessors, a prefix length per thread is
//! enough to represent it exactly.

use crate::event::{EventId, ThreadId};
use smallvec::SmallVec;

/// A downward-closed set of events: per thread, the length of the prefix included.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Clock(SmallVec<[u32; 8]>);

impl Clock {
    /// The empty view.
    pub fn new() -> Clock {
        Clock(SmallVec::new())
    }
    /// Whether the view contains event `e` (initial writes are in every view).
    #[inline]
    pub fn contains(&self, e: EventId) -> bool {
        e.is_init() || self.get(e.thread) > e.index
    }
    /// How many events of thread `t` the view contains.
    #[inline]
    pub fn get(&self, t: ThreadId) -> u32 {
        self.0.get(t as usize).copied().unwrap_or(0)
    }
    /// Adds event `e` and its program-order predecessors.
    #[inline]
    pub fn include(&mut self, e: EventId) {
        if e.is_init() {
            return;
        }
        let t = e.thread as usize;
        if self.0.len() <= t {
            self.0.resize(t + 1, 0);
        }
        if self.0[t] <= e.index {
            self.0[t] = e.index + 1;
        }
    }
    /// Joins `other` into `self`.
    #[inline]
    pub fn join(&mut self, other: &Clock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            if *a < *b {
                *a = *b;
            }
        }
    }
    /// Whether the view is empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&n| n == 0)
    }
    /// Limits the view to the first `len[t]` events of each thread.
    pub fn clamp(&mut self, len: impl Fn(ThreadId) -> u32) {
        for (t, n) in self.0.iter_mut().enumerate() {
            *n = (*n).min(len(t as ThreadId));
        }
    }
    /// Per-thread prefix lengths.
    pub fn as_slice(&self) -> &[u32] {
        &self.0
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0.as_slice())
    }
}
