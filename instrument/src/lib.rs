//! The scopecheck shim: drop-in replacements for `std`'s atomics, cells,
//! threads and locks whose every operation goes through the checker.
//!
//! Users normally reach these through the `scopecheck` crate
//! (`scopecheck::sync::atomic::AtomicUsize`, ...).

#![warn(missing_docs)]

pub mod alloc;
mod arc;
pub mod atomic;
pub mod atomic_ref;
pub mod cell;
mod choice;
pub mod drfrlx;
pub mod future;
pub mod gpu;
mod gpu_alloc;
pub mod gpu_memory;
mod gpu_sync;
pub mod hint;
pub mod lazy_static;
mod raw_atomic;
pub mod rt;
pub mod sync;
pub mod thread;
mod typed;
mod value;
