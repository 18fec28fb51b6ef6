//! Parts of the `scopecheck` command that are not the library's: argument
//! checks, the folder walk, `--expect` row checks, `--dot` names and checked
//! output. Only `main.rs` uses this module.

pub mod dot;
pub mod drfrlx_json;
pub mod files;
pub mod json;
pub mod liveness;
pub mod numbers;
pub mod out;
pub mod rows;
