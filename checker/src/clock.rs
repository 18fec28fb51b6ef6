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

use crate::ids::{EventId, ThreadId};
use crate::space::{FenceSpace, Space};

/// What a write carries to the acquire reads that read it (C++20 release
/// sequences and release fences; RC11's release sequences add the
/// thread's earlier release write to the same location).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// Nothing (a relaxed write with no release fence before it).
    Empty,
    /// The write's own hb view (a release write).
    Hb,
    /// A clock of the arena.
    Slot(u32),
}

/// Threads a clock holds inline. Views are copied for every event added;
/// an inline array is copied as a few vector moves, where a small vector
/// (the earlier representation) went through a length check and a call to
/// `memcpy` (about 100 instructions a copy), and a heap copy through malloc.
/// Joins and emptiness tests look only at the threads in use (`n`), so a
/// three-thread program pays for three, not sixteen.
const INLINE: usize = 16;

/// A downward-closed set of events: per thread, the length of the prefix
/// included; one such set per memory space.
#[derive(Clone)]
pub struct Clock(Repr);

#[derive(Clone)]
enum Repr {
    /// Threads `0..INLINE`, every space alike (the common case): entries
    /// from `n` on are zero.
    Small { n: u32, a: [u32; INLINE] },
    /// A thread from `INLINE` on, or spaces that differ.
    Big(Box<Big>),
}

/// The general form: the global component, and the local one when a
/// barrier fencing a single space made the two differ.
#[derive(Clone)]
struct Big {
    global: Vec<u32>,
    local: Option<Vec<u32>>,
}

fn at(v: &[u32], i: usize) -> u32 {
    v.get(i).copied().unwrap_or(0)
}

fn lens_join(a: &mut Vec<u32>, b: &[u32]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b.iter()) {
        if *x < *y {
            *x = *y;
        }
    }
}

fn lens_include(a: &mut Vec<u32>, e: EventId) {
    let t = e.thread as usize;
    if a.len() <= t {
        a.resize(t + 1, 0);
    }
    if a[t] <= e.index {
        a[t] = e.index + 1;
    }
}

/// `v` without its trailing zeros.
fn trimmed(v: &[u32]) -> &[u32] {
    let n = v.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
    &v[..n]
}

impl Big {
    fn local(&self) -> &[u32] {
        self.local.as_deref().unwrap_or(&self.global)
    }
    /// Drops the local component when it equals the global one.
    fn normalize(&mut self) {
        if let Some(l) = &self.local {
            if trimmed(l) == trimmed(&self.global) {
                self.local = None;
            }
        }
    }
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::new()
    }
}

impl PartialEq for Clock {
    fn eq(&self, other: &Clock) -> bool {
        trimmed(self.global()) == trimmed(other.global()) && trimmed(self.local()) == trimmed(other.local())
    }
}

impl Eq for Clock {}

impl std::hash::Hash for Clock {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        trimmed(self.global()).hash(h);
        trimmed(self.local()).hash(h);
    }
}

impl Clock {
    /// Whether this clock includes `other` (joining `other` would add
    /// nothing), without building the join.
    pub fn includes(&self, other: &Clock) -> bool {
        let r = match (&self.0, &other.0) {
            (Repr::Small { a, .. }, Repr::Small { n, a: b }) => (0..*n as usize).all(|i| b[i] <= a[i]),
            _ => {
                let within = |a: &[u32], b: &[u32]| b.iter().enumerate().all(|(i, &x)| x <= at(a, i));
                within(self.global(), other.global()) && within(self.local(), other.local())
            }
        };
        debug_assert_eq!(
            r,
            {
                let mut j = self.clone();
                j.join(other);
                j == *self
            },
            "checker invariant: includes is join-then-compare"
        );
        r
    }

    /// The empty view.
    pub const fn new() -> Clock {
        Clock(Repr::Small { n: 0, a: [0; INLINE] })
    }
    fn global(&self) -> &[u32] {
        match &self.0 {
            Repr::Small { n, a } => &a[..*n as usize],
            Repr::Big(b) => &b.global,
        }
    }
    fn local(&self) -> &[u32] {
        match &self.0 {
            Repr::Small { n, a } => &a[..*n as usize],
            Repr::Big(b) => b.local(),
        }
    }
    /// The general form of this clock (made on first need).
    fn big(&mut self) -> &mut Big {
        if let Repr::Small { n, a } = &self.0 {
            self.0 = Repr::Big(Box::new(Big {
                global: a[..*n as usize].to_vec(),
                local: None,
            }));
        }
        match &mut self.0 {
            Repr::Big(b) => b,
            Repr::Small { .. } => unreachable!("just made general"),
        }
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
        match &self.0 {
            Repr::Small { a, .. } => a.get(t as usize).copied().unwrap_or(0),
            Repr::Big(b) => at(&b.global, t as usize),
        }
    }
    /// How many events of thread `t` the view contains as far as accesses
    /// to `space` are concerned.
    #[inline]
    pub fn get_in(&self, space: Space, t: ThreadId) -> u32 {
        match space {
            Space::Global => self.get(t),
            Space::Local => at(self.local(), t as usize),
        }
    }
    fn lens(&self, space: Space) -> &[u32] {
        match space {
            Space::Global => self.global(),
            Space::Local => self.local(),
        }
    }
    /// Adds event `e` and its program-order predecessors, in every space.
    #[inline]
    pub fn include(&mut self, e: EventId) {
        if e.is_init() {
            return;
        }
        let t = e.thread as usize;
        if let Repr::Small { n, a } = &mut self.0 {
            if t < INLINE {
                a[t] = a[t].max(e.index + 1);
                *n = (*n).max(t as u32 + 1);
                return;
            }
        }
        let b = self.big();
        lens_include(&mut b.global, e);
        if let Some(l) = &mut b.local {
            lens_include(l, e);
        }
    }
    /// Joins `other` into `self`, every space.
    #[inline]
    pub fn join(&mut self, other: &Clock) {
        if let (Repr::Small { n, a }, Repr::Small { n: m, a: b }) = (&mut self.0, &other.0) {
            let m = *m as usize;
            for (x, y) in a[..m].iter_mut().zip(&b[..m]) {
                *x = (*x).max(*y);
            }
            *n = (*n).max(m as u32);
            return;
        }
        self.join_slow(other);
    }
    fn join_slow(&mut self, other: &Clock) {
        let split = matches!(&other.0, Repr::Big(o) if o.local.is_some());
        let b = self.big();
        if split || b.local.is_some() {
            let mut l = b.local.take().unwrap_or_else(|| b.global.clone());
            lens_join(&mut l, other.local());
            b.local = Some(l);
        }
        lens_join(&mut b.global, other.global());
        b.normalize();
    }
    /// Joins only `other`'s `space` component into `self`'s (a barrier that
    /// fences only that space: rule 3 of `space.rs`).
    pub fn join_space(&mut self, other: &Clock, space: Space) {
        let b = self.big();
        let mut l = b.local.take().unwrap_or_else(|| b.global.clone());
        match space {
            Space::Global => lens_join(&mut b.global, other.global()),
            Space::Local => lens_join(&mut l, other.local()),
        }
        b.local = Some(l);
        b.normalize();
    }
    /// A barrier's join: `other`'s components of the spaces `fence`
    /// orders, nothing of the others (`space.rs`, rule 3).
    pub fn join_fenced(&mut self, other: &Clock, fence: FenceSpace) {
        match fence {
            FenceSpace::Both => self.join(other),
            FenceSpace::Global => self.join_space(other, Space::Global),
            FenceSpace::Local => self.join_space(other, Space::Local),
        }
    }
    /// Whether the view is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        match &self.0 {
            Repr::Small { n, a } => a[..*n as usize].iter().all(|&x| x == 0),
            Repr::Big(b) => b.global.iter().all(|&n| n == 0) && b.local().iter().all(|&n| n == 0),
        }
    }
    /// Limits the view to the first `len[t]` events of each thread.
    pub fn clamp(&mut self, len: impl Fn(ThreadId) -> u32) {
        match &mut self.0 {
            Repr::Small { n, a } => {
                for (t, x) in a[..*n as usize].iter_mut().enumerate() {
                    *x = (*x).min(len(t as ThreadId));
                }
            }
            Repr::Big(b) => {
                for (t, n) in b.global.iter_mut().enumerate() {
                    *n = (*n).min(len(t as ThreadId));
                }
                if let Some(l) = &mut b.local {
                    for (t, n) in l.iter_mut().enumerate() {
                        *n = (*n).min(len(t as ThreadId));
                    }
                }
                b.normalize();
            }
        }
    }
    /// Whether every event of `other` (and of `other_own`'s prefix, when
    /// given) is in `self` or in `own`'s prefix, in every space: whether
    /// joining them into the view of `own` (the clock `self` plus `own`'s
    /// prefix) would change nothing.
    pub fn covers(&self, own: EventId, other: &Clock, other_own: Option<EventId>) -> bool {
        if let (Repr::Small { a, .. }, Repr::Small { n, a: b }) = (&self.0, &other.0) {
            // The common case, without the general form's zero-extensions.
            let (ot, ol) = (own.thread as usize, own.index + 1);
            let mine = |i: usize| if i == ot { a[i].max(ol) } else { a[i] };
            if let Some(e) = other_own.filter(|e| !e.is_init()) {
                let t = e.thread as usize;
                if t >= INLINE || e.index + 1 > mine(t) {
                    return false;
                }
            }
            return (0..*n as usize).all(|i| b[i] <= mine(i));
        }
        let mine = |v: &[u32], i: usize| {
            let o = if i == own.thread as usize { own.index + 1 } else { 0 };
            at(v, i).max(o)
        };
        let within = |a: &[u32], b: &[u32]| b.iter().enumerate().all(|(i, &x)| x <= mine(a, i));
        if let Some(e) = other_own {
            if !e.is_init()
                && e.index + 1 > mine(self.global(), e.thread as usize).min(mine(self.local(), e.thread as usize))
            {
                return false;
            }
        }
        match (&self.0, &other.0) {
            (Repr::Small { a, .. }, Repr::Small { n, a: b }) => within(a, &b[..*n as usize]),
            _ => within(self.global(), other.global()) && within(self.local(), other.local()),
        }
    }
    /// Per-thread prefix lengths (global component), up to the last thread
    /// with an event in the view.
    pub fn as_slice(&self) -> &[u32] {
        trimmed(self.global())
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
        match &self.0 {
            Repr::Big(b) if b.local.is_some() => {
                write!(f, "{:?} (local {:?})", trimmed(&b.global), trimmed(b.local()))
            }
            _ => write!(f, "{:?}", self.as_slice()),
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
