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

mod budget;
pub mod drfrlx;
pub mod litmus;
mod loom_compat;
pub mod model;
mod progress_line;
pub mod report;

pub use loom_compat::{explore, skip_branch, stop_exploring, MAX_THREADS};
pub use model::{model, Builder, Strategy};
pub use report::Report;
pub use scopecheck_checker::driver::StopCause;
pub use scopecheck_checker::progress::{Guarantee, HangInfo, Progress};
pub use scopecheck_checker::progress_model::GpuProgress;
pub use scopecheck_checker::{Failure, FailureKind, MemoryModel};

/// `std::sync` replacements.
pub mod sync {
    pub use scopecheck_instrument::sync::*;
    /// `std::sync::atomic` replacements.
    pub mod atomic {
        pub use scopecheck_instrument::atomic::{
            compiler_fence, fence, fence_scoped, AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize,
            AtomicPtr, AtomicU16, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
        };
    }
    pub use scopecheck_instrument::atomic_ref;
}

/// `thread_local!` for model threads (loom's macro; `lazy_static!` comes with
/// its module above).
pub use scopecheck_instrument::thread_local;
pub use scopecheck_instrument::{alloc, cell, gpu, hint, lazy_static, thread};

/// loom's `future` module: [`block_on`](future::block_on) and
/// [`AtomicWaker`](future::AtomicWaker), always compiled (it needs no
/// dependency); the `futures` feature exists so that a crate enabling
/// loom's feature of that name builds.
pub mod future {
    pub use scopecheck_instrument::future::*;
}

/// Memory scopes and thread placement (docs/semantics.md §1): the groups of threads
/// a scoped operation is atomic and synchronizing for.
///
/// | `Scope` | CUDA | SYCL / OpenCL | PTX | Vulkan |
/// | --- | --- | --- | --- | --- |
/// | `Thread` | `thread_scope_thread` | `work_item` | (thread) | `Invocation` |
/// | `Warp` | (warp) | `sub_group` | (warp) | `Subgroup` |
/// | `Block` | `thread_scope_block` | `work_group` | `cta` | `Workgroup` |
/// | `Device` | `thread_scope_device` | `device` | `gpu` | `QueueFamily` / `Device` |
/// | `System` | `thread_scope_system` | `system` / `all_svm_devices` | `sys` | `CrossDevice` |
///
/// A thread gets a placement with `thread::spawn_at(Placement::gpu(device,
/// block, warp, lane), f)`; threads spawned otherwise are host threads.
/// Scoped operations (`load_scoped`, `store_scoped`, `fetch_add_scoped`,
/// `compare_exchange_scoped`, ..., and `sync::atomic::fence_scoped`) matter
/// under `MemoryModel::Src11`: there a release and an acquire synchronize
/// only when each one's scope includes the other's thread, and two
/// conflicting atomics that are not so are a heterogeneous race.
pub mod scope {
    pub use scopecheck_checker::scope::{mutually_inclusive, narrowest_common, Actor, GpuPlace, Placement, Scope};
}
