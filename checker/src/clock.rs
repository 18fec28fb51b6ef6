//! Views (vector clocks) over the events of an execution graph.
//!
//! A view holds, per thread, how many of that thread's first events it
//! contains. Since every relation the checker keeps views of (porf, hb) is
//! closed under program-order predecessors, a prefix length per thread is
//! enough to represent it exactly.
//!
//! A clock has one component per memory space (`space.rs`): the global one,
//! which every existing question (`contains`, `get`) asks about, and the
//! local one, kept only once a barrier fencing a single space made the two
//! differ (`None` means "equal to the global component", so programs
//! without such barriers pay nothing). Every operation but
//! [`Clock::join_space`] acts on both components alike, which is how po,
//! spawn, join and atomic synchronization order both spaces (rules 1 and 2
//! of `space.rs`).

use crate::event::{EventId, ThreadId};
use crate::space::Space;
use smallvec::SmallVec;

/// Inline room for 16 threads: views are cloned for every event added, and
/// a heap allocation per clone cost more than the copy of a larger inline
/// array (a 13-thread program spent a fifth of its time in malloc/free with
/// room for 8).
type Lens = SmallVec<[u32; 16]>;

/// A downward-closed set of events: per thread, the length of the prefix
/// included; one such set per memory space.
#[derive(Default, PartialEq, Eq, Hash)]
pub struct Clock(Lens, Option<Box<Lens>>);

impl Clone for Clock {
    /// A copy of the lengths as one block (the derived clone extends element
    /// by element).
    #[inline]
    fn clone(&self) -> Clock {
        Clock(SmallVec::from_slice(&self.0), self.1.clone())
    }
}

fn lens_join(a: &mut Lens, b: &[u32]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b.iter()) {
        if *x < *y {
            *x = *y;
        }
    }
}

fn lens_include(a: &mut Lens, e: EventId) {
    let t = e.thread as usize;
    if a.len() <= t {
        a.resize(t + 1, 0);
    }
    if a[t] <= e.index {
        a[t] = e.index + 1;
    }
}

impl Clock {
    /// The empty view.
    pub fn new() -> Clock {
        Clock(SmallVec::new(), None)
    }
    /// Whether the view contains event `e` (initial writes are in every
    /// view), as far as global memory is concerned.
    #[inline]
    pub fn contains(&self, e: EventId) -> bool {
        e.is_init() || self.get(e.thread) > e.index
    }
    /// Whether the view contains event `e` as far as accesses to `space` are
    /// concerned (rule 4 of `space.rs`).
    #[inline]
    pub fn contains_in(&self, space: Space, e: EventId) -> bool {
        e.is_init() || self.lens(space).get(e.thread as usize).copied().unwrap_or(0) > e.index
    }
    /// How many events of thread `t` the view contains (global component).
    #[inline]
    pub fn get(&self, t: ThreadId) -> u32 {
        self.0.get(t as usize).copied().unwrap_or(0)
    }
    fn lens(&self, space: Space) -> &[u32] {
        match (space, &self.1) {
            (Space::Local, Some(l)) => l,
            _ => &self.0,
        }
    }
    /// Adds event `e` and its program-order predecessors, in every space.
    #[inline]
    pub fn include(&mut self, e: EventId) {
        if e.is_init() {
            return;
        }
        lens_include(&mut self.0, e);
        if let Some(l) = &mut self.1 {
            lens_include(l, e);
        }
    }
    /// Joins `other` into `self`, every space.
    #[inline]
    pub fn join(&mut self, other: &Clock) {
        if self.1.is_some() || other.1.is_some() {
            let mut l = self.1.take().unwrap_or_else(|| Box::new(self.0.clone()));
            lens_join(&mut l, other.lens(Space::Local));
            lens_join(&mut self.0, &other.0);
            self.1 = Some(l);
            self.normalize();
        } else {
            lens_join(&mut self.0, &other.0);
        }
    }
    /// Joins only `other`'s `space` component into `self`'s (a barrier that
    /// fences only that space: rule 3 of `space.rs`).
    pub fn join_space(&mut self, other: &Clock, space: Space) {
        let mut l = self.1.take().unwrap_or_else(|| Box::new(self.0.clone()));
        match space {
            Space::Global => lens_join(&mut self.0, &other.0),
            Space::Local => lens_join(&mut l, other.lens(Space::Local)),
        }
        self.1 = Some(l);
        self.normalize();
    }
    /// Drops the local component when it equals the global one.
    fn normalize(&mut self) {
        if let Some(l) = &self.1 {
            let n = l.len().max(self.0.len());
            let at = |v: &[u32], i: usize| v.get(i).copied().unwrap_or(0);
            if (0..n).all(|i| at(l, i) == at(&self.0, i)) {
                self.1 = None;
            }
        }
    }
    /// Whether the view is empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&n| n == 0) && self.1.as_ref().is_none_or(|l| l.iter().all(|&n| n == 0))
    }
    /// Limits the view to the first `len[t]` events of each thread.
    pub fn clamp(&mut self, len: impl Fn(ThreadId) -> u32) {
        for (t, n) in self.0.iter_mut().enumerate() {
            *n = (*n).min(len(t as ThreadId));
        }
        if let Some(l) = &mut self.1 {
            for (t, n) in l.iter_mut().enumerate() {
                *n = (*n).min(len(t as ThreadId));
            }
        }
        self.normalize();
    }
    /// Per-thread prefix lengths (global component).
    pub fn as_slice(&self) -> &[u32] {
        &self.0
    }
}

/// A view that most events copy unchanged from the event before them (the
/// thread's view at its last release fence, the messages its relaxed reads
/// gathered for a later acquire fence): shared instead of copied, and
/// empty (`None`) in programs without such fences or reads.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SharedClock(Option<std::sync::Arc<Clock>>);

impl SharedClock {
    /// The view, if not empty.
    #[inline]
    pub fn get(&self) -> Option<&Clock> {
        self.0.as_deref()
    }
    /// The view as a clock of its own.
    pub fn to_clock(&self) -> Clock {
        self.0.as_deref().cloned().unwrap_or_default()
    }
    /// Replaces the view.
    pub fn set(&mut self, c: Clock) {
        self.0 = if c.is_empty() {
            None
        } else {
            Some(std::sync::Arc::new(c))
        };
    }
    /// Joins `other` into the view (copying it first if it is shared).
    pub fn join(&mut self, other: &Clock) {
        if other.is_empty() {
            return;
        }
        match &mut self.0 {
            Some(c) => std::sync::Arc::make_mut(c).join(other),
            None => self.0 = Some(std::sync::Arc::new(other.clone())),
        }
    }
}

impl std::fmt::Debug for SharedClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            None => write!(f, "[]"),
            Some(c) => write!(f, "{c:?}"),
        }
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.1 {
            None => write!(f, "{:?}", self.0.as_slice()),
            Some(l) => write!(f, "{:?} (local {:?})", self.0.as_slice(), l.as_slice()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spaces_split_only_through_join_space() {
        let mut a = Clock::new();
        a.include(EventId::new(0, 2));
        let mut b = Clock::new();
        b.include(EventId::new(1, 4));
        let mut local_only = a.clone();
        local_only.join_space(&b, Space::Local);
        assert!(local_only.contains_in(Space::Local, EventId::new(1, 3)));
        assert!(!local_only.contains_in(Space::Global, EventId::new(1, 0)));
        assert!(!local_only.contains(EventId::new(1, 0)));
        // A full join afterwards carries both components along.
        let mut c = Clock::new();
        c.join(&local_only);
        assert!(c.contains_in(Space::Local, EventId::new(1, 3)) && !c.contains(EventId::new(1, 3)));
        // Including an event adds it to both.
        c.include(EventId::new(2, 0));
        assert!(c.contains_in(Space::Local, EventId::new(2, 0)) && c.contains(EventId::new(2, 0)));
        // Once the global side catches up, the clock is plain again.
        c.join_space(&b, Space::Global);
        assert_eq!(format!("{c:?}"), "[3, 5, 1]");
    }
}
