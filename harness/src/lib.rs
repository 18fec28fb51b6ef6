//! scopecheck: a stateless model checker for concurrent Rust.
//!
//! Swap `std`'s atomics, cells, threads and locks for the ones here behind a
//! `cfg`, wrap the test body in [`model()`], and every execution the memory
//! model allows is run: assertion failures, deadlocks and data races come
//! back as reports with the source lines involved, the execution, and a
//! replay token.
//!
//! ```
//! use scopecheck::sync::atomic::{AtomicUsize, Ordering};
//! use scopecheck::sync::Arc;
//!
//! scopecheck::model(|| {
//!     let n = Arc::new(AtomicUsize::new(0));
//!     let n2 = n.clone();
//!     let t = scopecheck::thread::spawn(move || { n2.fetch_add(1, Ordering::Relaxed); });
//!     n.fetch_add(1, Ordering::Relaxed);
//!     t.join().unwrap();
//!     assert_eq!(n.load(Ordering::Relaxed), 2);
//! });
//! ```

#![warn(missing_docs)]

pub mod litmus;
pub mod model;
pub mod report;

pub use model::{model, Builder, Strategy};
pub use report::Report;
pub use scopecheck_checker::{Failure, FailureKind, MemoryModel};

/// `std::sync` replacements.
pub mod sync {
    pub use scopecheck_instrument::sync::*;
    /// `std::sync::atomic` replacements.
    pub mod atomic {
        pub use scopecheck_instrument::atomic::{
            compiler_fence, fence, AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize, AtomicPtr,
            AtomicU16, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
        };
    }
}

pub use scopecheck_instrument::{cell, hint, thread};
