//! The shim of the `lazy_static` crate (loom's `lazy_static` module): a
//! `lazy_static!` value is made anew in every execution, by the first
//! thread that uses it, and dropped when the execution's last thread ends.
//! As in loom, a use after the main thread (the one running the model's
//! closure) has returned fails: the program is shutting down, and a real
//! one's statics may be gone.
//!
//! The thread that makes the value is whichever uses it first. When the
//! initialiser itself uses shim objects (makes a `Mutex`, say), which
//! thread that is can differ between executions that the explorer takes
//! for the same one, and the checker may then report the program as
//! nondeterministic: make such values in the model's closure instead.
//!
//! Making the value is an acquire-release handover like std's `Once`:
//! whatever the maker did before it had the value happens before every
//! later use by another thread. Under the checker the value is made with no
//! lock held: when two threads race to make it, each runs the initialiser
//! and the first to finish wins (loom does the same); the other value is
//! dropped at once.

use crate::raw_atomic::alloc;
use crate::rt;
use crate::rt::thread_registry as registry;
use scopecheck_checker::event::{Loc, LocKind, Op, OpResult, Order, Scope, SourceLoc};
use std::any::Any;
use std::fmt;
use std::marker::PhantomData;

/// A value made on first use in each execution (see the [module
/// documentation](self)); declared with the crate's `lazy_static!` macro.
pub struct Lazy<T: 'static> {
    init: fn() -> T,
    _p: PhantomData<fn(T)>,
}

/// A value of an execution, with the location its handover goes through.
struct Made<T> {
    value: T,
    sync: Loc,
}

impl<T: 'static> Lazy<T> {
    /// A lazy value `init` makes (used by the `lazy_static!` macro).
    #[doc(hidden)]
    pub const fn __new(init: fn() -> T) -> Lazy<T> {
        Lazy { init, _p: PhantomData }
    }

    /// The current execution's value, made now if it has none yet.
    #[track_caller]
    pub fn get(&'static self) -> &'static T {
        let src = SourceLoc::caller();
        if registry::main_done() {
            panic!(
                "a lazy_static was used at {src} after the main thread (the model's closure) returned: the \
                 program is shutting down and its statics may be gone (loom reports this too); join the thread \
                 before the closure returns"
            );
        }
        let key = self as *const Lazy<T> as usize;
        if let Some((v, sync)) = self.find(key) {
            acquire(sync, src);
            return v;
        }
        // Program code, run with no borrow of the registry held.
        let value = (self.init)();
        if let Some((v, sync)) = self.find(key) {
            // Another thread made it meanwhile: its value wins, ours is
            // dropped (outside the registry, like every program value).
            drop(value);
            acquire(sync, src);
            return v;
        }
        let sync = alloc(0, LocKind::Atomic);
        let made: Box<dyn Any> = Box::new(Made { value, sync });
        registry::with(|_, lazies| lazies.push((key, made)));
        // As lazy_static's `Once`: publishing is a release.
        rt::op_at(
            Op::Store {
                loc: sync,
                order: Order::Release,
                value: PUBLISHED,
                scope: Scope::System,
                class: None,
            },
            src,
        );
        self.find(key).expect("just made").0
    }

    fn find(&'static self, key: usize) -> Option<(&'static T, Loc)> {
        let found = registry::with(|_, lazies| {
            lazies.iter().find(|(k, _)| *k == key).map(|(_, v)| {
                let m = v.downcast_ref::<Made<T>>().expect("a lazy value has its type");
                (&m.value as *const T, m.sync)
            })
        })?;
        // SAFETY: the value is boxed, so it stays put while the registry
        // grows; it is dropped only when the main thread returns, when no
        // other code of the execution can run on (every other thread has
        // been joined or is abandoned), or forgotten with its execution. The
        // `'static` is what `lazy_static` promises; as in loom, a reference
        // kept past the execution is the program's error.
        Some((unsafe { &*found.0 }, found.1))
    }
}

/// The value of a lazy value's location once it is published.
const PUBLISHED: u64 = 1;

/// A use of a lazy value another thread made: an acquire read of its
/// publication, waiting (with the spin-loop hint) if the maker has not
/// published it yet.
fn acquire(sync: Loc, src: SourceLoc) {
    loop {
        let r = rt::op_at(
            Op::Load {
                loc: sync,
                order: Order::Acquire,
                scope: Scope::System,
                class: None,
            },
            src,
        );
        if matches!(r, OpResult::Value(PUBLISHED)) {
            return;
        }
        rt::spin_on("a lazy_static being made");
    }
}

impl<T: 'static> fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Lazy { .. }")
    }
}

/// Shim of `lazy_static::lazy_static!` (and loom's): a value made on first
/// use in every execution (see [`lazy_static`](mod@crate::lazy_static)).
#[macro_export]
macro_rules! lazy_static {
    ($(#[$attr:meta])* static ref $N:ident : $T:ty = $e:expr; $($t:tt)*) => {
        $crate::__lazy_static_inner!($(#[$attr])* () static ref $N : $T = $e; $($t)*);
    };
    ($(#[$attr:meta])* pub static ref $N:ident : $T:ty = $e:expr; $($t:tt)*) => {
        $crate::__lazy_static_inner!($(#[$attr])* (pub) static ref $N : $T = $e; $($t)*);
    };
    ($(#[$attr:meta])* pub ($($vis:tt)+) static ref $N:ident : $T:ty = $e:expr; $($t:tt)*) => {
        $crate::__lazy_static_inner!($(#[$attr])* (pub ($($vis)+)) static ref $N : $T = $e; $($t)*);
    };
    () => ()
}

#[macro_export]
#[doc(hidden)]
macro_rules! __lazy_static_inner {
    ($(#[$attr:meta])* ($($vis:tt)*) static ref $N:ident : $T:ty = $init:expr; $($t:tt)*) => {
        #[allow(missing_copy_implementations, non_camel_case_types, dead_code)]
        $(#[$attr])*
        $($vis)* struct $N { __private_field: () }
        #[doc(hidden)]
        $($vis)* static $N: $N = $N { __private_field: () };
        impl ::core::ops::Deref for $N {
            type Target = $T;
            fn deref(&self) -> &$T {
                fn __init() -> $T { $init }
                static LAZY: $crate::lazy_static::Lazy<$T> = $crate::lazy_static::Lazy::__new(__init);
                LAZY.get()
            }
        }
        $crate::lazy_static!($($t)*);
    };
    () => ()
}
