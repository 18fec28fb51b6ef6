//! Memory allocation with leak detection, as loom's `loom::alloc`.
//!
//! Memory allocated with [`alloc`] or [`alloc_zeroed`] and not given back
//! with [`dealloc`], and [`Track`] values not dropped, by the end of a
//! complete execution fail that execution with a leak report
//! ([`FailureKind::Leak`](scopecheck_checker::FailureKind::Leak)) naming the
//! line that allocated. Outside a model these are std's functions.

use crate::rt;
use scopecheck_checker::event::SourceLoc;

#[doc(no_inline)]
pub use std::alloc::Layout;

/// Allocates memory with the global allocator, as [`std::alloc::alloc`],
/// and tracks it for leaks.
///
/// # Safety
/// As [`std::alloc::alloc`]: `layout` must have a non-zero size.
#[track_caller]
pub unsafe fn alloc(layout: Layout) -> *mut u8 {
    // SAFETY: the caller keeps std::alloc::alloc's contract.
    let ptr = unsafe { std::alloc::alloc(layout) };
    rt::leak_alloc(ptr, SourceLoc::caller());
    ptr
}

/// Allocates zeroed memory with the global allocator, as
/// [`std::alloc::alloc_zeroed`], and tracks it for leaks.
///
/// # Safety
/// As [`std::alloc::alloc_zeroed`]: `layout` must have a non-zero size.
#[track_caller]
pub unsafe fn alloc_zeroed(layout: Layout) -> *mut u8 {
    // SAFETY: the caller keeps std::alloc::alloc_zeroed's contract.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    rt::leak_alloc(ptr, SourceLoc::caller());
    ptr
}

/// Frees memory that [`alloc`] or [`alloc_zeroed`] gave out, as
/// [`std::alloc::dealloc`].
///
/// # Safety
/// As [`std::alloc::dealloc`]: `ptr` came from this allocator with this
/// `layout` and is not used again.
///
/// # Panics
/// Inside a model, if `ptr` was not given out by [`alloc`] or
/// [`alloc_zeroed`] in this execution (as loom: "pointer not tracked").
#[track_caller]
pub unsafe fn dealloc(ptr: *mut u8, layout: Layout) {
    rt::leak_dealloc(ptr, SourceLoc::caller());
    // SAFETY: the caller keeps std::alloc::dealloc's contract.
    unsafe { std::alloc::dealloc(ptr, layout) }
}

/// A value tracked for leaks: a `Track` not dropped by the end of a
/// complete execution fails it with a leak report at the line of
/// [`Track::new`].
#[derive(Debug)]
pub struct Track<T> {
    value: T,
    _guard: Guard,
}

/// The part of a [`Track`] whose drop ends the tracking.
#[derive(Debug)]
struct Guard(Option<(u64, u64)>);

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(id) = self.0 {
            rt::leak_untrack(id);
        }
    }
}

impl<T> Track<T> {
    /// Tracks `value` for leaks.
    #[track_caller]
    pub fn new(value: T) -> Track<T> {
        Track {
            value,
            _guard: Guard(rt::leak_track(SourceLoc::caller())),
        }
    }

    /// The value.
    pub fn get_ref(&self) -> &T {
        &self.value
    }

    /// The value, mutably.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.value
    }

    /// Stops tracking and returns the value.
    pub fn into_inner(self) -> T {
        self.value
    }
}
