//! Locks and other `std::sync` types (filled in below).

pub use std::sync::Arc;
