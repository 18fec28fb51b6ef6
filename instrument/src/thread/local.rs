//! `thread_local!` values of model threads ([`LocalKey`]).
//!
//! Each model thread has its own value of every key, made the first time
//! the thread uses the key and dropped when the thread's code returns
//! (inside the execution, so its `Drop` may use shim objects), as loom
//! does; a key used while the thread's values are being dropped answers
//! [`AccessError`] from [`LocalKey::try_with`].

use super::registry;
use crate::rt;
use scopecheck_checker::event::ThreadId as Tid;
use std::fmt;
use std::marker::PhantomData;

/// A key to a value every model thread has its own copy of; declared with
/// the crate's `thread_local!` macro (the shim of `std::thread_local!`).
pub struct LocalKey<T: 'static> {
    init: fn() -> T,
    _p: PhantomData<fn(T)>,
}

/// What [`LocalKey::try_with`] answers while the thread's values are being
/// dropped.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct AccessError {
    _private: (),
}

impl fmt::Debug for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccessError").finish()
    }
}

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("already destroyed")
    }
}

impl std::error::Error for AccessError {}

impl<T: 'static> LocalKey<T> {
    /// A key whose values `init` makes (used by the `thread_local!` macro).
    #[doc(hidden)]
    pub const fn __new(init: fn() -> T) -> LocalKey<T> {
        LocalKey { init, _p: PhantomData }
    }

    /// Runs `f` with the calling model thread's value, made first if the
    /// thread has none.
    ///
    /// # Panics
    /// While the thread's values are being dropped (see [`try_with`](Self::try_with)).
    #[track_caller]
    pub fn with<F, R>(&'static self, f: F) -> R
    where
        F: FnOnce(&T) -> R,
    {
        match self.try_with(f) {
            Ok(r) => r,
            Err(_) => panic!("cannot access a thread local value during or after its destruction"),
        }
    }

    /// Like [`with`](Self::with), but answers [`AccessError`] instead of
    /// panicking while the thread's values are being dropped.
    #[track_caller]
    pub fn try_with<F, R>(&'static self, f: F) -> Result<R, AccessError>
    where
        F: FnOnce(&T) -> R,
    {
        let t = rt::current();
        let key = self as *const LocalKey<T> as usize;
        let value = match self.get(t, key)? {
            Some(v) => v,
            None => {
                // Made with no borrow of the registry held: `init` is program
                // code (it may use other keys, or shim objects).
                let made: Box<dyn std::any::Any> = Box::new((self.init)());
                registry::with_thread(t, |info| {
                    if info.exiting {
                        return Err(AccessError { _private: () });
                    }
                    if !info.locals.iter().any(|(k, _)| *k == key) {
                        info.locals.push((key, Some(made)));
                    }
                    // (Else `init` itself used the key and made a value
                    // first; std keeps one of the two as well.)
                    Ok(())
                })?;
                self.get(t, key)?.expect("just made")
            }
        };
        Ok(f(value))
    }

    /// Thread `t`'s value, if it has one; `Err` if it is destroyed (or the
    /// thread's values are being dropped and it has none).
    fn get(&'static self, t: Tid, key: usize) -> Result<Option<&'static T>, AccessError> {
        let ptr = registry::with_thread(t, |info| match info.locals.iter().find(|(k, _)| *k == key) {
            Some((_, Some(v))) => Ok(Some(
                v.downcast_ref::<T>().expect("a key's values have its type") as *const T
            )),
            Some((_, None)) => Err(AccessError { _private: () }),
            None if info.exiting => Err(AccessError { _private: () }),
            None => Ok(None),
        })?;
        // SAFETY: the value is boxed, so it stays where it is while the
        // registry's vector grows, and it is dropped only when thread `t`'s
        // code has returned (`registry::thread_exit`), or forgotten with its
        // execution: never while `t` runs the closure it is lent to.
        Ok(ptr.map(|p| unsafe { &*p }))
    }
}

impl<T: 'static> fmt::Debug for LocalKey<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("LocalKey { .. }")
    }
}

/// Shim of `std::thread_local!` (and loom's): declares [`LocalKey`]s whose
/// values belong to model threads.
///
/// ```
/// // (Through the `scopecheck` crate: `scopecheck::thread_local!`.)
/// scopecheck_instrument::thread_local! {
///     static COUNT: std::cell::Cell<u32> = std::cell::Cell::new(0);
///     pub static NAME: String = const { String::new() };
/// }
/// ```
#[macro_export]
macro_rules! thread_local {
    () => {};
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = const { $init:expr }; $($rest:tt)*) => (
        $crate::thread_local!($(#[$attr])* $vis static $name: $t = $init; $($rest)*);
    );
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = const { $init:expr }) => (
        $crate::thread_local!($(#[$attr])* $vis static $name: $t = $init);
    );
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = $init:expr; $($rest:tt)*) => (
        $(#[$attr])* $vis static $name: $crate::thread::LocalKey<$t> =
            $crate::thread::LocalKey::__new({ fn __init() -> $t { $init } __init });
        $crate::thread_local!($($rest)*);
    );
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = $init:expr) => (
        $(#[$attr])* $vis static $name: $crate::thread::LocalKey<$t> =
            $crate::thread::LocalKey::__new({ fn __init() -> $t { $init } __init });
    );
}
