//! The scopecheck engine: events, execution graphs, memory models,
//! exploration strategies and race analysis.
//!
//! This crate knows nothing about the shim's types or the coroutine runtime;
//! it receives [`event::Op`]s through [`engine::Engine`] and answers them.

#![warn(missing_docs)]

pub mod clock;
pub mod dot;
pub mod drfrlx;
pub mod driver;
pub mod engine;
pub mod event;
pub mod explore;
pub mod failure;
pub mod float;
pub mod gpu_progress;
pub mod graph;
pub mod ids;
pub mod memory;
pub mod model;
pub mod op;
pub mod outcome;
pub mod progress;
pub mod progress_model;
pub mod races;
pub mod retry;
pub mod rlx_class;
pub mod sched;
pub mod scope;
pub mod space;
pub mod token;
pub mod work;

pub use engine::{Engine, ExecutionEnd, Limits, Sched, Stats, Stop, ThreadStatus};
pub use event::{Op, OpResult};
pub use failure::{Failure, FailureKind};
pub use model::MemoryModel;
