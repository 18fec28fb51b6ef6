//! Litmus tests in herd's and Dat3M's C dialect: parsing, running them on
//! the checker's runtime, and reporting herd-style.
//!
//! ```
//! use scopecheck::litmus::{check_source, Options};
//! let src = "C SB\n{}\n\
//!   P0 (atomic_int* x, atomic_int* y) { atomic_store_explicit(x, 1, memory_order_relaxed);\n\
//!     int r0 = atomic_load_explicit(y, memory_order_relaxed); }\n\
//!   P1 (atomic_int* x, atomic_int* y) { atomic_store_explicit(y, 1, memory_order_relaxed);\n\
//!     int r0 = atomic_load_explicit(x, memory_order_relaxed); }\n\
//!   exists (0:r0=0 /\\ 1:r0=0)\n";
//! let r = check_source("sb.litmus", src, &Options::default()).unwrap();
//! assert_eq!(r.verdict(), Some(true));
//! assert_eq!(r.states.len(), 4);
//! ```

pub mod ast;
pub mod cyclic;
pub mod drfrlx;
pub mod expect;
pub mod gpu;
pub mod gpu_cyclic;
pub mod gpu_model;
pub mod gpu_split;
pub mod interp;
pub mod lexer;
pub mod limits;
pub mod liveness;
pub mod opencl;
pub mod output;
pub mod parser;
pub mod ptx;
pub mod run;
pub mod vulkan;
pub mod warnings;
pub mod workgroups;

pub use drfrlx::{check_drfrlx_file, check_drfrlx_source, check_drfrlx_test};
pub use parser::{parse, ParseError};
pub use run::{check_file, check_source, check_test, LitmusModel, Options, TestError, TestResult};
