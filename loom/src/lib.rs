//! scopecheck under loom's name: every loom path (`loom::model`,
//! `loom::thread`, `loom::sync::atomic`, `loom::cell`, `loom::alloc`,
//! `loom::future`, `loom::lazy_static!`, `loom::thread_local!`, ...) is
//! scopecheck's item of the same path. Use it with
//!
//! ```toml
//! [patch.crates-io]
//! loom = { path = "path/to/scopecheck/loom" }
//! ```
//!
//! and run the loom tests as before (`RUSTFLAGS="--cfg loom" cargo test`).

pub use scopecheck::*;
