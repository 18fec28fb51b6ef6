//! Leak detection (loom's): memory the program allocates through the shim
//! (`alloc::alloc`, `alloc::alloc_zeroed`, `alloc::Track`, `sync::Arc`) must
//! be freed by the end of every *complete* execution, or the execution fails
//! with [`FailureKind::Leak`](scopecheck_checker::FailureKind::Leak) at the
//! allocation's line.
//!
//! Only complete executions are judged: an execution the explorer abandons
//! (blocked, cut by a bound, failed) stops with threads that still hold
//! what they own, and `teardown` forgets their frames without running a
//! `Drop`, so what they hold was never going to be freed there. The
//! registry is emptied when each execution starts.

use super::{in_model, with_shared};
use scopecheck_checker::event::SourceLoc;
use std::collections::HashMap;

/// Whether an `Arc`'s value is still alive (its strong count is not zero).
pub type AliveProbe = Box<dyn Fn() -> bool>;

/// What the current execution allocated and has not freed yet.
#[derive(Default)]
pub(super) struct Leaks {
    /// Raw allocations (`alloc::alloc`) by address.
    raw: HashMap<usize, (u64, SourceLoc)>,
    /// `Track` values and other guards by id.
    tracked: HashMap<u64, SourceLoc>,
    /// `Arc`s: where each was made and whether it is still alive.
    arcs: Vec<(u64, SourceLoc, AliveProbe)>,
    /// Order of registration (the first leak reported is the oldest).
    next: u64,
}

/// One leaked object.
pub(super) struct Leak {
    pub what: &'static str,
    pub at: SourceLoc,
}

impl Leaks {
    /// Forgets everything (a new execution starts). Returns the probes so
    /// that the caller drops them outside its borrow of the runtime state
    /// (dropping a `Weak` runs no program code, but stays out of the borrow
    /// all the same).
    pub(super) fn reset(&mut self) -> Vec<(u64, SourceLoc, AliveProbe)> {
        self.raw.clear();
        self.tracked.clear();
        self.next = 0;
        std::mem::take(&mut self.arcs)
    }

    fn id(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    pub(super) fn alloc(&mut self, ptr: usize, at: SourceLoc) -> Result<(), String> {
        let id = self.id();
        match self.raw.insert(ptr, (id, at)) {
            None => Ok(()),
            Some((_, first)) => Err(format!(
                "alloc::alloc at {at} returned address {ptr:#x}, which the allocation at {first} still holds \
                 (it was freed with std::alloc::dealloc instead of the shim's alloc::dealloc?)"
            )),
        }
    }

    pub(super) fn dealloc(&mut self, ptr: usize, at: SourceLoc) -> Result<(), String> {
        match self.raw.remove(&ptr) {
            Some(_) => Ok(()),
            None => Err(format!(
                "alloc::dealloc at {at} frees address {ptr:#x}, which the shim's alloc::alloc / alloc_zeroed did \
                 not give out in this execution (or it was freed already)"
            )),
        }
    }

    pub(super) fn track(&mut self, at: SourceLoc) -> u64 {
        let id = self.id();
        self.tracked.insert(id, at);
        id
    }

    pub(super) fn untrack(&mut self, id: u64) {
        self.tracked.remove(&id);
    }

    pub(super) fn arc(&mut self, at: SourceLoc, alive: AliveProbe) {
        let id = self.id();
        self.arcs.push((id, at, alive));
    }

    /// The oldest object still alive, if any.
    pub(super) fn first_leak(&self) -> Option<Leak> {
        let raw = self.raw.values().map(|&(id, at)| (id, "Allocation", at));
        let tracked = self.tracked.iter().map(|(&id, &at)| (id, "Allocation", at));
        let arcs = self
            .arcs
            .iter()
            .filter(|(_, _, alive)| alive())
            .map(|&(id, at, _)| (id, "Arc", at));
        raw.chain(tracked)
            .chain(arcs)
            .min_by_key(|&(id, _, _)| id)
            .map(|(_, what, at)| Leak { what, at })
    }
}

/// The report's message for `leak` (loom's first line, then where).
pub(super) fn message(leak: &Leak) -> String {
    let how = if leak.what == "Arc" {
        "its strong count never reached zero (an `Arc` that was `mem::forget`-ed, or a cycle of `Arc`s)"
    } else {
        "it was never freed (`alloc::dealloc` / dropping the `Track`)"
    };
    format!(
        "{} leaked.\n  Allocated: {}\nAt the end of a complete execution the object made at that line was still \
         alive: {how}",
        leak.what, leak.at
    )
}

/// Records a raw allocation at `ptr` made at `at` (`alloc::alloc`): the
/// execution fails with a leak report if it is not freed by its end.
/// Outside a model: nothing.
///
/// # Panics
/// If `ptr` is already recorded (it was freed behind the shim's back).
pub fn leak_alloc(ptr: *mut u8, at: SourceLoc) {
    if !in_model() || ptr.is_null() {
        return;
    }
    if let Err(e) = with_shared(|s| s.leaks.alloc(ptr as usize, at)) {
        panic!("{e}");
    }
}

/// Records that the raw allocation at `ptr` is freed (`alloc::dealloc` at `at`).
/// Outside a model: nothing.
///
/// # Panics
/// If `ptr` was not given out by [`leak_alloc`] in this execution.
pub fn leak_dealloc(ptr: *mut u8, at: SourceLoc) {
    if !in_model() {
        return;
    }
    if let Err(e) = with_shared(|s| s.leaks.dealloc(ptr as usize, at)) {
        panic!("{e}");
    }
}

/// Records an object made at `at` that must be dropped by the end of the
/// execution (`alloc::Track`); the answer is given back to
/// [`leak_untrack`] when it is. `None` outside a model.
pub fn leak_track(at: SourceLoc) -> Option<(u64, u64)> {
    if !in_model() {
        return None;
    }
    Some(with_shared(|s| (s.execution, s.leaks.track(at))))
}

/// The object [`leak_track`] answered `id` for is gone. An id of another
/// execution (or run) is ignored.
pub fn leak_untrack(id: (u64, u64)) {
    if !in_model() {
        return;
    }
    with_shared(|s| {
        if s.execution == id.0 {
            s.leaks.untrack(id.1)
        }
    });
}

/// Records an `Arc` made at `at`: the execution fails with a leak report if
/// `alive` still answers true at its end. Outside a model: nothing.
pub fn leak_arc(at: SourceLoc, alive: AliveProbe) {
    if !in_model() {
        return;
    }
    with_shared(|s| s.leaks.arc(at, alive));
}
