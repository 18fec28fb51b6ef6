//! `Arc` with std's API (and loom's `from_std`), checked for leaks: an
//! `Arc` made inside a model whose strong count has not reached zero by the
//! end of a complete execution fails it with a leak report at the line that
//! made it, as loom does (`mem::forget` of the last handle, a cycle).
//!
//! The reference count itself is std's: cloning and dropping are not
//! operations of the model (they were not before this type existed either),
//! so they add no scheduling points and no synchronization.

use crate::rt;
use scopecheck_checker::event::SourceLoc;
use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::pin::Pin;

/// A thread-safe reference-counted pointer, as `std::sync::Arc`, with leak
/// detection inside a model. Unlike std's, it does not coerce to
/// `Arc<dyn Trait>` by itself (a custom type cannot on stable Rust, loom's
/// neither): make a `std::sync::Arc<dyn Trait>` and wrap it with
/// [`Arc::from_std`].
pub struct Arc<T: ?Sized>(std::sync::Arc<T>);

/// Registers `a` with the leak check (inside a model).
#[track_caller]
fn tracked<T: ?Sized>(a: std::sync::Arc<T>) -> Arc<T> {
    if rt::in_model() {
        let weak = std::sync::Arc::downgrade(&a);
        let probe: Box<dyn Fn() -> bool + '_> = Box::new(move || weak.strong_count() > 0);
        // SAFETY: only the lifetime bound is erased. The probe reads the
        // counts of the allocation through a `Weak`, which keeps the
        // allocation (not the value) alive and never touches a `T`;
        // dropping it drops the `Weak`, which never drops a `T` either.
        // So it stays sound after `T`'s borrows end.
        let probe: rt::AliveProbe = unsafe { std::mem::transmute::<Box<dyn Fn() -> bool + '_>, rt::AliveProbe>(probe) };
        rt::leak_arc(SourceLoc::caller(), probe);
    }
    Arc(a)
}

impl<T> Arc<T> {
    /// A new `Arc` holding `value`.
    #[track_caller]
    pub fn new(value: T) -> Arc<T> {
        tracked(std::sync::Arc::new(value))
    }

    /// A new pinned `Arc`.
    #[track_caller]
    pub fn pin(value: T) -> Pin<Arc<T>> {
        // SAFETY: the value lives in the heap allocation and never moves:
        // `Arc` hands out only shared references to it.
        unsafe { Pin::new_unchecked(Arc::new(value)) }
    }

    /// The value, if this is the only strong handle; else the handle back.
    pub fn try_unwrap(this: Arc<T>) -> Result<T, Arc<T>> {
        std::sync::Arc::try_unwrap(this.0).map_err(Arc)
    }

    /// The value, if this is the last strong handle.
    pub fn into_inner(this: Arc<T>) -> Option<T> {
        std::sync::Arc::into_inner(this.0)
    }

    /// The value if this is the only handle, else a clone of it.
    pub fn unwrap_or_clone(this: Arc<T>) -> T
    where
        T: Clone,
    {
        std::sync::Arc::try_unwrap(this.0).unwrap_or_else(|a| (*a).clone())
    }
}

impl<T: ?Sized> Arc<T> {
    /// Wraps a std `Arc` (the way to a shim `Arc<dyn Trait>`); tracked for
    /// leaks from here on.
    #[track_caller]
    pub fn from_std(std: std::sync::Arc<T>) -> Arc<T> {
        tracked(std)
    }

    /// The number of strong handles.
    pub fn strong_count(this: &Self) -> usize {
        std::sync::Arc::strong_count(&this.0)
    }

    /// Adds one to the strong count of the `Arc` that `ptr` came from
    /// ([`Arc::into_raw`]).
    ///
    /// # Safety
    /// As `std::sync::Arc::increment_strong_count`.
    pub unsafe fn increment_strong_count(ptr: *const T)
    where
        T: Sized,
    {
        // SAFETY: the caller keeps std's contract.
        unsafe { std::sync::Arc::increment_strong_count(ptr) }
    }

    /// Takes one from the strong count of the `Arc` that `ptr` came from.
    ///
    /// # Safety
    /// As `std::sync::Arc::decrement_strong_count`.
    pub unsafe fn decrement_strong_count(ptr: *const T)
    where
        T: Sized,
    {
        // SAFETY: the caller keeps std's contract.
        unsafe { std::sync::Arc::decrement_strong_count(ptr) }
    }

    /// The value mutably, if this is the only handle.
    pub fn get_mut(this: &mut Self) -> Option<&mut T> {
        std::sync::Arc::get_mut(&mut this.0)
    }

    /// Whether both handles point at the same value.
    pub fn ptr_eq(this: &Self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&this.0, &other.0)
    }

    /// Consumes the handle, returning the pointer ([`Arc::from_raw`] takes it back).
    pub fn into_raw(this: Self) -> *const T {
        std::sync::Arc::into_raw(this.0)
    }

    /// The pointer to the value.
    pub fn as_ptr(this: &Self) -> *const T {
        std::sync::Arc::as_ptr(&this.0)
    }

    /// Takes back a pointer from [`Arc::into_raw`].
    ///
    /// # Safety
    /// As `std::sync::Arc::from_raw`.
    pub unsafe fn from_raw(ptr: *const T) -> Self
    where
        T: Sized,
    {
        // SAFETY: the caller keeps std's contract.
        Arc(unsafe { std::sync::Arc::from_raw(ptr) })
    }
}

impl<T: Clone> Arc<T> {
    /// The value mutably, cloning it first if other handles share it.
    pub fn make_mut(this: &mut Self) -> &mut T {
        std::sync::Arc::make_mut(&mut this.0)
    }
}

impl<T: ?Sized> Deref for Arc<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> Clone for Arc<T> {
    fn clone(&self) -> Arc<T> {
        Arc(self.0.clone())
    }
}

impl<T: Default> Default for Arc<T> {
    #[track_caller]
    fn default() -> Arc<T> {
        Arc::new(T::default())
    }
}

impl<T> From<T> for Arc<T> {
    #[track_caller]
    fn from(value: T) -> Arc<T> {
        Arc::new(value)
    }
}

impl<T: ?Sized> From<Box<T>> for Arc<T> {
    #[track_caller]
    fn from(b: Box<T>) -> Arc<T> {
        tracked(std::sync::Arc::from(b))
    }
}

impl<T> From<Vec<T>> for Arc<[T]> {
    #[track_caller]
    fn from(v: Vec<T>) -> Arc<[T]> {
        tracked(std::sync::Arc::from(v))
    }
}

impl From<&str> for Arc<str> {
    #[track_caller]
    fn from(s: &str) -> Arc<str> {
        tracked(std::sync::Arc::from(s))
    }
}

impl From<String> for Arc<str> {
    #[track_caller]
    fn from(s: String) -> Arc<str> {
        tracked(std::sync::Arc::from(s))
    }
}

impl<T: ?Sized> AsRef<T> for Arc<T> {
    fn as_ref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> Borrow<T> for Arc<T> {
    fn borrow(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl<T: ?Sized> fmt::Pointer for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(&self.0, f)
    }
}

impl<T: ?Sized + PartialEq> PartialEq for Arc<T> {
    fn eq(&self, other: &Self) -> bool {
        *self.0 == *other.0
    }
}

impl<T: ?Sized + Eq> Eq for Arc<T> {}

impl<T: ?Sized + PartialOrd> PartialOrd for Arc<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        (*self.0).partial_cmp(&*other.0)
    }
}

impl<T: ?Sized + Ord> Ord for Arc<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (*self.0).cmp(&*other.0)
    }
}

impl<T: ?Sized + Hash> Hash for Arc<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (*self.0).hash(state)
    }
}

impl<T: ?Sized> Unpin for Arc<T> {}
