//! The targets, one module each, each with `check(data: &[u8])`.

pub mod differential;
pub mod drfrlx;
pub mod models;
pub mod parse;
pub mod replay;
